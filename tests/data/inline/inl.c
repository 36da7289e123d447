/* Call sites inside three levels of inlined functions, for the perf.data reader's inline
 * frames (issue 36 point 4): spin() is called from lvl3, inlined into lvl2, into lvl1, into
 * outer(); the samples in spin() have all three inline levels above them, as perf shows. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) double spin(double x, int n)
{
	for (int i = 0; i < n; i++)
		x = x * 1.0000001 + 0.5;
	return x;
}

static inline __attribute__((always_inline)) double lvl3(double x, int n)
{
	return spin(x, n) + spin(x * 2, n / 2);
}

static inline __attribute__((always_inline)) double lvl2(double x, int n)
{
	double s = 0;
	for (int i = 0; i < n / 1000; i++)
		s += x * i;
	return lvl3(x, n) + s;
}

static inline __attribute__((always_inline)) double lvl1(double x, int n)
{
	return lvl2(x, n) * 0.5;
}

__attribute__((noinline)) double outer(double x, int n)
{
	return lvl1(x, n) + lvl3(x, n / 4);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 100;
	double t = 0;
	for (int r = 0; r < rounds; r++)
		t += outer(r, 200000);
	printf("%f\n", t);
	return 0;
}
