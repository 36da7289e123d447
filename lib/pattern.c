/* SPDX-License-Identifier: MIT */
/* Simplified patterns -> pcre2, pattern lists, GroupPats (see stackview/pattern.h). */
#include "stackview/pattern.h"
#include "sv/array.h"
#include "sv/boxtext.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* `%` under decision D1: PerfView's `[.\w\d?]*` plus `-` and `+`. */
#define PCT_CLASS "[-+.\\w?]*"

/* Bounds on one match: a name is at most 64 KiB, and no sane pattern needs more than this
 * to decide; a pattern that does (catastrophic backtracking, e.g. saved in an untrusted
 * file) stops matching and says so (sv_pattern_limit_hit), rather than hanging a view. */
#define SV_PATTERN_MATCH_LIMIT 200000u
#define SV_PATTERN_DEPTH_LIMIT 5000u

struct sv_pattern {
	pcre2_code *code;
	pcre2_match_data *md;
	pcre2_match_context *mctx;
	bool limit_hit;
	bool jit; /* compiled for the JIT: matched by it directly (pcre2_match's checks cost a
		   * third of a frame's match) */
	/* "^" and ASCII literals only (as the presets' "^module!" entries): what a name must
	 * start with, so that a name that does not is refused without the matcher */
	char *prefix;
	size_t prefix_len;
	char *text; /* the pattern as written, for messages */
	/* "{%}!" (a module, as GroupPats' "{%}!->module $1" captures it): matched without the
	 * matcher where the answer is plain, its match and capture then in fov (fast) */
	bool module;
	bool fast;
	PCRE2_SIZE fov[4];
};

typedef struct strbuf {
	char *p;
	size_t len, cap;
	int err;
} strbuf;

static void sb_add(strbuf *b, const char *s, size_t n)
{
	if (b->err)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t ncap = (b->cap ? b->cap * 2 : 64);
		while (ncap < b->len + n + 1)
			ncap *= 2;
		char *np = realloc(b->p, ncap);
		if (!np) {
			b->err = SV_ENOMEM;
			return;
		}
		b->p = np;
		b->cap = ncap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void sb_addc(strbuf *b, char c)
{
	sb_add(b, &c, 1);
}

int sv_pattern_translate(char **out, const char *pat, size_t len)
{
	strbuf b = { 0 };
	sb_add(&b, "", 0);
	if (len > 0 && pat[0] == '@') {
		sb_add(&b, pat + 1, len - 1);
	} else {
		for (size_t i = 0; i < len; i++) {
			unsigned char c = (unsigned char)pat[i];
			switch (c) {
			case '%': sb_add(&b, PCT_CLASS, strlen(PCT_CLASS)); break;
			case '*': sb_add(&b, ".*", 2); break;
			case '^': sb_addc(&b, '^'); break;
			case '|': sb_addc(&b, '|'); break;
			case '{': sb_addc(&b, '('); break;
			case '}': sb_addc(&b, ')'); break;
			default:
				/* Literal: escape ASCII punctuation; letters, digits and non-ASCII
				 * bytes stand for themselves. */
				if (c < 0x80 && !(c >= '0' && c <= '9') && !((c | 0x20) >= 'a' && (c | 0x20) <= 'z') &&
				    c != '_' && c != ' ') {
					if (c < 0x20 || c == 0x7f) {
						char hex[8];
						snprintf(hex, sizeof(hex), "\\x%02x", c);
						sb_add(&b, hex, strlen(hex));
						break;
					}
					sb_addc(&b, '\\');
				}
				sb_addc(&b, (char)c);
			}
		}
	}
	if (b.err) {
		free(b.p);
		return b.err;
	}
	*out = b.p;
	return 0;
}

/* A PerfView pattern's unbalanced brace, named in err (true); its braces are the only
 * parentheses the translation makes, so they are what a compile error is about. Every other
 * character is literal there, a backslash too. */
static bool brace_error(const char *pat, size_t len, sv_error *err)
{
	size_t open_at = 0, depth = 0;
	for (size_t i = 0; i < len; i++) {
		if (pat[i] == '{') {
			if (depth++ == 0)
				open_at = i;
		} else if (pat[i] == '}') {
			if (depth == 0) {
				sv_error_set(err, SV_EINVAL, "'}' at column %zu closes no '{' (braces capture a part of the name, as "
							     "$1 uses it)", i + 1);
				return true;
			}
			depth--;
		}
	}
	if (depth)
		sv_error_set(err, SV_EINVAL, "'{' at column %zu has no closing '}' (braces capture a part of the name, as $1 "
					     "uses it)", open_at + 1);
	return depth != 0;
}

static inline unsigned char ascii_lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c | 0x20) : c;
}

int sv_pattern_new(sv_pattern **out, const char *pat, size_t len, sv_error *err)
{
	char *rx = NULL;
	int rc = sv_pattern_translate(&rx, pat, len);
	if (rc)
		return sv_error_set(err, rc, NULL);
	sv_pattern *p = calloc(1, sizeof(*p));
	if (!p) {
		free(rx);
		return sv_error_set(err, SV_ENOMEM, NULL);
	}
	int ecode;
	PCRE2_SIZE eoff;
	p->code = pcre2_compile((PCRE2_SPTR)rx, PCRE2_ZERO_TERMINATED,
				PCRE2_CASELESS | PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &ecode, &eoff,
				NULL);
	free(rx);
	if (!p->code) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(ecode, msg, sizeof(msg));
		sv_pattern_free(p);
		if (!(len && pat[0] == '@') && brace_error(pat, len, err))
			return SV_EINVAL;
		return sv_error_set(err, SV_EINVAL, "%s", (const char *)msg);
	}
	/* JIT is an optimisation only; a failure (e.g. no executable memory) is not an error. */
	p->jit = pcre2_jit_compile(p->code, PCRE2_JIT_COMPLETE) == 0;
	p->md = pcre2_match_data_create_from_pattern(p->code, NULL);
	p->mctx = pcre2_match_context_create(NULL);
	p->text = strndup(pat, len);
	p->module = len == 4 && !memcmp(pat, "{%}!", 4);
	if (len > 1 && pat[0] == '^') { /* a literal start: ASCII, none of % * ^ | { } */
		size_t i = 1;
		while (i < len && (unsigned char)pat[i] >= 0x20 && (unsigned char)pat[i] < 0x7f && !strchr("%*^|{}", pat[i]))
			i++;
		if (i == len && (p->prefix = malloc(len - 1))) {
			for (size_t k = 1; k < len; k++)
				p->prefix[k - 1] = (char)ascii_lower((unsigned char)pat[k]);
			p->prefix_len = len - 1;
		}
	}
	if (p->mctx) {
		pcre2_set_match_limit(p->mctx, SV_PATTERN_MATCH_LIMIT);
		pcre2_set_depth_limit(p->mctx, SV_PATTERN_DEPTH_LIMIT);
	}
	if (!p->md || !p->mctx || !p->text) {
		sv_pattern_free(p);
		return sv_error_set(err, SV_ENOMEM, NULL);
	}
	*out = p;
	return 0;
}

void sv_pattern_free(sv_pattern *p)
{
	if (!p)
		return;
	pcre2_match_data_free(p->md);
	pcre2_match_context_free(p->mctx);
	free(p->prefix);
	pcre2_code_free(p->code);
	free(p->text);
	free(p);
}

/* Whether text cannot match p's literal start: only where the text's bytes there are ASCII
 * (caselessly, a non-ASCII character can match an ASCII letter: the Kelvin sign a 'k'). */
static bool prefix_refuses(const sv_pattern *p, const char *text, size_t len)
{
	if (len < p->prefix_len)
		return true; /* every character of it is one byte of text at least */
	for (size_t i = 0; i < p->prefix_len; i++) {
		unsigned char t = (unsigned char)text[i];
		if (t >= 0x80)
			return false;
		if (ascii_lower(t) != (unsigned char)p->prefix[i])
			return true;
	}
	return false;
}

/* A character PCT_CLASS takes, for an ASCII one. */
static inline bool pct_ascii(unsigned char c)
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c == '_' || c == '-' || c == '+' ||
	       c == '.' || c == '?';
}

/* "{%}!" on text: the leftmost match is the run of class characters just before the first
 * '!' (a start further left meets a character that is neither, and none of the class is a
 * '!'), so it is found from that '!' backwards. 2 (the match and its capture in fov), no
 * match, or 0 where a byte of the run is not ASCII (which \w may take: the matcher decides). */
static int module_exec(sv_pattern *p, const char *text, size_t len)
{
	const char *bang = memchr(text, '!', len);
	if (!bang)
		return PCRE2_ERROR_NOMATCH;
	size_t q = (size_t)(bang - text), a = q;
	for (; a > 0 && pct_ascii((unsigned char)text[a - 1]); a--)
		;
	if (a > 0 && (unsigned char)text[a - 1] >= 0x80)
		return 0;
	p->fov[0] = a, p->fov[1] = q + 1, p->fov[2] = a, p->fov[3] = q;
	p->fast = true;
	return 2;
}

static int pattern_exec(sv_pattern *p, const char *text, size_t len)
{
	p->fast = false;
	if (p->prefix_len && prefix_refuses(p, text, len))
		return PCRE2_ERROR_NOMATCH;
	if (p->module) {
		int rc = module_exec(p, text, len);
		if (rc)
			return rc;
	}
	int rc = p->jit ? pcre2_jit_match(p->code, (PCRE2_SPTR)text, len, 0, 0, p->md, p->mctx)
			: pcre2_match(p->code, (PCRE2_SPTR)text, len, 0, 0, p->md, p->mctx);
	if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT)
		p->limit_hit = true; /* counted as no match; the view reports it */
	return rc;
}

const char *sv_pattern_limit_hit(const sv_pattern *p)
{
	return p && p->limit_hit ? p->text : NULL;
}


bool sv_pattern_match(sv_pattern *p, const char *text, size_t len)
{
	return pattern_exec(p, text, len) >= 0;
}

/* ---- lists ---- */

struct sv_patlist {
	sv_pattern **pats;
	size_t n, cap;
};


int sv_patlist_new(sv_patlist **out, const char *text, const char *box, sv_error *err)
{
	sv_patlist *l = calloc(1, sizeof(*l));
	if (!l)
		return sv_error_set(err, SV_ENOMEM, NULL);
	const char *s = text, *a, *z;
	while (sv_box_next(&s, &a, &z)) {
		if (z > a) {
			sv_pattern *p;
			if (SV_ARRAY_RESERVE(l->pats, l->cap, l->n + 1)) {
				sv_patlist_free(l);
				return sv_error_set(err, SV_ENOMEM, NULL);
			}
			int rc = sv_pattern_new(&p, a, (size_t)(z - a), err);
			if (rc) {
				char why[512];
				snprintf(why, sizeof(why), "%s", err ? err->msg : "");
				sv_patlist_free(l);
				return sv_error_set(err, rc, "invalid pattern in %s: '%.*s': %s", box, (int)(z - a), a, why);
			}
			l->pats[l->n++] = p;
		}
	}
	*out = l;
	return 0;
}

void sv_patlist_free(sv_patlist *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		sv_pattern_free(l->pats[i]);
	free(l->pats);
	free(l);
}

size_t sv_patlist_count(const sv_patlist *l)
{
	return l ? l->n : 0;
}

unsigned long long sv_patlist_match_bits(sv_patlist *l, const char *text, size_t len)
{
	unsigned long long bits = 0;
	for (size_t i = 0; i < l->n && i < 64; i++)
		if (sv_pattern_match(l->pats[i], text, len))
			bits |= 1ULL << i;
	return bits;
}

bool sv_patlist_match_any(sv_patlist *l, const char *text, size_t len)
{
	for (size_t i = 0; i < l->n; i++)
		if (sv_pattern_match(l->pats[i], text, len))
			return true;
	return false;
}

/* ---- GroupPats ---- */

typedef struct group_entry {
	sv_pattern *pat;
	char *repl; /* trimmed replacement; "$&" when the entry had no arrow */
	sv_group_kind kind;
} group_entry;

struct sv_grouppats {
	group_entry *e;
	size_t n, cap;
	strbuf out[2]; /* sv_grouppats_eval_ref's group names: the one made, the one it was made from */
};

int sv_grouppats_new(sv_grouppats **out, const char *text, sv_error *err)
{
	sv_grouppats *g = calloc(1, sizeof(*g));
	if (!g)
		return sv_error_set(err, SV_ENOMEM, NULL);
	const char *s = text + sv_box_comment_len(text), *a, *z;
	while (sv_box_next(&s, &a, &z)) {
		if (z > a) {
			size_t n = (size_t)(z - a);
			group_entry ge = { NULL, NULL, SV_GROUP_PLAIN };
			const char *arrow = NULL;
			for (size_t i = 0; i + 1 < n; i++)
				if (a[i] == '=' && a[i + 1] == '>') {
					arrow = a + i;
					ge.kind = SV_GROUP_ENTRY;
					break;
				}
			if (!arrow)
				for (size_t i = 0; i + 1 < n; i++)
					if (a[i] == '-' && a[i + 1] == '>') {
						arrow = a + i;
						break;
					}
			const char *pat_end = arrow ? arrow : z;
			const char *r = arrow ? arrow + 2 : NULL;
			if (r) {
				while (r < z && sv_box_blank(*r))
					r++;
				ge.repl = strndup(r, (size_t)(z - r));
			} else {
				ge.repl = strdup("$&");
			}
			if (!ge.repl || SV_ARRAY_RESERVE(g->e, g->cap, g->n + 1)) {
				free(ge.repl);
				sv_grouppats_free(g);
				return sv_error_set(err, SV_ENOMEM, NULL);
			}
			/* The pattern is not trimmed on its right (§3.1 step 4). */
			int rc = sv_pattern_new(&ge.pat, a, (size_t)(pat_end - a), err);
			if (rc) {
				char why[512];
				snprintf(why, sizeof(why), "%s", err ? err->msg : "");
				free(ge.repl);
				sv_grouppats_free(g);
				return sv_error_set(err, rc, "invalid pattern in GroupPats: '%.*s': %s", (int)n, a, why);
			}
			g->e[g->n++] = ge;
		}
	}
	*out = g;
	return 0;
}

void sv_grouppats_free(sv_grouppats *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->n; i++) {
		sv_pattern_free(g->e[i].pat);
		free(g->e[i].repl);
	}
	free(g->e);
	free(g->out[0].p);
	free(g->out[1].p);
	free(g);
}

size_t sv_grouppats_count(const sv_grouppats *g)
{
	return g ? g->n : 0;
}

/* The offsets of p's last match (pattern_exec's, > 0) and its captures. */
static const PCRE2_SIZE *pattern_ovector(sv_pattern *p)
{
	return p->fast ? p->fov : pcre2_get_ovector_pointer(p->md);
}

/* Expand $1..$9 and $& of repl against the last match of p on text (§3.2). */
static int expand(strbuf *b, const char *repl, sv_pattern *p, const char *text, int nmatch)
{
	const PCRE2_SIZE *ov = pattern_ovector(p);
	for (const char *r = repl; *r; r++) {
		if (r[0] == '$' && r[1] >= '1' && r[1] <= '9') {
			int k = r[1] - '0';
			if (k < nmatch && ov[2 * k] != PCRE2_UNSET)
				sb_add(b, text + ov[2 * k], ov[2 * k + 1] - ov[2 * k]);
			r++;
		} else if (r[0] == '$' && r[1] == '&') {
			sb_add(b, text + ov[0], ov[1] - ov[0]);
			r++;
		} else { /* the text up to the next '$' at once */
			size_t n = strcspn(r + 1, "$") + 1;
			sb_add(b, r, n);
			r += n - 1;
		}
	}
	return b->err;
}

int sv_grouppats_eval_ref(sv_grouppats *g, const char *name, size_t len, const char **out, size_t *outlen)
{
	const char *text = name; /* the renamed frame while `->` entries chain */
	size_t tlen = len;
	sv_group_kind kind = SV_GROUP_NONE;
	int which = 0; /* the buffer the next name is made in (text is in the other, or is name) */
	*out = NULL;
	*outlen = 0;
	for (size_t i = 0; i < g->n; i++) {
		group_entry *e = &g->e[i];
		int nm = pattern_exec(e->pat, text, tlen);
		if (nm < 0)
			continue;
		if (!e->repl[0]) /* an exclusion entry: the frame is ungrouped */
			return SV_GROUP_NONE;
		strbuf *b = &g->out[which];
		b->len = 0;
		b->err = 0;
		sb_add(b, "", 0);
		expand(b, e->repl, e->pat, text, nm); /* (text without '$' in one run) */
		if (b->err) {
			b->err = 0;
			return SV_ENOMEM;
		}
		if (b->len == 0) /* it expanded to nothing: an exclusion too */
			return SV_GROUP_NONE;
		if (e->kind == SV_GROUP_ENTRY) {
			*out = b->p;
			*outlen = b->len;
			return SV_GROUP_ENTRY;
		}
		text = b->p;
		tlen = b->len;
		which = 1 - which;
		kind = SV_GROUP_PLAIN;
	}
	if (kind == SV_GROUP_PLAIN) {
		*out = text;
		*outlen = tlen;
	}
	return kind;
}

int sv_grouppats_eval(char **out, sv_grouppats *g, const char *name, size_t len)
{
	const char *ref;
	size_t n;
	*out = NULL;
	int kind = sv_grouppats_eval_ref(g, name, len, &ref, &n);
	if (kind > SV_GROUP_NONE && !(*out = strndup(ref, n)))
		return SV_ENOMEM;
	return kind;
}

int sv_pattern_replace(char **out, sv_pattern *p, const char *text, size_t len, const char *repl)
{
	*out = NULL;
	int nm = pattern_exec(p, text, len);
	if (nm < 0)
		return 0;
	const PCRE2_SIZE *ov = pattern_ovector(p);
	size_t a = ov[0], z = ov[1];
	strbuf b = { 0 };
	sb_add(&b, text, a);
	if (expand(&b, repl, p, text, nm))
		b.err = SV_ENOMEM;
	sb_add(&b, text + z, len - z);
	if (b.err) {
		free(b.p);
		return SV_ENOMEM;
	}
	*out = b.p;
	return 1;
}

const char *sv_patlist_limit_hit(const sv_patlist *l)
{
	for (size_t i = 0; l && i < l->n; i++)
		if (l->pats[i]->limit_hit)
			return l->pats[i]->text;
	return NULL;
}

const char *sv_grouppats_limit_hit(const sv_grouppats *g)
{
	for (size_t i = 0; g && i < g->n; i++)
		if (g->e[i].pat->limit_hit)
			return g->e[i].pat->text;
	return NULL;
}
