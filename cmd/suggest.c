/* SPDX-License-Identifier: MIT */
/* "Did you mean": the closest subcommand to a mistyped one, the names of a view closest to a
 * --focus that matches none (see cli.h). */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cli.h"
#include "stackview/pattern.h"
#include "sv/boxtext.h"

/* Levenshtein distance, case-insensitive, of the first 64 bytes of each; beyond `cap` the
 * exact figure does not matter and cap + 1 is returned. */
static size_t distance(const char *a, const char *b, size_t cap)
{
	size_t la = strnlen(a, 64), lb = strnlen(b, 64);
	if ((la > lb ? la - lb : lb - la) > cap)
		return cap + 1;
	size_t row[65];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0], best = row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t sub = diag + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
			size_t v = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
			row[j] = sub < v ? sub : v;
			diag = up;
			if (row[j] < best)
				best = row[j];
		}
		if (best > cap)
			return cap + 1;
	}
	return row[lb];
}

bool cli_suggest_command(const char *word, const char *const *names, size_t n, char *buf, size_t size)
{
	if (!word[0] || word[0] == '-' || size == 0)
		return false;
	struct stat st;
	if (stat(word, &st) == 0)
		return false; /* a file of that name: not a typo */
	size_t d[64], best = 3;
	for (size_t i = 0; i < n && i < 64; i++) {
		d[i] = distance(word, names[i], 2);
		/* three letters or more that begin a command name it too ("call" names four) */
		if (strlen(word) >= 3 && strncasecmp(names[i], word, strlen(word)) == 0 && d[i] > 1)
			d[i] = 1;
		if (d[i] < best)
			best = d[i];
	}
	if (best > 2)
		return false;
	size_t o = 0, k = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && i < 64; i++)
		if (d[i] == best && o < size)
			o += (size_t)snprintf(buf + o, size - o, "%s'%s'", k++ ? " or " : "", names[i]);
	return true;
}

size_t cli_suggest_names(sv_view *v, const char *focus, const char **out, size_t max)
{
	size_t n = 0;
	sv_rows r;
	if (max == 0 || sv_rows_byname(&r, v, 0))
		return 0;
	/* Names that contain the text, the heaviest first (ByName's order: |Exc|, then name). */
	for (size_t i = 0; i < r.n && n < max; i++) {
		const char *name = sv_view_name(v, r.row[i].name);
		if (strcasestr(name, focus))
			out[n++] = name;
	}
	/* Otherwise the names within a few edits (a typo). */
	size_t cap = strlen(focus) / 4 + 1;
	for (size_t d = 1; n == 0 && d <= cap; d++)
		for (size_t i = 0; i < r.n && n < max; i++) {
			const char *name = sv_view_name(v, r.row[i].name);
			if (distance(focus, name, d) == d)
				out[n++] = name;
		}
	sv_rows_dispose(&r);
	return n;
}

/* The frames' short names closest to a pattern's text (containing it, else a few edits
 * away), at most max, into out (borrowed from src). */
static size_t near_frames(const sv_source *src, const char *text, const char **out, size_t max)
{
	size_t n = 0;
	uint32_t nf = sv_source_frame_count(src);
	for (uint32_t f = 0; f < nf && n < max; f++)
		if (strcasestr(sv_source_frame_short(src, f), text))
			out[n++] = sv_source_frame_short(src, f);
	size_t cap = strlen(text) / 4 + 1;
	for (size_t d = 1; n == 0 && d <= cap; d++)
		for (uint32_t f = 0; f < nf && n < max; f++) {
			const char *s = sv_source_frame_short(src, f), *bang = strchr(s, '!');
			if (distance(text, bang ? bang + 1 : s, d) == d)
				out[n++] = s;
		}
	return n;
}

void cli_explain_empty(const sv_source *src, const sv_view *v, const sv_params *p)
{
	sv_summary sum;
	sv_view_summary(&sum, v);
	if (sum.count != 0 || sv_source_sample_count(src) == 0)
		return;
	/* Each IncPats entry that matches no frame at all, with the names closest to it. */
	const char *inc = sv_params_get(p, SV_BOX_INC);
	bool said = false;
	sv_patlist *l = NULL;
	sv_error err;
	const char *text = inc + sv_box_comment_len(inc);
	if (text[0] && sv_patlist_new(&l, text, "IncPats", &err) == 0) {
		unsigned long long any = 0;
		for (uint32_t f = 0; f < sv_source_frame_count(src); f++) {
			const char *name = sv_source_frame_name(src, f);
			any |= sv_patlist_match_bits(l, name, strlen(name));
		}
		/* the entries as the pattern list splits them */
		const char *s = text, *a, *z;
		size_t k = 0;
		while (sv_box_next(&s, &a, &z)) {
			if (z == a)
				continue;
			if (k < 64 && !(any & (1ULL << k))) {
				char e[256];
				snprintf(e, sizeof(e), "%.*s", (int)(z - a), a);
				const char *near[3];
				size_t nn = near_frames(src, e, near, 3);
				fprintf(stderr, "stackview: warning: IncPats '%s' matched no frame", e);
				for (size_t i = 0; i < nn; i++)
					fprintf(stderr, "%s'%s'", i ? ", " : "; did you mean ", near[i]);
				fputs(nn ? "?\n" : "\n", stderr);
				said = true;
			}
			k++;
		}
		if (!said) {
			fprintf(stderr, "stackview: warning: every IncPats entry matched frames, but no sample has them all on its "
					"stack%s (entries are ANDed; '|' inside one is or)\n",
				sv_params_get(p, SV_BOX_GROUP)[0] ? " under the names GroupPats gives them" : "");
			said = true;
		}
		sv_patlist_free(l);
	}
	if (!said)
		fprintf(stderr, "stackview: warning: the view is empty: %s\n",
			sv_params_get(p, SV_BOX_EXC)[0] ? "ExcPats dropped every sample" : "no sample lies in the time range");
}
