/* SPDX-License-Identifier: MIT */
/* A range of a mapped input copied for random reads (stackview/input.h, sv_input_copy_range):
 * byte for byte the file's, the file's pages it read let go of (resident memory does not grow
 * by the copy), the input's own bytes still the file's when read again; a small range, a
 * range past the end and an input not mapped give no copy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stackview/formats.h"
#include "unit.h"

#define TOTAL (12u << 20)

static unsigned char byte_at(size_t i)
{
	return (unsigned char)(i * 2654435761u >> 13);
}

/* A file of TOTAL known bytes, read (mapped) as an input; its name in path. */
static void mapped_input(sv_input *in, char path[32])
{
	strcpy(path, "/tmp/sv-copy-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	unsigned char *p = malloc(TOTAL);
	assert_non_null(p);
	for (size_t i = 0; i < TOTAL; i++)
		p[i] = byte_at(i);
	assert_int_equal(write(fd, p, TOTAL), (ssize_t)TOTAL);
	close(fd);
	free(p);
	sv_error err;
	assert_int_equal(sv_input_read(in, path, &err), 0);
	assert_true(in->mapped);
}

/* Resident pages of this process, in kB. */
static long resident_kb(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long size = 0, pages = 0;
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%ld %ld", &size, &pages), 2);
	fclose(f);
	return pages * (sysconf(_SC_PAGESIZE) / 1024);
}

static void test_copy_is_the_files(void **state)
{
	(void)state;
	char path[32];
	sv_input in;
	mapped_input(&in, path);
	/* every page of the input read, as a reader reads the file before its walk */
	for (size_t i = 0; i < TOTAL; i += 512)
		(void)*(volatile unsigned char *)&in.data[i];
	long before = resident_kb();
	size_t off = 4097, len = TOTAL - off - 3;
	unsigned char *copy = sv_input_copy_range(&in, off, len);
	assert_non_null(copy);
	for (size_t i = 0; i < len; i++)
		if (copy[i] != byte_at(off + i))
			fail_msg("copy differs at %zu", i);
	/* the copy took the place of the file's pages: not 12 MB more */
	long after = resident_kb();
	if (after - before > (long)(TOTAL / 1024 / 4))
		fail_msg("resident memory grew by %ld kB for a %u kB copy", after - before, TOTAL / 1024);
	/* the input's own bytes, read again (from the page cache), are still the file's */
	for (size_t i = 0; i < TOTAL; i++)
		if (in.data[i] != byte_at(i))
			fail_msg("the input differs at %zu after the copy", i);
	sv_input_copy_free(copy, len);
	sv_input_dispose(&in);
	unlink(path);
}

static void test_no_copy(void **state)
{
	(void)state;
	char path[32];
	sv_input in;
	mapped_input(&in, path);
	assert_null(sv_input_copy_range(&in, 0, 1u << 20)); /* small: read in place */
	assert_null(sv_input_copy_range(&in, 4096, TOTAL)); /* past the end */
	in.mapped = false; /* memory the input owns (read or inflated): read in place */
	assert_null(sv_input_copy_range(&in, 0, TOTAL));
	in.mapped = true;
	sv_input_dispose(&in);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_copy_is_the_files), cmocka_unit_test(test_no_copy) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
