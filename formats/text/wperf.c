/* SPDX-License-Identifier: MIT */
/* WindowsPerf (Arm's wperf for Windows on Arm): what `wperf sample` / `wperf record` print —
 * the text listing, one section per sampled PMU event,
 *     ======== sample source: ld_spec, top 50 hot functions ========
 *      75.39%       579  x_mul:python312_d.dll          (2.x; 3.x prints a table: see wp_text)
 * and its `--json` document ({"sampling": {"events": [{"type", "interval", "samples":
 * [{"count", "overhead", "symbol"}]}], "samples_generated", ...}}).
 *
 * Each PMU event is an event of the source (--event picks one; the first by default); each
 * listed function becomes one sample of its count (metric = count, scale-to-data) with the
 * frame `MODULE!FUNCTION` (`unknown` stays as it is). wperf lists only the hottest functions
 * (--sample-display-row, 50 by default): what it left out is said in `info`, not guessed. No
 * stacks: wperf samples the PC only. */
#include <ctype.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json_stream.h"
#include "stackview/formats.h"
#include "sv/array.h"

typedef struct wp_event {
	char name[128];
	size_t rows;
	double count;       /* the listed rows' sum */
	double top, top_pct; /* the largest row's count and its overhead: all = top * 100 / top_pct */
	double total_line;  /* text: the count of "N% COUNT top K in total"; -1 = none */
	long long interval; /* JSON only; 0 = not given */
} wp_event;

typedef struct wp_ctx {
	sv_sink *sink;
	const sv_input *in;
	const sv_import_opts *opts;
	sv_error *err;
	wp_event *ev;
	size_t nev, ev_cap;
	long sel;           /* selected event index, -1 = not yet known */
} wp_ctx;

/* "function:module" -> "module!function": the module follows the last ':' that is not part
 * of a "::" (C++ names). */
static int add_row(wp_ctx *c, const char *sym, size_t n, double count)
{
	const char *split = NULL;
	for (size_t i = n; i-- > 0;)
		if (sym[i] == ':' && (i + 1 >= n || sym[i + 1] != ':') && (i == 0 || sym[i - 1] != ':')) {
			split = sym + i;
			break;
		}
	char buf[8192];
	int len = split && split + 1 < sym + n
			  ? snprintf(buf, sizeof(buf), "%.*s!%.*s", (int)(sym + n - split - 1), split + 1, (int)(split - sym), sym)
			  : snprintf(buf, sizeof(buf), "%.*s", (int)n, sym);
	if (len >= (int)sizeof(buf))
		len = (int)sizeof(buf) - 1;
	const sv_sink_ops *ops = c->sink->ops;
	sv_frame_id f;
	sv_stack_id st;
	int rc;
	if ((rc = ops->intern_frame(c->sink->self, &f, buf, (size_t)len)) ||
	    (rc = ops->intern_stack(c->sink->self, &st, SV_STACK_NONE, f)))
		return rc;
	return ops->add_sample(c->sink->self, st, 0, count, count);
}

static int wp_fail(wp_ctx *c, long line, const char *fmt, ...) SV_PRINTF(3, 4);
static int wp_fail(wp_ctx *c, long line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sv_error_vset(c->err, SV_EFORMAT, fmt, ap);
	va_end(ap);
	sv_error_locate(c->err, c->in->name, line, -1);
	return SV_EFORMAT;
}

static int new_event(wp_ctx *c, const char *name, size_t n)
{
	wp_event e = { .total_line = -1 };
	snprintf(e.name, sizeof(e.name), "%.*s", (int)n, name);
	if (SV_ARRAY_PUSH(c->ev, c->nev, c->ev_cap, e))
		return SV_ENOMEM;
	if (c->sel < 0 && (!c->opts->event || strcmp(c->opts->event, c->ev[c->nev - 1].name) == 0))
		c->sel = (long)c->nev - 1;
	return 0;
}

/* After the input: the events, the unknown --event, what wperf did not list. Each row's
 * overhead is its share of all the event's samples, so the largest row tells how many there
 * were; `generated`/`dropped` are JSON's counts over all events (0 = not given). */
static int finish(wp_ctx *c, long long generated, long long dropped)
{
	const sv_sink_ops *ops = c->sink->ops;
	int rc = 0;
	if (!c->nev)
		return wp_fail(c, 0, "no sampled events (no \"sample source:\" section)");
	if (c->sel < 0) {
		char msg[512];
		size_t o = (size_t)snprintf(msg, sizeof(msg), "no samples of event '%s'; the file has:", c->opts->event);
		for (size_t i = 0; i < c->nev && o < sizeof(msg); i++)
			o += (size_t)snprintf(msg + o, sizeof(msg) - o, "%s %s", i ? "," : "", c->ev[i].name);
		return sv_error_set(c->err, SV_EINVAL, "%s", msg);
	}
	for (size_t i = 0; i < c->nev && !rc && ops->add_event; i++)
		rc = ops->add_event(c->sink->self, c->ev[i].name, c->ev[i].rows, (long)i == c->sel);
	if (!rc && ops->set_scaling)
		rc = ops->set_scaling(c->sink->self, SV_SCALING_DATA);
	if (!rc && ops->set_unit)
		rc = ops->set_unit(c->sink->self, "samples");
	if (rc || !ops->add_note)
		return rc;
	const wp_event *e = &c->ev[c->sel];
	char msg[512];
	if (e->interval)
		snprintf(msg, sizeof(msg), "wperf sampled %s every %lld events; the metric counts samples", e->name, e->interval);
	else
		snprintf(msg, sizeof(msg), "wperf sampled %s; the metric counts samples", e->name);
	rc = ops->add_note(c->sink->self, SV_NOTE_INFO, msg);
	double all = e->top_pct > 0 ? e->top * 100.0 / e->top_pct : 0;
	if (!rc) {
		if (all >= e->count + 0.5)
			snprintf(msg, sizeof(msg), "wperf lists only its hottest functions: %.0f of the %.0f samples of %s are "
						   "listed (--sample-display-row sets how many)", e->count, all, e->name);
		else if (all > 0)
			snprintf(msg, sizeof(msg), "all %.0f samples of %s are listed", e->count, e->name);
		else
			snprintf(msg, sizeof(msg), "wperf lists only its hottest functions (--sample-display-row sets how "
						   "many): functions below them are not in the file");
		rc = ops->add_note(c->sink->self, SV_NOTE_INFO, msg);
	}
	if (!rc && e->total_line >= 0 && e->total_line != e->count) {
		snprintf(msg, sizeof(msg), "the rows of %s add up to %.0f samples, its \"in total\" line says %.0f", e->name,
			 e->count, e->total_line);
		rc = ops->add_note(c->sink->self, SV_NOTE_WARNING, msg);
	}
	if (!rc && generated > 0) {
		snprintf(msg, sizeof(msg), "wperf generated %lld samples of all events (%lld dropped)", generated, dropped);
		rc = ops->add_note(c->sink->self, SV_NOTE_INFO, msg);
	}
	if (!rc)
		rc = ops->add_note(c->sink->self, SV_NOTE_INFO, "no call stacks: wperf samples the program counter only");
	return rc;
}

/* ---- text ---- */

/* A number at *i (digits and one '.'), spaces after it skipped; false when there is none. */
static bool take_number(const char *line, size_t n, size_t *i, double *v, bool *pct)
{
	size_t d = *i;
	while (*i < n && (isdigit((unsigned char)line[*i]) || line[*i] == '.'))
		(*i)++;
	if (*i == d || *i - d > 30)
		return false;
	char buf[32];
	memcpy(buf, line + d, *i - d);
	buf[*i - d] = 0;
	*v = strtod(buf, NULL);
	*pct = *i < n && line[*i] == '%';
	if (*pct)
		(*i)++;
	if (*i < n && !isspace((unsigned char)line[*i]))
		return false;
	while (*i < n && isspace((unsigned char)line[*i]))
		(*i)++;
	return true;
}

/* "top N in total" (what follows a total line's count). */
static bool is_total(const char *s, size_t n)
{
	if (n < 14 || memcmp(s, "top ", 4) != 0)
		return false;
	size_t i = 4;
	while (i < n && isdigit((unsigned char)s[i]))
		i++;
	return i > 4 && n - i == 9 && memcmp(s + i, " in total", 9) == 0;
}

/* One section's table, as wperf 2.4 to 3.x and later print it:
 *     ======== sample source: ld_spec, top 50 hot functions ========
 *      75.39%       579  x_mul:python312_d.dll                 (before 3.x: '%' on each row)
 * or
 *             overhead  count  symbol
 *             ========  =====  ======
 *                76.02    130  simd_hot:WindowsPerfSample.exe  (a table: no '%')
 *     100.00%       171  top 5 in total                        (the listed rows' sum)
 * The total line comes after the rows, or before them when the listing is cut at
 * --sample-display-row; -v adds the hottest PCs (`0x… count`) before the table. Rows
 * without '%' count only under the table's header line, so that the annotate tables
 * (`line_number hits filename`) and counting tables that follow are not read as rows. */
static int wp_text(wp_ctx *c)
{
	sv_lines lr;
	int rc = sv_lines_init(&lr, c->in);
	if (rc)
		return sv_error_set(c->err, rc, NULL);
	long cur = -1;
	bool table = false;
	for (;;) {
		const char *line;
		size_t n;
		int got = sv_lines_next(&lr, &line, &n, c->err);
		if (got <= 0) {
			rc = got;
			break;
		}
		const char *src = memmem(line, n, "sample source: ", 15);
		if (src) {
			const char *name = src + 15, *end = line + n;
			const char *comma = memchr(name, ',', (size_t)(end - name));
			size_t nl = (size_t)((comma ? comma : end) - name);
			while (nl && name[nl - 1] == ' ')
				nl--;
			if (!nl) {
				rc = wp_fail(c, lr.line, "a \"sample source:\" line without an event name");
				break;
			}
			if ((rc = new_event(c, name, nl)))
				break;
			cur = (long)c->nev - 1;
			table = false;
			continue;
		}
		size_t i = 0;
		while (i < n && isspace((unsigned char)line[i]))
			i++;
		size_t e = n;
		while (e > i && isspace((unsigned char)line[e - 1]))
			e--;
		if (cur < 0 || i == e) {
			table = false; /* a blank line ends a table */
			continue;
		}
		if (line[i] == '=')
			continue; /* the table's underline */
		if (e - i > 14 && memcmp(line + i, "overhead", 8) == 0 && memmem(line + i, e - i, "symbol", 6)) {
			table = true;
			continue;
		}
		if (e - i > 2 && line[i] == '0' && line[i + 1] == 'x')
			continue; /* -v: a hot PC and its count */
		double pct, count;
		bool has_pct, count_pct;
		size_t j = i;
		if (!isdigit((unsigned char)line[i]) || !take_number(line, e, &j, &pct, &has_pct) || (!has_pct && !table)) {
			table = false; /* any other line ends the table: annotate or counting tables follow */
			continue;
		}
		size_t cs = j;
		if (!take_number(line, e, &j, &count, &count_pct) || count_pct || memchr(line + cs, '.', j - cs) || j >= e) {
			rc = wp_fail(c, lr.line, "expected 'PERCENT%% COUNT FUNCTION:MODULE'");
			break;
		}
		wp_event *ev = &c->ev[cur];
		if (is_total(line + j, e - j)) {
			ev->total_line = count;
			continue;
		}
		ev->rows++;
		ev->count += count;
		if (pct > 0 && count > ev->top)
			ev->top = count, ev->top_pct = pct;
		if (cur == c->sel && (rc = add_row(c, line + j, e - j, count))) {
			sv_error_locate(c->err, c->in->name, lr.line, -1);
			break;
		}
	}
	sv_lines_dispose(&lr);
	return rc ? rc : finish(c, 0, 0);
}

/* ---- JSON ---- */

static int wp_json(wp_ctx *c)
{
	sv_jcur j;
	sv_jc_init(&j, c->in);
	json_object *doc = NULL;
	int rc = sv_jc_value(&j, &doc, c->err);
	if (!rc)
		rc = sv_jc_end(&j, c->err);
	json_object *sampling = rc ? NULL : sv_json_member(doc, "sampling", json_type_object);
	json_object *events = sv_json_member(sampling, "events", json_type_array);
	if (!rc && !events)
		rc = wp_fail(c, 0, "not a wperf sampling document: no \"sampling\".\"events\" array");
	size_t ne = events ? json_object_array_length(events) : 0;
	for (size_t k = 0; k < ne && !rc; k++) {
		json_object *e = json_object_array_get_idx(events, k);
		json_object *type = sv_json_member(e, "type", json_type_string), *samples = sv_json_member(e, "samples", json_type_array);
		if (!type || !samples) {
			rc = wp_fail(c, 0, "sampling.events[%zu] has no \"type\" string and \"samples\" array", k);
			break;
		}
		if ((rc = new_event(c, json_object_get_string(type), (size_t)json_object_get_string_len(type))))
			break;
		wp_event *ev = &c->ev[c->nev - 1];
		json_object *iv = sv_json_member(e, "interval", json_type_int);
		ev->interval = iv ? json_object_get_int64(iv) : 0;
		size_t ns = json_object_array_length(samples);
		for (size_t i = 0; i < ns && !rc; i++) {
			json_object *s = json_object_array_get_idx(samples, i);
			json_object *count = sv_json_member(s, "count", json_type_int), *sym = sv_json_member(s, "symbol", json_type_string);
			if (!count || !sym || json_object_get_int64(count) < 0) {
				rc = wp_fail(c, 0, "sampling.events[%zu].samples[%zu] has no \"count\" (a count of samples) and "
						   "\"symbol\"", k, i);
				break;
			}
			double n = (double)json_object_get_int64(count);
			json_object *ov = sv_json_member(s, "overhead", json_type_double);
			if (!ov)
				ov = sv_json_member(s, "overhead", json_type_int);
			double pct = ov ? json_object_get_double(ov) : 0;
			ev->rows++;
			ev->count += n;
			if (pct > 0 && n > ev->top)
				ev->top = n, ev->top_pct = pct;
			if ((long)c->nev - 1 == c->sel)
				rc = add_row(c, json_object_get_string(sym), (size_t)json_object_get_string_len(sym), n);
		}
	}
	json_object *gen = sv_json_member(sampling, "samples_generated", json_type_int);
	json_object *drop = sv_json_member(sampling, "samples_dropped", json_type_int);
	long long generated = gen ? json_object_get_int64(gen) : 0, dropped = drop ? json_object_get_int64(drop) : 0;
	json_object_put(doc);
	return rc ? rc : finish(c, generated, dropped);
}

static int wp_import(sv_sink *sink, const sv_input *in, const sv_import_opts *opts, sv_error *err)
{
	static const sv_import_opts none = { 0 };
	wp_ctx c = { .sink = sink, .in = in, .opts = opts ? opts : &none, .err = err, .sel = -1 };
	size_t i = 0;
	while (i < in->len && isspace(in->data[i]))
		i++;
	int rc = i < in->len && in->data[i] == '{' ? wp_json(&c) : wp_text(&c);
	if (rc == SV_ENOMEM)
		sv_error_set(err, SV_ENOMEM, NULL);
	free(c.ev);
	return rc;
}

/* The text's section header, or a JSON object with "sampling" and "samples_generated", in the
 * first 4 KiB. */
static bool wp_probe(const unsigned char *d, size_t n)
{
	size_t w = n < 4096 ? n : 4096;
	const char *s = (const char *)d;
	size_t i = 0;
	while (i < w && isspace(d[i]))
		i++;
	if (i < w && d[i] == '{')
		return memmem(s, w, "\"sampling\"", 10) && memmem(s, w, "\"samples_generated\"", 19);
	return memmem(s, w, "sample source: ", 15) && memmem(s, w, " hot functions", 14);
}

const sv_format sv_fmt_wperf = {
	.name = "wperf", .patterns = NULL, .probe = wp_probe, .import = wp_import,
};
