/* SPDX-License-Identifier: MIT */
/* Engine benchmark: load a profile, then re-apply changed GroupPats / FoldPats / IncPats and
 * rebuild the call tree and ByName, on all samples and on the first half (for linearity).
 * Reports ms per refilter, ms per million samples and memory per sample.
 * usage: engine FILE.perfView.xml [REPEATS]
 *        engine --scale N: N synthetic samples (64 CPUs at 1 kHz over 400k stacks) built through
 *        the source API, then a view, its When histograms and ByName's top rows: peak memory
 *        per sample (issue 19: 100M samples in <= 16 B/sample plus the interned tables). */
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

static double rss_mb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_maxrss / 1024.0;
}

/* The memory of N samples: a source of 400k stacks (depth 10-60 over 3,000 frames), samples
 * 1/64 ms apart (64 CPUs at 1 kHz), each 1 ms of cpu-clock; then what browsing it costs. */
static int scale(size_t n)
{
	sv_source *src;
	sv_error err;
	sv_error_clear(&err);
	if (sv_source_new(&src, "synthetic"))
		return 1;
	sv_source_set_scaling(src, SV_SCALING_DATA);
	enum { NFRAMES = 3000, NSTACKS = 400000 };
	sv_frame_id fr[NFRAMES];
	for (int f = 0; f < NFRAMES; f++) {
		char name[64];
		int len = snprintf(name, sizeof(name), "module%d.so!function_%d", f % 40, f);
		if (sv_source_intern_frame(src, &fr[f], name, (size_t)len))
			return 1;
	}
	uint64_t r = 88172645463325252ull;
#define NEXT() (r ^= r << 13, r ^= r >> 7, r ^= r << 17, r)
	sv_stack_id *leaf = malloc(NSTACKS * sizeof(*leaf));
	if (!leaf)
		return 1;
	uint32_t nleaf = 0;
	while (sv_source_stack_count(src) < NSTACKS) {
		/* a new leaf below a random earlier leaf's caller chain, or a new root path */
		sv_stack_id s = nleaf && NEXT() % 8 ? leaf[NEXT() % nleaf] : SV_STACK_NONE;
		int depth = 10 + (int)(NEXT() % 51);
		for (sv_stack_id c = s; c != SV_STACK_NONE; c = sv_source_stack_caller(src, c))
			depth--;
		for (int d = 0; d < (depth > 1 ? depth : 1); d++)
			if (sv_source_intern_stack(src, &s, s, fr[NEXT() % NFRAMES]))
				return 1;
		leaf[nleaf++] = s;
	}
	double before = rss_mb(), t0 = now_ms();
	for (size_t i = 0; i < n; i++) {
		uint64_t x = NEXT() % nleaf;
		sv_stack_id s = leaf[(x * x) % nleaf]; /* some stacks far more often than others */
		if (sv_source_add_sample(src, s, (double)i / 64.0, 1.0, 1.0))
			return 1;
	}
#undef NEXT
	double t1 = now_ms(), loaded = rss_mb();
	printf("scale: %zu samples over %u stacks added in %.0f ms; RSS %.0f MB before the samples, %.0f MB after = %.1f "
	       "B/sample\n",
	       n, sv_source_stack_count(src), t1 - t0, before, loaded, (loaded - before) * 1048576.0 / (double)n);
	sv_params p;
	sv_view *v;
	if (sv_params_init(&p) || sv_view_new(&v, src, &p, &err)) {
		fprintf(stderr, "engine: %s\n", err.msg);
		return 1;
	}
	double t2 = now_ms(), scl;
	char when[SV_WHEN_LEN + 1];
	if (sv_view_when_scale(&scl, v))
		return 1;
	for (uint32_t k = 0; k < 5 && k < sv_view_byname_count(v); k++)
		if (sv_view_byname_when(when, v, k))
			return 1;
	double t3 = now_ms(), peak = rss_mb();
	printf("scale: view %.0f ms, When + ByName top 5 %.0f ms; peak RSS %.0f MB = %.1f B/sample beyond the stacks "
	       "(goal <= 16)\n",
	       t2 - t1, t3 - t2, peak, (peak - before) * 1048576.0 / (double)n);
	sv_view_free(v);
	/* what the terminal UI does once after loading: every later view adds stacks, not samples */
	double t4 = now_ms();
	if (sv_source_sum_stacks(src))
		return 1;
	double t5 = now_ms();
	if (sv_view_new(&v, src, &p, &err))
		return 1;
	double t6 = now_ms(), peak2 = rss_mb();
	printf("scale: the stacks' sums %.0f ms (once; %s), then a view %.0f ms; peak RSS %.0f MB = %.1f B/sample\n", t5 - t4,
	       sv_source_stack_sums(src) ? "kept" : "not to be had", t6 - t5, peak2,
	       (peak2 - before) * 1048576.0 / (double)n);
	sv_view_free(v);
	sv_params_dispose(&p);
	sv_source_free(src);
	free(leaf);
	return 0;
}

int main(int argc, char **argv)
{
	bench_heap_like_cli();
	if (argc > 2 && !strcmp(argv[1], "--scale"))
		return scale((size_t)strtod(argv[2], NULL));
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
	printf("memory: source %.1f MB = %.1f bytes/sample (sample arrays %d B/sample, rest frames/stacks/text); "
	       "peak RSS %.0f MB\n",
	       (double)sv_source_memory(src) / 1e6, (double)sv_source_memory(src) / (double)n,
	       sv_source_samples(src).code ? 14 : 24, (double)ru.ru_maxrss / 1024.0);
	sv_source *half = bench_prefix(src, n / 2);
	for (int sums = 0; sums < 2; sums++) {
		if (sums) {
			/* what the terminal UI does once after loading */
			double a = now_ms();
			if (sv_source_sum_stacks(src) || sv_source_sum_stacks(half))
				return 1;
			printf("with the stacks' sums, as the terminal UI keeps them (%s; built once in %.0f ms):\n",
			       sv_source_stack_sums(src) ? "kept" : "not to be had here: the same figures", now_ms() - a);
		}
		printf("%-24s %12s %12s %10s %10s %14s %8s\n", "refilter (best of reps)", "all ms", "half ms", "filter",
		       "tree", "ms per 1M smp", "ratio");
		for (int c = 0; c < (int)(sizeof(configs) / sizeof(configs[0])); c++) {
			double f, t, fh, th;
			double all = refilter(src, c, reps, &f, &t);
			double h = refilter(half, c, reps, &fh, &th);
			printf("%-24s %12.1f %12.1f %10.1f %10.1f %14.1f %8.2f\n", configs[c][0], all, h, f, t,
			       all / ((double)n / 1e6), all / h);
		}
	}
	/* the TUI's zoom (a new time range) and an IncPats edit (the heaviest function typed in)
	 * from the current grouped view (sv_view_new_like), beside the same views from scratch */
	for (int kind = 0; kind < 2; kind++) {
		sv_params p, q;
		sv_view *base, *v;
		char end[32];
		sv_samples all = sv_source_samples(src);
		snprintf(end, sizeof(end), "%g", sv_sample_time(&all, n / 2));
		if (sv_params_init(&p) || sv_params_set(&p, SV_BOX_GROUP, configs[1][1]) || sv_view_new(&base, src, &p, &err) ||
		    sv_params_copy(&q, &p))
			return 1;
		char inc[512] = "";
		if (kind == 1 && sv_view_byname_count(base)) {
			const char *top = sv_view_name(base, sv_view_byname_name(base, 0));
			const char *in = strstr(top, "<<"); /* an entry group's function */
			snprintf(inc, sizeof(inc), "%s", in ? in + 2 : top);
			char *gt = strstr(inc, ">>");
			if (gt)
				*gt = '\0';
		}
		if (kind == 0 ? sv_params_set(&q, SV_BOX_END, end) : sv_params_set(&q, SV_BOX_INC, inc))
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
		printf("%-24s %12.1f ms (built from scratch: %.1f ms)%s%s\n", kind == 0 ? "zoom to half (new_like)" : "IncPats edit (new_like)",
		       best, fresh, kind == 1 ? ": IncPats " : "", inc);
		sv_view_free(base);
		sv_params_dispose(&p);
		sv_params_dispose(&q);
	}
	/* the output phase of `byname --top 5`: what a few printed rows cost after the view
	 * (best of reps, each on a fresh view) */
	{
		sv_params p;
		if (sv_params_init(&p))
			return 1;
		double best[4] = {1e300, 0, 0, 0};
		uint32_t nodes = 0;
		for (int r = 0; r < reps; r++) {
			sv_view *v;
			if (sv_view_new(&v, src, &p, &err)) {
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
			for (uint32_t k = 0; k < rows; k++)
				if (sv_view_byname_when(when, v, k))
					return 1;
			double c = now_ms();
			sv_netpeak np;
			if (sv_view_net_peak(v, &np))
				return 1;
			double d = now_ms();
			if (d - a < best[0])
				best[0] = d - a, best[1] = b - a, best[2] = c - b, best[3] = d - c;
			nodes = sv_view_node_count(v);
			sv_view_free(v);
		}
		printf("output of byname --top 5 (%u nodes, best of reps): %.1f ms = node When histograms %.1f + ByName's %.1f + "
		       "net/peak %.1f (goal <= 10 ms)\n",
		       nodes, best[0], best[1], best[2], best[3]);
		sv_params_dispose(&p);
	}
	sv_source_free(half);
	sv_source_free(src);
	return 0;
}
