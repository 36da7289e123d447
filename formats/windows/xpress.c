/* SPDX-License-Identifier: MIT */
/* [MS-XCA] "Plain LZ77" decompression (etl.md §3.3): the per-buffer compression of merged
 * and relogged ETL files. Every read and write is bounds-checked: the output length is known
 * from the buffer header, and anything that would read past the input or write past the
 * output is corruption. */
#include <stdint.h>
#include <string.h>

#include "etl_int.h"

int sv_xpress_decompress(const unsigned char *in, size_t inlen, unsigned char *out, size_t outlen,
			 size_t *bad_at)
{
	size_t ip = 0, op = 0, half = 0; /* half: position of a shared length nibble, 0 = none */
	uint32_t flags = 0;
	int nflags = 0;
	for (;;) {
		if (op == outlen) /* whatever follows (the end marker, padding) is not needed */
			return 0;
		if (nflags == 0) {
			if (ip + 4 > inlen)
				goto corrupt;
			flags = rd32(in + ip);
			ip += 4;
			nflags = 32;
		}
		nflags--;
		if (!(flags & (1u << nflags))) {
			if (ip >= inlen)
				goto corrupt;
			out[op++] = in[ip++];
			continue;
		}
		if (ip + 2 > inlen) /* also the end marker, which came too early */
			goto corrupt;
		size_t tok = (size_t)in[ip] | (size_t)in[ip + 1] << 8;
		ip += 2;
		size_t len = tok & 7, off = (tok >> 3) + 1;
		if (len == 7) {
			if (half == 0) {
				if (ip >= inlen)
					goto corrupt;
				len = in[ip] & 15u;
				half = ip++;
			} else {
				len = in[half] >> 4;
				half = 0;
			}
			if (len == 15) {
				if (ip >= inlen)
					goto corrupt;
				len = in[ip++];
				if (len == 255) {
					if (ip + 2 > inlen)
						goto corrupt;
					len = (size_t)in[ip] | (size_t)in[ip + 1] << 8;
					ip += 2;
					if (len == 0) {
						if (ip + 4 > inlen)
							goto corrupt;
						len = rd32(in + ip);
						ip += 4;
					}
					if (len < 15 + 7)
						goto corrupt;
					len -= 15 + 7;
				}
				len += 15;
			}
			len += 7;
		}
		len += 3;
		if (off > op || len > outlen - op)
			goto corrupt;
		unsigned char *d = out + op;
		const unsigned char *s = d - off;
		if (off >= len)
			memcpy(d, s, len);
		else
			for (size_t i = 0; i < len; i++) /* overlapping: repeats the last `off` bytes */
				d[i] = s[i];
		op += len;
	}
corrupt:
	*bad_at = ip;
	return SV_EFORMAT;
}
