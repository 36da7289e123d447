/* SPDX-License-Identifier: MIT */
/* The CLI's output buffer: listings write tens of millions of short pieces, and stdio's cost
 * per call was a third of such a listing. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

void ob_flush(ob *o)
{
	if (o->n)
		fwrite_unlocked(o->buf, 1, o->n, o->f);
	o->n = 0;
}

void ob_put(ob *o, const char *s, size_t k)
{
	if (o->n + k > sizeof(o->buf)) {
		ob_flush(o);
		if (k > sizeof(o->buf)) {
			fwrite_unlocked(s, 1, k, o->f);
			return;
		}
	}
	memcpy(o->buf + o->n, s, k);
	o->n += k;
}

void ob_puts(ob *o, const char *s)
{
	ob_put(o, s, strlen(s));
}

void ob_putc(ob *o, char c)
{
	if (o->n == sizeof(o->buf))
		ob_flush(o);
	o->buf[o->n++] = c;
}

void ob_int(ob *o, long long i)
{
	char buf[24], *end = buf + sizeof(buf), *p = end;
	unsigned long long u = i < 0 ? 0ULL - (unsigned long long)i : (unsigned long long)i;
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (i < 0)
		*--p = '-';
	ob_put(o, p, (size_t)(end - p));
}
