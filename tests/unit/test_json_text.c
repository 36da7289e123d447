/* SPDX-License-Identifier: MIT */
/* The JSON text every writer shares (formats/core/escape.c): strings, whose plain runs are
 * found eight bytes at a time, checked against a byte-at-a-time reference on strings with
 * every kind of byte at every place in a word; numbers, the buffer text and the stream's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackview/save.h"
#include "sv/utf8.h"
#include "unit.h"

/* What a JSON string literal of s is, one byte at a time as the definition says. */
static size_t reference(const char *str, char *out)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t o = 0;
	out[o++] = '"';
	while (*s) {
		unsigned char c = *s;
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			out[o++] = (char)c, s++;
		} else if (c >= 0x80 && sv_utf8_len(s) > 0) {
			int n = sv_utf8_len(s);
			memcpy(out + o, s, (size_t)n), o += (size_t)n, s += n;
		} else {
			const char *e = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n" : c == '\t' ? "\\t"
				     : c == '\r' ? "\\r" : c >= 0x80 ? "\\ufffd" : NULL;
			if (e)
				o += (size_t)sprintf(out + o, "%s", e);
			else
				o += (size_t)sprintf(out + o, "\\u%04x", c);
			s++;
		}
	}
	out[o++] = '"';
	out[o] = '\0';
	return o;
}

static char *written(const char *s, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	assert_non_null(f);
	sv_json_write_string(f, s);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* Each piece (a plain byte, each escaped kind, a 2-, 3- and 4-byte character, a lone
 * continuation byte, a cut sequence) at each of the first 17 places of plain text of every
 * length up to 24: whichever word or tail it falls in, the text equals the reference. */
static void test_strings(void **state)
{
	(void)state;
	static const char *const pieces[] = { "a", "\"", "\\", "\n", "\t", "\r", "\x01", "\x1f", "\x7f", " ", "~",
					      "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\x80", "\xc3", "\xe2\x82",
					      "\xff", "\xef\xbf\xbe" };
	char in[64], ref[512];
	for (size_t p = 0; p < sizeof(pieces) / sizeof(pieces[0]); p++)
		for (size_t len = 0; len <= 24; len++)
			for (size_t at = 0; at <= len && at <= 16; at++) {
				size_t pl = strlen(pieces[p]);
				memset(in, 'x', len);
				memcpy(in + at, pieces[p], pl);
				in[len + pl] = '\0';
				memset(in + at + pl, 'y', len - at);
				size_t rl = reference(in, ref), wl;
				char *w = written(in, &wl);
				assert_int_equal(wl, rl);
				assert_string_equal(w, ref);
				free(w);
				/* the run a buffered writer copies as it is ends where the first escape is */
				size_t plain = sv_json_plain_len(in, strlen(in));
				assert_true(plain <= strlen(in));
				assert_memory_equal(ref + 1, in, plain);
				if (plain < strlen(in)) {
					char esc[8];
					size_t el = sv_json_escape(in + plain, esc);
					assert_int_equal(el, strlen(esc));
					assert_true(el >= 2 && el <= 6);
				}
			}
}

static void test_numbers(void **state)
{
	(void)state;
	static const double v[] = { 0, -0.0, 1, -17, 1e15, 123456.789, 0.000123, 1.0 / 3, 5e-324, 1.7976931348623157e308,
				    NAN, INFINITY, -INFINITY, 2.5e-5, 987654321.5 };
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char buf[SV_NUMBER_TEXT + 1];
		size_t n = sv_json_number_text(buf, v[i]);
		buf[n] = '\0';
		if (!isfinite(v[i])) {
			assert_string_equal(buf, "null");
			continue;
		}
		assert_true(strtod(buf, NULL) == v[i]);
		assert_true(buf[0] != '-' || v[i] < 0); /* no "-0" */
		char *s = NULL;
		size_t sl;
		FILE *f = open_memstream(&s, &sl);
		sv_json_write_number(f, v[i]);
		fclose(f);
		assert_string_equal(s, buf);
		free(s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_strings), cmocka_unit_test(test_numbers) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
