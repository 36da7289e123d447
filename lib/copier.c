/* SPDX-License-Identifier: MIT */
/* Copying stacks between sources (see sv/copier.h). */
#include "sv/copier.h"

#include <stdlib.h>
#include <string.h>

#include "sv/array.h"

int sv_copier_init(sv_copier *c, const sv_source *from, sv_source *to)
{
	uint32_t nf = sv_source_frame_count(from), ns = sv_source_stack_count(from);
	c->from = from;
	c->to = to;
	c->rename = NULL;
	c->path_map = c->file_map = c->pchain = NULL;
	c->pchain_cap = 0;
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
	free(c->path_map);
	free(c->file_map);
	free(c->pchain);
	c->frame_map = c->stack_map = c->chain = c->path_map = c->file_map = c->pchain = NULL;
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

static int copy_location(sv_copier *c, uint32_t *out, uint32_t loc)
{
	sv_location x = sv_source_location(c->from, loc);
	sv_frame_id f;
	uint32_t file = SV_LOC_NONE;
	int rc = copy_frame(c, &f, x.frame);
	if (!rc && x.file != SV_LOC_NONE) {
		if (c->file_map[x.file] == UINT32_MAX)
			rc = sv_source_intern_code_file(c->to, &c->file_map[x.file], sv_source_code_file(c->from, x.file));
		file = c->file_map[x.file];
	}
	if (!rc)
		rc = sv_source_intern_location(c->to, out, f, file, x.addr);
	const char *sf;
	uint32_t line = rc ? 0 : sv_source_location_line(c->from, loc, &sf);
	return rc || !line ? rc : sv_source_set_location_line(c->to, *out, sf, line);
}

int sv_copier_code_path(sv_copier *c, uint32_t *out, uint32_t path)
{
	uint32_t np = sv_source_code_path_count(c->from), nfl = sv_source_code_file_count(c->from);
	*out = SV_LOC_NONE;
	if (path == SV_LOC_NONE || path >= np)
		return 0;
	if (!c->path_map) {
		c->path_map = malloc((size_t)np * sizeof(uint32_t));
		c->file_map = malloc(((size_t)nfl + 1) * sizeof(uint32_t));
		if (!c->path_map || !c->file_map)
			return SV_ENOMEM;
		memset(c->path_map, 0xff, (size_t)np * sizeof(uint32_t));
		memset(c->file_map, 0xff, ((size_t)nfl + 1) * sizeof(uint32_t));
	}
	/* the path's uncopied tail, then copied from the outermost of it, as stacks are */
	const uint32_t *caller = sv_source_code_path_callers(c->from), *loc = sv_source_code_path_locs(c->from);
	size_t n = 0;
	uint32_t x = path;
	while (x != SV_LOC_NONE && c->path_map[x] == UINT32_MAX) {
		if (SV_ARRAY_RESERVE(c->pchain, c->pchain_cap, n + 1))
			return SV_ENOMEM;
		c->pchain[n++] = x;
		x = caller[x];
	}
	uint32_t to = x == SV_LOC_NONE ? SV_LOC_NONE : c->path_map[x];
	while (n) {
		uint32_t y = c->pchain[--n], l;
		int rc = copy_location(c, &l, loc[y]);
		if (!rc)
			rc = sv_source_intern_code_path(c->to, &to, to, l);
		if (rc)
			return rc;
		c->path_map[y] = to;
	}
	*out = to;
	return 0;
}

int sv_copier_sample(sv_copier *c, size_t i, sv_stack_id stack, double time, double metric, double count)
{
	const uint32_t *paths = sv_source_sample_code_paths(c->from);
	uint32_t p = SV_LOC_NONE;
	int rc = paths ? sv_copier_code_path(c, &p, paths[i]) : 0;
	return rc ? rc : sv_source_add_sample_at(c->to, stack, time, metric, count, p);
}
