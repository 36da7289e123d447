/* SPDX-License-Identifier: MIT */
/* Fuzz target: unwrapping an input as the loader does (a single-entry zip, gzip, zlib, zstd).
 * The input itself, under a small bound so that bombs reach it: what comes out must be within
 * the bound and NUL-terminated, a failure must say why, nothing may leak. And a round trip:
 * text made of the input (repeated, up to 3 MB: past the output's first growths) compressed
 * here by zlib or zstd must come out byte for byte. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void as_is(const uint8_t *data, size_t size)
{
	sv_input in;
	if (!fuzz_input(&in, data, size))
		return;
	in.data[size] = '\0'; /* as a read input is */
	in.max_bytes = 1 << 20;
	sv_error err;
	sv_error_clear(&err);
	int rc = 0;
	bool tried = true;
	if (sv_input_is_zip(&in))
		rc = sv_input_unzip(&in, &err);
	else if (sv_input_is_compressed(&in))
		rc = sv_input_inflate(&in, &err);
	else
		tried = false;
	if (tried && rc == 0 && (in.len > in.max_bytes || in.data[in.len] != '\0'))
		abort(); /* past the bound, or not terminated */
	if (tried && rc != 0 && !err.msg[0])
		abort(); /* a failure with no word */
	in.name = NULL; /* the harness's, not to be freed */
	sv_input_dispose(&in);
}

static void round_trip(const uint8_t *data, size_t size)
{
	if (size < 2)
		return;
	size_t reps = 1 + (size_t)data[1] * 200, unit = size - 2, n = unit * reps;
	if (!unit || n > (3u << 20))
		return;
	unsigned char *text = malloc(n);
	size_t zcap = data[0] & 2 ? ZSTD_compressBound(n) : compressBound((uLong)n);
	unsigned char *z = malloc(zcap + 1);
	sv_input in;
	memset(&in, 0, sizeof(in));
	if (!text || !z) {
		free(text);
		free(z);
		return;
	}
	for (size_t i = 0; i < reps; i++)
		memcpy(text + i * unit, data + 2, unit);
	size_t zlen = 0;
	if (data[0] & 2) {
		zlen = ZSTD_compress(z, zcap, text, n, 1);
		if (ZSTD_isError(zlen))
			abort();
	} else {
		uLongf zl = (uLongf)zcap;
		if (compress2(z, &zl, text, (uLong)n, 1) != Z_OK)
			abort();
		zlen = zl;
	}
	in.fd = -1;
	in.data = z;
	in.len = zlen;
	in.data[zlen] = '\0';
	/* past the bound on the ratio, refused: SV_ELIMIT */
	unsigned long long limit = zlen * (data[0] & 2 ? SV_MAX_ZSTD_RATIO : SV_MAX_ZIP_RATIO) + (1ULL << 20);
	sv_error err;
	sv_error_clear(&err);
	if (!sv_input_is_compressed(&in))
		abort();
	int rc = sv_input_inflate(&in, &err);
	if (n > limit ? rc != SV_ELIMIT : (rc || in.len != n || memcmp(in.data, text, n) || in.data[n] != '\0'))
		abort(); /* a whole stream that did not come back as it was */
	sv_input_dispose(&in);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size && (data[0] & 1))
		round_trip(data, size);
	else
		as_is(data, size);
	return 0;
}
