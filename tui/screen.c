/* SPDX-License-Identifier: MIT */
/* Cell grid drawing and text dumps (see screen.h). */
#include "screen.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

tui_screen *tui_screen_new(int w, int h)
{
	if (w < 1 || h < 1 || w > 10000 || h > 10000)
		return NULL;
	tui_screen *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->w = w;
	s->h = h;
	s->cells = calloc((size_t)w * (size_t)h, sizeof(*s->cells));
	if (!s->cells) {
		free(s);
		return NULL;
	}
	tui_screen_clear(s);
	return s;
}

void tui_screen_free(tui_screen *s)
{
	if (!s)
		return;
	free(s->cells);
	free(s);
}

void tui_screen_clear(tui_screen *s)
{
	for (int i = 0; i < s->w * s->h; i++)
		s->cells[i] = (tui_cell){ L' ', 0 };
}

/* Next character of UTF-8 text; invalid bytes become U+FFFD. */
static wchar_t next_wc(const char **p)
{
	mbstate_t st;
	memset(&st, 0, sizeof(st));
	wchar_t wc;
	size_t n = mbrtowc(&wc, *p, MB_CUR_MAX, &st);
	if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
		(*p)++;
		return 0xFFFD;
	}
	*p += n;
	return wc;
}

static int wc_width(wchar_t wc)
{
	int w = wcwidth(wc);
	return w < 0 ? 1 : w;
}

int tui_screen_text(tui_screen *s, int x, int y, const char *utf8, int maxw, int attr)
{
	size_t bytes;
	return tui_screen_text_n(s, x, y, utf8, maxw, attr, &bytes);
}

int tui_screen_text_n(tui_screen *s, int x, int y, const char *utf8, int maxw, int attr, size_t *bytes)
{
	*bytes = 0;
	if (y < 0 || y >= s->h)
		return 0;
	int used = 0;
	const char *p = utf8;
	while (*p && used < maxw && x + used < s->w) {
		const char *before = p;
		wchar_t wc = next_wc(&p);
		if (wc < 0x20 || wc == 0x7f)
			wc = L'?';
		int cw = wc_width(wc);
		if (cw == 0) {
			*bytes = (size_t)(p - utf8);
			continue; /* combining marks are dropped in this simple grid */
		}
		if (used + cw > maxw || x + used + cw > s->w) {
			p = before;
			break;
		}
		if (x + used < 0) { /* left of the screen: clipped, as every paint is */
			used += cw;
			*bytes = (size_t)(p - utf8);
			continue;
		}
		tui_cell *c = &s->cells[y * s->w + x + used];
		c->ch = wc;
		c->attr = (unsigned char)attr;
		if (cw == 2) {
			c[1].ch = 0;
			c[1].attr = (unsigned char)attr;
		}
		used += cw;
		*bytes = (size_t)(p - utf8);
	}
	return used;
}

void tui_screen_fill(tui_screen *s, int x, int y, int n, int attr)
{
	if (y < 0 || y >= s->h)
		return;
	for (int i = x; i < x + n && i < s->w; i++)
		if (i >= 0)
			s->cells[y * s->w + i] = (tui_cell){ L' ', (unsigned char)attr };
}

void tui_screen_dump(const tui_screen *s, FILE *f, bool marks)
{
	char mb[MB_LEN_MAX + 1];
	for (int y = 0; y < s->h; y++) {
		if (marks) /* '>' before a line that is all reverse video: a cursor bar */
			fputs(s->w && (s->cells[y * s->w].attr & TUI_A_REVERSE) &&
					      (s->cells[y * s->w + s->w - 1].attr & TUI_A_REVERSE)
				      ? ">"
				      : " ",
			      f);
		int last = s->w - 1;
		while (last >= 0 && s->cells[y * s->w + last].ch == L' ')
			last--;
		for (int x = 0; x <= last; x++) {
			wchar_t wc = s->cells[y * s->w + x].ch;
			if (wc == 0)
				continue;
			mbstate_t st;
			memset(&st, 0, sizeof(st));
			size_t n = wcrtomb(mb, wc, &st);
			if (n == (size_t)-1)
				fputc('?', f);
			else
				fwrite(mb, 1, n, f);
		}
		fputc('\n', f);
	}
}
