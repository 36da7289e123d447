/* SPDX-License-Identifier: MIT */
/* A small streaming JSON writer for the CLI's documents: valid UTF-8 out whatever the
 * names contain (invalid bytes become U+FFFD), numbers printed with the fewest digits that
 * read back to the same double. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "stackview/formats.h"

/* Before a key, or a value that is not a key's: a comma unless first in its container. */
static void sep(jw *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->depth > 0) {
		if (w->comma)
			putc_unlocked(',', w->f);
		w->comma = true;
	}
}

void jw_raw_value(jw *w) { sep(w); }

static void open_(jw *w, char c)
{
	sep(w);
	putc_unlocked(c, w->f);
	w->depth++;
	w->comma = false;
}

void jw_begin_obj(jw *w) { open_(w, '{'); }
void jw_begin_arr(jw *w) { open_(w, '['); }

/* A closed container was a value of its parent, so the parent's next value needs a comma:
 * one flag for the innermost open container is all the state nesting needs, at any depth. */
void jw_end_obj(jw *w)
{
	w->depth--;
	w->comma = true;
	putc_unlocked('}', w->f);
}

void jw_end_arr(jw *w)
{
	w->depth--;
	w->comma = true;
	putc_unlocked(']', w->f);
}

void jw_key(jw *w, const char *k)
{
	sep(w);
	sv_json_write_string(w->f, k);
	putc_unlocked(':', w->f);
	w->after_key = true;
}

void jw_str(jw *w, const char *s)
{
	sep(w);
	if (s)
		sv_json_write_string(w->f, s);
	else
		fputs_unlocked("null", w->f);
}

void jw_bool(jw *w, bool b)
{
	sep(w);
	fputs_unlocked(b ? "true" : "false", w->f);
}

void jw_null(jw *w)
{
	sep(w);
	fputs_unlocked("null", w->f);
}

void jw_num(jw *w, double d)
{
	sep(w);
	sv_json_write_number(w->f, d);
}

void jw_int(jw *w, long long i)
{
	sep(w);
	char buf[24], *end = buf + sizeof(buf), *p = end;
	unsigned long long u = i < 0 ? 0ULL - (unsigned long long)i : (unsigned long long)i;
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (i < 0)
		*--p = '-';
	fwrite_unlocked(p, 1, (size_t)(end - p), w->f);
}
