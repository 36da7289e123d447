/* SPDX-License-Identifier: MIT */
/* Fuzz target: unwrapping an input as the loader does (a single-entry zip, gzip, zlib, zstd)
 * under a small bound, so that bombs reach it. What comes out must be the input's data, NUL
 * after its last byte, within the bound; a failure must say why; nothing may leak. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sv_input in;
	if (!fuzz_input(&in, data, size))
		return 0;
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
	if (in.data && in.len) /* read every byte handed over */
		for (volatile size_t i = 0; i < in.len; i += 4093)
			(void)in.data[i];
	in.name = NULL; /* the harness's, not to be freed */
	sv_input_dispose(&in);
	return 0;
}
