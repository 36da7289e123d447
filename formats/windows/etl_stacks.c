/* SPDX-License-Identifier: MIT */
/* ETL importer: address stacks and stack stitching: samples are matched to StackWalk
 * events and to stack-key references and definitions (etl.md §9). */
#include <string.h>

#include "etl_int.h"
#include "sv/array.h"
#include "sv/idmap.h"

/* ---- address stacks ---- */

bool sv_etl_is_kernel(const etl_ctx *c, uint64_t a)
{
	return c->ptr == 8 ? a >= 0xFFFF000000000000ULL : a >= 0x80000000ULL;
}

int sv_etl_intern_addrs(etl_ctx *c, uint32_t *out, const unsigned char *p, size_t n, unsigned ptr)
{
	uint64_t h = 1469598103934665603ULL;
	if (SV_ARRAY_RESERVE(c->addrs, c->addrcap, c->naddrs + n))
		return SV_ENOMEM;
	uint64_t *a = c->addrs + c->naddrs;
	for (size_t i = 0; i < n; i++) {
		a[i] = rdptr(p + i * ptr, ptr);
		h = (h ^ a[i]) * 1099511628211ULL;
	}
	h = sv_hash_mix64(h ^ n);
	uint32_t head = sv_idmap_get(&c->as_index, h);
	for (uint32_t id = head; id != SV_IDMAP_NONE && id != 0; id = c->as_next[id - 1]) {
		uint32_t k = id - 1;
		if (c->as_len[k] == n && memcmp(c->addrs + c->as_start[k], a, n * sizeof(*a)) == 0) {
			*out = k;
			return 0;
		}
	}
	if (c->nas >= AS_NOSTACK - 1)
		return sv_etl_fail(c, SV_ELIMIT, 0, "too many distinct stacks");
	if (SV_ARRAY_RESERVE(c->as_start, c->ascap, c->nas + 1) ||
	    SV_ARRAY_RESERVE(c->as_len, c->aslencap, c->nas + 1) ||
	    SV_ARRAY_RESERVE(c->as_next, c->asnextcap, c->nas + 1))
		return SV_ENOMEM;
	uint32_t k = (uint32_t)c->nas++;
	c->as_start[k] = c->naddrs;
	c->as_len[k] = (uint32_t)n;
	c->as_next[k] = head == SV_IDMAP_NONE ? 0 : head;
	c->naddrs += n;
	*out = k;
	return sv_idmap_put(&c->as_index, h, k + 1);
}

/* ---- samples and stack stitching (etl.md §9) ---- */

uint32_t sv_etl_list_get(const sv_idmap *m, uint64_t key)
{
	uint32_t v = sv_idmap_get(m, key);
	return v == SV_IDMAP_NONE ? 0 : v;
}

static esample *find_sample(etl_ctx *c, uint64_t ts, uint32_t tid)
{
	uint32_t v = sv_etl_list_get(&c->by_ts, ts);
	for (int i = 0; v && i < MAX_CHAIN; i++) {
		esample *s = &c->samples[v - 1];
		if (s->tid == tid)
			return s;
		v = s->next_ts;
	}
	return NULL;
}

static int push_pending(etl_ctx *c, esample *s)
{
	if (s->state & IN_PEND)
		return 0;
	s->state |= IN_PEND;
	s->next_pend = sv_etl_list_get(&c->pend, s->tid);
	return sv_idmap_put(&c->pend, s->tid, (uint32_t)(s - c->samples) + 1);
}

static int push_wait(etl_ctx *c, esample *s, uint64_t key, bool kernel)
{
	uint8_t bit = kernel ? IN_KW : IN_UW;
	if (s->state & bit)
		return 0;
	s->state |= bit;
	sv_idmap *m = kernel ? &c->kwait : &c->uwait;
	uint32_t head = sv_etl_list_get(m, key);
	if (kernel)
		s->next_kw = head;
	else
		s->next_uw = head;
	return sv_idmap_put(m, key, (uint32_t)(s - c->samples) + 1);
}

int sv_etl_on_sample(etl_ctx *c, const etl_rec *r)
{
	unsigned P = c->ptr;
	if (r->plen < P + 7) {
		sv_etl_warn(c, W_PAYLOAD, "short SampledProfile event at byte %zu of the buffer at byte offset %zu", r->pos + BUF_HDR,
		      c->bufs[r->buf].off);
		return 0;
	}
	c->raw_samples++;
	uint32_t tid = rd32(r->payload + P);
	uint8_t flags = r->payload[P + 6];
	if (tid == 0 && !(flags & 3)) {
		c->idle_samples++;
		return 0;
	}
	if (c->nsamples >= SV_MAX_SAMPLES)
		return sv_etl_fail(c, SV_ELIMIT, c->bufs[r->buf].off, "more than %u samples", SV_MAX_SAMPLES);
	if (SV_ARRAY_RESERVE(c->samples, c->samplecap, c->nsamples + 1))
		return SV_ENOMEM;
	esample *s = &c->samples[c->nsamples];
	memset(s, 0, sizeof(*s));
	s->ts = r->ts;
	s->ip = rdptr(r->payload, P);
	s->tid = tid;
	s->flags = flags & 3;
	s->cpu = (uint16_t)r->cpu;
	s->kid = s->uid = AS_NONE;
	s->next_ts = sv_etl_list_get(&c->by_ts, r->ts);
	c->nsamples++;
	return sv_idmap_put(&c->by_ts, r->ts, (uint32_t)c->nsamples);
}

int sv_etl_on_switch(etl_ctx *c, const etl_rec *r)
{
	bool cs = r->type == 36;
	const unsigned char *p = r->payload;
	if (r->plen < (cs ? 16u : 4u)) {
		sv_etl_warn(c, W_PAYLOAD, "short %s event at byte %zu of the buffer at byte offset %zu", cs ? "CSwitch" : "ReadyThread",
			    r->pos + BUF_HDR, c->bufs[r->buf].off);
		return 0;
	}
	if (c->nsamples >= SV_MAX_SAMPLES)
		return sv_etl_fail(c, SV_ELIMIT, c->bufs[r->buf].off, "more than %u samples", SV_MAX_SAMPLES);
	if (r->cpu < 4096 && r->cpu >= c->ncpu_cur) {
		size_t n = c->ncpu_cur;
		if (SV_ARRAY_RESERVE(c->cpu_cur, c->ncpu_cur, (size_t)r->cpu + 1))
			return SV_ENOMEM;
		memset(c->cpu_cur + n, 0, (c->ncpu_cur - n) * sizeof(*c->cpu_cur));
	}
	uint32_t *cur = r->cpu < c->ncpu_cur ? &c->cpu_cur[r->cpu] : NULL;
	if (SV_ARRAY_RESERVE(c->samples, c->samplecap, c->nsamples + 1))
		return SV_ENOMEM;
	esample *s = &c->samples[c->nsamples];
	memset(s, 0, sizeof(*s));
	s->ts = r->ts;
	s->cpu = (uint16_t)r->cpu;
	s->kid = s->uid = AS_NONE;
	if (cs) { /* NewThreadId, OldThreadId, priorities, C-state, spare, OldThreadWaitReason,
		   * OldThreadWaitMode, OldThreadState, ... (etl.md §11) */
		s->ekind = ES_CSWITCH;
		s->tid = rd32(p);
		s->other = rd32(p + 4);
		s->reason = p[12];
		s->ostate = p[14];
		if (cur)
			*cur = s->tid;
		c->cswitches++;
	} else { /* ThreadId (the awakened), AdjustReason, AdjustIncrement, Flags */
		s->ekind = ES_READY;
		s->tid = cur ? *cur : 0;
		s->other = rd32(p);
		c->readies++;
	}
	s->next_ts = sv_etl_list_get(&c->by_ts, r->ts);
	c->nsamples++;
	return sv_idmap_put(&c->by_ts, r->ts, (uint32_t)c->nsamples);
}

int sv_etl_on_stackwalk(etl_ctx *c, const etl_rec *r)
{
	unsigned P = c->ptr;
	const unsigned char *p = r->payload;
	int rc = 0;
	if (r->type == 35 || r->type == 36) { /* a stack key's definition */
		if (r->plen < 2 * (size_t)P)
			return 0;
		c->keydefs++;
		uint64_t key = rdptr(p, P);
		size_t n = (r->plen - P) / P;
		uint32_t aid;
		if ((rc = sv_etl_intern_addrs(c, &aid, p + P, n, P)))
			return rc;
		bool kernel = sv_etl_is_kernel(c, rdptr(p + P + (n - 1) * P, P));
		sv_idmap *m = kernel ? &c->kwait : &c->uwait;
		uint32_t v = sv_etl_list_get(m, key);
		if (!v)
			return 0;
		while (v) {
			esample *s = &c->samples[v - 1];
			if (kernel) {
				s->kid = aid;
				s->state &= (uint8_t)~IN_KW;
				v = s->next_kw;
			} else {
				s->uid = aid;
				s->state &= (uint8_t)~IN_UW;
				v = s->next_uw;
			}
		}
		return sv_idmap_put(m, key, 0);
	}
	if (r->plen < 16)
		return 0;
	uint64_t ets = rd64(p);
	uint32_t spid = rd32(p + 8), stid = rd32(p + 12);
	esample *s = find_sample(c, ets, stid);
	if (r->type == 32) {
		size_t n = (r->plen - 16) / P;
		if (n == 0)
			return 0;
		c->stacks32++;
		if (!s)
			return 0; /* the stack of some other event */
		s->spid = spid + 1;
		uint32_t aid;
		if ((rc = sv_etl_intern_addrs(c, &aid, p + 16, n, P)))
			return rc;
		if (sv_etl_is_kernel(c, rdptr(p + 16 + (n - 1) * P, P))) { /* kernel half: the user half comes later */
			s->kid = aid;
			if (spid == 0 || spid == 4)
				s->uid = AS_EMPTY;
			else if (s->uid == AS_NONE)
				rc = push_pending(c, s);
		} else if (!sv_etl_is_kernel(c, rdptr(p + 16, P))) { /* user half: completes the thread's pending samples */
			uint32_t v = sv_etl_list_get(&c->pend, stid);
			while (v) {
				esample *q = &c->samples[v - 1];
				q->state &= (uint8_t)~IN_PEND;
				if (q->uid == AS_NONE)
					q->uid = aid;
				v = q->next_pend;
			}
			if ((rc = sv_idmap_put(&c->pend, stid, 0)))
				return rc;
			if (s->uid == AS_NONE)
				s->uid = aid;
		} else { /* kernel and user frames in one record */
			s->kid = AS_EMPTY;
			s->uid = aid;
		}
		return rc;
	}
	if (r->plen < 16 + (size_t)P || (r->type != 37 && r->type != 38))
		return 0;
	c->keyrefs++;
	uint64_t key = rdptr(p + 16, P);
	if (r->type == 37) {
		if (!s)
			return 0;
		s->spid = spid + 1;
		if ((rc = push_wait(c, s, key, true)))
			return rc;
		if (spid == 0 || spid == 4)
			s->uid = AS_EMPTY;
		else if (s->uid == AS_NONE)
			rc = push_pending(c, s);
		return rc;
	}
	uint32_t v = sv_etl_list_get(&c->pend, stid);
	while (v) {
		esample *q = &c->samples[v - 1];
		q->state &= (uint8_t)~IN_PEND;
		uint32_t next = q->next_pend;
		if (q->uid == AS_NONE && (rc = push_wait(c, q, key, false)))
			return rc;
		v = next;
	}
	if ((rc = sv_idmap_put(&c->pend, stid, 0)))
		return rc;
	if (s) {
		s->spid = spid + 1;
		if (s->uid == AS_NONE)
			rc = push_wait(c, s, key, false);
	}
	return rc;
}
