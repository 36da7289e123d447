# SPDX-License-Identifier: MIT
# Flame graph SVGs: well formed, one box per tree node, tooltips with the numbers, diff
# colours, hostile names escaped; rendered by headless Chromium (installed here if missing,
# as root) into a PNG that is not blank. Sourced by tests/run.sh.
FL=$(mktemp -d)
"$SV" flame "$IN/s-basic.perfView.xml" -o "$FL/b.svg"
if xmllint --noout "$FL/b.svg" 2>/dev/null; then ok; else bad flame.wellformed "$(xmllint --noout "$FL/b.svg" 2>&1 | head -2)"; fi
n=$(grep -c '<g class="f"' "$FL/b.svg")
want=$("$SV" calltree "$IN/s-basic.perfView.xml" --json | jq '[.tree|..|objects|select(has("children"))]|length')
if [ "$n" = "$want" ]; then ok; else bad flame.boxes "$n boxes, $want nodes"; fi
if grep -q '<title>Func3 (30.0, 75.00%)</title>' "$FL/b.svg" && grep -q '<title>ROOT (40.0, 100.00%)</title>' "$FL/b.svg"; then ok; else bad flame.tooltips; fi
# Root at the bottom, full width; children ordered by name (HelperNested left of HelperX).
if grep -q 'data-x="0" data-w="1" data-d="0" data-n="ROOT"' "$FL/b.svg"; then ok; else bad flame.root; fi
xn=$(grep -o 'data-x="[0-9.e-]*" data-w="[0-9.e-]*" data-d="5" data-n="Helper[A-Za-z]*"' "$FL/b.svg" | sed 's/.*data-x="\([^"]*\)".*data-n="\([^"]*\)"/\2 \1/' | sort -k2 -g | awk '{print $1}' | tr '\n' ' ')
if [ "$xn" = "HelperNested HelperX " ]; then ok; else bad flame.order "$xn"; fi
# Filters show in the subtitle; the file is written atomically like every output.
"$SV" flame "$IN/s-grp.perfView.xml" -g '{%}!=>module $1' -o "$FL/g.svg"
if grep -q 'GroupPats: {%}!=&gt;module $1' "$FL/g.svg" && grep -q 'data-n="module app &lt;&lt;app!Main&gt;&gt;"' "$FL/g.svg"; then ok; else bad flame.subtitle; fi
e flame.noout 2 "^stackview: flame needs -o OUT.svg" -- flame "$IN/s-basic.perfView.xml"
e flame.baddir 3 "cannot create a file in /nonexistent" -- flame "$IN/s-basic.perfView.xml" -o /nonexistent/x.svg
# Differential: red where the test grew (app!x +5), white where unchanged (app!g).
"$SV" diff "$IN/s-base.perfView.xml" "$IN/s-test.perfView.xml" -o "$FL/d.svg"
if xmllint --noout "$FL/d.svg" 2>/dev/null && grep -q '<title>app!x (test 30.0, base 25.0, delta +5.0)</title><rect[^>]*fill="rgb(255,' "$FL/d.svg" &&
   grep -q '<title>app!g (test 50.0, base 50.0, delta 0.0)</title><rect[^>]*fill="rgb(250,250,250)"' "$FL/d.svg"; then ok; else bad flame.diff; fi
# Hostile names stay well formed.
printf '{"StackSource":{"Samples":[{"Stack":["a<b&c\\"d>\\u0001", "]]>x", "caf\\u00e9"]}]}}' > "$FL/n.perfView.json"
"$SV" flame "$FL/n.perfView.json" -o "$FL/n.svg"
if xmllint --noout "$FL/n.svg" 2>/dev/null && grep -q 'data-n="a&lt;b&amp;c&quot;d&gt;' "$FL/n.svg"; then ok; else bad flame.escape; fi
# convert to .svg and a real perf recording
"$SV" convert "$MT" "$FL/mt.svg"
if xmllint --noout "$FL/mt.svg" 2>/dev/null && [ "$(grep -c '<g class="f"' "$FL/mt.svg")" -gt 20 ]; then ok; else bad flame.convert; fi

# ---- rendered by a browser ----
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && [ -n "${CI:-}${SV_INSTALL_CHROMIUM:-}" ]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null 2>&1 || true
fi
if command -v chromium >/dev/null 2>&1; then
	render() { # SVG PNG
		timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
			--disable-background-networking --disable-component-update --disable-sync \
			--user-data-dir="$FL/profile" --hide-scrollbars --window-size=1200,400 \
			--screenshot="$2" "file://$1" >/dev/null 2>&1
	}
	printf '<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="400"><rect width="1200" height="400" fill="#fff8e8"/></svg>' > "$FL/blank.svg"
	render "$FL/mt.svg" "$FL/mt.png"
	render "$FL/blank.svg" "$FL/blank.png"
	a=$(stat -c %s "$FL/mt.png" 2>/dev/null || echo 0)
	b=$(stat -c %s "$FL/blank.png" 2>/dev/null || echo 0)
	if [ "$b" -gt 0 ] && [ "$a" -gt $((b * 3)) ]; then ok; else bad flame.render "flame PNG $a bytes, blank PNG $b bytes"; fi
	[ -n "${SV_KEEP_PNG:-}" ] && cp "$FL/mt.png" "$SV_KEEP_PNG"
else
	printf '     note: chromium not installed: the SVG render check was skipped\n'
fi
rm -rf "$FL"
