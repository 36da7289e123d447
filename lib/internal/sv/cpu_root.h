/* SPDX-License-Identifier: MIT */
/* --by-cpu (WPA's Cpu column): a stack moved under a "CPU n" root frame, the whole stack
 * re-interned once per (stack, CPU) through the sink's read-back (stack_step). Readers build
 * their stacks as usual and put each sample's through this just before the sink.
 *
 * Ownership: caller storage; sv_cpu_root_dispose frees what it holds. */
#ifndef SV_CPU_ROOT_H
#define SV_CPU_ROOT_H

#include <stddef.h>
#include <stdint.h>

#include "stackview/source.h"
#include "sv/idmap.h"

#define SV_CPU_UNKNOWN UINT32_MAX /* "CPU ?": the input did not record the CPU */

typedef struct sv_cpu_root {
	sv_idmap done;     /* (stack << 16 | cpu slot) -> rooted stack */
	sv_idmap fids;     /* cpu slot -> frame + 1 */
	sv_frame_id *walk; /* a stack's frames, leaf first */
	size_t walk_cap;
} sv_cpu_root;

void sv_cpu_root_init(sv_cpu_root *cr);
void sv_cpu_root_dispose(sv_cpu_root *cr);
/* *out = st with a "CPU n" frame above its root (SV_STACK_NONE: the frame alone). 0,
 * SV_ENOMEM, or the sink's error. */
int sv_cpu_root_apply(sv_cpu_root *cr, sv_sink *sink, uint32_t cpu, sv_stack_id st, sv_stack_id *out);

#endif
