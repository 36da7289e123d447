/* SPDX-License-Identifier: MIT */
/* DTrace stack aggregations, as `dtrace -n 'profile-997 { @[ustack()] = count(); }'` prints
 * them (also stack(), jstack(), and keys before the stack: @[execname, ustack()]):
 *
 *               libc.so.1`__pollsys+0xa
 *               Xorg`main+0x4b9
 *                37
 *
 * A record is its key lines (text or numbers before the first frame), its frames (leaf first,
 * `module`function+offset`), and the count that ends it. Frames become `module!function`
 * (offsets dropped, as FlameGraph's stackcollapse.pl drops them; a bare address stays as it
 * is), keys become root frames in their order, and the count is the sample's metric and
 * count. dtrace's own header ("CPU ID FUNCTION:NAME" and the probe that ended the run) is
 * skipped. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackview/formats.h"
#include "sv/array.h"

typedef struct dt_line {
	size_t off, len; /* in the text buffer */
} dt_line;

typedef struct dt_ctx {
	sv_sink *sink;
	const sv_input *in;
	sv_error *err;
	char *text;      /* the record's lines, trimmed */
	size_t tlen, tcap;
	dt_line *keys, *frames;
	size_t nkeys, nframes, kcap, fcap;
} dt_ctx;

static bool all_digits(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

static int keep(dt_ctx *c, dt_line **arr, size_t *n, size_t *cap, const char *s, size_t len)
{
	if (SV_ARRAY_RESERVE(c->text, c->tcap, c->tlen + len) || SV_ARRAY_RESERVE(*arr, *cap, *n + 1))
		return SV_ENOMEM;
	memcpy(c->text + c->tlen, s, len);
	(*arr)[(*n)++] = (dt_line){ c->tlen, len };
	c->tlen += len;
	return 0;
}

/* `module`function+0x1a` -> `module!function`; a frame's offset goes, an address stays. */
static size_t frame_name(char *out, size_t size, const char *s, size_t n)
{
	size_t e = n;
	for (size_t i = n; i-- > 1;) /* "+0x…" or "+123" at the end */
		if (s[i] == '+') {
			bool off = true;
			for (size_t k = i + 1; k < n && off; k++)
				off = isxdigit((unsigned char)s[k]) || (k == i + 2 && s[k] == 'x');
			if (off && i + 1 < n)
				e = i;
			break;
		}
	const char *tick = memchr(s, '`', e);
	int w = tick ? snprintf(out, size, "%.*s!%.*s", (int)(tick - s), s, (int)(e - (size_t)(tick - s) - 1), tick + 1)
		     : snprintf(out, size, "%.*s", (int)e, s);
	return (size_t)w < size ? (size_t)w : size - 1;
}

static int emit(dt_ctx *c, double count)
{
	const sv_sink_ops *ops = c->sink->ops;
	sv_stack_id st = SV_STACK_NONE;
	char buf[8192];
	int rc = 0;
	if (c->nkeys + c->nframes > SV_MAX_STACK_DEPTH)
		return SV_ELIMIT;
	for (size_t i = 0; i < c->nkeys && !rc; i++) {
		sv_frame_id f;
		size_t n = c->keys[i].len < sizeof(buf) ? c->keys[i].len : sizeof(buf) - 1;
		memcpy(buf, c->text + c->keys[i].off, n);
		if (!(rc = ops->intern_frame(c->sink->self, &f, buf, n)))
			rc = ops->intern_stack(c->sink->self, &st, st, f);
	}
	for (size_t i = c->nframes; i-- > 0 && !rc;) {
		sv_frame_id f;
		size_t n = frame_name(buf, sizeof(buf), c->text + c->frames[i].off, c->frames[i].len);
		if (!(rc = ops->intern_frame(c->sink->self, &f, buf, n)))
			rc = ops->intern_stack(c->sink->self, &st, st, f);
	}
	if (!rc)
		rc = ops->add_sample(c->sink->self, st, 0, count, count);
	c->nkeys = c->nframes = c->tlen = 0;
	return rc;
}

static int dt_import(sv_sink *sink, const sv_input *in, const sv_import_opts *opts, sv_error *err)
{
	(void)opts;
	dt_ctx c = { .sink = sink, .in = in, .err = err };
	sv_lines lr;
	int rc = sv_lines_init(&lr, in);
	if (rc)
		return sv_error_set(err, rc, NULL);
	if (sink->ops->set_scaling)
		sink->ops->set_scaling(sink->self, SV_SCALING_DATA);
	size_t records = 0;
	bool header = false;
	long record_line = 0;
	for (;;) {
		const char *line;
		size_t n;
		int got = sv_lines_next(&lr, &line, &n, err);
		if (got <= 0) {
			rc = got;
			break;
		}
		while (n && isspace((unsigned char)line[0]))
			line++, n--;
		while (n && isspace((unsigned char)line[n - 1]))
			n--;
		if (!n)
			continue;
		if (!records && !c.nkeys && !c.nframes && n >= 4 && memcmp(line, "CPU", 3) == 0 && memmem(line, n, "FUNCTION:NAME", 13)) {
			header = true; /* "CPU ID FUNCTION:NAME", then the probe line */
			continue;
		}
		if (header) {
			header = false;
			if (memchr(line, ':', n) && isdigit((unsigned char)line[0]))
				continue;
		}
		if (!c.nkeys && !c.nframes)
			record_line = lr.line;
		if (all_digits(line, n)) {
			if (c.nframes) {
				double count = 0; /* the line is not NUL-terminated: no strtod */
				for (size_t i = 0; i < n; i++)
					count = count * 10 + (line[i] - '0');
				if ((rc = emit(&c, count))) {
					sv_error_set(err, rc, "%s", rc == SV_ELIMIT ? "stack too deep" : sv_status_str(rc));
					sv_error_locate(err, in->name, lr.line, -1);
					break;
				}
				records++;
			} else {
				rc = keep(&c, &c.keys, &c.nkeys, &c.kcap, line, n); /* a numeric key (pid, tid) */
			}
		} else if (memchr(line, '`', n) || (n > 2 && line[0] == '0' && line[1] == 'x') || c.nframes) {
			rc = keep(&c, &c.frames, &c.nframes, &c.fcap, line, n);
		} else {
			rc = keep(&c, &c.keys, &c.nkeys, &c.kcap, line, n); /* a text key (execname) */
		}
		if (rc == SV_ENOMEM) {
			sv_error_set(err, rc, NULL);
			break;
		}
	}
	sv_lines_dispose(&lr);
	if (!rc && (c.nframes || c.nkeys)) {
		rc = sv_error_set(err, SV_EFORMAT, "a stack without the count that ends it (the file is cut short?)");
		sv_error_locate(err, in->name, record_line, -1);
	} else if (!rc && !records) {
		rc = sv_error_set(err, SV_EFORMAT, "no stacks: expected dtrace's aggregation output (frames, then a count)");
		sv_error_locate(err, in->name, 0, -1);
	}
	free(c.text);
	free(c.keys);
	free(c.frames);
	return rc;
}

/* Two lines "module`function" and a line that is only a number, in the first 4 KiB, and no
 * folded "frame;frame COUNT" line. */
static bool dt_probe(const unsigned char *d, size_t n)
{
	size_t w = n < 4096 ? n : 4096, ticks = 0, counts = 0;
	for (size_t i = 0; i < w;) {
		size_t e = i;
		while (e < w && d[e] != '\n')
			e++;
		if (e == w && w < n)
			break; /* a cut line */
		size_t a = i, b = e;
		while (a < b && isspace(d[a]))
			a++;
		while (b > a && isspace(d[b - 1]))
			b--;
		if (memchr(d + a, ';', b - a))
			return false;
		if (b > a && memchr(d + a, '`', b - a) && !memchr(d + a, ' ', b - a))
			ticks++;
		else if (all_digits((const char *)d + a, b - a))
			counts++;
		i = e + 1;
	}
	return ticks >= 2 && counts >= 1;
}

static const char *const dt_patterns[] = { ".dtrace", ".stacks", NULL };

const sv_format sv_fmt_dtrace = {
	.name = "dtrace", .patterns = dt_patterns, .probe = dt_probe, .import = dt_import, .streams = true,
};
