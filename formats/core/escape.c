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

/* n (< 10^18) in decimal at the end of buf[0..cap): where it starts. */
static char *decimal(char *end, unsigned long long n)
{
	do
		*--end = (char)('0' + n % 10);
	while (n /= 10);
	return end;
}

void sv_write_num(FILE *f, double d)
{
	char buf[64];
	if (d == 0)
		d = 0;
	double a = fabs(d);
	if (d == trunc(d) && a < 1e15) {
		char *p = decimal(buf + sizeof(buf), (unsigned long long)a);
		if (d < 0)
			*--p = '-';
		fwrite_unlocked(p, 1, (size_t)(buf + sizeof(buf) - p), f);
		return;
	}
	/* A value of whole millionths (times in ms from nanoseconds), 1e-4 <= |d| < 1e9: its
	 * decimal digits, at most 15 significant, are what %.15g prints and read back to it. */
	if (a >= 1e-4 && a < 1e9) {
		double m = a * 1e6;
		unsigned long long k = (unsigned long long)(m + 0.5);
		if ((double)k / 1e6 == a) {
			char *end = buf + sizeof(buf), *p = end;
			unsigned long long frac = k % 1000000;
			int digits = 6;
			while (digits > 1 && frac % 10 == 0)
				frac /= 10, digits--;
			for (int i = 0; i < digits; i++, frac /= 10)
				*--p = (char)('0' + frac % 10);
			*--p = '.';
			p = decimal(p, k / 1000000);
			if (d < 0)
				*--p = '-';
			fwrite_unlocked(p, 1, (size_t)(end - p), f);
			return;
		}
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	fputs_unlocked(buf, f);
}

void sv_json_write_number(FILE *f, double d)
{
	if (isfinite(d))
		sv_write_num(f, d);
	else
		fputs_unlocked("null", f);
}

void sv_xml_write_text(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	while (*s) {
		unsigned char c = *s;
		switch (c) {
		case '&': fputs_unlocked("&amp;", f); s++; continue;
		case '<': fputs_unlocked("&lt;", f); s++; continue;
		case '>': fputs_unlocked("&gt;", f); s++; continue;
		case '"': fputs_unlocked("&quot;", f); s++; continue;
		case '\t': fputs_unlocked("&#9;", f); s++; continue;
		case '\n': fputs_unlocked("&#10;", f); s++; continue;
		case '\r': fputs_unlocked("&#13;", f); s++; continue;
		default: break;
		}
		int n = c < 0x20 || c == 0x7f ? 0 : sv_utf8_len(s);
		if (n == 0) {
			fputs_unlocked("\xEF\xBF\xBD", f); /* U+FFFD */
			s++;
			continue;
		}
		/* U+FFFE and U+FFFF are not XML characters either. */
		if (n == 3 && s[0] == 0xEF && s[1] == 0xBF && (s[2] == 0xBE || s[2] == 0xBF)) {
			fputs_unlocked("\xEF\xBF\xBD", f);
			s += 3;
			continue;
		}
		fwrite_unlocked(s, 1, (size_t)n, f);
		s += n;
	}
}

void sv_json_write_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	putc_unlocked('"', f);
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
			fwrite_unlocked(run, 1, (size_t)(s - run), f);
		unsigned char c = *s;
		if (!c)
			break;
		if (c == '"' || c == '\\') {
			putc_unlocked('\\', f);
			putc_unlocked(c, f);
		} else if (c >= 0x80) { /* not UTF-8 */
			fputs_unlocked("\\ufffd", f);
		} else {
			switch (c) {
			case '\n': fputs_unlocked("\\n", f); break;
			case '\t': fputs_unlocked("\\t", f); break;
			case '\r': fputs_unlocked("\\r", f); break;
			default: fprintf(f, "\\u%04x", c);
			}
		}
		s++;
	}
	putc_unlocked('"', f);
}

int sv_write_check(FILE *f, sv_error *err)
{
	return ferror(f) ? sv_error_set(err, SV_EIO, "writing failed") : 0;
}
