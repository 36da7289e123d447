/* SPDX-License-Identifier: MIT */
/* perf.data's Events listing (PerfView's Events window; what `perf script` prints): every
 * sample in time order with its event, comm, pid, tid, CPU and time on the stack views' axis
 * (from the first sample of the event they open), and its fields: a tracepoint's as perf
 * script prints them (its format's print fmt, rendered by libtraceevent as perf does, split
 * into NAME=VALUE words), the period and addresses of any other event. Side-band records
 * (comm, fork) name the threads as the stack views do; they are not listed themselves (perf
 * script's default too).
 *
 * The tracing data (the tracepoints' format files as trace-cmd writes them) is read here:
 * its layout is checked byte by byte, each format checked to be of the kernel's shape (a
 * malformed one crashes or leaks in libtraceevent's parser) before libtraceevent parses it,
 * and a sample's raw data is printed only when every field of its format lies inside it. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h> /* as a system header: its enum is wider than ISO C allows */
#include <traceevent/trace-seq.h>

#include "data_int.h"

struct sv_pdr_lister {
	const sv_event_lister *l;
	pdr *r;
	struct tep_handle *tep; /* NULL: no tracing data, or none that could be read */
	struct trace_seq seq;
	bool seq_on;
	uint64_t t0;
	bool have_t0;
	char *buf; /* the current event's texts */
	size_t cap;
	size_t formats, bad_formats, unprinted;
	char tracing_note[160];
};

/* ---- the tracing data ---- */

typedef struct tcur {
	unsigned char *p;
	size_t n, o;
	bool bad;
} tcur;

static uint64_t tnum(tcur *c, size_t size)
{
	if (c->bad || c->n - c->o < size) {
		c->bad = true;
		return 0;
	}
	uint64_t v = size == 8 ? rd64(c->p + c->o) : rd32(c->p + c->o);
	c->o += size;
	return v;
}

/* The next `len` bytes, or NULL (and bad) when they run past the end. */
static unsigned char *tbytes(tcur *c, uint64_t len)
{
	if (c->bad || len > c->n - c->o) {
		c->bad = true;
		return NULL;
	}
	unsigned char *at = c->p + c->o;
	c->o += (size_t)len;
	return at;
}

/* A NUL-terminated string of at most max bytes. */
static const char *tstr(tcur *c, size_t max)
{
	if (c->bad)
		return NULL;
	size_t room = c->n - c->o < max ? c->n - c->o : max;
	const unsigned char *z = memchr(c->p + c->o, '\0', room);
	if (!z) {
		c->bad = true;
		return NULL;
	}
	const char *s = (const char *)c->p + c->o;
	c->o = (size_t)(z - c->p) + 1;
	return s;
}

/* The printk formats ("0xffffffff82a3c1d0 : \"text\"" a line: the strings tracepoints point
 * at) to libtraceevent, NUL-terminated and only the lines of that shape (its parser reads
 * past the end of a line that stops after the colon, and before a string shorter than 2). */
static void printk_formats(struct tep_handle *tep, const unsigned char *p, size_t n)
{
	char *t = malloc(n + 2); /* every line kept with its newline, and a NUL */
	if (!t)
		return;
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		const unsigned char *nl = memchr(p + i, '\n', n - i);
		size_t e = nl ? (size_t)(nl - p) : n, k = i;
		while (k < e && (isxdigit(p[k]) || p[k] == 'x'))
			k++;
		/* the string quoted and of 2 characters at least: libtraceevent looks at the 3
		 * bytes before its closing quote */
		bool ok = k > i && e - k >= 7 && !memcmp(p + k, " : \"", 4) && p[e - 1] == '"' &&
			  !memchr(p + i, '\0', e - i);
		if (ok) {
			memcpy(t + o, p + i, e - i);
			o += e - i;
			t[o++] = '\n';
		}
		i = e + 1;
	}
	t[o] = '\0';
	if (o)
		(void)tep_parse_printk_formats(tep, t);
	free(t);
}

/* One word of a field's declaration [w, e): an identifier with an optional "[N]", '*'s
 * before (type words only) and after it, or '*'s alone. */
static bool decl_word(const char *w, const char *e, bool name)
{
	while (!name && w < e && *w == '*')
		w++;
	if (w == e)
		return !name;
	if (!isalpha((unsigned char)*w) && *w != '_')
		return false;
	while (w < e && (isalnum((unsigned char)*w) || *w == '_'))
		w++;
	if (w < e && *w == '[') {
		for (w++; w < e && (isalnum((unsigned char)*w) || *w == '_'); w++)
			;
		if (w == e || *w++ != ']')
			return false;
	}
	while (!name && w < e && *w == '*')
		w++;
	return w == e;
}

/* A field's declaration [d, e) as the kernel writes one ("unsigned long call_site", "char
 * comm[16]", "const char *const * argv", "__data_loc char[] name"): type words and a name,
 * one space apart (every one of a 6.18 kernel's 21,094; libtraceevent leaks on others). */
static bool field_decl(const char *d, const char *e)
{
	size_t words = 0;
	for (const char *w = d; w < e;) {
		const char *sp = memchr(w, ' ', (size_t)(e - w)), *we = sp ? sp : e;
		if (!decl_word(w, we, !sp))
			return false;
		words++;
		w = sp ? sp + 1 : e;
		if (sp && w == e)
			return false;
	}
	return words >= 2;
}

/* Whether a field line of the format [t, pf) declares the field name[0..nl) (the last word
 * of its declaration, without its "[N]"); libtraceevent's parser crashes on a print fmt
 * that uses a field not declared. */
static bool declared(const char *t, const char *pf, const char *name, size_t nl)
{
	for (const char *l = t; nl && l < pf;) {
		const char *nlp = memchr(l, '\n', (size_t)(pf - l)), *le = nlp ? nlp : pf;
		const char *semi = le - l > 7 && !memcmp(l, "\tfield:", 7) ? memchr(l, ';', (size_t)(le - l)) : NULL;
		if (semi) {
			const char *w = semi;
			while (w > l + 7 && w[-1] != ' ')
				w--;
			const char *br = memchr(w, '[', (size_t)(semi - w)), *we = br ? br : semi;
			if ((size_t)(we - w) == nl && !memcmp(w, name, nl))
				return true;
		}
		l = le + 1;
	}
	return false;
}

/* Whether [d, end) starts with a divisor as the kernel's formats have them: a non-zero
 * decimal or hex number (an integer suffix allowed) or sizeof(...). */
static bool divisor(const char *d, const char *end)
{
	if (end - d >= 7 && !memcmp(d, "sizeof(", 7))
		return true;
	bool hex = end - d > 2 && d[0] == '0' && (d[1] == 'x' || d[1] == 'X'), nonzero = false;
	const char *p = hex ? d + 2 : d, *start = p;
	while (p < end && (hex ? isxdigit((unsigned char)*p) : isdigit((unsigned char)*p)))
		nonzero |= *p++ != '0';
	if (p == start || !nonzero || (!hex && *start == '0'))
		return false;
	while (p < end && strchr("uUlL", *p))
		p++;
	return p == end || !(isalnum((unsigned char)*p) || *p == '_');
}

/* A tracepoint format as the kernel writes it, checked before libtraceevent parses it (its
 * parser trusts the text: an unfinished print fmt crashes it): printable text, the header
 * lines, field lines of the kernel's shape, and a print fmt whose string literals and
 * parentheses all close before the text ends, whose REC->FIELDs are declared and whose
 * divisors are non-zero constants (as every one of a 6.18 kernel's 2,323 formats). */
static bool format_shape(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((p[i] < 0x20 || p[i] > 0x7e) && p[i] != '\n' && p[i] != '\t')
			return false;
	const char *t = (const char *)p, *end = t + n;
	if (n < 6 || memcmp(t, "name: ", 6) != 0)
		return false;
	const char *pf = memmem(t, n, "\nprint fmt: \"", 13);
	if (!pf || !memmem(t, (size_t)(pf - t), "\nID: ", 5) || !memmem(t, (size_t)(pf - t), "\nformat:\n", 9))
		return false;
	/* every field line: "\tfield:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;" */
	for (const char *l = t; l < pf;) {
		const char *nl = memchr(l, '\n', (size_t)(pf - l));
		const char *le = nl ? nl : pf;
		if (le - l > 7 && !memcmp(l, "\tfield:", 7)) {
			const char *o = memmem(l, (size_t)(le - l), ";\toffset:", 9), *z = memmem(l, (size_t)(le - l), ";\tsize:", 7);
			if (!o || !z || z < o)
				return false;
			if (!field_decl(l + 7, o))
				return false;
		}
		l = le + 1;
	}
	/* the print fmt to the end: "..." (its text may hold newlines), args; every string
	 * literal and parenthesis closed, every REC->FIELD a field declared above */
	int depth = 0;
	bool in_str = false;
	for (const char *q = pf + 12; q < end; q++) {
		if (in_str) {
			if (*q == '\\' && q + 1 < end)
				q++;
			else if (*q == '"')
				in_str = false;
		} else if (*q == '"') {
			in_str = true;
		} else if (*q == '(') {
			depth++;
		} else if (*q == ')' && --depth < 0) {
			return false;
		} else if (*q == '/' || *q == '%') {
			/* a divisor the kernel writes: a non-zero number or a sizeof (libtraceevent
			 * divides by a zero, at parse or print time, and the process dies of it) */
			const char *d = q + 1;
			while (d < end && *d == ' ')
				d++;
			if (!divisor(d, end))
				return false;
		} else if (*q == 'R' && end - q > 5 && !memcmp(q, "REC->", 5)) {
			const char *f = q + 5, *fe = f;
			while (fe < end && (isalnum((unsigned char)*fe) || *fe == '_'))
				fe++;
			if (!declared(t, pf, f, (size_t)(fe - f)))
				return false;
			q = fe - 1;
		}
	}
	return !in_str && depth == 0;
}

static void read_tracing(struct sv_pdr_lister *x, unsigned char *p, size_t n)
{
	static const unsigned char magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	tcur c = { p, n, 0, false };
	const unsigned char *m = tbytes(&c, 10);
	if (!m || memcmp(m, magic, 10) != 0) {
		snprintf(x->tracing_note, sizeof(x->tracing_note), "the tracing data does not start with its magic");
		return;
	}
	const char *version = tstr(&c, 16);
	const unsigned char *sizes = tbytes(&c, 2);
	uint32_t page = (uint32_t)tnum(&c, 4);
	if (c.bad || !version) {
		snprintf(x->tracing_note, sizeof(x->tracing_note), "the tracing data's header is cut short");
		return;
	}
	if (sizes[0]) {
		snprintf(x->tracing_note, sizeof(x->tracing_note), "the tracing data is big-endian (not supported)");
		return;
	}
	if (!(x->tep = tep_alloc()))
		return;
	tep_set_file_bigendian(x->tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(x->tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(x->tep, sizes[1] == 4 ? 4 : 8);
	tep_set_page_size(x->tep, (int)(page && page <= (1u << 30) ? page : 4096));
	const char *tag = tstr(&c, 16);
	uint64_t len = tnum(&c, 8);
	unsigned char *hp = tbytes(&c, len);
	if (hp && tag && !strcmp(tag, "header_page"))
		(void)tep_parse_header_page(x->tep, (char *)hp, (unsigned long)len, sizes[1] == 4 ? 4 : 8);
	tag = tstr(&c, 16);
	len = tnum(&c, 8);
	(void)tbytes(&c, len); /* header_event: the ring buffer's, not a sample's */
	for (uint32_t k = (uint32_t)tnum(&c, 4); k && !c.bad; k--) /* ftrace's own events: not sampled */
		(void)tbytes(&c, tnum(&c, 8));
	for (uint32_t sys = (uint32_t)tnum(&c, 4); sys && !c.bad; sys--) {
		const char *name = tstr(&c, 256);
		for (uint32_t k = (uint32_t)tnum(&c, 4); k && !c.bad; k--) {
			len = tnum(&c, 8);
			const unsigned char *f = tbytes(&c, len);
			if (f && name) {
				x->formats++;
				if (!format_shape(f, (size_t)len) ||
				    tep_parse_event(x->tep, (const char *)f, (unsigned long)len, name) != 0)
					x->bad_formats++;
			}
		}
	}
	len = tnum(&c, 4);
	(void)tbytes(&c, len); /* kallsyms: kernel addresses are named by kernel_function */
	len = tnum(&c, 4);
	const unsigned char *pk = tbytes(&c, len);
	if (pk && len)
		printk_formats(x->tep, pk, (size_t)len);
	/* then (0.6) the saved comms: each sample's own comm is what is shown */
	if (c.bad)
		snprintf(x->tracing_note, sizeof(x->tracing_note),
			 "the tracing data is cut short at its byte %zu", c.o);
}

/* Kernel addresses in a tracepoint's text (%pS: call_site=kfree+0x2a) named from the kernel's
 * symbols as the stack views name kernel frames (loaded the first time one is asked for). */
static char *kernel_function(void *priv, unsigned long long *addrp, char **modp)
{
	struct sv_pdr_lister *x = priv;
	pdr *r = x->r;
	if (!r->kallsyms_tried) {
		r->kallsyms_tried = true;
		sv_perf_kallsyms_load(r->syms, r->kbid, r->kbid_len, r->kernel_text, r->osrelease, r->kallsyms_note,
				      sizeof(r->kallsyms_note));
	}
	long i = sv_perf_kallsyms_find(r->syms, *addrp);
	if (i < 0)
		return NULL;
	const char *sym, *module;
	sv_perf_kallsyms_sym(r->syms, i, &sym, &module);
	*addrp = sv_perf_kallsyms_addr(r->syms, i);
	*modp = NULL;
	return (char *)(uintptr_t)sym;
}

int sv_pdr_lister_new(sv_pdr_lister **out, pdr *r, const sv_event_lister *l)
{
	struct sv_pdr_lister *x = calloc(1, sizeof(*x));
	if (!x)
		return sv_pdr_oom(r);
	x->l = l;
	x->r = r;
	*out = x;
	tep_set_loglevel(TEP_LOG_NONE); /* its complaints are ours to word: see the notes */
	if (r->tracing)
		read_tracing(x, r->tracing, r->tracing_len);
	if (x->tep)
		(void)tep_set_function_resolver(x->tep, kernel_function, x);
	trace_seq_init(&x->seq);
	x->seq_on = true;
	/* The time axis of the stack views: the first sample of the event they open. */
	for (size_t i = 0; i < r->nattrs; i++)
		if (r->attrs[i].selected && r->attrs[i].samples && (!x->have_t0 || r->attrs[i].first_time < x->t0)) {
			x->t0 = r->attrs[i].first_time;
			x->have_t0 = true;
		}
	return 0;
}

void sv_pdr_lister_free(sv_pdr_lister *x)
{
	if (!x)
		return;
	if (x->seq_on)
		trace_seq_destroy(&x->seq);
	if (x->tep)
		tep_free(x->tep);
	free(x->buf);
	free(x);
}

/* ---- one sample ---- */

/* Every field of ev (its common ones too) inside the raw data, dynamic ones' data as well. */
static bool fields_inside(const struct tep_event *ev, const unsigned char *raw, size_t size)
{
	const struct tep_format_field *lists[2] = { ev->format.common_fields, ev->format.fields };
	for (int k = 0; k < 2; k++)
		for (const struct tep_format_field *f = lists[k]; f; f = f->next) {
			if (f->offset < 0 || f->size < 0 || (size_t)f->offset + (size_t)f->size > size)
				return false;
			if ((f->flags & TEP_FIELD_IS_DYNAMIC) && f->size >= 4) {
				uint32_t loc = rd32(raw + f->offset);
				size_t at = loc & 0xffff, len = loc >> 16;
				if (f->flags & TEP_FIELD_IS_RELATIVE)
					at += (size_t)f->offset + (size_t)f->size;
				if (at > size || len > size - at)
					return false;
			}
		}
	return true;
}

/* A tracepoint sample's text as perf script prints it, into x->seq; false when it cannot be
 * (no format, or raw data its format does not fit). */
static bool tracepoint_text(struct sv_pdr_lister *x, const attr *a, const sample *s)
{
	if (!x->tep || !s->raw)
		return false;
	struct tep_event *ev = tep_find_event(x->tep, (int)a->config);
	if (!ev || !fields_inside(ev, s->raw, s->raw_size))
		return false;
	struct tep_record tr;
	memset(&tr, 0, sizeof(tr));
	tr.ts = s->time;
	tr.cpu = s->cpu == UINT32_MAX ? 0 : (int)s->cpu;
	tr.size = (int)s->raw_size;
	tr.data = (void *)(uintptr_t)s->raw;
	if (tep_data_type(x->tep, &tr) != ev->id)
		return false;
	trace_seq_reset(&x->seq);
	tep_print_event(x->tep, &x->seq, &tr, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&x->seq);
	return x->seq.state == TRACE_SEQ__GOOD;
}

static int on_sample(struct sv_pdr_lister *x, pdr *r, const unsigned char *p, size_t n, size_t off)
{
	long ai = sv_pdr_sample_attr(r, p, n);
	if (ai < 0)
		return 0; /* counted by the index as an unknown id */
	const attr *a = &r->attrs[ai];
	sample s;
	const char *why = NULL;
	if (!sv_pdr_parse_sample(a, p, n, &s, &why)) {
		sv_pdr_bad_sample(r, off, why);
		return 0;
	}
	/* the thread's comm as perf script prints it: its own, else ":TID" (the idle task's
	 * "swapper") */
	thread *t = sv_pdr_thread(r, s.pid, s.tid);
	if (!t)
		return sv_pdr_oom(r);
	char unnamed[24];
	if (t->comm == UINT32_MAX)
		snprintf(unnamed, sizeof(unnamed), s.tid == 0 ? "swapper" : ":%d", s.tid);
	const char *comm = t->comm == UINT32_MAX ? unnamed : r->comm_names + t->comm;
	const char *text = NULL;
	size_t tlen = 0;
	char own[96];
	if (a->type == 2) {
		if (tracepoint_text(x, a, &s)) {
			text = x->seq.buffer;
			tlen = x->seq.len;
		} else {
			x->unprinted++;
		}
	} else {
		int k = snprintf(own, sizeof(own), "period=%" PRIu64, s.period);
		if (a->sample_type & ST_IP)
			k += snprintf(own + k, sizeof(own) - (size_t)k, " ip=0x%" PRIx64, s.ip);
		text = own;
		tlen = (size_t)k;
	}
	if (SV_ARRAY_RESERVE(x->buf, x->cap, 2 * tlen + 2))
		return sv_pdr_oom(r);
	const char *names[128], *values[128];
	size_t nf = sv_perf_text_fields(text, tlen, x->buf, names, values, 128);
	double ms = 0;
	if (x->have_t0)
		ms = sv_pdr_rel_ms(x->t0, s.time);
	sv_trace_event e = { .ms = ms, .name = a->name, .pid = s.pid, .tid = s.tid,
			     .cpu = s.cpu == UINT32_MAX ? -1 : (int)s.cpu, .process = comm,
			     .data_len = a->type == 2 ? s.raw_size : 0,
			     .has_stack = (s.has_chain && s.nchain > 0) || s.stack, .nfields = nf,
			     .field_names = names, .field_values = values };
	return x->l->event(x->l->payload, &e);
}

int sv_pdr_lister_record(pdr *r, void *xp, uint32_t type, uint16_t misc, const unsigned char *p, size_t n, size_t off)
{
	struct sv_pdr_lister *x = xp;
	if (type == R_SAMPLE)
		return on_sample(x, r, p, n, off);
	/* what names the threads */
	return type == R_COMM || type == R_FORK ? sv_pdr_apply(r, type, misc, p, n) : 0;
}

int sv_pdr_lister_end(sv_pdr_lister *x, pdr *r)
{
	const sv_event_lister *l = x->l;
	if (!l->warning)
		return 0;
	char msg[400];
	if (r->kallsyms_note[0] == 'n') /* "no kernel symbols ...": kernel addresses stay numbers */
		l->warning(l->payload, r->kallsyms_note);
	/* what kept tracepoints from their fields, one line */
	if (x->tracing_note[0] || x->bad_formats || x->unprinted) {
		size_t k = (size_t)snprintf(msg, sizeof(msg), "%s", x->tracing_note);
		if (x->bad_formats && k < sizeof(msg))
			k += (size_t)snprintf(msg + k, sizeof(msg) - k, "%s%zu of its %zu tracepoint formats could not be read",
					      k ? "; " : "", x->bad_formats, x->formats);
		if (x->unprinted && k < sizeof(msg))
			snprintf(msg + k, sizeof(msg) - k, "%s%zu tracepoint samples listed without fields%s", k ? ": " : "",
				 x->unprinted,
				 k		 ? ""
				 : !r->tracing ? " (the file holds no tracing data)"
					       : " (no format for their id, or raw data shorter than their format)");
		l->warning(l->payload, msg);
	}
	if (r->bad_samples) {
		snprintf(msg, sizeof(msg), "%zu malformed samples skipped; first: %s", r->bad_samples, r->first_bad);
		l->warning(l->payload, msg);
	}
	if (r->unknown_id) {
		snprintf(msg, sizeof(msg), "%zu samples with an event id no attribute lists were skipped", r->unknown_id);
		l->warning(l->payload, msg);
	}
	if (r->truncated)
		l->warning(l->payload, r->trunc_msg);
	return 0;
}
