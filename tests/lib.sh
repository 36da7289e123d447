# SPDX-License-Identifier: MIT
# What every test group shares (sourced by tests/run.sh before a group's cases.sh):
#   ok / bad ID [WHY]                          count a check
#   c ID JQ EXPECTED CMD INPUT [OPTIONS...]     JSON of `stackview CMD INPUT --json OPTIONS`
#   cn ID JQ EXPECTED ARGS...                   the same with stderr left out and ARGS as given
#   t ID LINE CMD INPUT [OPTIONS...]            first line of the text output
#   e ID EXIT STDERR-REGEX -- ARGS...           exit status and one error line
# and the variables SV (the binary), IN (conformance inputs), TMP (a private scratch folder,
# removed at exit), MT (tests/data/mt.fp.txt.gz unpacked: a perf script recording of a
# 4-thread program) and SHARED (../shared/data: only the extended groups may read it).
B=${SV_BUILD:-build/release}
SV="$PWD/$B/stackview"
IN=tests/conformance/inputs
SHARED=../shared/data
TMP=$(mktemp -d)
# Presets are read from and written to $XDG_CONFIG_HOME and symbols are never looked up in the
# tester's own caches: nothing in a test depends on the home directory of the host.
export XDG_CONFIG_HOME="$TMP/config" HOME="$TMP/home"
unset _NT_SYMBOL_PATH DEBUGINFOD_URLS # symbols come only from the paths and servers a test names
mkdir -p "$XDG_CONFIG_HOME" "$HOME"
trap 'rm -rf "$TMP"' EXIT
MT=$TMP/mt.fp.txt
gzip -dc tests/data/mt.fp.txt.gz > "$MT"
pass=${pass:-0}
fail=${fail:-0}
failed=()

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); failed+=("$1"); printf 'FAIL %s\n' "$1"; [ -n "${2:-}" ] && printf '     %s\n' "$2"; }
# interrupt PID: Ctrl-C (SIGINT) to a background stackview and wait for it; sets st (its exit
# status) and ms (how long it took to end after the signal).
interrupt() {
	local t0
	t0=$(date +%s%N)
	kill -INT "$1"
	wait "$1"
	st=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
}

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
	local out got norm
	# stdout is the JSON; stderr (warnings, notes) is shown only when the command fails
	if ! out=$("$SV" "$cmd" "${args[@]}" --json "$@" 2> "$TMP/c.err"); then
		bad "$id" "stackview $cmd failed: $(cat "$TMP/c.err")"
		return
	fi
	got=$(printf '%s' "$out" | jq -c "$JQDEFS $q" 2>&1)
	norm=$(printf '%s' "$want" | jq -c . 2>/dev/null || printf '%s' "$want")
	if [ "$got" = "$norm" ]; then ok; else bad "$id" "got $got, want $norm"; fi
}

cn() {
	local id=$1 q=$2 want=$3
	shift 3
	local got norm
	got=$("$SV" "$@" --json 2>/dev/null | jq -c "$JQDEFS $q" 2>&1)
	norm=$(printf '%s' "$want" | jq -c .)
	if [ "$got" = "$norm" ]; then ok; else bad "$id" "got $got, want $norm"; fi
}

t() {
	local id=$1 want=$2 cmd=$3 f=$4
	shift 4
	local got
	got=$("$SV" "$cmd" "$(input "$f")" "$@" 2>&1 | head -n 1)
	if [ "$got" = "$want" ]; then ok; else bad "$id" "got '$got'"; fi
}

e() {
	local id=$1 want=$2 rx=$3
	shift 4
	local err st lines
	err=$("$SV" "$@" 2>&1 >/dev/null)
	st=$?
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

# Thread time: tt_sums ARGS... prints "TID CPU READIED BLOCKED" per thread (ms, 3 decimals) of
# `stackview calltree ARGS --json`; within_life ID SUMS SCRIPT-TEXT checks that no thread's
# total exceeds its life in the recording (tests/threadtime/life.pl).
tt_sums() {
	"$SV" calltree "$@" --json 2>/dev/null | jq -r '
		def leaf($n): [.. | objects | select(.name == $n) | .exc] | add // 0;
		.tree.children[].children[] | [(.name | capture("Thread \\((?<t>[0-9]+)\\)").t),
			leaf("CPU_TIME"), leaf("READIED_TIME"), leaf("BLOCKED_TIME")] | @tsv' |
		awk -F '\t' '{ printf "%s\t%.3f\t%.3f\t%.3f\n", $1, $2, $3, $4 }' | LC_ALL=C sort
}
within_life() {
	local why
	why=$(perl tests/threadtime/life.pl "$3" | LC_ALL=C sort | join -t "$(printf '\t')" - "$2" | awk -F '\t' '
		{ n++; if ($3 + $4 + $5 > $2 + 0.002) { print "thread " $1 ": " $3 + $4 + $5 " ms in a life of " $2 " ms"; bad = 1 } }
		END { if (!n) print "no thread"; exit bad || !n }')
	if [ $? = 0 ]; then ok; else bad "$1" "$why"; fi
}

# need_shared GROUP: the extended groups read the large shared data beside the checkout.
# fg_expected INPUT MODE EXPECTED OUT: what stackcollapse-perf.pl prints in MODE for INPUT,
# sample for sample: its EXPECTED output, plus -- when INPUT ends without a blank line, where
# the script drops the last sample and stackview keeps it -- that last sample (the lines after
# the last blank line) as stackview folds it alone. Fails when that sample folds to nothing.
fg_expected() {
	if [ -z "$(tail -c 1 "$1")" ] && [ -z "$(tail -n 1 "$1")" ]; then cp "$3" "$4"; return 0; fi
	awk '/^$/ { n = NR } END { print n + 0 }' "$1" > "$4.n"
	tail -n +"$(($(cat "$4.n") + 1))" "$1" > "$4.last"
	"$SV" convert "$4.last" "$4.last.folded" --folded-style "flamegraph-$2" 2> /dev/null || return 1
	[ -s "$4.last.folded" ] || return 1
	python3 tests/tools/folded_add.py "$3" "$4.last.folded" > "$4"
}
need_shared() {
	if [ ! -d "$SHARED/$1" ]; then
		bad "$1.data-missing" "$SHARED/$1 not found (make test-extended needs ../shared beside the checkout)"
		return 1
	fi
}

# expect_file ID FILE GOT: GOT must equal the file's text; SV_UPDATE_GOLDEN=1 rewrites the file
# (review the diff before committing).
expect_file() {
	if [ "${SV_UPDATE_GOLDEN:-}" = 1 ]; then
		printf '%s\n' "$3" > "$2"
	fi
	if [ -f "$2" ] && [ "$3" = "$(cat "$2")" ]; then
		ok
	else
		bad "$1" "$(diff <(printf '%s\n' "$3") "$2" 2>&1 | head -n 8)"
	fi
}

# screen_scripts DIR: every DIR/*.keys runs headless; its screens must equal <name>.expected.
# The first line names the input and size, and may end with "args: OPTIONS" (words) for the
# view. SV_UPDATE_GOLDEN=1 rewrites.
screen_scripts() {
	local k hdr in size got args
	for k in "$1"/*.keys; do
		hdr=$(head -n 1 "$k")
		in=$(printf '%s' "$hdr" | sed -n 's/.*input: \([^ ]*\).*/\1/p')
		size=$(printf '%s' "$hdr" | sed -n 's/.*size: \([0-9]*x[0-9]*\).*/\1/p')
		read -r -a args <<< "$(printf '%s' "$hdr" | sed -n 's/.*args: //p')"
		got=$("$SV" view "$in" "${args[@]}" --script "$k" --size "$size" 2>&1)
		expect_file "tui.$(basename "$k" .keys)" "${k%.keys}.expected" "$got"
	done
}

# Goto Source's oracle for tests/data/annotate/inlhot.c: `perf script -F ip,sym,srcline` on stdin
# -> "FILE:LINE INC EXC" per line of work(), sorted: EXC the samples perf gives that line as the
# leaf's, INC those with a frame of work at it; the lines the code was inlined at (loop.h:11
# calls mix_step, body lines 2-6; inlhot.c:6 calls hash_range, all of loop.h) take every sample
# of the code inlined there (perf script names the innermost line only).
inlhot_srclines() {
	awk 'BEGIN { RS = "" }
	{ n = split($0, L, "\n"); delete seen
	  for (i = 1; i < n; i += 2) if (L[i] ~ / work$/) {
		s = L[i + 1]; gsub(/^ +/, "", s); seen[s] = 1
		if (i == 1) exc[s]++
		if (s ~ /^loop.h:/) seen["inlhot.c:6"] = 1
		if (s ~ /^loop.h:[2-6]$/) seen["loop.h:11"] = 1 }
	  for (k in seen) inc[k]++ }
	END { for (k in inc) print k, inc[k], exc[k] + 0 }' | sort
}
