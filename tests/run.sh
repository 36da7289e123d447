#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The test driver behind `make test` and `make test-extended`. A group is a folder of tests/
# with a cases.sh (unit and fuzz are built in). `make test` runs the groups that need nothing
# but the checkout; `make test-extended` (SV_EXTENDED=1) the ones that read ../shared/data.
# T=GROUP[,GROUP...] runs just those groups. Ends with one line "N passed, N failed" and fails
# when anything failed.
set -u
cd "$(dirname "$0")/.."
# shellcheck source=lib.sh
. tests/lib.sh

GROUPS_TEST="unit fuzz docs conformance golden cli convert flame speedscope tui compare pprof chrome readers threadtime pdb nettrace gcdump events annotate perfhabits"
GROUPS_EXTENDED="perf etl extended tui-shared"
if [ -n "${T:-}" ]; then
	groups=${T//,/ }
elif [ "${SV_EXTENDED:-}" = 1 ]; then
	groups=$GROUPS_EXTENDED
else
	groups=$GROUPS_TEST
fi

run_unit() {
	local u name out st np nf
	for u in "$B"/tests/unit/test_*; do
		[ -x "$u" ] || continue
		name=$(basename "$u")
		out=$("$u" 2>&1)
		st=$?
		np=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
		nf=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
		pass=$((pass + ${np:-0}))
		if [ "$st" != 0 ] || [ -n "$nf" ]; then
			printf '%s\n' "$out" | grep -E '^\[  (FAILED|ERROR) |error|Assert' | head -n 20
			fail=$((fail + ${nf:-1}))
			failed+=("$name")
		fi
	done
}

# Leaks of a library we cannot free for it (tests/fuzz/lsan.supp says which) do not fail a
# sanitizer run; every other leak does.
export LSAN_OPTIONS="suppressions=$PWD/tests/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

# Fuzz corpora replayed: each file through its target; crashes and leaks fail.
run_fuzz() {
	local r t out files
	for r in "$B"/tests/fuzz/replay_*; do
		[ -x "$r" ] || continue
		t=${r##*/replay_}
		files=(tests/fuzz/corpus/"$t"/*)
		[ -e "${files[0]}" ] || continue
		if out=$("$r" "${files[@]}" 2>&1); then ok; else bad "fuzz.replay.$t" "$(printf '%s' "$out" | grep -m3 -E 'ERROR|SUMMARY|runtime error')"; fi
	done
}

for g in $groups; do
	case $g in
	unit) run_unit ;;
	fuzz) run_fuzz ;;
	*)
		if [ -f "tests/$g/cases.sh" ]; then
			# shellcheck disable=SC1090
			. "tests/$g/cases.sh"
		else
			bad "group.$g" "no such test group (tests/$g/cases.sh)"
		fi
		;;
	esac
done

if [ ${#failed[@]} -gt 0 ]; then
	printf 'failed: %s\n' "${failed[*]}"
fi
printf '%d passed, %d failed\n' "$pass" "$fail"
[ "$fail" = 0 ]
