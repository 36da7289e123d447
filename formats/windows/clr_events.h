/* SPDX-License-Identifier: MIT */
/* The .NET runtime's event payloads (clr_events.c), shared by the ETL and .nettrace
 * listings: neither file describes them. formats/ only. */
#ifndef STACKVIEW_FORMATS_CLR_EVENTS_H
#define STACKVIEW_FORMATS_CLR_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One decoded field: name and value text, borrowed for the call. */
typedef void (*sv_clr_field_fn)(void *payload, const char *name, const char *value);

/* Is there a template for this kind ("Microsoft-Windows-DotNETRuntime/GC/Start")? */
bool sv_clr_has_template(const char *kind);
/* Decode p[0..n) by the kind's template (pointers of `ptr` bytes), each field to fn, while
 * the payload lasts; returns the number of fields (0: no template). */
size_t sv_clr_decode(const char *kind, const unsigned char *p, size_t n, unsigned ptr, sv_clr_field_fn fn,
		     void *payload);

/* A disk I/O's IrpFlags word as TraceEvent shows it: the flags by name (C#'s [Flags] text)
 * and the I/O priority in its bits 17-19 (Verylow, Low, ...). */
void sv_clr_irp_text(uint32_t raw, char *flags, size_t fcap, char *prio, size_t pcap);

#endif
