/* SPDX-License-Identifier: MIT */
/* Fuzz target: the pattern language. The input is split on NUL bytes into GroupPats, FoldPats,
 * IncPats, ExcPats, Fold%, Start and End, applied to a small fixed source. The view made with
 * the source's names shared (as the terminal UI has them: names placed by number) must have
 * ByName's rows in the order of the view made without, and a view made from it with other
 * FoldPats (sv_view_new_like) those of a view made anew: any difference aborts. */
#include "fuzz_common.h"
#include "stackview/pattern.h"

static const char *const stacks[][5] = {
	{ "Process64 app (1) Args: x", "Thread (2)", "C:\\dir\\app.exe!Main", "lib-x.so.2!f", "?!?" },
	{ "Process64 app (1) Args: x", "Thread (3)", "C:\\dir\\app.exe!Main", "ntdll!?", "app!g{T}" },
	{ "Process other (5)", "Thread (5)", "mod!a", "mod!a", "mod!b" },
	{ "Process other (5)", "Thread (5)", "mod!a>", "mod!a <", "G <<x>>" },
};

static sv_source *fixed_source(void)
{
	sv_source *src;
	if (sv_source_new(&src, "fuzz"))
		return NULL;
	for (int i = 0; i < 4; i++) {
		sv_stack_id s;
		if (sv_source_intern_path(src, &s, stacks[i], 5) || sv_source_add_sample(src, s, i * 10.0, i + 1.5, 1)) {
			sv_source_free(src);
			return NULL;
		}
	}
	return src;
}

/* ByName's rows of a and b: the same names in the same order. */
static void same_rows(const sv_view *a, const sv_view *b)
{
	if (sv_view_byname_count(a) != sv_view_byname_count(b))
		abort();
	for (uint32_t i = 0; i < sv_view_byname_count(a); i++)
		if (strcmp(sv_view_name(a, sv_view_byname_name(a, i)), sv_view_name(b, sv_view_byname_name(b, i))))
			abort();
}

/* v's rows again from a source whose names are shared, and through sv_view_new_like with
 * FoldPats emptied. */
static void cross_check(const sv_view *v, const sv_params *p)
{
	sv_source *shared = fixed_source();
	sv_view *w = NULL, *like = NULL, *anew = NULL;
	sv_params q;
	sv_error err;
	if (!shared || sv_source_sum_stacks(shared) || sv_view_new(&w, shared, p, &err)) {
		sv_source_free(shared);
		return;
	}
	same_rows(v, w);
	if (!sv_params_copy(&q, p)) {
		if (!sv_params_set(&q, SV_BOX_FOLD, "") && !sv_view_new_like(&like, w, &q, &err) &&
		    !sv_view_new(&anew, shared, &q, &err))
			same_rows(like, anew);
		sv_params_dispose(&q);
	}
	sv_view_free(like);
	sv_view_free(anew);
	sv_view_free(w);
	sv_source_free(shared);
}

/* "{%}!" is matched without the matcher where the text allows (pattern.c): on the input as a
 * name, the same answer, match and capture as the expression it stands for, which the matcher
 * always runs. */
static void module_check(const uint8_t *data, size_t size)
{
	static sv_pattern *fast, *rx;
	sv_error err;
	const char *re = "@([-+.\\w?]*)!";
	if (!fast && (sv_pattern_new(&fast, "{%}!", 4, &err) || sv_pattern_new(&rx, re, strlen(re), &err)))
		abort();
	char *a = NULL, *b = NULL;
	int ra = sv_pattern_replace(&a, fast, (const char *)data, size, "<$1|$&>");
	int rb = sv_pattern_replace(&b, rx, (const char *)data, size, "<$1|$&>");
	if (ra != rb || (ra == 1 && strcmp(a, b)))
		abort();
	free(a);
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	module_check(data, size);
	sv_source *src = fixed_source();
	if (!src)
		return 0;
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
			cross_check(v, &p);
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
