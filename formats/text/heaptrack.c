/* SPDX-License-Identifier: MIT */
/* heaptrack's files (heaptrack.APP.PID.zst or .gz, as heaptrack writes them after
 * heaptrack_interpret): one record a line, numbers in hex,
 *
 *     v 10400 3              heaptrack version, file format version
 *     X ./app --arg          the command line
 *     s c /tmp/app           a string (format 3: its length first), numbered from 1
 *     i 7f9c… 1 f 10 2a …    an instruction pointer: module string, then function, file, line
 *                            of the innermost function there, then of each one it was inlined
 *                            into, out to the function that holds the code
 *     t 5 2                  a trace node: its ip, its parent trace (0: none), numbered from 1
 *     a 400 5                an allocation kind: size and trace, numbered from 0
 *     + 3 / - 3              an allocation / a deallocation of that kind
 *     c 1f4                  the time since the start, in ms
 *
 * The input is read once. "peak" counts what each trace holds up to the moment the heap was
 * largest, which is known only at the end: the sums of the time steps since the heap was last
 * largest are held until it is larger again (they were before the peak: given to the sink) or
 * the file ends (they were after it: dropped), and for the step where it was largest, each
 * trace's sum at that moment is kept too (lazily: a trace's sum is kept when it changes after
 * the moment). Past a bound on what is held, the steps are let go and read again from the file
 * when the heap turns out to be larger later. Each event is a stack source whose samples carry
 * their time: allocations and temporary allocations (a free right after its allocation, as
 * heaptrack counts them) by count, allocated bytes, leaked bytes (each allocation +size and
 * each free -size, so what is left is what leaked), and peak bytes (the same up to the
 * peak). Samples are summed per trace between two time stamps, so the work follows the
 * traces and time stamps, not the allocations. Frames are `MODULE!function`, an inlined
 * function `MODULE!function (inlined)`, an address without a symbol `MODULE!0xADDR`. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackview/formats.h"
#include "sv/array.h"

enum { EV_PEAK, EV_LEAKED, EV_ALLOCATIONS, EV_TEMPORARY, EV_ALLOCATED, EV_COUNT };
static const char *const ev_names[EV_COUNT] = { "peak", "leaked", "allocations", "temporary", "allocated" };

typedef struct ht_str {
	const char *p;
	size_t n;
} ht_str;

typedef struct ht_frame {
	uint32_t func, file; /* strings (0: none) */
} ht_frame;

typedef struct ht_ip {
	uint64_t addr;
	uint32_t module;  /* string */
	uint32_t first, n; /* frames[first..first+n): the function, then what was inlined in it */
} ht_ip;

typedef struct ht_trace {
	uint32_t ip, parent; /* ips and traces from 1; parent 0: a root */
	sv_stack_id stack;   /* SV_STACK_NONE until made */
} ht_trace;

typedef struct ht_alloc {
	uint64_t size;
	uint32_t trace;
} ht_alloc;

/* A sample of a time step held back: trace and weight (in pk: and the weight at the peak). */
typedef struct ht_held {
	uint32_t tr;
	double w, wpk;
} ht_held;

typedef struct ht_step {
	ht_held *e;
	size_t n, cap;
	double now;
} ht_step;

/* A trace's summing between time stamps: its weight, whether it is listed (touched), and
 * for "peak" in one reading its weight when the heap was last largest and the number of the
 * largest moments when that was kept. */
typedef struct ht_sum {
	double acc, at_peak;
	uint32_t gen;
	bool listed;
} ht_sum;

typedef struct ht_mark {
	size_t first;
	double now;
} ht_mark;

typedef struct ht_ctx {
	sv_sink *sink;
	const sv_input *in;
	sv_error *err;
	int ev;               /* the event shown */
	unsigned version;     /* the file format's */
	ht_str *str;
	size_t nstr, str_cap;
	ht_frame *frames;
	size_t nframes, frames_cap;
	ht_ip *ips;
	size_t nips, ips_cap;
	ht_trace *tr;
	size_t ntr, tr_cap;
	ht_alloc *al;
	size_t nal, al_cap;
	ht_sum *sum;          /* per trace */
	size_t sum_len;
	uint32_t *touched;    /* the traces listed */
	size_t ntouched, touched_cap;
	/* "peak" in one reading (see the top) */
	uint32_t pgen;        /* moments the heap was largest so far */
	bool step_peaked;     /* the heap was largest in this step */
	ht_step pk;           /* the step where the heap was last largest: full and at that moment */
	ht_step pend;         /* the steps after it, one after another (steps[]) */
	ht_mark *marks;       /* where each held step starts in pend, and its time */
	size_t nmarks, marks_cap;
	size_t hold_max;      /* entries held at most */
	bool let_go;          /* past it: the steps after pk are read again if needed */
	bool later;           /* larger after letting go */
	size_t resume_at;     /* where the steps after pk start in the file (their time stamp's
			       * line, or 0), and that line's number less 1 */
	long resume_line;
	bool one;             /* "peak" read once (see the top) */
	size_t at;            /* where the line being read starts */
	double now;           /* ms */
	size_t samples;
	char *name;
	size_t name_cap;
	long line;
	/* what the whole file says */
	unsigned long long counts[EV_COUNT];
	double sums[EV_COUNT];
	double live, peak, peak_time;
	size_t peak_at;       /* byte offset just past the line where the heap was largest */
	uint32_t last_plus;   /* the allocation kind of the last '+', 0 after a '-' (heaptrack's rule,
			       * so a free of kind 0 after any free counts as temporary, as there) */
	char cmd[256];
} ht_ctx;

static int ht_fail(ht_ctx *c, int code, const char *fmt, ...) SV_PRINTF(3, 4);
static int ht_fail(ht_ctx *c, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sv_error_vset(c->err, code, fmt, ap);
	va_end(ap);
	sv_error_locate(c->err, c->in->name, c->line, -1);
	return code;
}

/* Each byte's value as a hex digit, plus 1; 0: not one. */
static const uint8_t hexval1[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* A hex number at *p (below end), blanks after it skipped. */
static bool hex(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	while (*p < end && hexval1[(unsigned char)**p] && *p - s < 16) {
		v = v * 16 + hexval1[(unsigned char)**p] - 1u;
		(*p)++;
	}
	if (*p == s || (*p < end && **p != ' ' && **p != '\n'))
		return false;
	while (*p < end && **p == ' ')
		(*p)++;
	*out = v;
	return true;
}

static int index_of(ht_ctx *c, const char **p, const char *end, size_t n, bool zero_ok, uint32_t *out, const char *what)
{
	uint64_t v;
	if (!hex(p, end, &v))
		return ht_fail(c, SV_EFORMAT, "a line without its %s (a hex number)", what);
	if ((!zero_ok && v == 0) || v > n)
		return ht_fail(c, SV_EFORMAT, "%s %llx is not one defined before (%zu are)", what, (unsigned long long)v, n);
	*out = (uint32_t)v;
	return 0;
}

/* ---- names and stacks ---- */

static const char *base(const ht_str *s, size_t *n)
{
	const char *b = s->p;
	for (size_t i = 0; i < s->n; i++)
		if (s->p[i] == '/')
			b = s->p + i + 1;
	*n = s->n - (size_t)(b - s->p);
	return b;
}

static int intern(ht_ctx *c, sv_frame_id *f, const ht_ip *ip, const ht_frame *fr, bool inlined)
{
	size_t ml = 0;
	const char *m = ip->module ? base(&c->str[ip->module - 1], &ml) : "?";
	if (!ip->module)
		ml = 1;
	const ht_str *fn = fr && fr->func ? &c->str[fr->func - 1] : NULL;
	size_t need = ml + (fn ? fn->n : 20) + 16;
	if (SV_ARRAY_RESERVE(c->name, c->name_cap, need))
		return SV_ENOMEM;
	int len = fn ? snprintf(c->name, need, "%.*s!%.*s%s", (int)ml, m, (int)fn->n, fn->p, inlined ? " (inlined)" : "")
		     : snprintf(c->name, need, "%.*s!0x%llx", (int)ml, m, (unsigned long long)ip->addr);
	return c->sink->ops->intern_frame(c->sink->self, f, c->name, (size_t)len);
}

/* Trace t's stack, its parents' first (each made once). */
static int stack_of(ht_ctx *c, uint32_t t, sv_stack_id *out)
{
	/* walk up to a made one, then make the rest on the way back (iteratively) */
	uint32_t top = t;
	size_t depth = 0;
	while (top && c->tr[top - 1].stack == SV_STACK_NONE) {
		top = c->tr[top - 1].parent;
		depth++;
	}
	while (depth--) {
		uint32_t k = t; /* the deepest not yet made whose parent is made */
		while (c->tr[k - 1].parent && c->tr[c->tr[k - 1].parent - 1].stack == SV_STACK_NONE)
			k = c->tr[k - 1].parent;
		ht_trace *tr = &c->tr[k - 1];
		sv_stack_id st = tr->parent ? c->tr[tr->parent - 1].stack : SV_STACK_NONE;
		const ht_ip *ip = &c->ips[tr->ip - 1];
		int rc = 0;
		sv_frame_id f;
		if (!ip->n) {
			if (!(rc = intern(c, &f, ip, NULL, false)))
				rc = c->sink->ops->intern_stack(c->sink->self, &st, st, f);
		}
		/* the ip's frames are innermost first: the function it is in is the last, the ones
		 * inlined into it come after it on the way to the leaf */
		for (uint32_t i = ip->n; i-- > 0 && !rc;)
			if (!(rc = intern(c, &f, ip, &c->frames[ip->first + i], i + 1 < ip->n)))
				rc = c->sink->ops->intern_stack(c->sink->self, &st, st, f);
		if (rc)
			return rc;
		tr->stack = st;
	}
	*out = t ? c->tr[t - 1].stack : SV_STACK_NONE;
	return 0;
}

/* Whether trace t's innermost function is one of C++'s operator new. */
static bool op_new(const ht_ctx *c, uint32_t t)
{
	const ht_ip *ip = &c->ips[c->tr[t - 1].ip - 1];
	if (!ip->n || !c->frames[ip->first].func)
		return false;
	const ht_str *f = &c->str[c->frames[ip->first].func - 1];
	return f->n >= 12 && memcmp(f->p, "operator new", 12) == 0;
}

/* ---- samples ---- */

static inline int add(ht_ctx *c, uint32_t trace, double w)
{
	if (!trace || w == 0)
		return 0;
	ht_sum *u = &c->sum[trace - 1];
	if (!u->listed) {
		if (SV_ARRAY_PUSH(c->touched, c->ntouched, c->touched_cap, trace))
			return SV_ENOMEM;
		u->listed = true;
	}
	u->acc += w;
	return 0;
}

/* A trace's sum over a time step, as a sample at the step's time. */
static int emit(ht_ctx *c, uint32_t t, double w, double now)
{
	if (w == 0)
		return 0;
	sv_stack_id st;
	int rc = stack_of(c, t, &st);
	if (!rc) {
		double n = c->ev == EV_ALLOCATIONS || c->ev == EV_TEMPORARY ? w : 1;
		rc = c->sink->ops->add_sample(c->sink->self, st, now, w, n);
		c->samples++;
	}
	return rc;
}

static int step_push(ht_step *st, uint32_t t, double w, double wpk)
{
	return SV_ARRAY_PUSH(st->e, st->n, st->cap, ((ht_held){ t, w, wpk }));
}

static void step_free(ht_step *st)
{
	free(st->e);
	memset(st, 0, sizeof(*st));
}

/* The step's sums let go of (and its largest moment). */
static void step_reset(ht_ctx *c)
{
	for (size_t i = 0; i < c->ntouched; i++) {
		c->sum[c->touched[i] - 1].acc = 0;
		c->sum[c->touched[i] - 1].listed = false;
	}
	c->ntouched = 0;
	c->step_peaked = false;
}

/* "peak" in one reading: the step ended is held, as the step of the largest moment when the
 * heap was largest in it (given to the sink then, its steps before were), else after the
 * others held; past the bound they are let go (read again from resume_at if needed). */
static int hold(ht_ctx *c)
{
	int rc = 0;
	if (!c->let_go && c->step_peaked) {
		c->pk.n = 0;
		c->pk.now = c->now;
		for (size_t i = 0; i < c->ntouched && !rc; i++) {
			uint32_t t = c->touched[i];
			const ht_sum *u = &c->sum[t - 1];
			double full = u->acc, atpk = u->gen == c->pgen ? u->at_peak : full;
			if (full != 0 || atpk != 0)
				rc = step_push(&c->pk, t, full, atpk);
		}
		c->resume_at = c->at; /* the steps after it: from the time stamp that ends it */
		c->resume_line = c->line - 1;
	} else if (!c->let_go && c->ntouched) {
		if (SV_ARRAY_PUSH(c->marks, c->nmarks, c->marks_cap, ((ht_mark){ c->pend.n, c->now })))
			rc = SV_ENOMEM;
		for (size_t i = 0; i < c->ntouched && !rc; i++) {
			uint32_t t = c->touched[i];
			if (c->sum[t - 1].acc != 0)
				rc = step_push(&c->pend, t, c->sum[t - 1].acc, 0);
		}
		if (!rc && c->pend.n > c->hold_max) {
			c->let_go = true;
			step_free(&c->pend);
			free(c->marks);
			c->marks = NULL;
			c->nmarks = c->marks_cap = 0;
		}
	}
	step_reset(c);
	return rc;
}

/* The heap is larger than it ever was: what is held was before this moment. */
static int peaked(ht_ctx *c)
{
	int rc = 0;
	if (c->let_go) {
		c->later = true;
	} else {
		for (size_t i = 0; i < c->pk.n && !rc; i++)
			rc = emit(c, c->pk.e[i].tr, c->pk.e[i].w, c->pk.now);
		c->pk.n = 0;
		for (size_t m = 0; m < c->nmarks && !rc; m++) {
			size_t to = m + 1 < c->nmarks ? c->marks[m + 1].first : c->pend.n;
			for (size_t i = c->marks[m].first; i < to && !rc; i++)
				rc = emit(c, c->pend.e[i].tr, c->pend.e[i].w, c->marks[m].now);
		}
		c->pend.n = c->nmarks = 0;
	}
	c->pgen++;
	c->step_peaked = true;
	return rc;
}

/* The sums since the last time stamp, as samples at it (or held: "peak" in one reading). */
static int flush(ht_ctx *c)
{
	if (c->one)
		return hold(c);
	int rc = 0;
	for (size_t i = 0; i < c->ntouched && !rc; i++) {
		uint32_t t = c->touched[i];
		rc = emit(c, t, c->sum[t - 1].acc, c->now);
	}
	step_reset(c);
	return rc;
}

/* ---- the lines ---- */

static int grow_sums(ht_ctx *c)
{
	if (c->ntr <= c->sum_len)
		return 0;
	size_t n = c->sum_len ? c->sum_len * 2 : 1024;
	ht_sum *u = realloc(c->sum, n * sizeof(*u));
	if (!u)
		return SV_ENOMEM;
	c->sum = u;
	memset(c->sum + c->sum_len, 0, (n - c->sum_len) * sizeof(*u));
	c->sum_len = n;
	return 0;
}

/* An allocation ('+', plus) or a free of allocation kind k (below nal), its line ending at
 * end. */
static inline __attribute__((always_inline)) int alloc_line(ht_ctx *c, bool plus, uint32_t k, const char *end,
							   bool second)
{
	int rc;
	const ht_alloc *a = &c->al[k];
	double sz = (double)a->size;
	if (second) /* peak read again: what each trace holds, up to the largest heap */
		return add(c, a->trace, plus ? sz : -sz);
	if (c->one && a->trace && sz != 0) { /* its sum at the last largest moment kept */
		ht_sum *u = &c->sum[a->trace - 1];
		if (u->gen != c->pgen) {
			u->at_peak = u->acc;
			u->gen = c->pgen;
		}
		if ((rc = add(c, a->trace, plus ? sz : -sz)))
			return rc;
	}
	bool temp = !plus && c->last_plus == k;
	c->last_plus = plus ? k : 0;
	c->live += plus ? sz : -sz;
	if (plus) {
		c->counts[EV_ALLOCATIONS]++;
		c->sums[EV_ALLOCATED] += sz;
	} else if (temp) {
		c->counts[EV_TEMPORARY]++;
	}
	if (c->live > c->peak) {
		c->peak = c->live;
		c->peak_time = c->now;
		c->peak_at = (size_t)(end - (const char *)c->in->data);
		if (c->one && (rc = peaked(c)))
			return rc;
	}
	double w = c->ev == EV_ALLOCATIONS ? (plus ? 1 : 0)
		   : c->ev == EV_TEMPORARY ? (temp ? 1 : 0)
		   : c->ev == EV_ALLOCATED ? (plus ? sz : 0)
		   : c->ev == EV_LEAKED ? (plus ? sz : -sz)
					 : 0;
	return w ? add(c, a->trace, w) : 0;
}

/* One line; `second`: the reading again for peak (allocations and time stamps only). */
static int line(ht_ctx *c, const char *p, const char *end, bool second)
{
	if (p == end || *p == '#')
		return 0;
	char kind = *p;
	if (end - p < 2 || p[1] != ' ')
		return kind == 'A' ? 0 : ht_fail(c, SV_EFORMAT, "not a heaptrack line ('%c' without a value)", kind);
	p += 2;
	int rc = 0;
	uint64_t v;
	uint32_t k = 0;
	switch (kind) {
	case '+':
	case '-': {
		if ((rc = index_of(c, &p, end, c->nal, true, &k, "allocation")) || k >= c->nal)
			return rc ? rc : ht_fail(c, SV_EFORMAT, "allocation %x is not one defined before (%zu are)", k, c->nal);
		return alloc_line(c, kind == '+', k, end, second);
	}
	case 'c':
		if (!hex(&p, end, &v))
			return ht_fail(c, SV_EFORMAT, "a time stamp that is not a hex number");
		if ((rc = flush(c)))
			return rc;
		c->now = (double)v;
		return 0;
	default:
		break;
	}
	if (second)
		return 0;
	switch (kind) {
	case 'v':
		if (!hex(&p, end, &v) || !hex(&p, end, &v))
			return ht_fail(c, SV_EFORMAT, "a version line without the file format");
		c->version = (unsigned)(v > 1000 ? 1000 : v);
		return 0;
	case 'X':
		snprintf(c->cmd, sizeof(c->cmd), "%.*s", (int)(end - p), p);
		return 0;
	case 's': {
		ht_str s = { p, (size_t)(end - p) };
		if (c->version >= 3) { /* length-prefixed: the string may hold anything */
			if (!hex(&p, end, &v) || v != (uint64_t)(end - p))
				return ht_fail(c, SV_EFORMAT, "a string whose length is not the rest of its line");
			s = (ht_str){ p, (size_t)v };
		}
		return SV_ARRAY_PUSH(c->str, c->nstr, c->str_cap, s) ? SV_ENOMEM : 0;
	}
	case 'i': {
		ht_ip ip = { 0, 0, (uint32_t)c->nframes, 0 };
		if (!hex(&p, end, &ip.addr) || (rc = index_of(c, &p, end, c->nstr, true, &ip.module, "module string")))
			return rc ? rc : ht_fail(c, SV_EFORMAT, "an instruction pointer line without its address");
		while (p < end) { /* function, file, line; the first is where ip is, then what was inlined */
			ht_frame f = { 0, 0 };
			uint64_t ln;
			if ((rc = index_of(c, &p, end, c->nstr, true, &f.func, "function string")))
				return rc;
			/* the file and line follow when known (a symbol alone has neither) */
			if (p < end && ((rc = index_of(c, &p, end, c->nstr, true, &f.file, "file string")) || !hex(&p, end, &ln)))
				return rc ? rc : ht_fail(c, SV_EFORMAT, "an instruction pointer's frame without its line");
			if (ip.n >= 4096)
				return ht_fail(c, SV_EFORMAT, "an instruction pointer with more than 4096 inlined frames");
			if (SV_ARRAY_PUSH(c->frames, c->nframes, c->frames_cap, f))
				return SV_ENOMEM;
			ip.n++;
		}
		return SV_ARRAY_PUSH(c->ips, c->nips, c->ips_cap, ip) ? SV_ENOMEM : 0;
	}
	case 't': {
		ht_trace t = { 0, 0, SV_STACK_NONE };
		if ((rc = index_of(c, &p, end, c->nips, false, &t.ip, "instruction pointer")) ||
		    (rc = index_of(c, &p, end, c->ntr, true, &t.parent, "parent trace")))
			return rc;
		if (SV_ARRAY_PUSH(c->tr, c->ntr, c->tr_cap, t))
			return SV_ENOMEM;
		return grow_sums(c);
	}
	case 'a': {
		ht_alloc a = { 0, 0 };
		if (!hex(&p, end, &a.size) || a.size > (1ull << 52))
			return ht_fail(c, SV_EFORMAT, "an allocation kind without a size");
		if ((rc = index_of(c, &p, end, c->ntr, true, &a.trace, "trace")))
			return rc;
		/* C++'s operator new is the allocator, not its caller: as heaptrack, the trace
		 * starts at whoever called it */
		for (int depth = 0; a.trace && depth < 4 && op_new(c, a.trace); depth++)
			a.trace = c->tr[a.trace - 1].parent;
		return SV_ARRAY_PUSH(c->al, c->nal, c->al_cap, a) ? SV_ENOMEM : 0;
	}
	case 'm': case 'I': case 'R':
		return 0; /* module maps, system info, RSS: not needed */
	default:
		return ht_fail(c, SV_EFORMAT, "unknown heaptrack line '%c'", kind);
	}
}

/* The end of the line at p, or NULL: most lines are a few bytes ("+ 3"), whose end a byte
 * loop finds before a call to memchr would have begun. */
static const char *line_end(const char *p, const char *end)
{
	const char *stop = end - p > 32 ? p + 32 : end;
	for (; p < stop; p++)
		if (*p == '\n')
			return p;
	return p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
}

/* The lines of [from, stop) (a reading again: from a line's start, its number `line`). */
static int pass(ht_ctx *c, size_t from, long line0, size_t stop, bool second)
{
	const char *p = (const char *)c->in->data + from, *end = (const char *)c->in->data + (second ? stop : c->in->len);
	c->line = line0;
	int rc = 0;
	while (p < end && !rc) {
		c->line++;
		c->at = (size_t)(p - (const char *)c->in->data);
		if ((c->line & 0xffff) == 0 && (rc = sv_input_progress(c->in, (unsigned long long)(p - (const char *)c->in->data), c->err)))
			break;
		/* most lines are "+ K" and "- K": their end and number found in one scan (anything
		 * else about them, and every other line, the general way) */
		if ((*p == '+' || *p == '-') && end - p > 2 && p[1] == ' ') {
			const char *q = p + 2, *qe = end - q > 8 ? q + 8 : end;
			uint32_t k = 0;
			for (; q < qe && hexval1[(unsigned char)*q]; q++)
				k = k * 16 + hexval1[(unsigned char)*q] - 1u;
			if (q > p + 2 && (q == end || *q == '\n') && k < c->nal) {
				rc = alloc_line(c, *p == '+', k, q, second);
				p = q < end ? q + 1 : end;
				continue;
			}
		}
		const char *nl = line_end(p, end);
		const char *le = nl ? nl : end;
		rc = line(c, p, le > p && le[-1] == '\r' ? le - 1 : le, second);
		p = nl ? nl + 1 : end;
	}
	if (!rc)
		rc = flush(c);
	if (rc == SV_ENOMEM)
		rc = ht_fail(c, SV_ENOMEM, "out of memory");
	return rc;
}

static int ht_import(sv_sink *sink, const sv_input *in, const sv_import_opts *opts, sv_error *err)
{
	ht_ctx c;
	memset(&c, 0, sizeof(c));
	c.sink = sink;
	c.in = in;
	c.err = err;
	c.ev = EV_PEAK;
	const char *want = opts ? opts->event : NULL;
	if (want) {
		c.ev = -1;
		for (int i = 0; i < EV_COUNT; i++)
			if (!strcmp(want, ev_names[i]))
				c.ev = i;
		if (c.ev < 0)
			return sv_error_set(err, SV_EINVAL, "no event '%s' in a heaptrack file; it has: peak, leaked, allocations, "
							   "temporary, allocated", want);
	}
	c.one = c.ev == EV_PEAK;
	size_t bound = in->len / 32 / sizeof(ht_held); /* (1/32 of the input) */
	c.hold_max = bound > 65536 ? bound : 65536;
	int rc = pass(&c, 0, 0, 0, false);
	double peak_time = c.peak_time;
	if (!rc && c.one && c.peak > 0) {
		/* the steps held before the largest moment are given already; what is left is the
		 * step where it was, as it was then, unless the steps after it were let go and the
		 * heap was larger later: then that step whole, and the rest read again */
		c.one = false;
		bool again = c.let_go && c.later;
		for (size_t i = 0; i < c.pk.n && !rc; i++)
			rc = emit(&c, c.pk.e[i].tr, again ? c.pk.e[i].w : c.pk.e[i].wpk, c.pk.now);
		if (!rc && again) {
			c.now = 0; /* (the line read first is a time stamp, or the file's first) */
			rc = pass(&c, c.resume_at, c.resume_line, c.peak_at, true);
		}
	}
	for (int i = 0; !rc && sink->ops->add_event && i < EV_COUNT; i++)
		rc = sink->ops->add_event(sink->self, ev_names[i], i == EV_TEMPORARY ? c.counts[EV_TEMPORARY] : c.counts[EV_ALLOCATIONS],
					  i == c.ev);
	if (!rc && sink->ops->set_scaling)
		rc = sink->ops->set_scaling(sink->self, SV_SCALING_DATA);
	if (!rc && sink->ops->set_unit)
		rc = sink->ops->set_unit(sink->self, c.ev == EV_ALLOCATIONS || c.ev == EV_TEMPORARY ? "allocations" : "bytes");
	if (!rc)
		rc = sv_sink_note(sink, SV_NOTE_INFO,
				  "heaptrack (file format %u) of '%s': %llu allocations (%.0f bytes), %llu temporary; the heap was "
				  "largest (%.0f bytes) at %.3f ms",
				  c.version, c.cmd, c.counts[EV_ALLOCATIONS], c.sums[EV_ALLOCATED], c.counts[EV_TEMPORARY], c.peak,
				  peak_time);
	if (!rc && !c.nal)
		rc = sv_sink_note(sink, SV_NOTE_WARNING, "no allocations in the file");
	free(c.str);
	free(c.frames);
	free(c.ips);
	free(c.tr);
	free(c.al);
	free(c.sum);
	free(c.touched);
	step_free(&c.pk);
	step_free(&c.pend);
	free(c.marks);
	free(c.name);
	return rc;
}

/* "v VERSION FORMAT" first, then heaptrack's other record lines. */
static bool ht_probe(const unsigned char *d, size_t n)
{
	const char *p = (const char *)d, *end = p + (n < 4096 ? n : 4096);
	uint64_t v;
	if (end - p < 6 || p[0] != 'v' || p[1] != ' ')
		return false;
	const char *q = p + 2;
	if (!hex(&q, end, &v) || !hex(&q, end, &v) || q >= end || *q != '\n')
		return false;
	return end - q >= 3 && (q[1] == 'X' || q[1] == 'I' || q[1] == 's' || q[1] == '#') && q[2] == ' ';
}

static const char *const ht_patterns[] = { ".heaptrack", NULL };

const sv_format sv_fmt_heaptrack = {
	.name = "heaptrack", .patterns = ht_patterns, .probe = ht_probe, .import = ht_import,
};
