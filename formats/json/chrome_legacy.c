/* SPDX-License-Identifier: MIT */
/* The legacy .cpuprofile (V8's C++ API before 2018, v8-profiler-node8 and -next today):
 * {"head": {node, "children": [nodes...]}, "startTime"/"endTime" in s, "samples",
 * "timestamps" in µs}. A node carries its call frame's fields itself, LINE and COLUMN 1-based.
 * The tree is walked with a stack of its own, so its depth is bounded by the stack limit and
 * not by the JSON nesting limit. */
#include <stdlib.h>
#include <string.h>

#include "chrome_int.h"
#include "sv/array.h"

typedef struct cp_level {
	uint32_t node;    /* index in p->nodes */
	json_object *cf;  /* the call frame gathered from the node's fields */
	int depth;        /* the cursor's real depth inside this node's "children" */
	bool in_children, has_id;
} cp_level;

static int legacy_open(cp_ctx *c, cp_prof *p, sv_jcur *j, cp_level **lv, size_t *nl, size_t *cap, uint32_t parent)
{
	if (*nl > SV_MAX_STACK_DEPTH)
		return cp_fail(c, (long long)j->pos, "the profile's node tree is deeper than %u frames", SV_MAX_STACK_DEPTH);
	if (p->nnodes >= UINT32_MAX - 1)
		return cp_fail(c, (long long)j->pos, "too many profile nodes");
	int rc = sv_jc_enter(j, '{', c->err);
	if (rc)
		return rc;
	cp_node n = { .parent = parent, .stack = SV_STACK_NONE };
	json_object *cf = json_object_new_object();
	if (!cf || SV_ARRAY_PUSH(p->nodes, p->nnodes, p->nodes_cap, n) || SV_ARRAY_RESERVE(*lv, *cap, *nl + 1)) {
		json_object_put(cf);
		return SV_ENOMEM;
	}
	(*lv)[(*nl)++] = (cp_level){ .node = (uint32_t)(p->nnodes - 1), .cf = cf };
	return (p->nnodes & 4095) == 0 ? sv_input_progress(c->in, j->pos, c->err) : 0;
}

/* One field of a node: its id, a call frame field (LINE and COLUMN made 0-based as in the
 * current format), or something skipped. */
static int legacy_field(cp_ctx *c, cp_prof *p, sv_jcur *j, cp_level *l, const char *key)
{
	static const char *const fields[] = { "functionName", "url", "lineNumber", "columnNumber", "scriptId" };
	long long at = (long long)j->pos;
	bool want = !strcmp(key, "id");
	for (size_t k = 0; k < sizeof(fields) / sizeof(fields[0]) && !want; k++)
		want = !strcmp(key, fields[k]);
	if (!want)
		return sv_jc_skip(j, c->err);
	json_object *v = NULL;
	int rc = sv_jc_value(j, &v, c->err);
	if (rc)
		return rc;
	if (!strcmp(key, "id")) {
		if (!json_object_is_type(v, json_type_int) || l->has_id)
			rc = cp_fail(c, at, "a profile node without one integer \"id\"");
		else {
			p->nodes[l->node].id = json_object_get_int64(v);
			l->has_id = true;
		}
		json_object_put(v);
		return rc;
	}
	if ((!strcmp(key, "lineNumber") || !strcmp(key, "columnNumber")) && json_object_is_type(v, json_type_int)) {
		int64_t one = json_object_get_int64(v);
		json_object_put(v);
		if (!(v = json_object_new_int64(one > 0 && one <= INT32_MAX ? one - 1 : -1)))
			return SV_ENOMEM;
	}
	return json_object_object_add(l->cf, key, v) ? SV_ENOMEM : 0;
}

static int legacy_close(cp_ctx *c, cp_prof *p, cp_level *l, long long at)
{
	cp_node *n = &p->nodes[l->node];
	if (!l->has_id)
		return cp_fail(c, at, "a profile node without one integer \"id\"");
	if (sv_idmap_get(&p->index, (uint64_t)n->id) != SV_IDMAP_NONE)
		return cp_fail(c, at, "two profile nodes have id %lld", (long long)n->id);
	int rc = cp_frame_of(c, l->cf, &n->frame, &n->root);
	if (!rc && sv_idmap_put(&p->index, (uint64_t)n->id, l->node))
		rc = SV_ENOMEM;
	return rc;
}

int cp_legacy_tree(cp_ctx *c, cp_prof *p, sv_jcur *j)
{
	cp_level *lv = NULL;
	size_t nl = 0, cap = 0;
	char key[32];
	int rc = legacy_open(c, p, j, &lv, &nl, &cap, UINT32_MAX), more;
	while (!rc && nl) {
		cp_level *l = &lv[nl - 1];
		long long at = (long long)j->pos;
		if (l->in_children) {
			if ((more = sv_jc_elem(j, c->err)) < 0)
				rc = more;
			else if (!more) { /* the list closed: the cursor's real depth again */
				l->in_children = false;
				j->depth = l->depth - 1;
			} else if (sv_jc_peek(j) != '{')
				rc = cp_fail(c, at, "a child that is not a profile node object");
			else
				rc = legacy_open(c, p, j, &lv, &nl, &cap, l->node);
			continue;
		}
		if ((more = sv_jc_key(j, key, sizeof(key), c->err)) < 0) {
			rc = more;
		} else if (!more) {
			rc = legacy_close(c, p, l, at);
			json_object_put(l->cf);
			nl--;
		} else if (!strcmp(key, "children") && sv_jc_peek(j) == '[') {
			if (!(rc = sv_jc_enter(j, '[', c->err))) {
				l->in_children = true;
				l->depth = j->depth;
				j->depth = 2; /* as if at the top: nesting is counted here, not by the cursor */
			}
		} else {
			rc = legacy_field(c, p, j, l, key);
		}
	}
	for (size_t i = 0; i < nl; i++)
		json_object_put(lv[i].cf);
	free(lv);
	return rc;
}
