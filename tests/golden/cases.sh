# SPDX-License-Identifier: MIT
# Golden importer tests: for every input under tests/golden/<format>/, `info --json` and
# `calltree --json` (the file's saved filter state applied) must equal <input>.expected.
# SV_UPDATE_GOLDEN=1 rewrites the expected files (review the diff before committing).
for g in tests/golden/*/*.perfView.*; do
	case "$g" in *.expected) continue ;; esac
	want="$g.expected"
	got=$({ "$SV" info "$g" --json && "$SV" calltree "$g" --json; } 2>&1)
	if [ "${SV_UPDATE_GOLDEN:-}" = 1 ]; then
		printf '%s\n' "$got" > "$want"
	fi
	if [ -f "$want" ] && [ "$got" = "$(cat "$want")" ]; then
		ok
	else
		bad "golden.$(basename "$g")" "$(diff <(printf '%s\n' "$got") "$want" 2>&1 | head -n 5)"
	fi
done
