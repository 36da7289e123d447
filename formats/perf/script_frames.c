/* SPDX-License-Identifier: MIT */
/* `perf script` text: frame lines named and interned (`module!symbol`, inlined frames
 * waiting for their real frame, each line's text remembered), and a sample's stack under its
 * thread and process frames. */
#include <ctype.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "script_int.h"
#include "sv/idmap.h"
#include "sv/cpu_root.h"
#include "sv/thread_time.h"
#include "core/two_parts.h"
#include "script_int.h"

/* ---- frames ---- */

/* Remove enclosing (...) and [...] layers: "[unknown]" -> "unknown". */
static span unwrap(span s)
{
	s = sv_ps_trim(s);
	while (s.n >= 2 && ((s.p[0] == '(' && s.p[s.n - 1] == ')') || (s.p[0] == '[' && s.p[s.n - 1] == ']'))) {
		s.p++;
		s.n -= 2;
		s = sv_ps_trim(s);
	}
	return s;
}

/* `ADDRESS SYMBOL (DSO)` after the leading blanks. */
static void parse_frame(span line, raw_frame *f)
{
	line = sv_ps_trim(line);
	size_t i = 0;
	while (i < line.n && !sv_ps_blank(line.p[i]))
		i++;
	span rest = sv_ps_trim((span){ line.p + i, line.n - i });
	memset(f, 0, sizeof(*f));
	f->addr = (span){ line.p, i };
	if (rest.n && rest.p[rest.n - 1] == ')') {
		/* The '(' that balances the last ')': "(/memfd:x (deleted))" is one DSO. */
		const char *open = NULL;
		size_t depth = 0;
		for (size_t k = rest.n; k-- > 0;) {
			if (rest.p[k] == ')')
				depth++;
			else if (rest.p[k] == '(' && --depth == 0) {
				open = rest.p + k;
				break;
			}
		}
		if (open) {
			f->sym = sv_ps_trim((span){ rest.p, (size_t)(open - rest.p) });
			f->dso = (span){ open, (size_t)(rest.p + rest.n - open) };
		} else {
			f->sym = rest;
		}
	} else {
		f->sym = rest;
	}
	f->sym = unwrap(f->sym);
	f->dso = unwrap(f->dso);
	f->inlined = f->dso.n == 7 && memcmp(f->dso.p, "inlined", 7) == 0;
}

static span basename_of(span s)
{
	for (size_t k = s.n; k-- > 0;)
		if (s.p[k] == '/' || s.p[k] == '\\')
			return (span){ s.p + k + 1, s.n - k - 1 };
	return s;
}

static bool ends_with(span s, const char *suf)
{
	size_t l = strlen(suf);
	return s.n >= l && memcmp(s.p + s.n - l, suf, l) == 0;
}

/* Strip a trailing .NET optimisation tier "[OptimizedTier1]" (§1.5 step 6). */
static span strip_tier(span s)
{
	if (s.n < 3 || s.p[s.n - 1] != ']')
		return s;
	const char *open = NULL;
	for (size_t k = s.n - 1; k-- > 0;)
		if (s.p[k] == '[') {
			open = s.p + k;
			break;
		}
	if (!open || open == s.p)
		return s;
	span tier = { open + 1, (size_t)(s.p + s.n - 1 - open - 1) };
	static const char *const words[] = { "Tier", "Jitted", "Optimized", "PreJIT", "ReadyToRun" };
	for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++)
		if (tier.n >= strlen(words[w]) && memmem(tier.p, tier.n, words[w], strlen(words[w])))
			return (span){ s.p, (size_t)(open - s.p) };
	return s;
}

static int name_reserve(ps_ctx *c, size_t need)
{
	if (need <= c->name_cap)
		return 0;
	size_t ncap = c->name_cap ? c->name_cap : 256;
	while (ncap < need)
		ncap *= 2;
	char *p = realloc(c->name, ncap);
	if (!p)
		return SV_ENOMEM;
	c->name = p;
	c->name_cap = ncap;
	return 0;
}

/* module!symbol for one frame; `module_hint` is the module of the real frame an inlined
 * frame belongs to. */
static int frame_id(ps_ctx *c, sv_frame_id *out, const raw_frame *f, span module_hint)
{
	span sym = f->sym, module = f->inlined ? module_hint : basename_of(f->dso);
	if (!f->dso.n && !f->inlined)
		module = (span){ "unknown", 7 };
	span jm, jrest;
	if (!f->inlined && (ends_with(f->dso, ".map") || (ends_with(module, ".so") && module.n > 7 &&
							 memcmp(module.p, "jitted-", 7) == 0)) &&
	    sv_perf_jit_split(sym.p, sym.n, &jm.p, &jm.n, &jrest.p, &jrest.n)) {
		module = jm;
		sym = sv_ps_trim(jrest);
	}
	sym = strip_tier(sv_ps_strip_offset(sym));
	/* No symbol: the address, so unresolved code stays apart (perf report's [.] 0x… rows);
	 * GroupPats {%}!0x%->$1!unknown makes one row of a module's again. */
	char hex[24];
	if ((!sym.n || (sym.n == 7 && memcmp(sym.p, "unknown", 7) == 0)) && !f->inlined && f->addr.n &&
	    f->addr.n <= 16 && sv_ps_is_hex(f->addr)) {
		size_t z = 0;
		while (z + 1 < f->addr.n && f->addr.p[z] == '0')
			z++;
		int hl = snprintf(hex, sizeof(hex), "0x%.*s", (int)(f->addr.n - z), f->addr.p + z);
		sym = (span){ hex, (size_t)hl };
	}
	if (!sym.n)
		sym = (span){ "unknown", 7 };
	if (!module.n)
		module = (span){ "unknown", 7 };
	static const char mark[] = " (inlined)"; /* as perf script prints inline frames */
	size_t extra = f->inlined ? sizeof(mark) - 1 : 0;
	size_t len = module.n + 1 + sym.n + extra;
	if (len > SV_MAX_NAME_LEN)
		return sv_ps_fail(c, SV_ELIMIT, "frame name longer than 64 KiB");
	if (name_reserve(c, len + 1))
		return sv_ps_fail(c, SV_ENOMEM, "out of memory");
	memcpy(c->name, module.p, module.n);
	c->name[module.n] = '!';
	memcpy(c->name + module.n + 1, sym.p, sym.n);
	memcpy(c->name + module.n + 1 + sym.n, mark, extra);
	int rc = c->sink->ops->intern_frame(c->sink->self, out, c->name, len);
	if (rc)
		return sv_ps_fail(c, rc, "cannot intern frame");
	/* A frame seen for the first time: is its file the profiled program's own? */
	if (*out >= c->frames_seen) {
		c->frames_seen = *out + 1;
		if (!f->inlined && module.p == basename_of(f->dso).p && sv_perf_program_file(f->dso.p, f->dso.n) &&
		    c->sink->ops->add_user_module && (rc = c->sink->ops->add_user_module(c->sink->self, module.p, module.n)))
			return sv_ps_fail(c, rc, "out of memory");
	}
	return 0;
}

/* Name the inlined frames seen since the last real frame, with that real frame's module. */
static int resolve_pending(ps_ctx *c, span module)
{
	const char *t = c->pend_text;
	for (size_t k = 0; k < c->npend; k++) {
		raw_frame f = { .sym = { t, strlen(t) }, .inlined = true };
		int rc = frame_id(c, &c->fids[c->pend[k]], &f, module);
		if (rc)
			return rc;
		t += f.sym.n + 1;
	}
	c->npend = 0;
	c->pend_len = 0;
	return 0;
}

/* ---- the frame lines seen before ---- */

#define SEEN_MAX (1u << 20)        /* lines remembered */
#define SEEN_TEXT_MAX (64u << 20)  /* bytes of their text */
#define SEEN_PROBES 16             /* a lookup gives up after this many slots (hostile text) */

/* The slot of a line: its own (seen), or an empty one to fill, or NULL (the probe limit). */
static struct ps_seen *seen_slot(ps_ctx *c, span line, uint64_t h, bool *hit)
{
	*hit = false;
	if (!c->seen_cap)
		return NULL;
	size_t mask = c->seen_cap - 1;
	for (size_t k = 0, i = h & mask; k < SEEN_PROBES; k++, i = (i + 1) & mask) {
		struct ps_seen *s = &c->seen[i];
		if (!s->len)
			return s;
		if (s->hash == h && s->len == line.n && memcmp(c->seen_text + s->off, line.p, line.n) == 0) {
			*hit = true;
			return s;
		}
	}
	return NULL;
}

/* Remember a real frame's line (bounded: past the bounds lines are named every time), with
 * its location as a leaf or caller when found (`role` 0 or 1; -1 none). */
static int seen_add(ps_ctx *c, span line, uint64_t h, sv_frame_id frame, int role, uint32_t loc)
{
	if (!line.n || line.n > UINT32_MAX || c->nseen >= SEEN_MAX || c->seen_len + line.n > SEEN_TEXT_MAX)
		return 0;
	if ((c->nseen + 1) * 2 > c->seen_cap) {
		size_t ncap = c->seen_cap ? c->seen_cap * 2 : 4096;
		struct ps_seen *t = calloc(ncap, sizeof(*t));
		if (!t)
			return SV_ENOMEM;
		for (size_t i = 0; i < c->seen_cap; i++)
			if (c->seen[i].len)
				for (size_t j = c->seen[i].hash & (ncap - 1);; j = (j + 1) & (ncap - 1))
					if (!t[j].len) {
						t[j] = c->seen[i];
						break;
					}
		free(c->seen);
		c->seen = t;
		c->seen_cap = ncap;
	}
	bool hit;
	struct ps_seen *s = seen_slot(c, line, h, &hit);
	if (!s || hit)
		return 0;
	if (sv_array_reserve(&c->seen_text, &c->seen_text_cap, c->seen_len + line.n, 1))
		return SV_ENOMEM;
	memcpy(c->seen_text + c->seen_len, line.p, line.n);
	*s = (struct ps_seen){ h, (uint32_t)c->seen_len, (uint32_t)line.n, frame, { SV_PS_LOC_UNSET, SV_PS_LOC_UNSET } };
	if (role >= 0)
		s->loc[role] = loc;
	c->seen_len += line.n;
	c->nseen++;
	return 0;
}

/* A real frame's location onto the sample's (none: nothing). */
static int push_loc(ps_ctx *c, uint32_t loc)
{
	if (loc == SV_LOC_NONE || loc == SV_PS_LOC_UNSET)
		return 0;
	if (SV_ARRAY_PUSH(c->locs, c->nlocs, c->locs_cap, loc))
		return sv_ps_fail(c, SV_ENOMEM, "out of memory");
	return 0;
}

/* One frame line: named at once (the line does not outlive this call), except inlined
 * frames, which wait for the real frame rootward of them to learn their module. A line seen
 * before names the same frame (when no inlined frames wait for its module). */
int sv_ps_push_frame(ps_ctx *c, span line)
{
	if (c->nframes >= SV_MAX_STACK_DEPTH)
		return sv_ps_fail(c, SV_ELIMIT, "callchain deeper than 100000 frames");
	if (SV_ARRAY_RESERVE(c->fids, c->fid_cap, c->nframes + 1))
		return sv_ps_fail(c, SV_ENOMEM, "out of memory");
	uint64_t h = 0;
	if (!c->npend && !c->seen_off) {
		bool hit;
		h = sv_hash_bytes(line.p, line.n);
		struct ps_seen *s = seen_slot(c, line, h, &hit);
		/* a text where lines rarely repeat (millions of addresses) is named line by line */
		if (++c->seen_tries == 65536) {
			c->seen_off = c->seen_hits < c->seen_tries / 4;
			c->seen_tries = c->seen_hits = 0;
		}
		if (hit) {
			c->seen_hits++;
			c->fids[c->nframes++] = s->frame;
			if (!c->code || (c->leaf_done && !c->opts->code_paths)) {
				c->leaf_done = true;
				return 0;
			}
			int role = c->leaf_done;
			c->leaf_done = true;
			if (s->loc[role] == SV_PS_LOC_UNSET) {
				raw_frame f;
				parse_frame(line, &f);
				uint32_t loc;
				int rc = sv_ps_frame_location(c, &f, s->frame, !role, &loc);
				if (rc)
					return sv_ps_fail(c, rc, "cannot read a frame's code file");
				s->loc[role] = loc; /* (the slot has not moved: nothing was added) */
			}
			return push_loc(c, s->loc[role]);
		}
	}
	raw_frame f;
	parse_frame(line, &f);
	size_t idx = c->nframes++;
	if (f.inlined) {
		if (SV_ARRAY_RESERVE(c->pend, c->pend_cap, c->npend + 1) ||
		    sv_array_reserve(&c->pend_text, &c->pend_text_cap, c->pend_len + f.sym.n + 1, 1))
			return sv_ps_fail(c, SV_ENOMEM, "out of memory");
		memcpy(c->pend_text + c->pend_len, f.sym.p, f.sym.n);
		c->pend_text[c->pend_len + f.sym.n] = '\0';
		c->pend_len += f.sym.n + 1;
		c->pend[c->npend++] = idx;
		return 0;
	}
	span module = f.dso.n ? basename_of(f.dso) : (span){ "unknown", 7 };
	bool alone = !c->npend && !c->seen_off;
	int rc = frame_id(c, &c->fids[idx], &f, module);
	int role = -1;
	uint32_t loc = SV_LOC_NONE;
	if (!rc && c->code && (!c->leaf_done || c->opts->code_paths)) {
		role = c->leaf_done;
		if ((rc = sv_ps_frame_location(c, &f, c->fids[idx], !role, &loc)))
			return sv_ps_fail(c, rc, "cannot read a frame's code file");
	}
	c->leaf_done = true;
	if (!rc && alone && (rc = seen_add(c, line, h, c->fids[idx], role, loc)))
		return sv_ps_fail(c, rc, "out of memory");
	if (!rc && (rc = push_loc(c, loc)))
		return rc;
	return rc ? rc : resolve_pending(c, module);
}

int sv_ps_sample_stack(ps_ctx *c, const header *h, sv_stack_id *out)
{
	sv_stack_id st;
	int rc = sv_perf_names_thread(&c->names, c->sink, h->pid, h->tid, h->comm.p, h->comm.n, &st);
	if (rc)
		return sv_ps_fail(c, rc, "cannot intern thread");
	if ((rc = resolve_pending(c, (span){ "inlined", 7 })))
		return rc;
	size_t n = c->nframes, same = 0;
	if (st == c->last_root)
		while (same < n && same < c->nlast && c->fids[n - 1 - same] == c->last[same].frame)
			same++;
	if (SV_ARRAY_RESERVE(c->last, c->last_cap, n + 1))
		return sv_ps_fail(c, SV_ENOMEM, "out of memory");
	c->last_root = st;
	if (same)
		st = c->last[same - 1].stack;
	for (size_t d = same; d < n; d++) {
		if ((rc = c->sink->ops->intern_stack(c->sink->self, &st, st, c->fids[n - 1 - d])))
			return sv_ps_fail(c, rc, "cannot intern stack");
		c->last[d] = (struct ps_link){ c->fids[n - 1 - d], st };
	}
	c->nlast = n;
	*out = st;
	return 0;
}
