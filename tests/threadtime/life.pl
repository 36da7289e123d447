#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# Each thread's life in a perf script text: "TID<TAB>LIFE", LIFE the ms from the first to the
# last record that names the thread (its own samples, and prev_pid, next_pid and pid in the
# sched tracepoints' payloads). Thread time must never exceed it.
use strict;
use warnings;
my (%first, %last);
while (<>) {
	next unless /^\S.*?\s(?:-?\d+\/)?(-?\d+)\s+\[\d+\]\s+([0-9.]+):/;
	my $t = $2;
	for my $tid ($1, /(?:prev_pid|next_pid| pid)=(\d+)/g) {
		$first{$tid} //= $t;
		$last{$tid} = $t;
	}
}
printf "%d\t%.3f\n", $_, ($last{$_} - $first{$_}) * 1000 for sort { $a <=> $b } grep { $_ > 0 } keys %first;
