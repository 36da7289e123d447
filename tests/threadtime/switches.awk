# SPDX-License-Identifier: MIT
# perf script --show-switch-events text -> per thread "TID CPU WAIT" (ms) from perf's own
# PERF_RECORD_SWITCH IN/OUT records. A run with no switch-in on record (the thread ran when
# the recording began) starts at its first CPU sample, one with no switch-out (an exiting
# thread: the kernel emits none) ends at its last CPU sample, and a new thread waits from its
# sched_wakeup_new to its first switch-in.
function tm(   i) { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) return substr($i, 1, length($i) - 1) + 0 }
/sched_wakeup_new:/ { match($0, / pid=[0-9]+/); born[substr($0, RSTART + 5, RLENGTH - 5)] = tm(); next }
/ cpu-clock:/ { split($2, a, "/"); tid = a[2]; t = tm(); last[tid] = t; if (!(tid in first)) first[tid] = t; next }
/PERF_RECORD_SWITCH/ {
	split($2, a, "/"); tid = a[2]; t = tm()
	if ($6 == "IN") {
		if (tid in out) wait[tid] += t - out[tid]
		else if (!(tid in seen) && (tid in born)) wait[tid] += t - born[tid] # new: ready since created
		inn[tid] = t; delete out[tid]; seen[tid] = 1
	}
	else {
		if (tid in inn) cpu[tid] += t - inn[tid]
		else if (!(tid in seen) && (tid in first) && first[tid] < t) cpu[tid] += t - first[tid]
		delete inn[tid]; out[tid] = t; seen[tid] = 1
	}
}
END {
	for (k in inn) if (last[k] > inn[k]) cpu[k] += last[k] - inn[k]
	for (k in cpu) printf "%s\t%.3f\t%.3f\n", k, cpu[k] * 1000, wait[k] * 1000
}
