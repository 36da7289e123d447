/* SPDX-License-Identifier: MIT */
/* Writers: PerfView XML (the advanced form of semantics §10.2 with its GUI state, D9),
 * PerfView JSON (§10.4) and folded stacks (formats.md). Output is always well formed:
 * names are escaped, invalid UTF-8 and characters XML cannot carry become U+FFFD. Numbers
 * are written with the fewest digits that read back to the same double, so totals survive a
 * round trip exactly. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_int.h"
#include "sv/utf8.h"
#include "sv/array.h"

static void put_num(FILE *f, double d)
{
	char buf[64];
	if (d == 0)
		d = 0;
	if (d == trunc(d) && fabs(d) < 1e15) {
		fprintf(f, "%.0f", d);
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	fputs(buf, f);
}

/* Text for XML content or attribute values. */
static void put_xml(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	while (*s) {
		unsigned char c = *s;
		switch (c) {
		case '&': fputs("&amp;", f); s++; continue;
		case '<': fputs("&lt;", f); s++; continue;
		case '>': fputs("&gt;", f); s++; continue;
		case '"': fputs("&quot;", f); s++; continue;
		case '\t': fputs("&#9;", f); s++; continue;
		case '\n': fputs("&#10;", f); s++; continue;
		case '\r': fputs("&#13;", f); s++; continue;
		default: break;
		}
		int n = c < 0x20 || c == 0x7f ? 0 : sv_utf8_len(s);
		if (n == 0) {
			fputs("\xEF\xBF\xBD", f); /* U+FFFD */
			s++;
			continue;
		}
		/* U+FFFE and U+FFFF are not XML characters either. */
		if (n == 3 && s[0] == 0xEF && s[1] == 0xBF && (s[2] == 0xBE || s[2] == 0xBF)) {
			fputs("\xEF\xBF\xBD", f);
			s += 3;
			continue;
		}
		fwrite(s, 1, (size_t)n, f);
		s += n;
	}
}

void sv_json_write_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	fputc('"', f);
	while (*s) {
		unsigned char c = *s;
		if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc(c, f);
			s++;
		} else if (c < 0x20 || c == 0x7f) {
			switch (c) {
			case '\n': fputs("\\n", f); break;
			case '\t': fputs("\\t", f); break;
			case '\r': fputs("\\r", f); break;
			default: fprintf(f, "\\u%04x", c);
			}
			s++;
		} else {
			int n = sv_utf8_len(s);
			if (n == 0) {
				fputs("\\ufffd", f);
				s++;
			} else {
				fwrite(s, 1, (size_t)n, f);
				s += n;
			}
		}
	}
	fputc('"', f);
}

static int check(FILE *f, sv_error *err)
{
	return ferror(f) ? sv_error_set(err, SV_EIO, "writing failed") : 0;
}

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
	for (uint32_t i = 0; i < nf; i++) {
		fprintf(f, "   <Frame ID=\"%u\">", i + 4);
		put_xml(f, sv_source_frame_name(src, i));
		fputs("</Frame>\n", f);
	}
	fprintf(f, "  </Frames>\n  <Stacks Count=\"%u\">\n", nst);
	for (uint32_t s = 0; s < nst; s++) {
		sv_stack_id c = sv_source_stack_caller(src, s);
		fprintf(f, "   <Stack ID=\"%u\" CallerID=\"%lld\" FrameID=\"%u\" />\n", s,
			c == SV_STACK_NONE ? -1LL : (long long)c, sv_source_stack_frame(src, s) + 4);
	}
	fprintf(f, "  </Stacks>\n  <Samples Count=\"%zu\">\n", ns);
	const sv_stack_id *stk = sv_source_sample_stacks(src);
	const double *tim = sv_source_sample_times(src), *met = sv_source_sample_metrics(src);
	for (size_t i = 0; i < ns; i++) {
		fprintf(f, "   <Sample ID=\"%zu\" Time=\"", i);
		put_num(f, tim[i]);
		fputc('"', f);
		if (stk[i] != SV_STACK_NONE)
			fprintf(f, " StackID=\"%u\"", stk[i]);
		if (met[i] != 1) {
			fputs(" Metric=\"", f);
			put_num(f, met[i]);
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
			put_xml(f, sv_params_get(p, gui_boxes[b].box));
			fprintf(f, "</Value></%s>\n", gui_boxes[b].elem);
		}
		fputs("  </FilterGuiState>\n", f);
	}
	fputs("  <Notes>", f);
	put_xml(f, sv_source_notes(src));
	fprintf(f, "</Notes>\n  <ScalingPolicy>%s</ScalingPolicy>\n </StackWindowGuiState>\n</StackWindow>\n",
		sv_source_scaling(src) == SV_SCALING_TIME ? "TimeMetric" : "ScaleToData");
	return check(f, err);
}

/* ---- PerfView JSON ---- */

int sv_fmt_perfview_json_export(FILE *f, const sv_source *src, const sv_export_opts *opts, sv_error *err)
{
	(void)opts;
	size_t ns = sv_source_sample_count(src);
	const sv_stack_id *stk = sv_source_sample_stacks(src);
	const double *tim = sv_source_sample_times(src), *met = sv_source_sample_metrics(src);
	fputs("{ \"StackSource\": { \"Samples\": [\n", f);
	for (size_t i = 0; i < ns; i++) {
		fputs(i ? ",\n  { \"Time\": " : "  { \"Time\": ", f);
		put_num(f, tim[i]);
		fputs(", \"Metric\": ", f);
		put_num(f, met[i]);
		fputs(", \"Stack\": [", f);
		int k = 0;
		for (sv_stack_id s = stk[i]; s != SV_STACK_NONE; s = sv_source_stack_caller(src, s)) {
			if (k++)
				fputs(", ", f);
			sv_json_write_string(f, sv_source_frame_name(src, sv_source_stack_frame(src, s)));
		}
		fputs("] }", f);
	}
	fputs("\n] } }\n", f);
	return check(f, err);
}

/* ---- folded ---- */

typedef struct line {
	char *text;
	double metric;
} line;

static int line_cmp(const void *a, const void *b)
{
	return strcmp(((const line *)a)->text, ((const line *)b)->text);
}

/* A folded frame: ';' would split it and a newline would end the line. */
static void folded_clean(char *s)
{
	for (; *s; s++)
		if (*s == ';')
			*s = ':';
		else if (*s == '\n' || *s == '\r')
			*s = ' ';
}

static bool kernel_module(const char *m, size_t n)
{
	return (n == 15 && memcmp(m, "kernel.kallsyms", 15) == 0) || (n > 3 && memcmp(m + n - 3, ".ko", 3) == 0) ||
	       (n >= 7 && memcmp(m, "vmlinux", 7) == 0);
}

static bool jit_module(const char *m, size_t n)
{
	return n > 9 && memcmp(m, "perf-", 5) == 0 && memcmp(m + n - 4, ".map", 4) == 0;
}

/* One frame as stackcollapse-perf.pl --all shows it (perf sources): the symbol without the
 * module, with _[k] for kernel and _[j] for JIT frames; thread frames are dropped and the
 * process frame becomes its comm. Returns false to drop the frame. */
static bool flamegraph_name(char *out, size_t size, const char *name, bool rootmost)
{
	if (rootmost && strncmp(name, "Process ", 8) == 0) {
		const char *e = strrchr(name, '(');
		size_t n = e && e > name + 8 ? (size_t)(e - name - 9) : strlen(name + 8);
		snprintf(out, size, "%.*s", (int)n, name + 8);
		for (char *p = out; *p; p++)
			if (*p == ' ')
				*p = '_';
		return true;
	}
	if (strncmp(name, "Thread (", 8) == 0)
		return false;
	const char *bang = strchr(name, '!');
	if (!bang) {
		snprintf(out, size, "%s", name);
		return true;
	}
	size_t mlen = (size_t)(bang - name);
	const char *sym = bang + 1;
	if (strcmp(sym, "unknown") == 0) {
		snprintf(out, size, mlen && strncmp(name, "unknown", mlen) ? "[%.*s]" : "[unknown]", (int)mlen, name);
		return true;
	}
	const char *tag = kernel_module(name, mlen) ? "_[k]" : jit_module(name, mlen) ? "_[j]" : "";
	snprintf(out, size, "%s%s", sym, tag);
	return true;
}

int sv_fmt_folded_export(FILE *f, const sv_source *src, const sv_export_opts *opts, sv_error *err)
{
	bool fg = opts && opts->folded_style == SV_FOLDED_FLAMEGRAPH;
	uint32_t nst = sv_source_stack_count(src);
	size_t ns = sv_source_sample_count(src);
	double *sum = calloc((size_t)nst + 1, sizeof(*sum)); /* index nst: stackless samples */
	uint8_t *seen = calloc((size_t)nst + 1, 1);
	line *lines = NULL;
	size_t nlines = 0;
	sv_stack_id *path = NULL;
	size_t path_cap = 0;
	int rc = 0;
	if (!sum || !seen) {
		rc = sv_error_set(err, SV_ENOMEM, NULL);
		goto out;
	}
	/* Per-sample work is one addition; the text is built once per distinct stack. */
	const sv_stack_id *stk = sv_source_sample_stacks(src);
	const double *met = sv_source_sample_metrics(src);
	for (size_t i = 0; i < ns; i++) {
		uint32_t k = stk[i] == SV_STACK_NONE ? nst : stk[i];
		sum[k] += met[i];
		seen[k] = 1;
	}
	lines = calloc((size_t)nst + 1, sizeof(*lines));
	if (!lines) {
		rc = sv_error_set(err, SV_ENOMEM, NULL);
		goto out;
	}
	for (uint32_t s = 0; s <= nst; s++) {
		if (!seen[s] || s == nst)
			continue; /* a stackless sample has no frame to name: folded cannot hold it */
		size_t depth = 0;
		for (sv_stack_id x = s; x != SV_STACK_NONE; x = sv_source_stack_caller(src, x)) {
			if (SV_ARRAY_RESERVE(path, path_cap, depth + 1)) {
				rc = sv_error_set(err, SV_ENOMEM, NULL);
				goto out;
			}
			path[depth++] = x;
		}
		char *text = NULL;
		size_t tlen = 0;
		FILE *m = open_memstream(&text, &tlen);
		if (!m) {
			rc = sv_error_set(err, SV_ENOMEM, NULL);
			goto out;
		}
		bool first = true;
		for (size_t k = depth; k-- > 0;) {
			sv_frame_id fr = sv_source_stack_frame(src, path[k]);
			char name[SV_MAX_NAME_LEN + 16];
			if (fg) {
				if (!flamegraph_name(name, sizeof(name), sv_source_frame_name(src, fr), k == depth - 1))
					continue;
			} else {
				snprintf(name, sizeof(name), "%s", sv_source_frame_short(src, fr));
			}
			folded_clean(name);
			fprintf(m, "%s%s", first ? "" : ";", name);
			first = false;
		}
		if (fclose(m) != 0) {
			free(text);
			rc = sv_error_set(err, SV_ENOMEM, NULL);
			goto out;
		}
		lines[nlines++] = (line){ text, sum[s] };
	}
	/* Equal texts (e.g. thread frames dropped) add up; output sorted as stackcollapse does. */
	qsort(lines, nlines, sizeof(*lines), line_cmp);
	/* stackcollapse-perf.pl weighs by perf's period: for a time-metric perf source that is
	 * the metric in ms, back in integer ns. */
	double scale = fg && sv_source_scaling(src) == SV_SCALING_TIME && !strcmp(sv_source_format(src), "perf-script")
			       ? 1e6
			       : 1;
	for (size_t i = 0; i < nlines; i++) {
		if (i + 1 < nlines && strcmp(lines[i].text, lines[i + 1].text) == 0) {
			lines[i + 1].metric += lines[i].metric;
			continue;
		}
		fputs(lines[i].text, f);
		fputc(' ', f);
		put_num(f, scale == 1 ? lines[i].metric : round(lines[i].metric * scale));
		fputc('\n', f);
	}
	rc = check(f, err);
out:
	for (size_t i = 0; i < nlines; i++)
		free(lines[i].text);
	free(lines);
	free(path);
	free(sum);
	free(seen);
	return rc;
}

/* ---- speedscope (sampled profile) ---- */

int sv_fmt_speedscope_export(FILE *f, const sv_source *src, const sv_export_opts *opts, sv_error *err)
{
	(void)opts;
	uint32_t nf = sv_source_frame_count(src);
	size_t ns = sv_source_sample_count(src);
	/* Only frames some stack uses go into the table; indexes are assigned in frame-id order. */
	uint32_t *index = malloc(((size_t)nf + 1) * sizeof(*index));
	sv_stack_id *path = NULL;
	size_t path_cap = 0;
	int rc = 0;
	if (!index)
		return sv_error_set(err, SV_ENOMEM, NULL);
	memset(index, 0xff, ((size_t)nf + 1) * sizeof(*index));
	for (uint32_t s = 0; s < sv_source_stack_count(src); s++)
		index[sv_source_stack_frame(src, s)] = 0;
	uint32_t next = 0;
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"exporter\":\"stackview "
	      SV_VERSION "\",\"name\":", f);
	sv_json_write_string(f, sv_source_format(src));
	fputs(",\"activeProfileIndex\":0,\"shared\":{\"frames\":[", f);
	for (uint32_t i = 0; i < nf; i++) {
		if (index[i] == UINT32_MAX)
			continue;
		index[i] = next;
		fputs(next++ ? ",{\"name\":" : "{\"name\":", f);
		sv_json_write_string(f, sv_source_frame_short(src, i));
		fputc('}', f);
	}
	double total = 0;
	const double *met = sv_source_sample_metrics(src);
	for (size_t i = 0; i < ns; i++)
		total += met[i];
	bool ms = sv_source_scaling(src) == SV_SCALING_TIME;
	fprintf(f, "]},\"profiles\":[{\"type\":\"sampled\",\"name\":");
	sv_json_write_string(f, sv_source_format(src));
	fprintf(f, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":", ms ? "milliseconds" : "none");
	put_num(f, total);
	fputs(",\"samples\":[", f);
	const sv_stack_id *stk = sv_source_sample_stacks(src);
	for (size_t i = 0; i < ns && !rc; i++) {
		size_t depth = 0;
		for (sv_stack_id x = stk[i]; x != SV_STACK_NONE; x = sv_source_stack_caller(src, x)) {
			if (SV_ARRAY_RESERVE(path, path_cap, depth + 1)) {
				rc = sv_error_set(err, SV_ENOMEM, NULL);
				break;
			}
			path[depth++] = x;
		}
		fputs(i ? ",[" : "[", f);
		for (size_t k = depth; k-- > 0;)
			fprintf(f, k + 1 == depth ? "%u" : ",%u", index[sv_source_stack_frame(src, path[k])]);
		fputc(']', f);
	}
	fputs("],\"weights\":[", f);
	for (size_t i = 0; i < ns; i++) {
		if (i)
			fputc(',', f);
		put_num(f, met[i]);
	}
	fputs("]}]}\n", f);
	free(index);
	free(path);
	return rc ? rc : check(f, err);
}
