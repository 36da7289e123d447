/* SPDX-License-Identifier: MIT */
/* Several runs per side (stackview/compare.h): names lined up across builds — the same
 * program under another version or path found automatically, and the user's match rules. */
#include "stackview/compare.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stackview/pattern.h"
#include "strtab_int.h"
#include "sv/boxtext.h"
#include "sv/copier.h"
#include "compare_int.h"

/* ---- names lined up across builds ---- */

/* Where the program name sits in a frame name: a process frame's name ("Process NAME (PID)"),
 * a thread frame's name ("Thread (TID) NAME"), or the module before '!'. False for others. */
bool sv_cmp_program_span(const char *f, size_t *off, size_t *len)
{
	if (!strncmp(f, "Process", 7)) {
		const char *p = f + 7;
		while (isdigit((unsigned char)*p))
			p++;
		if (*p != ' ')
			return false;
		p++;
		for (const char *q = p; *q; q++) {
			if (q[0] != ' ' || q[1] != '(')
				continue;
			const char *d = q + 2;
			while (isdigit((unsigned char)*d))
				d++;
			if (d > q + 2 && *d == ')' && q > p) {
				*off = (size_t)(p - f);
				*len = (size_t)(q - p);
				return true;
			}
		}
		return false;
	}
	if (!strncmp(f, "Thread (", 8)) {
		const char *p = strchr(f + 8, ')');
		if (!p || p[1] != ' ' || !p[2])
			return false;
		*off = (size_t)(p + 2 - f);
		*len = strlen(p + 2);
		return true;
	}
	const char *bang = strchr(f, '!');
	if (!bang || bang == f)
		return false;
	*off = 0;
	*len = (size_t)(bang - f);
	return true;
}

static bool all_digits_dots(const char *a, const char *z)
{
	if (a == z)
		return false;
	for (const char *p = a; p < z; p++)
		if (!isdigit((unsigned char)*p) && *p != '.')
			return false;
	return isdigit((unsigned char)a[0]) && isdigit((unsigned char)z[-1]);
}

/* A version or hash at the end of s[0, *n): "-1.2.3", "_15", "3.11" after letters,
 * "-3f2a" (hex with a digit, 4 or more). Returns true when it shortened *n. */
static bool strip_suffix(const char *s, size_t *n)
{
	size_t e = *n;
	/* the last separator-led part */
	size_t k = e;
	while (k > 0 && s[k - 1] != '-' && s[k - 1] != '_' && s[k - 1] != '.')
		k--;
	if (k > 1 && (s[k - 1] == '-' || s[k - 1] == '_')) {
		const char *a = s + k, *z = s + e;
		bool hex = z - a >= 4, digit = false;
		for (const char *p = a; p < z; p++) {
			hex = hex && isxdigit((unsigned char)*p);
			digit = digit || isdigit((unsigned char)*p);
		}
		if ((hex && digit) || all_digits_dots(a, z) || (a < z && *a == 'v' && all_digits_dots(a + 1, z))) {
			*n = k - 1;
			return true;
		}
	}
	/* "-1.2.3" / "3.11": digits and dots after a separator or a letter */
	size_t j = e;
	while (j > 0 && (isdigit((unsigned char)s[j - 1]) || s[j - 1] == '.'))
		j--;
	if (j < e && all_digits_dots(s + j, s + e) && j > 0) {
		if (s[j - 1] == '-' || s[j - 1] == '_' || s[j - 1] == '.') {
			if (j > 1) {
				*n = j - 1;
				return true;
			}
		} else if (isalpha((unsigned char)s[j - 1]) && strchr(s + j, '.')) {
			*n = j;
			return true;
		}
	}
	return false;
}

/* The name without version and hash suffixes: "libfoo.so.1.2" -> "libfoo.so",
 * "libLLVM-15.so.1" -> "libLLVM.so", "rustc_driver-6f3a2b.dll" -> "rustc_driver.dll",
 * "app-3f2a" -> "app". Written into buf (truncated to size). */
static void program_key(char *buf, size_t size, const char *name, size_t len)
{
	if (len >= size)
		len = size - 1;
	memcpy(buf, name, len);
	buf[len] = '\0';
	/* ".so.1.2" */
	char *so = strstr(buf, ".so.");
	if (so && all_digits_dots(so + 4, buf + len)) {
		len = (size_t)(so + 3 - buf);
		buf[len] = '\0';
	}
	/* an extension of letters (".so", ".dll", ".exe", ".dylib") stays */
	char ext[16] = "";
	char *dot = strrchr(buf, '.');
	if (dot && dot > buf && strlen(dot) <= 7) {
		bool letters = dot[1] != '\0';
		for (char *p = dot + 1; *p; p++)
			letters = letters && isalpha((unsigned char)*p);
		if (letters) {
			snprintf(ext, sizeof(ext), "%s", dot);
			len = (size_t)(dot - buf);
		}
	}
	while (strip_suffix(buf, &len))
		;
	buf[len] = '\0';
	snprintf(buf + len, size - len, "%s", ext);
	for (char *p = buf; *p; p++)
		*p = (char)tolower((unsigned char)*p);
}

typedef struct prog {
	uint32_t id;  /* in the names table */
	char key[256];
	int side;     /* 1 base only, 2 test only, 3 both */
} prog;

static int prog_cmp(const void *a, const void *b)
{
	const prog *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	return c ? c : (x->side > y->side) - (x->side < y->side);
}

/* Program names (modules, processes, threads) of both sides, after --match; the test-side
 * names that differ from a base-side name only by suffix, one to one, become aliases. */
int sv_cmp_find_aliases(sv_compare *c, char ***names, const sv_source *const *src)
{
	strtab t;
	sv_strtab_init(&t);
	unsigned char *side = NULL;
	size_t side_cap = 0;
	int rc = 0;
	for (size_t r = 0; r < c->nruns && !rc; r++) {
		uint32_t nf = sv_source_frame_count(src[r]);
		for (uint32_t f = 0; f < nf && !rc; f++) {
			const char *nm = names[r][f] ? names[r][f] : sv_source_frame_name(src[r], f);
			size_t off, len;
			uint32_t id;
			if (!sv_cmp_program_span(nm, &off, &len))
				continue;
			if ((rc = sv_strtab_intern(&t, &id, nm + off, len)))
				break;
			if (id >= side_cap) {
				size_t ncap = side_cap ? side_cap * 2 : 64;
				while (ncap <= id)
					ncap *= 2;
				unsigned char *ns = realloc(side, ncap);
				if (!ns) {
					rc = SV_ENOMEM;
					break;
				}
				memset(ns + side_cap, 0, ncap - side_cap);
				side = ns;
				side_cap = ncap;
			}
			side[id] |= r < c->nbase ? 1 : 2;
		}
	}
	prog *pr = rc ? NULL : calloc(t.count + 1, sizeof(*pr));
	if (!rc && !pr)
		rc = SV_ENOMEM;
	size_t np = 0;
	for (uint32_t id = 0; !rc && id < t.count; id++) {
		if (side[id] == 3)
			continue;
		pr[np].id = id;
		pr[np].side = side[id];
		program_key(pr[np].key, sizeof(pr[np].key), sv_strtab_str(&t, id), sv_strtab_len(&t, id));
		np++;
	}
	if (!rc)
		qsort(pr, np, sizeof(*pr), prog_cmp);
	for (size_t i = 0; !rc && i < np;) {
		size_t j = i;
		while (j < np && !strcmp(pr[j].key, pr[i].key))
			j++;
		/* exactly one base-only and one test-only name with this key */
		if (j - i == 2 && pr[i].side == 1 && pr[i + 1].side == 2) {
			char **f = realloc(c->alias_from, (c->nalias + 1) * sizeof(char *));
			if (f)
				c->alias_from = f;
			char **to = realloc(c->alias_to, (c->nalias + 1) * sizeof(char *));
			if (to)
				c->alias_to = to;
			char *a = strdup(sv_strtab_str(&t, pr[i + 1].id)), *b = strdup(sv_strtab_str(&t, pr[i].id));
			if (!f || !to || !a || !b) {
				free(a);
				free(b);
				rc = SV_ENOMEM;
				break;
			}
			c->alias_from[c->nalias] = a;
			c->alias_to[c->nalias] = b;
			c->nalias++;
		}
		i = j;
	}
	free(pr);
	free(side);
	sv_strtab_dispose(&t);
	return rc;
}

/* The test-side name with an aliased program name replaced; NULL when none applies. */
char *sv_cmp_apply_alias(const sv_compare *c, const char *nm)
{
	size_t off, len;
	if (!c->nalias)
		return NULL;
	if (!sv_cmp_program_span(nm, &off, &len)) {
		/* a frame that is a program's name alone (a folded file's root, a comm) */
		off = 0;
		len = strlen(nm);
	}
	for (size_t i = 0; i < c->nalias; i++) {
		if (strlen(c->alias_from[i]) != len || memcmp(c->alias_from[i], nm + off, len))
			continue;
		size_t tl = strlen(c->alias_to[i]), rest = strlen(nm + off + len);
		char *s = malloc(off + tl + rest + 1);
		if (!s)
			return NULL;
		memcpy(s, nm, off);
		memcpy(s + off, c->alias_to[i], tl);
		memcpy(s + off + tl, nm + off + len, rest + 1);
		return s;
	}
	return NULL;
}

void sv_cmp_rules_free(match_rule *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		sv_pattern_free(r[i].pat);
		free(r[i].repl);
	}
	free(r);
}

int sv_cmp_rules_parse(match_rule **out, size_t *n, const char *text, sv_error *err)
{
	*out = NULL;
	*n = 0;
	if (!text)
		return 0;
	size_t cap = 1;
	for (const char *p = text; *p; p++)
		cap += *p == ';';
	match_rule *r = calloc(cap, sizeof(*r));
	if (!r)
		return sv_error_set(err, SV_ENOMEM, NULL);
	const char *s = text + sv_box_comment_len(text), *a, *z;
	int rc = 0;
	while (!rc && sv_box_next(&s, &a, &z)) {
		if (a == z)
			continue;
		const char *arrow = NULL;
		for (const char *p = a; p + 1 < z; p++)
			if (p[0] == '=' && p[1] == '>') {
				arrow = p;
				break;
			}
		if (!arrow) {
			rc = sv_error_set(err, SV_EINVAL, "--match: '%.*s' is not OLD=>NEW", (int)(z - a), a);
			break;
		}
		const char *pe = arrow;
		while (pe > a && sv_box_blank(pe[-1]))
			pe--;
		const char *ra = arrow + 2;
		while (ra < z && sv_box_blank(*ra))
			ra++;
		if (pe == a) {
			rc = sv_error_set(err, SV_EINVAL, "--match: '%.*s' has no pattern before =>", (int)(z - a), a);
			break;
		}
		sv_error perr = { 0 };
		if ((rc = sv_pattern_new(&r[*n].pat, a, (size_t)(pe - a), &perr))) {
			rc = sv_error_set(err, rc, "--match: '%.*s': %s", (int)(pe - a), a, perr.msg);
			break;
		}
		r[*n].repl = strndup(ra, (size_t)(z - ra));
		(*n)++;
		if (!r[*n - 1].repl)
			rc = sv_error_set(err, SV_ENOMEM, NULL);
	}
	if (rc) {
		sv_cmp_rules_free(r, *n);
		*n = 0;
		return rc;
	}
	*out = r;
	return 0;
}

/* Each frame's name after the rules (chained in order), NULL where none matched. */
int sv_cmp_apply_rules(char **names, const sv_source *src, match_rule *r, size_t nr)
{
	uint32_t nf = sv_source_frame_count(src);
	for (uint32_t f = 0; f < nf; f++) {
		char *cur = NULL;
		for (size_t i = 0; i < nr; i++) {
			const char *text = cur ? cur : sv_source_frame_name(src, f);
			char *next;
			int rc = sv_pattern_replace(&next, r[i].pat, text, strlen(text), r[i].repl);
			if (rc < 0) {
				free(cur);
				return rc;
			}
			if (rc == 1) {
				free(cur);
				cur = next;
			}
		}
		names[f] = cur;
	}
	return 0;
}
