/* SPDX-License-Identifier: MIT */
/* Budgets: parsing and evaluating rules (see stackview/budget.h). */
#include "stackview/budget.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "stackview/derive.h"
#include "stackview/grid.h"
#include "stackview/pattern.h"
#include "stackview/rows.h"
#include "stackview/view.h"
#include "sv/array.h"

typedef struct rule_store {
	sv_rule r;
	char *text, *name;
	size_t set; /* the boxes in force: an index into sets (r.params is set once parsing ends) */
	char *row;
} rule_store;

/* Rules share their boxes: each box line's text is kept once (texts), and the rules after one
 * box change share one set of pointers into them (sets), so a budget's memory is its text's
 * size plus a few pointers a rule, however many rules and boxes it has. */
struct sv_budget {
	rule_store *r;
	size_t n, cap;
	char **texts; /* every box text, owned */
	size_t ntexts, texts_cap;
	sv_params *sets; /* box sets, their strings borrowed from texts (never disposed) */
	size_t nsets, sets_cap;
};

static const char *const op_text[] = { "<", "<=", ">", ">=" };

const char *sv_rule_op_text(sv_rule_op op)
{
	return op_text[op <= SV_OP_GE ? op : 0];
}

void sv_budget_free(sv_budget *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++) {
		free(b->r[i].text);
		free(b->r[i].name);
		free(b->r[i].row);
	}
	for (size_t i = 0; i < b->ntexts; i++)
		free(b->texts[i]);
	free(b->texts);
	free(b->sets);
	free(b->r);
	free(b);
}

size_t sv_budget_count(const sv_budget *b)
{
	return b->n;
}

const sv_rule *sv_budget_rule(const sv_budget *b, size_t i)
{
	return &b->r[i].r;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

static int bad(sv_error *err, long line, const char *what)
{
	int rc = sv_error_set(err, SV_EINVAL, "%s", what);
	if (err)
		err->line = line;
	return rc;
}

/* "12%", "250", "250ms" (a unit word after the number is the metric's: not converted). */
static bool parse_limit(const char *s, double *v, bool *pct)
{
	char *end;
	errno = 0;
	*v = strtod(s, &end);
	if (end == s || errno || !isfinite(*v))
		return false;
	*pct = *end == '%';
	if (*pct)
		end++;
	while (isalpha((unsigned char)*end))
		end++;
	return *end == '\0';
}

/* The last blank-separated word of s, cut off (s keeps the rest); NULL when s has one word. */
static char *last_word(char *s)
{
	char *w = NULL;
	for (char *p = s; *p; p++)
		if ((*p == ' ' || *p == '\t') && p[1] && p[1] != ' ' && p[1] != '\t')
			w = p;
	if (!w)
		return NULL;
	*w = '\0';
	return w + 1;
}

/* KIND NAME... OP LIMIT: the kind first, the limit and the operator from the right (names
 * may hold blanks: "Process mt (42)"). */
static int parse_rule(rule_store *rs, char *line, long ln, sv_error *err)
{
	sv_rule *r = &rs->r;
	char *p = line;
	size_t kl = strcspn(p, " \t");
	if (kl == 3 && !strncmp(p, "inc", 3))
		r->kind = SV_RULE_INC;
	else if (kl == 3 && !strncmp(p, "exc", 3))
		r->kind = SV_RULE_EXC;
	else if (kl == 6 && !strncmp(p, "growth", 6))
		r->kind = SV_RULE_GROWTH;
	else
		return bad(err, ln, "expected a box (GroupPats: ...) or a rule 'inc|exc|growth NAME OP LIMIT'");
	p = trim(p + kl);
	char *lim = last_word(p);
	if (!lim)
		return bad(err, ln, "a rule is 'inc|exc|growth NAME OP LIMIT', e.g. 'inc myapp!parse <= 12%'");
	if (!parse_limit(lim, &r->limit, &r->pct))
		return bad(err, ln, "the limit is a number, with % for a percentage (12%, 250)");
	p = trim(p);
	char *op = last_word(p);
	if (!op)
		op = p;
	int k = -1;
	for (int i = 0; i < 4; i++)
		if (!strcmp(op, op_text[i]))
			k = i;
	if (k < 0)
		return bad(err, ln, "the operator before the limit is one of <, <=, >, >=");
	r->op = (sv_rule_op)k;
	if (op == p)
		*p = '\0';
	char *name = trim(p);
	r->pattern = name[0] == '~';
	if (r->pattern)
		name = trim(name + 1);
	if (!*name)
		return bad(err, ln, "the rule names no row (a name, or ~PATTERN)");
	if (r->pattern) {
		sv_pattern *pat;
		sv_error perr;
		sv_error_clear(&perr);
		if (sv_pattern_new(&pat, name, strlen(name), &perr)) {
			char msg[700];
			snprintf(msg, sizeof(msg), "invalid pattern '%.100s': %s", name, perr.msg);
			return bad(err, ln, msg);
		}
		sv_pattern_free(pat);
	}
	if (!(rs->name = strdup(name)))
		return sv_error_set(err, SV_ENOMEM, NULL);
	r->name = rs->name;
	return 0;
}

/* The boxes as the lines so far set them: pointers into b->texts; `changed` until a rule
 * takes them as a set. */
typedef struct box_state {
	char *box[SV_BOX_COUNT];
	bool changed, group_set;
} box_state;

static int keep_text(sv_budget *b, const char *text, char **out)
{
	if (SV_ARRAY_RESERVE(b->texts, b->texts_cap, b->ntexts + 1) || !(*out = strdup(text)))
		return SV_ENOMEM;
	b->texts[b->ntexts++] = *out;
	return 0;
}

static int budget_line(sv_budget *b, char *s, long ln, box_state *cur, sv_error *err)
{
	s = trim(s);
	if (!*s || *s == '#')
		return 0;
	/* a box: "Name: text" with a box's name */
	char *colon = strchr(s, ':');
	for (int i = 0; colon && i < SV_BOX_COUNT; i++) {
		const char *bn = sv_box_name((sv_box)i);
		if ((size_t)(colon - s) == strlen(bn) && !strncasecmp(s, bn, (size_t)(colon - s))) {
			cur->group_set = cur->group_set || i == SV_BOX_GROUP;
			cur->changed = true;
			return keep_text(b, trim(colon + 1), &cur->box[i]) ? sv_error_set(err, SV_ENOMEM, NULL) : 0;
		}
	}
	/* a rule may end in a comment: '#' after a blank */
	for (char *h = s + 1; *h; h++)
		if (*h == '#' && (h[-1] == ' ' || h[-1] == '\t')) {
			*h = '\0';
			s = trim(s);
			break;
		}
	if (cur->changed) {
		if (SV_ARRAY_RESERVE(b->sets, b->sets_cap, b->nsets + 1))
			return sv_error_set(err, SV_ENOMEM, NULL);
		memcpy(b->sets[b->nsets++].box, cur->box, sizeof(cur->box));
		cur->changed = false;
	}
	if (SV_ARRAY_RESERVE(b->r, b->cap, b->n + 1))
		return sv_error_set(err, SV_ENOMEM, NULL);
	rule_store *rs = &b->r[b->n];
	memset(rs, 0, sizeof(*rs));
	if (!(rs->text = strdup(s)))
		return sv_error_set(err, SV_ENOMEM, NULL);
	b->n++;
	rs->set = b->nsets - 1;
	rs->r.line = ln;
	rs->r.text = rs->text;
	rs->r.group_set = cur->group_set;
	return parse_rule(rs, s, ln, err);
}

int sv_budget_parse(sv_budget **out, const char *text, size_t len, sv_error *err)
{
	*out = NULL;
	sv_budget *b = calloc(1, sizeof(*b));
	box_state cur = { .changed = true };
	char *empty = NULL;
	if (!b || keep_text(b, "", &empty)) {
		sv_budget_free(b);
		return sv_error_set(err, SV_ENOMEM, NULL);
	}
	for (int i = 0; i < SV_BOX_COUNT; i++)
		cur.box[i] = empty;
	int rc = 0;
	long ln = 0;
	char *line = NULL;
	size_t cap = 0;
	for (size_t pos = 0; !rc && pos < len;) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
		ln++;
		if (memchr(text + pos, '\0', n)) {
			rc = bad(err, ln, "a NUL byte: a budget is text");
			break;
		}
		if (n + 1 > cap) {
			char *nb = realloc(line, n + 1);
			if (!nb) {
				rc = sv_error_set(err, SV_ENOMEM, NULL);
				break;
			}
			line = nb;
			cap = n + 1;
		}
		memcpy(line, text + pos, n);
		line[n] = '\0';
		rc = budget_line(b, line, ln, &cur, err);
		pos += n + 1;
	}
	free(line);
	/* the sets no longer move: each rule points at its own */
	for (size_t i = 0; i < b->n; i++)
		b->r[i].r.params = &b->sets[b->r[i].set];
	if (!rc && !b->n)
		rc = sv_error_set(err, SV_EINVAL, "no rules (see 'Budgets' in the guide, docs/diff.md)");
	if (rc) {
		sv_budget_free(b);
		return rc;
	}
	*out = b;
	return 0;
}

/* ---- evaluation ---- */

/* Names and their values, summed over profiles (rules match few rows). */
typedef struct hit {
	const char *name;
	double v;
	const sv_cmpstat *cmp;
} hit;

typedef struct hits {
	hit *h;
	size_t n, cap;
} hits;

static int hits_add(hits *hs, const char *name, double v, const sv_cmpstat *cmp)
{
	for (size_t i = 0; i < hs->n; i++)
		if (!strcmp(hs->h[i].name, name)) {
			hs->h[i].v += v;
			return 0;
		}
	if (hs->n == hs->cap) {
		size_t nc = hs->cap ? hs->cap * 2 : 16;
		hit *nh = realloc(hs->h, nc * sizeof(*nh));
		if (!nh)
			return SV_ENOMEM;
		hs->h = nh;
		hs->cap = nc;
	}
	hs->h[hs->n++] = (hit){ name, v, cmp };
	return 0;
}

static bool holds(const sv_rule *r, double v)
{
	switch (r->op) {
	case SV_OP_LT: return v < r->limit;
	case SV_OP_LE: return v <= r->limit;
	case SV_OP_GT: return v > r->limit;
	case SV_OP_GE: return v >= r->limit;
	}
	return false;
}

/* The deciding row: the one furthest on the wrong side of the limit. */
static const hit *worst_of(const sv_rule *r, const hits *hs)
{
	const hit *w = NULL;
	bool upper = r->op == SV_OP_LT || r->op == SV_OP_LE;
	for (size_t i = 0; i < hs->n; i++)
		if (!w || (upper ? hs->h[i].v > w->v : hs->h[i].v < w->v))
			w = &hs->h[i];
	return w;
}

static bool row_matches(const sv_rule *r, sv_pattern *pat, const char *name)
{
	return r->pattern ? sv_pattern_match(pat, name, strlen(name)) : !strcmp(name, r->name);
}

static int decide(rule_store *rs, const hits *hs)
{
	sv_rule *r = &rs->r;
	const hit *w = worst_of(r, hs);
	r->value = w ? w->v : 0;
	free(rs->row);
	rs->row = NULL;
	if (w && !(rs->row = strdup(w->name)))
		return SV_ENOMEM;
	r->row = rs->row;
	r->pass = holds(r, r->value);
	r->noise = false;
	return 0;
}

/* inc / exc: the mean over the profiles of each matching ByName row's value. */
static int eval_share(rule_store *rs, sv_view **views, size_t nv, sv_pattern *pat)
{
	sv_rule *r = &rs->r;
	hits hs = { 0 };
	int rc = 0;
	for (size_t i = 0; i < nv && !rc; i++) {
		sv_view *v = views[i];
		double basis = sv_grid_basis(v);
		if ((rc = sv_view_byname_prepare(v)))
			break;
		for (uint32_t b = 0; b < sv_view_byname_count(v) && !rc; b++) {
			const char *nm = sv_view_name(v, sv_view_byname_name(v, b));
			if (!row_matches(r, pat, nm))
				continue;
			const sv_stats *st = sv_view_byname_stats(v, b);
			double x = r->kind == SV_RULE_INC ? st->inc : st->exc;
			if (r->pct)
				x = basis != 0 ? x * 100 / basis : 0;
			rc = hits_add(&hs, nm, x / (double)nv, NULL);
		}
	}
	if (!rc)
		rc = decide(rs, &hs);
	free(hs.h);
	return rc;
}

/* growth: each matching row's change against the base runs' mean; a violation counts only
 * when the change is significant (with one run a side every change is). */
static int eval_growth(rule_store *rs, sv_view *dv, const sv_rows *rows, sv_pattern *pat, bool several)
{
	sv_rule *r = &rs->r;
	hits hs = { 0 };
	int rc = 0;
	for (size_t i = 0; i < rows->n && !rc; i++) {
		const char *nm = sv_view_name(dv, rows->row[i].name);
		const sv_cmpstat *s = rows->row[i].cmp;
		if (!s || !row_matches(r, pat, nm))
			continue;
		double x = s->delta;
		if (r->pct)
			x = s->base != 0 ? s->delta * 100 / fabs(s->base) : s->delta > 0 ? INFINITY : s->delta < 0 ? -INFINITY : 0;
		rc = hits_add(&hs, nm, x, s);
	}
	const hit *w = rc ? NULL : worst_of(r, &hs);
	bool quiet = w && several && w->cmp->sig == 0;
	if (!rc)
		rc = decide(rs, &hs);
	if (!rc && !r->pass && quiet) {
		r->pass = true;
		r->noise = true;
	}
	free(hs.h);
	return rc;
}

/* The views of the profiles for a rule's boxes (kept while consecutive rules share them), and
 * for growth rules the diff of the means with its ByName rows compared. */
typedef struct eval_cache {
	const sv_source *const *src;
	size_t n;
	sv_view **v;
	sv_params p;
	bool have;
	sv_compare *cmp;
	sv_source *d;
	sv_view *dv;
	sv_rows rows;
	sv_params dp;
	bool have_d;
} eval_cache;

static void drop_views(eval_cache *c)
{
	for (size_t i = 0; c->v && i < c->n; i++) {
		sv_view_free(c->v[i]);
		c->v[i] = NULL;
	}
	if (c->have)
		sv_params_dispose(&c->p);
	c->have = false;
}

static void drop_diff(eval_cache *c)
{
	sv_rows_dispose(&c->rows);
	sv_view_free(c->dv);
	c->dv = NULL;
	if (c->have_d)
		sv_params_dispose(&c->dp);
	c->have_d = false;
}

static int need_views(eval_cache *c, const sv_params *p, sv_error *err)
{
	if (c->have && sv_params_equal(&c->p, p))
		return 0;
	drop_views(c);
	for (size_t i = 0; i < c->n; i++) {
		int rc = sv_view_new(&c->v[i], c->src[i], p, err);
		if (rc)
			return rc;
	}
	if (sv_params_copy(&c->p, p)) {
		sv_params_dispose(&c->p);
		return sv_error_set(err, SV_ENOMEM, NULL);
	}
	c->have = true;
	return 0;
}

static int need_diff(eval_cache *c, const sv_rule *r, sv_error *err)
{
	sv_params p;
	if (sv_params_copy(&p, r->params)) {
		sv_params_dispose(&p);
		return sv_error_set(err, SV_ENOMEM, NULL);
	}
	int rc = 0;
	if (!c->d && (rc = sv_compare_diff_source(&c->d, c->cmp)))
		rc = sv_error_set(err, rc, NULL);
	sv_process *procs = NULL;
	size_t np = 0;
	/* the names a diff starts with: the same program's processes and threads line up */
	if (!rc && !r->group_set && sv_source_processes(&procs, &np, c->d) == 0 && np > 0 &&
	    sv_params_set(&p, SV_BOX_GROUP, SV_DIFF_GROUPPATS))
		rc = sv_error_set(err, SV_ENOMEM, NULL);
	free(procs);
	if (rc || (c->have_d && sv_params_equal(&c->dp, &p))) {
		sv_params_dispose(&p);
		return rc;
	}
	drop_diff(c);
	if ((rc = sv_view_new(&c->dv, c->d, &p, err)) || (rc = sv_compare_set_params(c->cmp, &p, err)) ||
	    (rc = sv_rows_byname(&c->rows, c->dv, 0)) || (rc = sv_compare_rows(c->cmp, c->dv, &c->rows))) {
		sv_params_dispose(&p);
		return err && !err->msg[0] ? sv_error_set(err, rc, NULL) : rc;
	}
	c->dp = p;
	c->have_d = true;
	return 0;
}

int sv_budget_eval(sv_budget *b, const sv_source *const *profiles, size_t n, sv_compare *cmp, size_t *failed,
		   sv_error *err)
{
	*failed = 0;
	eval_cache c = { .src = profiles, .n = n, .cmp = cmp };
	c.v = calloc(n ? n : 1, sizeof(*c.v));
	if (!c.v)
		return sv_error_set(err, SV_ENOMEM, NULL);
	bool several = cmp && (sv_compare_runs(cmp, false) > 1 || sv_compare_runs(cmp, true) > 1);
	int rc = 0;
	for (size_t i = 0; i < b->n && !rc; i++) {
		rule_store *rs = &b->r[i];
		sv_rule *r = &rs->r;
		if (r->kind == SV_RULE_GROWTH && !cmp) {
			rc = bad(err, r->line, "a growth rule needs base runs (BUDGET BASE... -- PROFILE...)");
			break;
		}
		sv_pattern *pat = NULL;
		if (r->pattern && (rc = sv_pattern_new(&pat, r->name, strlen(r->name), err)))
			break;
		rc = r->kind == SV_RULE_GROWTH ? need_diff(&c, r, err) : need_views(&c, r->params, err);
		if (rc) {
			if (err && rc != SV_ENOMEM) { /* the boxes for this rule, refused by the engine */
				char msg[sizeof(err->msg) + 32];
				snprintf(msg, sizeof(msg), "the boxes for this rule: %s", err->msg);
				rc = bad(err, r->line, msg);
			}
		} else if (r->kind == SV_RULE_GROWTH) {
			rc = eval_growth(rs, c.dv, &c.rows, pat, several);
		} else {
			rc = eval_share(rs, c.v, c.n, pat);
		}
		sv_pattern_free(pat);
		if (rc == SV_ENOMEM)
			sv_error_set(err, rc, NULL);
		*failed += !rc && !r->pass;
	}
	drop_views(&c);
	drop_diff(&c);
	sv_source_free(c.d);
	free(c.v);
	return rc;
}
