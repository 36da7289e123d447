#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The test driver behind `make test`: unit tests (cmocka), conformance cases (spec §14),
# golden importer dumps, bad-input and CLI checks. Ends with one line "N passed, N failed"
# and fails when anything failed.
set -u
cd "$(dirname "$0")/.."
B=${SV_BUILD:-build/release}
SV="$PWD/$B/stackview"
IN=tests/conformance/inputs
# Presets are read from and written to $XDG_CONFIG_HOME: never the tester's own.
SV_CONFIG=$(mktemp -d)
export XDG_CONFIG_HOME="$SV_CONFIG"
pass=0
fail=0
failed=()

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); failed+=("$1"); printf 'FAIL %s\n' "$1"; [ -n "${2:-}" ] && printf '     %s\n' "$2"; }

input() {
	case "$1" in
	- | /*) printf '%s' "$1" ;;
	*.*) printf '%s/%s' "$IN" "$1" ;;
	*) printf '%s/%s.perfView.xml' "$IN" "$1" ;;
	esac
}

JQDEFS='def kid($n): first(.children[] | select(.name == $n));
def at(p): reduce p[] as $n (.; kid($n));
def row($n): first(.rows[] | select(.name == $n));'

# c ID JQ EXPECTED CMD INPUT [OPTS...]
c() {
	local id=$1 q=$2 want=$3 cmd=$4 f=$5
	shift 5
	local args=()
	if [ "$cmd" = diff ] || [ "$cmd" = overweight ]; then
		args=("$(input "$f")" "$(input "$1")")
		shift
	else
		args=("$(input "$f")")
	fi
	local out got
	if ! out=$("$SV" "$cmd" "${args[@]}" --json "$@" 2>&1); then
		bad "$id" "stackview $cmd failed: $out"
		return
	fi
	got=$(printf '%s' "$out" | jq -c "$JQDEFS $q" 2>&1)
	local norm
	norm=$(printf '%s' "$want" | jq -c . 2>/dev/null || printf '%s' "$want")
	if [ "$got" = "$norm" ]; then ok; else bad "$id" "got $got, want $norm"; fi
}

# t ID LINE CMD INPUT [OPTS...]: first line of text output
t() {
	local id=$1 want=$2 cmd=$3 f=$4
	shift 4
	local got
	got=$("$SV" "$cmd" "$(input "$f")" "$@" 2>&1 | head -n 1)
	if [ "$got" = "$want" ]; then ok; else bad "$id" "got '$got'"; fi
}

# e ID EXIT STDERR-REGEX -- ARGS...: exit status and one-line error
e() {
	local id=$1 want=$2 rx=$3
	shift 4
	local err st
	err=$("$SV" "$@" 2>&1 >/dev/null)
	st=$?
	local lines
	lines=$(printf '%s' "$err" | grep -c '' || true)
	if [ "$st" != "$want" ]; then
		bad "$id" "exit $st, want $want: $err"
	elif ! printf '%s' "$err" | grep -Eq -- "$rx"; then
		bad "$id" "stderr '$err' does not match /$rx/"
	elif [ "$lines" -gt 1 ]; then
		bad "$id" "more than one error line: $err"
	else
		ok
	fi
}

# ---- unit tests (cmocka) ----
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

# ---- fuzz corpora replayed (each file through its target; crashes and leaks fail) ----
for r in "$B"/tests/fuzz/replay_*; do
	[ -x "$r" ] || continue
	t=${r##*/replay_}
	files=(tests/fuzz/corpus/"$t"/*)
	[ -e "${files[0]}" ] || continue
	if out=$("$r" "${files[@]}" 2>&1); then ok; else bad "fuzz.replay.$t" "$(printf '%s' "$out" | grep -m3 -E 'ERROR|SUMMARY|runtime error')"; fi
done

# ---- conformance (spec §14) ----
# shellcheck source=conformance/cases.sh
. tests/conformance/cases.sh

# ---- golden importer dumps and CLI behaviour ----
# shellcheck source=golden/cases.sh
[ -f tests/golden/cases.sh ] && . tests/golden/cases.sh
# shellcheck source=cli/cases.sh
[ -f tests/cli/cases.sh ] && . tests/cli/cases.sh
# shellcheck source=convert/cases.sh
[ -f tests/convert/cases.sh ] && . tests/convert/cases.sh
# shellcheck source=convert/flame.sh
[ -f tests/convert/flame.sh ] && . tests/convert/flame.sh
# shellcheck source=convert/speedscope.sh
[ -f tests/convert/speedscope.sh ] && . tests/convert/speedscope.sh
# shellcheck source=tui/cases.sh
[ -f tests/tui/cases.sh ] && . tests/tui/cases.sh
# shellcheck source=perf/cases.sh
[ -f tests/perf/cases.sh ] && . tests/perf/cases.sh
# shellcheck source=etl/cases.sh
[ -f tests/etl/cases.sh ] && . tests/etl/cases.sh

rm -rf "$SV_CONFIG"
if [ ${#failed[@]} -gt 0 ]; then
	printf 'failed: %s\n' "${failed[*]}"
fi
printf '%d passed, %d failed\n' "$pass" "$fail"
[ "$fail" = 0 ]
