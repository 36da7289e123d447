/* SPDX-License-Identifier: MIT */
/* macOS `sample PID SECONDS -file out.txt` (and Activity Monitor's "Sample Process"): the
 * "Call graph:" section, a tree printed one node per line with its inclusive sample count,
 *
 *     2563 Thread_1234   DispatchQueue_1: com.apple.main-thread  (serial)
 *     + 2563 start  (in libdyld.dylib) + 1  [0x7fff6a8a3cc9]
 *     +   2500 main  (in Safari) + 12  [0x10a1b2c3d]
 *     +   ! 1200 foo  (in Safari) + 5  [0x10a1b2d00]  foo.c:42
 *
 * where a node's depth is the column its count starts at (the tree's guides "+ ! : |" in
 * front). Each node whose count is more than its children's together is a sample of the
 * difference (what `sample` calls the top of the stack); frames are `MODULE!FUNCTION`, the
 * thread lines stay as `sample` prints them, and `Process NAME (PID)` from the header is the
 * root. The metric counts samples; the sampling interval is in `info`. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackview/formats.h"
#include "sv/array.h"

typedef struct ms_node {
	size_t col;
	sv_stack_id stack;
	double count, children;
} ms_node;

typedef struct ms_ctx {
	sv_sink *sink;
	const sv_input *in;
	sv_error *err;
	ms_node *open;
	size_t nopen, open_cap;
	sv_stack_id root;
	size_t samples;
} ms_ctx;

/* Close the innermost open node: its own samples are its count less its children's. */
static int close_node(ms_ctx *c)
{
	ms_node *n = &c->open[--c->nopen];
	double self = n->count - n->children;
	if (self <= 0)
		return 0;
	c->samples++;
	return c->sink->ops->add_sample(c->sink->self, n->stack, 0, self, self);
}

/* "foo  (in Safari) + 5  [0x…]  foo.c:42" -> "Safari!foo"; a function `sample` could not name,
 * "???  (in demo)  load address 0x100000000 + 0x3d80  [0x100003d80]", keeps its address as
 * `sample` keeps such frames apart: "demo!0x100003d80" (perf's name for an unresolved frame);
 * anything else as printed, with runs of blanks made one. */
static size_t frame_name(char *out, size_t size, const char *s, size_t n)
{
	const char *in = memmem(s, n, " (in ", 5);
	if (in) {
		const char *m = in + 5, *close = memchr(m, ')', (size_t)(s + n - m));
		size_t fl = (size_t)(in - s);
		while (fl && s[fl - 1] == ' ')
			fl--;
		const char *addr = close ? memmem(close, (size_t)(s + n - close), "[0x", 3) : NULL;
		if (close && addr && fl == 3 && !memcmp(s, "???", 3)) {
			size_t hex = 0; /* the digits after "[0x" */
			while (addr + 3 + hex < s + n && isxdigit((unsigned char)addr[3 + hex]))
				hex++;
			int w = snprintf(out, size, "%.*s!0x%.*s", (int)(close - m), m, (int)hex, addr + 3);
			return (size_t)w < size ? (size_t)w : size - 1;
		}
		if (close) {
			int w = snprintf(out, size, "%.*s!%.*s", (int)(close - m), m, (int)fl, s);
			return (size_t)w < size ? (size_t)w : size - 1;
		}
	}
	size_t o = 0;
	for (size_t i = 0; i < n && o + 1 < size; i++) {
		if (s[i] == ' ' && (o == 0 || out[o - 1] == ' '))
			continue;
		out[o++] = s[i];
	}
	while (o && out[o - 1] == ' ')
		o--;
	out[o] = '\0';
	return o;
}

static int ms_import(sv_sink *sink, const sv_input *in, const sv_import_opts *opts, sv_error *err)
{
	(void)opts;
	ms_ctx c = { .sink = sink, .in = in, .err = err, .root = SV_STACK_NONE };
	sv_lines lr;
	int rc = sv_lines_init(&lr, in);
	if (rc)
		return sv_error_set(err, rc, NULL);
	const sv_sink_ops *ops = sink->ops;
	if (ops->set_scaling)
		ops->set_scaling(sink->self, SV_SCALING_DATA);
	bool graph = false;
	char interval[128] = "", buf[8192];
	for (;;) {
		const char *line;
		size_t n;
		int got = sv_lines_next(&lr, &line, &n, err);
		if (got <= 0) {
			rc = got;
			break;
		}
		if (!graph) {
			const char *every = memmem(line, n, " every ", 7);
			if (!interval[0] && n > 21 && memcmp(line, "Analysis of sampling ", 21) == 0 && every)
				snprintf(interval, sizeof(interval), "%.*s", (int)(line + n - every - 7), every + 7);
			if (n > 8 && memcmp(line, "Process:", 8) == 0 && c.root == SV_STACK_NONE) {
				/* "Process:         Safari [1234]" */
				size_t a = 8;
				while (a < n && line[a] == ' ')
					a++;
				const char *lb = memchr(line + a, '[', n - a), *rb = lb ? memchr(lb, ']', (size_t)(line + n - lb)) : NULL;
				size_t nl = (size_t)((lb ? lb : line + n) - (line + a));
				while (nl && line[a + nl - 1] == ' ')
					nl--;
				int w = lb && rb ? snprintf(buf, sizeof(buf), "Process %.*s (%.*s)", (int)nl, line + a, (int)(rb - lb - 1), lb + 1)
						 : snprintf(buf, sizeof(buf), "Process %.*s", (int)nl, line + a);
				sv_frame_id f;
				if ((rc = ops->intern_frame(sink->self, &f, buf, (size_t)w < sizeof(buf) ? (size_t)w : sizeof(buf) - 1)) ||
				    (rc = ops->intern_stack(sink->self, &c.root, SV_STACK_NONE, f)))
					break;
			}
			graph = n >= 11 && memcmp(line, "Call graph:", 11) == 0;
			continue;
		}
		/* the tree: guides, then the count, then the frame; a line without a count ends it */
		size_t i = 0;
		while (i < n && (line[i] == ' ' || line[i] == '+' || line[i] == '!' || line[i] == ':' || line[i] == '|'))
			i++;
		size_t col = i;
		double count = 0;
		while (i < n && isdigit((unsigned char)line[i]))
			count = count * 10 + (line[i++] - '0');
		if (i == col || i >= n || line[i] != ' ')
			break; /* the call graph ends */
		while (i < n && line[i] == ' ')
			i++;
		while (c.nopen && c.open[c.nopen - 1].col >= col && !rc)
			rc = close_node(&c);
		if (rc)
			break;
		if (c.nopen >= SV_MAX_STACK_DEPTH) {
			rc = sv_error_set(err, SV_ELIMIT, "the call graph is deeper than %u frames", SV_MAX_STACK_DEPTH);
			sv_error_locate(err, in->name, lr.line, -1);
			break;
		}
		sv_stack_id parent = c.nopen ? c.open[c.nopen - 1].stack : c.root;
		if (c.nopen)
			c.open[c.nopen - 1].children += count;
		size_t fl = frame_name(buf, sizeof(buf), line + i, n - i);
		ms_node node = { col, SV_STACK_NONE, count, 0 };
		sv_frame_id f;
		if ((rc = ops->intern_frame(sink->self, &f, buf, fl)) || (rc = ops->intern_stack(sink->self, &node.stack, parent, f)))
			break;
		if (SV_ARRAY_PUSH(c.open, c.nopen, c.open_cap, node)) {
			rc = SV_ENOMEM;
			break;
		}
	}
	while (!rc && c.nopen)
		rc = close_node(&c);
	sv_lines_dispose(&lr);
	if (rc == SV_ENOMEM)
		sv_error_set(err, rc, NULL);
	if (!rc && !graph) {
		rc = sv_error_set(err, SV_EFORMAT, "no \"Call graph:\" section (expected the output of macOS's sample)");
		sv_error_locate(err, in->name, 0, -1);
	} else if (!rc && !c.samples) {
		rc = sv_error_set(err, SV_EFORMAT, "the call graph has no samples");
		sv_error_locate(err, in->name, 0, -1);
	} else if (!rc && ops->add_note) {
		char msg[300];
		snprintf(msg, sizeof(msg), "macOS sample: the metric counts samples%s%s; no time per sample", interval[0] ? ", one every " : "",
			 interval);
		rc = ops->add_note(sink->self, SV_NOTE_INFO, msg);
	}
	if (!rc && ops->set_unit)
		rc = ops->set_unit(sink->self, "samples");
	free(c.open);
	return rc;
}

/* A line "Analysis of sampling NAME (pid N) every …" near the top, "Call graph:" after it. */
static bool ms_probe(const unsigned char *d, size_t n)
{
	size_t w = n < 8192 ? n : 8192;
	const char *a = memmem(d, w, "Analysis of sampling ", 21);
	return a && (a == (const char *)d || a[-1] == '\n') && memmem(a, w - (size_t)(a - (const char *)d), "Call graph:", 11);
}

const sv_format sv_fmt_mac_sample = {
	.name = "mac-sample", .patterns = NULL, .probe = ms_probe, .import = ms_import, .streams = true,
};
