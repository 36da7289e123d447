/* SPDX-License-Identifier: MIT */
/* Heap graph -> samples (issue 33): PerfView's heap views. A heap is a graph of objects
 * (nodes) with types, sizes and references; its samples come from a spanning tree walked from
 * the root as PerfView's SpanningTree walks it: the next node taken is the queued one of
 * highest priority (its type's priority from the Priority patterns, plus a tenth of the
 * priority of the node that met it; among equal ones the order PerfView's binary heap gives),
 * and nodes no root reaches are queued under "[not reachable from roots]" (only those no other
 * such node reaches, as PerfView). Each node taken is a sample of its size times its type's
 * count multiplier (count: the multiplier), whose stack is its path of type names from the
 * root. Readers (.gcdump; any heap format) lay the graph out as PerfView's Graph does in
 * memory and call sv_heap_tree.
 *
 * Ownership: everything is borrowed for the call; nothing is kept. */
#ifndef SV_HEAP_GRAPH_H
#define SV_HEAP_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "stackview/source.h"
#include "stackview/status.h"

typedef struct sv_heap_type {
	const char *name;  /* the frame: MODULE!Type (PerfView's FullName), or Type */
	uint32_t len;
	int32_t size;      /* a node's size when its data gives none */
	float count_mult;  /* how many objects a node of it stands for (1; a sampled dump's own) */
} sv_heap_type;

/* PerfView's Graph layout: per node a little-endian u32 offset into `blob`, where the node is
 * compressed ints (PerfView's: big-endian 7-bit groups, the first sign-extended, at most 5):
 * type << 1 | has size, [size], child count, then each child less the node's index. */
typedef struct sv_heap_graph {
	uint32_t nnodes, root, ntypes;
	const unsigned char *labels;
	const unsigned char *blob;
	uint32_t blob_len;
	const sv_heap_type *types;
} sv_heap_graph;

/* PerfView's default Priority patterns (SpanningTree.DefaultPriorities). Static. */
const char *sv_heap_default_priorities(void);

/* Each type's priority (out[ntypes]) from PAT->NUM entries separated by ';': the first
 * pattern matching the type's name decides, 0 when none does. SV_EINVAL with a message
 * naming the entry; SV_ENOMEM. */
int sv_heap_priorities(float *out, const sv_heap_type *types, uint32_t ntypes, const char *pats, sv_error *err);

/* Who watches a walk: tick is called every SV_HEAP_TICK nodes taken with how many are
 * (of g->nnodes); a non-zero return stops the walk with that status (tick sets err). */
#define SV_HEAP_TICK 65536u
typedef struct sv_heap_watch {
	int (*tick)(const void *payload, uint32_t taken, uint32_t nnodes, sv_error *err);
	const void *payload;
} sv_heap_watch;

/* Walks g from its root with the types' priorities `prio` into sink. *unreachable: the nodes
 * queued under "[not reachable from roots]". SV_EFORMAT for damaged node data, with
 * *bad_node the node whose data it is; the sink's errors as they come; watch's (NULL: none
 * watches). */
int sv_heap_tree(const sv_heap_graph *g, const float *prio, sv_sink *sink, const sv_heap_watch *watch,
		 size_t *unreachable, uint32_t *bad_node, sv_error *err);

#endif
