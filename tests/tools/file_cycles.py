#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# No circle between files: reads the defined and undefined symbols of every object file (nm)
# and draws an arrow from a file to each file that defines a function or variable it uses.
# A strongly connected set of two or more files is a circle (two files that call each other,
# directly or round a ring); each is printed with the arrows that close it, and the exit is 1.
# Usage: file_cycles.py BUILD_DIR OBJ...  (names are printed relative to BUILD_DIR)
import collections
import os
import subprocess
import sys


def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDRBCGSV":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
    return defined, used


def circles(nodes, edges):
    """Tarjan's strongly connected components, iteratively; those of two or more nodes."""
    index, low, on, stack, found = {}, {}, set(), [], []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    x = stack.pop()
                    on.discard(x)
                    comp.append(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def main():
    base, objs = sys.argv[1], sys.argv[2:]
    owner, uses = {}, {}
    for o in objs:
        defined, used = symbols(o)
        uses[o] = used
        for s in defined:
            owner[s] = o
    edges = collections.defaultdict(set)
    why = collections.defaultdict(list)
    for o in objs:
        for s in sorted(uses[o]):
            d = owner.get(s)
            if d and d != o:
                edges[o].add(d)
                why[(o, d)].append(s)
    found = circles(objs, edges)
    name = lambda o: os.path.relpath(o, base)[:-2] + ".c"
    for comp in found:
        print("circle between files: " + " ".join(name(o) for o in comp))
        inside = set(comp)
        for o in comp:
            for d in sorted(edges[o] & inside):
                print("  %s -> %s (%s)" % (name(o), name(d), ", ".join(why[(o, d)][:4])))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
