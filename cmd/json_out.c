/* SPDX-License-Identifier: MIT */
/* A small streaming JSON writer for the CLI's documents: valid UTF-8 out whatever the
 * names contain (invalid bytes become U+FFFD), numbers printed with the fewest digits that
 * read back to the same double, through an output buffer. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "stackview/formats.h"

static void put(jw *w, const char *s, size_t k) { ob_put(&w->o, s, k); }
static void putch(jw *w, char c) { ob_putc(&w->o, c); }

/* Before a key, or a value that is not a key's: a comma unless first in its container. */
static void sep(jw *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->depth > 0) {
		if (w->comma)
			putch(w, ',');
		w->comma = true;
	}
}

static void open_(jw *w, char c)
{
	sep(w);
	putch(w, c);
	w->depth++;
	w->comma = false;
}

void jw_begin_obj(jw *w) { open_(w, '{'); }
void jw_begin_arr(jw *w) { open_(w, '['); }

/* A closed container was a value of its parent, so the parent's next value needs a comma:
 * one flag for the innermost open container is all the state nesting needs, at any depth.
 * The document's end writes the text out. */
static void close_(jw *w, char c)
{
	w->depth--;
	w->comma = true;
	putch(w, c);
	if (w->depth == 0)
		ob_flush(&w->o);
}

void jw_end_obj(jw *w) { close_(w, '}'); }
void jw_end_arr(jw *w) { close_(w, ']'); }

static void string(jw *w, const char *s)
{
	putch(w, '"');
	for (size_t left = strlen(s);;) {
		size_t n = sv_json_plain_len(s, left);
		put(w, s, n);
		s += n, left -= n;
		if (!left)
			break;
		char esc[8];
		put(w, esc, sv_json_escape(s, esc));
		s++, left--;
	}
	putch(w, '"');
}

void jw_key(jw *w, const char *k)
{
	sep(w);
	string(w, k);
	putch(w, ':');
	w->after_key = true;
}

void jw_keyn(jw *w, const char *text, size_t n)
{
	sep(w);
	put(w, text, n);
	w->after_key = true;
}

void jw_str(jw *w, const char *s)
{
	sep(w);
	if (s)
		string(w, s);
	else
		put(w, "null", 4);
}

void jw_bool(jw *w, bool b)
{
	sep(w);
	if (b)
		put(w, "true", 4);
	else
		put(w, "false", 5);
}

void jw_null(jw *w)
{
	sep(w);
	put(w, "null", 4);
}

void jw_num(jw *w, double d)
{
	sep(w);
	char buf[SV_NUMBER_TEXT];
	put(w, buf, sv_json_number_text(buf, d));
}

void jw_int(jw *w, long long i)
{
	sep(w);
	ob_int(&w->o, i);
}
