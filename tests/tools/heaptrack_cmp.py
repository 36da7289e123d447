#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare stackview's folded stacks of a heaptrack file with heaptrack_print's flame graph
output (heaptrack_print -F) of the same file and cost type, stack by stack.

  heaptrack_cmp.py HEAPTRACK_PRINT_STACKS STACKVIEW_FOLDED

heaptrack_print names a frame "function (file)" (or the address), shortens C++ templates to
"<>", starts each stack at main, writes one line per allocation site, zeros included, and
puts an address's inlined functions in the order its data lists them, innermost first, where
a root-to-leaf stack has them outermost first. stackview names frames "module!function",
marks inlined ones " (inlined)", keeps full names and the frames above main, and writes no
zeros. Both are brought to short function names from main on, and stackview's inline groups
to heaptrack_print's order; then every stack's weight must be equal. Prints the differences;
exits 1 if there are any."""
import re
import sys


def theirs(path):
    out = {}
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if not line:
            continue
        stack, _, w = line.rpartition(" ")
        frames = [re.sub(r" \([^()]*\)$", "", f) for f in stack.rstrip(";").split(";") if f]
        key = ";".join(frames)
        out[key] = out.get(key, 0) + int(w)
    return {k: v for k, v in out.items() if v}


def short_templates(name):
    out, depth = [], 0
    for i, ch in enumerate(name):
        if ch == "<" and not name[:i].endswith("operator") and not name[:i].endswith("operator<"):
            if depth == 0:
                out.append("<")
            depth += 1
        elif ch == ">" and depth > 0:
            depth -= 1
            if depth == 0:
                out.append(">")
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def ours(path):
    out = {}
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if not line:
            continue
        stack, _, w = line.rpartition(" ")
        groups = []  # a function and the ones inlined into it, as heaptrack_print orders them
        for f in stack.split(";"):
            inlined = f.endswith(" (inlined)")
            f = re.sub(r" \(inlined\)$", "", f)
            f = short_templates(f.split("!", 1)[1] if "!" in f else f)
            if inlined and groups:
                groups[-1].insert(0, f)
            else:
                groups.append([f])
        for i, g in enumerate(groups):  # heaptrack_print starts at main, with what is inlined in it
            if g[0] == "main":  # (heaptrack looks at the innermost function at an address)
                groups = groups[i:]
                break
        frames = [f for g in groups for f in g]
        key = ";".join(frames)
        out[key] = out.get(key, 0) + round(float(w))
    return {k: v for k, v in out.items() if v}


a, b = theirs(sys.argv[1]), ours(sys.argv[2])
bad = 0
for k in sorted(set(a) | set(b)):
    if a.get(k, 0) != b.get(k, 0):
        bad += 1
        if bad <= 5:
            print("%s: heaptrack_print %d, stackview %d" % (k[-200:], a.get(k, 0), b.get(k, 0)))
if not a:
    print("heaptrack_print wrote no stacks")
    bad = 1
sys.exit(1 if bad else 0)
