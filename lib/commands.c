/* SPDX-License-Identifier: MIT */
/* Box edits of the stack window's commands (see stackview/commands.h). */
#include "stackview/commands.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackview/when.h"
#include "sv/boxtext.h"
#include "sv/heap_graph.h"


static bool is_module_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-' || c == '+' || (unsigned char)c >= 0x80;
}

static int xasprintf(char **out, const char *fmt, ...) SV_PRINTF(2, 3);
static int xasprintf(char **out, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(out, fmt, ap);
	va_end(ap);
	if (n < 0) {
		*out = NULL;
		return SV_ENOMEM;
	}
	return 0;
}

/* Does `item` occur as one `;` element of `list`? (elements trimmed) */
static bool list_has(const char *list, const char *item)
{
	size_t ilen = strlen(item);
	const char *s = list, *a, *z;
	while (sv_box_next(&s, &a, &z))
		if ((size_t)(z - a) == ilen && memcmp(a, item, ilen) == 0)
			return true;
	return false;
}

int sv_cmd_addset(char **out, const char *box, const char *item)
{
	size_t n = strlen(box);
	while (n > 0 && (sv_box_blank(box[n - 1]) || box[n - 1] == ';'))
		n--;
	if (n == 0)
		return xasprintf(out, "%s", item);
	size_t c = sv_box_comment_len(box);
	if (c >= n) /* only a comment */
		return xasprintf(out, "%.*s %s", (int)n, box, item);
	if (list_has(box + c, item))
		return xasprintf(out, "%.*s", (int)n, box);
	return xasprintf(out, "%.*s;%s", (int)n, box, item);
}

void sv_cmd_module_of(char *buf, size_t size, const char *name)
{
	buf[0] = '\0';
	const char *bang = strchr(name, '!');
	if (bang && bang > name) {
		const char *a = bang;
		while (a > name && is_module_char(a[-1]))
			a--;
		if (a < bang) {
			snprintf(buf, size, "%.*s", (int)(bang - a), a);
			return;
		}
	}
	if (strncmp(name, "module ", 7) == 0) {
		const char *a = name + 7;
		while (sv_box_blank(*a))
			a++;
		const char *z = a;
		while (*z && is_module_char(*z))
			z++;
		snprintf(buf, size, "%.*s", (int)(z - a), a);
	}
}

int sv_cmd_priority_check(const char *prio, sv_error *err)
{
	float none;
	return sv_heap_priorities(&none, NULL, 0, prio, err);
}

int sv_cmd_priority(char **out, const char *prio, const char *item, double delta)
{
	size_t ilen = strlen(item);
	if (!ilen)
		return SV_EINVAL;
	double v = 0;
	char *rest = malloc(strlen(prio) + 1);
	if (!rest)
		return SV_ENOMEM;
	size_t o = 0;
	for (const char *p = prio; *p;) {
		const char *semi = strchr(p, ';'), *end = semi ? semi : p + strlen(p), *arrow = NULL;
		for (const char *q = p; q + 1 < end; q++)
			if (q[0] == '-' && q[1] == '>')
				arrow = q;
		const char *a = p, *z = arrow ? arrow : end;
		while (a < z && sv_box_blank(*a))
			a++;
		while (z > a && sv_box_blank(z[-1]))
			z--;
		if (arrow && (size_t)(z - a) == ilen && memcmp(a, item, ilen) == 0) {
			v = strtod(arrow + 2, NULL); /* this entry moves to the front */
		} else if (a < end && !(a == z && !arrow)) {
			if (o)
				rest[o++] = ';';
			memcpy(rest + o, p, (size_t)(end - p));
			o += (size_t)(end - p);
		}
		p = semi ? semi + 1 : end;
	}
	rest[o] = '\0';
	v += delta;
	int rc = xasprintf(out, "%s->%.6g%s%s", item, v, o ? ";" : "", rest);
	free(rest);
	return rc;
}

/* The part of an entry-group display name between "<<" and the final ">>". */
static bool entry_short(const char *name, const char **a, size_t *len)
{
	const char *open = strstr(name, " <<");
	size_t n = strlen(name);
	if (!open || n < 2 || name[n - 1] != '>' || name[n - 2] != '>')
		return false;
	*a = open + 3;
	*len = (size_t)(name + n - 2 - *a);
	return true;
}

bool sv_cmd_entry_frame(char *buf, size_t size, const char *name)
{
	const char *a;
	size_t len;
	bool ok = entry_short(name, &a, &len);
	if (size)
		snprintf(buf, size, "%.*s", ok ? (int)len : 0, ok ? a : "");
	return ok;
}

/* Match the replacement template `repl` (with $n holes) against name; on success fill caps. */
static bool template_match(const char *repl, const char *name, const char *caps[10], size_t caplen[10])
{
	/* Backtracking matcher over literal text and `$n` holes (each hole matches any text). */
	if (*repl == '\0')
		return *name == '\0';
	if (repl[0] == '$' && repl[1] >= '1' && repl[1] <= '9') {
		int k = repl[1] - '0';
		for (size_t l = strlen(name) + 1; l-- > 0;) {
			if (template_match(repl + 2, name + l, caps, caplen)) {
				caps[k] = name;
				caplen[k] = l;
				return true;
			}
		}
		return false;
	}
	if (tolower((unsigned char)*repl) != tolower((unsigned char)*name))
		return false;
	return template_match(repl + 1, name + 1, caps, caplen);
}

int sv_cmd_ungroup(char **out, const char *grouppats, const char *name)
{
	const char *body = grouppats + sv_box_comment_len(grouppats);
	const char *sa;
	size_t slen;
	if (entry_short(name, &sa, &slen))
		return xasprintf(out, "%.*s->;%s", (int)slen, sa, body);

	/* Plain group: rebuild the entry list. */
	char *res = strdup("");
	if (!res)
		return SV_ENOMEM;
	bool changed = false;
	const char *s = body, *ea, *ez;
	while (sv_box_next_raw(&s, &ea, &ez)) {
		char *entry = strndup(ea, (size_t)(ez - ea));
		if (!entry) {
			free(res);
			return SV_ENOMEM;
		}
		const char *arrow = strstr(entry, "=>");
		if (!arrow)
			arrow = strstr(entry, "->");
		char *add = NULL, *keep = entry;
		if (arrow) {
			const char *repl = arrow + 2;
			while (sv_box_blank(*repl))
				repl++;
			char rtrim[1024];
			snprintf(rtrim, sizeof(rtrim), "%s", repl);
			for (size_t l = strlen(rtrim); l > 0 && sv_box_blank(rtrim[l - 1]); l--)
				rtrim[l - 1] = '\0';
			const char *caps[10] = { 0 };
			size_t caplen[10] = { 0 };
			if (rtrim[0] && template_match(rtrim, name, caps, caplen)) {
				changed = true;
				if (!strchr(rtrim, '$')) {
					keep = NULL; /* the entry that makes this group goes */
				} else {
					/* A specific exclusion: the pattern with each {...} replaced by its capture. */
					char buf[2048];
					size_t o = 0;
					int g = 0;
					for (const char *p = entry; p < arrow && o + 1 < sizeof(buf); p++) {
						if (*p == '{') {
							const char *close = strchr(p, '}');
							g++;
							if (close && close < arrow) {
								size_t cl = g < 10 && caps[g] ? caplen[g] : 0;
								if (o + cl + 1 < sizeof(buf)) {
									memcpy(buf + o, caps[g], cl);
									o += cl;
								}
								p = close;
								continue;
							}
						}
						buf[o++] = *p;
					}
					buf[o] = '\0';
					if (xasprintf(&add, "%s%.2s", buf, arrow)) {
						free(entry);
						free(res);
						return SV_ENOMEM;
					}
				}
			}
		}
		char *nres = NULL;
		int rc = 0;
		if (add)
			rc = xasprintf(&nres, "%s%s%s", res, *res ? ";" : "", add);
		if (!rc && add) {
			free(res);
			res = nres;
		}
		if (!rc && keep) {
			rc = xasprintf(&nres, "%s%s%s", res, *res ? ";" : "", keep);
			if (!rc) {
				free(res);
				res = nres;
			}
		}
		free(add);
		free(entry);
		if (rc) {
			free(res);
			return rc;
		}
	}
	if (!changed) {
		free(res);
		return SV_EINVAL;
	}
	*out = res;
	return 0;
}

int sv_cmd_ungroup_module(char **out, const char *grouppats, const char *name)
{
	char mod[512];
	sv_cmd_module_of(mod, sizeof(mod), name);
	if (!mod[0])
		return SV_EINVAL;
	return xasprintf(out, "%s!->;%s", mod, grouppats + sv_box_comment_len(grouppats));
}

int sv_cmd_group_module(char **out, const char *grouppats, const char *name, bool entry)
{
	char mod[512];
	sv_cmd_module_of(mod, sizeof(mod), name);
	if (!mod[0])
		return SV_EINVAL;
	const char *arrow = entry ? "=>" : "->";
	size_t c = sv_box_comment_len(grouppats);
	const char *rest = grouppats + c;
	while (sv_box_blank(*rest))
		rest++;
	size_t clen = c;
	while (clen > 0 && sv_box_blank(grouppats[clen - 1]))
		clen--;
	if (!*rest)
		return clen ? xasprintf(out, "%.*s %s!%s%s", (int)clen, grouppats, mod, arrow, mod)
			    : xasprintf(out, "%s!%s%s", mod, arrow, mod);
	if (clen)
		return xasprintf(out, "%.*s %s!%s%s;%s", (int)clen, grouppats, mod, arrow, mod, rest);
	return xasprintf(out, "%s!%s%s;%s", mod, arrow, mod, rest);
}

int sv_cmd_fold_item(char **out, const char *foldpats, const char *name)
{
	return sv_cmd_addset(out, foldpats, name);
}

int sv_cmd_fold_module(char **out, const char *foldpats, const char *name)
{
	char mod[512], item[520];
	/* §8: the first run of module characters (blanks allowed) that reaches a `!`. */
	mod[0] = '\0';
	for (const char *a = name; *a && !mod[0]; a++) {
		const char *z = a;
		while (*z && (is_module_char(*z) || *z == ' '))
			z++;
		if (*z == '!' && z > a)
			snprintf(mod, sizeof(mod), "%.*s", (int)(z - a), a);
		if (z > a)
			a = z - 1; /* no start inside this run can reach a `!` either */
	}
	if (!mod[0])
		sv_cmd_module_of(mod, sizeof(mod), name);
	if (!mod[0])
		return SV_EINVAL;
	snprintf(item, sizeof(item), "%s!", mod);
	return sv_cmd_addset(out, foldpats, item);
}

static int items(char **out, const char *box, const char *const *names, size_t n)
{
	size_t total = 1;
	for (size_t i = 0; i < n; i++)
		total += strlen(names[i]) + 2;
	char *joined = malloc(total);
	if (!joined)
		return SV_ENOMEM;
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		if (i)
			joined[o++] = '|';
		if (!strchr(names[i], '!'))
			joined[o++] = '^';
		size_t l = strlen(names[i]);
		memcpy(joined + o, names[i], l);
		o += l;
	}
	joined[o] = '\0';
	int rc = sv_cmd_addset(out, box, joined);
	free(joined);
	return rc;
}

int sv_cmd_include_items(char **out, const char *incpats, const char *const *names, size_t n)
{
	return items(out, incpats, names, n);
}

int sv_cmd_exclude_items(char **out, const char *excpats, const char *const *names, size_t n)
{
	return items(out, excpats, names, n);
}

int sv_cmd_fold_pct(char **out, const char *foldpct, bool increase)
{
	double v;
	if (!sv_parse_number(foldpct, &v))
		return xasprintf(out, "%s", foldpct);
	/* PerfView keeps Fold% as float32; the round trip shows in the second decimal. */
	float f = (float)v;
	f = increase ? f * 1.6f : f / 1.6f;
	char buf[64];
	sv_format_number(buf, sizeof(buf), (double)f, 2);
	return xasprintf(out, "%s", buf);
}

int sv_cmd_remove_all_folding(sv_params *p)
{
	int rc = sv_params_set(p, SV_BOX_FOLD, "");
	if (!rc)
		rc = sv_params_set(p, SV_BOX_FOLD_PCT, "");
	return rc;
}

int sv_cmd_set_time_range(sv_params *p, double first, double last)
{
	char a[64], b[64];
	sv_format_number(a, sizeof(a), first, 3);
	sv_format_number(b, sizeof(b), last, 3);
	int rc = sv_params_set(p, SV_BOX_START, a);
	if (!rc)
		rc = sv_params_set(p, SV_BOX_END, b);
	return rc;
}

int sv_cmd_set_time_range_when(sv_params *p, const sv_view *v, int i, int len)
{
	double start, D;
	sv_view_when_bounds(v, &start, &D);
	if (D <= 0 || i < 0 || len <= 0 || i + len > SV_WHEN_LEN)
		return SV_EINVAL;
	return sv_cmd_set_time_range(p, start + i * D, start + (i + len) * D);
}
