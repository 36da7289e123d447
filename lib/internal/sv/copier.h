/* SPDX-License-Identifier: MIT */
/* Copying stacks from one source into another, memoized per source stack and frame, with an
 * optional new name per frame (derived sources: Diff, Drill Into, the runs of a comparison).
 * Internal (not installed).
 *
 * Ownership: sv_copier_init allocates the maps that sv_copier_dispose frees; both sources
 * and the rename array are borrowed and must outlive the copier. */
#ifndef SV_INTERNAL_COPIER_H
#define SV_INTERNAL_COPIER_H

#include <stdint.h>

#include "stackview/source.h"

typedef struct sv_copier {
	const sv_source *from;
	sv_source *to;
	/* NULL, or the name to intern for each frame of `from` (NULL entries keep the frame's
	 * own); two frames renamed alike become one frame of `to`. */
	const char *const *rename;
	uint32_t *frame_map; /* UINT32_MAX = not copied yet */
	uint32_t *stack_map;
	uint32_t *chain;
	uint32_t *path_map; /* code paths (annotate, Goto Source): made on the first copy */
	uint32_t *file_map;
	uint32_t *pchain;
	size_t pchain_cap;
} sv_copier;

int sv_copier_init(sv_copier *c, const sv_source *from, sv_source *to);
void sv_copier_dispose(sv_copier *c);
/* The stack of `to` that has the frames of `s` (SV_STACK_NONE stays none). O(new frames). */
int sv_copier_stack(sv_copier *c, sv_stack_id *out, sv_stack_id s);
/* The code path of `to` with the locations of `path` (their frames, files and lines copied;
 * SV_LOC_NONE stays none). */
int sv_copier_code_path(sv_copier *c, uint32_t *out, uint32_t path);
/* A sample of `from` (index i, its stack `stack` in `to`) added to `to` with its code path. */
int sv_copier_sample(sv_copier *c, size_t i, sv_stack_id stack, double time, double metric, double count);

#endif
