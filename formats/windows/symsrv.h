/* SPDX-License-Identifier: MIT */
/* Symbol servers (issue 17): a PDB downloaded from a symbol store over HTTP(S) into a local
 * cache in the same layout (CACHE/name.pdb/KEY/name.pdb), the compressed name.pd_ expanded
 * when the server has only that. Bounded (4 GiB), with connect, stall and
 * total timeouts (core/net.h).
 *
 * Ownership: no state; the caller's buffers. */
#ifndef STACKVIEW_FORMATS_SYMSRV_H
#define STACKVIEW_FORMATS_SYMSRV_H

#include <stddef.h>

#include "core/net.h"

/* Fetch name (e.g. "ntdll.pdb") with key (GUID and age) from url into cache, within what net
 * allows; on success *path (cap bytes) is the cached file, checked to be a PDB (MSF 7.00) or
 * an image (MZ): 0. 1 when the server has neither form (404); -2 when the user stopped it
 * (net->stopped); -1 on any other failure (a name from the trace that is not one file's
 * name, a timeout, a status, an answer that is no PDB); *why (wcap bytes) says which URL gave
 * what. A failure leaves neither a temporary nor a directory it made. */
int sv_symsrv_fetch(sv_net *net, const char *url, const char *cache, const char *name, const char *key, char *path,
		    size_t cap, char *why, size_t wcap);

/* Whether a name from a trace names one file (no separator, no "." or "..", no control
 * character, at most 255 bytes): only such a name may become part of a path. */
bool sv_symsrv_safe_name(const char *s);

/* Expand the one file of the cabinet at cab (a .pd_) into out: 0, or -1 with *why. */
int sv_symsrv_expand(const char *cab, const char *out, char *why, size_t wcap);

#endif
