/* SPDX-License-Identifier: MIT */
/* A library whose serialize() costs more in the "heavy" build. */
#include <stdint.h>
static volatile uint64_t sink;
__attribute__((noinline)) static uint64_t spin(uint64_t n)
{
	uint64_t x = 1;
	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005ULL + i;
	return x;
}
__attribute__((noinline)) void parse(void) { sink += spin(200000); }
__attribute__((noinline)) void serialize(void)
{
#ifdef HEAVY
	sink += spin(300000);
#else
	sink += spin(200000);
#endif
}
__attribute__((noinline)) void checksum(void) { sink += spin(100000); }
