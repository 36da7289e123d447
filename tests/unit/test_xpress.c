/* SPDX-License-Identifier: MIT */
/* The [MS-XCA] Plain LZ77 decompressor of ETL buffers: literals, overlapping matches, every
 * length encoding (3-bit, shared nibble, byte, u16, u32), and corrupt input. */
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

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_literals_and_matches), cmocka_unit_test(test_lengths),
					    cmocka_unit_test(test_corrupt) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
