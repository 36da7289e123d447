#!/bin/sh
# SPDX-License-Identifier: MIT
# Rebuild the pprof fixtures: a CPU and a heap profile of prog.go (cpu.pb.gz, heap.pb.gz), and
# go tool pprof's own reports of them, the oracles tests/pprof compares with: `-top` of every
# sample type (top/PROFILE.TYPE.txt, exact units) and the total under the label
# worker=sorter (top/cpu.label.txt). Needs golang-go (Debian 12: go 1.19).
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp prog.go "$tmp/"
(cd "$tmp" && GO111MODULE=off GOCACHE="$tmp/cache" go build -o prog prog.go)
"$tmp/prog" cpu.pb.gz heap.pb.gz
mkdir -p top
top() { go tool pprof -top -nodecount=100000 -nodefraction=0 -edgefraction=0 "$@" 2>/dev/null; }
top -unit=ns -sample_index=cpu cpu.pb.gz > top/cpu.cpu.txt
top -sample_index=samples cpu.pb.gz > top/cpu.samples.txt
top -unit=ns -sample_index=cpu -tagfocus=worker=sorter cpu.pb.gz > top/cpu.label.txt
for t in alloc_objects inuse_objects; do top -sample_index=$t heap.pb.gz > top/heap.$t.txt; done
for t in alloc_space inuse_space; do top -unit=B -sample_index=$t heap.pb.gz > top/heap.$t.txt; done
# the runtime's legacy text profiles (debug=1), which stackview refuses naming them
cp legacy.go "$tmp/"
(cd "$tmp" && GO111MODULE=off GOCACHE="$tmp/cache" go build -o legacy legacy.go)
"$tmp/legacy" heap.legacy.txt goroutine.legacy.txt
sed -i "s|$tmp/||g" heap.legacy.txt goroutine.legacy.txt
