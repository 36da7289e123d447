#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Records the thread-time fixtures (run as root on an otherwise idle machine): tt.c's threads
# system-wide with every context switch and wake-up and cpu-clock samples, while two
# SCHED_IDLE spinners keep both CPUs busy (so no switch involves the idle task, whose switches
# some kernels do not always trace), then the same as perf script text and perf sched
# timehist's per-switch table, the oracle tests/perf-threadtime compares with.
# With a second argument "idle", no spinners (an idle machine as users have it: some switches
# out of the idle task go untraced) and the files are named tt-idle.*; with "program", the
# program alone (no -a) with --switch-events, its text with --show-switch-events, no timehist
# (its oracle is perf's own switch records), named tt-prog.*.
set -euo pipefail
out=${1:-.}
idle=${2:-}
case $idle in idle) name=tt-idle ;; program) name=tt-prog ;; *) name=tt ;; esac
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'pkill -P $$ spin 2>/dev/null || true; rm -rf "$work"' EXIT
gcc -O2 -g -fno-omit-frame-pointer -pthread -o "$work/tt" "$here/tt.c"
printf 'int main(void){volatile unsigned long x=0;for(;;)x++;}\n' > "$work/spin.c"
gcc -O1 -o "$work/spin" "$work/spin.c"
s1= s2=
if [ -z "$idle" ]; then
	taskset -c 0 chrt -i 0 "$work/spin" & s1=$!
	taskset -c 1 chrt -i 0 "$work/spin" & s2=$!
	sleep 0.3
fi
if [ "$idle" = program ]; then
	(cd "$work" && perf record -o tt.data --switch-events -g -e sched:sched_switch -e sched:sched_wakeup \
		-e sched:sched_wakeup_new -e cpu-clock -- ./tt)
	perf script --ns -i "$work/tt.data" --show-switch-events -F trace:comm,pid,tid,cpu,time,period,event,trace,ip,sym,dso \
		-F sw:comm,pid,tid,cpu,time,period,event,ip,sym,dso > "$work/tt.perf.txt"
	gzip -9 -c "$work/tt.data" > "$out/$name.perf.data.gz"
	gzip -9 -c "$work/tt.perf.txt" > "$out/$name.perf.txt.gz"
	id=$(readelf -n "$work/tt" | sed -n 's/.*Build ID: //p')
	mkdir -p "$out/debug/.build-id/${id:0:2}"
	cp "$work/tt" "$out/debug/.build-id/${id:0:2}/${id:2}.debug"
	exit 0
fi
(cd "$work" && perf record -o tt.data -a -g -e sched:sched_switch -e sched:sched_wakeup \
	-e sched:sched_wakeup_new -e cpu-clock -- ./tt)
[ -z "$idle" ] && kill "$s1" "$s2"
perf script --ns -i "$work/tt.data" -F trace:comm,pid,tid,cpu,time,period,event,trace,ip,sym,dso \
	-F sw:comm,pid,tid,cpu,time,period,event,ip,sym,dso > "$work/tt.perf.txt"
perf sched timehist --state -i "$work/tt.data" > "$work/tt.timehist.txt"
gzip -9 -c "$work/tt.data" > "$out/$name.perf.data.gz"
gzip -9 -c "$work/tt.perf.txt" > "$out/$name.perf.txt.gz"
gzip -9 -c "$work/tt.timehist.txt" > "$out/$name.timehist.txt.gz"
id=$(readelf -n "$work/tt" | sed -n 's/.*Build ID: //p')
mkdir -p "$out/debug/.build-id/${id:0:2}"
cp "$work/tt" "$out/debug/.build-id/${id:0:2}/${id:2}.debug"
