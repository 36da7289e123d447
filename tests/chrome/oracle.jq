# SPDX-License-Identifier: MIT
# What a V8 CPU profile says by itself, computed here from its own nodes, samples and time
# deltas as DevTools computes it: per frame name (named as stackview names V8 frames), the
# samples ending in it (Exc Ct), the samples through it (Inc Ct), and its self time in µs
# (each sample lasting until the next, the last until endTime). Input: one .cpuprofile
# object (or a CpuProfile-shaped object built from a trace's chunks, with "parent" links).
def file: (.url // "") | sub("[?#].*$"; "") | sub("^.*/(?=.)"; "");
def fname: .callFrame as $c | ($c | file) as $f
  | (if $f != "" then $f + "!" else "" end)
  + (if ($c.functionName // "") != "" then $c.functionName else "(anonymous)" end)
  + (if ($c.lineNumber // -1) >= 0 and $f != ""
     then ":\($c.lineNumber + 1):\(if ($c.columnNumber // -1) >= 0 then $c.columnNumber + 1 else 0 end)" else "" end);
(.nodes | map({key: (.id | tostring), value: (if .callFrame.functionName == "(root)" and (.callFrame.url // "") == "" then null else fname end)}) | from_entries) as $name
| ((reduce (.nodes[] | .id as $p | (.children // [])[] | {k: tostring, p: $p}) as $x ({}; .[$x.k] = $x.p))
   + (reduce (.nodes[] | select(.parent != null) | {k: (.id | tostring), p: .parent}) as $x ({}; .[$x.k] = $x.p))) as $parent
| (reduce .timeDeltas[] as $d ({t: .startTime, a: []}; .t += $d | .a += [.t]) | .a) as $t
| .endTime as $stop
| [range(0; .samples | length)] as $idx
| [$idx[] as $i | {n: .samples[$i], w: ((if $i + 1 < ($t | length) then $t[$i + 1] else ([$stop, $t[$i]] | max) end) - $t[$i])}] as $s
| [$s[] | .n] | map(tostring) as $sn
| (reduce $s[] as $x ({}; ($name[$x.n | tostring]) as $k | if $k == null then . else .[$k].exc += 1 | .[$k].self += $x.w end)) as $exc
| (reduce $sn[] as $n ({}; reduce ([$n | recurse($parent[.] | if . == null then empty else tostring end)] | map($name[.]) | map(select(. != null)) | unique)[] as $k (.; .[$k] += 1))) as $inc
| [$inc | keys[] as $k | [$k, ($exc[$k].exc // 0), $inc[$k], (($exc[$k].self // 0) | round)]] | sort[] | @tsv
