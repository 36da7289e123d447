/* SPDX-License-Identifier: MIT */
/* Presets: PerfView's text form, built-ins, apply and save-as (see stackview/preset.h). */
#include "stackview/preset.h"
#include "sv/array.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name, *group;
} builtins[] = {
	{ "no grouping", "" },
	{ "group modules", "{%}!->module $1" },
	{ "group module entries", "{%}!=>module $1" },
	{ "group full path module entries", "{*}!=>module $1" },
	{ "group class entries", "{%!*}.%(=>class $1;{%!*}::=>class $1" },
	{ "group classes", "{%!*}.%(->class $1;{%!*}::->class $1" },
	{ "fold threads", "Thread -> AllThreads" },
	/* the profile's own: what the TUI opens perf profiles with (sv_preset_group_system) */
	{ "group system modules", "" },
	/* PerfView's Just My App: the program's modules by function, the rest as OTHER at its entry */
	{ "Just My App", "" },
};

size_t sv_builtin_preset_count(void) { return sizeof(builtins) / sizeof(builtins[0]); }
const char *sv_builtin_preset_name(size_t i) { return builtins[i].name; }
const char *sv_builtin_preset_group(size_t i) { return builtins[i].group; }

const char *sv_builtin_preset_describe(size_t i)
{
	if (strcmp(builtins[i].name, "group system modules") == 0)
		return "^PROGRAM!->;{%}!=>module $1  (your program's modules by function, the others by module)";
	if (strcmp(builtins[i].name, "Just My App") == 0)
		return "^PROGRAM!->;!=>OTHER  (your program's modules by function, everything else as OTHER where it is entered)";
	return builtins[i].group;
}

int sv_builtin_preset_for(char **out, size_t i, const sv_source *src)
{
	bool sys = strcmp(builtins[i].name, "group system modules") == 0, mine = strcmp(builtins[i].name, "Just My App") == 0;
	if ((!sys && !mine) || !src) {
		*out = strdup(builtins[i].group);
		return *out ? 0 : SV_ENOMEM;
	}
	char *g = NULL;
	int rc = sys ? sv_preset_group_system(&g, src) : sv_preset_just_my_app(&g, src);
	if (rc)
		return rc;
	const char *rest = strstr(g, "] "); /* without the "[...] " comment: applying adds the name */
	*out = strdup(rest ? rest + 2 : g);
	free(g);
	return *out ? 0 : SV_ENOMEM;
}

static void preset_free(sv_preset *p)
{
	free(p->name);
	free(p->group);
	free(p->fold_pct);
	free(p->fold);
	free(p->comment);
}

void sv_presets_dispose(sv_presets *ps)
{
	for (size_t i = 0; i < ps->n; i++)
		preset_free(&ps->p[i]);
	free(ps->p);
	*ps = (sv_presets){ 0 };
}

long sv_presets_find(const sv_presets *ps, const char *name)
{
	for (size_t i = 0; i < ps->n; i++)
		if (strcmp(ps->p[i].name, name) == 0)
			return (long)i;
	return -1;
}

int sv_presets_put(sv_presets *ps, const char *name, const char *group, const char *fold_pct, const char *fold,
		   const char *comment)
{
	sv_preset np = { strdup(name), strdup(group ? group : ""), strdup(fold_pct ? fold_pct : ""),
			 strdup(fold ? fold : ""), strdup(comment ? comment : "") };
	if (!np.name || !np.group || !np.fold_pct || !np.fold || !np.comment) {
		preset_free(&np);
		return SV_ENOMEM;
	}
	long at = sv_presets_find(ps, name);
	if (at >= 0) {
		preset_free(&ps->p[at]);
		ps->p[at] = np;
		return 0;
	}
	if (SV_ARRAY_PUSH(ps->p, ps->n, ps->cap, np)) {
		preset_free(&np);
		return SV_ENOMEM;
	}
	return 0;
}

void sv_presets_remove(sv_presets *ps, size_t i)
{
	if (i >= ps->n)
		return;
	preset_free(&ps->p[i]);
	memmove(&ps->p[i], &ps->p[i + 1], (ps->n - i - 1) * sizeof(*ps->p));
	ps->n--;
}

/* XmlConvert.DecodeName: "_xHHHH_" -> that UTF-16 unit (as UTF-8; surrogates dropped). */
static char *decode_name(const char *s, size_t n)
{
	char *out = malloc(n + 1), *o = out;
	if (!out)
		return NULL;
	for (size_t i = 0; i < n;) {
		unsigned v;
		if (i + 7 <= n && s[i] == '_' && s[i + 1] == 'x' && s[i + 6] == '_' && isxdigit((unsigned char)s[i + 2]) &&
		    isxdigit((unsigned char)s[i + 3]) && isxdigit((unsigned char)s[i + 4]) && isxdigit((unsigned char)s[i + 5]) &&
		    sscanf(s + i + 2, "%4x", &v) == 1) {
			if (v < 0x80) {
				*o++ = (char)v;
			} else if (v < 0x800) {
				*o++ = (char)(0xC0 | v >> 6);
				*o++ = (char)(0x80 | (v & 0x3F));
			} else if (v < 0xD800 || v >= 0xE000) {
				*o++ = (char)(0xE0 | v >> 12); /* 3 bytes never exceed the 7 read */
				*o++ = (char)(0x80 | (v >> 6 & 0x3F));
				*o++ = (char)(0x80 | (v & 0x3F));
			}
			i += 7;
		} else {
			*o++ = s[i++];
		}
	}
	*o = '\0';
	return out;
}

/* XmlConvert.EncodeName for ASCII: characters that cannot be in an XML name (and '_' before
 * 'x') become "_xHHHH_"; non-ASCII bytes pass through. */
static void encode_name(FILE *f, const char *s)
{
	for (size_t i = 0; s[i]; i++) {
		unsigned char c = (unsigned char)s[i];
		bool ok = c >= 0x80 || isalnum(c) || ((c == '.' || c == '-') && i > 0) || (c == '_' && s[i + 1] != 'x');
		if (ok)
			fputc(c, f);
		else
			fprintf(f, "_x%04X_", c);
	}
}

static const char *const keys[] = { "Name=", "GroupPat=", "FoldPercentage=", "FoldPat=", "Comment=" };

int sv_presets_parse(sv_presets *out, const char *text)
{
	*out = (sv_presets){ 0 };
	const char *p = text;
	while (*p) {
		const char *end = strstr(p, "####");
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char *field[5] = { 0 };
		const char *q = p, *qend = p + len;
		while (q < qend) {
			while (q < qend && isspace((unsigned char)*q))
				q++;
			const char *f = q;
			const char *sep = NULL;
			for (const char *r = q; r + 4 <= qend; r++)
				if (memcmp(r, "$$$$", 4) == 0) {
					sep = r;
					break;
				}
			const char *fend = sep ? sep : qend;
			while (fend > f && (fend[-1] == '\n' || fend[-1] == '\r'))
				fend--;
			for (int k = 0; k < 5; k++) {
				size_t kl = strlen(keys[k]);
				if ((size_t)(fend - f) >= kl && memcmp(f, keys[k], kl) == 0 && !field[k]) {
					field[k] = k == 4 ? decode_name(f + kl, (size_t)(fend - f) - kl)
							  : strndup(f + kl, (size_t)(fend - f) - kl);
					if (!field[k])
						goto nomem;
				}
			}
			q = sep ? sep + 4 : qend;
		}
		if (field[0] && field[0][0]) {
			int rc = sv_presets_put(out, field[0], field[1], field[2], field[3], field[4]);
			if (rc)
				goto nomem;
		}
		for (int k = 0; k < 5; k++)
			free(field[k]);
		p = end ? end + 4 : p + len;
		continue;
nomem:
		for (int k = 0; k < 5; k++)
			free(field[k]);
		sv_presets_dispose(out);
		return SV_ENOMEM;
	}
	return 0;
}

int sv_presets_format(char **out, const sv_presets *ps)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return SV_ENOMEM;
	for (size_t i = 0; i < ps->n; i++) {
		const sv_preset *p = &ps->p[i];
		if (i)
			fputs("####\n", f);
		fprintf(f, "Name=%s$$$$GroupPat=%s$$$$FoldPercentage=%s$$$$FoldPat=%s$$$$Comment=", p->name, p->group,
			p->fold_pct, p->fold);
		encode_name(f, p->comment);
	}
	fputc('\n', f);
	if (fclose(f) != 0 || !buf) {
		free(buf);
		return SV_ENOMEM;
	}
	*out = buf;
	return 0;
}

int sv_preset_apply(sv_params *p, const char *name, const char *group, const char *fold_pct, const char *fold)
{
	size_t n = strlen(name) + strlen(group) + 4;
	char *g = malloc(n);
	if (!g)
		return SV_ENOMEM;
	snprintf(g, n, "[%s] %s", name, group);
	int rc = sv_params_set(p, SV_BOX_GROUP, g);
	free(g);
	if (!rc)
		rc = sv_params_set(p, SV_BOX_FOLD_PCT, fold_pct);
	if (!rc)
		rc = sv_params_set(p, SV_BOX_FOLD, fold);
	return rc;
}

int sv_preset_split_group(char **name, char **pats, const char *group)
{
	const char *s = group;
	while (isspace((unsigned char)*s))
		s++;
	const char *close = *s == '[' ? strchr(s, ']') : NULL;
	const char *rest = close ? close + 1 : s;
	while (isspace((unsigned char)*rest))
		rest++;
	*name = close ? strndup(s + 1, (size_t)(close - s - 1)) : strdup("");
	*pats = strdup(rest);
	if (!*name || !*pats) {
		free(*name);
		free(*pats);
		*name = *pats = NULL;
		return SV_ENOMEM;
	}
	return 0;
}

int sv_preset_just_my_app(char **out, const sv_source *src)
{
	size_t n = sv_source_user_module_count(src), kept = 0, len = 64;
	for (size_t i = 0; i < n; i++)
		len += 2 * strlen(sv_source_user_module(src, i)) + 9;
	char *buf = malloc(len);
	if (!buf)
		return SV_ENOMEM;
	size_t o = (size_t)snprintf(buf, len, "[Just My App] ");
	for (size_t i = 0; i < n; i++) {
		const char *m = sv_source_user_module(src, i);
		if (strpbrk(m, "%*^|{};\\") || isspace((unsigned char)m[0]))
			continue;
		/* the module's frames whether the full name is the module alone (perf) or its path
		 * (ETL: C:\dir\app!Main) */
		o += (size_t)snprintf(buf + o, len - o, "^%s!|\\%s!->;", m, m);
		kept++;
	}
	if (!kept) /* the input names no program modules: as PerfView without an exe, by module */
		o = (size_t)snprintf(buf, len, "[group module entries] {%%}!=>module $1");
	else
		snprintf(buf + o, len - o, "!=>OTHER");
	*out = buf;
	return 0;
}

int sv_preset_group_system(char **out, const sv_source *src)
{
	size_t n = sv_source_user_module_count(src), kept = 0, len = 64;
	for (size_t i = 0; i < n; i++)
		len += strlen(sv_source_user_module(src, i)) + 5;
	char *buf = malloc(len);
	if (!buf)
		return SV_ENOMEM;
	size_t o = (size_t)snprintf(buf, len, "[group system modules] ");
	for (size_t i = 0; i < n; i++) {
		const char *m = sv_source_user_module(src, i);
		if (strpbrk(m, "%*^|{};") || isspace((unsigned char)m[0]))
			continue;
		o += (size_t)snprintf(buf + o, len - o, "^%s!->;", m); /* an exclusion: kept by function */
		kept++;
	}
	if (!kept)
		o = (size_t)snprintf(buf, len, "[group module entries] ");
	snprintf(buf + o, len - o, "{%%}!=>module $1");
	*out = buf;
	return 0;
}
