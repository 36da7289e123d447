# SPDX-License-Identifier: MIT
# Golden importer tests: for every input under tests/golden/<format>/, `info --json` and
# `calltree --json` (the file's saved filter state applied) must equal <input>.expected.
# SV_UPDATE_GOLDEN=1 rewrites the expected files (review the diff before committing).
for g in tests/golden/*/*.perfView.*; do
	case "$g" in *.expected) continue ;; esac
	got=$({ "$SV" info "$g" --json && "$SV" calltree "$g" --json; } 2>&1)
	expect_file "golden.$(basename "$g")" "$g.expected" "$got"
done
