# SPDX-License-Identifier: MIT
# speedscope export: structure, totals, and the file-format schema shipped by the npm
# package `speedscope`, checked with ajv (both installed into build/npm when missing).
SS=$(mktemp -d)
"$SV" convert "$IN/s-rec.perfView.xml" "$SS/r.speedscope.json"
got=$(jq -c '[(.shared.frames|map(.name)), .profiles[0].type, .profiles[0].unit, .profiles[0].samples, .profiles[0].weights]' "$SS/r.speedscope.json")
if [ "$got" = '[["Main","A","B","C"],"sampled","none",[[0,1,2,1],[0,1,1,3]],[1,1]]' ]; then ok; else bad speedscope.structure "$got"; fi
"$SV" convert "$MT" "$SS/mt.speedscope.json"
got=$(jq -c '.profiles[0]|[.unit, (.samples|length), (.weights|add*1000|round)]' "$SS/mt.speedscope.json")
want=$("$SV" info "$MT" --json | jq -c '["milliseconds", .samples, (.metric*1000|round)]')
if [ "$got" = "$want" ]; then ok; else bad speedscope.totals "$got vs $want"; fi
# Every sample's stack indexes the frame table.
if jq -e '(.shared.frames|length) as $n | all(.profiles[0].samples[][]; . >= 0 and . < $n)' "$SS/mt.speedscope.json" >/dev/null; then ok; else bad speedscope.indexes; fi

NPM=build/npm
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
	if [ ! -f "$NPM/node_modules/speedscope/dist/release/file-format-schema.json" ] || [ ! -d "$NPM/node_modules/ajv" ]; then
		mkdir -p "$NPM"
		(cd "$NPM" && timeout 300 npm install --no-audit --no-fund --silent ajv@8 speedscope >/dev/null 2>&1) || true
	fi
	if [ -d "$NPM/node_modules/ajv" ]; then
		cat > "$SS/validate.js" <<'JS'
const Ajv = require('ajv');
const schema = require(process.argv[2]);
const ajv = new Ajv({ strict: false, allErrors: true });
const validate = ajv.compile(schema);
let bad = 0;
for (const f of process.argv.slice(3)) {
	const doc = JSON.parse(require('fs').readFileSync(f, 'utf8'));
	if (!validate(doc)) { bad++; console.log(f + ': ' + ajv.errorsText(validate.errors)); }
}
process.exit(bad ? 1 : 0);
JS
		if out=$(NODE_PATH="$PWD/$NPM/node_modules" node "$SS/validate.js" "$PWD/$NPM/node_modules/speedscope/dist/release/file-format-schema.json" "$SS/r.speedscope.json" "$SS/mt.speedscope.json" 2>&1); then
			ok
		else
			bad speedscope.schema "$out"
		fi
	else
		printf '     note: npm could not install ajv/speedscope: the schema check was skipped\n'
	fi
else
	printf '     note: node/npm not found: the speedscope schema check was skipped\n'
fi

# ---- import: sampled round trips keep samples, total and ByName; evented intervals ----
for f in "$IN/s-rec.perfView.xml" "$MT" examples/tutorial.perfView.xml; do
	"$SV" convert "$f" "$SS/rt.speedscope.json"
	a=$("$SV" byname "$f" --json | jq -c '[.summary.count, ([.rows[]|[.name,(.exc*1e6|round),(.inc*1e6|round)]]|sort)]')
	b=$("$SV" byname "$SS/rt.speedscope.json" --json | jq -c '[.summary.count, ([.rows[]|[.name,(.exc*1e6|round),(.inc*1e6|round)]]|sort)]')
	if [ "$a" = "$b" ]; then ok; else bad "speedscope.roundtrip.$(basename "$f")" "ByName differs"; fi
done
cat > "$SS/ev.speedscope.json" <<'JSON'
{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{"name":"main"},{"name":"work"},{"name":"io"}]},
 "profiles":[{"type":"evented","name":"t1","unit":"microseconds","startValue":100,"endValue":1100,
  "events":[{"type":"O","frame":0,"at":100},{"type":"O","frame":1,"at":200},{"type":"O","frame":2,"at":500},
            {"type":"C","frame":2,"at":700},{"type":"C","frame":1,"at":900},{"type":"C","frame":0,"at":1100}]},
  {"type":"sampled","name":"t2","unit":"microseconds","startValue":0,"endValue":300,"samples":[[0,1],[0]],"weights":[200,100]},
  {"type":"sampled","name":"mem","unit":"bytes","startValue":0,"endValue":1,"samples":[[0]],"weights":[1]}]}
JSON
got=$("$SV" byname "$SS/ev.speedscope.json" --json | jq -c '[.summary.metric, .summary.scaling, ([.rows[]|[.name,(.exc*1e6|round),(.inc*1e6|round)]]|sort)]')
if [ "$got" = '[1.3,"time",[["Profile t1",0,1000000],["Profile t2",0,300000],["ROOT",0,1300000],["io",200000,200000],["main",400000,1300000],["work",700000,900000]]]' ]; then ok; else bad speedscope.evented "$got"; fi
c speedscope.skipped '.found' '["1 of 3 profiles skipped: their unit is not \"microseconds\" (the active profile'"'"'s)"]' info "$SS/ev.speedscope.json"
printf '{"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"evented","unit":"none","events":[{"type":"O","frame":0,"at":1},{"type":"C","frame":1,"at":2}]}]}' > "$SS/bad.speedscope.json"
e speedscope.bad.nesting 1 'bad.speedscope.json: profile 0, event 1: frame index 1 is not in shared.frames [(]1 frames[)]' -- byname "$SS/bad.speedscope.json"
# Compact arrays are counted by a fast scan, spaced or odd ones by the general walk: the
# same counts and the same errors either way.
for sp in '' ' '; do
	printf '{"shared":{"frames":[{"name":"a"},{"name":"b"}]},"profiles":[{"type":"sampled","unit":"none","samples":[[0,1],%s[1],[]],"weights":[1,2.5]}]}' "$sp" > "$SS/count$sp.speedscope.json"
	e "speedscope.count.weights${sp:+.spaced}" 1 'profile 0: 3 samples but 2 weights' -- info "$SS/count$sp.speedscope.json"
	printf '{"shared":{"frames":[{"name":"a"},{"name":"b"}]},"profiles":[{"type":"sampled","unit":"none","samples":[[0,1],%s[1],[]],"weights":[1,2.5,1]}]}' "$sp" > "$SS/count$sp.speedscope.json"
	c "speedscope.count.ok${sp:+.spaced}" '[.samples, .metric]' '[3, 4.5]' info "$SS/count$sp.speedscope.json"
done
# (more malformed speedscope files are in tests/badinput/)
rm -rf "$SS"
# an evented profile whose one interval is longer than the largest number: bad input (exit 1),
# not a usage error
printf '{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"evented","name":"p","unit":"none","startValue":-1.7e308,"endValue":1.7e308,"events":[{"type":"O","frame":0,"at":-1.7e308},{"type":"C","frame":0,"at":1.7e308}]}]}' > "$TMP/inf.speedscope.json"
e speedscope.non-finite 1 "a sample's metric is not a finite number" -- byname "$TMP/inf.speedscope.json"
