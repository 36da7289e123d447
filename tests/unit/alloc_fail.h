/* SPDX-License-Identifier: MIT */
/* For the unit tests that fail allocations in turn: glibc's allocator under the program's own
 * malloc, calloc, realloc, free, strdup and strndup (glibc's own calls its allocator directly),
 * which fail the fail_at-th allocation once armed (counted in nalloc; fail_rest: that one and
 * every one after) and count the blocks not freed (live). Include it once per program, after
 * cmocka. Under AddressSanitizer the sanitizer's malloc stays: nothing fails, and a test
 * begins with ALLOC_FAIL_SKIP() to be skipped there.
 *
 * A test fails each allocation of an operation in turn: alloc_fail_arm(n, rest), the
 * operation, then alloc_fail_disarm(n), true when the operation made fewer than n (every one
 * passed: the last turn). */
#ifndef STACKVIEW_TESTS_ALLOC_FAIL_H
#define STACKVIEW_TESTS_ALLOC_FAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

static long fail_at, nalloc;
static bool fail_rest;
static long live; /* blocks allocated and not freed */

static void alloc_fail_arm(long n, bool rest)
{
	nalloc = 0;
	fail_rest = rest;
	fail_at = n;
}

static bool alloc_fail_disarm(long n)
{
	fail_at = 0;
	return nalloc < n;
}

#if defined(__SANITIZE_ADDRESS__)
#define ALLOC_FAIL_SKIP() skip() /* (this program's malloc would stand in for the sanitizer's) */
#else
#define ALLOC_FAIL_SKIP() ((void)0)

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);

static bool fails(void)
{
	return fail_at && (++nalloc == fail_at || (fail_rest && nalloc > fail_at));
}

static void *counted(void *p)
{
	live += p != NULL;
	return p;
}

void *malloc(size_t n)
{
	return fails() ? NULL : counted(__libc_malloc(n));
}

void *calloc(size_t n, size_t size)
{
	return fails() ? NULL : counted(__libc_calloc(n, size));
}

void *realloc(void *p, size_t n)
{
	if (fails())
		return NULL;
	void *q = __libc_realloc(p, n);
	live += (!p && q) - (p && !n && !q);
	return q;
}

void free(void *p)
{
	live -= p != NULL;
	__libc_free(p);
}

char *strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	return d ? memcpy(d, s, n) : NULL;
}

char *strndup(const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	char *d = malloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = 0;
	}
	return d;
}
#endif /* __SANITIZE_ADDRESS__ */

#endif
