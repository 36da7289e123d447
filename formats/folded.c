/* SPDX-License-Identifier: MIT */
/* Folded stacks, reader and writer (spec/formats.md). Reading: one line per stack, frames root first separated
 * by ';', a blank, then an integer or decimal count. Each line is one sample (metric = count,
 * time 0, scale-to-data); equal stacks add up in every view. Streams through sv_lines.
 * Writing: plain display names, or FlameGraph's stackcollapse-perf.pl --all style. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export_int.h"
#include "stackview/formats.h"
#include "sv/array.h"

/* The count at the end of a line: its start, or NULL. */
static const char *count_start(const char *line, size_t n, double *value)
{
	size_t e = n;
	while (e > 0 && (line[e - 1] == ' ' || line[e - 1] == '\t'))
		e--;
	size_t b = e;
	while (b > 0 && (isdigit((unsigned char)line[b - 1]) || line[b - 1] == '.'))
		b--;
	if (b == e || (b > 0 && line[b - 1] != ' ' && line[b - 1] != '\t'))
		return NULL;
	char buf[400]; /* a double's plain digits fit (1e308 has 309) */
	if (e - b >= sizeof(buf))
		return NULL;
	memcpy(buf, line + b, e - b);
	buf[e - b] = '\0';
	char *end;
	errno = 0;
	double v = strtod(buf, &end);
	if (*end || errno || !isfinite(v) || strchr(buf, '.') != strrchr(buf, '.'))
		return NULL;
	*value = v;
	return line + b;
}

static int folded_import(sv_sink *sink, const sv_input *in, const sv_import_opts *opts, sv_error *err)
{
	(void)opts;
	sv_lines lr;
	int rc = sv_lines_init(&lr, in);
	if (rc)
		return sv_error_set(err, rc, NULL);
	if (sink->ops->set_scaling)
		sink->ops->set_scaling(sink->self, SV_SCALING_DATA);
	for (;;) {
		const char *line;
		size_t n;
		int got = sv_lines_next(&lr, &line, &n, err);
		if (got <= 0) {
			rc = got;
			break;
		}
		if (lr.line == 1 && n >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) {
			line += 3;
			n -= 3;
		}
		size_t k = 0;
		while (k < n && isspace((unsigned char)line[k]))
			k++;
		if (k == n)
			continue;
		double count;
		const char *cs = count_start(line, n, &count);
		if (!cs) {
			rc = sv_error_set(err, SV_EFORMAT, "expected 'frame;frame;... COUNT'");
			sv_error_locate(err, in->name, lr.line, -1);
			break;
		}
		/* Frames: the text before the count, split on ';' (empty parts are skipped). */
		const char *p = line, *end = cs;
		while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		sv_stack_id st = SV_STACK_NONE;
		size_t depth = 0;
		while (p < end && !rc) {
			const char *semi = memchr(p, ';', (size_t)(end - p));
			const char *fe = semi ? semi : end;
			if (fe > p) {
				sv_frame_id f;
				if (++depth > SV_MAX_STACK_DEPTH)
					rc = SV_ELIMIT;
				else if (!(rc = sink->ops->intern_frame(sink->self, &f, p, (size_t)(fe - p))))
					rc = sink->ops->intern_stack(sink->self, &st, st, f);
			}
			p = semi ? semi + 1 : end;
		}
		if (!rc)
			rc = sink->ops->add_sample(sink->self, st, 0, count, 1);
		if (rc) {
			sv_error_set(err, rc, "%s", rc == SV_ELIMIT ? "stack too deep or frame name too long" : sv_status_str(rc));
			sv_error_locate(err, in->name, lr.line, -1);
			break;
		}
	}
	sv_lines_dispose(&lr);
	return rc;
}

/* The first line that is not blank is "frame;frame... COUNT" (a ';' makes it folded at
 * once, so a bad later line gets a line-numbered error), or the first lines (up to 8) all
 * read as single-frame "frame COUNT" lines. */
static bool folded_probe(const unsigned char *d, size_t n)
{
	const char *p = (const char *)d, *end = p + (n < 65536 ? n : 65536);
	int lines = 0;
	bool semi = false;
	while (p < end && lines < 8) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl && end != (const char *)d + n)
			break; /* a cut line at the probe window's end */
		const char *le = nl ? nl : end;
		size_t len = (size_t)(le - p);
		if (len && p[len - 1] == '\r')
			len--;
		if (len) {
			double c;
			if (isspace((unsigned char)p[0]) || !count_start(p, len, &c))
				return false;
			semi = semi || memchr(p, ';', len);
			if (semi)
				return true;
			lines++;
		}
		p = nl ? nl + 1 : end;
	}
	return lines > 0;
}

static const char *const folded_patterns[] = { ".folded", ".collapsed", ".folded.txt", NULL };

const sv_format sv_fmt_folded = {
	.name = "folded", .patterns = folded_patterns, .probe = folded_probe, .import = folded_import, .streams = true,
	.export = sv_fmt_folded_export,
};

/* ---- writer ---- */

typedef struct line {
	char *text;
	double metric;
} line;

/* A count as a plain decimal that reads back to the same double (folded readers, ours and
 * FlameGraph's, take no exponents): 1e+63 as its digits, 3e-06 as 0.000003. */
static void put_plain(FILE *f, double d)
{
	if (d == 0)
		d = 0; /* no "-0" */
	char buf[400];
	int prec = d == trunc(d) ? 0 : 15 - (int)floor(log10(fabs(d)));
	if (prec < 0)
		prec = 0;
	for (; prec <= 340; prec++) {
		snprintf(buf, sizeof(buf), "%.*f", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	if (strchr(buf, '.')) { /* trailing zeros say nothing */
		size_t n = strlen(buf);
		while (buf[n - 1] == '0')
			buf[--n] = '\0';
		if (buf[n - 1] == '.')
			buf[n - 1] = '\0';
	}
	fputs(buf, f);
}

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
	const char *fmt = sv_source_format(src);
	double scale = fg && sv_source_scaling(src) == SV_SCALING_TIME && (!strcmp(fmt, "perf-script") || !strcmp(fmt, "perf-data"))
			       ? 1e6
			       : 1;
	/* What folded stacks cannot hold is refused, so that whatever is written reads back:
	 * negative counts (a diff) and a profile with no stack at all. */
	size_t written = 0;
	for (size_t i = 0; i < nlines && !ferror(f); i++) { /* a failed write (or a held signal) stops */
		if (i + 1 < nlines && strcmp(lines[i].text, lines[i + 1].text) == 0) {
			lines[i + 1].metric += lines[i].metric;
			continue;
		}
		double m = scale == 1 ? lines[i].metric : round(lines[i].metric * scale);
		if (m < 0 || !isfinite(m)) {
			rc = sv_error_set(err, SV_EUNSUPPORTED,
					  "folded stacks cannot hold a %s count (a diff?): write .perfView.xml instead",
					  m < 0 ? "negative" : "non-finite");
			goto out;
		}
		fputs(lines[i].text, f);
		fputc(' ', f);
		put_plain(f, m);
		fputc('\n', f);
		written++;
	}
	if (!written) {
		rc = sv_error_set(err, SV_EUNSUPPORTED, "no sample with a stack to write: folded stacks cannot hold an empty profile");
		goto out;
	}
	rc = sv_write_check(f, err);
out:
	for (size_t i = 0; i < nlines; i++)
		free(lines[i].text);
	free(lines);
	free(path);
	free(sum);
	free(seen);
	return rc;
}
