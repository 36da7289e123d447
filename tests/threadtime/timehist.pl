#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# The oracle of tests/threadtime: `perf sched timehist --state` (perf 6.1) summed per thread as
# stackview's thread time counts it: "TID<TAB>CPU<TAB>READIED<TAB>BLOCKED<TAB>UNSURE<TAB>UNDER" in
# ms, where UNSURE is CPU timehist counts before the thread can have run and UNDER CPU it
# cannot count (both below, where switch-ins went untraced).
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
my (%dying, %wakeups, %ins);
open(my $s, '<', $script) or die "$script: $!";
while (<$s>) {
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
my (%run, %rdy, %blk, %last_t, %last_s, %crun, %cwait, %unc, %under, %cpu_seen);
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
	# A switch-in the kernel left untraced: timehist starts the run at the CPU's previous
	# switch, which can be before the thread existed (its wakeup_new), before it left another
	# CPU, or while it slept (the previous switch being its own switch-out). The part before
	# the thread can have run (its switch-out if preempted, else its wake-up; the whole run
	# when it slept and no wake-up is on record) is UNSURE: stackview does not count it.
	my $start = $t - $run / 1000;
	my $b;
	if (!defined $last_t{$tid}) {
		($b) = grep { $_ <= $t + 2e-6 } @{ $wakeups{$tid} // [] };
	} elsif ($last_s{$tid} =~ /^R/) {
		$b = $last_t{$tid};
	} else {
		($b) = grep { $_ >= $last_t{$tid} && $_ <= $t + 2e-6 } @{ $wakeups{$tid} // [] };
		$b //= abs($start - $last_t{$tid}) < 2e-6 ? $t : $last_t{$tid};
	}
	$unc{$tid} += ($b - $start) * 1000 if defined $b && $b > $start + 2e-6;
	# The first switch on record on a CPU: timehist has no start for the run and prints 0;
	# the thread can have run since it could run (UNDER: stackview may count up to that).
	$under{$tid} += ($t - $b) * 1000 if !$cpu_seen{$cpu}++ && defined $b && $b < $t;
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
	printf "%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\n", $_, $run{$_}, $rdy{$_} // 0, $blk{$_} // 0, $unc{$_} // 0,
		$under{$_} // 0 for sort { $a <=> $b } keys %run;
}
