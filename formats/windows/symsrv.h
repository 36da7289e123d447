/* SPDX-License-Identifier: MIT */
/* Symbol servers (issue 17): a PDB downloaded from a symbol store over HTTP(S) into a local
 * cache in the same layout (CACHE/name.pdb/KEY/name.pdb), the compressed name.pd_ expanded
 * when the server has only that. Bounded (4 GiB), with connect and stall timeouts.
 *
 * Ownership: no state; the caller's buffers. */
#ifndef STACKVIEW_FORMATS_SYMSRV_H
#define STACKVIEW_FORMATS_SYMSRV_H

#include <stddef.h>

/* Fetch name (e.g. "ntdll.pdb") with key (GUID and age) from url into cache; on success
 * *path (cap bytes) is the cached file: 0. 1 when the server has neither form (404), -1 on
 * any other failure; *why (wcap bytes) says what. */
int sv_symsrv_fetch(const char *url, const char *cache, const char *name, const char *key, char *path, size_t cap,
		    char *why, size_t wcap);

/* Expand the one file of the cabinet at cab (a .pd_) into out: 0, or -1 with *why. */
int sv_symsrv_expand(const char *cab, const char *out, char *why, size_t wcap);

#endif
