/* SPDX-License-Identifier: MIT */
/* Side files a recording names (perf-PID.map, kallsyms, build-id cache entries, debug
 * files): untrusted paths, opened without blocking and only when they are regular files of
 * bounded size, so a FIFO, /dev/zero or a link to a device cannot hang or exhaust a load. */
#ifndef SV_SIDE_FILE_H
#define SV_SIDE_FILE_H

#include <stdbool.h>

/* Bounds per kind of side file (docs/guide.md "Limits"). */
#define SV_MAX_SIDE_TEXT (1ULL << 30) /* perf-PID.map, kallsyms (also what a .gz one inflates to) */
#define SV_MAX_SIDE_ELF (4ULL << 30)  /* executables, libraries, debug files */

/* A descriptor (blocking again, close-on-exec) for `path` when it is a regular file of at
 * most `max` bytes, else -1 (errno: ENOENT, EISDIR for anything not regular, EFBIG). */
int sv_side_open(const char *path, unsigned long long max);
/* Whether `path` is absent or a regular file: a search may try it. */
bool sv_side_may_open(const char *path);

#endif
