/* SPDX-License-Identifier: MIT */
/* What every writer shares: numbers that read back exactly, XML text and JSON strings that
 * are always well formed (invalid UTF-8 and characters XML cannot carry become U+FFFD), and
 * the final write-error check. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
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

/* d's shortest text that reads back to it into buf: its length. */
static size_t num_text(char buf[SV_NUMBER_TEXT], double d)
{
	char t[SV_NUMBER_TEXT], *end = t + sizeof(t), *p = end;
	if (d == 0)
		d = 0;
	double a = fabs(d);
	if (d == trunc(d) && a < 1e15) {
		p = decimal(end, (unsigned long long)a);
		if (d < 0)
			*--p = '-';
		memcpy(buf, p, (size_t)(end - p));
		return (size_t)(end - p);
	}
	/* A value of whole millionths (times in ms from nanoseconds), 1e-4 <= |d| < 1e9: its
	 * decimal digits, at most 15 significant, are what %.15g prints and read back to it. */
	if (a >= 1e-4 && a < 1e9) {
		double m = a * 1e6;
		unsigned long long k = (unsigned long long)(m + 0.5);
		if ((double)k / 1e6 == a) {
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
			memcpy(buf, p, (size_t)(end - p));
			return (size_t)(end - p);
		}
	}
	int n = 0;
	for (int prec = 15; prec <= 17; prec++) {
		n = snprintf(buf, SV_NUMBER_TEXT, "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	return (size_t)n;
}

size_t sv_json_number_text(char buf[SV_NUMBER_TEXT], double d)
{
	if (isfinite(d))
		return num_text(buf, d);
	memcpy(buf, "null", 4);
	return 4;
}

void sv_write_num(FILE *f, double d)
{
	char buf[SV_NUMBER_TEXT];
	fwrite_unlocked(buf, 1, num_text(buf, d), f);
}

void sv_json_write_number(FILE *f, double d)
{
	char buf[SV_NUMBER_TEXT];
	fwrite_unlocked(buf, 1, sv_json_number_text(buf, d), f);
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

/* Whether any of the 8 bytes in x needs a look: a control character, the quote, the
 * backslash, DEL or a byte of a multi-byte character. */
static bool word_special(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
	uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');
	uint64_t lt20 = (x - ones * 0x20) & ~x;
	uint64_t zq = (q - ones) & ~q, zb = (b - ones) & ~b;
	return ((lt20 | zq | zb | x | (x + ones)) & high) != 0;
}

size_t sv_json_plain_len(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str, *e = s + len;
	while (e - s >= 8) { /* eight bytes at a time while all are printable ASCII */
		uint64_t x;
		memcpy(&x, s, 8);
		if (word_special(x))
			break;
		s += 8;
	}
	while (s < e) {
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
	return (size_t)(s - (const unsigned char *)str);
}

size_t sv_json_escape(const char *s, char out[8])
{
	unsigned char c = (unsigned char)*s;
	const char *e;
	switch (c) {
	case '"': e = "\\\""; break;
	case '\\': e = "\\\\"; break;
	case '\n': e = "\\n"; break;
	case '\t': e = "\\t"; break;
	case '\r': e = "\\r"; break;
	default:
		if (c >= 0x80) { /* not UTF-8 */
			e = "\\ufffd";
			break;
		}
		return (size_t)snprintf(out, 8, "\\u%04x", c);
	}
	size_t n = strlen(e);
	memcpy(out, e, n + 1);
	return n;
}

void sv_json_write_string(FILE *f, const char *s)
{
	putc_unlocked('"', f);
	for (size_t left = strlen(s);;) {
		/* a run of bytes written as they are goes out in one write */
		size_t n = sv_json_plain_len(s, left);
		if (n)
			fwrite_unlocked(s, 1, n, f);
		s += n, left -= n;
		if (!left)
			break;
		char esc[8];
		fwrite_unlocked(esc, 1, sv_json_escape(s, esc), f);
		s++, left--;
	}
	putc_unlocked('"', f);
}

int sv_write_check(FILE *f, sv_error *err)
{
	return ferror(f) ? sv_error_set(err, SV_EIO, "writing failed") : 0;
}
