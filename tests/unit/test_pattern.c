/* SPDX-License-Identifier: MIT */
/* Simplified patterns (spec §2 with D1) and GroupPats evaluation (§3.1–3.2). */
#include <stdlib.h>
#include <string.h>

#include "stackview/pattern.h"
#include "unit.h"

static bool m(const char *pat, const char *text)
{
	sv_pattern *p;
	sv_error err;
	assert_int_equal(sv_pattern_new(&p, pat, strlen(pat), &err), 0);
	bool r = sv_pattern_match(p, text, strlen(text));
	sv_pattern_free(p);
	return r;
}

static char *grp(const char *pats, const char *name, int *kind)
{
	sv_grouppats *g;
	sv_error err;
	char *out;
	assert_int_equal(sv_grouppats_new(&g, pats, &err), 0);
	*kind = sv_grouppats_eval(&out, g, name, strlen(name));
	sv_grouppats_free(g);
	return out;
}

static void test_translate(void **state)
{
	(void)state;
	char *rx;
	assert_int_equal(sv_pattern_translate(&rx, "a%b*{c}.^|", 10), 0);
	assert_string_equal(rx, "a[-+.\\w?]*b.*(c)\\.^|");
	free(rx);
	assert_int_equal(sv_pattern_translate(&rx, "@x(y)+", 6), 0);
	assert_string_equal(rx, "x(y)+");
	free(rx);
}

static void test_match_examples(void **state)
{
	(void)state;
	/* §2.4 */
	assert_true(m("system32\\*!", "C:\\Windows\\System32\\ntdll!Foo"));
	assert_false(m("system32\\*!", "C:\\Windows\\ntdll!Foo"));
	/* case-insensitive substring (the T14 trap) */
	assert_true(m("A", "Main"));
	assert_false(m("^A", "Main"));
	assert_true(m("^A|^B", "B"));
	/* literal characters */
	assert_true(m("f(x)", "mod!f(x)"));
	assert_false(m("f(x)", "mod!fx"));
	assert_true(m("a.b", "a.b"));
	assert_false(m("a.b", "axb"));
	assert_true(m("a+b", "a+b"));
	assert_true(m("[]", "int[]"));
	/* a literal start ("^module!", refused without the matcher when it cannot match): case,
	 * short names, what follows it, non-ASCII text that matches an ASCII letter caselessly
	 * (the Kelvin sign is a 'k', the long s an 's'), characters that are literal there */
	assert_true(m("^cc1!", "CC1!foo"));
	assert_true(m("^cc1!", "cc1!"));
	assert_false(m("^cc1!", "cc1"));
	assert_false(m("^cc1!", "cc2!x"));
	assert_false(m("^cc1!", "xcc1!x"));
	assert_true(m("^k!", "\xe2\x84\xaa!x"));
	assert_true(m("^ls.so", "l\xc5\xbf.so!f"));
	assert_false(m("^ls.so", "l\xc3\xa9.so!f"));
	assert_true(m("^a.b!", "A.B!c"));
	assert_false(m("^a.b!", "axb!c"));
	assert_true(m("^f(x) [y]", "F(X) [Y]!z"));
	assert_true(m("^x|y", "y")); /* not a literal start: '|' */
}

static void test_invalid(void **state)
{
	(void)state;
	sv_pattern *p;
	sv_error err;
	assert_int_equal(sv_pattern_new(&p, "{abc", 4, &err), SV_EINVAL);
	sv_patlist *l;
	assert_int_equal(sv_patlist_new(&l, "ok;{bad", "FoldPats", &err), SV_EINVAL);
	assert_non_null(strstr(err.msg, "FoldPats"));
	assert_non_null(strstr(err.msg, "{bad"));
	sv_grouppats *g;
	assert_int_equal(sv_grouppats_new(&g, "[c] x}->y", &err), SV_EINVAL);
	assert_non_null(strstr(err.msg, "GroupPats"));
}

static void test_patlist(void **state)
{
	(void)state;
	sv_patlist *l;
	sv_error err;
	assert_int_equal(sv_patlist_new(&l, " X ; ;B;", "IncPats", &err), 0);
	assert_int_equal(sv_patlist_count(l), 2);
	assert_int_equal(sv_patlist_match_bits(l, "X", 1), 1);
	assert_int_equal(sv_patlist_match_bits(l, "b x", 3), 3);
	sv_patlist_free(l);
	/* brackets are literal in these boxes (§2.3) */
	assert_int_equal(sv_patlist_new(&l, "[];mscorlib!String", "FoldPats", &err), 0);
	assert_true(sv_patlist_match_any(l, "int[]", 5));
	sv_patlist_free(l);
}

static void test_groups(void **state)
{
	(void)state;
	int kind;
	char *g = grp("^Process% {%}->$1", "Process64 devenv (1234) Args: /x", &kind);
	assert_int_equal(kind, SV_GROUP_PLAIN);
	assert_string_equal(g, "devenv");
	free(g);
	g = grp("^Process% {%}->$1", "Process my app (1234)", &kind);
	assert_string_equal(g, "my");
	free(g);
	g = grp("{%}!=>module $1", "C:\\Windows\\System32\\ntdll!Foo", &kind);
	assert_int_equal(kind, SV_GROUP_ENTRY);
	assert_string_equal(g, "module ntdll");
	free(g);
	/* D1: `-` and `+` belong to `%` */
	g = grp("{%}!=>module $1", "ld-linux-x86-64.so.2!_dl_start", &kind);
	assert_string_equal(g, "module ld-linux-x86-64.so.2");
	free(g);
	/* D2: no fast path */
	g = grp("{%}!=>module $1", "?!?", &kind);
	assert_string_equal(g, "module ?");
	free(g);
	/* -> chains, => stops (T10) */
	g = grp("lib!->LIBRARY;LIBRARY->X", "lib!A", &kind);
	assert_int_equal(kind, SV_GROUP_PLAIN);
	assert_string_equal(g, "X");
	free(g);
	g = grp("lib!=>LIBRARY;LIBRARY->X", "lib!A", &kind);
	assert_int_equal(kind, SV_GROUP_ENTRY);
	assert_string_equal(g, "LIBRARY");
	free(g);
	/* exclusion wins */
	g = grp("lib!B->;{%}!=>module $1", "lib!B", &kind);
	assert_int_equal(kind, SV_GROUP_NONE);
	assert_null(g);
	/* the pattern keeps its trailing blank (§3.1 step 4) */
	g = grp("Thread -> AllThreads", "Thread (12)", &kind);
	assert_string_equal(g, "AllThreads");
	free(g);
	g = grp("Thread -> AllThreads", "Threads", &kind);
	assert_int_equal(kind, SV_GROUP_NONE);
	/* `=>` is searched first: `a->b=>c` is an entry group with pattern `a->b` */
	g = grp("a->b=>c", "xa->by", &kind);
	assert_int_equal(kind, SV_GROUP_ENTRY);
	assert_string_equal(g, "c");
	free(g);
	/* $10 is $1 then 0; $& is the whole match; no arrow = the match itself */
	g = grp("{a}{b}->$10|$&", "ab", &kind);
	assert_string_equal(g, "a0|ab");
	free(g);
	g = grp("[comment] lib!", "lib!A", &kind);
	assert_int_equal(kind, SV_GROUP_PLAIN);
	assert_string_equal(g, "lib!");
	free(g);
	/* T10c */
	g = grp("{%}!{%}->$2 in $1", "lib!A", &kind);
	assert_string_equal(g, "A in lib");
	free(g);
}

/* sv_grouppats_eval_ref: the name in g's own buffers, two of them taking turns while `->`
 * entries chain (each made from the last), reused name after name, grown for a long one. */
static void test_groups_ref(void **state)
{
	(void)state;
	sv_grouppats *g;
	sv_error err;
	assert_int_equal(sv_grouppats_new(&g, "{%}!->$1;^{lib%}->L$1;^L{*}=>E $1/$&", &err), 0);
	char longer[300];
	memset(longer, 'x', 200);
	memcpy(longer + 200, "!f", 3);
	static const struct {
		const char *name, *want;
		int kind;
	} c[] = { { "lib!A", "E lib/Llib", SV_GROUP_ENTRY }, { "libz!B", "E libz/Llibz", SV_GROUP_ENTRY },
		  { "other!C", "other", SV_GROUP_PLAIN }, { "nobang", NULL, SV_GROUP_NONE }, { NULL, NULL, SV_GROUP_PLAIN } };
	for (int round = 0; round < 2; round++)
		for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
			const char *name = c[i].name ? c[i].name : longer;
			const char *out;
			size_t n;
			assert_int_equal(sv_grouppats_eval_ref(g, name, strlen(name), &out, &n), c[i].kind);
			if (c[i].kind == SV_GROUP_NONE) {
				assert_null(out);
				continue;
			}
			assert_int_equal(n, strlen(out));
			if (c[i].want)
				assert_string_equal(out, c[i].want);
			else
				assert_true(n == 200 && strspn(out, "x") == 200);
		}
	sv_grouppats_free(g);
}

/* "{%}!" is matched without the matcher where the text allows: the same match, capture and
 * no-match as the regular expression it stands for (written with '@', which the matcher
 * always runs), on names with the run before the first '!' of every shape. */
static void test_module_fast(void **state)
{
	(void)state;
	sv_pattern *fast, *rx;
	sv_error err;
	const char *re = "@([-+.\\w?]*)!";
	assert_int_equal(sv_pattern_new(&fast, "{%}!", 4, &err), 0);
	assert_int_equal(sv_pattern_new(&rx, re, strlen(re), &err), 0);
	static const char *const names[] = {
		"cc1!0x1234", "libstdc++.so.6!std::foo", "kernel.kallsyms!do_syscall_64", "a b!c", "!x", "x!", "",
		"no bang", "x!y!z", "[unknown]!0x10", "a?b-c+d.e_f!g", "Ab9!", "a(b)!c", "module libm.so.6 <<libm.so.6!sin>>",
		"\xc3\xbcn\xc3\xaf!x", "a \xc3\xbcn!x", "\xc3\xbc" " a!x", "a\xff" "b!c", "\xe6\x97\xa5!x", "x\xc3\xbc" ".b!c",
		"a\tb!c", "ab\xc3\xbc", "@!x", "a/b!c",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *n = names[i];
		char *a = NULL, *b = NULL;
		int ra = sv_pattern_replace(&a, fast, n, strlen(n), "<$1|$&>");
		int rb = sv_pattern_replace(&b, rx, n, strlen(n), "<$1|$&>");
		assert_int_equal(ra, rb);
		if (ra == 1)
			assert_string_equal(a, b);
		assert_int_equal(sv_pattern_match(fast, n, strlen(n)), sv_pattern_match(rx, n, strlen(n)));
		free(a);
		free(b);
	}
	char *a = NULL;
	assert_int_equal(sv_pattern_replace(&a, fast, "lib a+b.so!f", 12, "[$1]"), 1);
	assert_string_equal(a, "lib [a+b.so]f"); /* the run just before the '!' */
	free(a);
	sv_pattern_free(fast);
	sv_pattern_free(rx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_translate), cmocka_unit_test(test_match_examples), cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_patlist),   cmocka_unit_test(test_groups), cmocka_unit_test(test_groups_ref),
		cmocka_unit_test(test_module_fast),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
