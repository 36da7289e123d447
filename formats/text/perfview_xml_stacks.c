/* SPDX-License-Identifier: MIT */
/* .perfView.xml reader: frames, stacks by id (their callers may come later) and samples,
 * simple and advanced forms. */
#include <ctype.h>
#include <errno.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sv/idmap.h"
#include "core/export_int.h"
#include "stackview/formats.h"
#include "sv/array.h"
#include "perfview_xml_int.h"

/* ---- stacks by id ---- */

/* The record of a file stack id, or SV_IDMAP_NONE. */
uint32_t sv_pvx_stack_find(const xml_ctx *x, long long id)
{
	if (id >= 0 && (unsigned long long)id < x->ndense && x->dense[id].rec)
		return x->dense[id].rec - 1;
	return sv_idmap_get(&x->stack_idx, (uint64_t)id); /* an id indexed while it was too big */
}

/* Index a record by its id: in the dense table while ids stay near the records' count (a
 * hostile id cannot make it big), else in the hash map. */
static int stack_index(xml_ctx *x, long long id, uint32_t rec)
{
	if ((unsigned long long)id < 16 * ((unsigned long long)x->nrecs + 4096)) {
		if ((size_t)id >= x->ndense) {
			size_t n = x->ndense ? x->ndense : 4096;
			while (n <= (size_t)id)
				n *= 2;
			struct xml_dense *d = realloc(x->dense, n * sizeof(*d));
			if (!d)
				return SV_ENOMEM;
			memset(d + x->ndense, 0, (n - x->ndense) * sizeof(*d));
			x->dense = d;
			x->ndense = n;
		}
		x->dense[id] = (struct xml_dense){ rec + 1, UINT32_MAX };
		return 0;
	}
	return sv_idmap_put(&x->stack_idx, (uint64_t)id, rec);
}

/* Our stack id for a file stack id: 0 with *out, 1 when not (yet) resolvable, <0 on error. */
int sv_pvx_resolve_stack(xml_ctx *x, uint32_t *out, long long id, long line)
{
	if (id >= 0 && (unsigned long long)id < x->ndense && x->dense[id].resolved != UINT32_MAX && x->dense[id].rec) {
		*out = x->dense[id].resolved;
		return 0;
	}
	size_t n = 0;
	long long cur = id;
	uint32_t base = SV_STACK_NONE;
	for (;;) {
		if (cur == -1)
			break;
		if (cur >= 0 && (unsigned long long)cur < x->ndense && x->dense[cur].rec &&
		    x->dense[cur].resolved != UINT32_MAX) { /* the record need not be read */
			base = x->dense[cur].resolved;
			break;
		}
		uint32_t ri = sv_pvx_stack_find(x, cur);
		if (ri == SV_IDMAP_NONE)
			return 1;
		if (x->recs[ri].resolved != UINT32_MAX) {
			base = x->recs[ri].resolved;
			break;
		}
		if (n >= x->nrecs)
			return sv_pvx_fail(x, x->recs[ri].line, SV_EFORMAT, "stack %lld: CallerID chain has a cycle", id);
		if (SV_ARRAY_RESERVE(x->chain, x->chain_cap, n + 1))
			return sv_pvx_fail(x, line, SV_ENOMEM, "out of memory");
		x->chain[n++] = ri;
		cur = x->recs[ri].caller;
	}
	if (n > SV_MAX_STACK_DEPTH)
		return sv_pvx_fail(x, line, SV_ELIMIT, "stack %lld is deeper than %u frames", id, SV_MAX_STACK_DEPTH);
	while (n) {
		stack_rec *r = &x->recs[x->chain[--n]];
		uint32_t f = sv_idmap_get(&x->frame_ids, (uint64_t)r->frame);
		if (f == SV_IDMAP_NONE)
			return 1;
		int rc = x->sink->ops->intern_stack(x->sink->self, &base, base, f);
		if (rc)
			return sv_pvx_fail(x, r->line, rc, "cannot intern stack %lld", r->id);
		r->resolved = base;
		if (r->id >= 0 && (unsigned long long)r->id < x->ndense && x->dense[r->id].rec)
			x->dense[r->id].resolved = base;
	}
	*out = base;
	return 0;
}

int sv_pvx_add_sample(xml_ctx *x, uint32_t stack, double time, double metric, long line)
{
	if (x->deferring) { /* keep the file's order of samples */
		if (SV_ARRAY_RESERVE(x->pend, x->pend_cap, x->npend + 1))
			return sv_pvx_fail(x, line, SV_ENOMEM, "out of memory");
		x->pend[x->npend++] = (pending){ 0, true, stack, time, metric, line };
		return 0;
	}
	int rc = x->sink->ops->add_sample(x->sink->self, stack, time, metric, 1.0);
	return rc ? sv_pvx_fail(x, line, rc, "cannot add sample (%s)", sv_status_str(rc)) : 0;
}

/* ---- elements ---- */

/* A frame, at its end: its name is its text, trimmed. */
int sv_pvx_on_frame(xml_ctx *x)
{
	long long id = x->frame_id;
	long line = x->cur_line;
	if (sv_idmap_get(&x->frame_ids, (uint64_t)id) != SV_IDMAP_NONE)
		return sv_pvx_fail(x, line, SV_EFORMAT, "frame ID %lld defined twice", id);
	const char *s = x->text ? x->text : "";
	size_t len = x->ntext;
	while (len > 0 && isspace((unsigned char)*s))
		s++, len--;
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	uint32_t f;
	int rc = x->sink->ops->intern_frame(x->sink->self, &f, s, len);
	if (rc)
		return sv_pvx_fail(x, line, rc, "frame %lld: %s", id, rc == SV_ELIMIT ? "name too long" : sv_status_str(rc));
	if (sv_idmap_put(&x->frame_ids, (uint64_t)id, f))
		return sv_pvx_fail(x, line, SV_ENOMEM, "out of memory");
	return 0;
}

int sv_pvx_on_stack(xml_ctx *x, const xmlChar **attrs, int nattrs)
{
	stack_rec r;
	bool present;
	int rc;
	r.line = sv_pvx_line(x);
	r.resolved = UINT32_MAX;
	if ((rc = sv_pvx_attr_ll(x, attrs, nattrs, "Stack", x->n_id, &r.id, &present, true)) ||
	    (rc = sv_pvx_attr_ll(x, attrs, nattrs, "Stack", x->n_callerid, &r.caller, &present, true)) ||
	    (rc = sv_pvx_attr_ll(x, attrs, nattrs, "Stack", x->n_frameid, &r.frame, &present, true)))
		return rc;
	if (r.id < 0)
		return sv_pvx_fail(x, r.line, SV_EFORMAT, "stack ID %lld is negative", r.id);
	if (sv_pvx_stack_find(x, r.id) != SV_IDMAP_NONE)
		return sv_pvx_fail(x, r.line, SV_EFORMAT, "stack ID %lld defined twice", r.id);
	if (SV_ARRAY_RESERVE(x->recs, x->rec_cap, x->nrecs + 1))
		return sv_pvx_fail(x, r.line, SV_ENOMEM, "out of memory");
	if (stack_index(x, r.id, (uint32_t)x->nrecs))
		return sv_pvx_fail(x, r.line, SV_ENOMEM, "out of memory");
	x->recs[x->nrecs++] = r;
	/* resolved now, in one step, when its caller is resolved and its frame known (the usual
	 * order: a sample's lookup is then one read); else when a sample needs it, or at the end
	 * (never a walk per stack: a long chain whose frames come last stays linear) */
	bool ready = r.caller == -1;
	if (!ready) {
		uint32_t ci = sv_pvx_stack_find(x, r.caller);
		ready = ci != SV_IDMAP_NONE && x->recs[ci].resolved != UINT32_MAX;
	}
	if (ready && sv_idmap_get(&x->frame_ids, (uint64_t)r.frame) != SV_IDMAP_NONE) {
		uint32_t st;
		rc = sv_pvx_resolve_stack(x, &st, r.id, r.line);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* A literal stack (simple form): lines leaf first. */
static int literal_stack(xml_ctx *x, uint32_t *out, const char *text, long line)
{
	const char *lines[256];
	const char **v = lines;
	size_t n = 0, cap = 256;
	int rc = 0;
	const char *s = text;
	while (*s) {
		const char *e = strchr(s, '\n');
		if (!e)
			e = s + strlen(s);
		if (n == cap) {
			if (cap >= SV_MAX_STACK_DEPTH * 2) {
				rc = sv_pvx_fail(x, line, SV_ELIMIT, "stack deeper than %u frames", SV_MAX_STACK_DEPTH);
				goto out;
			}
			const char **nv = malloc(cap * 2 * sizeof(*nv));
			if (!nv) {
				rc = sv_pvx_fail(x, line, SV_ENOMEM, "out of memory");
				goto out;
			}
			memcpy(nv, v, n * sizeof(*v));
			if (v != lines)
				free(v);
			v = nv;
			cap *= 2;
		}
		v[n++] = s; /* start of line; end found again below */
		s = *e ? e + 1 : e;
	}
	uint32_t st = SV_STACK_NONE;
	size_t depth = 0;
	for (size_t i = n; i-- > 0;) { /* root-most is the last line */
		const char *a = v[i];
		const char *z = strchr(a, '\n');
		if (!z)
			z = a + strlen(a);
		while (a < z && isspace((unsigned char)*a))
			a++;
		while (z > a && isspace((unsigned char)z[-1]))
			z--;
		if (z == a)
			continue;
		if (++depth > SV_MAX_STACK_DEPTH) {
			rc = sv_pvx_fail(x, line, SV_ELIMIT, "stack deeper than %u frames", SV_MAX_STACK_DEPTH);
			goto out;
		}
		uint32_t f;
		rc = x->sink->ops->intern_frame(x->sink->self, &f, a, (size_t)(z - a));
		if (!rc)
			rc = x->sink->ops->intern_stack(x->sink->self, &st, st, f);
		if (rc) {
			rc = sv_pvx_fail(x, line, rc, "cannot intern frame (%s)", rc == SV_ELIMIT ? "name too long" : sv_status_str(rc));
			goto out;
		}
	}
	*out = st;
out:
	if (v != lines)
		free(v);
	return rc;
}

/* A sample's attributes, at its start. */
int sv_pvx_sample_start(xml_ctx *x, const xmlChar **attrs, int nattrs)
{
	bool has_time, has_metric;
	int rc;
	x->time = 0, x->metric = 1, x->sid = -1;
	if ((rc = sv_pvx_attr_double(x, attrs, nattrs, x->n_time, &x->time, &has_time)) ||
	    (rc = sv_pvx_attr_double(x, attrs, nattrs, x->n_metric, &x->metric, &has_metric)) ||
	    (rc = sv_pvx_attr_ll(x, attrs, nattrs, "Sample", x->n_stackid, &x->sid, &x->has_stack, false)))
		return rc;
	return 0;
}

/* A sample, at its end: its text (the simple form's literal stack) or its StackID. */
int sv_pvx_on_sample(xml_ctx *x)
{
	long line = x->cur_line;
	double time = x->time, metric = x->metric;
	long long sid = x->sid;
	int rc;
	bool has_text = false;
	for (size_t i = 0; i < x->ntext && !has_text; i++)
		has_text = !isspace((unsigned char)x->text[i]);
	uint32_t st = SV_STACK_NONE;
	if (has_text) {
		rc = literal_stack(x, &st, x->text, line);
		return rc ? rc : sv_pvx_add_sample(x, st, time, metric, line);
	}
	if (!x->has_stack || sid == -1) /* D7: no stack = ROOT exclusive */
		return sv_pvx_add_sample(x, SV_STACK_NONE, time, metric, line);
	rc = x->deferring ? 1 : sv_pvx_resolve_stack(x, &st, sid, line);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return sv_pvx_add_sample(x, st, time, metric, line);
	/* Not resolvable yet (stacks or frames may follow samples): keep it, and the samples
	 * after it, for the end. */
	x->deferring = true;
	if (SV_ARRAY_RESERVE(x->pend, x->pend_cap, x->npend + 1))
		return sv_pvx_fail(x, line, SV_ENOMEM, "out of memory");
	x->pend[x->npend++] = (pending){ sid, false, 0, time, metric, line };
	return 0;
}
