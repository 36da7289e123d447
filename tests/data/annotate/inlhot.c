#include <stdio.h>
#include <stdlib.h>
#include "loop.h"
__attribute__((noinline)) unsigned long work(unsigned long n)
{
	unsigned long a = hash_range(n);
	unsigned long b = 0;
	for (unsigned long i = 0; i < n / 4; i++)
		b += i % 7;
	return a ^ b;
}
int main(int argc, char **argv)
{
	unsigned long r = 0, rounds = argc > 1 ? strtoul(argv[1], 0, 10) : 100;
	for (unsigned long k = 0; k < rounds; k++)
		r += work(1000000 + k);
	printf("%lu\n", r);
	return 0;
}
