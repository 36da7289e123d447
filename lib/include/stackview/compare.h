/* SPDX-License-Identifier: MIT */
/* Comparing several runs per side (docs/diff.md "Several runs a side"): each run's
 * surviving samples with names aligned across builds, the diff of the two sides' means, and
 * per row the base and test means, the difference, its 95 % confidence interval (Student's t,
 * pooled variance; Welch's on request)
 * and whether the change is significant. With one run per side the diff is sv_diff's.
 *
 * Ownership: sv_compare_new copies what it needs from the input views (they may be freed
 * afterwards) and returns an object the caller frees with sv_compare_free. Sources from
 * sv_compare_diff_source are the caller's. Names returned by the report functions are
 * borrowed from the comparison. Per-row statistics are written into caller storage. */
#ifndef STACKVIEW_COMPARE_H
#define STACKVIEW_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "stackview/aggview.h"
#include "stackview/params.h"
#include "stackview/rows.h"
#include "stackview/source.h"
#include "stackview/status.h"
#include "stackview/view.h"

typedef struct sv_compare sv_compare;

typedef struct sv_compare_opts {
	/* `OLD=>NEW` entries separated by `;` (PerfView patterns, `$1` in NEW): a frame whose
	 * name matches OLD is renamed on both sides before anything is compared. NULL = none. */
	const char *match;
	/* Align modules, processes and threads whose names differ only by a version or hash
	 * suffix (libfoo.so.1.2 / libfoo.so.1.3, app-3f2a / app-91c0): the test side takes the
	 * base side's name. */
	bool auto_match;
	/* Welch's t (each side its own variance) instead of Student's t with the pooled variance. */
	bool welch;
} sv_compare_opts;

/* Runs: views[0 .. nbase) are the base runs, views[nbase .. nbase + ntest) the test runs,
 * each already filtered (only which samples survive matters, as for sv_diff). nbase and
 * ntest >= 1. SV_EINVAL (err says why) for a --match entry without `=>` or with an invalid
 * pattern; SV_ENOMEM. */
SV_API int sv_compare_new(sv_compare **out, sv_view *const *views, size_t nbase, size_t ntest,
			  const sv_compare_opts *opts, sv_error *err) SV_MUST_USE;
SV_API void sv_compare_free(sv_compare *c);
SV_API size_t sv_compare_runs(const sv_compare *c, bool test);

/* The diff of the means: every test run's samples with metric and count divided by ntest,
 * every base run's negated and divided by nbase, names aligned. With one run per side, the
 * samples of sv_diff. */
SV_API int sv_compare_diff_source(sv_source **out, const sv_compare *c) SV_MUST_USE;
/* The mean of one side's runs as a source (metric and count divided by the number of runs):
 * what Overweight compares. */
SV_API int sv_compare_mean_source(sv_source **out, const sv_compare *c, bool test) SV_MUST_USE;

/* The filter every run is seen through (the diff view's; Fold% is ignored: it only hides
 * rows). The runs' views are built again only when the parameters changed. SV_EINVAL for
 * bad parameters, SV_ENOMEM. */
SV_API int sv_compare_set_params(sv_compare *c, const sv_params *p, sv_error *err) SV_MUST_USE;

/* One row compared. Values are the rows' Inc (tree rows and ByName alike) per run, in the
 * metric's unit; the means are over the runs of a side, a run without the row counting 0. */
typedef struct sv_cmpstat {
	double base, test; /* means */
	double base_sd, test_sd; /* sample standard deviations (0 with one run) */
	double delta;      /* test - base */
	double lo, hi;     /* 95 % confidence interval of delta; NaN when it cannot be computed */
	double p;          /* two-sided p value; NaN when it cannot be computed */
	int sig;           /* +1 grew, -1 shrank significantly (the interval excludes 0), else 0 */
} sv_cmpstat;

/* The two-sample t interval for per-run values (pure arithmetic, exposed for tests): fills
 * every field of out. Student's t with the pooled variance (df = nbase + ntest - 2; with one
 * run on a side the other side's spread stands for both), or with `welch` and two runs a side
 * or more, Welch's t (Welch-Satterthwaite df). One run on each side: no interval. */
SV_API void sv_compare_stats(sv_cmpstat *out, const double *base, size_t nbase, const double *test, size_t ntest,
			     bool welch);
/* The quantile of Student's t distribution with df degrees of freedom (df > 0, 0 < p < 1). */
SV_API double sv_student_t_quantile(double p, double df);

/* Attach statistics to rows of v (a view built with the same parameters as the last
 * sv_compare_set_params, on sv_compare_diff_source's source) and to the Callers / Callees tree
 * or Caller-Callee they came from: afterwards rows->row[i].cmp points into storage the rows
 * own (sv_rows_dispose frees it). Rows are matched to each run by their path of names from the
 * top (call tree: from ROOT; Callers / Callees: from the focus), ByName rows by name. */
SV_API int sv_compare_rows(sv_compare *c, sv_view *v, sv_rows *rows) SV_MUST_USE;

/* What did not line up: programs — modules (before '!'), processes, threads, and names that
 * are no frame of a module — found on one side only (after matching, through the current
 * parameters), each weighed by its heaviest frame's mean Inc, the heaviest first; those
 * under min_share (0.01 = 1 %) of the larger side's mean total are left out. A function seen
 * in one side's samples only is sampling, not a rename, and is not reported. *out is the
 * caller's (free); names stay valid until the next call or sv_compare_free. */
typedef struct sv_unmatched {
	const char *name;
	double inc; /* mean over the side's runs */
	bool test;  /* only in the test runs (else only in the base runs) */
} sv_unmatched;
SV_API int sv_compare_unmatched(sv_compare *c, double min_share, sv_unmatched **out, size_t *n) SV_MUST_USE;

/* What automatic matching aligned: test-side names taken as base-side names. */
SV_API size_t sv_compare_alias_count(const sv_compare *c);
SV_API void sv_compare_alias(const sv_compare *c, size_t i, const char **test_name, const char **base_name);
/* A test-side frame name as the base side names it, its program aliased as the comparison
 * does: a new string (the caller frees it), or NULL when no alias applies to it. */
SV_API char *sv_compare_alias_name(const sv_compare *c, const char *name);

#endif
