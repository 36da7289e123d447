#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write a heaptrack file (format 3, as heaptrack_interpret writes it) to standard output,
shaped for the paths of reading "peak" once (formats/text/heaptrack.c):

  heaptrack_synth.py once STEPS    the heap peaks (and frees some in that time step), then
                                   STEPS time steps hold it below that
  heaptrack_synth.py later STEPS   the same, then it grows past that peak, then frees some
  heaptrack_synth.py grow STEPS    it grows in every step: the peak is its last moment

200 allocation sites (a function each, one trace), one allocation kind a site."""
import sys

mode, steps = sys.argv[1], int(sys.argv[2])
K = 200
out = []
w = out.append
w("v 10400 3")
w("X ./synth")
for t in ["synth"] + ["f%d" % k for k in range(K)]:
    w("s %x %s" % (len(t), t))
for k in range(K):
    w("i %x 1 %x" % (0x1000 + 16 * k, k + 2))  # module string 1, function string k + 2
for k in range(K):
    w("t %x 0" % (k + 1))
for k in range(K):
    w("a %x %x" % (16 + 8 * k, k + 1))
if mode == "grow":
    for s in range(steps):
        w("c %x" % (1 + s))
        for k in range(K):
            w("+ %x" % k)
            w("+ %x" % k)
            w("- %x" % k)
else:
    w("c 1")
    for r in range(10):
        for k in range(K):
            w("+ %x" % k)
    for k in range(0, K, 5):  # in the same step after the peak: what a site held then counts
        w("- %x" % k)
    for s in range(steps):  # below the peak: each site frees one, then allocates it again
        w("c %x" % (2 + s))
        for k in range(K):
            w(("- %x" if s % 2 == 0 else "+ %x") % k)
    if mode == "later":
        w("c %x" % (3 + steps))
        for k in range(0, K, 3):
            w("+ %x" % k)
            w("+ %x" % k)
    w("c %x" % (4 + steps))
    for k in range(0, K, 2):
        w("- %x" % k)
print("\n".join(out))
