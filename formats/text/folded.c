/* SPDX-License-Identifier: MIT */
/* Folded stacks, reader and writer (spec/formats.md). Reading: one line per stack, frames root first separated
 * by ';', a blank, then an integer or decimal count. Each line is one sample (metric = count,
 * time 0, scale-to-data); equal stacks add up in every view. Streams through sv_lines; a large
 * file is read by two threads at once (two_parts.h).
 * Writing: plain display names, or FlameGraph's stackcollapse-perf.pl --all style. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/export_int.h"
#include "stackview/formats.h"
#include "sv/array.h"
#include "sv/idmap.h"
#include "core/two_parts.h"

/* The count at the end of a line: its start, or NULL. */
static const char *count_start(const char *line, size_t n, double *value)
{
	size_t e = n;
	while (e > 0 && (line[e - 1] == ' ' || line[e - 1] == '\t'))
		e--;
	size_t b = e;
	while (b > 0 && (isdigit((unsigned char)line[b - 1]) || line[b - 1] == '.'))
		b--;
	if (b == e || (b > 0 && line[b - 1] != ' ' && line[b - 1] != '\t'))
		return NULL;
	char buf[400]; /* a double's plain digits fit (1e308 has 309) */
	if (e - b >= sizeof(buf))
		return NULL;
	memcpy(buf, line + b, e - b);
	buf[e - b] = '\0';
	char *end;
	errno = 0;
	double v = strtod(buf, &end);
	if (*end || errno || !isfinite(v) || strchr(buf, '.') != strrchr(buf, '.'))
		return NULL;
	*value = v;
	return line + b;
}

/* Lines are read as flamegraph.pl reads them: "STACK COUNT" where exactly one blank separates
 * the count (a frame may end in, or be, a space); blank lines and '#' comment lines (those
 * that do not read as a stack: "#x;y 5" is one, as in flamegraph.pl) are skipped; a line that does not read is skipped and counted, with one warning, unless no
 * line reads at all (then the first bad one is the error). */
/* What a reader of folded lines keeps between lines. */
typedef struct fold_read {
	size_t good, skipped;
	long first_bad;
	/* The last line's frames: its text, and per frame where it ends and the stack it makes.
	 * Folded files are sorted, so a line shares most of its frames with the one before:
	 * those are not looked up again. */
	char *prev;
	size_t prev_len, prev_cap;
	struct fl_link { size_t end; sv_stack_id stack; } *link;
	size_t nlink, link_cap;
} fold_read;

static void fold_read_dispose(fold_read *r)
{
	free(r->prev);
	free(r->link);
}

/* The lines lr gives, to its end, into the sink (`cancel`, when set, stops early). */
static int fold_lines(fold_read *r, sv_sink *sink, sv_lines *lr, bool at_start, const atomic_bool *cancel, sv_error *err)
{
	int rc = 0;
	for (unsigned nl = 0;; nl++) {
		if (cancel && (nl & 4095) == 0 && atomic_load_explicit(cancel, memory_order_relaxed))
			return SV_EINVAL;
		const char *line;
		size_t n;
		int got = sv_lines_next(lr, &line, &n, err);
		if (got <= 0)
			return got;
		if (at_start && lr->line == 1 && n >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) {
			line += 3;
			n -= 3;
		}
		size_t k = 0;
		while (k < n && isspace((unsigned char)line[k]))
			k++;
		if (k == n)
			continue;
		double count;
		const char *cs = count_start(line, n, &count);
		if (!cs) {
			if (line[k] == '#')
				continue; /* a comment; "#frame;x 5" reads as a stack, as in flamegraph.pl */
			if (!r->skipped++)
				r->first_bad = lr->line;
			continue;
		}
		/* Frames: the text before the count's one separating blank, split on ';' (empty
		 * parts are skipped). */
		const char *p = line, *end = cs > line ? cs - 1 : line; /* a count alone: no frames */
		size_t len = (size_t)(end - line), same = 0, depth = 0;
		while (same < len && same < r->prev_len && line[same] == r->prev[same])
			same++;
		/* whole frames in common: those ending where both lines have a ';' or their end */
		while (depth < r->nlink && r->link[depth].end <= same &&
		       (r->link[depth].end == len || line[r->link[depth].end] == ';'))
			depth++;
		sv_stack_id st = depth ? r->link[depth - 1].stack : SV_STACK_NONE;
		if (depth)
			p = line + r->link[depth - 1].end;
		r->nlink = depth;
		while (p < end && !rc) {
			const char *semi = memchr(p, ';', (size_t)(end - p));
			const char *fe = semi ? semi : end;
			if (fe > p) {
				sv_frame_id f;
				if (depth + 1 > SV_MAX_STACK_DEPTH)
					rc = SV_ELIMIT;
				else if (!(rc = sink->ops->intern_frame(sink->self, &f, p, (size_t)(fe - p))) &&
					 !(rc = sink->ops->intern_stack(sink->self, &st, st, f)) &&
					 !(rc = SV_ARRAY_RESERVE(r->link, r->link_cap, depth + 1))) {
					r->link[depth++] = (struct fl_link){ (size_t)(fe - line), st };
					r->nlink = depth;
				}
			}
			p = semi ? semi + 1 : end;
		}
		if (!rc && !(rc = sv_array_reserve(&r->prev, &r->prev_cap, len + 1, 1))) {
			memcpy(r->prev, line, len);
			r->prev_len = len;
		}
		if (!rc)
			rc = sink->ops->add_sample(sink->self, st, 0, count, 1);
		if (rc) {
			sv_error_set(err, rc, "%s", rc == SV_ELIMIT ? "stack too deep or frame name too long" : sv_status_str(rc));
			sv_error_locate(err, lr->in->name, lr->line, -1);
			return rc;
		}
		r->good++;
	}
}

/* Chunks of a large input read into a source of their own (two_parts.h): one alone, or the
 * second thread's run of chunks. */
typedef struct fold_part {
	sv_two_part base;
	fold_read r;
} fold_part;

typedef struct fold_parts {
	const sv_input *in;
	const size_t *at;
	atomic_bool cancel;
} fold_parts;

static void *fold_open(void *arg, unsigned k, unsigned to)
{
	fold_parts *s = arg;
	fold_part *p = calloc(1, sizeof(*p));
	if (p && sv_two_part_init(&p->base, s->in, s->at, k, to)) {
		free(p);
		return NULL;
	}
	return p;
}

static void fold_read_chunk(void *arg, void *part, unsigned k)
{
	fold_parts *s = arg;
	fold_part *p = part;
	if (!sv_two_part_at(&p->base, s->in, s->at, k))
		return;
	sv_sink sink = sv_source_sink(p->base.src);
	p->base.rc = fold_lines(&p->r, &sink, &p->base.lr, false, &s->cancel, &p->base.err);
}

/* The first chunks, on this thread. */
typedef struct fold_first {
	fold_read *r;
	sv_sink *sink;
	sv_error *err;
} fold_first;

static int fold_first_run(void *arg, sv_lines *lr)
{
	fold_first *f = arg;
	return fold_lines(f->r, f->sink, lr, true, NULL, f->err);
}

/* A chunk's part into the first thread's reading: its counts of lines read and skipped, then
 * its frames, stacks and samples. */
typedef struct fold_join {
	fold_read *r;
	sv_sink *sink;
	const sv_lines *lr;
} fold_join;

static int fold_join_part(void *arg, sv_two_part *part, bool *taken)
{
	fold_join *j = arg;
	fold_part *p = (fold_part *)part;
	fold_read *r = j->r;
	if (!r->skipped && p->r.skipped)
		r->first_bad = j->lr->line + p->r.first_bad;
	r->skipped += p->r.skipped;
	r->good += p->r.good;
	*taken = true;
	return sv_two_join(j->sink, part->src, NULL);
}

/* Read lr's input on two threads when that helps, else (or from the first chunk the second
 * thread could not read or join) on this one; the result is the same. */
static int fold_all(fold_read *r, sv_sink *sink, sv_lines *lr, const sv_import_opts *opts, sv_error *err)
{
	const sv_input *in = lr->in;
	size_t at[SV_TWO_CHUNKS + 1];
	unsigned m = sv_two_wanted(opts ? opts->threads : 0, in, sink) ? sv_two_chunks((const char *)in->data, in->len, false, at) : 1;
	if (m < 2)
		return fold_lines(r, sink, lr, true, NULL, err);
	fold_parts *s = calloc(1, sizeof(*s));
	if (!s)
		return sv_error_set(err, SV_ENOMEM, NULL);
	s->in = in;
	s->at = at;
	atomic_init(&s->cancel, false);
	fold_first f = { r, sink, err };
	sv_two_reader rd = { fold_open, fold_read_chunk, s };
	sv_two_ranges rg;
	int rc = sv_two_run(lr, at, m, &rd, &s->cancel, fold_first_run, &f, &rg);
	unsigned k = 0;
	fold_join j = { r, sink, lr };
	if (!rc && (rc = sv_two_join_all(sink, lr, at, m, &rg, fold_join_part, &j, &k)))
		sv_error_set(err, rc, NULL);
	for (unsigned i = 0; i < m; i++) {
		fold_part *p = rg.part[i];
		if (p) {
			sv_two_part_dispose(&p->base);
			fold_read_dispose(&p->r);
			free(p);
		}
	}
	free(s);
	if (rc || k == m)
		return rc;
	return fold_lines(r, sink, lr, true, NULL, err); /* the rest as one reader reads it */
}

static int folded_import(sv_sink *sink, const sv_input *in, const sv_import_opts *opts, sv_error *err)
{
	sv_lines lr;
	int rc = sv_lines_init(&lr, in);
	if (rc)
		return sv_error_set(err, rc, NULL);
	if (sink->ops->set_scaling)
		sink->ops->set_scaling(sink->self, SV_SCALING_DATA);
	fold_read r = { 0 };
	rc = fold_all(&r, sink, &lr, opts, err);
	sv_lines_dispose(&lr);
	fold_read_dispose(&r);
	if (!rc && r.skipped && !r.good) {
		rc = sv_error_set(err, SV_EFORMAT, "expected 'frame;frame;... COUNT'");
		sv_error_locate(err, in->name, r.first_bad, -1);
	} else if (!rc && r.skipped && sink->ops->add_note) {
		char msg[160];
		snprintf(msg, sizeof(msg), "%zu line%s skipped: not 'frame;frame;... COUNT' (the first is line %ld)", r.skipped,
			 r.skipped == 1 ? "" : "s", r.first_bad);
		rc = sink->ops->add_note(sink->self, SV_NOTE_WARNING, msg);
	}
	return rc;
}

/* The first line that is not blank or a '#' comment is "frame;frame... COUNT" (a ';' makes it folded at
 * once, so a bad later line gets a line-numbered error), or the first lines (up to 8) all
 * read as single-frame "frame COUNT" lines. */
static bool folded_probe(const unsigned char *d, size_t n)
{
	const char *p = (const char *)d, *end = p + (n < 65536 ? n : 65536);
	int lines = 0;
	bool semi = false;
	while (p < end && lines < 8) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl && end != (const char *)d + n)
			break; /* a cut line at the probe window's end */
		const char *le = nl ? nl : end;
		size_t len = (size_t)(le - p);
		if (len && p[len - 1] == '\r')
			len--;
		double c;
		if (len && (p[0] != '#' || count_start(p, len, &c))) {
			if (isspace((unsigned char)p[0]) || !count_start(p, len, &c))
				return false;
			semi = semi || memchr(p, ';', len);
			if (semi)
				return true;
			lines++;
		}
		p = nl ? nl + 1 : end;
	}
	return lines > 0;
}

static const char *const folded_patterns[] = { ".folded", ".collapsed", ".folded.txt", NULL };

const sv_format sv_fmt_folded = {
	.name = "folded", .patterns = folded_patterns, .probe = folded_probe, .import = folded_import, .streams = true,
	.export = sv_fmt_folded_export,
};

/* ---- writer ---- */

/* A count as a plain decimal that reads back to the same double (folded readers, ours and
 * FlameGraph's, take no exponents): 1e+63 as its digits, 3e-06 as 0.000003. */
static void put_plain(FILE *f, double d)
{
	if (d == 0)
		d = 0; /* no "-0" */
	char buf[400];
	int prec = d == trunc(d) ? 0 : 15 - (int)floor(log10(fabs(d)));
	if (prec < 0)
		prec = 0;
	for (; prec <= 340; prec++) {
		snprintf(buf, sizeof(buf), "%.*f", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	if (strchr(buf, '.')) { /* trailing zeros say nothing */
		size_t n = strlen(buf);
		while (buf[n - 1] == '0')
			buf[--n] = '\0';
		if (buf[n - 1] == '.')
			buf[n - 1] = '\0';
	}
	fputs(buf, f);
}

/* A folded frame: ';' would split it and a newline would end the line. */
static void folded_clean(char *s)
{
	for (; *s; s++)
		if (*s == ';')
			*s = ':';
		else if (*s == '\n' || *s == '\r')
			*s = ' ';
}

static bool kernel_module(const char *m, size_t n)
{
	return (n == 15 && memcmp(m, "kernel.kallsyms", 15) == 0) || (n > 3 && memcmp(m + n - 3, ".ko", 3) == 0) ||
	       (n >= 7 && memcmp(m, "vmlinux", 7) == 0);
}

static bool jit_module(const char *m, size_t n)
{
	return n > 9 && memcmp(m, "perf-", 5) == 0 && memcmp(m + n - 4, ".map", 4) == 0;
}

/* One frame as stackcollapse-perf.pl --all shows it (perf sources): the symbol without the
 * module, with _[k] for kernel and _[j] for JIT frames; thread frames are dropped and the
 * process frame becomes its comm. Returns false to drop the frame. */
static bool flamegraph_name(char *out, size_t size, const char *name, bool rootmost)
{
	if (rootmost && strncmp(name, "Process ", 8) == 0) {
		const char *e = strrchr(name, '(');
		size_t n = e && e > name + 8 ? (size_t)(e - name - 9) : strlen(name + 8);
		snprintf(out, size, "%.*s", (int)n, name + 8);
		for (char *p = out; *p; p++)
			if (*p == ' ')
				*p = '_';
		return true;
	}
	if (strncmp(name, "Thread (", 8) == 0)
		return false;
	const char *bang = strchr(name, '!');
	if (!bang) {
		snprintf(out, size, "%s", name);
		return true;
	}
	size_t mlen = (size_t)(bang - name);
	const char *sym = bang + 1;
	if (strcmp(sym, "unknown") == 0) {
		snprintf(out, size, mlen && strncmp(name, "unknown", mlen) ? "[%.*s]" : "[unknown]", (int)mlen, name);
		return true;
	}
	const char *tag = kernel_module(name, mlen) ? "_[k]" : jit_module(name, mlen) ? "_[j]" : "";
	snprintf(out, size, "%s%s", sym, tag);
	return true;
}

/* The writer streams: effective names are interned once per frame, stacks become nodes of a
 * trie of effective names (equal texts meet in one node and add up), and a depth-first walk
 * writes the lines in byte order (what sorting the texts would give; LC_ALL=C sort, as
 * stackcollapse does) with one prefix buffer. Memory follows distinct frames and stacks,
 * never the total text (an 8 MB profile of deep stacks made 3.9 GB of lines). */
typedef struct fw_names {
	char *text;       /* NUL-separated names */
	size_t len, cap;
	uint32_t *off;    /* name id -> offset in text */
	uint32_t *nlen;
	size_t n, cap_off, cap_len;
	sv_idmap index;   /* hash (probed on collision) -> name id */
} fw_names;

static int fw_intern(fw_names *nm, const char *s, uint32_t *out)
{
	size_t len = strlen(s);
	uint64_t h = sv_hash_bytes(s, len);
	for (;; h++) {
		uint32_t id = sv_idmap_get(&nm->index, h);
		if (id == SV_IDMAP_NONE)
			break;
		if (nm->nlen[id] == len && memcmp(nm->text + nm->off[id], s, len) == 0) {
			*out = id;
			return 0;
		}
	}
	if (nm->len + len + 1 > UINT32_MAX || SV_ARRAY_RESERVE(nm->text, nm->cap, nm->len + len + 1) ||
	    SV_ARRAY_RESERVE(nm->off, nm->cap_off, nm->n + 1) || SV_ARRAY_RESERVE(nm->nlen, nm->cap_len, nm->n + 1))
		return SV_ENOMEM;
	memcpy(nm->text + nm->len, s, len + 1);
	nm->off[nm->n] = (uint32_t)nm->len;
	nm->nlen[nm->n] = (uint32_t)len;
	nm->len += len + 1;
	if (sv_idmap_put(&nm->index, h, (uint32_t)nm->n))
		return SV_ENOMEM;
	*out = (uint32_t)nm->n++;
	return 0;
}

#define FW_SKIP UINT32_MAX
#define FW_ROOT 0u /* trie node 0: the empty path */

/* An entry of a node's walk: a child's own line (end = true) or the lines below it. Sorting
 * by the child's name followed by "\0" or ";" orders them as their texts sort. */
typedef struct fw_item {
	uint32_t node;
	bool end;
} fw_item;

typedef struct fw_ctx {
	fw_names names;
	uint32_t *tname, *tparent; /* per trie node: name id, parent node */
	double *tsum;
	uint8_t *tseen;
	size_t nt, cap_name, cap_parent;
	sv_idmap tindex; /* (parent << 32 | name) -> node */
} fw_ctx;

static int item_cmp(const void *x, const void *y, void *arg)
{
	const fw_item *a = x, *b = y;
	const fw_ctx *c = arg;
	const unsigned char *p = (const unsigned char *)c->names.text + c->names.off[c->tname[a->node]];
	const unsigned char *q = (const unsigned char *)c->names.text + c->names.off[c->tname[b->node]];
	while (*p && *p == *q)
		p++, q++;
	/* After a name comes the line's end ('\0') or the next frame (';'). */
	unsigned ca = *p ? *p : a->end ? 0u : ';', cb = *q ? *q : b->end ? 0u : ';';
	if (ca != cb)
		return ca < cb ? -1 : 1;
	if (*p || *q) /* equal so far, then a terminator met a name character: decided above */
		return 0;
	return a->end == b->end ? 0 : a->end ? -1 : 1;
}

int sv_fmt_folded_export(FILE *f, const sv_source *src, const sv_export_opts *opts, sv_error *err)
{
	bool fg = opts && opts->folded_style == SV_FOLDED_FLAMEGRAPH;
	uint32_t nst = sv_source_stack_count(src), nf = sv_source_frame_count(src);
	size_t ns = sv_source_sample_count(src);
	fw_ctx c;
	memset(&c, 0, sizeof(c));
	sv_idmap_init(&c.names.index);
	sv_idmap_init(&c.tindex);
	double *sum = calloc((size_t)nst + 1, sizeof(*sum));
	uint8_t *seen = calloc((size_t)nst + 1, 1);
	uint32_t *fname = malloc(((size_t)nf + 1) * 2 * sizeof(*fname)); /* per frame: not root, root */
	uint32_t *snode = malloc(((size_t)nst + 1) * sizeof(*snode));
	uint32_t *first = NULL, *next = NULL; /* children lists */
	fw_item *items = NULL;
	size_t nitems = 0, items_cap = 0;
	char *prefix = NULL;
	size_t prefix_cap = 0;
	struct walk {
		uint32_t node;
		size_t items, nitems, at, plen;
	} *stk = NULL;
	size_t nstk = 0, stk_cap = 0;
	int rc = 0;
	if (!sum || !seen || !fname || !snode) {
		rc = sv_error_set(err, SV_ENOMEM, NULL);
		goto out;
	}
	/* Per-sample work is one addition (in whole quanta where the source has one: a line's
	 * sum read back rounded once, as its views' sums are). */
	const sv_stack_id *stk_of = sv_source_sample_stacks(src);
	sv_samples smp = sv_source_samples(src);
	double qs = sv_source_metric_scale(src);
	for (size_t i = 0; i < ns; i++) {
		uint32_t k = stk_of[i] == SV_STACK_NONE ? nst : stk_of[i];
		double m = sv_sample_metric(&smp, i);
		sum[k] += qs == 1 ? m : nearbyint(m * qs);
		seen[k] = 1;
	}
	/* Effective names, once per frame (a FlameGraph root frame names the comm). */
	for (uint32_t fr = 0; fr < nf; fr++)
		for (int root = 0; root < 2; root++) {
			char name[SV_MAX_NAME_LEN + 16];
			uint32_t *slot = &fname[2 * (size_t)fr + (size_t)root];
			if (root && !fg) { /* a plain name does not depend on the position */
				*slot = slot[-1];
				continue;
			}
			if (fg) {
				if (!flamegraph_name(name, sizeof(name), sv_source_frame_name(src, fr), root)) {
					*slot = FW_SKIP;
					continue;
				}
			} else {
				snprintf(name, sizeof(name), "%s", sv_source_frame_short(src, fr));
			}
			folded_clean(name);
			if ((rc = fw_intern(&c.names, name, slot))) {
				rc = sv_error_set(err, SV_ENOMEM, NULL);
				goto out;
			}
		}
	/* The trie: node 0 is the empty path; a stack element's node is its caller's, extended
	 * by its effective name unless that is dropped. Callers come before callees. */
	if (SV_ARRAY_RESERVE(c.tname, c.cap_name, 1) || SV_ARRAY_RESERVE(c.tparent, c.cap_parent, 1)) {
		rc = sv_error_set(err, SV_ENOMEM, NULL);
		goto out;
	}
	c.tname[0] = c.tparent[0] = UINT32_MAX;
	c.nt = 1;
	for (uint32_t st = 0; st < nst; st++) {
		sv_stack_id caller = sv_source_stack_caller(src, st);
		uint32_t parent = caller == SV_STACK_NONE ? FW_ROOT : snode[caller];
		uint32_t nm = fname[2 * (size_t)sv_source_stack_frame(src, st) + (caller == SV_STACK_NONE)];
		if (nm == FW_SKIP) {
			snode[st] = parent;
			continue;
		}
		uint64_t key = (uint64_t)parent << 32 | nm;
		uint32_t node = sv_idmap_get(&c.tindex, key);
		if (node == SV_IDMAP_NONE) {
			if (c.nt >= UINT32_MAX - 1 || SV_ARRAY_RESERVE(c.tname, c.cap_name, c.nt + 1) ||
			    SV_ARRAY_RESERVE(c.tparent, c.cap_parent, c.nt + 1) || sv_idmap_put(&c.tindex, key, (uint32_t)c.nt)) {
				rc = sv_error_set(err, SV_ENOMEM, NULL);
				goto out;
			}
			node = (uint32_t)c.nt++;
			c.tname[node] = nm;
			c.tparent[node] = parent;
		}
		snode[st] = node;
	}
	sv_idmap_dispose(&c.tindex);
	c.tsum = calloc(c.nt, sizeof(*c.tsum));
	c.tseen = calloc(c.nt, 1);
	first = malloc(c.nt * sizeof(*first));
	next = malloc(c.nt * sizeof(*next));
	if (!c.tsum || !c.tseen || !first || !next) {
		rc = sv_error_set(err, SV_ENOMEM, NULL);
		goto out;
	}
	/* A stackless sample has no frame to name: folded cannot hold it. */
	for (uint32_t st = 0; st < nst; st++)
		if (seen[st]) {
			c.tsum[snode[st]] += sum[st];
			c.tseen[snode[st]] = 1;
		}
	for (size_t t = 0; qs != 1 && t < c.nt; t++)
		c.tsum[t] /= qs;
	for (size_t t = 0; t < c.nt; t++)
		first[t] = UINT32_MAX;
	for (size_t t = c.nt; t-- > 1;) {
		next[t] = first[c.tparent[t]];
		first[c.tparent[t]] = (uint32_t)t;
	}
	/* stackcollapse-perf.pl weighs by perf's period: for a time-metric perf source that is
	 * the metric in ms, back in integer ns. */
	const char *fmt = sv_source_format(src);
	double scale = fg && sv_source_scaling(src) == SV_SCALING_TIME && (!strcmp(fmt, "perf-script") || !strcmp(fmt, "perf-data"))
			       ? 1e6
			       : 1;
	/* What folded stacks cannot hold is refused, so that whatever is written reads back:
	 * negative counts (a diff) and a profile with no stack at all. */
	size_t written = 0;
	if (SV_ARRAY_RESERVE(stk, stk_cap, 1)) {
		rc = sv_error_set(err, SV_ENOMEM, NULL);
		goto out;
	}
	stk[nstk++] = (struct walk){ FW_ROOT, 0, 0, 0, 0 };
	bool fresh = true; /* the top entry's items are still to be gathered */
	while (nstk && !ferror(f)) { /* a failed write (or a held signal) stops */
		struct walk *w = &stk[nstk - 1];
		if (fresh) {
			w->items = nitems;
			for (uint32_t ch = first[w->node]; ch != UINT32_MAX; ch = next[ch]) {
				if (SV_ARRAY_RESERVE(items, items_cap, nitems + 2)) {
					rc = sv_error_set(err, SV_ENOMEM, NULL);
					goto out;
				}
				w = &stk[nstk - 1];
				if (c.tseen[ch])
					items[nitems++] = (fw_item){ ch, true };
				if (first[ch] != UINT32_MAX)
					items[nitems++] = (fw_item){ ch, false };
			}
			w->nitems = nitems - w->items;
			if (w->nitems > 1) /* items is NULL while nothing was gathered */
				qsort_r(items + w->items, w->nitems, sizeof(*items), item_cmp, &c);
			w->at = 0;
			fresh = false;
		}
		if (w->at == w->nitems) {
			nitems = w->items;
			nstk--;
			continue;
		}
		fw_item it = items[w->items + w->at++];
		const char *name = c.names.text + c.names.off[c.tname[it.node]];
		size_t nl = c.names.nlen[c.tname[it.node]];
		size_t plen = w->plen;
		if (SV_ARRAY_RESERVE(prefix, prefix_cap, plen + nl + 2)) {
			rc = sv_error_set(err, SV_ENOMEM, NULL);
			goto out;
		}
		if (plen)
			prefix[plen++] = ';';
		memcpy(prefix + plen, name, nl);
		plen += nl;
		if (it.end) {
			double m = scale == 1 ? c.tsum[it.node] : round(c.tsum[it.node] * scale);
			if (m < 0 || !isfinite(m)) {
				rc = sv_error_set(err, SV_EUNSUPPORTED,
						  "folded stacks cannot hold a %s count (a diff?): write .perfView.xml instead",
						  m < 0 ? "negative" : "non-finite");
				goto out;
			}
			fwrite(prefix, 1, plen, f);
			fputc(' ', f);
			put_plain(f, m);
			fputc('\n', f);
			written++;
			continue;
		}
		if (SV_ARRAY_RESERVE(stk, stk_cap, nstk + 1)) {
			rc = sv_error_set(err, SV_ENOMEM, NULL);
			goto out;
		}
		stk[nstk++] = (struct walk){ it.node, 0, 0, 0, plen };
		fresh = true;
	}
	if (!written && !ferror(f)) {
		rc = sv_error_set(err, SV_EUNSUPPORTED, "no sample with a stack to write: folded stacks cannot hold an empty profile");
		goto out;
	}
	rc = sv_write_check(f, err);
out:
	free(c.names.text);
	free(c.names.off);
	free(c.names.nlen);
	sv_idmap_dispose(&c.names.index);
	sv_idmap_dispose(&c.tindex);
	free(c.tname);
	free(c.tparent);
	free(c.tsum);
	free(c.tseen);
	free(first);
	free(next);
	free(items);
	free(prefix);
	free(stk);
	free(fname);
	free(snode);
	free(sum);
	free(seen);
	return rc;
}
