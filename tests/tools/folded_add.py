#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Add folded files up as stackcollapse-perf.pl prints them: equal stacks summed, lines sorted
in byte order ("STACK COUNT" per line). The tests use it to say what the script's output
would be with one more sample: its expected output for an input plus the folded line of the
input's last sample, which the script leaves out when no blank line follows it."""
import sys

sums = {}
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        for line in f:
            line = line.rstrip(b"\n")
            if not line:
                continue
            stack, _, count = line.rpartition(b" ")
            sums[stack] = sums.get(stack, 0) + int(count)
out = sys.stdout.buffer
for stack in sorted(sums):
    out.write(stack + b" " + str(sums[stack]).encode() + b"\n")
