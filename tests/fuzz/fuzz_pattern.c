/* SPDX-License-Identifier: MIT */
/* Fuzz target: the pattern language. The input is split on NUL bytes into GroupPats, FoldPats,
 * IncPats, ExcPats, Fold%, Start and End, applied to a small fixed source. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const stacks[][5] = {
		{ "Process64 app (1) Args: x", "Thread (2)", "C:\\dir\\app.exe!Main", "lib-x.so.2!f", "?!?" },
		{ "Process64 app (1) Args: x", "Thread (3)", "C:\\dir\\app.exe!Main", "ntdll!?", "app!g{T}" },
		{ "Process other (5)", "Thread (5)", "mod!a", "mod!a", "mod!b" },
	};
	sv_source *src;
	if (sv_source_new(&src, "fuzz"))
		return 0;
	for (int i = 0; i < 3; i++) {
		sv_stack_id s;
		if (sv_source_intern_path(src, &s, stacks[i], 5) || sv_source_add_sample(src, s, i * 10.0, i + 1.5, 1))
			goto out;
	}
	sv_params p;
	if (sv_params_init(&p)) {
		sv_params_dispose(&p);
		goto out;
	}
	char *text = malloc(size + 1);
	if (text) {
		memcpy(text, data, size);
		text[size] = '\0';
		const char *part = text;
		for (int b = 0; b < SV_BOX_COUNT && part <= text + size; b++) {
			if (sv_params_set(&p, (sv_box)b, part))
				break;
			part += strlen(part) + 1;
		}
		sv_view *v = NULL;
		sv_error err;
		if (sv_view_new(&v, src, &p, &err) == 0) {
			sv_rows r;
			if (sv_rows_calltree(&r, v, NULL, -1) == 0)
				sv_rows_dispose(&r);
			char w[SV_WHEN_LEN + 1];
			for (uint32_t i = 0; i < sv_view_byname_count(v); i++)
				if (sv_view_byname_when(w, v, i))
					break;
		}
		sv_view_free(v);
		free(text);
	}
	sv_params_dispose(&p);
out:
	sv_source_free(src);
	return 0;
}
