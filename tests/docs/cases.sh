# SPDX-License-Identifier: MIT
# The docs as a reader sees them (tests/tools/check_docs.py): tables that render, links that
# lead somewhere, user pages that point at nothing a user lacks; and the guide's index lists
# every user page.
user=$(ls docs/*.md | grep -v '^docs/architecture\.md$')
if out=$(python3 tests/tools/check_docs.py $user 2>&1); then ok; else bad docs.user "$out"; fi
if out=$(python3 tests/tools/check_docs.py --developer docs/architecture.md README.md formats/README.md formats/*/README.md 2>&1); then ok; else bad docs.developer "$out"; fi
missing=
for p in $user; do
	n=${p#docs/}
	[ "$n" = guide.md ] && continue
	grep -qF "]($n)" docs/guide.md || missing="$missing $n"
done
if [ -z "$missing" ]; then ok; else bad docs.index "not in docs/guide.md's index:$missing"; fi
# the checker itself: a table with two header rows and an internal reference must fail
printf '| a | b |\n|---|---|\n| c | d | e |\n|---|---|---|\n\nsee spec §7.7\n' > "$TMP/bad.md"
if python3 tests/tools/check_docs.py "$TMP/bad.md" > "$TMP/bad.out" 2>&1; then bad docs.checker "a broken table passed"; \
elif grep -q "two header rows" "$TMP/bad.out" && grep -q "spec" "$TMP/bad.out"; then ok; else bad docs.checker "$(cat "$TMP/bad.out")"; fi
