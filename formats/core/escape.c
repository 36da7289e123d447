/* SPDX-License-Identifier: MIT */
/* What every writer shares: numbers that read back exactly, XML text and JSON strings that
 * are always well formed (invalid UTF-8 and characters XML cannot carry become U+FFFD), and
 * the final write-error check. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_int.h"
#include "sv/utf8.h"

void sv_write_num(FILE *f, double d)
{
	char buf[64];
	if (d == 0)
		d = 0;
	if (d == trunc(d) && fabs(d) < 1e15) {
		fprintf(f, "%.0f", d);
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	fputs(buf, f);
}

void sv_json_write_number(FILE *f, double d)
{
	if (isfinite(d))
		sv_write_num(f, d);
	else
		fputs("null", f);
}

void sv_xml_write_text(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	while (*s) {
		unsigned char c = *s;
		switch (c) {
		case '&': fputs("&amp;", f); s++; continue;
		case '<': fputs("&lt;", f); s++; continue;
		case '>': fputs("&gt;", f); s++; continue;
		case '"': fputs("&quot;", f); s++; continue;
		case '\t': fputs("&#9;", f); s++; continue;
		case '\n': fputs("&#10;", f); s++; continue;
		case '\r': fputs("&#13;", f); s++; continue;
		default: break;
		}
		int n = c < 0x20 || c == 0x7f ? 0 : sv_utf8_len(s);
		if (n == 0) {
			fputs("\xEF\xBF\xBD", f); /* U+FFFD */
			s++;
			continue;
		}
		/* U+FFFE and U+FFFF are not XML characters either. */
		if (n == 3 && s[0] == 0xEF && s[1] == 0xBF && (s[2] == 0xBE || s[2] == 0xBF)) {
			fputs("\xEF\xBF\xBD", f);
			s += 3;
			continue;
		}
		fwrite(s, 1, (size_t)n, f);
		s += n;
	}
}

void sv_json_write_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	fputc('"', f);
	while (*s) {
		/* a run of bytes written as they are (printable ASCII but the quote and backslash,
		 * whole UTF-8 characters) goes out in one write */
		const unsigned char *run = s;
		for (;;) {
			unsigned char c = *s;
			if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
				s++;
			} else if (c >= 0x80) {
				int n = sv_utf8_len(s);
				if (n == 0)
					break;
				s += n;
			} else {
				break;
			}
		}
		if (s > run)
			fwrite(run, 1, (size_t)(s - run), f);
		unsigned char c = *s;
		if (!c)
			break;
		if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc(c, f);
		} else if (c >= 0x80) { /* not UTF-8 */
			fputs("\\ufffd", f);
		} else {
			switch (c) {
			case '\n': fputs("\\n", f); break;
			case '\t': fputs("\\t", f); break;
			case '\r': fputs("\\r", f); break;
			default: fprintf(f, "\\u%04x", c);
			}
		}
		s++;
	}
	fputc('"', f);
}

int sv_write_check(FILE *f, sv_error *err)
{
	return ferror(f) ? sv_error_set(err, SV_EIO, "writing failed") : 0;
}
