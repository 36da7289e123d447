/* Freestanding AArch64 code for the disassembler's test (no libc): loops, branches, a call,
 * floating point. */
static double work[512];

__attribute__((noinline)) double mix(int n)
{
	double s = 0;
	for (int i = 0; i < n; i++) {
		double x = work[i & 511];
		if (i % 3 == 0)
			s += __builtin_sqrt(x + i);
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

void _start(void)
{
	for (int i = 0; i < 512; i++)
		work[i] = i * 0.5;
	volatile double t = mix(1000);
	volatile long b = count_bits(1000);
	(void)t;
	(void)b;
	for (;;)
		;
}
