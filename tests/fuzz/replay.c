/* SPDX-License-Identifier: MIT */
/* Replays fuzz corpus files through a target without libFuzzer, so `make test` runs every
 * corpus input (under ASan/UBSan in the sanitizer build). usage: replay FILE... */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			fprintf(stderr, "replay: cannot open %s\n", argv[i]);
			return 2;
		}
		size_t cap = 4096, len = 0, n;
		uint8_t *buf = malloc(cap);
		while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
			len += n;
			if (len == cap) {
				uint8_t *nb = realloc(buf, cap *= 2);
				if (!nb) {
					free(buf);
					buf = NULL;
				}
				buf = nb;
			}
		}
		fclose(f);
		if (!buf)
			return 2;
		LLVMFuzzerTestOneInput(buf, len);
		free(buf);
	}
	return 0;
}
