/* SPDX-License-Identifier: MIT */
/* [MS-XCA] "Plain LZ77" decompression (etl.md §3.3): the per-buffer compression of merged
 * and relogged ETL files. Every read and write is bounds-checked: the output length is known
 * from the buffer header, and anything that would read past the input or write past the
 * output is corruption. */
#include <stdint.h>
#include <string.h>

#include "etl_int.h"

/* n bytes from s to d in 8-byte words, which may write up to 7 bytes past d + n (the
 * caller has that room); with s before d by 8 or more, a word reads only bytes already in
 * place, so overlapping copies repeat as the format means. */
static inline void copy_words(unsigned char *d, const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		memcpy(d + i, &w, 8);
	}
}

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
		/* the literals before the next match (a set flag bit), copied together: as many as
		 * the output has room for and the input holds, the first limit met deciding */
		uint32_t rest = nflags == 32 ? flags : flags & ((1u << nflags) - 1);
		size_t lits = rest ? (size_t)(nflags - 32 + __builtin_clz(rest)) : (size_t)nflags;
		if (lits) {
			size_t n = lits, room = outlen - op, avail = inlen - ip;
			n = n < room ? n : room;
			n = n < avail ? n : avail;
			if (n + 8 <= room && n + 8 <= avail)
				copy_words(out + op, in + ip, n);
			else
				memcpy(out + op, in + ip, n);
			op += n, ip += n;
			if (n < lits) {
				if (op == outlen)
					return 0;
				goto corrupt; /* the input ended */
			}
			nflags -= (int)lits;
			if (nflags == 0)
				continue;
			if (op == outlen)
				return 0;
		}
		nflags--;
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
		if (off >= 8 && len + 8 <= outlen - op)
			copy_words(d, s, len);
		else if (off == 1)
			memset(d, s[0], len);
		else if (off >= len)
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
