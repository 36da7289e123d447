#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# The oracle of tests/threadtime: `perf sched timehist --state` (perf 6.1) summed per thread as
# stackview's thread time counts it: "TID<TAB>CPU<TAB>READIED<TAB>BLOCKED<TAB>UNSURE" in ms, where
# UNSURE is the CPU timehist counts before the thread's first CPU sample where its switch-in
# went untraced (below).
#   CPU_TIME     = run time
#   READIED_TIME = sch delay, and the whole wait time after a switch-out in state R/R+
#                  (perf 6.1 leaves sch delay 0 there; the thread was runnable all along)
#   BLOCKED_TIME = wait time - sch delay after a switch-out in any other state
# perf records an exiting thread's switches with tid -1 (its last one, and any while it
# exits: preempted, R+) and timehist files those lines under "-1": its run time goes back to the switch's prev_pid (found in the perf script text by CPU
# and time), and the wait before it is taken from the same records timehist reads (the thread's
# previous switch-out and the first sched_wakeup after it). timehist prints a line at each
# switch-out, so a wait that ends in a switch-in after which the trace ends has no line: it is
# taken from the switch-in in the perf script text the same way.
# With --by-cpu: "CPU<TAB>CPU_TIME<TAB>READIED+BLOCKED" per CPU instead (a line's run and wait
# belong to its CPU: where the thread ran after the wait).
# usage: timehist.pl [--by-cpu] TIMEHIST.txt PERF-SCRIPT.txt
use strict;
use warnings;
my $by_cpu = @ARGV && $ARGV[0] eq '--by-cpu' ? shift @ARGV : undef;
my ($th, $script) = @ARGV;
my (%dying, %wakeups, %ins, %samples);
open(my $s, '<', $script) or die "$script: $!";
while (<$s>) {
	if (/^\s*\S.*?\s+\d+\/(\d+)\s+\[(\d+)\]\s+([0-9.]+):\s+\d+\s+cpu-clock:/) {
		push @{ $samples{$1} }, [ $3, $2 + 0 ];
		next;
	}
	next unless /\[(\d+)\]\s+([0-9.]+):.*sched:sched_(switch|wakeup|wakeup_new): (.*)/;
	my ($cpu, $t, $ev, $p) = ($1 + 0, $2, $3, $4);
	if ($ev eq 'switch' && ($p =~ /prev_pid=(\d+) .*prev_state=[XZ]/ || ($_ =~ /^\S*\s+\d+\/-1\s/ && $p =~ /prev_pid=(\d+) /))) {
		my $prev = $1;
		(my $us = $t) =~ s/^(\d+\.\d{6})\d*$/$1/; # timehist prints microseconds
		my ($st) = $p =~ /prev_state=(\S+)/;
		$dying{"$cpu $us"} = [ $prev, $t, $st ];
	} elsif ($ev =~ /^wakeup/ && $p =~ /pid=(\d+)/) {
		push @{ $wakeups{$1} }, $t;
	}
	push @{ $ins{$1} }, [ $t, $cpu ] if $ev eq 'switch' && $p =~ /next_pid=(\d+)/;
}
my (%run, %rdy, %blk, %last_t, %last_s, %crun, %cwait, %unc);
open(my $h, '<', $th) or die "$th: $!";
while (<$h>) {
	next unless /^\s*([0-9.]+)\s+\[(\d+)\]\s+.*?\[(-?\d+)(?:\/-?\d+)?\]\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+(\S+)/;
	my ($t, $cpu, $tid, $wait, $delay, $run, $state) = ($1, $2 + 0, $3, $4, $5, $6, $7);
	if ($tid == -1) {
		my $d = $dying{"$cpu $t"} // next;
		$tid = $d->[0];
		$state = $d->[2]; # timehist's column says W there; the switch has the state
		my $in = $d->[1] - $run / 1000;
		$wait = defined $last_t{$tid} ? ($in - $last_t{$tid}) * 1000 : 0;
		$delay = 0;
		if (defined $last_t{$tid} && $last_s{$tid} !~ /^R/) {
			my ($w) = grep { $_ >= $last_t{$tid} && $_ <= $in + 2e-6 } @{ $wakeups{$tid} // [] };
			$delay = ($in - $w) * 1000 if defined $w;
		}
	}
	next if $tid == 0;
	# A switch-in the kernel left untraced (no switch to this thread since its last line):
	# timehist starts the run at the CPU's previous switch, which can be before the thread
	# existed, while it ran on another CPU, or while it slept there. stackview counts the
	# run from the thread's first CPU sample on that CPU: UNSURE is timehist's run before it.
	my $since = $last_t{$tid} // 0;
	my $start = $t - $run / 1000;
	if ($run > 0 && !grep { $_->[0] > $since + 1e-6 && $_->[0] <= $t + 1e-6 } @{ $ins{$tid} // [] }) {
		my ($f) = grep { $_->[1] == $cpu && $_->[0] >= $start - 1e-6 && $_->[0] <= $t + 1e-6 } @{ $samples{$tid} // [] };
		$unc{$tid} += defined $f ? ($f->[0] - $start) * 1000 : $run;
	}
	$run{$tid} += $run;
	$crun{$cpu} += $run;
	$cwait{$cpu} += defined $last_t{$tid} ? $wait : $delay; # a new thread: ready since its wake-up
	if (defined $last_s{$tid} && $last_s{$tid} =~ /^R/) {
		$rdy{$tid} += $wait;
	} else {
		$rdy{$tid} += $delay;
		$blk{$tid} += $wait - $delay if $wait > 0;
	}
	($last_t{$tid}, $last_s{$tid}) = ($t, $state);
}
for my $tid (keys %last_t) {
	my ($in) = grep { $_->[0] > $last_t{$tid} + 1e-6 } @{ $ins{$tid} // [] };
	next unless $in;
	my ($t, $cpu) = @$in;
	my $wait = ($t - $last_t{$tid}) * 1000;
	my $delay = $wait;
	if ($last_s{$tid} !~ /^R/) {
		my ($w) = grep { $_ >= $last_t{$tid} && $_ <= $t + 2e-6 } @{ $wakeups{$tid} // [] };
		$delay = defined $w ? ($t - $w) * 1000 : 0;
		$blk{$tid} += $wait - $delay;
	}
	$rdy{$tid} += $delay;
	$cwait{$cpu} += $wait;
}
if ($by_cpu) {
	printf "%d\t%.3f\t%.3f\n", $_, $crun{$_}, $cwait{$_} // 0 for sort { $a <=> $b } keys %crun;
} else {
	printf "%d\t%.3f\t%.3f\t%.3f\t%.3f\n", $_, $run{$_}, $rdy{$_} // 0, $blk{$_} // 0, $unc{$_} // 0
		for sort { $a <=> $b } keys %run;
}
