/* SPDX-License-Identifier: MIT */
/* Copying stacks between sources (see sv/copier.h). */
#include "sv/copier.h"

#include <stdlib.h>
#include <string.h>

int sv_copier_init(sv_copier *c, const sv_source *from, sv_source *to)
{
	uint32_t nf = sv_source_frame_count(from), ns = sv_source_stack_count(from);
	c->from = from;
	c->to = to;
	c->rename = NULL;
	c->frame_map = malloc(((size_t)nf + 1) * sizeof(uint32_t));
	c->stack_map = malloc(((size_t)ns + 1) * sizeof(uint32_t));
	c->chain = malloc(((size_t)ns + 1) * sizeof(uint32_t));
	if (!c->frame_map || !c->stack_map || !c->chain)
		return SV_ENOMEM;
	memset(c->frame_map, 0xff, ((size_t)nf + 1) * sizeof(uint32_t));
	memset(c->stack_map, 0xff, ((size_t)ns + 1) * sizeof(uint32_t));
	return 0;
}

void sv_copier_dispose(sv_copier *c)
{
	free(c->frame_map);
	free(c->stack_map);
	free(c->chain);
	c->frame_map = c->stack_map = c->chain = NULL;
}

static int copy_frame(sv_copier *c, sv_frame_id *out, sv_frame_id f)
{
	if (c->frame_map[f] == UINT32_MAX) {
		const char *name = c->rename && c->rename[f] ? c->rename[f] : sv_source_frame_name(c->from, f);
		int rc = sv_source_intern_frame(c->to, &c->frame_map[f], name, strlen(name));
		if (rc)
			return rc;
	}
	*out = c->frame_map[f];
	return 0;
}

int sv_copier_stack(sv_copier *c, sv_stack_id *out, sv_stack_id s)
{
	if (s == SV_STACK_NONE) {
		*out = SV_STACK_NONE;
		return 0;
	}
	size_t n = 0;
	sv_stack_id x = s;
	while (x != SV_STACK_NONE && c->stack_map[x] == UINT32_MAX) {
		c->chain[n++] = x;
		x = sv_source_stack_caller(c->from, x);
	}
	sv_stack_id to = x == SV_STACK_NONE ? SV_STACK_NONE : c->stack_map[x];
	while (n) {
		sv_stack_id y = c->chain[--n];
		sv_frame_id f;
		int rc = copy_frame(c, &f, sv_source_stack_frame(c->from, y));
		if (!rc)
			rc = sv_source_intern_stack(c->to, &to, to, f);
		if (rc)
			return rc;
		c->stack_map[y] = to;
	}
	*out = to;
	return 0;
}
