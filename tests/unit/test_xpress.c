/* SPDX-License-Identifier: MIT */
/* The [MS-XCA] Plain LZ77 decompressor of ETL buffers: literals, overlapping matches, every
 * length encoding (3-bit, shared nibble, byte, u16, u32), and corrupt input; streams an
 * encoder here writes at random, whole, cut short and with bytes changed, against what a
 * byte-at-a-time reading of the format gives. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "windows/etl_int.h"
#include "unit.h"

static int run(const unsigned char *in, size_t inlen, unsigned char *out, size_t outlen)
{
	size_t bad = 0;
	return sv_xpress_decompress(in, inlen, out, outlen, &bad);
}

static void test_literals_and_matches(void **state)
{
	(void)state;
	unsigned char out[64];
	/* three literals, then a match flag with no input left: the end */
	static const unsigned char lit[] = { 0, 0, 0, 0x10, 'a', 'b', 'c' };
	assert_int_equal(run(lit, sizeof(lit), out, 3), 0);
	assert_memory_equal(out, "abc", 3);
	/* "ab" then offset 2, length 6: an overlapping copy */
	static const unsigned char ov[] = { 0, 0, 0, 0x20, 'a', 'b', 0x0B, 0x00 };
	assert_int_equal(run(ov, sizeof(ov), out, 8), 0);
	assert_memory_equal(out, "abababab", 8);
}

static void test_lengths(void **state)
{
	(void)state;
	unsigned char out[1100], want[1100];
	memset(want, 'x', sizeof(want));
	/* length 15 from the low nibble of 0x35, then 13 from its high nibble */
	static const unsigned char nib[] = { 0, 0, 0, 0x60, 'x', 0x07, 0x00, 0x35, 0x07, 0x00 };
	assert_int_equal(run(nib, sizeof(nib), out, 29), 0);
	assert_memory_equal(out, want, 29);
	/* nibble 15, then a byte: 16 + 15 + 7 + 3 = 41 */
	static const unsigned char byte[] = { 0, 0, 0, 0x40, 'x', 0x07, 0x00, 0x0F, 0x10 };
	assert_int_equal(run(byte, sizeof(byte), out, 42), 0);
	assert_memory_equal(out, want, 42);
	/* byte 255, then a u16: 300 - 22 + 25 = 303 */
	static const unsigned char u16[] = { 0, 0, 0, 0x40, 'x', 0x07, 0x00, 0x0F, 0xFF, 0x2C, 0x01 };
	assert_int_equal(run(u16, sizeof(u16), out, 304), 0);
	assert_memory_equal(out, want, 304);
	/* u16 0, then a u32: 1000 - 22 + 25 = 1003 */
	static const unsigned char u32[] = { 0, 0, 0, 0x40, 'x', 0x07, 0x00, 0x0F, 0xFF, 0x00, 0x00, 0xE8, 0x03, 0x00, 0x00 };
	assert_int_equal(run(u32, sizeof(u32), out, 1004), 0);
	assert_memory_equal(out, want, 1004);
}

static void test_corrupt(void **state)
{
	(void)state;
	unsigned char out[64];
	size_t bad = 99;
	/* a match reaching before the start of the output */
	static const unsigned char before[] = { 0, 0, 0, 0x80, 0x20, 0x00 };
	assert_int_equal(sv_xpress_decompress(before, sizeof(before), out, 8, &bad), SV_EFORMAT);
	assert_true(bad <= sizeof(before));
	/* input ends before the output is complete */
	static const unsigned char shortin[] = { 0, 0, 0, 0, 'a' };
	assert_int_equal(run(shortin, sizeof(shortin), out, 3), SV_EFORMAT);
	assert_int_equal(run(shortin, 2, out, 3), SV_EFORMAT);
	/* a match longer than the room left */
	static const unsigned char longm[] = { 0, 0, 0, 0x40, 'x', 0x07, 0x00, 0x0F, 0x10 };
	assert_int_equal(run(longm, sizeof(longm), out, 20), SV_EFORMAT);
	/* a u16 length below its own bias */
	static const unsigned char bias[] = { 0, 0, 0, 0x40, 'x', 0x07, 0x00, 0x0F, 0xFF, 0x05, 0x00 };
	assert_int_equal(run(bias, sizeof(bias), out, 64), SV_EFORMAT);
	/* the end marker before the output is complete */
	static const unsigned char early[] = { 0, 0, 0, 0x10, 'a', 'b', 'c' };
	assert_int_equal(run(early, sizeof(early), out, 5), SV_EFORMAT);
	/* nothing to produce: success without reading */
	assert_int_equal(run(NULL, 0, out, 0), 0);
}

/* The format read one flag bit and one byte at a time, as [MS-XCA] 2.4 describes it. */
static int reference(const unsigned char *in, size_t inlen, unsigned char *out, size_t outlen, size_t *bad)
{
	size_t ip = 0, op = 0, half = 0;
	uint32_t flags = 0;
	int nflags = 0;
	for (;;) {
		if (op == outlen)
			return 0;
		if (nflags == 0) {
			if (ip + 4 > inlen)
				break;
			flags = (uint32_t)in[ip] | (uint32_t)in[ip + 1] << 8 | (uint32_t)in[ip + 2] << 16 | (uint32_t)in[ip + 3] << 24;
			ip += 4, nflags = 32;
		}
		if (!(flags >> --nflags & 1)) {
			if (ip >= inlen)
				break;
			out[op++] = in[ip++];
			continue;
		}
		if (ip + 2 > inlen)
			break;
		size_t tok = in[ip] | (size_t)in[ip + 1] << 8, len = tok & 7, off = (tok >> 3) + 1;
		ip += 2;
		if (len == 7) {
			if (half) {
				len = in[half] >> 4, half = 0;
			} else {
				if (ip >= inlen)
					break;
				len = in[ip] & 15, half = ip++;
			}
			if (len == 15) {
				if (ip >= inlen)
					break;
				len = in[ip++];
				if (len == 255) {
					if (ip + 2 > inlen)
						break;
					len = in[ip] | (size_t)in[ip + 1] << 8, ip += 2;
					if (len == 0) {
						if (ip + 4 > inlen)
							break;
						len = in[ip] | (size_t)in[ip + 1] << 8 | (size_t)in[ip + 2] << 16 | (size_t)in[ip + 3] << 24;
						ip += 4;
					}
					if (len < 22)
						break;
					len -= 22;
				}
				len += 15;
			}
			len += 7;
		}
		len += 3;
		if (off > op || len > outlen - op)
			break;
		for (size_t i = 0; i < len; i++, op++)
			out[op] = out[op - off];
	}
	*bad = ip;
	return SV_EFORMAT;
}

static uint64_t rng = 88172645463325252ULL;
static uint32_t next(void)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

/* A random stream for outlen bytes: literal runs and matches of every length encoding and
 * offset (short ones overlap), flags words written ahead of their 32 items. Its size. */
static size_t encode(unsigned char *in, size_t outlen)
{
	size_t ip = 0, op = 0, flagpos = 0, half = 0;
	int item = 32;
	uint32_t flags = 0;
	while (op < outlen) {
		if (item == 32) {
			if (op) {
				for (int b = 0; b < 4; b++)
					in[flagpos + (size_t)b] = (unsigned char)(flags >> 8 * b);
			}
			flagpos = ip, ip += 4, flags = 0, item = 0;
		}
		size_t room = outlen - op;
		bool match = op > 0 && room >= 3 && next() % 3 != 0;
		if (!match) {
			in[ip++] = (unsigned char)(next() % 4 ? 'a' + next() % 3 : next());
			op++, item++;
			continue;
		}
		flags |= 1u << (31 - item++);
		static const size_t caps[] = { 9, 24, 270, 70000 };
		size_t cap = caps[next() % 4], len = 3 + next() % (cap - 2);
		len = len < room ? len : room;
		size_t maxoff = op < 8192 ? op : 8192, off = next() % 2 ? 1 + next() % (maxoff < 16 ? maxoff : 16)
									  : 1 + next() % maxoff;
		size_t tok = (off - 1) << 3 | (len - 3 < 7 ? len - 3 : 7);
		in[ip++] = (unsigned char)tok, in[ip++] = (unsigned char)(tok >> 8);
		if (len - 3 >= 7) {
			size_t n = len - 10 < 15 ? len - 10 : 15;
			if (half) {
				in[half] |= (unsigned char)(n << 4), half = 0;
			} else {
				half = ip, in[ip++] = (unsigned char)n;
			}
			if (n == 15) {
				if (len - 25 < 255) {
					in[ip++] = (unsigned char)(len - 25);
				} else {
					in[ip++] = 255;
					if (len - 3 <= 0xFFFF) {
						in[ip++] = (unsigned char)(len - 3), in[ip++] = (unsigned char)((len - 3) >> 8);
					} else {
						in[ip++] = 0, in[ip++] = 0;
						for (int b = 0; b < 4; b++)
							in[ip++] = (unsigned char)((len - 3) >> 8 * b);
					}
				}
			}
		}
		op += len;
	}
	for (int b = 0; b < 4; b++)
		in[flagpos + (size_t)b] = (unsigned char)(flags >> 8 * b);
	return ip;
}

static void test_random_streams(void **state)
{
	(void)state;
	enum { MAXOUT = 300000 };
	unsigned char *in = malloc(2 * MAXOUT + 64), *a = malloc(MAXOUT), *b = malloc(MAXOUT);
	assert_true(in && a && b);
	for (int round = 0; round < 300; round++) {
		size_t outlen = round < 100 ? next() % 64 : round < 290 ? next() % 4096 : MAXOUT - next() % 1000;
		size_t inlen = encode(in, outlen);
		size_t bad_a = 0, bad_b = 0;
		assert_int_equal(reference(in, inlen, a, outlen, &bad_a), 0);
		assert_int_equal(sv_xpress_decompress(in, inlen, b, outlen, &bad_b), 0);
		assert_memory_equal(a, b, outlen);
		/* cut short, asked for more than it holds, a byte changed: the same verdict and
		 * offset, and the same bytes when it decodes */
		for (int k = 0; k < 6; k++) {
			size_t il = inlen, ol = outlen;
			unsigned char saved = 0;
			size_t at = inlen ? next() % inlen : 0;
			if (k < 2)
				il = inlen ? next() % inlen : 0;
			else if (k < 4)
				ol = outlen + 1 + next() % 40 < MAXOUT ? outlen + 1 + next() % 40 : outlen;
			else if (inlen)
				saved = in[at], in[at] = (unsigned char)next();
			int ra = reference(in, il, a, ol, &bad_a), rb = sv_xpress_decompress(in, il, b, ol, &bad_b);
			assert_int_equal(ra, rb);
			if (ra)
				assert_int_equal(bad_a, bad_b);
			else
				assert_memory_equal(a, b, ol);
			if (k >= 4 && inlen)
				in[at] = saved;
		}
	}
	free(in), free(a), free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_literals_and_matches), cmocka_unit_test(test_lengths),
					    cmocka_unit_test(test_corrupt), cmocka_unit_test(test_random_streams) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
