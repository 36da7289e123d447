/* SPDX-License-Identifier: MIT */
/* What the V8 profile reader (chrome.c: the current .cpuprofile and Trace Event JSON) and its
 * legacy-format part (chrome_legacy.c) share (chrome_frame.c): the nodes and samples of one profile as they are
 * gathered, the reader's context, its error and frame naming. formats/ only.
 *
 * Ownership: a cp_prof owns its arrays and index (chrome.c's prof_dispose frees them); the
 * context borrows the sink and input. */
#ifndef STACKVIEW_FORMATS_CHROME_INT_H
#define STACKVIEW_FORMATS_CHROME_INT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/json_stream.h"
#include "stackview/formats.h"
#include "sv/idmap.h"

typedef struct cp_node {
	int64_t id;
	uint32_t parent;  /* node index, UINT32_MAX = none */
	sv_frame_id frame;
	sv_stack_id stack;
	bool root;        /* "(root)": not a frame */
	bool resolved;
	uint32_t depth;   /* frames on its stack, once resolved */
	/* its positionTicks (V8's samples per source line): pt[pt_off .. pt_off + pt_n) of the
	 * profile, the next one to give a sample (pt_at) and how many it has left; its script's
	 * file (url offset into the profile's urls, UINT32_MAX: none) */
	uint32_t pt_off, pt_n, pt_at, pt_left;
	uint32_t url;
} cp_node;

/* One profile: a .cpuprofile, or one Profile id of a trace. */
typedef struct cp_prof {
	cp_node *nodes;
	size_t nnodes, nodes_cap;
	sv_idmap index;      /* node id -> index */
	int64_t *child, *child_parent; /* children lists, resolved once every node is known */
	size_t nchild, child_cap, child_parent_cap;
	uint32_t *snode;     /* per sample: node index */
	double *stime;       /* per sample: µs */
	size_t ns, snode_cap, stime_cap;
	double start, end, last; /* µs; last = the running time of chunked deltas */
	bool has_end;
	bool stamps;          /* legacy: the times are absolute stamps in µs, not deltas */
	uint32_t (*pt)[2];   /* positionTicks of every node: (line, ticks) */
	size_t npt, pt_cap;
	char *urls;          /* the nodes' script files, NUL-separated */
	size_t urls_len, urls_cap;
	int64_t pid, tid;
	char id[64];         /* trace: the Profile event's id */
	sv_stack_id base;    /* trace: Process / Thread frames */
} cp_prof;

typedef struct cp_ctx {
	sv_sink *sink;
	const sv_input *in;
	sv_error *err;
	bool tolerant;          /* a trace: its ring buffer may have lost chunks */
	size_t orphans, lost;   /* nodes whose parent is missing; samples of missing nodes */
	char *name;
	size_t name_cap;
} cp_ctx;

/* A member's string (or dflt), a member's integer (or dflt). */
const char *cp_string_or(json_object *o, const char *key, const char *dflt);
int64_t cp_int_or(json_object *o, const char *key, int64_t dflt);
/* An SV_EFORMAT error located at byte `at` (its line; -1: no place). */
int cp_fail(cp_ctx *c, long long at, const char *fmt, ...) SV_PRINTF(3, 4);
/* A call frame object's interned name: FILE!FUNCTION:LINE:COLUMN; *root for "(root)". */
int cp_frame_of(cp_ctx *c, json_object *cf, sv_frame_id *out, bool *root);
/* The legacy "head" tree at the cursor into p's nodes, parents set (chrome_legacy.c). */
int cp_legacy_tree(cp_ctx *c, cp_prof *p, sv_jcur *j);

#endif
