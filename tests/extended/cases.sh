# SPDX-License-Identifier: MIT
# Checks over the large shared recordings that belong to no single importer's group
# (make test-extended; sourced by tests/run.sh).
need_shared perf || return 0
IT=$TMP/extended
mkdir -p "$IT"
NATIVE=(--kallsyms "$SHARED/perf/kallsyms.gz" --debug-dir "$SHARED/perf/debug")
# Streaming folded output gives exactly the bytes the full path gives (tests/convert does
# the same for perf script text and XML).
for f in "$SHARED/perf/recordings/sort.fp.data" "$SHARED/etl/net.4.5.2.x64.etl.zip"; do
	for style in plain flamegraph; do
		"$SV" convert "$f" "$IT/s.folded" --folded-style "$style" "${NATIVE[@]}" 2> /dev/null
		"$SV" convert "$f" "$IT/f.folded" --folded-style "$style" --exc zzNoSuchFramezz "${NATIVE[@]}" 2> /dev/null
		if [ -s "$IT/s.folded" ] && cmp -s "$IT/s.folded" "$IT/f.folded"; then ok; else bad "convert.stream.$(basename "$f").$style" "$(cmp "$IT/s.folded" "$IT/f.folded" 2>&1)"; fi
	done
done
