/* SPDX-License-Identifier: MIT */
/* --by-cpu: stacks under a "CPU n" root frame (cpu_root.h). */
#include "sv/cpu_root.h"

#include <stdio.h>
#include <stdlib.h>

#include "sv/array.h"

void sv_cpu_root_init(sv_cpu_root *cr)
{
	sv_idmap_init(&cr->done);
	sv_idmap_init(&cr->fids);
	cr->walk = NULL;
	cr->walk_cap = 0;
}

void sv_cpu_root_dispose(sv_cpu_root *cr)
{
	sv_idmap_dispose(&cr->done);
	sv_idmap_dispose(&cr->fids);
	free(cr->walk);
}

int sv_cpu_root_apply(sv_cpu_root *cr, sv_sink *sink, uint32_t cpu, sv_stack_id st, sv_stack_id *out)
{
	uint32_t slot = cpu < 0xFFFF ? cpu : 0xFFFF; /* 0xFFFF: unknown (or past 65534) */
	uint64_t key = ((uint64_t)st << 16 | slot) + 1;
	uint32_t v = sv_idmap_get(&cr->done, key);
	if (v != SV_IDMAP_NONE) {
		*out = v;
		return 0;
	}
	uint32_t f = sv_idmap_get(&cr->fids, slot);
	sv_frame_id cf;
	int rc;
	if (f == SV_IDMAP_NONE) {
		char name[24];
		int n = slot == 0xFFFF ? snprintf(name, sizeof(name), "CPU ?") : snprintf(name, sizeof(name), "CPU %u", slot);
		if ((rc = sink->ops->intern_frame(sink->self, &cf, name, (size_t)n)))
			return rc;
		if (sv_idmap_put(&cr->fids, slot, cf + 1))
			return SV_ENOMEM;
	} else {
		cf = f - 1;
	}
	size_t n = 0;
	for (sv_stack_id s = st; s != SV_STACK_NONE && n < SV_MAX_STACK_DEPTH;) {
		sv_frame_id fr;
		sv_stack_id caller;
		if (!sink->ops->stack_step)
			return SV_EUNSUPPORTED;
		if ((rc = sink->ops->stack_step(sink->self, s, &fr, &caller)))
			return rc;
		if (SV_ARRAY_RESERVE(cr->walk, cr->walk_cap, n + 1))
			return SV_ENOMEM;
		cr->walk[n++] = fr;
		s = caller;
	}
	sv_stack_id r;
	if ((rc = sink->ops->intern_stack(sink->self, &r, SV_STACK_NONE, cf)))
		return rc;
	while (n-- > 0)
		if ((rc = sink->ops->intern_stack(sink->self, &r, r, cr->walk[n])))
			return rc;
	if (sv_idmap_put(&cr->done, key, r))
		return SV_ENOMEM;
	*out = r;
	return 0;
}
