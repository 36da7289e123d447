/* SPDX-License-Identifier: MIT */
/* Folded stacks importer (spec/formats.md): one line per stack, frames root first separated
 * by ';', a blank, then an integer or decimal count. Each line is one sample (metric = count,
 * time 0, scale-to-data); equal stacks add up in every view. Streams through sv_lines. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export_int.h"
#include "stackview/formats.h"

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
	char buf[64];
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

const sv_format sv_fmt_folded = { "folded", folded_patterns, folded_probe, folded_import, true, sv_fmt_folded_export };
