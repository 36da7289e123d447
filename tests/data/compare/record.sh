#!/bin/sh
# SPDX-License-Identifier: MIT
# How the recordings here were made (perf 6.1, Debian 12, 2 cores): one program in two builds.
# The base build (app-3f2a + libwork.so.1.2) and the test build (app-91c0 + libwork.so.1.3)
# differ only in serialize(), which spins 1.5 times longer in the test build, and in their
# names (a hash suffix, a library version). base1-3 are three runs of the base build, test1-2
# two runs of the test build; mt / mt2 are one run each of the builds copied to the names mt
# and mt2 (a genuine rename). Run in a scratch directory; writes *.perf.txt.gz there.
set -e
here=$(dirname "$0")
mkdir -p b t
gcc -O0 -g -fno-omit-frame-pointer -shared -fPIC -Wl,-soname,libwork.so.1 -o b/libwork.so.1.2 "$here/work.c"
gcc -O0 -g -fno-omit-frame-pointer -DHEAVY -shared -fPIC -Wl,-soname,libwork.so.1 -o t/libwork.so.1.3 "$here/work.c"
ln -sf libwork.so.1.2 b/libwork.so.1
ln -sf libwork.so.1.3 t/libwork.so.1
gcc -O0 -g -fno-omit-frame-pointer -o b/app-3f2a "$here/app.c" -Lb -l:libwork.so.1.2 -Wl,-rpath,'$ORIGIN'
gcc -O0 -g -fno-omit-frame-pointer -o t/app-91c0 "$here/app.c" -Lt -l:libwork.so.1.3 -Wl,-rpath,'$ORIGIN'
cp b/app-3f2a b/mt
cp t/app-91c0 t/mt2
rec() { # OUT PROGRAM
	perf record -q -e cpu-clock -F 999 -g -o "$1.data" "$2"
	perf script -i "$1.data" -F comm,pid,tid,time,event,ip,sym,dso | gzip -9 > "$1.perf.txt.gz"
}
for i in 1 2 3; do rec base$i ./b/app-3f2a; done
for i in 1 2; do rec test$i ./t/app-91c0; done
rec mt ./b/mt
rec mt2 ./t/mt2
