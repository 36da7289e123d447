static inline __attribute__((always_inline)) unsigned long mix_step(unsigned long h, unsigned long i)
{
	h ^= i * 0x9E3779B97F4A7C15ul;
	h = (h << 13) | (h >> 51);
	return h * 5 + 0xe6546b64;
}
static inline __attribute__((always_inline)) unsigned long hash_range(unsigned long n)
{
	unsigned long h = 0;
	for (unsigned long i = 0; i < n; i++)
		h = mix_step(h, i);
	return h;
}
