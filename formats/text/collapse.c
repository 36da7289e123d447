/* SPDX-License-Identifier: MIT */
/* FlameGraph's stackcollapse-perf.pl on perf script text, rule for rule (see save.h): the
 * script's three Perl regular expressions run as PCRE2 (Perl's semantics: lazy comms with
 * blanks and digits, the last " (module)" of a frame line), its tidying of names (parameter
 * lists, quotes, Java's L prefix), its annotations (_[k], _[j], _[i] for the parts of
 * an `a->b` inline chain), [module] for unknown symbols (with <address> for --addrs), the
 * comm root (with -PID or -PID/TID), the first event only, and the output sorted by byte
 * order with equal stacks added up. Lines are read with "\n" or "\r\n" endings (the script
 * keeps a "\r" and then sees no blank lines in CRLF text). Memory follows the distinct
 * stacks. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackview/formats.h"
#include "sv/array.h"
#include "sv/idmap.h"

/* The script's expressions, verbatim. */
#define RE_HEADER "^(\\S.+?)\\s+(\\d+)\\/*(\\d+)*\\s+"
#define RE_PERIOD ":\\s*(\\d+)*\\s+(\\S+):\\s*$"
#define RE_FRAME "^\\s*(\\w+)\\s*(.+) \\((\\S*)\\)"
/* Ours: a header that ends with its one frame (perf script without -g, or -G): the event, then
 * the frame as RE_FRAME reads it. The script has no such rule (it sees no blank line between
 * such samples and collapses nothing); stackview reads each as a sample of that frame. */
#define RE_ONELINE ":\\s*(\\d+)*\\s+(\\S+):\\s+(\\w+\\s*.+ \\(\\S*\\))\\s*$"

typedef struct cl_re {
	pcre2_code *code;
	pcre2_match_data *md;
} cl_re;

typedef struct cl_entry {
	char *key;
	size_t len;
	uint64_t sum;   /* Perl's integer sum ... */
	double nv;      /* ... and its floating one, used once the integer overflowed */
	bool overflow;
} cl_entry;

typedef struct cl_ctx {
	cl_re header, period, frame, oneline;
	cl_entry *e;
	size_t n, cap;
	sv_idmap index; /* hash (probed) -> entry */
	char *buf;      /* scratch: names and the stack being built */
	size_t buf_cap;
	size_t *plen;   /* the stack's names, leaf first as read: lengths, offsets in names */
	size_t nparts, plen_cap;
	char *names;    /* the names' text */
	size_t names_len, names_cap;
	size_t *noff;
	size_t noff_cap;
} cl_ctx;

static int re_init(cl_re *r, const char *pat)
{
	int code;
	PCRE2_SIZE off;
	r->code = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, 0, &code, &off, NULL);
	r->md = r->code ? pcre2_match_data_create_from_pattern(r->code, NULL) : NULL;
	return r->code && r->md ? 0 : SV_ENOMEM;
}

static void re_free(cl_re *r)
{
	pcre2_match_data_free(r->md);
	pcre2_code_free(r->code);
}

/* Match; group i as [*s, *s + *n) or unset (*s = NULL). */
static bool re_match(cl_re *r, const char *s, size_t n)
{
	return pcre2_match(r->code, (PCRE2_SPTR)s, n, 0, 0, r->md, NULL) > 0;
}

static bool re_group(cl_re *r, int i, const char *s, const char **gs, size_t *gn)
{
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(r->md);
	if ((int)pcre2_get_ovector_count(r->md) <= i || ov[2 * i] == PCRE2_UNSET) {
		*gs = NULL;
		*gn = 0;
		return false;
	}
	*gs = s + ov[2 * i];
	*gn = ov[2 * i + 1] - ov[2 * i];
	return true;
}

/* Perl's truth of a string: "" and "0" are false. */
static bool truthy(const char *s, size_t n)
{
	return s && n && !(n == 1 && s[0] == '0');
}

/* Append a name (the current one in the names text) and return its offset. */
static int name_push(cl_ctx *c, const char *s, size_t n)
{
	if (SV_ARRAY_RESERVE(c->names, c->names_cap, c->names_len + n + 1) ||
	    SV_ARRAY_RESERVE(c->noff, c->noff_cap, c->nparts + 1) || SV_ARRAY_RESERVE(c->plen, c->plen_cap, c->nparts + 1))
		return SV_ENOMEM;
	memcpy(c->names + c->names_len, s, n);
	c->noff[c->nparts] = c->names_len;
	c->plen[c->nparts] = n;
	c->names_len += n;
	c->nparts++;
	return 0;
}

static int remember(cl_ctx *c, const char *key, size_t len, const char *count, size_t cn)
{
	uint64_t v = 0;
	bool big = cn > 19;
	double dv = 0;
	for (size_t i = 0; i < cn; i++) {
		dv = dv * 10 + (count[i] - '0');
		if (!big && (v > (UINT64_MAX - 9) / 10))
			big = true;
		v = v * 10 + (uint64_t)(count[i] - '0');
	}
	uint64_t h = sv_hash_bytes(key, len);
	for (;; h++) {
		uint32_t id = sv_idmap_get(&c->index, h);
		if (id == SV_IDMAP_NONE)
			break;
		cl_entry *e = &c->e[id];
		if (e->len == len && memcmp(e->key, key, len) == 0) {
			if (big || e->overflow || e->sum > INT64_MAX - v) {
				e->overflow = true;
			} else {
				e->sum += v;
			}
			e->nv += dv;
			return 0;
		}
	}
	char *k = malloc(len + 1);
	if (!k)
		return SV_ENOMEM;
	memcpy(k, key, len);
	k[len] = '\0';
	cl_entry e = { k, len, big ? 0 : v, dv, big || v > INT64_MAX };
	if (c->n >= UINT32_MAX - 1 || SV_ARRAY_PUSH(c->e, c->n, c->cap, e)) {
		free(k);
		return SV_ENOMEM;
	}
	return sv_idmap_put(&c->index, h, (uint32_t)(c->n - 1));
}

/* One frame line's names, as the script makes them, pushed leaf first in `->` order. */
static int frame_line(cl_ctx *c, const char *line, unsigned flags, bool java)
{
	const char *pc, *raw, *mod;
	size_t pcn, rawn, modn;
	re_group(&c->frame, 1, line, &pc, &pcn);
	re_group(&c->frame, 2, line, &raw, &rawn);
	re_group(&c->frame, 3, line, &mod, &modn);
	/* s/\+0x[\da-f]+$// */
	size_t k = rawn;
	while (k > 0 && ((raw[k - 1] >= '0' && raw[k - 1] <= '9') || (raw[k - 1] >= 'a' && raw[k - 1] <= 'f')))
		k--;
	if (k < rawn && k >= 3 && memcmp(raw + k - 3, "+0x", 3) == 0)
		rawn = k - 3;
	if (rawn && raw[0] == '(')
		return 0; /* process names */
	/* split /\->/: trailing empty parts dropped, as Perl's split does */
	size_t nsplit = 0, starts[4096], lens[4096];
	for (size_t p = 0; p <= rawn && nsplit < 4096;) {
		const char *arrow = NULL;
		for (size_t q = p; q + 1 < rawn; q++)
			if (raw[q] == '-' && raw[q + 1] == '>') {
				arrow = raw + q;
				break;
			}
		size_t e = arrow ? (size_t)(arrow - raw) : rawn;
		starts[nsplit] = p;
		lens[nsplit++] = e - p;
		if (!arrow)
			break;
		p = e + 2;
	}
	while (nsplit && lens[nsplit - 1] == 0)
		nsplit--;
	bool kernel_mod = modn && (mod[0] == '[' || (modn >= 7 && memcmp(mod + modn - 7, "vmlinux", 7) == 0)) &&
			  !memmem(mod, modn, "unknown", 7);
	bool jit_mod = false;
	for (size_t i = 0; i + 10 <= modn && !jit_mod; i++) {
		if (memcmp(mod + i, "/tmp/perf-", 10) != 0)
			continue;
		size_t d = i + 10;
		while (d < modn && mod[d] >= '0' && mod[d] <= '9')
			d++;
		jit_mod = d > i + 10 && d + 4 <= modn && memcmp(mod + d, ".map", 4) == 0;
	}
	size_t first = c->nparts;
	for (size_t s = 0; s < nsplit; s++) {
		size_t need = lens[s] + modn + pcn + 16;
		if (SV_ARRAY_RESERVE(c->buf, c->buf_cap, need))
			return SV_ENOMEM;
		char *f = c->buf;
		size_t fl = lens[s];
		memcpy(f, raw + starts[s], fl);
		/* tidy_generic */
		for (size_t i = 0; i < fl; i++)
			if (f[i] == ';')
				f[i] = ':';
		bool lambda = false; /* m/\.\(.*\)\./ */
		for (size_t i = 0; i + 1 < fl && !lambda; i++)
			if (f[i] == '.' && f[i + 1] == '(')
				for (size_t j = fl - 1; j > i + 2 && !lambda; j--)
					lambda = f[j] == '.' && f[j - 1] == ')';
		if (!lambda) { /* the script cuts at the first "(" that does not open "(anonymous namespace)" */
			static const char anon[] = "(anonymous namespace)";
			size_t al = sizeof(anon) - 1, i = 0;
			bool at_anon = fl >= al && !memcmp(f, anon, al);
			if (!(fl && f[0] == '(') || at_anon) {
				for (; i < fl; i++)
					if (f[i] == '(' && !(fl - i >= al && !memcmp(f + i, anon, al)))
						break;
				fl = i;
			}
		}
		size_t o = 0;
		for (size_t i = 0; i < fl; i++)
			if (f[i] != '"' && f[i] != '\'')
				f[o++] = f[i];
		fl = o;
		if (java && memchr(f, '/', fl) && fl && f[0] == 'L') { /* s/^L// if m:/: */
			memmove(f, f + 1, fl - 1);
			fl--;
		}
		if (fl == 9 && memcmp(f, "[unknown]", 9) == 0) {
			const char *base = "unknown";
			size_t bn = 7;
			if (!(modn == 9 && memcmp(mod, "[unknown]", 9) == 0)) { /* the module, without its path */
				base = mod;
				bn = modn;
				for (size_t i = 0; i < modn; i++)
					if (mod[i] == '/') {
						base = mod + i + 1;
						bn = modn - i - 1;
					}
			}
			char tmp[8192];
			int w = flags & SV_COLLAPSE_ADDRS ? snprintf(tmp, sizeof(tmp), "[%.*s <%.*s>]", (int)bn, base, (int)pcn, pc)
							  : snprintf(tmp, sizeof(tmp), "[%.*s]", (int)bn, base);
			fl = (size_t)w < sizeof(tmp) ? (size_t)w : sizeof(tmp) - 1;
			if (SV_ARRAY_RESERVE(c->buf, c->buf_cap, fl + 16))
				return SV_ENOMEM;
			f = c->buf;
			memcpy(f, tmp, fl);
		}
		/* annotations */
		if (s > 0) {
			if (!memmem(f, fl, "_[i]", 4))
				memcpy(f + fl, "_[i]", 4), fl += 4;
		} else if ((flags & SV_COLLAPSE_KERNEL) && kernel_mod) {
			memcpy(f + fl, "_[k]", 4), fl += 4;
		} else if ((flags & SV_COLLAPSE_JIT) && jit_mod) {
			if (!memmem(f, fl, "_[j]", 4))
				memcpy(f + fl, "_[j]", 4), fl += 4;
		}
		int rc = name_push(c, f, fl);
		if (rc)
			return rc;
	}
	/* unshift @stack, @inline: this line's names go before the (deeper) ones read so far,
	 * in their own order; the stack is kept leaf-line first and reversed line by line at
	 * the end, so mark the group by reversing it now and reversing everything later. */
	for (size_t a = first, b = c->nparts - 1; a < b && b != (size_t)-1; a++, b--) {
		size_t to = c->noff[a], tl = c->plen[a];
		c->noff[a] = c->noff[b];
		c->plen[a] = c->plen[b];
		c->noff[b] = to;
		c->plen[b] = tl;
	}
	return 0;
}

/* A blank line: the sample read since its header, "comm;root;...;leaf PERIOD", is added up
 * (when the comm is true in Perl's sense, as the script has it). */
static int end_sample(cl_ctx *c, const char *pname, const char *period, sv_collapse_report *r)
{
	size_t pl = strlen(pname), total = pl;
	if (!truthy(pname, pl)) {
		c->nparts = c->names_len = 0;
		return 0;
	}
	for (size_t i = 0; i < c->nparts; i++)
		total += 1 + c->plen[i];
	if (SV_ARRAY_RESERVE(c->buf, c->buf_cap, total + 1))
		return SV_ENOMEM;
	memcpy(c->buf, pname, pl);
	size_t o = pl;
	for (size_t i = c->nparts; i-- > 0;) {
		c->buf[o++] = ';';
		memcpy(c->buf + o, c->names + c->noff[i], c->plen[i]);
		o += c->plen[i];
	}
	int rc = remember(c, c->buf, o, period, strlen(period));
	r->samples++;
	c->nparts = c->names_len = 0;
	return rc;
}

static int entry_cmp(const void *x, const void *y)
{
	const cl_entry *a = x, *b = y;
	size_t n = a->len < b->len ? a->len : b->len;
	int d = memcmp(a->key, b->key, n);
	return d ? d : (a->len > b->len) - (a->len < b->len);
}

int sv_collapse_perf_script(FILE *out, const sv_input *in, unsigned flags, sv_collapse_report *rep, sv_error *err)
{
	cl_ctx c;
	memset(&c, 0, sizeof(c));
	sv_idmap_init(&c.index);
	sv_collapse_report r;
	memset(&r, 0, sizeof(r));
	sv_lines lr;
	int rc;
	if ((rc = re_init(&c.header, RE_HEADER)) || (rc = re_init(&c.period, RE_PERIOD)) || (rc = re_init(&c.frame, RE_FRAME)) ||
	    (rc = re_init(&c.oneline, RE_ONELINE)) ||
	    (rc = sv_lines_init(&lr, in))) {
		sv_error_set(err, rc, NULL);
		goto out_nolines;
	}
	char pname[1024] = "", period[64] = "1";
	bool have_pname = false, java = false, oneline = false;
	for (;;) {
		const char *line;
		size_t n;
		int got = sv_lines_next(&lr, &line, &n, err);
		if (got <= 0) {
			rc = got;
			break;
		}
		if ((lr.line & 0xffff) == 0 && (rc = sv_input_progress(in, lr.consumed, err)))
			break;
		if (n && line[0] == '#')
			continue;
		if (n == 0) { /* the end of a sample */
			if (have_pname && (rc = end_sample(&c, pname, period, &r)))
				break;
			have_pname = oneline = false;
			continue;
		}
		/* perf prints a one-line sample's comm right-aligned: the script's header expression
		 * (no blank first) misses it, and its frame expression takes it for a frame */
		const char *hl = line;
		size_t hn = n;
		bool hdr = re_match(&c.header, line, n);
		if (!hdr && (!have_pname || oneline) && re_match(&c.oneline, line, n)) {
			while (hn && (*hl == ' ' || *hl == '\t'))
				hl++, hn--;
			hdr = re_match(&c.header, hl, hn);
		}
		if (hdr) {
			line = hl;
			n = hn;
			if (oneline) { /* the previous line was a whole sample */
				if (have_pname && (rc = end_sample(&c, pname, period, &r)))
					break;
				have_pname = oneline = false;
			}
			const char *comm, *pid, *tid;
			size_t commn, pidn, tidn;
			re_group(&c.header, 1, line, &comm, &commn);
			re_group(&c.header, 2, line, &pid, &pidn);
			re_group(&c.header, 3, line, &tid, &tidn);
			char pidbuf[64], tidbuf[64];
			if (!truthy(tid, tidn)) {
				tid = pid;
				tidn = pidn;
				pid = "?";
				pidn = 1;
			}
			snprintf(pidbuf, sizeof(pidbuf), "%.*s", (int)pidn, pid);
			snprintf(tidbuf, sizeof(tidbuf), "%.*s", (int)tidn, tid);
			char pr[64] = "";
			cl_re *pe = re_match(&c.period, line, n) ? &c.period : re_match(&c.oneline, line, n) ? &c.oneline : NULL;
			if (pe) {
				const char *ps, *ev;
				size_t psn, evn;
				re_group(pe, 1, line, &ps, &psn);
				re_group(pe, 2, line, &ev, &evn);
				snprintf(pr, sizeof(pr), "%.*s", (int)psn, ps ? ps : "");
				if (!r.event[0]) {
					snprintf(r.event, sizeof(r.event), "%.*s", (int)evn, ev);
				} else if (strlen(r.event) != evn || memcmp(r.event, ev, evn) != 0) {
					r.filtered++;
					continue;
				}
			}
			snprintf(period, sizeof(period), "%s", truthy(pr, strlen(pr)) ? pr : "1");
			if (flags & SV_COLLAPSE_TID)
				snprintf(pname, sizeof(pname), "%.*s-%s/%s", (int)commn, comm, pidbuf, tidbuf);
			else if (flags & SV_COLLAPSE_PID)
				snprintf(pname, sizeof(pname), "%.*s-%s", (int)commn, comm, pidbuf);
			else
				snprintf(pname, sizeof(pname), "%.*s", (int)commn, comm);
			for (char *p = pname; *p; p++)
				if (*p == ' ')
					*p = '_';
			java = strcmp(pname, "java") == 0;
			have_pname = true;
			if (pe == &c.oneline) { /* the frame after the event */
				const char *fs;
				size_t fn;
				re_group(&c.oneline, 3, line, &fs, &fn);
				oneline = true;
				r.oneline++;
				if (re_match(&c.frame, fs, fn) && (rc = frame_line(&c, fs, flags, java)))
					break;
			}
		} else if (re_match(&c.frame, line, n)) {
			if (!have_pname || !truthy(pname, strlen(pname)))
				continue;
			if ((rc = frame_line(&c, line, flags, java)))
				break;
		} else {
			if (!r.unrecognized++)
				r.first_unrecognized = lr.line;
		}
	}
	sv_lines_dispose(&lr);
	if (!rc && have_pname) { /* the script leaves a last sample with no blank line out; we keep it */
		r.kept_last = !oneline;
		rc = end_sample(&c, pname, period, &r);
	}
	if (!rc) {
		if (c.n > 1)
			qsort(c.e, c.n, sizeof(*c.e), entry_cmp);
		for (size_t i = 0; i < c.n; i++) {
			fwrite(c.e[i].key, 1, c.e[i].len, out);
			if (c.e[i].overflow)
				fprintf(out, " %.15g\n", c.e[i].nv);
			else
				fprintf(out, " %llu\n", (unsigned long long)c.e[i].sum);
		}
		r.stacks = c.n;
		if (ferror(out))
			rc = sv_error_set(err, SV_EIO, "writing failed");
	} else if (rc == SV_ENOMEM) {
		sv_error_set(err, SV_ENOMEM, NULL);
	}
out_nolines:
	if (rep)
		*rep = r;
	re_free(&c.header);
	re_free(&c.period);
	re_free(&c.frame);
	re_free(&c.oneline);
	for (size_t i = 0; i < c.n; i++)
		free(c.e[i].key);
	free(c.e);
	sv_idmap_dispose(&c.index);
	free(c.buf);
	free(c.names);
	free(c.noff);
	free(c.plen);
	return rc;
}
