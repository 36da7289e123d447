#include <stdio.h>
#include <stdlib.h>
#include <math.h>
static double work[4096];
__attribute__((noinline)) double mix(int n)
{
	double s = 0;
	for (int i = 0; i < n; i++) {
		double x = work[i & 4095];
		if (i % 3 == 0)
			s += sqrt(x + i);
		else if (i % 3 == 1)
			s += x * 1.0001;
		else
			s -= x / 3.0;
	}
	return s;
}
__attribute__((noinline)) long count_bits(long n)
{
	long c = 0;
	for (long i = 0; i < n; i++)
		c += __builtin_popcountl(i * 2654435761u);
	return c;
}
int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 200;
	for (int i = 0; i < 4096; i++)
		work[i] = i * 0.5;
	double t = 0;
	long b = 0;
	for (int r = 0; r < rounds; r++) {
		t += mix(100000);
		b += count_bits(50000);
	}
	printf("%f %ld\n", t, b);
	return 0;
}
