/* SPDX-License-Identifier: MIT */
/* A function's code for annotate (sv_disasm_function) against objdump -d of the same files
 * (tests/data/annotate/objdump.*.txt, binutils 2.40): x86-64 (hot, built with gcc) and
 * AArch64 (arm, built with aarch64-linux-gnu-gcc): the same instructions at the same
 * addresses, every direct jump to objdump's target, the symbol's bounds, DWARF lines; and
 * what is not code is refused with a reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackview/formats.h"
#include "unit.h"

typedef struct oinsn {
	unsigned long long addr, target; /* target: a jump's, 0 when none */
	char mnemonic[32];
} oinsn;

/* objdump's instructions of function `fn` in `listing`; *n of them. */
static oinsn *objdump_function(const char *listing, const char *fn, size_t *n)
{
	FILE *f = fopen(listing, "r");
	assert_non_null(f);
	oinsn *v = calloc(4096, sizeof(*v));
	assert_non_null(v);
	char line[512], head[128];
	snprintf(head, sizeof(head), " <%s>:", fn);
	bool in = false;
	*n = 0;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, head)) {
			in = true;
			continue;
		}
		if (!in)
			continue;
		unsigned long long a;
		char mn[32], rest[256] = "";
		if (sscanf(line, " %llx:\t%31s %255[^\n]", &a, mn, rest) < 2) {
			if (*n)
				break; /* the blank line after the function */
			continue;
		}
		oinsn *o = &v[(*n)++];
		o->addr = a;
		snprintf(o->mnemonic, sizeof(o->mnemonic), "%s", mn);
		unsigned long long t;
		char sym[128];
		/* a direct branch names its target: "1318 <mix+0xb8>" (x86 jumps: j*, jmp; AArch64: b, b.*, cb*, tb*) */
		bool jump = mn[0] == 'j' || (mn[0] == 'b' && (mn[1] == '\0' || mn[1] == '.')) || !strncmp(mn, "cb", 2) ||
			    !strncmp(mn, "tb", 2);
		const char *lt = strchr(rest, '<');
		if (jump && lt && sscanf(lt - (lt > rest && lt[-1] == ' ' ? 1 : 0), " <%127[^>]>", sym) == 1) {
			/* the hex before " <" */
			const char *p = lt - 1;
			while (p > rest && p[-1] != ' ' && p[-1] != ',' && p[-1] != '\t')
				p--;
			if (sscanf(p, "%llx", &t) == 1)
				o->target = t;
		}
	}
	fclose(f);
	return v;
}

static void same_as_objdump(const char *elf, const char *listing, const char *fn, const char *arch)
{
	size_t n;
	oinsn *want = objdump_function(listing, fn, &n);
	assert_true(n > 10);
	sv_disasm d;
	sv_error err;
	sv_error_clear(&err);
	/* any address inside the function finds it: its third instruction's */
	assert_int_equal(sv_disasm_function(&d, elf, NULL, NULL, want[2].addr, &err), 0);
	assert_string_equal(d.symbol, fn);
	assert_string_equal(d.arch, arch);
	assert_int_equal(d.start, want[0].addr);
	/* objdump goes on to the next symbol (alignment padding); the symbol's size ends ours */
	size_t pad = 0;
	while (n && want[n - 1].addr >= d.end)
		n--, pad++;
	assert_true(pad <= 8);
	assert_int_equal(d.n, n);
	size_t jumps = 0, lines = 0;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(d.insns[i].addr, want[i].addr);
		if (want[i].target) {
			assert_true(d.insns[i].jump);
			assert_int_equal(d.insns[i].target, want[i].target);
			jumps++;
		}
		lines += d.insns[i].line != 0;
	}
	assert_true(jumps >= 3);
	assert_true(lines == n); /* built with -g: every instruction has its line */
	assert_true(d.nfiles >= 1);
	sv_disasm_dispose(&d);
	free(want);
}

static void test_x86_64(void **state)
{
	(void)state;
	same_as_objdump("tests/data/annotate/hot", "tests/data/annotate/objdump.x86.txt", "mix", "x86-64");
	same_as_objdump("tests/data/annotate/hot", "tests/data/annotate/objdump.x86.txt", "count_bits", "x86-64");
}

static void test_aarch64(void **state)
{
	(void)state;
	same_as_objdump("tests/data/annotate/arm", "tests/data/annotate/objdump.arm.txt", "mix", "aarch64");
	same_as_objdump("tests/data/annotate/arm", "tests/data/annotate/objdump.arm.txt", "count_bits", "aarch64");
}

static void test_refused(void **state)
{
	(void)state;
	sv_disasm d;
	sv_error err;
	sv_error_clear(&err);
	assert_int_not_equal(sv_disasm_function(&d, "tests/data/annotate/hot.c", NULL, NULL, 0x1260, &err), 0);
	assert_non_null(strstr(err.msg, "not an ELF file"));
	sv_error_clear(&err);
	assert_int_not_equal(sv_disasm_function(&d, "tests/data/annotate/hot", NULL, NULL, 0x10, &err), 0);
	assert_non_null(strstr(err.msg, "no function symbol holds 0x10"));
	sv_error_clear(&err);
	assert_int_not_equal(sv_disasm_function(&d, "tests/data/annotate/no-such-file", NULL, NULL, 0x1260, &err), 0);
	assert_non_null(strstr(err.msg, "cannot open"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_x86_64),
		cmocka_unit_test(test_aarch64),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
