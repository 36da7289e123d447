/* SPDX-License-Identifier: MIT */
/* Internals of the ETL importer shared with its tests and fuzz targets (formats/ only). */
#ifndef STACKVIEW_FORMATS_ETL_INT_H
#define STACKVIEW_FORMATS_ETL_INT_H

#include <stddef.h>

/* [MS-XCA] Plain LZ77: decompress `in` into exactly `outlen` bytes of `out`. 0 on success;
 * -1 when the input is corrupt or too short, with *bad_at the input offset where it failed.
 * Never reads or writes out of bounds. */
int sv_xpress_decompress(const unsigned char *in, size_t inlen, unsigned char *out, size_t outlen,
			 size_t *bad_at);

#endif
