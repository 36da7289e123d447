/* SPDX-License-Identifier: MIT */
/* stackview convert: any input to any writer, streaming to .folded when nothing filters. */

#include "cli.h"
#include "stackview/derive.h"

typedef struct collapse_job {
	const sv_input *in;
	unsigned flags;
	sv_collapse_report rep;
} collapse_job;

static int write_collapsed(FILE *f, void *payload, sv_error *err)
{
	collapse_job *j = payload;
	return sv_collapse_perf_script(f, j->in, j->flags, &j->rep, err);
}

/* --folded-style flamegraph… on perf script text: stackcollapse-perf.pl's own rules on the
 * text itself, streamed. Returns -1 when the input is something else (the caller converts
 * through a view), else an exit status. */
static int convert_collapsed(const cli_opts *o, bool boxes)
{
	bool all_only = o->collapse == (SV_COLLAPSE_KERNEL | SV_COLLAPSE_JIT);
	sv_input in;
	sv_error err;
	sv_error_clear(&err);
	if (sv_input_open(&in, o->files[0], o->format != NULL, NULL, &err)) {
		cli_report(&err);
		return EXIT_INPUT;
	}
	const sv_format *fmt = o->format ? sv_format_find(o->format) : sv_format_detect(&in);
	if (fmt != &sv_fmt_perf_script || boxes) {
		sv_input_dispose(&in);
		if (all_only)
			return -1;
		fprintf(stderr, "stackview: %s: --folded-style flamegraph-... %s\n", o->files[0],
			boxes ? "collapses perf script text as it is, with no filter (use --folded-style flamegraph to filter)"
			      : "reads perf script text (perf script -i FILE | stackview convert - OUT.folded ...)");
		return EXIT_USAGE;
	}
	collapse_job j = { .in = &in, .flags = o->collapse };
	double t0 = cli_now_ms();
	int rc = cli_write_atomic(o->files[1], write_collapsed, &j, &err);
	sv_input_dispose(&in);
	if (rc) {
		cli_report(&err);
		return rc == SV_EIO || rc == SV_ECANCELED ? EXIT_OUTPUT : EXIT_INPUT;
	}
	cli_timing(o, "collapse", cli_now_ms() - t0);
	if (j.rep.filtered)
		fprintf(stderr, "stackview: note: only event %s was collapsed; %zu samples of other events were left out, as "
				"stackcollapse-perf.pl does\n",
			j.rep.event, j.rep.filtered);
	if (j.rep.unrecognized)
		fprintf(stderr, "stackview: note: %zu lines read as neither a sample nor a frame and were skipped (the first "
				"is line %ld)\n",
			j.rep.unrecognized, j.rep.first_unrecognized);
	if (j.rep.kept_last)
		fprintf(stderr, "stackview: note: the last sample had no blank line after it; it is kept "
				"(stackcollapse-perf.pl leaves it out)\n");
	if (j.rep.oneline)
		fprintf(stderr, "stackview: note: %zu samples had their one frame on the header line (perf script without "
				"-g): each is a stack of that frame (stackcollapse-perf.pl collapses none of them)\n",
			j.rep.oneline);
	return EXIT_OK;
}

/* convert IN OUT: the filtered view's samples (original or --grouped names) written in the
 * format OUT's name asks for, atomically. */
int cmd_convert(const cli_opts *o)
{
	bool zipped;
	const sv_format *of = o->format ? NULL : sv_format_for_output(o->files[1], &zipped);
	if (!o->format && !of) {
		fprintf(stderr, "stackview: %s: cannot tell the output format from the name (use .perfView.xml, "
				".perfView.json, their .zip forms, .folded, .speedscope.json, .pb.gz or .svg)\n",
			o->files[1]);
		return EXIT_USAGE;
	}
	sv_source *src = NULL, *out = NULL;
	sv_view *v = NULL;
	sv_params p = { 0 };
	sv_export_opts eo = { o->folded_flamegraph ? SV_FOLDED_FLAMEGRAPH : SV_FOLDED_PLAIN };
	bool out_zipped;
	const sv_format *outf = sv_format_for_output(o->files[1], &out_zipped);
	if (o->folded_flamegraph && outf != &sv_fmt_folded) {
		fprintf(stderr, "stackview: --folded-style is for .folded output\n");
		return EXIT_USAGE;
	}
	sv_error err;
	sv_error_clear(&err);
	int rc;
	/* Folded stacks hold no time: with no filter to apply, samples of a stack add up as
	 * they are read (memory scales with distinct stacks, not samples) and go out as they
	 * are — no view is built. A file whose saved state filters is loaded again in full. */
	bool boxes = o->grouped;
	for (int i = 0; i < SV_BOX_COUNT; i++)
		boxes = boxes || (o->box[i] && o->box[i][0]);
	if (o->folded_flamegraph && !out_zipped) {
		int crc = convert_collapsed(o, boxes);
		if (crc >= 0)
			return crc;
	}
	if (of == &sv_fmt_folded && !zipped && !boxes) {
		double t0 = cli_now_ms();
		if ((rc = cli_load_as(&src, o->files[0], o, true)))
			return rc;
		cli_timing(o, "load", cli_now_ms() - t0);
		const sv_params *saved = sv_source_saved_params(src);
		bool filtered = false;
		for (int i = 0; saved && i < SV_BOX_COUNT; i++)
			filtered = filtered || sv_params_get(saved, (sv_box)i)[0];
		if (!filtered) {
			t0 = cli_now_ms();
			rc = cli_save(src, o->files[1], &eo, &err) ? EXIT_OUTPUT : EXIT_OK;
			if (rc)
				cli_report(&err);
			else
				cli_timing(o, "output", cli_now_ms() - t0);
			sv_source_free(src);
			return rc;
		}
		sv_source_free(src);
		src = NULL;
	}
	rc = cli_open_view(o, &src, &p, &v);
	if (rc)
		return rc;
	double t0 = cli_now_ms();
	if (sv_view_export_source(&out, v, o->grouped)) {
		fprintf(stderr, "stackview: out of memory\n");
		rc = EXIT_INPUT;
		goto done;
	}
	/* --format names the input; the output's format always comes from its name here. */
	if (cli_save(out, o->files[1], &eo, &err)) {
		cli_report(&err);
		rc = EXIT_OUTPUT;
		goto done;
	}
	cli_timing(o, "output", cli_now_ms() - t0);
	rc = EXIT_OK;
done:
	sv_source_free(out);
	sv_view_free(v);
	sv_params_dispose(&p);
	sv_source_free(src);
	return rc;
}
