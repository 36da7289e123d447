/* SPDX-License-Identifier: MIT */
/* stackview events: every event of a trace, one row each (PerfView's Events window): time,
 * event, process, thread, CPU and the payload's fields, filtered by event name pattern,
 * process, thread, time range and text; as text, JSON or CSV. Streams: each row is written
 * as the reader hands it over. */
#include <ctype.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "stackview/pattern.h"

typedef struct ev_ctx {
	const cli_opts *o;
	sv_pattern *pat;
	double start, end; /* NAN-free: -inf / +inf when not given */
	long long pid, tid;    /* -1: any */
	const char *pname;     /* a process name part, or NULL */
	char *fields[64];      /* --fields, or none */
	size_t nfields;
	long long seen, shown;
	bool warned;
	jw w;
	char *line;            /* --grep's text of an event */
	size_t linecap;
} ev_ctx;

enum { STOP = 1 }; /* --limit reached */

static bool has_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	if (!n)
		return true;
	for (; *hay; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return true;
	return false;
}

/* The value of field `name` of e, or NULL. */
static const char *field(const sv_trace_event *e, const char *name)
{
	for (size_t i = 0; i < e->nfields; i++)
		if (strcasecmp(e->field_names[i], name) == 0)
			return e->field_values[i];
	return NULL;
}

/* s as the text listing quotes a value: in double quotes, a quote or backslash after a
 * backslash, a newline as \n; csv: every quote written twice besides (inside a CSV field). */
static void put_quoted(ob *b, const char *s, bool csv)
{
	const char *q = csv ? "\"\"" : "\"";
	ob_puts(b, q);
	for (;;) {
		size_t n = strcspn(s, "\"\\\n");
		ob_put(b, s, n);
		s += n;
		if (!*s)
			break;
		if (*s == '\n') {
			ob_put(b, "\\n", 2);
		} else {
			ob_putc(b, '\\');
			if (*s == '"')
				ob_puts(b, q);
			else
				ob_putc(b, *s);
		}
		s++;
	}
	ob_puts(b, q);
}

/* s as part of a CSV field in quotes: its quotes twice. */
static void put_csv_inner(ob *b, const char *s)
{
	for (;;) {
		size_t n = strcspn(s, "\"");
		ob_put(b, s, n);
		s += n;
		if (!*s)
			break;
		ob_put(b, "\"\"", 2);
		s++;
	}
}

static void put_csv(ob *b, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		ob_puts(b, s);
		return;
	}
	ob_putc(b, '"');
	put_csv_inner(b, s);
	ob_putc(b, '"');
}

static void put_ms(ob *b, int width, double ms)
{
	char t[64];
	int k = snprintf(t, sizeof(t), "%*.3f", width, ms);
	ob_put(b, t, k > 0 ? (size_t)k : 0);
}

/* The fields shown: --fields in its order, else all of them. */
static size_t shown_fields(const ev_ctx *x, const sv_trace_event *e, const char **names, const char **values, size_t cap)
{
	size_t n = 0;
	if (x->nfields) {
		for (size_t i = 0; i < x->nfields && n < cap; i++) {
			const char *v = field(e, x->fields[i]);
			if (v)
				names[n] = x->fields[i], values[n++] = v;
		}
	} else {
		for (size_t i = 0; i < e->nfields && n < cap; i++)
			names[n] = e->field_names[i], values[n++] = e->field_values[i];
	}
	return n;
}

static bool grep_match(ev_ctx *x, const sv_trace_event *e)
{
	if (has_ci(e->name, x->o->ev_grep) || (e->process && has_ci(e->process, x->o->ev_grep)))
		return true;
	for (size_t i = 0; i < e->nfields; i++) {
		/* name=value as the text shows it */
		size_t k = strlen(e->field_names[i]) + strlen(e->field_values[i]) + 4;
		if (k > x->linecap) {
			char *nl = realloc(x->line, k);
			if (!nl)
				return true;
			x->line = nl, x->linecap = k;
		}
		snprintf(x->line, x->linecap, "%s=\"%s\"", e->field_names[i], e->field_values[i]);
		if (has_ci(x->line, x->o->ev_grep))
			return true;
	}
	return false;
}

static int on_event(void *payload, const sv_trace_event *e)
{
	ev_ctx *x = payload;
	x->seen++;
	if (e->ms < x->start || e->ms > x->end)
		return 0;
	if (x->pat && !sv_pattern_match(x->pat, e->name, strlen(e->name)))
		return 0;
	if (x->pid >= 0 && e->pid != x->pid)
		return 0;
	if (x->pname && !(e->process && has_ci(e->process, x->pname)))
		return 0;
	if (x->tid >= 0 && e->tid != x->tid)
		return 0;
	if (x->o->ev_grep && !grep_match(x, e))
		return 0;
	if (x->o->ev_limit >= 0 && x->shown >= x->o->ev_limit)
		return STOP;
	x->shown++;
	const char *names[512], *values[512];
	size_t n = shown_fields(x, e, names, values, 512);
	FILE *f = stdout;
	if (x->o->out == OUT_JSON) {
		jw *w = &x->w;
		jw_begin_obj(w);
		JW_KEY(w, "ms"); jw_num(w, e->ms);
		JW_KEY(w, "event"); jw_str(w, e->name);
		JW_KEY(w, "process"); jw_str(w, e->process);
		JW_KEY(w, "pid"); if (e->pid >= 0) jw_int(w, e->pid); else jw_null(w);
		JW_KEY(w, "tid"); if (e->tid >= 0) jw_int(w, e->tid); else jw_null(w);
		JW_KEY(w, "cpu"); if (e->cpu >= 0) jw_int(w, e->cpu); else jw_null(w);
		JW_KEY(w, "has_stack"); jw_bool(w, e->has_stack);
		JW_KEY(w, "data_len"); jw_int(w, (long long)e->data_len);
		JW_KEY(w, "fields");
		jw_begin_obj(w);
		for (size_t i = 0; i < n; i++) {
			jw_key(w, names[i]);
			jw_str(w, values[i]);
		}
		jw_end_obj(w);
		jw_end_obj(w);
	} else if (x->o->out == OUT_CSV) {
		ob *b = &x->w.o;
		put_ms(b, 0, e->ms);
		ob_putc(b, ',');
		put_csv(b, e->name);
		ob_putc(b, ',');
		put_csv(b, e->process ? e->process : "");
		ob_putc(b, ','), ob_int(b, e->pid);
		ob_putc(b, ','), ob_int(b, e->tid);
		ob_putc(b, ','), ob_int(b, e->cpu);
		ob_putc(b, ','), ob_int(b, e->has_stack);
		ob_putc(b, ','), ob_int(b, (long long)e->data_len);
		if (x->nfields) {
			for (size_t i = 0; i < x->nfields; i++) {
				ob_putc(b, ',');
				put_csv(b, field(e, x->fields[i]) ? field(e, x->fields[i]) : "");
			}
		} else if (n) {
			/* all fields in one column, as the text shows them (quoted: it has quotes) */
			ob_put(b, ",\"", 2);
			for (size_t i = 0; i < n; i++) {
				if (i)
					ob_putc(b, ' ');
				put_csv_inner(b, names[i]);
				ob_putc(b, '=');
				put_quoted(b, values[i], true);
			}
			ob_putc(b, '"');
		} else {
			ob_putc(b, ',');
		}
		ob_putc(b, '\n');
	} else {
		ob *b = &x->w.o;
		put_ms(b, 12, e->ms);
		ob_put(b, "  ", 2);
		ob_puts(b, e->name);
		ob_put(b, "  ", 2);
		ob_puts(b, e->process ? e->process : "?");
		if (e->pid >= 0 && !(e->process && strncmp(e->process, "Process(", 8) == 0)) {
			ob_put(b, " (", 2), ob_int(b, e->pid);
			ob_putc(b, ')');
		}
		if (e->tid >= 0)
			ob_put(b, "  tid=", 6), ob_int(b, e->tid);
		if (e->cpu >= 0)
			ob_put(b, "  cpu=", 6), ob_int(b, e->cpu);
		if (e->has_stack)
			ob_put(b, "  stack", 7);
		for (size_t i = 0; i < n; i++) {
			ob_puts(b, i ? " " : "  ");
			ob_puts(b, names[i]);
			ob_putc(b, '=');
			put_quoted(b, values[i], false);
		}
		ob_putc(b, '\n');
	}
	return ferror(f) ? SV_EIO : 0;
}

static void on_warning(void *payload, const char *text)
{
	ev_ctx *x = payload;
	x->warned = true;
	fprintf(stderr, "stackview: %s: warning: %s\n", x->o->files[0], text);
}

static bool parse_ms(const char *s, double *out, const char *what)
{
	if (sv_parse_number(s, out))
		return true;
	fprintf(stderr, "stackview: --%s needs a time in ms, not '%s'\n", what, s);
	return false;
}

int cmd_events(const cli_opts *o)
{
	/* one thread writes the listing: stdio without a lock per character */
	__fsetlocking(stdout, FSETLOCKING_BYCALLER);
	ev_ctx x = { .o = o, .start = -1e300, .end = 1e300, .pid = -1, .tid = -1, .w = { .o.f = stdout } };
	int rc = EXIT_OK;
	const char *s = o->box[SV_BOX_START], *e = o->box[SV_BOX_END];
	if ((s && *s && !parse_ms(s, &x.start, "start")) || (e && *e && !parse_ms(e, &x.end, "end")))
		return EXIT_USAGE;
	sv_error err;
	sv_error_clear(&err);
	if (o->event && sv_pattern_new(&x.pat, o->event, strlen(o->event), &err)) {
		fprintf(stderr, "stackview: --event: %s\n", err.msg);
		return EXIT_USAGE;
	}
	if (o->ev_process) {
		char *end;
		long long v = strtoll(o->ev_process, &end, 10);
		if (*o->ev_process && !*end && v >= 0)
			x.pid = v;
		else
			x.pname = o->ev_process;
	}
	if (o->ev_thread) {
		char *end;
		x.tid = strtoll(o->ev_thread, &end, 10);
		if (!*o->ev_thread || *end || x.tid < 0) {
			fprintf(stderr, "stackview: --thread needs a thread id, not '%s'\n", o->ev_thread);
			sv_pattern_free(x.pat);
			return EXIT_USAGE;
		}
	}
	char *fl = o->ev_fields ? strdup(o->ev_fields) : NULL;
	for (char *t = fl ? strtok(fl, ",") : NULL; t && x.nfields < 64; t = strtok(NULL, ","))
		if (*t)
			x.fields[x.nfields++] = t;
	if (o->out == OUT_JSON) {
		jw_begin_obj(&x.w);
		jw_key(&x.w, "events");
		jw_begin_arr(&x.w);
	} else if (o->out == OUT_CSV) {
		ob_puts(&x.w.o, "ms,event,process,pid,tid,cpu,has_stack,data_len");
		for (size_t i = 0; i < x.nfields; i++) {
			ob_putc(&x.w.o, ',');
			put_csv(&x.w.o, x.fields[i]);
		}
		ob_puts(&x.w.o, x.nfields ? "\n" : ",fields\n");
	}
	sv_import_opts io = cli_import_opts(o);
	io.event = NULL;
	sv_event_lister l = { on_event, on_warning, &x };
	int r = sv_list_events(o->files[0], &io, &l, &err);
	if (o->out != OUT_JSON) /* (JSON's is written when its document closes) */
		ob_flush(&x.w.o);
	bool failed = r && r != STOP, lost = r == SV_EIO; /* lost: writing stdout failed */
	if (failed && !lost) {
		cli_report(&err);
		rc = r == SV_EINVAL ? EXIT_USAGE : EXIT_INPUT;
	}
	if (o->out == OUT_JSON && !lost) { /* one document: what was listed, and the error that stopped it */
		jw_end_arr(&x.w);
		jw_key(&x.w, "shown"); jw_int(&x.w, x.shown);
		if (failed) {
			jw_key(&x.w, "error"); jw_str(&x.w, err.msg);
		} else {
			jw_key(&x.w, "limited"); jw_bool(&x.w, r == STOP);
		}
		jw_end_obj(&x.w);
		fputc('\n', stdout);
	}
	if (lost) {
		rc = cli_finish_output(stdout);
		rc = rc ? rc : EXIT_OUTPUT;
	} else if (failed)
		fflush(stdout);
	if (!rc && r == STOP)
		fprintf(stderr, "stackview: %s: the first %lld matching events (--limit)\n", o->files[0], x.shown);
	else if (!rc && !x.shown && !x.warned)
		fprintf(stderr, "stackview: %s: none of its %lld events matches\n", o->files[0], x.seen);
	if (!rc)
		rc = cli_finish_output(stdout);
	free(fl);
	free(x.line);
	sv_pattern_free(x.pat);
	return rc;
}

/* ---- the terminal UI's Events view: the listing into an event log ---- */

typedef struct log_ctx {
	sv_evlog *log;
	char *text;
	size_t cap;
	char *warn;
	size_t warncap;
	bool full;
	const atomic_bool *cancel;
} log_ctx;

static int log_event(void *payload, const sv_trace_event *e)
{
	log_ctx *x = payload;
	if (x->cancel && atomic_load(x->cancel))
		return SV_ECANCELED;
	size_t need = 1;
	for (size_t i = 0; i < e->nfields; i++)
		need += strlen(e->field_names[i]) + 2 * strlen(e->field_values[i]) + 4;
	if (need > x->cap) {
		char *t = realloc(x->text, need);
		if (!t)
			return SV_ENOMEM;
		x->text = t, x->cap = need;
	}
	size_t o = 0;
	for (size_t i = 0; i < e->nfields; i++) {
		o += (size_t)snprintf(x->text + o, x->cap - o, "%s%s=\"", i ? " " : "", e->field_names[i]);
		for (const char *v = e->field_values[i]; *v; v++) {
			if (*v == '"' || *v == '\\')
				x->text[o++] = '\\';
			x->text[o++] = *v == '\n' ? ' ' : *v;
		}
		x->text[o++] = '"';
	}
	x->text[o] = '\0';
	sv_evrow r = { .ms = e->ms, .kind = e->name, .process = e->process, .fields = x->text, .pid = e->pid, .tid = e->tid,
		       .cpu = e->cpu, .has_stack = e->has_stack };
	int rc = sv_evlog_add(x->log, &r);
	if (rc == SV_ELIMIT) {
		x->full = true;
		return STOP;
	}
	return rc;
}

static void log_warning(void *payload, const char *text)
{
	log_ctx *x = payload;
	if (x->warncap && !x->warn[0])
		snprintf(x->warn, x->warncap, "%s", text);
}

int cli_events_log(const cli_opts *o, const char *path, sv_list_prep *prep, sv_evlog *log, sv_progress *progress,
		   const atomic_bool *cancel, char *warn, size_t warncap, sv_error *err)
{
	log_ctx x = { .log = log, .warn = warn, .warncap = warncap, .cancel = cancel };
	if (warncap)
		warn[0] = '\0';
	sv_import_opts io = cli_import_opts(o);
	io.event = NULL;
	io.progress = progress;
	sv_event_lister l = { log_event, log_warning, &x };
	int rc = prep ? sv_list_events_prepared(prep, &io, &l, err) : sv_list_events(path, &io, &l, err);
	free(x.text);
	if (rc == STOP && x.full) {
		rc = 0;
		if (warncap)
			snprintf(warn, warncap, "the first %u events are listed (stackview events FILE --start MS lists the rest)",
				 SV_EVLOG_MAX);
	}
	return rc;
}
