/* SPDX-License-Identifier: MIT */
/* .perfView.xml writer: the advanced form with its GUI state (D9). */
#include <ctype.h>
#include <errno.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sv/idmap.h"
#include "core/export_int.h"
#include "stackview/formats.h"
#include "sv/array.h"
#include "perfview_xml_int.h"

/* ---- PerfView XML ---- */

static const struct {
	const char *elem;
	sv_box box;
} gui_boxes[] = {
	{ "Start", SV_BOX_START },         { "End", SV_BOX_END },         { "GroupRegEx", SV_BOX_GROUP },
	{ "FoldPercent", SV_BOX_FOLD_PCT }, { "FoldRegEx", SV_BOX_FOLD }, { "IncludeRegEx", SV_BOX_INC },
	{ "ExcludeRegEx", SV_BOX_EXC },
};

int sv_fmt_perfview_xml_export(FILE *f, const sv_source *src, const sv_export_opts *opts, sv_error *err)
{
	(void)opts;
	uint32_t nf = sv_source_frame_count(src), nst = sv_source_stack_count(src);
	size_t ns = sv_source_sample_count(src);
	fputs("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<StackWindow>\n <StackSource>\n", f);
	/* Frames start at 4, after PerfView's pseudo frames (§10.2; D7 keeps ids ordinary). */
	fprintf(f, "  <Frames Count=\"%u\">\n", nf + 4);
	fputs("   <Frame ID=\"0\">ROOT</Frame>\n   <Frame ID=\"1\">BROKEN</Frame>\n"
	      "   <Frame ID=\"2\">?!?</Frame>\n   <Frame ID=\"3\">OVERHEAD</Frame>\n",
	      f);
	for (uint32_t i = 0; i < nf && !ferror(f); i++) {
		fprintf(f, "   <Frame ID=\"%u\">", i + 4);
		sv_xml_write_text(f, sv_source_frame_name(src, i));
		fputs("</Frame>\n", f);
	}
	fprintf(f, "  </Frames>\n  <Stacks Count=\"%u\">\n", nst);
	for (uint32_t s = 0; s < nst && !ferror(f); s++) {
		sv_stack_id c = sv_source_stack_caller(src, s);
		fprintf(f, "   <Stack ID=\"%u\" CallerID=\"%lld\" FrameID=\"%u\" />\n", s,
			c == SV_STACK_NONE ? -1LL : (long long)c, sv_source_stack_frame(src, s) + 4);
	}
	fprintf(f, "  </Stacks>\n  <Samples Count=\"%zu\">\n", ns);
	const sv_stack_id *stk = sv_source_sample_stacks(src);
	sv_samples smp = sv_source_samples(src);
	for (size_t i = 0; i < ns && !ferror(f); i++) { /* a failed write (or a held signal) stops */
		fprintf(f, "   <Sample ID=\"%zu\" Time=\"", i);
		sv_write_num(f, sv_sample_time(&smp, i));
		fputc('"', f);
		if (stk[i] != SV_STACK_NONE)
			fprintf(f, " StackID=\"%u\"", stk[i]);
		if (sv_sample_metric(&smp, i) != 1) {
			fputs(" Metric=\"", f);
			sv_write_num(f, sv_sample_metric(&smp, i));
			fputc('"', f);
		}
		fputs(" />\n", f);
	}
	fputs("  </Samples>\n </StackSource>\n <StackWindowGuiState>\n", f);
	const sv_params *p = sv_source_saved_params(src);
	if (p) {
		fputs("  <FilterGuiState>\n", f);
		for (size_t b = 0; b < sizeof(gui_boxes) / sizeof(gui_boxes[0]); b++) {
			fprintf(f, "   <%s><Value>", gui_boxes[b].elem);
			sv_xml_write_text(f, sv_params_get(p, gui_boxes[b].box));
			fprintf(f, "</Value></%s>\n", gui_boxes[b].elem);
		}
		fputs("  </FilterGuiState>\n", f);
	}
	fputs("  <Notes>", f);
	sv_xml_write_text(f, sv_source_notes(src));
	fprintf(f, "</Notes>\n  <ScalingPolicy>%s</ScalingPolicy>\n </StackWindowGuiState>\n</StackWindow>\n",
		sv_source_scaling(src) == SV_SCALING_TIME ? "TimeMetric" : "ScaleToData");
	return sv_write_check(f, err);
}

/* ---- PerfView JSON ---- */
