/* SPDX-License-Identifier: MIT */
/* What fresh memory costs on this machine, for reading the other figures: MB of anonymous
 * memory (huge pages advised, as the engine's big tables are) touched once, let go, and
 * touched again at once. On a virtual machine whose host backs the guest's memory only when
 * first touched (and takes back what the guest frees, seconds later), the first touch is
 * many times the second: every figure that allocates pays it.
 * usage: memtouch [MB] */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ms to touch n bytes of fresh memory, a byte a page; -1 when none could be mapped */
static double touch(size_t n)
{
	const size_t huge = (size_t)2 << 20;
	char *p = mmap(NULL, n + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	char *a = (char *)(((size_t)p + huge - 1) & ~(huge - 1));
	(void)madvise(a, n, MADV_HUGEPAGE);
	double t0 = now_ms();
	for (size_t i = 0; i < n; i += 4096)
		a[i] = 1;
	double ms = now_ms() - t0;
	munmap(p, n + huge);
	return ms;
}

int main(int argc, char **argv)
{
	size_t mb = argc > 1 ? (size_t)atol(argv[1]) : 1024;
	double first = touch(mb << 20), again = touch(mb << 20);
	if (first < 0 || again < 0) {
		fprintf(stderr, "memtouch: cannot map %zu MB\n", mb);
		return 1;
	}
	printf("fresh memory here: %zu MB touched in %.0f ms (%.2f GB/s), again at once in %.0f ms (%.2f GB/s)\n", mb,
	       first, (double)mb / 1024 / (first / 1000), again, (double)mb / 1024 / (again / 1000));
	return 0;
}
