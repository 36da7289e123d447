# SPDX-License-Identifier: MIT
# perf script text importer against `perf report` (spec/perf.md §4.3; oracles in
# ../shared/data/perf/oracle/). Sourced by tests/run.sh. For every recording: the sample
# count and total period of the default event agree exactly, and the top 20 symbols'
# --no-children (exclusive) and --children (inclusive) percentages agree within 0.5 points.
# Symbols perf could not resolve (printed as addresses) are excepted and listed, and so are
# perf report's "(inlined)" rows: the dwarf text was made with --no-inline (perf.md §0.4).
PD=../shared/data/perf
if [ ! -d "$PD/recordings" ]; then
	bad perf.data-missing "$PD not found (the shared data folder must sit beside the checkout)"
	return 0 2>/dev/null || exit 1
fi

# Our per-symbol percentages: symbol = the part after the first '!', summed over modules.
our_symbols() { # FILE -> lines "exc_pct<TAB>inc_pct<TAB>symbol"
	"$SV" byname "$1" --json | jq -r '
		(.summary.metric) as $t
		| [.rows[] | select(.name != "ROOT" and (.name | test("^(Process|Thread) ") | not))
		   | {s: (.name | sub("^[^!]*!"; "")), e: .exc, i: .inc}]
		| group_by(.s) | .[] | "\((map(.e) | add) * 100 / $t)\t\((map(.i) | add) * 100 / $t)\t\(.[0].s)"'
}

# perf's top rows: "pct<TAB>symbol" (children: the Children column).
oracle_symbols() { # FILE
	awk '/^ +[0-9.]+%/ {
		pct = $1; sub("%", "", pct)
		i = index($0, "] "); if (!i) next
		sym = substr($0, i + 2); sub(/ +$/, "", sym)
		print pct "\t" sym
		if (++n == 20) exit
	}' "$1"
}

for rec in mt.fp mt-nofp.fp mt-nofp.dwarf py.fp gcc.fp sort.fp sys.sched; do
	txt=$PD/recordings/$rec.txt
	[ -f "$txt" ] || { bad "perf.$rec" "missing $txt"; continue; }
	info=$("$SV" info "$txt" --json) || { bad "perf.$rec.load" "stackview info failed"; continue; }
	ev=$(printf '%s' "$info" | jq -r '.events[] | select(.selected) | .name')
	want_n=$(awk -v ev="$ev" '$1 == ev" stats:" || $0 == ev " stats:" {f = 1; next} f && /SAMPLE events/ {print $3; exit}' "$PD/oracle/$rec.stats.txt")
	got_n=$(printf '%s' "$info" | jq '.samples')
	if [ "$got_n" = "$want_n" ]; then ok; else bad "perf.$rec.samples" "got $got_n, want $want_n ($ev)"; fi
	want_p=$(grep -m1 'Event count' "$PD/oracle/$rec.report.no-children.sym.txt" | awk '{print $NF}')
	got_p=$(printf '%s' "$info" | jq '.metric * 1000000 | round')
	if [ "$got_p" = "$want_p" ]; then ok; else bad "perf.$rec.period" "got $got_p ns, want $want_p"; fi
	ours=$(our_symbols "$txt")
	for kind in no-children children; do
		col=1; [ "$kind" = children ] && col=2
		res=$(oracle_symbols "$PD/oracle/$rec.report.$kind.sym.txt" | awk -F'\t' -v col="$col" -v ours="$ours" '
			BEGIN { n = split(ours, L, "\n"); for (k = 1; k <= n; k++) { split(L[k], f, "\t"); pct[f[3]] = f[col] } }
			{
				# unresolved addresses, and inline frames the --no-inline text cannot hold
				if ($2 ~ /^(0x)?[0-9a-f]+$/ || $2 ~ / \(inlined\)$/) { skipped = skipped " " $2; next }
				got = ($2 in pct) ? pct[$2] : 0
				d = got - $1; if (d < 0) d = -d
				if (d > 0.5) bad = bad sprintf(" %s: %.2f%% vs perf %.2f%%;", $2, got, $1)
			}
			END { print (bad == "" ? "ok" : bad) "|" skipped }')
		if [ "${res%%|*}" = ok ]; then ok; else bad "perf.$rec.$kind" "${res%%|*}"; fi
		[ -n "${res#*|}" ] && printf '     note: perf.%s.%s excepted unresolved:%s\n' "$rec" "$kind" "${res#*|}"
	done
done
