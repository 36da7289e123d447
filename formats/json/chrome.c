/* SPDX-License-Identifier: MIT */
/* V8 CPU profiles: Node's `--cpu-prof` / DevTools' `.cpuprofile` (the Profiler domain's
 * Profile: nodes with call frames and children, sample node ids, time deltas in µs), and
 * Chrome's Trace Event JSON with `Profile` / `ProfileChunk` events (DevTools' Performance
 * recordings: the same nodes, sent in chunks, with parent links), one profile per thread.
 *
 * Samples are weighted by time as DevTools weighs them: each sample lasts until the next one
 * (the last until the profile's end), so the source is time-metric in ms and Inc/Exc are
 * DevTools' total/self time; Inc Ct/Exc Ct count the samples (a node's `hitCount` is not
 * used: V8's differs from the samples for `(program)`, and DevTools follows the samples).
 * Samples out of time order are sorted first, as DevTools does. A frame is
 * `FILE!FUNCTION:LINE:COLUMN` (1-based, as DevTools shows them), `(anonymous)` for a
 * function without a name, `(program)`, `(idle)`, `(garbage collector)` as V8 names them;
 * the `(root)` node is the root, not a frame. Walked in place (json_stream.h). */
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome_int.h"
#include "sv/array.h"


/* A node's positionTicks ([{line, ticks}], 1-based lines: V8's self samples per line of
 * its function) and its script's file, for Goto Source: a file:// URL as its path, another
 * URL as it is. Entries that are not whole positive numbers are left out. */
static int position_ticks(cp_ctx *c, cp_prof *p, cp_node *n, json_object *o, json_object *cf, long long at)
{
	json_object *pt = sv_json_member(o, "positionTicks", json_type_array);
	size_t k = pt ? json_object_array_length(pt) : 0;
	if (!k)
		return 0;
	if (p->npt + k > UINT32_MAX)
		return cp_fail(c, at, "too many positionTicks");
	n->pt_off = (uint32_t)p->npt;
	for (size_t i = 0; i < k; i++) {
		json_object *e = json_object_array_get_idx(pt, i);
		int64_t line = json_object_is_type(e, json_type_object) ? cp_int_or(e, "line", -1) : -1,
			ticks = json_object_is_type(e, json_type_object) ? cp_int_or(e, "ticks", -1) : -1;
		if (line < 1 || line > INT32_MAX || ticks < 1 || ticks > INT32_MAX)
			continue;
		if (SV_ARRAY_RESERVE(p->pt, p->pt_cap, p->npt + 1))
			return SV_ENOMEM;
		p->pt[p->npt][0] = (uint32_t)line;
		p->pt[p->npt++][1] = (uint32_t)ticks;
	}
	n->pt_n = (uint32_t)(p->npt - n->pt_off);
	n->pt_left = n->pt_n ? p->pt[n->pt_off][1] : 0;
	const char *url = cp_string_or(cf, "url", "");
	if (!n->pt_n || !url[0])
		return 0;
	if (!strncmp(url, "file://", 7))
		url += 7;
	size_t ul = strlen(url);
	if (p->urls_len + ul + 1 > UINT32_MAX)
		return cp_fail(c, at, "too many script names");
	if (SV_ARRAY_RESERVE(p->urls, p->urls_cap, p->urls_len + ul + 1))
		return SV_ENOMEM;
	n->url = (uint32_t)p->urls_len;
	memcpy(p->urls + p->urls_len, url, ul + 1);
	p->urls_len += ul + 1;
	return 0;
}

/* One node object: its id, frame, children (recorded by id) or parent id. */
static int add_node(cp_ctx *c, cp_prof *p, json_object *o, long long at)
{
	json_object *id = sv_json_member(o, "id", json_type_int);
	json_object *cf = sv_json_member(o, "callFrame", json_type_object);
	if (!id || !cf)
		return cp_fail(c, at, "a profile node without an integer \"id\" and a \"callFrame\" object");
	if (p->nnodes >= UINT32_MAX - 1)
		return cp_fail(c, at, "too many profile nodes");
	cp_node n = { .id = json_object_get_int64(id), .parent = UINT32_MAX, .stack = SV_STACK_NONE, .url = UINT32_MAX };
	if (sv_idmap_get(&p->index, (uint64_t)n.id) != SV_IDMAP_NONE)
		return cp_fail(c, at, "two profile nodes have id %lld", (long long)n.id);
	int rc = cp_frame_of(c, cf, &n.frame, &n.root);
	if (rc)
		return rc;
	if ((rc = position_ticks(c, p, &n, o, cf, at)))
		return rc;
	uint32_t self = (uint32_t)p->nnodes;
	if (SV_ARRAY_PUSH(p->nodes, p->nnodes, p->nodes_cap, n) || sv_idmap_put(&p->index, (uint64_t)n.id, self))
		return SV_ENOMEM;
	json_object *kids = sv_json_member(o, "children", json_type_array);
	json_object *parent = sv_json_member(o, "parent", json_type_int);
	size_t nk = kids ? json_object_array_length(kids) : 0;
	for (size_t k = 0; k < nk + (parent ? 1 : 0); k++) {
		json_object *e = k < nk ? json_object_array_get_idx(kids, k) : parent;
		if (!json_object_is_type(e, json_type_int))
			return cp_fail(c, at, "node %lld: a child id that is not an integer", (long long)n.id);
		/* (child, parent) by id: children lists give (kid, self), a parent link (self, parent) */
		int64_t a = k < nk ? json_object_get_int64(e) : n.id, b = k < nk ? n.id : json_object_get_int64(e);
		size_t m = p->nchild;
		if (SV_ARRAY_PUSH(p->child, p->nchild, p->child_cap, a) ||
		    SV_ARRAY_RESERVE(p->child_parent, p->child_parent_cap, m + 1))
			return SV_ENOMEM;
		p->child_parent[m] = b;
	}
	return 0;
}

/* Parents from the links, then every node's stack, root first; a cycle is an error. */
static int resolve(cp_ctx *c, cp_prof *p)
{
	for (size_t k = 0; k < p->nchild; k++) {
		uint32_t kid = sv_idmap_get(&p->index, (uint64_t)p->child[k]);
		uint32_t par = sv_idmap_get(&p->index, (uint64_t)p->child_parent[k]);
		if ((kid == SV_IDMAP_NONE || par == SV_IDMAP_NONE) && c->tolerant) {
			c->orphans++; /* put under the root */
			continue;
		}
		if (kid == SV_IDMAP_NONE || par == SV_IDMAP_NONE)
			return cp_fail(c, -1, "node %lld is linked to node %lld, which is not in the profile",
				       (long long)(kid == SV_IDMAP_NONE ? p->child_parent[k] : p->child[k]),
				       (long long)(kid == SV_IDMAP_NONE ? p->child[k] : p->child_parent[k]));
		if (p->nodes[kid].parent != UINT32_MAX && p->nodes[kid].parent != par)
			return cp_fail(c, -1, "node %lld has two parents", (long long)p->child[k]);
		p->nodes[kid].parent = par;
	}
	uint32_t *chain = NULL;
	size_t cap = 0;
	int rc = 0;
	for (size_t i = 0; i < p->nnodes && !rc; i++) {
		size_t n = 0;
		uint32_t at = (uint32_t)i;
		while (at != UINT32_MAX && !p->nodes[at].resolved) {
			if (n > p->nnodes) {
				rc = cp_fail(c, -1, "the profile's nodes form a cycle (through node %lld)", (long long)p->nodes[at].id);
				break;
			}
			if (SV_ARRAY_RESERVE(chain, cap, n + 1)) {
				rc = SV_ENOMEM;
				break;
			}
			chain[n++] = at;
			at = p->nodes[at].parent;
		}
		sv_stack_id st = at == UINT32_MAX ? p->base : p->nodes[at].stack;
		uint32_t depth = at == UINT32_MAX ? 0 : p->nodes[at].depth;
		while (!rc && n-- > 0) {
			cp_node *nd = &p->nodes[chain[n]];
			if (!(nd->root && nd->parent == UINT32_MAX)) {
				if (++depth > SV_MAX_STACK_DEPTH) { /* as every reader: the documented limit */
					rc = cp_fail(c, -1, "node %lld: stack deeper than %u frames", (long long)nd->id,
						     SV_MAX_STACK_DEPTH);
					break;
				}
				rc = c->sink->ops->intern_stack(c->sink->self, &st, st, nd->frame);
			}
			nd->stack = st;
			nd->depth = depth;
			nd->resolved = true;
		}
	}
	free(chain);
	return rc;
}

static int add_sample_id(cp_ctx *c, cp_prof *p, int64_t v, long long at)
{
	size_t n = p->ns;
	if (SV_ARRAY_RESERVE(p->snode, p->snode_cap, n + 1))
		return SV_ENOMEM;
	/* ids resolve to indices after all nodes are known (a trace's chunks add nodes) */
	if (v < 0 || v > UINT32_MAX)
		return cp_fail(c, at, "sample node id %lld is out of range", (long long)v);
	p->snode[n] = (uint32_t)v;
	p->ns++;
	return 0;
}

static int add_sample_node(cp_ctx *c, cp_prof *p, json_object *id, long long at)
{
	if (!json_object_is_type(id, json_type_int))
		return cp_fail(c, at, "a sample that is not a node id");
	return add_sample_id(c, p, json_object_get_int64(id), at);
}

static int add_delta_ms(cp_prof *p, size_t *nd, double v)
{
	if (SV_ARRAY_RESERVE(p->stime, p->stime_cap, *nd + 1))
		return SV_ENOMEM;
	p->last = p->stamps ? v : p->last + v;
	p->stime[(*nd)++] = p->last;
	return 0;
}

static int add_delta(cp_ctx *c, cp_prof *p, size_t *nd, json_object *d, long long at)
{
	double v;
	if (!sv_json_number(d, &v))
		return cp_fail(c, at, "a time delta that is not a number");
	return add_delta_ms(p, nd, v);
}

typedef struct cp_order {
	double t;
	size_t i;
} cp_order;

static int order_cmp(const void *x, const void *y)
{
	const cp_order *a = x, *b = y;
	return a->t < b->t ? -1 : a->t > b->t ? 1 : (a->i > b->i) - (a->i < b->i);
}

/* The source line of a sample of node nd: V8 counts a node's samples per line
 * (positionTicks) but not which sample was where, so its samples take the lines in the
 * order the node lists them, each as many as its ticks (each line's count is V8's; a
 * sample past the ticks has no line). The code location of (frame, line), its path. */
static int sample_line(cp_ctx *c, cp_prof *p, cp_node *nd, uint32_t *path)
{
	const sv_sink_ops *ops = c->sink->ops;
	uint32_t line = p->pt[nd->pt_off + nd->pt_at][0], loc;
	if (--nd->pt_left == 0 && ++nd->pt_at < nd->pt_n)
		nd->pt_left = p->pt[nd->pt_off + nd->pt_at][1];
	int rc = ops->intern_location(c->sink->self, &loc, nd->frame, SV_LOC_NONE, line);
	if (!rc)
		rc = ops->set_location_line(c->sink->self, loc, p->urls + nd->url, line);
	if (!rc)
		rc = ops->intern_code_path(c->sink->self, path, SV_LOC_NONE, loc);
	return rc;
}

/* The samples, each lasting until the next (the last until the end). */
static int emit(cp_ctx *c, cp_prof *p, double t0)
{
	int rc = 0;
	for (size_t i = 0; i < p->ns; i++) {
		uint32_t ni = sv_idmap_get(&p->index, p->snode[i]);
		if (ni == SV_IDMAP_NONE && !c->tolerant)
			return cp_fail(c, -1, "sample %zu is of node %u, which is not in the profile", i + 1, p->snode[i]);
		c->lost += ni == SV_IDMAP_NONE;
		p->snode[i] = ni;
	}
	bool sorted = true;
	for (size_t i = 1; i < p->ns && sorted; i++)
		sorted = p->stime[i] >= p->stime[i - 1];
	cp_order *ord = NULL;
	if (!sorted) {
		if (!(ord = malloc(p->ns * sizeof(*ord))))
			return SV_ENOMEM;
		for (size_t i = 0; i < p->ns; i++)
			ord[i] = (cp_order){ p->stime[i], i };
		qsort(ord, p->ns, sizeof(*ord), order_cmp);
	}
	const sv_sink_ops *ops = c->sink->ops;
	bool code = ops->intern_location && ops->intern_code_path && ops->set_location_line && ops->add_sample_at;
	/* times in whole µs (V8's), metrics in ms: sums kept in µs are exact (a time that is not
	 * whole ends that; said before the first profile's samples only) */
	if (ops->set_metric_quantum)
		ops->set_metric_quantum(c->sink->self, 1e-3);
	for (size_t k = 0; k < p->ns && !rc; k++) {
		size_t i = ord ? ord[k].i : k;
		double t = p->stime[i];
		double next = k + 1 < p->ns ? p->stime[ord ? ord[k + 1].i : k + 1] : p->has_end && p->end > t ? p->end : t;
		if (p->snode[i] == SV_IDMAP_NONE)
			continue; /* its node was in a chunk the trace lost (counted) */
		cp_node *nd = &p->nodes[p->snode[i]];
		uint32_t path = SV_LOC_NONE;
		if (code && nd->pt_at < nd->pt_n && nd->url != UINT32_MAX && (rc = sample_line(c, p, nd, &path)))
			break;
		rc = path != SV_LOC_NONE ? ops->add_sample_at(c->sink->self, nd->stack, (t - t0) / 1000, (next - t) / 1000, 1, path)
					 : ops->add_sample(c->sink->self, nd->stack, (t - t0) / 1000, (next - t) / 1000, 1);
	}
	free(ord);
	return rc;
}

static void prof_dispose(cp_prof *p)
{
	free(p->nodes);
	free(p->pt);
	free(p->urls);
	sv_idmap_dispose(&p->index);
	free(p->child);
	free(p->child_parent);
	free(p->snode);
	free(p->stime);
}

/* A cursor at an array recorded by the first walk, entered. */
static int at_array(cp_ctx *c, sv_jcur *j, size_t pos, int depth)
{
	sv_jc_init(j, c->in);
	j->pos = pos;
	j->depth = depth;
	return sv_jc_enter(j, '[', c->err);
}

/* ---- .cpuprofile ---- */

/* The "nodes" array at pos, each node added. */
static int read_nodes(cp_ctx *c, cp_prof *p, size_t pos, int depth)
{
	sv_jcur a;
	int rc = at_array(c, &a, pos, depth), more = 0;
	while (!rc && (more = sv_jc_elem(&a, c->err)) == 1) {
		json_object *o = NULL;
		long long at = (long long)a.pos;
		if (!(rc = sv_jc_value(&a, &o, c->err)))
			rc = add_node(c, p, o, at);
		json_object_put(o);
		if (!rc && (p->nnodes & 4095) == 0)
			rc = sv_input_progress(c->in, a.pos, c->err);
	}
	return rc ? rc : more;
}

static int cpuprofile(cp_ctx *c, sv_jcur *j)
{
	cp_prof p = { .base = SV_STACK_NONE };
	sv_idmap_init(&p.index);
	size_t nodes = 0, samples = 0, deltas = 0, head = 0, stamps = 0;
	int depth = 0, rc, more;
	double v;
	char key[32];
	while ((more = sv_jc_key(j, key, sizeof(key), c->err)) == 1) {
		int ch = sv_jc_peek(j);
		size_t *arr = !strcmp(key, "nodes") ? &nodes : !strcmp(key, "samples") ? &samples : !strcmp(key, "timeDeltas") ? &deltas
			: !strcmp(key, "timestamps") ? &stamps : NULL;
		if (arr && ch == '[') {
			*arr = j->pos;
			depth = j->depth;
			rc = sv_jc_skip(j, c->err);
		} else if (!strcmp(key, "head") && ch == '{') {
			head = j->pos;
			depth = j->depth;
			rc = sv_jc_skip_deep(j, 2 * SV_MAX_STACK_DEPTH + 8, c->err);
		} else if ((!strcmp(key, "startTime") || !strcmp(key, "endTime")) && ch != '{' && ch != '[') {
			json_object *o = NULL;
			long long at = (long long)j->pos;
			if (!(rc = sv_jc_value(j, &o, c->err)) && !sv_json_number(o, &v))
				rc = cp_fail(c, at, "\"%s\" is not a number", key);
			json_object_put(o);
			if (!rc && key[0] == 's')
				p.start = v;
			else if (!rc) {
				p.end = v;
				p.has_end = true;
			}
		} else {
			rc = sv_jc_skip(j, c->err);
		}
		if (rc)
			goto out;
	}
	if ((rc = more) < 0 || (rc = sv_jc_end(j, c->err)))
		goto out;
	bool legacy = head && !nodes;
	if ((!nodes && !head) || !samples) {
		rc = cp_fail(c, -1, "not a CPU profile: no \"nodes\" (or legacy \"head\") and \"samples\" arrays");
		goto out;
	}
	if (legacy) { /* times in s and absolute µs stamps: see chrome_legacy.c */
		p.start *= 1e6;
		p.end *= 1e6;
		if (stamps) { /* whole seconds (v8-profiler): the last sample gets the mean interval */
			p.has_end = false;
			p.stamps = true;
			deltas = stamps;
		}
	}
	sv_jcur a, b;
	if (legacy) {
		sv_jc_init(&a, c->in);
		a.pos = head;
		a.depth = depth;
		rc = cp_legacy_tree(c, &p, &a);
	} else {
		rc = read_nodes(c, &p, nodes, depth);
	}
	if (rc || (rc = resolve(c, &p)) || (rc = at_array(c, &a, samples, depth)) ||
	    (deltas && (rc = at_array(c, &b, deltas, depth))))
		goto out;
	size_t nd = 0;
	p.last = p.start;
	while ((more = sv_jc_elem(&a, c->err)) == 1) { /* plain ids read in place, else through json-c */
		json_object *o = NULL;
		long long at = (long long)a.pos;
		uint64_t id;
		if (sv_jc_uint(&a, &id))
			rc = add_sample_id(c, &p, (int64_t)id, at);
		else if (!(rc = sv_jc_value(&a, &o, c->err)))
			rc = add_sample_node(c, &p, o, at);
		json_object_put(o);
		if (rc)
			goto out;
	}
	if ((rc = more) < 0)
		goto out;
	while (deltas && (more = sv_jc_elem(&b, c->err)) == 1) {
		json_object *o = NULL;
		long long at = (long long)b.pos;
		double dv;
		if (sv_jc_number(&b, &dv))
			rc = add_delta_ms(&p, &nd, dv);
		else if (!(rc = sv_jc_value(&b, &o, c->err)))
			rc = add_delta(c, &p, &nd, o, at);
		json_object_put(o);
		if (rc)
			goto out;
	}
	if (deltas && (rc = more) < 0)
		goto out;
	if (!deltas) { /* no times: the samples spread evenly over the profile */
		if (SV_ARRAY_RESERVE(p.stime, p.stime_cap, p.ns + 1)) {
			rc = SV_ENOMEM;
			goto out;
		}
		double step = p.ns && p.has_end ? (p.end - p.start) / (double)p.ns : 0;
		for (; nd < p.ns; nd++)
			p.stime[nd] = p.start + step * (double)nd;
	}
	if (nd != p.ns) {
		rc = cp_fail(c, -1, "%zu samples but %zu time %s", p.ns, nd, p.stamps ? "stamps" : "deltas");
		goto out;
	}
	if (p.stamps && p.ns > 1) { /* as a trace's profile without an end */
		double lo = p.stime[0], hi = p.stime[0];
		for (size_t i = 1; i < p.ns; i++) {
			lo = p.stime[i] < lo ? p.stime[i] : lo;
			hi = p.stime[i] > hi ? p.stime[i] : hi;
		}
		p.end = hi + (hi - lo) / (double)(p.ns - 1);
		p.has_end = true;
		p.start = lo; /* startTime is whole seconds: time counts from the first sample */
	}
	rc = emit(c, &p, p.start);
out:
	prof_dispose(&p);
	return rc;
}

/* ---- Trace Event JSON ---- */

typedef struct cp_name {
	int64_t pid, tid; /* tid -1: the process's name */
	char *name;
} cp_name;

typedef struct cp_trace {
	cp_prof *prof;
	size_t np, prof_cap;
	cp_name *names;
	size_t nn, names_cap;
} cp_trace;

static const char *name_of(const cp_trace *t, int64_t pid, int64_t tid)
{
	for (size_t i = 0; i < t->nn; i++)
		if (t->names[i].pid == pid && t->names[i].tid == tid)
			return t->names[i].name;
	return NULL;
}

static int set_name(cp_trace *t, int64_t pid, int64_t tid, const char *name)
{
	for (size_t i = 0; i < t->nn; i++)
		if (t->names[i].pid == pid && t->names[i].tid == tid) {
			char *n = strdup(name);
			if (!n)
				return SV_ENOMEM;
			free(t->names[i].name);
			t->names[i].name = n;
			return 0;
		}
	char *n = strdup(name);
	if (!n || SV_ARRAY_PUSH(t->names, t->nn, t->names_cap, ((cp_name){ pid, tid, n }))) {
		free(n);
		return SV_ENOMEM;
	}
	return 0;
}

/* The profile of (pid, id), made when first met. */
static int profile_of(cp_trace *t, int64_t pid, const char *id, cp_prof **out)
{
	for (size_t i = 0; i < t->np; i++)
		if (t->prof[i].pid == pid && strcmp(t->prof[i].id, id) == 0) {
			*out = &t->prof[i];
			return 0;
		}
	if (SV_ARRAY_RESERVE(t->prof, t->prof_cap, t->np + 1))
		return SV_ENOMEM;
	cp_prof *p = &t->prof[t->np++];
	memset(p, 0, sizeof(*p));
	sv_idmap_init(&p->index);
	p->pid = pid;
	p->tid = -1;
	p->base = SV_STACK_NONE;
	snprintf(p->id, sizeof(p->id), "%s", id);
	*out = p;
	return 0;
}

/* The nodes, samples and deltas of a chunk (or of a whole CpuProfile event). */
static int chunk(cp_ctx *c, cp_prof *p, json_object *cpu, json_object *deltas, long long at)
{
	json_object *nodes = sv_json_member(cpu, "nodes", json_type_array), *samples = sv_json_member(cpu, "samples", json_type_array);
	size_t nn = nodes ? json_object_array_length(nodes) : 0, ns = samples ? json_object_array_length(samples) : 0;
	size_t nd = deltas ? json_object_array_length(deltas) : 0;
	if (ns != nd)
		return cp_fail(c, at, "profile %s: a chunk of %zu samples with %zu time deltas", p->id, ns, nd);
	int rc = 0;
	for (size_t k = 0; k < nn && !rc; k++) {
		json_object *o = json_object_array_get_idx(nodes, k);
		rc = json_object_is_type(o, json_type_object) ? add_node(c, p, o, at) : cp_fail(c, at, "a profile node that is not an object");
	}
	size_t n = p->ns;
	for (size_t k = 0; k < ns && !rc; k++)
		rc = add_sample_node(c, p, json_object_array_get_idx(samples, k), at);
	for (size_t k = 0; k < nd && !rc; k++)
		rc = add_delta(c, p, &n, json_object_array_get_idx(deltas, k), at);
	return rc;
}

static int trace_event(cp_ctx *c, cp_trace *t, json_object *e, long long at, size_t *nprofiles)
{
	const char *ph = cp_string_or(e, "ph", ""), *name = cp_string_or(e, "name", "");
	int64_t pid = cp_int_or(e, "pid", 0), tid = cp_int_or(e, "tid", 0);
	json_object *args = sv_json_member(e, "args", json_type_object);
	json_object *data = sv_json_member(args, "data", json_type_object);
	if (!strcmp(ph, "M") && (!strcmp(name, "process_name") || !strcmp(name, "thread_name"))) {
		const char *n = cp_string_or(args, "name", NULL);
		return n ? set_name(t, pid, name[0] == 'p' ? -1 : tid, n) : 0;
	}
	if (strcmp(name, "Profile") && strcmp(name, "ProfileChunk") && strcmp(name, "CpuProfile"))
		return 0;
	char id[64];
	json_object *io = NULL;
	if (!strcmp(name, "CpuProfile"))
		snprintf(id, sizeof(id), "CpuProfile %zu", ++*nprofiles);
	else if (json_object_object_get_ex(e, "id", &io) && io)
		snprintf(id, sizeof(id), "%s", json_object_get_string(io));
	else
		return cp_fail(c, at, "a %s event without an \"id\"", name);
	cp_prof *p;
	int rc = profile_of(t, pid, id, &p);
	if (rc)
		return rc;
	double v;
	if (!strcmp(name, "ProfileChunk")) {
		if (p->tid < 0)
			p->tid = tid; /* until its Profile event says which thread it samples */
		json_object *cpu = sv_json_member(data, "cpuProfile", json_type_object);
		if (sv_json_number(sv_json_member(data, "endTime", json_type_int), &v) || sv_json_number(sv_json_member(data, "endTime", json_type_double), &v)) {
			p->end = v;
			p->has_end = true;
		}
		return cpu ? chunk(c, p, cpu, sv_json_member(data, "timeDeltas", json_type_array), at) : 0;
	}
	p->tid = tid;
	json_object *st = NULL;
	if (data && json_object_object_get_ex(data, "startTime", &st) && sv_json_number(st, &v))
		p->start = p->last = v;
	else
		p->start = p->last = (double)cp_int_or(e, "ts", 0);
	if (!strcmp(name, "CpuProfile")) {
		json_object *cpu = sv_json_member(data, "cpuProfile", json_type_object);
		json_object *deltas = sv_json_member(cpu, "timeDeltas", json_type_array);
		if (!deltas)
			deltas = sv_json_member(data, "timeDeltas", json_type_array);
		if (cpu && sv_json_number(sv_json_member(cpu, "startTime", json_type_int), &v))
			p->start = p->last = v;
		if (cpu && sv_json_number(sv_json_member(cpu, "endTime", json_type_int), &v)) {
			p->end = v;
			p->has_end = true;
		}
		return cpu ? chunk(c, p, cpu, deltas, at) : 0;
	}
	return 0;
}

/* Each profile under `Process NAME (PID)` and `Thread (TID) NAME` (and `Profile ID` when a
 * thread has several), all on the clock of the earliest profile's start. */
static int trace_emit(cp_ctx *c, cp_trace *t)
{
	const sv_sink_ops *ops = c->sink->ops;
	double t0 = 0;
	bool any = false;
	for (size_t i = 0; i < t->np; i++)
		if (t->prof[i].ns && (!any || t->prof[i].start < t0)) {
			t0 = t->prof[i].start;
			any = true;
		}
	if (!any)
		return cp_fail(c, -1, "no CPU profile samples in the trace (record with the category "
				      "disabled-by-default-v8.cpu_profiler, or DevTools' Performance panel)");
	int rc = 0;
	for (size_t i = 0; i < t->np && !rc; i++) {
		cp_prof *p = &t->prof[i];
		if (!p->ns)
			continue;
		size_t same = 0;
		for (size_t k = 0; k < t->np; k++)
			same += t->prof[k].ns && t->prof[k].pid == p->pid && t->prof[k].tid == p->tid;
		char buf[600];
		const char *pn = name_of(t, p->pid, -1), *tn = name_of(t, p->pid, p->tid);
		int n = snprintf(buf, sizeof(buf), "Process %.256s (%lld)", pn ? pn : "?", (long long)p->pid);
		sv_frame_id f;
		if ((rc = ops->intern_frame(c->sink->self, &f, buf, (size_t)n)) ||
		    (rc = ops->intern_stack(c->sink->self, &p->base, SV_STACK_NONE, f)))
			break;
		n = snprintf(buf, sizeof(buf), "Thread (%lld)%s%.256s", (long long)p->tid, tn ? " " : "", tn ? tn : "");
		if ((rc = ops->intern_frame(c->sink->self, &f, buf, (size_t)n)) ||
		    (rc = ops->intern_stack(c->sink->self, &p->base, p->base, f)))
			break;
		if (same > 1) {
			n = snprintf(buf, sizeof(buf), "Profile %s", p->id);
			if ((rc = ops->intern_frame(c->sink->self, &f, buf, (size_t)n)) ||
			    (rc = ops->intern_stack(c->sink->self, &p->base, p->base, f)))
				break;
		}
		if (!p->has_end && p->ns > 1) { /* the last sample lasts the mean interval */
			p->end = p->stime[p->ns - 1] + (p->stime[p->ns - 1] - p->stime[0]) / (double)(p->ns - 1);
			p->has_end = true;
		}
		if (!(rc = resolve(c, p)))
			rc = emit(c, p, t0);
	}
	return rc;
}

/* Events one at a time: {"traceEvents": [...]} or a bare array. */
static int trace(cp_ctx *c, sv_jcur *j, bool object)
{
	cp_trace t = { 0 };
	size_t nprofiles = 0;
	int rc = 0, more;
	char key[32];
	bool found = !object;
	c->tolerant = true;
	if (object) {
		while ((more = sv_jc_key(j, key, sizeof(key), c->err)) == 1) {
			if (strcmp(key, "traceEvents") || found || sv_jc_peek(j) != '[') {
				if ((rc = sv_jc_skip(j, c->err)))
					goto out;
				continue;
			}
			found = true;
			break;
		}
		if ((rc = more) < 0)
			goto out;
		if (!found) {
			rc = cp_fail(c, -1, "not a trace: no \"traceEvents\" array");
			goto out;
		}
	}
	if ((rc = sv_jc_enter(j, '[', c->err)))
		goto out;
	for (size_t k = 0; (more = sv_jc_elem(j, c->err)) == 1; k++) {
		json_object *e = NULL;
		long long at = (long long)j->pos;
		if (!(rc = sv_jc_value(j, &e, c->err)) && json_object_is_type(e, json_type_object))
			rc = trace_event(c, &t, e, at, &nprofiles);
		json_object_put(e);
		if (!rc && (k & 1023) == 0)
			rc = sv_input_progress(c->in, j->pos, c->err);
		if (rc)
			goto out;
	}
	if ((rc = more) < 0)
		goto out;
	while (object && (more = sv_jc_key(j, key, sizeof(key), c->err)) == 1)
		if ((rc = sv_jc_skip(j, c->err)))
			goto out;
	if ((object && (rc = more) < 0) || (rc = sv_jc_end(j, c->err)))
		goto out;
	rc = trace_emit(c, &t);
	if (!rc && (c->orphans || c->lost) && c->sink->ops->add_note) {
		char msg[300];
		snprintf(msg, sizeof(msg), "the trace lost part of its profiles: %zu nodes whose caller is missing are under "
					   "their thread, %zu samples of missing nodes are left out", c->orphans, c->lost);
		rc = c->sink->ops->add_note(c->sink->self, SV_NOTE_WARNING, msg);
	}
out:
	for (size_t i = 0; i < t.np; i++)
		prof_dispose(&t.prof[i]);
	free(t.prof);
	for (size_t i = 0; i < t.nn; i++)
		free(t.names[i].name);
	free(t.names);
	return rc;
}

/* ---- import, probe ---- */

static int cp_import(sv_sink *sink, const sv_input *in, const sv_import_opts *opts, sv_error *err)
{
	(void)opts;
	cp_ctx c = { .sink = sink, .in = in, .err = err };
	sv_jcur j;
	sv_jc_init(&j, in);
	int rc;
	int ch = sv_jc_peek(&j);
	if (ch == '[') {
		rc = trace(&c, &j, false);
	} else if (ch != '{') {
		rc = cp_fail(&c, 0, "not a CPU profile or trace: not a JSON object or array");
	} else if (!(rc = sv_jc_enter(&j, '{', err))) {
		/* A trace object names "traceEvents" first or soon; a CPU profile never does. */
		size_t window = in->len - j.pos < 4096 ? in->len - j.pos : 4096;
		if (memmem(in->data + j.pos, window, "\"traceEvents\"", 13))
			rc = trace(&c, &j, true);
		else
			rc = cpuprofile(&c, &j);
	}
	if (!rc && sink->ops->set_scaling)
		rc = sink->ops->set_scaling(sink->self, SV_SCALING_TIME);
	if (rc == SV_ENOMEM)
		sv_error_set(err, SV_ENOMEM, NULL);
	free(c.name);
	return rc;
}

/* A JSON object with "nodes" and a "callFrame" in its first 4 KiB (a CPU profile; or "head"
 * with a node's "functionName" and "hitCount", the legacy one), or a
 * trace: an object naming "traceEvents", or an array whose first element has "ph". */
static bool cp_probe(const unsigned char *d, size_t n)
{
	size_t i = 0;
	while (i < n && (d[i] == ' ' || d[i] == '\t' || d[i] == '\r' || d[i] == '\n'))
		i++;
	if (i >= n || (d[i] != '{' && d[i] != '['))
		return false;
	size_t window = n - i < 4096 ? n - i : 4096;
	const char *w = (const char *)d + i;
	if (d[i] == '[') {
		size_t k = 1;
		while (k < window && (w[k] == ' ' || w[k] == '\t' || w[k] == '\r' || w[k] == '\n'))
			k++;
		return k < window && w[k] == '{' && memmem(w, window, "\"ph\"", 4) && memmem(w, window, "\"ts\"", 4);
	}
	return memmem(w, window, "\"traceEvents\"", 13) || (memmem(w, window, "\"nodes\"", 7) && memmem(w, window, "\"callFrame\"", 11)) ||
	       (memmem(w, window, "\"head\"", 6) && memmem(w, window, "\"functionName\"", 14) && memmem(w, window, "\"hitCount\"", 10));
}

static const char *const cp_patterns[] = { ".cpuprofile", NULL };

const sv_format sv_fmt_chrome = {
	.name = "chrome", .patterns = cp_patterns, .probe = cp_probe, .import = cp_import,
};
