# SPDX-License-Identifier: MIT
# speedscope export: structure, totals, and the file-format schema shipped by the npm
# package `speedscope`, checked with ajv (both installed into build/npm when missing).
SS=$(mktemp -d)
"$SV" convert "$IN/s-rec.perfView.xml" "$SS/r.speedscope.json"
got=$(jq -c '[(.shared.frames|map(.name)), .profiles[0].type, .profiles[0].unit, .profiles[0].samples, .profiles[0].weights]' "$SS/r.speedscope.json")
if [ "$got" = '[["Main","A","B","C"],"sampled","none",[[0,1,2,1],[0,1,1,3]],[1,1]]' ]; then ok; else bad speedscope.structure "$got"; fi
"$SV" convert ../shared/data/perf/recordings/mt.fp.txt "$SS/mt.speedscope.json"
got=$(jq -c '.profiles[0]|[.unit, (.samples|length), (.weights|add*1000|round)]' "$SS/mt.speedscope.json")
want=$("$SV" info ../shared/data/perf/recordings/mt.fp.txt --json | jq -c '["milliseconds", .samples, (.metric*1000|round)]')
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
rm -rf "$SS"
