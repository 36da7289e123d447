/* SPDX-License-Identifier: MIT */
/* Code locations (stackview/source.h): the code files and addresses where samples' leaves
 * executed, kept beside the frames (a frame stays one frame however many addresses it has),
 * and each sample's location. */
#include "stackview/source.h"

#include <stdlib.h>
#include <string.h>

#include "source_int.h"
#include "sv/array.h"
#include "sv/idmap.h"

int sv_source_intern_code_file(sv_source *src, uint32_t *out, const char *path)
{
	return sv_strtab_intern(&src->code_files, out, path, strlen(path));
}

int sv_source_set_code_symbols(sv_source *src, uint32_t file, const char *path)
{
	if (file >= src->code_files.count)
		return SV_EINVAL;
	uint32_t id;
	size_t had = src->code_syms_cap;
	if (SV_ARRAY_RESERVE(src->code_syms, src->code_syms_cap, (size_t)src->code_files.count))
		return SV_ENOMEM;
	memset(src->code_syms + had, 0, (src->code_syms_cap - had) * sizeof(*src->code_syms));
	if (sv_strtab_intern(&src->src_files, &id, path, strlen(path)))
		return SV_ENOMEM;
	src->code_syms[file] = id + 1;
	return 0;
}

const char *sv_source_code_file_symbols(const sv_source *src, uint32_t file)
{
	return file < src->code_files.count && file < src->code_syms_cap && src->code_syms[file]
		       ? sv_strtab_str(&src->src_files, src->code_syms[file] - 1)
		       : NULL;
}

static uint64_t loc_key(sv_frame_id frame, uint32_t file, uint64_t addr)
{
	return sv_hash_mix64(addr ^ sv_hash_mix64(((uint64_t)frame << 32 | file) + 0x9E3779B97F4A7C15ULL));
}

/* Location id's key: the first of its chain no earlier location holds (as interning met it). */
static int loc_put(sv_source *src, uint32_t id)
{
	const sv_location *l = &src->locs[id];
	for (uint64_t k = loc_key(l->frame, l->file, l->addr);; k = sv_hash_mix64(k + 1)) {
		uint32_t got;
		int rc = sv_idmap_get_or_put(&src->loc_index, k, id, &got);
		if (rc || got == id)
			return rc;
	}
}

void sv_source_loc_trim(sv_source *src)
{
	sv_idmap_dispose(&src->loc_index);
	sv_idmap_dispose(&src->cp_index);
	sv_idmap_init(&src->loc_index);
	sv_idmap_init(&src->cp_index);
	src->loc_trimmed = true;
}

/* The indexes sv_source_loc_trim let go, made again in the order interning made them, so
 * each location finds the same key again; all or nothing. */
static int loc_reindex(sv_source *src)
{
	for (uint32_t i = 0; i < src->nlocs; i++)
		if (loc_put(src, i))
			goto fail;
	for (uint32_t i = 0; i < src->ncps; i++)
		if (sv_idmap_put(&src->cp_index, ((uint64_t)src->cp_caller[i] + 1) << 32 | src->cp_loc[i], i))
			goto fail;
	src->loc_trimmed = false;
	return 0;
fail:
	sv_source_loc_trim(src);
	return SV_ENOMEM;
}

int sv_source_intern_location(sv_source *src, uint32_t *out, sv_frame_id frame, uint32_t file, uint64_t addr)
{
	if (frame >= src->frames.count || (file != SV_LOC_NONE && file >= src->code_files.count))
		return SV_EINVAL;
	if (src->loc_trimmed && loc_reindex(src))
		return SV_ENOMEM;
	/* the key is a hash: a different location under it moves on to the next key */
	for (uint64_t k = loc_key(frame, file, addr);; k = sv_hash_mix64(k + 1)) {
		uint32_t id;
		int rc = sv_idmap_get_or_put(&src->loc_index, k, src->nlocs, &id);
		if (rc)
			return rc;
		if (id != src->nlocs) {
			const sv_location *l = &src->locs[id];
			if (l->frame == frame && l->file == file && l->addr == addr) {
				*out = id;
				return 0;
			}
			continue;
		}
		if (src->nlocs == SV_LOC_NONE - 1 || SV_ARRAY_RESERVE(src->locs, src->loc_cap, (size_t)src->nlocs + 1))
			return src->nlocs == SV_LOC_NONE - 1 ? SV_ELIMIT : SV_ENOMEM;
		src->locs[src->nlocs] = (sv_location){ frame, file, addr };
		*out = src->nlocs++;
		return 0;
	}
}

int sv_source_intern_code_path(sv_source *src, uint32_t *out, uint32_t caller, uint32_t loc)
{
	if (loc >= src->nlocs || (caller != SV_LOC_NONE && caller >= src->ncps))
		return SV_EINVAL;
	if (src->ncps == SV_LOC_NONE - 1)
		return SV_ELIMIT;
	if (src->loc_trimmed && loc_reindex(src))
		return SV_ENOMEM;
	uint32_t id;
	int rc = sv_idmap_get_or_put(&src->cp_index, ((uint64_t)caller + 1) << 32 | loc, src->ncps, &id);
	if (rc || id != src->ncps) {
		*out = id;
		return rc;
	}
	if (SV_ARRAY_RESERVE(src->cp_caller, src->cp_cap, (size_t)src->ncps + 1) ||
	    SV_ARRAY_RESERVE(src->cp_loc, src->cp_loc_cap, (size_t)src->ncps + 1))
		return SV_ENOMEM;
	src->cp_caller[src->ncps] = caller;
	src->cp_loc[src->ncps] = loc;
	src->cp_callers |= caller != SV_LOC_NONE;
	*out = src->ncps++;
	return 0;
}

int sv_source_loc_grow(sv_source *src, size_t ncap)
{
	if (!src->s_loc)
		return 0;
	uint32_t *p = realloc(src->s_loc, ncap * sizeof(*p));
	if (!p)
		return SV_ENOMEM;
	src->s_loc = p;
	return 0;
}

int sv_source_set_location_line(sv_source *src, uint32_t loc, const char *source_file, uint32_t line)
{
	if (loc >= src->nlocs)
		return SV_EINVAL;
	if (loc >= src->nloc_lines) { /* the locations before it have no line */
		if (SV_ARRAY_RESERVE(src->loc_lines, src->loc_lines_cap, (size_t)loc + 1))
			return SV_ENOMEM;
		memset(src->loc_lines + src->nloc_lines, 0, ((size_t)loc + 1 - src->nloc_lines) * sizeof(*src->loc_lines));
		src->nloc_lines = (size_t)loc + 1;
	}
	uint32_t id;
	int rc = sv_strtab_intern(&src->src_files, &id, source_file, strlen(source_file));
	if (rc)
		return rc;
	src->loc_lines[loc] = (struct sv_loc_line){ id, line };
	return 0;
}

uint32_t sv_source_location_line(const sv_source *src, uint32_t loc, const char **file)
{
	*file = NULL;
	if (loc >= src->nloc_lines || !src->loc_lines[loc].line)
		return 0;
	*file = sv_strtab_str(&src->src_files, src->loc_lines[loc].file);
	return src->loc_lines[loc].line;
}

uint32_t sv_source_location_count(const sv_source *src) { return src->nlocs; }
uint32_t sv_source_code_path_count(const sv_source *src) { return src->ncps; }
const uint32_t *sv_source_code_path_callers(const sv_source *src) { return src->cp_caller; }
const uint32_t *sv_source_code_path_locs(const sv_source *src) { return src->cp_loc; }
bool sv_source_has_code_callers(const sv_source *src) { return src->cp_callers; }
uint32_t sv_source_code_file_count(const sv_source *src) { return src->code_files.count; }

const char *sv_source_code_file(const sv_source *src, uint32_t file)
{
	return file < src->code_files.count ? sv_strtab_str(&src->code_files, file) : NULL;
}

sv_location sv_source_location(const sv_source *src, uint32_t loc)
{
	return loc < src->nlocs ? src->locs[loc] : (sv_location){ UINT32_MAX, UINT32_MAX, 0 };
}

const uint32_t *sv_source_sample_code_paths(const sv_source *src) { return src->s_loc; }

void sv_source_loc_free(sv_source *src)
{
	sv_strtab_dispose(&src->code_files);
	free(src->code_syms);
	free(src->locs);
	sv_idmap_dispose(&src->loc_index);
	free(src->cp_caller);
	free(src->cp_loc);
	sv_idmap_dispose(&src->cp_index);
	free(src->s_loc);
	sv_strtab_dispose(&src->src_files);
	free(src->loc_lines);
}
