/* SPDX-License-Identifier: MIT */
/* Several runs per side (see stackview/compare.h). */
#include "stackview/compare.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackview/pattern.h"
#include "strtab_int.h"
#include "sv/boxtext.h"
#include "sv/copier.h"

struct sv_compare {
	size_t nbase, ntest, nruns;
	sv_source **runs; /* owned: each run's surviving samples, names aligned */
	sv_view **views;  /* per run, through `params` */
	sv_params params;
	bool have_params;
	sv_scaling scaling;
	bool welch;
	/* Callers / Callees and Caller-Callee of each run, for the last focus asked */
	sv_aggtree **agg;
	sv_agg_kind agg_kind;
	char *agg_focus;
	sv_callercallee **cc;
	char *cc_focus;
	/* automatic matching: test-side name -> base-side name */
	char **alias_from, **alias_to;
	size_t nalias;
	strtab report; /* the names of the last unmatched report */
};

/* ---- statistics ---- */

/* The continued fraction of the regularized incomplete beta function (modified Lentz). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double c = 1, d = 1 - (a + b) * x / (a + 1);
	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	double h = d;
	for (int m = 1; m <= 1000; m++) {
		double m2 = 2.0 * m;
		double num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + num * d;
		c = 1 + num / c;
		if (fabs(d) < tiny)
			d = tiny;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + num * d;
		c = 1 + num / c;
		if (fabs(d) < tiny)
			d = tiny;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		double del = d * c;
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

/* I_x(a, b). */
static double beta_inc(double a, double b, double x)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	double lfront = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	if (x < (a + 1) / (a + b + 2))
		return exp(lfront) * beta_cf(a, b, x) / a;
	return 1 - exp(lfront) * beta_cf(b, a, 1 - x) / b;
}

/* P(|T| >= t) for Student's t with df degrees of freedom. */
static double t_two_sided(double t, double df)
{
	return beta_inc(df / 2, 0.5, df / (df + t * t));
}

double sv_student_t_quantile(double p, double df)
{
	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	if (p == 0.5)
		return 0;
	double q = p > 0.5 ? 1 - p : p; /* one tail */
	double lo = 0, hi = 1;
	while (t_two_sided(hi, df) / 2 > q && hi < 1e12)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = (lo + hi) / 2;
		if (t_two_sided(mid, df) / 2 > q)
			lo = mid;
		else
			hi = mid;
	}
	double t = (lo + hi) / 2;
	return p > 0.5 ? t : -t;
}

static void mean_sd(const double *x, size_t n, double *mean, double *sd)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += x[i];
	*mean = n ? s / (double)n : 0;
	double ss = 0;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - *mean) * (x[i] - *mean);
	*sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
}

void sv_compare_stats(sv_cmpstat *out, const double *base, size_t nbase, const double *test, size_t ntest, bool welch)
{
	mean_sd(base, nbase, &out->base, &out->base_sd);
	mean_sd(test, ntest, &out->test, &out->test_sd);
	out->delta = out->test - out->base;
	out->lo = out->hi = out->p = NAN;
	out->sig = 0;
	/* Differences at the rounding level of the inputs are no difference. */
	double scale = fmax(fabs(out->base), fabs(out->test));
	if (fabs(out->delta) <= 1e-9 * scale)
		out->delta = 0;
	double se, df;
	if (nbase + ntest < 3)
		return;
	if (welch && nbase >= 2 && ntest >= 2) {
		double vb = out->base_sd * out->base_sd / (double)nbase, vt = out->test_sd * out->test_sd / (double)ntest;
		se = sqrt(vb + vt);
		double den = vb * vb / (double)(nbase - 1) + vt * vt / (double)(ntest - 1);
		df = den > 0 ? (vb + vt) * (vb + vt) / den : (double)(nbase + ntest - 2);
	} else {
		/* Student's t with the pooled variance: both sides' runs estimate one spread (with
		 * one run on a side, the other side's spread stands for both) */
		double ss = out->base_sd * out->base_sd * (double)(nbase - 1) + out->test_sd * out->test_sd * (double)(ntest - 1);
		df = (double)(nbase + ntest - 2);
		se = sqrt(ss / df) * sqrt(1.0 / (double)nbase + 1.0 / (double)ntest);
	}
	/* spreads at the rounding level are no spread */
	if (se <= 1e-9 * scale)
		se = 0;
	if (se == 0) {
		out->lo = out->hi = out->delta;
		out->p = out->delta == 0 ? 1 : 0;
	} else {
		double q = sv_student_t_quantile(0.975, df);
		out->lo = out->delta - q * se;
		out->hi = out->delta + q * se;
		out->p = t_two_sided(fabs(out->delta) / se, df);
	}
	out->sig = out->lo > 0 ? 1 : out->hi < 0 ? -1 : 0;
}

/* ---- names lined up across builds ---- */

/* Where the program name sits in a frame name: a process frame's name ("Process NAME (PID)"),
 * a thread frame's name ("Thread (TID) NAME"), or the module before '!'. False for others. */
static bool program_span(const char *f, size_t *off, size_t *len)
{
	if (!strncmp(f, "Process", 7)) {
		const char *p = f + 7;
		while (isdigit((unsigned char)*p))
			p++;
		if (*p != ' ')
			return false;
		p++;
		for (const char *q = p; *q; q++) {
			if (q[0] != ' ' || q[1] != '(')
				continue;
			const char *d = q + 2;
			while (isdigit((unsigned char)*d))
				d++;
			if (d > q + 2 && *d == ')' && q > p) {
				*off = (size_t)(p - f);
				*len = (size_t)(q - p);
				return true;
			}
		}
		return false;
	}
	if (!strncmp(f, "Thread (", 8)) {
		const char *p = strchr(f + 8, ')');
		if (!p || p[1] != ' ' || !p[2])
			return false;
		*off = (size_t)(p + 2 - f);
		*len = strlen(p + 2);
		return true;
	}
	const char *bang = strchr(f, '!');
	if (!bang || bang == f)
		return false;
	*off = 0;
	*len = (size_t)(bang - f);
	return true;
}

static bool all_digits_dots(const char *a, const char *z)
{
	if (a == z)
		return false;
	for (const char *p = a; p < z; p++)
		if (!isdigit((unsigned char)*p) && *p != '.')
			return false;
	return isdigit((unsigned char)a[0]) && isdigit((unsigned char)z[-1]);
}

/* A version or hash at the end of s[0, *n): "-1.2.3", "_15", "3.11" after letters,
 * "-3f2a" (hex with a digit, 4 or more). Returns true when it shortened *n. */
static bool strip_suffix(const char *s, size_t *n)
{
	size_t e = *n;
	/* the last separator-led part */
	size_t k = e;
	while (k > 0 && s[k - 1] != '-' && s[k - 1] != '_' && s[k - 1] != '.')
		k--;
	if (k > 1 && (s[k - 1] == '-' || s[k - 1] == '_')) {
		const char *a = s + k, *z = s + e;
		bool hex = z - a >= 4, digit = false;
		for (const char *p = a; p < z; p++) {
			hex = hex && isxdigit((unsigned char)*p);
			digit = digit || isdigit((unsigned char)*p);
		}
		if ((hex && digit) || all_digits_dots(a, z) || (a < z && *a == 'v' && all_digits_dots(a + 1, z))) {
			*n = k - 1;
			return true;
		}
	}
	/* "-1.2.3" / "3.11": digits and dots after a separator or a letter */
	size_t j = e;
	while (j > 0 && (isdigit((unsigned char)s[j - 1]) || s[j - 1] == '.'))
		j--;
	if (j < e && all_digits_dots(s + j, s + e) && j > 0) {
		if (s[j - 1] == '-' || s[j - 1] == '_' || s[j - 1] == '.') {
			if (j > 1) {
				*n = j - 1;
				return true;
			}
		} else if (isalpha((unsigned char)s[j - 1]) && strchr(s + j, '.')) {
			*n = j;
			return true;
		}
	}
	return false;
}

/* The name without version and hash suffixes: "libfoo.so.1.2" -> "libfoo.so",
 * "libLLVM-15.so.1" -> "libLLVM.so", "rustc_driver-6f3a2b.dll" -> "rustc_driver.dll",
 * "app-3f2a" -> "app". Written into buf (truncated to size). */
static void program_key(char *buf, size_t size, const char *name, size_t len)
{
	if (len >= size)
		len = size - 1;
	memcpy(buf, name, len);
	buf[len] = '\0';
	/* ".so.1.2" */
	char *so = strstr(buf, ".so.");
	if (so && all_digits_dots(so + 4, buf + len)) {
		len = (size_t)(so + 3 - buf);
		buf[len] = '\0';
	}
	/* an extension of letters (".so", ".dll", ".exe", ".dylib") stays */
	char ext[16] = "";
	char *dot = strrchr(buf, '.');
	if (dot && dot > buf && strlen(dot) <= 7) {
		bool letters = dot[1] != '\0';
		for (char *p = dot + 1; *p; p++)
			letters = letters && isalpha((unsigned char)*p);
		if (letters) {
			snprintf(ext, sizeof(ext), "%s", dot);
			len = (size_t)(dot - buf);
		}
	}
	while (strip_suffix(buf, &len))
		;
	buf[len] = '\0';
	snprintf(buf + len, size - len, "%s", ext);
	for (char *p = buf; *p; p++)
		*p = (char)tolower((unsigned char)*p);
}

typedef struct prog {
	uint32_t id;  /* in the names table */
	char key[256];
	int side;     /* 1 base only, 2 test only, 3 both */
} prog;

static int prog_cmp(const void *a, const void *b)
{
	const prog *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	return c ? c : (x->side > y->side) - (x->side < y->side);
}

/* Program names (modules, processes, threads) of both sides, after --match; the test-side
 * names that differ from a base-side name only by suffix, one to one, become aliases. */
static int find_aliases(sv_compare *c, char ***names, const sv_source *const *src)
{
	strtab t;
	sv_strtab_init(&t);
	unsigned char *side = NULL;
	size_t side_cap = 0;
	int rc = 0;
	for (size_t r = 0; r < c->nruns && !rc; r++) {
		uint32_t nf = sv_source_frame_count(src[r]);
		for (uint32_t f = 0; f < nf && !rc; f++) {
			const char *nm = names[r][f] ? names[r][f] : sv_source_frame_name(src[r], f);
			size_t off, len;
			uint32_t id;
			if (!program_span(nm, &off, &len))
				continue;
			if ((rc = sv_strtab_intern(&t, &id, nm + off, len)))
				break;
			if (id >= side_cap) {
				size_t ncap = side_cap ? side_cap * 2 : 64;
				while (ncap <= id)
					ncap *= 2;
				unsigned char *ns = realloc(side, ncap);
				if (!ns) {
					rc = SV_ENOMEM;
					break;
				}
				memset(ns + side_cap, 0, ncap - side_cap);
				side = ns;
				side_cap = ncap;
			}
			side[id] |= r < c->nbase ? 1 : 2;
		}
	}
	prog *pr = rc ? NULL : calloc(t.count + 1, sizeof(*pr));
	if (!rc && !pr)
		rc = SV_ENOMEM;
	size_t np = 0;
	for (uint32_t id = 0; !rc && id < t.count; id++) {
		if (side[id] == 3)
			continue;
		pr[np].id = id;
		pr[np].side = side[id];
		program_key(pr[np].key, sizeof(pr[np].key), sv_strtab_str(&t, id), sv_strtab_len(&t, id));
		np++;
	}
	if (!rc)
		qsort(pr, np, sizeof(*pr), prog_cmp);
	for (size_t i = 0; !rc && i < np;) {
		size_t j = i;
		while (j < np && !strcmp(pr[j].key, pr[i].key))
			j++;
		/* exactly one base-only and one test-only name with this key */
		if (j - i == 2 && pr[i].side == 1 && pr[i + 1].side == 2) {
			char **f = realloc(c->alias_from, (c->nalias + 1) * sizeof(char *));
			if (f)
				c->alias_from = f;
			char **to = realloc(c->alias_to, (c->nalias + 1) * sizeof(char *));
			if (to)
				c->alias_to = to;
			char *a = strdup(sv_strtab_str(&t, pr[i + 1].id)), *b = strdup(sv_strtab_str(&t, pr[i].id));
			if (!f || !to || !a || !b) {
				free(a);
				free(b);
				rc = SV_ENOMEM;
				break;
			}
			c->alias_from[c->nalias] = a;
			c->alias_to[c->nalias] = b;
			c->nalias++;
		}
		i = j;
	}
	free(pr);
	free(side);
	sv_strtab_dispose(&t);
	return rc;
}

/* The test-side name with an aliased program name replaced; NULL when none applies. */
static char *apply_alias(const sv_compare *c, const char *nm)
{
	size_t off, len;
	if (!c->nalias)
		return NULL;
	if (!program_span(nm, &off, &len)) {
		/* a frame that is a program's name alone (a folded file's root, a comm) */
		off = 0;
		len = strlen(nm);
	}
	for (size_t i = 0; i < c->nalias; i++) {
		if (strlen(c->alias_from[i]) != len || memcmp(c->alias_from[i], nm + off, len))
			continue;
		size_t tl = strlen(c->alias_to[i]), rest = strlen(nm + off + len);
		char *s = malloc(off + tl + rest + 1);
		if (!s)
			return NULL;
		memcpy(s, nm, off);
		memcpy(s + off, c->alias_to[i], tl);
		memcpy(s + off + tl, nm + off + len, rest + 1);
		return s;
	}
	return NULL;
}

/* --match: `OLD=>NEW` entries, each a pattern and a replacement of what it matches. */
typedef struct match_rule {
	sv_pattern *pat;
	char *repl;
} match_rule;

static void rules_free(match_rule *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		sv_pattern_free(r[i].pat);
		free(r[i].repl);
	}
	free(r);
}

static int rules_parse(match_rule **out, size_t *n, const char *text, sv_error *err)
{
	*out = NULL;
	*n = 0;
	if (!text)
		return 0;
	size_t cap = 1;
	for (const char *p = text; *p; p++)
		cap += *p == ';';
	match_rule *r = calloc(cap, sizeof(*r));
	if (!r)
		return sv_error_set(err, SV_ENOMEM, NULL);
	const char *s = text + sv_box_comment_len(text), *a, *z;
	int rc = 0;
	while (!rc && sv_box_next(&s, &a, &z)) {
		if (a == z)
			continue;
		const char *arrow = NULL;
		for (const char *p = a; p + 1 < z; p++)
			if (p[0] == '=' && p[1] == '>') {
				arrow = p;
				break;
			}
		if (!arrow) {
			rc = sv_error_set(err, SV_EINVAL, "--match: '%.*s' is not OLD=>NEW", (int)(z - a), a);
			break;
		}
		const char *pe = arrow;
		while (pe > a && sv_box_blank(pe[-1]))
			pe--;
		const char *ra = arrow + 2;
		while (ra < z && sv_box_blank(*ra))
			ra++;
		if (pe == a) {
			rc = sv_error_set(err, SV_EINVAL, "--match: '%.*s' has no pattern before =>", (int)(z - a), a);
			break;
		}
		sv_error perr = { 0 };
		if ((rc = sv_pattern_new(&r[*n].pat, a, (size_t)(pe - a), &perr))) {
			rc = sv_error_set(err, rc, "--match: '%.*s': %s", (int)(pe - a), a, perr.msg);
			break;
		}
		r[*n].repl = strndup(ra, (size_t)(z - ra));
		(*n)++;
		if (!r[*n - 1].repl)
			rc = sv_error_set(err, SV_ENOMEM, NULL);
	}
	if (rc) {
		rules_free(r, *n);
		*n = 0;
		return rc;
	}
	*out = r;
	return 0;
}

/* Each frame's name after the rules (chained in order), NULL where none matched. */
static int apply_rules(char **names, const sv_source *src, match_rule *r, size_t nr)
{
	uint32_t nf = sv_source_frame_count(src);
	for (uint32_t f = 0; f < nf; f++) {
		char *cur = NULL;
		for (size_t i = 0; i < nr; i++) {
			const char *text = cur ? cur : sv_source_frame_name(src, f);
			char *next;
			int rc = sv_pattern_replace(&next, r[i].pat, text, strlen(text), r[i].repl);
			if (rc < 0) {
				free(cur);
				return rc;
			}
			if (rc == 1) {
				free(cur);
				cur = next;
			}
		}
		names[f] = cur;
	}
	return 0;
}

/* ---- construction ---- */

static int copy_run(sv_source **out, sv_view *v, const char *const *rename, double scale, sv_source *into)
{
	const sv_source *src = sv_view_source(v);
	sv_source *dst = into;
	int rc = 0;
	if (!dst) {
		if ((rc = sv_source_new(&dst, sv_source_format(src))))
			return rc;
		sv_source_set_scaling(dst, sv_view_scaling(v));
	}
	sv_copier cp = { 0 };
	rc = sv_copier_init(&cp, src, dst);
	cp.rename = rename;
	size_t ns = sv_source_sample_count(src);
	const sv_stack_id *stk = sv_source_sample_stacks(src);
	sv_samples smp = sv_source_samples(src);
	for (size_t i = 0; !rc && i < ns; i++) {
		sv_node_id n;
		double t, m;
		if (!sv_view_sample(v, i, &n, &t, &m))
			continue;
		sv_stack_id s;
		rc = sv_copier_stack(&cp, &s, stk[i]);
		if (!rc)
			rc = sv_source_add_sample(dst, s, t, scale * m, scale * sv_sample_count(&smp, i));
	}
	sv_copier_dispose(&cp);
	if (rc && !into)
		sv_source_free(dst);
	else if (!into)
		*out = dst;
	return rc;
}

int sv_compare_new(sv_compare **out, sv_view *const *views, size_t nbase, size_t ntest, const sv_compare_opts *opts,
		   sv_error *err)
{
	*out = NULL;
	if (!nbase || !ntest)
		return sv_error_set(err, SV_EINVAL, "a comparison needs a run on each side");
	sv_compare *c = calloc(1, sizeof(*c));
	size_t n = nbase + ntest;
	if (!c)
		return sv_error_set(err, SV_ENOMEM, NULL);
	c->nbase = nbase;
	c->ntest = ntest;
	c->nruns = n;
	sv_strtab_init(&c->report);
	c->scaling = sv_view_scaling(views[nbase]);
	c->welch = opts && opts->welch;
	c->runs = calloc(n, sizeof(*c->runs));
	c->views = calloc(n, sizeof(*c->views));
	c->agg = calloc(n, sizeof(*c->agg));
	c->cc = calloc(n, sizeof(*c->cc));
	char ***names = calloc(n, sizeof(*names));
	const sv_source **srcs = calloc(n, sizeof(*srcs));
	match_rule *rules = NULL;
	size_t nrules = 0;
	int rc = 0;
	if (!c->runs || !c->views || !c->agg || !c->cc || !names || !srcs) {
		rc = sv_error_set(err, SV_ENOMEM, NULL);
		goto out;
	}
	if ((rc = rules_parse(&rules, &nrules, opts ? opts->match : NULL, err)))
		goto out;
	for (size_t r = 0; r < n && !rc; r++) {
		srcs[r] = sv_view_source(views[r]);
		names[r] = calloc((size_t)sv_source_frame_count(srcs[r]) + 1, sizeof(char *));
		if (!names[r] || apply_rules(names[r], srcs[r], rules, nrules))
			rc = sv_error_set(err, SV_ENOMEM, NULL);
	}
	if (!rc && opts && opts->auto_match && find_aliases(c, names, srcs))
		rc = sv_error_set(err, SV_ENOMEM, NULL);
	for (size_t r = nbase; r < n && !rc && c->nalias; r++) {
		uint32_t nf = sv_source_frame_count(srcs[r]);
		for (uint32_t f = 0; f < nf; f++) {
			char *a = apply_alias(c, names[r][f] ? names[r][f] : sv_source_frame_name(srcs[r], f));
			if (a) {
				free(names[r][f]);
				names[r][f] = a;
			}
		}
	}
	for (size_t r = 0; r < n && !rc; r++)
		if ((rc = copy_run(&c->runs[r], views[r], (const char *const *)names[r], 1.0, NULL)))
			sv_error_set(err, rc, NULL);
out:
	for (size_t r = 0; names && r < n; r++) {
		if (!names[r])
			continue;
		uint32_t nf = sv_source_frame_count(srcs[r]);
		for (uint32_t f = 0; f < nf; f++)
			free(names[r][f]);
		free(names[r]);
	}
	free(names);
	free(srcs);
	rules_free(rules, nrules);
	if (rc) {
		sv_compare_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

static void drop_derived(sv_compare *c)
{
	for (size_t r = 0; r < c->nruns; r++) {
		sv_aggtree_free(c->agg[r]);
		sv_callercallee_free(c->cc[r]);
		c->agg[r] = NULL;
		c->cc[r] = NULL;
	}
	free(c->agg_focus);
	free(c->cc_focus);
	c->agg_focus = c->cc_focus = NULL;
}

void sv_compare_free(sv_compare *c)
{
	if (!c)
		return;
	if (c->agg && c->cc)
		drop_derived(c);
	for (size_t r = 0; r < c->nruns; r++) {
		if (c->views)
			sv_view_free(c->views[r]);
		if (c->runs)
			sv_source_free(c->runs[r]);
	}
	for (size_t i = 0; i < c->nalias; i++) {
		free(c->alias_from[i]);
		free(c->alias_to[i]);
	}
	free(c->alias_from);
	free(c->alias_to);
	if (c->have_params)
		sv_params_dispose(&c->params);
	sv_strtab_dispose(&c->report);
	free(c->runs);
	free(c->views);
	free(c->agg);
	free(c->cc);
	free(c);
}

size_t sv_compare_runs(const sv_compare *c, bool test)
{
	return test ? c->ntest : c->nbase;
}

size_t sv_compare_alias_count(const sv_compare *c)
{
	return c->nalias;
}

void sv_compare_alias(const sv_compare *c, size_t i, const char **test_name, const char **base_name)
{
	*test_name = c->alias_from[i];
	*base_name = c->alias_to[i];
}

/* All runs of the chosen sides into one source, each side's metrics scaled. */
static int combine(sv_source **out, const sv_compare *c, const char *format, bool base, double base_scale, bool test,
		   double test_scale)
{
	sv_source *dst;
	int rc = sv_source_new(&dst, format);
	if (rc)
		return rc;
	sv_source_set_scaling(dst, c->scaling);
	sv_source_set_limit_from_end(dst, base);
	sv_params empty;
	if ((rc = sv_params_init(&empty))) {
		sv_source_free(dst);
		return rc;
	}
	/* test first, as sv_diff adds them */
	for (int pass = 0; pass < 2 && !rc; pass++) {
		bool t = pass == 0;
		if ((t && !test) || (!t && !base))
			continue;
		size_t r0 = t ? c->nbase : 0, r1 = t ? c->nruns : c->nbase;
		for (size_t r = r0; r < r1 && !rc; r++) {
			sv_view *v;
			if ((rc = sv_view_new(&v, c->runs[r], &empty, NULL)))
				break;
			rc = copy_run(NULL, v, NULL, t ? test_scale : base_scale, dst);
			sv_view_free(v);
		}
	}
	sv_params_dispose(&empty);
	if (rc) {
		sv_source_free(dst);
		return rc;
	}
	*out = dst;
	return 0;
}

int sv_compare_diff_source(sv_source **out, const sv_compare *c)
{
	return combine(out, c, "diff", true, -1.0 / (double)c->nbase, true, 1.0 / (double)c->ntest);
}

int sv_compare_mean_source(sv_source **out, const sv_compare *c, bool test)
{
	sv_source *s;
	int rc = combine(&s, c, sv_source_format(c->runs[test ? c->nbase : 0]), !test, 1.0 / (double)c->nbase, test,
			 1.0 / (double)c->ntest);
	if (rc)
		return rc;
	sv_source_set_limit_from_end(s, false);
	*out = s;
	return 0;
}

int sv_compare_set_params(sv_compare *c, const sv_params *p, sv_error *err)
{
	sv_params np;
	if (sv_params_copy(&np, p) || sv_params_set(&np, SV_BOX_FOLD_PCT, "")) {
		sv_params_dispose(&np);
		return sv_error_set(err, SV_ENOMEM, NULL);
	}
	if (c->have_params && sv_params_equal(&np, &c->params)) {
		sv_params_dispose(&np);
		return 0;
	}
	drop_derived(c);
	for (size_t r = 0; r < c->nruns; r++) {
		sv_view_free(c->views[r]);
		c->views[r] = NULL;
	}
	for (size_t r = 0; r < c->nruns; r++) {
		int rc = sv_view_new(&c->views[r], c->runs[r], &np, err);
		if (rc) {
			for (size_t k = 0; k < r; k++) {
				sv_view_free(c->views[k]);
				c->views[k] = NULL;
			}
			sv_params_dispose(&np);
			if (c->have_params)
				sv_params_dispose(&c->params);
			c->have_params = false;
			return rc;
		}
	}
	if (c->have_params)
		sv_params_dispose(&c->params);
	c->params = np;
	c->have_params = true;
	return 0;
}

/* ---- rows ---- */

#define NONE UINT32_MAX

/* The child of node n of run view rv named `name` (a display name), or NONE. */
static uint32_t tree_child(sv_view *rv, uint32_t n, const char *name)
{
	if (n == NONE)
		return NONE;
	sv_name_id id = sv_view_name_find(rv, name);
	if (id == SV_NAME_NONE)
		return NONE;
	const sv_node_id *kids;
	uint32_t nk = sv_view_node_children(rv, n, &kids);
	for (uint32_t k = 0; k < nk; k++)
		if (sv_view_node_name(rv, kids[k]) == id)
			return kids[k];
	return NONE;
}

static uint32_t agg_child(const sv_aggtree *t, sv_view *rv, uint32_t row, const char *name)
{
	if (row == NONE || !t)
		return NONE;
	sv_name_id id = sv_view_name_find(rv, name);
	if (id == SV_NAME_NONE)
		return NONE;
	const uint32_t *kids;
	uint32_t nk = sv_aggtree_children(t, row, &kids);
	for (uint32_t k = 0; k < nk; k++)
		if (sv_aggtree_row(t, kids[k])->name == id)
			return kids[k];
	return NONE;
}

/* Each run's Callers / Callees tree or Caller-Callee for this focus (kept until the focus,
 * the kind or the parameters change). A run without the focus gets none. */
static int need_agg(sv_compare *c, sv_agg_kind kind, const char *focus)
{
	if (c->agg_focus && c->agg_kind == kind && !strcmp(c->agg_focus, focus))
		return 0;
	for (size_t r = 0; r < c->nruns; r++) {
		sv_aggtree_free(c->agg[r]);
		c->agg[r] = NULL;
	}
	free(c->agg_focus);
	c->agg_focus = NULL;
	for (size_t r = 0; r < c->nruns; r++) {
		sv_name_id id = sv_view_name_find(c->views[r], focus);
		if (id == SV_NAME_NONE || sv_view_byname_find(c->views[r], id) == UINT32_MAX)
			continue;
		int rc = sv_aggtree_new(&c->agg[r], c->views[r], kind, id);
		if (rc == SV_ENOTFOUND)
			c->agg[r] = NULL;
		else if (rc)
			return rc;
	}
	c->agg_kind = kind;
	c->agg_focus = strdup(focus);
	return c->agg_focus ? 0 : SV_ENOMEM;
}

static int need_cc(sv_compare *c, const char *focus)
{
	if (c->cc_focus && !strcmp(c->cc_focus, focus))
		return 0;
	for (size_t r = 0; r < c->nruns; r++) {
		sv_callercallee_free(c->cc[r]);
		c->cc[r] = NULL;
	}
	free(c->cc_focus);
	c->cc_focus = NULL;
	for (size_t r = 0; r < c->nruns; r++) {
		int rc = sv_callercallee_new(&c->cc[r], c->views[r], focus);
		if (rc)
			return rc;
		/* a run without the focus falls back to ROOT: it has none of these rows */
		if (strcmp(sv_view_name(c->views[r], c->cc[r]->focus.name), focus)) {
			sv_callercallee_free(c->cc[r]);
			c->cc[r] = NULL;
		}
	}
	c->cc_focus = strdup(focus);
	return c->cc_focus ? 0 : SV_ENOMEM;
}

static double cc_value(const sv_callercallee *cc, sv_view *rv, sv_row_role role, const char *name)
{
	if (!cc)
		return 0;
	if (role == SV_ROLE_FOCUS)
		return cc->focus.st.inc;
	sv_name_id id = sv_view_name_find(rv, name);
	const sv_aggrow *a = role == SV_ROLE_CALLER ? cc->callers : cc->callees;
	uint32_t n = role == SV_ROLE_CALLER ? cc->ncallers : cc->ncallees;
	for (uint32_t i = 0; id != SV_NAME_NONE && i < n; i++)
		if (a[i].name == id)
			return a[i].st.inc;
	return 0;
}

/* The run's node for a call tree row found by its path from ROOT. */
static uint32_t tree_path(sv_view *v, sv_node_id n, sv_view *rv)
{
	size_t depth = 0;
	for (sv_node_id x = n; x != SV_NODE_ROOT; x = sv_view_node_parent(v, x))
		depth++;
	sv_node_id *path = malloc((depth + 1) * sizeof(*path));
	if (!path)
		return NONE;
	size_t k = depth;
	for (sv_node_id x = n; x != SV_NODE_ROOT; x = sv_view_node_parent(v, x))
		path[--k] = x;
	uint32_t m = SV_NODE_ROOT;
	for (size_t i = 0; i < depth && m != NONE; i++)
		m = tree_child(rv, m, sv_view_name(v, sv_view_node_name(v, path[i])));
	free(path);
	return m;
}

static uint32_t agg_path(const sv_aggtree *t, sv_view *v, uint32_t row, const sv_aggtree *rt, sv_view *rv)
{
	if (!rt)
		return NONE;
	size_t depth = 0;
	for (uint32_t x = row; sv_aggtree_row(t, x)->parent != UINT32_MAX; x = sv_aggtree_row(t, x)->parent)
		depth++;
	uint32_t *path = malloc((depth + 1) * sizeof(*path));
	if (!path)
		return NONE;
	size_t k = depth;
	for (uint32_t x = row; sv_aggtree_row(t, x)->parent != UINT32_MAX; x = sv_aggtree_row(t, x)->parent)
		path[--k] = x;
	uint32_t m = 0;
	for (size_t i = 0; i < depth && m != NONE; i++)
		m = agg_child(rt, rv, m, sv_view_name(v, sv_aggtree_row(t, path[i])->name));
	free(path);
	return m;
}

int sv_compare_rows(sv_compare *c, sv_view *v, sv_rows *rows)
{
	free(rows->cmpbuf);
	rows->cmpbuf = NULL;
	for (size_t i = 0; i < rows->n; i++)
		rows->row[i].cmp = NULL;
	if (!c->have_params || !rows->n)
		return 0;
	size_t nr = c->nruns;
	sv_cmpstat *buf = calloc(rows->n, sizeof(*buf));
	double *vals = malloc(nr * sizeof(double));
	/* per depth, each run's node / row for the last row seen at that depth */
	uint32_t maxd = 0;
	for (size_t i = 0; i < rows->n; i++)
		if (rows->row[i].depth > maxd)
			maxd = rows->row[i].depth;
	uint32_t *at = malloc(((size_t)maxd + 1) * nr * sizeof(uint32_t));
	if (!buf || !vals || !at) {
		free(buf);
		free(vals);
		free(at);
		return SV_ENOMEM;
	}
	int rc = 0;
	const char *focus = NULL;
	if (rows->kind == SV_ROWS_AGGTREE)
		focus = sv_view_name(v, sv_aggtree_row(rows->agg, 0)->name);
	else if (rows->kind == SV_ROWS_CALLERCALLEE)
		focus = sv_view_name(v, rows->cc->focus.name);
	if (rows->kind == SV_ROWS_AGGTREE)
		rc = need_agg(c, sv_aggtree_kind(rows->agg), focus);
	else if (rows->kind == SV_ROWS_CALLERCALLEE)
		rc = need_cc(c, focus);
	for (size_t i = 0; i < rows->n && !rc; i++) {
		sv_row *row = &rows->row[i];
		const char *name = sv_view_name(v, row->name);
		uint32_t d = row->depth;
		for (size_t r = 0; r < nr; r++) {
			sv_view *rv = c->views[r];
			uint32_t m = NONE;
			double val = 0;
			switch (rows->kind) {
			case SV_ROWS_CALLTREE:
				m = d == 0 || i == 0 ? tree_path(v, row->id, rv) : tree_child(rv, at[(d - 1) * nr + r], name);
				if (m != NONE)
					val = sv_view_node_stats(rv, m)->inc;
				break;
			case SV_ROWS_AGGTREE:
				m = d == 0 || i == 0 ? agg_path(rows->agg, v, row->id, c->agg[r], rv)
						     : agg_child(c->agg[r], rv, at[(d - 1) * nr + r], name);
				if (m != NONE)
					val = sv_aggtree_row(c->agg[r], m)->st.inc;
				break;
			case SV_ROWS_BYNAME: {
				sv_name_id id = sv_view_name_find(rv, name);
				uint32_t br = id == SV_NAME_NONE ? UINT32_MAX : sv_view_byname_find(rv, id);
				if (br != UINT32_MAX)
					val = sv_view_byname_stats(rv, br)->inc;
				break;
			}
			case SV_ROWS_CALLERCALLEE:
				val = cc_value(c->cc[r], rv, row->role, name);
				break;
			}
			at[(size_t)d * nr + r] = m;
			vals[r] = val;
		}
		sv_compare_stats(&buf[i], vals, c->nbase, vals + c->nbase, c->ntest, c->welch);
		row->cmp = &buf[i];
	}
	free(vals);
	free(at);
	if (rc) {
		for (size_t i = 0; i < rows->n; i++)
			rows->row[i].cmp = NULL;
		free(buf);
		return rc;
	}
	rows->cmpbuf = buf;
	return 0;
}

/* ---- what did not line up ---- */

static int unm_cmp(const void *a, const void *b)
{
	const sv_unmatched *x = a, *y = b;
	if (fabs(x->inc) != fabs(y->inc))
		return fabs(x->inc) > fabs(y->inc) ? -1 : 1;
	if (x->test != y->test)
		return x->test ? 1 : -1;
	return strcmp(x->name, y->name);
}

int sv_compare_unmatched(sv_compare *c, double min_share, sv_unmatched **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (!c->have_params)
		return 0;
	strtab t;
	sv_strtab_init(&t);
	double *sum[2] = { NULL, NULL };
	size_t cap = 0;
	const char **first = NULL; /* a borrowed copy of each name, from a run view */
	int rc = 0;
	for (size_t r = 0; r < c->nruns && !rc; r++) {
		sv_view *rv = c->views[r];
		int side = r >= c->nbase;
		double w = 1.0 / (double)(side ? c->ntest : c->nbase);
		for (uint32_t b = 0; b < sv_view_byname_count(rv) && !rc; b++) {
			const sv_stats *st = sv_view_byname_stats(rv, b);
			if (st->inc == 0 && st->inc_ct == 0)
				continue;
			const char *nm = sv_view_name(rv, sv_view_byname_name(rv, b));
			uint32_t id;
			if ((rc = sv_strtab_intern(&t, &id, nm, strlen(nm))))
				break;
			if (id >= cap) {
				size_t ncap = cap ? cap * 2 : 256;
				while (ncap <= id)
					ncap *= 2;
				double *s0 = realloc(sum[0], ncap * sizeof(double)), *s1 = s0 ? realloc(sum[1], ncap * sizeof(double)) : NULL;
				if (s0)
					sum[0] = s0;
				if (s1)
					sum[1] = s1;
				const char **f = s1 ? realloc(first, ncap * sizeof(*first)) : NULL;
				if (!f) {
					rc = SV_ENOMEM;
					break;
				}
				first = f;
				for (size_t k = cap; k < ncap; k++) {
					sum[0][k] = sum[1][k] = NAN;
					first[k] = NULL;
				}
				cap = ncap;
			}
			if (isnan(sum[side][id]))
				sum[side][id] = 0;
			sum[side][id] += w * st->inc;
			if (!first[id])
				first[id] = nm;
		}
	}
	/* The programs (module, process, thread, or a frame's whole name when it has none), each
	 * weighed by its heaviest frame's mean Inc per side. */
	strtab pt;
	sv_strtab_init(&pt);
	double *pw[2] = { NULL, NULL };
	const char **pname = NULL;
	if (!rc && t.count) {
		pw[0] = malloc(t.count * sizeof(double));
		pw[1] = malloc(t.count * sizeof(double));
		pname = calloc(t.count, sizeof(*pname));
		if (!pw[0] || !pw[1] || !pname)
			rc = SV_ENOMEM;
	}
	for (uint32_t id = 0; !rc && id < t.count; id++) {
		const char *nm = first[id];
		if (!strcmp(nm, "ROOT"))
			continue;
		size_t off = 0, len = strlen(nm);
		(void)program_span(nm, &off, &len);
		uint32_t pid;
		if ((rc = sv_strtab_intern(&pt, &pid, nm + off, len)))
			break;
		if (!pname[pid]) {
			pname[pid] = sv_strtab_str(&pt, pid);
			pw[0][pid] = pw[1][pid] = NAN;
		}
		for (int side = 0; side < 2; side++)
			if (!isnan(sum[side][id]) && (isnan(pw[side][pid]) || fabs(sum[side][id]) > fabs(pw[side][pid])))
				pw[side][pid] = sum[side][id];
	}
	sv_unmatched *u = NULL;
	size_t nu = 0;
	if (!rc && pt.count) {
		u = calloc(pt.count, sizeof(*u));
		if (!u)
			rc = SV_ENOMEM;
	}
	/* the sides' mean totals: a program under min_share of them is left out */
	double total[2] = { 0, 0 };
	for (size_t r = 0; r < c->nruns; r++) {
		int side = r >= c->nbase;
		total[side] += fabs(sv_view_node_stats(c->views[r], SV_NODE_ROOT)->inc) / (double)(side ? c->ntest : c->nbase);
	}
	double floor_ = min_share * fmax(total[0], total[1]);
	for (uint32_t id = 0; !rc && id < pt.count; id++) {
		bool inb = !isnan(pw[0][id]), intest = !isnan(pw[1][id]);
		if (inb == intest || fabs(intest ? pw[1][id] : pw[0][id]) < floor_)
			continue;
		u[nu].name = pname[id];
		u[nu].inc = intest ? pw[1][id] : pw[0][id];
		u[nu].test = intest;
		nu++;
	}
	if (!rc)
		qsort(u, nu, sizeof(*u), unm_cmp);
	free(sum[0]);
	free(sum[1]);
	free(first);
	free(pw[0]);
	free(pw[1]);
	free(pname);
	sv_strtab_dispose(&t);
	if (rc) {
		free(u);
		sv_strtab_dispose(&pt);
		return rc;
	}
	/* the names live as long as the comparison's report storage */
	sv_strtab_dispose(&c->report);
	c->report = pt;
	*out = u;
	*n = nu;
	return 0;
}
