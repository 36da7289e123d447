/* SPDX-License-Identifier: MIT */
/* Engine benchmark: load a profile, then re-apply changed GroupPats / FoldPats / IncPats and
 * rebuild the call tree and ByName, on all samples and on the first half (for linearity).
 * Reports ms per refilter, ms per million samples and memory per sample.
 * usage: engine FILE.perfView.xml [REPEATS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench_util.h"
#include "stackview/formats.h"
#include "stackview/view.h"
#include "stackview/when.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static const char *const configs[][4] = {
	/* name, GroupPats, FoldPats, IncPats */
	{ "no patterns", "", "", "" },
	{ "group module entries", "[group module entries] {%}!=>module $1", "", "" },
	{ "group modules + fold", "[group modules] {%}!->module $1", "module libc.so.6;Wait", "" },
	{ "inc one process", "", "", "Process% server-3" },
	{ "fold% 1", "", "Spin", "" },
};

/* Best of `reps` view builds; returns ms. */
static double refilter(const sv_source *src, int c, int reps, double *filter_ms, double *tree_ms)
{
	double best = 1e30;
	for (int r = 0; r < reps; r++) {
		sv_params p;
		if (sv_params_init(&p))
			exit(1);
		if (sv_params_set(&p, SV_BOX_GROUP, configs[c][1]) || sv_params_set(&p, SV_BOX_FOLD, configs[c][2]) ||
		    sv_params_set(&p, SV_BOX_INC, configs[c][3]) || (c == 4 && sv_params_set(&p, SV_BOX_FOLD_PCT, "1")))
			exit(1);
		sv_view *v;
		sv_error err;
		double t0 = now_ms();
		if (sv_view_new(&v, src, &p, &err)) {
			fprintf(stderr, "engine: %s\n", err.msg);
			exit(1);
		}
		double t = now_ms() - t0;
		if (t < best) {
			best = t;
			sv_view_timing(v, filter_ms, tree_ms);
		}
		sv_view_free(v);
		sv_params_dispose(&p);
	}
	return best;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: engine FILE [REPEATS]\n");
		return 2;
	}
	int reps = argc > 2 ? atoi(argv[2]) : 5;
	sv_source *src;
	sv_error err;
	sv_error_clear(&err);
	double t0 = now_ms();
	if (sv_load(&src, argv[1], NULL, &err)) {
		fprintf(stderr, "engine: %s\n", err.msg);
		return 1;
	}
	double load = now_ms() - t0;
	size_t n = sv_source_sample_count(src);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("load: %zu samples, %u stacks, %u frames in %.0f ms (%.2f M samples/s)\n", n, sv_source_stack_count(src),
	       sv_source_frame_count(src), load, (double)n / load / 1e3);
	printf("memory: source %.1f MB = %.1f bytes/sample (sample arrays 24 B/sample, rest frames/stacks/text); "
	       "peak RSS %.0f MB\n",
	       (double)sv_source_memory(src) / 1e6, (double)sv_source_memory(src) / (double)n,
	       (double)ru.ru_maxrss / 1024.0);
	sv_source *half = bench_prefix(src, n / 2);
	printf("%-24s %12s %12s %10s %10s %14s %8s\n", "refilter (best of reps)", "all ms", "half ms", "filter", "tree",
	       "ms per 1M smp", "ratio");
	for (int c = 0; c < (int)(sizeof(configs) / sizeof(configs[0])); c++) {
		double f, t, fh, th;
		double all = refilter(src, c, reps, &f, &t);
		double h = refilter(half, c, reps, &fh, &th);
		printf("%-24s %12.1f %12.1f %10.1f %10.1f %14.1f %8.2f\n", configs[c][0], all, h, f, t,
		       all / ((double)n / 1e6), all / h);
	}
	/* the TUI's zoom: a new time range from the current view (sv_view_new_like) */
	{
		sv_params p, q;
		sv_view *base, *v;
		char end[32];
		snprintf(end, sizeof(end), "%g", sv_source_sample_times(src)[n / 2]);
		if (sv_params_init(&p) || sv_params_set(&p, SV_BOX_GROUP, configs[1][1]) || sv_view_new(&base, src, &p, &err) ||
		    sv_params_copy(&q, &p) || sv_params_set(&q, SV_BOX_END, end))
			return 1;
		double best = 1e30, fresh = 1e30;
		for (int r = 0; r < reps; r++) {
			double a = now_ms();
			if (sv_view_new_like(&v, base, &q, &err))
				return 1;
			double b = now_ms();
			sv_view_free(v);
			if (sv_view_new(&v, src, &q, &err))
				return 1;
			double c = now_ms();
			sv_view_free(v);
			best = b - a < best ? b - a : best;
			fresh = c - b < fresh ? c - b : fresh;
		}
		printf("%-24s %12.1f ms (built from scratch: %.1f ms)\n", "zoom to half (new_like)", best, fresh);
		sv_view_free(base);
		sv_params_dispose(&p);
		sv_params_dispose(&q);
	}
	/* the output phase of `byname --top 5`: what a few printed rows cost after the view */
	{
		sv_params p;
		sv_view *v;
		if (sv_params_init(&p) || sv_view_new(&v, src, &p, &err)) {
			fprintf(stderr, "engine: %s\n", err.msg);
			return 1;
		}
		double a = now_ms();
		double scale;
		if (sv_view_when_scale(&scale, v))
			return 1;
		double b = now_ms();
		char when[SV_WHEN_LEN + 1];
		uint32_t rows = sv_view_byname_count(v) < 5 ? sv_view_byname_count(v) : 5;
		for (uint32_t r = 0; r < rows; r++)
			if (sv_view_byname_when(when, v, r))
				return 1;
		double c = now_ms();
		sv_netpeak np;
		if (sv_view_net_peak(v, &np))
			return 1;
		double d = now_ms();
		printf("output of byname --top 5 (%u nodes): %.1f ms = node When histograms %.1f + ByName's %.1f + net/peak %.1f "
		       "(goal <= 10 ms)\n",
		       sv_view_node_count(v), d - a, b - a, c - b, d - c);
		sv_view_free(v);
		sv_params_dispose(&p);
	}
	sv_source_free(half);
	sv_source_free(src);
	return 0;
}
