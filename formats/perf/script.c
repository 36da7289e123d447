/* SPDX-License-Identifier: MIT */
/* `perf script` text importer (spec/perf.md §1, §9; semantics.md §1.5 with decision D3).
 * Every header form parses: comm with blanks and digits, pid/tid or tid only, with or without
 * [cpu], time and period, event names with `:` and `/`, tracepoint payloads, one-line `-G`
 * samples, `PERF_RECORD_*` lines. Frames are `module!symbol`; the metric is perf's period
 * (ms for cpu-clock/task-clock, which make the source time-metric); one event at a time.
 * Header lines are lexed by script_lex.c; frame lines here, where their small helpers
 * inline into the hot loop (a separate file cost 7 % of load time). */
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

typedef struct event_count {
	char *name;
	size_t samples;
} event_count;

typedef struct ps_ctx {
	sv_sink *sink;
	const sv_input *in;
	const sv_import_opts *opts;
	sv_error *err;
	long line;

	sv_perf_names names;  /* Process and Thread frames */

	event_count *events;
	size_t nevents, event_cap;
	long selected;        /* index into events, -1 = not chosen yet */
	bool clock_event, any_period;
	bool have_t0;
	long long t0_s, t0_ns;

	sv_frame_id frames_seen; /* frame ids below this have been seen (user modules noted) */
	sv_frame_id *fids;   /* this sample's frames, leaf first */
	size_t nframes, fid_cap;
	/* the last sample's chain, root first: its frames and the stack after each, so the next
	 * sample of the same thread interns only what differs below their common part */
	sv_stack_id last_root;
	struct ps_link { sv_frame_id frame; sv_stack_id stack; } *last;
	size_t nlast, last_cap;
	size_t *pend;        /* inlined frames waiting for their real frame: index into fids */
	size_t npend, pend_cap;
	char *pend_text;     /* their symbol texts, NUL-separated */
	size_t pend_len, pend_text_cap;
	/* frame lines seen before, by their exact text: the frame they name (a callchain line
	 * repeats for every sample through the same address, and naming it costs more than
	 * finding it) */
	struct ps_seen { uint64_t hash; uint32_t off, len; sv_frame_id frame; } *seen;
	size_t seen_cap, nseen;
	size_t seen_tries, seen_hits; /* this window's lookups; too few hits turn the table off */
	bool seen_off;
	char *seen_text;
	size_t seen_len, seen_text_cap;
	char *hdr;           /* copy of the current header line (the input moves on) */
	size_t hdr_cap;
	char *name;
	size_t name_cap;
	char *default_event;

	/* thread time (thread_time.h): the view asked for, the computer, and each thread's pid
	 * and name as the sample headers (else the tracepoints' payloads) give them */
	bool tt_on;
	sv_tt_view tt_view;
	sv_tt *tt;
	size_t tt_switches, tt_sampled;
	sv_idmap tid_idx; /* tid -> index into tids */
	struct ps_tid {
		long long pid;
		char comm[SV_PERF_COMM_MAX];
		bool from_header;
	} *tids;
	size_t ntids, tid_cap;
	sv_cpu_root cpu_roots; /* --by-cpu */
	bool later_part; /* reading from the middle of the input (ps_parse_all) */
} ps_ctx;

static int ps_fail(ps_ctx *c, int code, const char *what)
{
	sv_error_set(c->err, code, "%s", what);
	sv_error_locate(c->err, c->in->name, c->line, -1);
	return code;
}

/* ---- frames ---- */

/* Byte tests without the locale tables: this is the hot loop of the importer. */
static inline bool space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\v' || ch == '\f';
}

static inline bool hexdigit(char ch)
{
	return (ch >= '0' && ch <= '9') || ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'f');
}

static span trim(span s)
{
	while (s.n && space(s.p[0])) {
		s.p++;
		s.n--;
	}
	while (s.n && space(s.p[s.n - 1]))
		s.n--;
	return s;
}

/* Remove enclosing (...) and [...] layers: "[unknown]" -> "unknown". */
static span unwrap(span s)
{
	s = trim(s);
	while (s.n >= 2 && ((s.p[0] == '(' && s.p[s.n - 1] == ')') || (s.p[0] == '[' && s.p[s.n - 1] == ']'))) {
		s.p++;
		s.n -= 2;
		s = trim(s);
	}
	return s;
}

static bool is_hex_span(span t)
{
	if (!t.n)
		return false;
	for (size_t i = 0; i < t.n; i++)
		if (!hexdigit(t.p[i]))
			return false;
	return true;
}

/* `ADDRESS SYMBOL (DSO)` after the leading blanks. */
static void parse_frame(span line, raw_frame *f)
{
	line = trim(line);
	size_t i = 0;
	while (i < line.n && !sv_ps_blank(line.p[i]))
		i++;
	span rest = trim((span){ line.p + i, line.n - i });
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
			f->sym = trim((span){ rest.p, (size_t)(open - rest.p) });
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

/* Strip a trailing "+0x<hex>" (not at position 0). */
static span strip_offset(span s)
{
	for (size_t k = s.n; k-- > 1;) {
		if (s.p[k] != '+')
			continue;
		if (k + 2 < s.n && s.p[k + 1] == '0' && s.p[k + 2] == 'x' && is_hex_span((span){ s.p + k + 3, s.n - k - 3 }))
			return (span){ s.p, k };
		break;
	}
	return s;
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
		sym = trim(jrest);
	}
	sym = strip_tier(strip_offset(sym));
	/* No symbol: the address, so unresolved code stays apart (perf report's [.] 0x… rows);
	 * GroupPats {%}!0x%->$1!unknown makes one row of a module's again. */
	char hex[24];
	if ((!sym.n || (sym.n == 7 && memcmp(sym.p, "unknown", 7) == 0)) && !f->inlined && f->addr.n &&
	    f->addr.n <= 16 && is_hex_span(f->addr)) {
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
		return ps_fail(c, SV_ELIMIT, "frame name longer than 64 KiB");
	if (name_reserve(c, len + 1))
		return ps_fail(c, SV_ENOMEM, "out of memory");
	memcpy(c->name, module.p, module.n);
	c->name[module.n] = '!';
	memcpy(c->name + module.n + 1, sym.p, sym.n);
	memcpy(c->name + module.n + 1 + sym.n, mark, extra);
	int rc = c->sink->ops->intern_frame(c->sink->self, out, c->name, len);
	if (rc)
		return ps_fail(c, rc, "cannot intern frame");
	/* A frame seen for the first time: is its file the profiled program's own? */
	if (*out >= c->frames_seen) {
		c->frames_seen = *out + 1;
		if (!f->inlined && module.p == basename_of(f->dso).p && sv_perf_program_file(f->dso.p, f->dso.n) &&
		    c->sink->ops->add_user_module && (rc = c->sink->ops->add_user_module(c->sink->self, module.p, module.n)))
			return ps_fail(c, rc, "out of memory");
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

/* Remember a real frame's line (bounded: past the bounds lines are named every time). */
static int seen_add(ps_ctx *c, span line, uint64_t h, sv_frame_id frame)
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
	*s = (struct ps_seen){ h, (uint32_t)c->seen_len, (uint32_t)line.n, frame };
	c->seen_len += line.n;
	c->nseen++;
	return 0;
}

/* One frame line: named at once (the line does not outlive this call), except inlined
 * frames, which wait for the real frame rootward of them to learn their module. A line seen
 * before names the same frame (when no inlined frames wait for its module). */
static int push_frame(ps_ctx *c, span line)
{
	if (c->nframes >= SV_MAX_STACK_DEPTH)
		return ps_fail(c, SV_ELIMIT, "callchain deeper than 100000 frames");
	if (SV_ARRAY_RESERVE(c->fids, c->fid_cap, c->nframes + 1))
		return ps_fail(c, SV_ENOMEM, "out of memory");
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
			return 0;
		}
	}
	raw_frame f;
	parse_frame(line, &f);
	size_t idx = c->nframes++;
	if (f.inlined) {
		if (SV_ARRAY_RESERVE(c->pend, c->pend_cap, c->npend + 1) ||
		    sv_array_reserve(&c->pend_text, &c->pend_text_cap, c->pend_len + f.sym.n + 1, 1))
			return ps_fail(c, SV_ENOMEM, "out of memory");
		memcpy(c->pend_text + c->pend_len, f.sym.p, f.sym.n);
		c->pend_text[c->pend_len + f.sym.n] = '\0';
		c->pend_len += f.sym.n + 1;
		c->pend[c->npend++] = idx;
		return 0;
	}
	span module = f.dso.n ? basename_of(f.dso) : (span){ "unknown", 7 };
	bool alone = !c->npend && !c->seen_off;
	int rc = frame_id(c, &c->fids[idx], &f, module);
	if (!rc && alone && (rc = seen_add(c, line, h, c->fids[idx])))
		return ps_fail(c, rc, "out of memory");
	return rc ? rc : resolve_pending(c, module);
}

/* ---- processes, threads, events ---- */

/* Index of the event name, adding it when new. */
static int event_index(ps_ctx *c, size_t *out, span ev)
{
	/* a NUL byte in the name becomes U+FFFD (as in frame names): the name stays whole */
	char fixed[4 * 256];
	if (memchr(ev.p, '\0', ev.n)) {
		size_t o = 0;
		for (size_t i = 0; i < ev.n && o + 3 < sizeof(fixed); i++) {
			if (ev.p[i]) {
				fixed[o++] = ev.p[i];
			} else {
				memcpy(fixed + o, "\xEF\xBF\xBD", 3);
				o += 3;
			}
		}
		ev = (span){ fixed, o };
	}
	for (size_t i = 0; i < c->nevents; i++)
		if (strlen(c->events[i].name) == ev.n && memcmp(c->events[i].name, ev.p, ev.n) == 0) {
			*out = i;
			return 0;
		}
	if (c->nevents >= 4096)
		return SV_ELIMIT;
	if (SV_ARRAY_RESERVE(c->events, c->event_cap, c->nevents + 1))
		return SV_ENOMEM;
	event_count *ne = c->events;
	if (!(ne[c->nevents].name = strndup(ev.p, ev.n)))
		return SV_ENOMEM;
	ne[c->nevents].samples = 0;
	*out = c->nevents++;
	return 0;
}

static bool clock_name(const char *e)
{
	static const char *const clocks[] = { "cpu-clock", "task-clock" };
	for (size_t i = 0; i < 2; i++) {
		size_t l = strlen(clocks[i]);
		if (strncmp(e, clocks[i], l) == 0 && (e[l] == '\0' || e[l] == ':' || e[l] == '/'))
			return true;
	}
	return false;
}

/* A frame line of a callchain: a TAB first, or (old outputs) blanks or nothing, a hex address
 * and more text on a line that does not read as a sample header. Srcline lines
 * ("  file.c:12", "  dso[1a2b]") are not frames. */
static bool frame_line(span line)
{
	if (line.n && line.p[0] == '\t')
		return true;
	span tok[2];
	header h;
	return sv_ps_tokenize(line, tok, 2) == 2 && is_hex_span(tok[0]) && !sv_ps_parse_header(line, &h);
}

static bool srcline_line(span line)
{
	return line.n >= 2 && line.p[0] == ' ' && line.p[1] == ' ';
}

/* A tracepoint name is "subsystem:event" ("sched:sched_switch"); "cycles:u" and
 * "cycles:ppp" are an event with modifiers. */
static bool tracepoint_name(span e)
{
	const char *colon = memchr(e.p, ':', e.n);
	if (!colon)
		return false;
	span mod = { colon + 1, (size_t)(e.p + e.n - colon - 1) };
	if (!mod.n || mod.n > 6)
		return mod.n > 0;
	for (size_t i = 0; i < mod.n; i++)
		if (!strchr("ukhGHpPSDIWe", mod.p[i]))
			return true;
	return false;
}

/* The event a source shows when the user names none: the first one that is not a tracepoint
 * (what `perf report` lists first for `-e cpu-clock -e sched:...`), else the first one. The
 * whole input is in memory, so a scan of the header lines is cheap. */
static char *default_event(const char *p, const char *end)
{
	char *first = NULL;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		span line = { p, (size_t)((nl ? nl : end) - p) };
		p = nl ? nl + 1 : end;
		if (!line.n || line.p[0] == '\t' || line.p[0] == '#')
			continue;
		if (line.p[line.n - 1] == '\r')
			line.n--;
		header h;
		if (!sv_ps_parse_header(line, &h) || h.record || !h.event.n)
			continue;
		if (!tracepoint_name(h.event)) {
			free(first);
			return strndup(h.event.p, h.event.n);
		}
		if (!first)
			first = strndup(h.event.p, h.event.n);
	}
	return first;
}

/* The current sample's stack under its thread and process frames. */
static int sample_stack(ps_ctx *c, const header *h, sv_stack_id *out)
{
	sv_stack_id st;
	int rc = sv_perf_names_thread(&c->names, c->sink, h->pid, h->tid, h->comm.p, h->comm.n, &st);
	if (rc)
		return ps_fail(c, rc, "cannot intern thread");
	if ((rc = resolve_pending(c, (span){ "inlined", 7 })))
		return rc;
	size_t n = c->nframes, same = 0;
	if (st == c->last_root)
		while (same < n && same < c->nlast && c->fids[n - 1 - same] == c->last[same].frame)
			same++;
	if (SV_ARRAY_RESERVE(c->last, c->last_cap, n + 1))
		return ps_fail(c, SV_ENOMEM, "out of memory");
	c->last_root = st;
	if (same)
		st = c->last[same - 1].stack;
	for (size_t d = same; d < n; d++) {
		if ((rc = c->sink->ops->intern_stack(c->sink->self, &st, st, c->fids[n - 1 - d])))
			return ps_fail(c, rc, "cannot intern stack");
		c->last[d] = (struct ps_link){ c->fids[n - 1 - d], st };
	}
	c->nlast = n;
	*out = st;
	return 0;
}

/* ---- thread time ---- */

/* What a thread is called: its sample headers' pid and comm, else a payload's comm. */
static int tid_note(ps_ctx *c, long long tid, long long pid, span comm, bool from_header)
{
	if (tid <= 0 || tid > UINT32_MAX)
		return 0;
	uint32_t i = sv_idmap_get(&c->tid_idx, (uint64_t)tid);
	if (i == SV_IDMAP_NONE) {
		if (SV_ARRAY_RESERVE(c->tids, c->tid_cap, c->ntids + 1) || sv_idmap_put(&c->tid_idx, (uint64_t)tid, (uint32_t)c->ntids))
			return SV_ENOMEM;
		i = (uint32_t)c->ntids++;
		c->tids[i] = (struct ps_tid){ tid, "", false };
	} else if (c->tids[i].from_header && !from_header) {
		return 0;
	}
	struct ps_tid *t = &c->tids[i];
	if (from_header || pid >= 0)
		t->pid = pid;
	t->from_header |= from_header;
	size_t n = comm.n < sizeof(t->comm) - 1 ? comm.n : sizeof(t->comm) - 1;
	memcpy(t->comm, comm.p, n);
	t->comm[n] = '\0';
	return 0;
}

static int tt_thread_root(void *payload, uint32_t tid, sv_stack_id *out)
{
	ps_ctx *c = payload;
	uint32_t i = sv_idmap_get(&c->tid_idx, tid);
	char buf[24];
	if (i == SV_IDMAP_NONE) {
		int n = snprintf(buf, sizeof(buf), ":%u", tid);
		return sv_perf_names_thread(&c->names, c->sink, tid, tid, buf, (size_t)n, out);
	}
	const struct ps_tid *t = &c->tids[i];
	return sv_perf_names_thread(&c->names, c->sink, t->pid, tid, t->comm, strlen(t->comm), out);
}

static int tt_waker_frame(void *payload, uint32_t tid, sv_frame_id *out)
{
	ps_ctx *c = payload;
	sv_stack_id root;
	int rc = tt_thread_root(c, tid, &root);
	if (rc)
		return rc;
	uint32_t i = sv_idmap_get(&c->tid_idx, tid);
	return sv_perf_names_waker(&c->names, c->sink, i == SV_IDMAP_NONE ? tid : c->tids[i].pid, tid, out);
}

/* The value of " key=" in a tracepoint payload, up to the next " next_key=" (comms may hold
 * blanks) or the next blank. */
static bool payload_field(span pl, const char *key, const char *until, span *out)
{
	size_t kl = strlen(key);
	const char *p = pl.p, *end = pl.p + pl.n;
	for (;;) {
		const char *at = memmem(p, (size_t)(end - p), key, kl);
		if (!at)
			return false;
		if (at == pl.p || at[-1] == ' ') {
			const char *v = at + kl, *stop = NULL;
			if (until)
				stop = memmem(v, (size_t)(end - v), until, strlen(until));
			if (!stop) {
				stop = v;
				while (stop < end && *stop != ' ')
					stop++;
			}
			*out = (span){ v, (size_t)(stop - v) };
			return true;
		}
		p = at + kl;
	}
}

static bool payload_int(span pl, const char *key, long long *out)
{
	span v;
	if (!payload_field(pl, key, NULL, &v) || !v.n || v.n > 18)
		return false;
	long long x = 0;
	for (size_t i = 0; i < v.n; i++) {
		if (v.p[i] < '0' || v.p[i] > '9')
			return false;
		x = x * 10 + (v.p[i] - '0');
	}
	*out = x;
	return true;
}

static int tt_event(ps_ctx *c, const header *h, const char *event)
{
	if (!h->has_time)
		return 0;
	uint64_t t = (uint64_t)h->time_s * 1000000000ull + (uint64_t)h->time_ns;
	bool sw = !strcmp(event, "sched:sched_switch");
	bool wake = !strcmp(event, "sched:sched_wakeup") || !strcmp(event, "sched:sched_wakeup_new") ||
		    !strcmp(event, "sched:sched_waking");
	if (!sw && !wake && !clock_name(event))
		return 0;
	int rc = h->tid > 0 && h->pid >= 0 ? tid_note(c, h->tid, h->pid, h->comm, true) : 0;
	if (rc)
		return ps_fail(c, rc, "out of memory");
	if (!c->tt) {
		sv_tt_hooks hooks = { tt_thread_root, tt_waker_frame, c };
		if ((rc = sv_tt_new(&c->tt, c->sink, &hooks, c->tt_view, t, c->opts->by_cpu)))
			return ps_fail(c, rc, "out of memory");
		c->have_t0 = true;
		c->t0_s = h->time_s;
		c->t0_ns = h->time_ns;
	}
	sv_stack_id st = SV_STACK_NONE;
	if (sw) {
		long long prev, next;
		span state, comm;
		if (!payload_int(h->payload, "prev_pid=", &prev) || !payload_int(h->payload, "next_pid=", &next) ||
		    !payload_field(h->payload, "prev_state=", NULL, &state) || !state.n || prev > UINT32_MAX ||
		    next > UINT32_MAX)
			return ps_fail(c, SV_EFORMAT, "sched_switch without prev_pid, prev_state and next_pid");
		if (payload_field(h->payload, "next_comm=", " next_pid=", &comm) && (rc = tid_note(c, next, -1, comm, false)))
			return ps_fail(c, rc, "out of memory");
		c->tt_switches++;
		if (h->has_period && h->period > 1)
			c->tt_sampled++;
		/* an exiting thread's last switch is printed with tid -1: no stack to keep */
		if (prev > 0 && h->tid == prev && (rc = sample_stack(c, h, &st)))
			return rc;
		static const char *const names[] = { "S (sleeping)", "D (disk)", "T (stopped)", "t (traced)", "P (parked)",
						     "I (idle)" };
		const char *reason = NULL;
		sv_tt_out how = SV_TT_OUT_WAIT;
		if (state.p[0] == 'R')
			how = SV_TT_OUT_RUNNABLE;
		else if (state.p[0] == 'X' || state.p[0] == 'Z')
			how = SV_TT_OUT_DEAD;
		for (size_t i = 0; how == SV_TT_OUT_WAIT && i < sizeof(names) / sizeof(names[0]) && !reason; i++)
			if (names[i][0] == state.p[0])
				reason = names[i];
		rc = sv_tt_switch(c->tt, t, h->cpu >= 0 ? (uint32_t)h->cpu : SV_TT_NO_CPU, (uint32_t)prev, how, reason, st, (uint32_t)next, SV_STACK_NONE);
	} else if (wake) {
		long long tid;
		span comm;
		if (!payload_int(h->payload, "pid=", &tid) || tid > UINT32_MAX)
			return ps_fail(c, SV_EFORMAT, "sched_wakeup without pid");
		if (payload_field(h->payload, "comm=", " pid=", &comm) && (rc = tid_note(c, tid, -1, comm, false)))
			return ps_fail(c, rc, "out of memory");
		if (h->tid > 0 && c->tt_view == SV_TT_READIED_BY && (rc = sample_stack(c, h, &st)))
			return rc;
		rc = sv_tt_wakeup(c->tt, t, (uint32_t)tid, h->tid > 0 ? (uint32_t)h->tid : 0, st);
	} else {
		if (h->tid <= 0)
			return 0; /* the idle task */
		if ((rc = sample_stack(c, h, &st)))
			return rc;
		rc = sv_tt_sample(c->tt, t, h->cpu >= 0 ? (uint32_t)h->cpu : SV_TT_NO_CPU, (uint32_t)h->tid, st);
	}
	return rc ? ps_fail(c, rc, "cannot add sample") : 0;
}

/* Finish one sample: count its event, and add it when it is the selected event. */
static int emit(ps_ctx *c, const header *h)
{
	size_t ei;
	int rc = event_index(c, &ei, h->event.n ? h->event : (span){ "(none)", 6 });
	if (rc)
		return ps_fail(c, rc, rc == SV_ELIMIT ? "more than 4096 event names" : "out of memory");
	c->events[ei].samples++;
	if (c->tt_on)
		return tt_event(c, h, c->events[ei].name);
	if (c->selected < 0) {
		const char *want = c->opts->event ? c->opts->event : c->default_event;
		if (want && strcmp(want, c->events[ei].name) != 0)
			return 0;
		c->selected = (long)ei;
		c->clock_event = clock_name(c->events[ei].name);
	}
	if ((long)ei != c->selected)
		return 0;
	if (!c->have_t0 && h->has_time) {
		c->have_t0 = true;
		c->t0_s = h->time_s;
		c->t0_ns = h->time_ns;
	}
	double t = h->has_time ? (double)((h->time_s - c->t0_s) * 1000000000LL + (h->time_ns - c->t0_ns)) / 1e6 : 0;
	double m = 1;
	if (h->has_period) {
		c->any_period = true;
		m = c->clock_event ? h->period / 1e6 : h->period;
	}
	sv_stack_id st;
	if ((rc = sample_stack(c, h, &st)))
		return rc;
	if (c->opts->by_cpu &&
	    (rc = sv_cpu_root_apply(&c->cpu_roots, c->sink, h->cpu >= 0 ? (uint32_t)h->cpu : SV_CPU_UNKNOWN, st, &st)))
		return ps_fail(c, rc, "cannot intern stack");
	rc = c->sink->ops->add_sample(c->sink->self, st, t, m, 1.0);
	return rc ? ps_fail(c, rc, "cannot add sample") : 0;
}

static int finish(ps_ctx *c)
{
	int rc = 0;
	size_t sw = 0;
	for (size_t i = 0; i < c->nevents; i++)
		if (!strcmp(c->events[i].name, "sched:sched_switch"))
			sw = c->events[i].samples;
	if (c->tt_on && !sw) {
		c->line = 0;
		char msg[200];
		snprintf(msg, sizeof(msg), "event '%s' needs sched:sched_switch samples with their payloads "
					   "(perf record -e sched:sched_switch -e sched:sched_wakeup -a -g; perf script)",
			 c->opts->event);
		return ps_fail(c, SV_EINVAL, msg);
	}
	if (c->opts->event && c->selected < 0 && !c->tt_on) {
		char msg[400];
		size_t o = (size_t)snprintf(msg, sizeof(msg), "no samples of event '%s'; the file has:", c->opts->event);
		for (size_t i = 0; i < c->nevents && o < sizeof(msg) - 1; i++)
			o += (size_t)snprintf(msg + o, sizeof(msg) - o, "%s %s", i ? "," : "", c->events[i].name);
		if (!c->nevents)
			snprintf(msg + o, sizeof(msg) - o, " no samples");
		c->line = 0;
		return ps_fail(c, SV_EINVAL, msg);
	}
	bool wakeups = false;
	for (size_t i = 0; !rc && i < c->nevents; i++) {
		wakeups |= !strcmp(c->events[i].name, "sched:sched_wakeup") || !strcmp(c->events[i].name, "sched:sched_waking");
		if (c->sink->ops->add_event)
			rc = c->sink->ops->add_event(c->sink->self, c->events[i].name, c->events[i].samples,
						     (long)i == c->selected && !c->tt_on);
	}
	/* what sched_switch makes possible: the thread-time views */
	for (int v = 0; !rc && sw && c->sink->ops->add_event && v <= SV_TT_READY_TIME; v++)
		if (v != SV_TT_READIED_BY || wakeups)
			rc = c->sink->ops->add_event(c->sink->self, sv_tt_view_name((sv_tt_view)v), sw,
						     c->tt_on && (int)c->tt_view == v);
	if (!rc && c->sink->ops->set_scaling)
		rc = c->sink->ops->set_scaling(c->sink->self, c->tt_on || (c->clock_event && c->any_period) ? SV_SCALING_TIME
													   : SV_SCALING_DATA);
	if (!rc && c->tt)
		rc = sv_tt_report(c->tt, c->sink, c->tt_sampled, 0);
	if (!rc)
		rc = sv_perf_names_finish(&c->names, c->sink);
	return rc ? ps_fail(c, rc, "out of memory") : 0;
}

/* Thread time names every thread by its sample headers, even where a switch or wake-up names
 * it before its first own sample: a whole input is scanned for them first. */
static int tt_prescan(ps_ctx *c, const char *p, const char *end)
{
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		span line = { p, (size_t)((nl ? nl : end) - p) };
		p = nl ? nl + 1 : end;
		if (!line.n || line.p[0] == '\t' || line.p[0] == '#' || line.p[0] == ' ')
			continue;
		header h;
		if (sv_ps_parse_header(line, &h) && !h.record && h.tid > 0 && sv_idmap_get(&c->tid_idx, (uint64_t)h.tid) == SV_IDMAP_NONE &&
		    tid_note(c, h.tid, h.pid, h.comm, true))
			return ps_fail(c, SV_ENOMEM, "out of memory");
	}
	return 0;
}

static void ps_init(ps_ctx *c, sv_sink *sink, const sv_input *in, const sv_import_opts *opts, sv_error *err)
{
	static const sv_import_opts none = { 0 };
	memset(c, 0, sizeof(*c));
	c->sink = sink;
	c->in = in;
	c->opts = opts ? opts : &none;
	c->err = err;
	c->selected = -1;
	sv_perf_names_init(&c->names);
	sv_idmap_init(&c->tid_idx);
	sv_cpu_root_init(&c->cpu_roots);
	c->tt_on = sv_tt_view_parse(c->opts->event, &c->tt_view);
}

static void ps_dispose(ps_ctx *c)
{
	for (size_t i = 0; i < c->nevents; i++)
		free(c->events[i].name);
	free(c->events);
	free(c->fids);
	free(c->last);
	free(c->seen);
	free(c->seen_text);
	free(c->pend);
	free(c->pend_text);
	free(c->hdr);
	free(c->name);
	free(c->default_event);
	sv_tt_free(c->tt);
	free(c->tids);
	sv_idmap_dispose(&c->tid_idx);
	sv_cpu_root_dispose(&c->cpu_roots);
	sv_perf_names_dispose(&c->names);
}

/* The samples of the lines lr gives, to its end (a sample ends at a blank line or at the
 * end). `cancel`, when set, stops the reading early (another part failed). */
static int ps_parse(ps_ctx *c, sv_lines *lr, const atomic_bool *cancel)
{
	int rc = 0;
	enum { S_HEADER, S_FRAMES } state = S_HEADER;
	header h;
	memset(&h, 0, sizeof(h));
	for (unsigned n = 0;; n++) {
		if (cancel && (n & 4095) == 0 && atomic_load_explicit(cancel, memory_order_relaxed))
			return SV_EINVAL;
		const char *lp = NULL;
		size_t ln = 0;
		int got = sv_lines_next(lr, &lp, &ln, c->err);
		if (got < 0)
			return got;
		c->line = lr->line;
		span line = { lp, got ? ln : 0 };
		if (lr->line == 1 && !c->later_part && got && ln >= 3 && memcmp(lp, "\xEF\xBB\xBF", 3) == 0) {
			line.p += 3;
			line.n -= 3;
		}
		if (state == S_FRAMES) {
			if (!got || trim(line).n == 0) {
				if ((rc = emit(c, &h)))
					return rc;
				state = S_HEADER;
				if (!got)
					break;
				continue;
			}
			if (frame_line(line)) {
				if ((rc = push_frame(c, line)))
					return rc;
				continue;
			}
			if (srcline_line(line) && c->nframes)
				continue;
			/* A header without the blank line before it: end this sample. */
			if ((rc = emit(c, &h)))
				return rc;
			state = S_HEADER;
		}
		if (!got)
			break;
		span t = trim(line);
		if (!t.n || t.p[0] == '#')
			continue;
		/* Keep the header: the input moves on while the sample's frames are read. */
		if (sv_array_reserve(&c->hdr, &c->hdr_cap, line.n + 1, 1))
			return ps_fail(c, SV_ENOMEM, "out of memory");
		memcpy(c->hdr, line.p, line.n);
		line.p = c->hdr;
		if (!sv_ps_parse_header(line, &h))
			return ps_fail(c, SV_EFORMAT, line.n && line.p[0] == '\t' ? "frame line outside a sample"
										 : "cannot parse as a perf script sample header");
		if (h.record)
			continue;
		c->nframes = 0;
		c->npend = 0;
		c->pend_len = 0;
		/* A one-line sample (-G, or no callchain): "ip sym (dso)" after the event. */
		span ptok[2];
		if (h.payload.n && sv_ps_tokenize(h.payload, ptok, 2) == 2 && is_hex_span(ptok[0])) {
			if ((rc = push_frame(c, h.payload)) || (rc = emit(c, &h)))
				return rc;
			continue;
		}
		state = S_FRAMES;
	}
	return 0;
}

/* ---- two cores ----
 * A large whole text is read in two parts at once (two_parts.h): this thread reads the first
 * part into the sink as one reader would; a second thread reads the rest, from the sample
 * after a blank line past the middle, into a source of its own, with the first part's time
 * origin. Its frames, stacks and samples then join the sink's, and its events, threads and
 * processes the first part's. Anything unusual in the second part (an error, a limit that
 * depends on what came before) and this thread reads on into it as one reader would: the
 * result is the one reader's, byte for byte, always. */

/* Chunks of a large input read into a source of their own (two_parts.h): one alone, or the
 * second thread's run of chunks. */
typedef struct ps_part {
	sv_two_part base;
	ps_ctx c;
	sv_sink sink;
	/* the user modules the part found, with the frame that made each one known */
	struct ps_um { char *name; size_t len; sv_frame_id frame; } *um; /* name: len bytes, as given */
	size_t num, um_cap;
} ps_part;

/* The chunks and what a part needs to read one: the input, the event, and the first part's
 * time origin (first_time, found once: a part from chunk k has it when it lies before at[k]). */
typedef struct ps_parts {
	const sv_input *in;
	const size_t *at;
	const sv_import_opts *opts;
	char *default_event; /* a copy: the first thread's context is its own */
	bool have_t0;
	long long t0_s, t0_ns;
	size_t t0_at;
	atomic_bool cancel;
} ps_parts;

static int part_frame(void *self, sv_frame_id *out, const char *name, size_t len)
{
	return sv_source_intern_frame(((ps_part *)self)->base.src, out, name, len);
}

static int part_stack(void *self, sv_stack_id *out, sv_stack_id caller, sv_frame_id frame)
{
	return sv_source_intern_stack(((ps_part *)self)->base.src, out, caller, frame);
}

static int part_sample(void *self, sv_stack_id stack, double time, double metric, double count)
{
	return sv_source_add_sample(((ps_part *)self)->base.src, stack, time, metric, count);
}

static int part_user_module(void *self, const char *name, size_t len)
{
	ps_part *p = self;
	char *copy = malloc(len ? len : 1);
	if (copy)
		memcpy(copy, name, len);
	if (!copy || SV_ARRAY_PUSH(p->um, p->num, p->um_cap, ((struct ps_um){ copy, len, sv_source_frame_count(p->base.src) - 1 }))) {
		free(copy);
		return SV_ENOMEM;
	}
	return 0;
}

static const sv_sink_ops part_ops = { .intern_frame = part_frame, .intern_stack = part_stack,
				      .add_sample = part_sample, .add_user_module = part_user_module };

/* The time of the first sample of event `want` with a time, in d[0, n) (what the first part
 * takes as time 0) and where its header line is, header lines told from frame lines as
 * ps_parse tells them; false when there is none (or where one reader stops). */
static bool first_time(const char *d, size_t n, const char *want, long long *s, long long *ns, size_t *where)
{
	bool frames = false;
	size_t nframes = 0;
	for (const char *p = d, *end = d + n; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		span line = { p, (size_t)((nl ? nl : end) - p) };
		if (p == d && line.n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) { /* as one reader skips it */
			line.p += 3;
			line.n -= 3;
		}
		p = nl ? nl + 1 : end;
		if (line.n && line.p[line.n - 1] == '\r')
			line.n--;
		if (frames) {
			if (trim(line).n == 0) {
				frames = false;
				continue;
			}
			if (frame_line(line)) {
				nframes++;
				continue;
			}
			if (srcline_line(line) && nframes)
				continue;
			frames = false;
		}
		span t = trim(line);
		if (!t.n || t.p[0] == '#')
			continue;
		header h;
		if (!sv_ps_parse_header(line, &h))
			return false; /* one reader stops here too */
		if (h.record)
			continue;
		span ev = h.event.n ? h.event : (span){ "(none)", 6 };
		if (h.has_time && ev.n == strlen(want) && memcmp(ev.p, want, ev.n) == 0) {
			*s = h.time_s, *ns = h.time_ns;
			*where = (size_t)(line.p - d);
			return true;
		}
		span ptok[2];
		bool one_line = h.payload.n && sv_ps_tokenize(h.payload, ptok, 2) == 2 && is_hex_span(ptok[0]);
		frames = !one_line;
		nframes = 0;
	}
	return false;
}

static void part_dispose(ps_part *p);

static void *part_open(void *arg, unsigned k, unsigned to)
{
	ps_parts *s = arg;
	ps_part *p = calloc(1, sizeof(*p));
	if (!p || sv_two_part_init(&p->base, s->in, s->at, k, to)) {
		free(p);
		return NULL;
	}
	p->sink = (sv_sink){ &part_ops, p };
	ps_init(&p->c, &p->sink, &p->base.in, s->opts, &p->base.err);
	p->c.later_part = true;
	p->c.default_event = s->default_event ? strdup(s->default_event) : NULL;
	if (!s->opts->event && !p->c.default_event) { /* (the copy failed: the first thread reads this chunk) */
		part_dispose(p);
		free(p);
		return NULL;
	}
	if ((p->c.have_t0 = s->have_t0 && s->t0_at < s->at[k]))
		p->c.t0_s = s->t0_s, p->c.t0_ns = s->t0_ns;
	return p;
}

static void part_read(void *arg, void *part, unsigned k)
{
	ps_parts *s = arg;
	ps_part *p = part;
	if (sv_two_part_at(&p->base, s->in, s->at, k))
		p->base.rc = ps_parse(&p->c, &p->base.lr, &s->cancel);
}

static int first_run(void *c, sv_lines *lr)
{
	return ps_parse(c, lr, NULL);
}

/* A chunk's part joins the first thread's reading (c): not taken when it cannot be without
 * changing the result (then c reads on into that chunk's text itself). */
static int join_part(void *arg, sv_two_part *part, bool *joined)
{
	ps_ctx *c = arg;
	ps_part *p = (ps_part *)part;
	*joined = false;
	const ps_ctx *b = &p->c;
	size_t new_events = 0;
	for (size_t i = 0; i < b->nevents; i++) {
		bool found = false;
		for (size_t k = 0; k < c->nevents && !found; k++)
			found = !strcmp(c->events[k].name, b->events[i].name);
		new_events += !found;
	}
	if (c->nevents + new_events > 4096)
		return 0;
	*joined = true;
	sv_two_maps m = { 0 };
	int rc = sv_two_join(c->sink, part->src, &m);
	/* a user module one reader would have met: its frame was new to the first part */
	for (size_t i = 0; i < p->num && !rc; i++)
		if (m.frame_new[p->um[i].frame] && c->sink->ops->add_user_module)
			rc = c->sink->ops->add_user_module(c->sink->self, p->um[i].name, p->um[i].len);
	/* events: counts added, the selected one's state taken when only the second part met it */
	for (size_t i = 0; i < b->nevents && !rc; i++) {
		size_t k;
		span ev = { b->events[i].name, strlen(b->events[i].name) };
		if ((rc = event_index(c, &k, ev)))
			break;
		c->events[k].samples += b->events[i].samples;
		if ((long)i == b->selected && c->selected < 0) {
			c->selected = (long)k;
			c->clock_event = b->clock_event;
		}
	}
	c->any_period |= b->any_period;
	if (!rc)
		rc = sv_perf_names_join(&c->names, &b->names, m.frame, m.stack);
	sv_two_maps_free(&m);
	return rc;
}

static void part_dispose(ps_part *p)
{
	sv_two_part_dispose(&p->base);
	ps_dispose(&p->c);
	for (size_t i = 0; i < p->num; i++)
		free(p->um[i].name);
	free(p->um);
}

/* Read lr's input on two threads when that helps (see above); else, or from the first chunk
 * the second thread could not read or join, on this one. */
static int ps_parse_all(ps_ctx *c, sv_lines *lr)
{
	const sv_input *in = c->in;
	const char *want = c->opts->event ? c->opts->event : c->default_event;
	size_t at[SV_TWO_CHUNKS + 1];
	unsigned m = 1;
	if (sv_two_wanted(c->opts->threads, in, c->sink) && !c->tt_on && !c->opts->by_cpu && want &&
	    lr->p == (const char *)in->data)
		m = sv_two_chunks((const char *)in->data, in->len, true, at);
	if (m < 2)
		return ps_parse(c, lr, NULL);
	ps_parts *s = calloc(1, sizeof(*s));
	if (!s || (c->default_event && !(s->default_event = strdup(c->default_event)))) {
		free(s);
		return ps_fail(c, SV_ENOMEM, "out of memory");
	}
	s->in = in;
	s->at = at;
	s->opts = c->opts;
	s->have_t0 = first_time((const char *)in->data, at[m - 1], want, &s->t0_s, &s->t0_ns, &s->t0_at);
	atomic_init(&s->cancel, false);
	sv_two_reader rd = { part_open, part_read, s };
	sv_two_ranges rg;
	int rc = sv_two_run(lr, at, m, &rd, &s->cancel, first_run, c, &rg);
	unsigned k = 0;
	if (!rc && (rc = sv_two_join_all(c->sink, lr, at, m, &rg, join_part, c, &k)))
		ps_fail(c, rc, "out of memory");
	for (unsigned i = 0; i < m; i++) {
		if (rg.part[i]) {
			part_dispose(rg.part[i]);
			free(rg.part[i]);
		}
	}
	free(s->default_event);
	free(s);
	if (rc || k == m)
		return rc;
	return ps_parse(c, lr, NULL); /* the rest as one reader reads it */
}

static int ps_import(sv_sink *sink, const sv_input *in, const sv_import_opts *opts, sv_error *err)
{
	ps_ctx c;
	ps_init(&c, sink, in, opts, err);
	int rc = 0;
	sv_lines lr;
	if ((rc = sv_lines_init(&lr, in))) {
		ps_fail(&c, rc, "out of memory");
		ps_dispose(&c);
		return rc;
	}
	/* A whole (mapped or read) input is scanned first for the default event; a stream takes
	 * the first event it meets. */
	if (!c.opts->event && !in->partial)
		c.default_event = default_event((const char *)in->data, (const char *)in->data + in->len);
	if (c.tt_on && !in->partial && (rc = tt_prescan(&c, (const char *)in->data, (const char *)in->data + in->len)))
		goto out;
	if (!(rc = ps_parse_all(&c, &lr)))
		rc = finish(&c);
out:
	sv_lines_dispose(&lr);
	ps_dispose(&c);
	return rc;
}

/* The first line that is not blank or a comment reads as a sample header, and either names an
 * event or is followed by a frame line. */
static bool ps_probe(const unsigned char *d, size_t n)
{
	const char *p = (const char *)d, *end = p + (n < 65536 ? n : 65536);
	if (end - p >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return false;
		span line = { p, (size_t)(nl - p) };
		if (line.n && line.p[line.n - 1] == '\r')
			line.n--;
		p = nl + 1;
		span t = trim(line);
		if (!t.n || t.p[0] == '#')
			continue;
		header h;
		if (!sv_ps_parse_header(line, &h))
			return false;
		if (h.event.n || h.record)
			return true;
		return p < end && *p == '\t';
	}
	return false;
}

static const char *const ps_patterns[] = { ".data.txt", ".perf.txt", ".perf.data.dump", ".trace.zip", NULL };

const sv_format sv_fmt_perf_script = {
	.name = "perf-script", .patterns = ps_patterns, .probe = ps_probe, .import = ps_import, .streams = true,
	.defaults = &sv_perf_defaults,
};
