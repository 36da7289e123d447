/* SPDX-License-Identifier: MIT */
/* Several runs per side (stackview/compare.h): the statistics — Student's t and Welch's test
 * on each row's per-run values. */
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
#include "compare_int.h"

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
