#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The heap view of a .gcdump computed from PerfView's own XML dump of the same file (the
<MemoryGraph> with its <NodeTypes> and <Nodes>, as GraphUtils.WriteXml writes it), compared
with stackview's calltree --json of the .gcdump.

  gcdump_oracle.py DUMP.xml[.gz] CALLTREE.json [PRIORITIES]

PRIORITIES: Priority patterns used instead of PerfView's defaults (stackview's --priority).

From the XML alone it builds what PerfView's heap stack source is: SpanningTree.ForEach from
the root (a priority queue as PerfView's, each child's priority its type's, from the default
Priority patterns, plus a tenth of its parent's, less a growing epsilon; float32 arithmetic),
orphans under "[not reachable from roots]", each node a sample of its size whose stack is
its path of type names. Both sides are reduced to (path -> bytes, objects); every path must
agree. Prints what differs; exits 1 if anything does."""
import gzip
import json
import re
import struct
import sys
import xml.etree.ElementTree as ET


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def translate(pat):  # PerfView's simplified pattern (stackview's D1 reading of %)
    out = []
    for ch in pat:
        out.append({"%": r"[-+.\w?]*", "*": ".*", "^": "^", "|": "|", "{": "(", "}": ")"}.get(ch, re.escape(ch)))
    return re.compile("".join(out), re.I)


DEFAULT = (r"v4.0.30319\%!->-1;v2.0.50727\%!->-1;[*local vars]->-1000;"
           r"mscorlib!Runtime.CompilerServices.ConditionalWeakTable->-10000;[COM/WinRT Objects]->-1000000;"
           r"[*handles]->-2000000;[other roots]->-2000000")

opener = gzip.open if sys.argv[1].endswith(".gz") else open
root = ET.parse(opener(sys.argv[1], "rb")).getroot()
graph = root.find("MemoryGraph") if root.tag != "MemoryGraph" else root
root_index = int(graph.find("RootIndex").text)
types = {int(t.get("Index")): t.get("Name") for t in graph.find("NodeTypes")}
nodes = {}
for n in graph.find("Nodes"):
    kids = [int(x) for x in (n.text or "").split()]
    nodes[int(n.get("Index"))] = (int(n.get("TypeIndex")), int(n.get("Size")), kids)
N = len(nodes)

prio = {}
pats = []
for p in (sys.argv[3] if len(sys.argv) > 3 else DEFAULT).split(";"):
    if not p.strip():
        continue
    m = re.match(r"(.*)->(-?\d+.?\d*)", p)
    pats.append((translate(m.group(1).strip()), f32(float(m.group(2)))))
for t, name in types.items():
    prio[t] = 0.0
    for rx, v in pats:
        if rx.search(name or ""):
            prio[t] = v
            break

heap = []


def push(node, pri):
    i = len(heap)
    heap.append([pri, node])
    while True:
        p = i // 2
        if heap[p][0] >= heap[i][0]:
            break
        heap[p], heap[i] = heap[i], heap[p]
        if p == 0:
            break
        i = p


def pop():
    ret = heap[0]
    last = heap.pop()
    if heap:
        heap[0] = last
    i = 0
    n = len(heap)
    while True:
        l, big = i * 2, i
        if l < n and heap[l][0] > heap[big][0]:
            big = l
        if l + 1 < n and heap[l + 1][0] > heap[big][0]:
            big = l + 1
        if big == i:
            break
        heap[i], heap[big] = heap[big], heap[i]
        i = big
    return ret[1]


NONE, VISITED, VISITING = -1, -2, -3
parent = [NONE] * (N + 1)
npri = [0.0] * (N + 1)
push(root_index, 0.0)
order, eps = f32(0.0), f32(1e-7)
orphans = False
visit = []


def mark(start):
    stack = [[start, iter(nodes[start][2])]]
    parent[start] = VISITING
    while stack:
        x, it = stack[-1]
        ch = next(it, None)
        if ch is None:
            stack.pop()
            parent[x] = NONE if not stack else VISITED
            continue
        if parent[ch] != NONE:
            continue
        if len(stack) > 10000:
            parent[ch] = VISITED
            continue
        parent[ch] = VISITING
        stack.append([ch, iter(nodes[ch][2])])


while True:
    if not heap:
        if orphans:
            break
        orphans = True
        for i in range(N):
            if parent[i] == NONE:
                mark(i)
        for i in range(N):
            if parent[i] == NONE and i != root_index:
                push(i, prio[nodes[i][0]])
                parent[i] = N
            elif parent[i] < NONE:
                parent[i] = NONE
        continue
    cur = pop()
    pp = npri[cur]
    for ch in nodes[cur][2]:
        if parent[ch] != NONE:
            continue
        parent[ch] = cur
        cp = f32(f32(prio[nodes[ch][0]]) + f32(pp / 10))
        npri[ch] = cp
        order = f32(order + eps)
        push(ch, f32(cp - order))
    visit.append(cur)

want = {}
path = {}
for v in visit:
    p = parent[v]
    up = () if v == root_index or p < 0 else (("[not reachable from roots]",) if p == N else path[p])
    path[v] = up + (types[nodes[v][0]],)
    e = want.setdefault(path[v], [0, 0])
    e[0] += nodes[v][1]
    e[1] += 1

got = {}
sys.setrecursionlimit(100000)


def walk(n, up):
    here = up + (n["name"],) if n["name"] != "ROOT" else up
    if n.get("exc_count", 0) or n.get("exc", 0):
        e = got.setdefault(here, [0, 0])
        e[0] += round(n.get("exc", 0))
        e[1] += n.get("exc_count", 0)
    for c in n.get("children", []):
        walk(c, here)


walk(json.load(open(sys.argv[2]))["tree"], ())
bad = 0
for k in sorted(set(want) | set(got)):
    if want.get(k) != got.get(k):
        bad += 1
        if bad <= 5:
            print("%s: PerfView's dump %s, stackview %s" % (";".join(k)[-300:], want.get(k), got.get(k)))
if len(visit) != N:
    print("the walk visited %d of %d nodes" % (len(visit), N))
    bad += 1
print("%d paths, %d differ" % (len(want), bad), file=sys.stderr)
sys.exit(1 if bad else 0)
