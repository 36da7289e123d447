/* SPDX-License-Identifier: MIT */
/* stackview check BUDGET [BASE... --] PROFILE...: rules on a profile's numbers that CI can
 * enforce (docs/guide.md "Budgets"). A budget file is lines: PerfView's boxes ("IncPats:
 * Process% myapp"), in force for the rules after them, and rules "KIND NAME OP LIMIT":
 *
 *   inc    myapp!parse  <= 12%     the row's Inc, % of the total (or in the metric's unit)
 *   exc    ~malloc      <= 5%      `~`: every ByName row the pattern matches, the worst counts
 *   growth serialize    <  2%      Inc's growth over the base runs (% or metric), only when
 *                                  the change is significant
 *
 * Exit 0 when every rule passes, 1 when one fails (or a profile cannot be read), 2 for a bad
 * budget file. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "stackview/compare.h"
#include "stackview/derive.h"
#include "stackview/pattern.h"
#include "stackview/save.h"

/* A budget file larger than this is not a budget file. */
#define BUDGET_MAX_BYTES (1 << 20)

typedef enum rule_kind { RULE_INC, RULE_EXC, RULE_GROWTH } rule_kind;
typedef enum rule_op { OP_LT, OP_LE, OP_GT, OP_GE } rule_op;
static const char *const op_text[] = { "<", "<=", ">", ">=" };

typedef struct rule {
	long line;
	char *text; /* as written, trimmed */
	rule_kind kind;
	char *name; /* exact name, or the pattern after `~` */
	bool pattern;
	rule_op op;
	double limit;
	bool pct;
	sv_params params; /* the boxes in force */
	bool group_set;   /* GroupPats was given (else a diff's default applies to growth) */
	/* the result */
	double value;
	char *worst; /* the row that decided, or NULL when no row matched */
	bool pass, noise;
} rule;

typedef struct budget {
	rule *r;
	size_t n, cap;
} budget;

static void budget_dispose(budget *b)
{
	for (size_t i = 0; i < b->n; i++) {
		free(b->r[i].text);
		free(b->r[i].name);
		free(b->r[i].worst);
		sv_params_dispose(&b->r[i].params);
	}
	free(b->r);
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

static int bad(const char *file, long line, const char *what)
{
	fprintf(stderr, "stackview: %s:%ld: %s\n", file, line, what);
	return EXIT_USAGE;
}

/* "12%", "12.5 %"-less forms: "12%", "250", "250ms" (any unit word after the number is the
 * metric's: it is not converted). */
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

static int parse_rule(rule *r, char *line, const char *file, long ln)
{
	/* KIND NAME... OP LIMIT: the kind first, the limit and operator from the right */
	char *p = line;
	size_t kl = strcspn(p, " \t");
	if (kl == 3 && !strncmp(p, "inc", 3))
		r->kind = RULE_INC;
	else if (kl == 3 && !strncmp(p, "exc", 3))
		r->kind = RULE_EXC;
	else if (kl == 6 && !strncmp(p, "growth", 6))
		r->kind = RULE_GROWTH;
	else
		return bad(file, ln, "expected a box (GroupPats: ...) or a rule 'inc|exc|growth NAME OP LIMIT'");
	p = trim(p + kl);
	char *lim = strrchr(p, ' '), *tab = strrchr(p, '\t');
	if (tab > lim)
		lim = tab;
	if (!lim)
		return bad(file, ln, "a rule is 'inc|exc|growth NAME OP LIMIT', e.g. 'inc myapp!parse <= 12%'");
	*lim++ = '\0';
	if (!parse_limit(lim, &r->limit, &r->pct))
		return bad(file, ln, "the limit is a number, with % for a percentage (12%, 250)");
	p = trim(p);
	char *op = strrchr(p, ' '), *t2 = strrchr(p, '\t');
	if (t2 > op)
		op = t2;
	op = op ? op + 1 : p;
	int k = -1;
	for (int i = 0; i < 4; i++)
		if (!strcmp(op, op_text[i]))
			k = i;
	if (k < 0)
		return bad(file, ln, "the operator before the limit is one of <, <=, >, >=");
	r->op = (rule_op)k;
	*op = '\0';
	char *name = trim(p);
	if (!*name)
		return bad(file, ln, "the rule names no row (a name, or ~PATTERN)");
	r->pattern = name[0] == '~';
	if (r->pattern)
		name = trim(name + 1);
	if (r->pattern) {
		sv_pattern *pat;
		sv_error err;
		sv_error_clear(&err);
		if (sv_pattern_new(&pat, name, strlen(name), &err)) {
			char msg[700];
			snprintf(msg, sizeof(msg), "invalid pattern '%s': %s", name, err.msg);
			return bad(file, ln, msg);
		}
		sv_pattern_free(pat);
	}
	r->name = strdup(name);
	return r->name ? 0 : EXIT_INPUT;
}

/* Read the budget: boxes and rules, in order. */
static int budget_read(budget *b, const char *file)
{
	FILE *f = fopen(file, "r");
	if (!f) {
		fprintf(stderr, "stackview: %s: %s\n", file, strerror(errno));
		return EXIT_USAGE;
	}
	sv_params cur;
	bool group_set = false;
	if (sv_params_init(&cur)) {
		fclose(f);
		return EXIT_INPUT;
	}
	char *line = NULL;
	size_t cap = 0, total = 0;
	ssize_t len;
	long ln = 0;
	int rc = 0;
	while (!rc && (len = getline(&line, &cap, f)) >= 0) {
		ln++;
		total += (size_t)len;
		if (total > BUDGET_MAX_BYTES) {
			rc = bad(file, ln, "longer than a budget file can be (1 MiB)");
			break;
		}
		if (memchr(line, '\0', (size_t)len)) {
			rc = bad(file, ln, "a NUL byte: this is not a text file");
			break;
		}
		char *s = trim(line);
		if (!*s || *s == '#')
			continue;
		/* a box: "Name: text" with a box's name */
		char *colon = strchr(s, ':');
		int box = -1;
		if (colon)
			for (int i = 0; i < SV_BOX_COUNT; i++)
				if ((size_t)(colon - s) == strlen(sv_box_name((sv_box)i)) &&
				    !strncasecmp(s, sv_box_name((sv_box)i), (size_t)(colon - s)))
					box = i;
		if (box >= 0) {
			if (sv_params_set(&cur, (sv_box)box, trim(colon + 1)))
				rc = EXIT_INPUT;
			group_set = group_set || box == SV_BOX_GROUP;
			continue;
		}
		if (b->n == b->cap) {
			size_t nc = b->cap ? b->cap * 2 : 16;
			rule *nr = realloc(b->r, nc * sizeof(*nr));
			if (!nr) {
				rc = EXIT_INPUT;
				break;
			}
			b->r = nr;
			b->cap = nc;
		}
		rule *r = &b->r[b->n];
		memset(r, 0, sizeof(*r));
		r->line = ln;
		if (!(r->text = strdup(s)) || sv_params_copy(&r->params, &cur)) {
			free(r->text);
			rc = EXIT_INPUT;
			break;
		}
		r->group_set = group_set;
		b->n++;
		if ((rc = parse_rule(r, s, file, ln)))
			break;
	}
	if (!rc && ferror(f))
		rc = bad(file, ln, "read error");
	free(line);
	fclose(f);
	sv_params_dispose(&cur);
	if (!rc && b->n == 0) {
		fprintf(stderr, "stackview: %s: no rules (see 'Budgets' in the guide)\n", file);
		rc = EXIT_USAGE;
	}
	return rc;
}

/* ---- evaluation ---- */

/* Names and their values, summed over runs (a small map: rules match few rows). */
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

static bool holds(const rule *r, double v)
{
	switch (r->op) {
	case OP_LT: return v < r->limit;
	case OP_LE: return v <= r->limit;
	case OP_GT: return v > r->limit;
	case OP_GE: return v >= r->limit;
	}
	return false;
}

/* The deciding row: the one furthest on the wrong side of the limit. */
static const hit *worst_of(const rule *r, const hits *hs)
{
	const hit *w = NULL;
	bool upper = r->op == OP_LT || r->op == OP_LE;
	for (size_t i = 0; i < hs->n; i++)
		if (!w || (upper ? hs->h[i].v > w->v : hs->h[i].v < w->v))
			w = &hs->h[i];
	return w;
}

static bool row_matches(const rule *r, sv_pattern *pat, const char *name)
{
	return r->pattern ? sv_pattern_match(pat, name, strlen(name)) : !strcmp(name, r->name);
}

/* inc / exc: the mean over the profiles of each matching ByName row's value. */
static int eval_share(rule *r, sv_view **views, size_t nv, sv_pattern *pat)
{
	hits hs = { 0 };
	int rc = 0;
	for (size_t i = 0; i < nv && !rc; i++) {
		sv_view *v = views[i];
		double basis = sv_grid_basis(v);
		for (uint32_t b = 0; b < sv_view_byname_count(v) && !rc; b++) {
			const char *nm = sv_view_name(v, sv_view_byname_name(v, b));
			if (!row_matches(r, pat, nm))
				continue;
			const sv_stats *st = sv_view_byname_stats(v, b);
			double x = r->kind == RULE_INC ? st->inc : st->exc;
			if (r->pct)
				x = basis != 0 ? x * 100 / basis : 0;
			rc = hits_add(&hs, nm, x / (double)nv, NULL);
		}
	}
	const hit *w = rc ? NULL : worst_of(r, &hs);
	r->value = w ? w->v : 0;
	r->worst = w ? strdup(w->name) : NULL;
	r->pass = holds(r, r->value);
	free(hs.h);
	return rc;
}

/* growth: each matching row's change against the base runs' mean; a violation counts only
 * when the change is significant (with one run a side every change is). */
static int eval_growth(rule *r, sv_view *dv, const sv_rows *rows, sv_pattern *pat, bool several)
{
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
	r->value = w ? w->v : 0;
	r->worst = w ? strdup(w->name) : NULL;
	r->pass = holds(r, r->value);
	if (!r->pass && several && w && w->cmp->sig == 0) {
		r->pass = true;
		r->noise = true;
	}
	free(hs.h);
	return rc;
}

/* The views of the profiles for a rule's boxes (kept while consecutive rules share them). */
typedef struct view_cache {
	sv_params p;
	bool have;
	sv_view **v;
	size_t n;
	/* growth: the diff of the means, its view and ByName rows with their comparison */
	sv_source *d;
	sv_view *dv;
	sv_rows rows;
	sv_params dp;
	bool have_d;
} view_cache;

static void cache_drop(view_cache *c)
{
	for (size_t i = 0; c->v && i < c->n; i++) {
		sv_view_free(c->v[i]);
		c->v[i] = NULL;
	}
	if (c->have)
		sv_params_dispose(&c->p);
	c->have = false;
}

static void cache_drop_diff(view_cache *c)
{
	sv_rows_dispose(&c->rows);
	sv_view_free(c->dv);
	c->dv = NULL;
	if (c->have_d)
		sv_params_dispose(&c->dp);
	c->have_d = false;
}

static int cache_views(view_cache *c, const cli_runs *runs, const sv_params *p, sv_error *err)
{
	if (c->have && sv_params_equal(&c->p, p))
		return 0;
	cache_drop(c);
	for (size_t i = 0; i < c->n; i++) {
		int rc = sv_view_new(&c->v[i], runs->src[runs->nbase + i], p, err);
		if (rc)
			return rc == SV_ENOMEM ? EXIT_INPUT : EXIT_USAGE;
	}
	if (sv_params_copy(&c->p, p))
		return EXIT_INPUT;
	c->have = true;
	return 0;
}

static int cache_diff(view_cache *c, const cli_runs *runs, const rule *r, sv_error *err)
{
	sv_params p;
	if (sv_params_copy(&p, &r->params))
		return EXIT_INPUT;
	sv_process *procs = NULL;
	size_t np = 0;
	int rc = 0;
	if (!c->d && sv_compare_diff_source(&c->d, runs->cmp))
		rc = EXIT_INPUT;
	if (!rc && !r->group_set && sv_source_processes(&procs, &np, c->d) == 0 && np > 0 &&
	    sv_params_set(&p, SV_BOX_GROUP, SV_DIFF_GROUPPATS))
		rc = EXIT_INPUT;
	free(procs);
	if (rc || (c->have_d && sv_params_equal(&c->dp, &p))) {
		sv_params_dispose(&p);
		return rc;
	}
	cache_drop_diff(c);
	if ((rc = sv_view_new(&c->dv, c->d, &p, err))) {
		sv_params_dispose(&p);
		return rc == SV_ENOMEM ? EXIT_INPUT : EXIT_USAGE;
	}
	if (sv_compare_set_params(runs->cmp, &p, err) || sv_rows_byname(&c->rows, c->dv, 0) ||
	    sv_compare_rows(runs->cmp, c->dv, &c->rows)) {
		sv_params_dispose(&p);
		return EXIT_INPUT;
	}
	c->dp = p;
	c->have_d = true;
	return 0;
}

/* ---- output ---- */

static void fmt_value(char *buf, size_t size, double v, bool pct, bool sign)
{
	char n[48];
	if (isinf(v))
		snprintf(n, sizeof(n), "%sinf", v < 0 ? "-" : "+");
	else
		sv_format_number(n, sizeof(n), v, pct ? 2 : 1);
	snprintf(buf, size, "%s%s%s", sign && v > 0 && !isinf(v) ? "+" : "", n, pct ? " %" : "");
}

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if ((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n')
				fprintf(f, "&#x%x;", (unsigned char)*s); /* XML 1.0 has no such characters; shown as text */
			else
				fputc(*s, f);
		}
	}
}

typedef struct junit_job {
	const budget *b;
	const char *file;
	size_t failed;
} junit_job;

static int write_junit(FILE *f, void *payload, sv_error *err)
{
	(void)err;
	const junit_job *j = payload;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites tests=\"%zu\" failures=\"%zu\">\n", j->b->n,
		j->failed);
	fputs("  <testsuite name=\"stackview check ", f);
	xml_text(f, j->file);
	fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\">\n", j->b->n, j->failed);
	for (size_t i = 0; i < j->b->n; i++) {
		const rule *r = &j->b->r[i];
		char val[64], lim[64];
		fmt_value(val, sizeof(val), r->value, r->pct, r->kind == RULE_GROWTH);
		fmt_value(lim, sizeof(lim), r->limit, r->pct, false);
		fputs("    <testcase classname=\"", f);
		xml_text(f, j->file);
		fprintf(f, "\" name=\"line %ld: ", r->line);
		xml_text(f, r->text);
		fputs("\" time=\"0\">", f);
		if (!r->pass) {
			fputs("\n      <failure message=\"", f);
			xml_text(f, r->worst ? r->worst : "(no row)");
			fprintf(f, ": %s, limit ", val);
			xml_text(f, op_text[r->op]);
			fprintf(f, " %s\" type=\"budget\"/>\n    ", lim);
		} else if (r->noise) {
			fputs("\n      <system-out>", f);
			xml_text(f, r->worst ? r->worst : "");
			fprintf(f, ": %s is over the limit but not a significant change</system-out>\n    ", val);
		}
		fputs("</testcase>\n", f);
	}
	fputs("  </testsuite>\n</testsuites>\n", f);
	return ferror(f) ? SV_EIO : 0;
}

static void print_table(const budget *b, const char *file, const cli_runs *runs, size_t failed)
{
	size_t nt = runs->n - runs->nbase;
	printf("Budget %s: %zu rule%s, %zu failed (%zu profile%s", file, b->n, b->n > 1 ? "s" : "", failed, nt,
	       nt > 1 ? "s, means" : "");
	if (runs->nbase)
		printf("; %zu base run%s", runs->nbase, runs->nbase > 1 ? "s" : "");
	printf(")\n\n");
	int rw = 4, nw = 4;
	for (size_t i = 0; i < b->n; i++) {
		int a = sv_text_width(b->r[i].text), c = b->r[i].worst ? sv_text_width(b->r[i].worst) : 10;
		rw = a > rw ? a : rw;
		nw = c > nw ? c : nw;
	}
	rw = rw > 60 ? 60 : rw;
	nw = nw > 60 ? 60 : nw;
	printf("%5s  %-*s  %-*s  %12s  %12s  %s\n", "Line", rw, "Rule", nw, "Row", "Value", "Limit", "Verdict");
	for (size_t i = 0; i < b->n; i++) {
		const rule *r = &b->r[i];
		char val[64], lim[80];
		fmt_value(val, sizeof(val), r->value, r->pct, r->kind == RULE_GROWTH);
		char l2[64];
		fmt_value(l2, sizeof(l2), r->limit, r->pct, false);
		snprintf(lim, sizeof(lim), "%s %s", op_text[r->op], l2);
		const char *row = r->worst ? r->worst : "(no match)";
		printf("%5ld  %-*.*s  %-*.*s  %12s  %12s  %s\n", r->line, rw, rw, r->text, nw, nw, row, val, lim,
		       !r->pass ? "FAIL" : r->noise ? "pass (not significant)" : !r->worst ? "pass (no such row)" : "pass");
	}
}

static void print_json(const budget *b, const char *file, const cli_runs *runs, size_t failed)
{
	jw w = { .f = stdout };
	jw_begin_obj(&w);
	jw_key(&w, "budget"); jw_str(&w, file);
	jw_key(&w, "profiles"); jw_int(&w, (long long)(runs->n - runs->nbase));
	jw_key(&w, "base_runs"); jw_int(&w, (long long)runs->nbase);
	jw_key(&w, "failed"); jw_int(&w, (long long)failed);
	jw_key(&w, "rules");
	jw_begin_arr(&w);
	for (size_t i = 0; i < b->n; i++) {
		const rule *r = &b->r[i];
		jw_begin_obj(&w);
		jw_key(&w, "line"); jw_int(&w, r->line);
		jw_key(&w, "rule"); jw_str(&w, r->text);
		jw_key(&w, "kind"); jw_str(&w, r->kind == RULE_INC ? "inc" : r->kind == RULE_EXC ? "exc" : "growth");
		jw_key(&w, "row");
		if (r->worst)
			jw_str(&w, r->worst);
		else
			jw_null(&w);
		jw_key(&w, "value");
		if (isfinite(r->value))
			jw_num(&w, r->value);
		else
			jw_null(&w);
		jw_key(&w, "op"); jw_str(&w, op_text[r->op]);
		jw_key(&w, "limit"); jw_num(&w, r->limit);
		jw_key(&w, "unit"); jw_str(&w, r->pct ? "%" : "metric");
		jw_key(&w, "pass"); jw_bool(&w, r->pass);
		jw_key(&w, "significant"); jw_bool(&w, !r->noise);
		jw_end_obj(&w);
	}
	jw_end_arr(&w);
	jw_end_obj(&w);
	putchar('\n');
}

int cmd_check(const cli_opts *o)
{
	budget b = { 0 };
	cli_runs runs = { 0 };
	view_cache vc = { 0 };
	const char *file = o->files[0];
	int rc = budget_read(&b, file);
	if (rc)
		goto out;
	bool growth = false;
	for (size_t i = 0; i < b.n; i++)
		growth = growth || b.r[i].kind == RULE_GROWTH;
	if (growth && o->split < 0) {
		for (size_t i = 0; i < b.n; i++)
			if (b.r[i].kind == RULE_GROWTH) {
				rc = bad(file, b.r[i].line, "a growth rule needs base runs: stackview check BUDGET BASE... -- PROFILE...");
				goto out;
			}
	}
	const char *none[SV_BOX_COUNT] = { 0 };
	if ((rc = cli_runs_load(&runs, o, 1, none, false)))
		goto out;
	vc.n = runs.n - runs.nbase;
	vc.v = calloc(vc.n, sizeof(*vc.v));
	if (!vc.v) {
		rc = EXIT_INPUT;
		goto out;
	}
	bool several = runs.nbase > 1 || vc.n > 1;
	size_t failed = 0;
	for (size_t i = 0; i < b.n; i++) {
		rule *r = &b.r[i];
		sv_pattern *pat = NULL;
		if (r->pattern && sv_pattern_new(&pat, r->name, strlen(r->name), NULL)) {
			rc = EXIT_INPUT;
			goto out;
		}
		sv_error err;
		sv_error_clear(&err);
		if (r->kind == RULE_GROWTH)
			rc = cache_diff(&vc, &runs, r, &err);
		else
			rc = cache_views(&vc, &runs, &r->params, &err);
		if (!rc && (r->kind == RULE_GROWTH ? eval_growth(r, vc.dv, &vc.rows, pat, several)
						    : eval_share(r, vc.v, vc.n, pat)))
			rc = EXIT_INPUT;
		sv_pattern_free(pat);
		if (rc) {
			if (rc == EXIT_USAGE) { /* a box of the budget file that the engine refused */
				char msg[1200];
				sv_error_format(msg, sizeof(msg), &err);
				fprintf(stderr, "stackview: %s:%ld: the boxes for this rule: %s\n", file, r->line, msg);
			} else {
				fprintf(stderr, "stackview: out of memory\n");
			}
			goto out;
		}
		failed += !r->pass;
	}
	if (o->out == OUT_JSON)
		print_json(&b, file, &runs, failed);
	else
		print_table(&b, file, &runs, failed);
	if ((rc = cli_finish_output(stdout)))
		goto out;
	if (o->junit) {
		junit_job j = { &b, file, failed };
		sv_error err;
		sv_error_clear(&err);
		if (sv_write_atomic(o->junit, write_junit, &j, &err)) {
			cli_report(&err);
			rc = EXIT_OUTPUT;
			goto out;
		}
	}
	rc = failed ? 1 : 0;
out:
	cache_drop(&vc);
	cache_drop_diff(&vc);
	sv_source_free(vc.d);
	free(vc.v);
	cli_runs_dispose(&runs);
	budget_dispose(&b);
	return rc;
}
