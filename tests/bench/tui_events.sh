#!/bin/bash
# SPDX-License-Identifier: MIT
# The TUI's Events view on a real terminal (tmux): how long after V its first event rows are
# on screen, and all of them. Usage: tui_events.sh STACKVIEW FILE; prints one line.
set -u
sv=$1 f=$2
sock="sv-bench-$$"
t() { tmux -L "$sock" "$@"; }
pane() { t capture-pane -t b -p 2>/dev/null; }
now() { date +%s%N; }
t new-session -d -s b -x 140 -y 30 "$sv $f 2> /dev/null; sleep 600"
for _ in $(seq 600); do pane | grep -q 'choose the processes\|CallTree\]' && break; sleep 0.05; done
pane | grep -q 'choose the processes' && t send-keys -t b Escape
for _ in $(seq 600); do pane | grep -q 'CallTree\]' && break; sleep 0.05; done
sleep 0.5
t0=$(now)
t send-keys -t b V
first= all= rows=
for _ in $(seq 30000); do
	p=$(pane)
	head=$(printf '%s\n' "$p" | sed -n 2p)
	if [ -z "$first" ] && printf '%s\n' "$head" | grep -q '[1-9][0-9,]* of [0-9,]* events'; then first=$((($(now) - t0) / 1000000)); fi
	if printf '%s\n' "$head" | grep -q ' events$'; then
		all=$((($(now) - t0) / 1000000))
		rows=$(printf '%s\n' "$head" | grep -o '[0-9,]* events$')
		[ -n "$first" ] || first=$all
		break
	fi
	sleep 0.01
done
t kill-server 2> /dev/null
echo "TUI Events view: first rows ${first:-?} ms after V, all ${rows:-?} in ${all:-?} ms (goal: first rows <= 1000 ms on 10M events)"
