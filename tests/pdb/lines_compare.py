#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Source lines of a PDB against its Breakpad .sym (dump_syms, the oracle).

usage: lines_compare.py OURS SYM
OURS: `stackview symbols PDB --lines` ("RVA SIZE LINE FILE" after a header line).
Every line record of the .sym ("RVA SIZE LINE FILENUM" after a FUNC, FILE records naming the
numbers) must be ours with the same RVA, size, line and file; a line of ours the .sym lacks
must lie in a function the linker folded with others ("FUNC m": dump_syms lists the lines of
the one it keeps, the PDB has every folded function's). Exit 1 with the differences."""
import sys


def main():
    ours_path, sym_path = sys.argv[1], sys.argv[2]
    files, want, folded = {}, set(), []
    for line in open(sym_path, encoding="utf-8", errors="replace"):
        f = line.rstrip("\n").split(" ")
        if f[0] == "FILE":
            files[f[1]] = " ".join(f[2:])
        elif f[0] == "FUNC":
            if f[1] == "m":
                start, size = int(f[2], 16), int(f[3], 16)
                folded.append((start, start + size))
        elif f[0] in ("MODULE", "INFO", "PUBLIC", "STACK"):
            continue
        elif len(f) == 4:
            want.add((int(f[0], 16), int(f[1], 16), int(f[2]), f[3]))
    want = {(a, s, ln, files.get(n, "?" + n)) for a, s, ln, n in want}
    ours = set()
    for i, line in enumerate(open(ours_path, encoding="utf-8", errors="replace")):
        if i == 0:
            continue
        a, s, ln, path = line.rstrip("\n").split(" ", 3)
        ours.add((int(a, 16), int(s, 16), int(ln), path))
    missing = sorted(want - ours)
    extra = sorted(x for x in ours - want if not any(lo <= x[0] < hi for lo, hi in folded))
    for x in missing[:5]:
        print("missing: %x %x %d %s" % x)
    for x in extra[:5]:
        print("not in the .sym: %x %x %d %s" % x)
    print(f"{len(want)} lines of the .sym, {len(ours)} of ours; {len(missing)} missing, {len(extra)} extra outside folded code")
    sys.exit(1 if missing or extra or not want else 0)


if __name__ == "__main__":
    main()
