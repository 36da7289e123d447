/* SPDX-License-Identifier: MIT */
/* stackview view: the terminal UI on a file (the tutorial when none is named), with saving and
 * presets handed in as callbacks. */
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "sv/heap_graph.h"
#include "tui.h"

/* Read a whole small text file (a key script). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	size_t n;
	while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (len + 1 == cap) {
			if (cap > (16u << 20))
				break;
			char *nb = realloc(buf, cap *= 2);
			if (!nb) {
				free(buf);
				buf = NULL;
			}
			buf = nb;
		}
	}
	fclose(f);
	if (buf)
		buf[len] = '\0';
	return buf;
}

/* The Events view's first part read ahead. An ETL is read twice to be listed (its
 * processes, kinds and metadata first); that first pass runs on a thread of its own while
 * the trace loads for the stack window, so that V lists at once. The thread's fields are
 * its own until it is joined. */
typedef struct ev_prep {
	pthread_t th;
	bool running; /* started and not joined */
	const char *path;
	sv_import_opts io;
	sv_progress progress;
	atomic_bool cancel;
	_Atomic(tui_ev_reading *) waiter; /* the Events view's reading while it waits: the pass's
					   * progress shows there, its cancel stops the pass */
	sv_list_prep *prep;
	int rc;
} ev_prep;

static int prep_progress(void *payload, unsigned long long done, unsigned long long total)
{
	ev_prep *e = payload;
	tui_ev_reading *w = atomic_load(&e->waiter);
	if (w) { /* (the first pass counts the first half of the listing's reading) */
		atomic_store(&w->done, done);
		atomic_store(&w->total, total);
	}
	return atomic_load(&e->cancel) || (w && atomic_load(&w->cancel)) ? SV_ECANCELED : 0;
}

static void *prep_main(void *arg)
{
	ev_prep *e = arg;
	sv_error err;
	sv_error_clear(&err);
	e->rc = sv_list_prepare(&e->prep, e->path, &e->io, &err); /* (its error comes again when listed) */
	return NULL;
}

/* Start it for a trace whose listing has a first part, with two CPUs or more (--threads 1:
 * never); signals stay with the key loop's thread. */
static void prep_start(ev_prep *e, const cli_opts *o)
{
	memset(e, 0, sizeof(*e));
	if (o->threads == 1 || o->compare || !o->nfiles || !strcmp(o->files[0], "-") ||
	    !sv_list_prepares(o->files[0], o->format) || (o->threads != 2 && sysconf(_SC_NPROCESSORS_ONLN) < 2))
		return;
	e->path = o->files[0];
	e->io = cli_import_opts(o);
	e->io.event = NULL;
	e->progress = (sv_progress){ .fn = prep_progress, .payload = e };
	e->io.progress = &e->progress;
	atomic_init(&e->cancel, false);
	atomic_init(&e->waiter, NULL);
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e->running = pthread_create(&e->th, NULL, prep_main, e) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Wait for it (stopped first when `cancel`; waiter, when not NULL, shows its progress and
 * stops it by its cancel): what it prepared, NULL when nothing. */
static sv_list_prep *prep_take(ev_prep *e, bool cancel, tui_ev_reading *waiter)
{
	if (!e || !e->running)
		return NULL;
	if (cancel)
		atomic_store(&e->cancel, true);
	atomic_store(&e->waiter, waiter);
	pthread_join(e->th, NULL);
	e->running = false;
	sv_list_prep *p = e->rc ? NULL : e->prep;
	if (e->rc)
		sv_list_prep_free(e->prep);
	e->prep = NULL;
	return p;
}

/* What the TUI's callbacks are handed: the options, and the Events view's first part. */
typedef struct tui_payload {
	const cli_opts *o;
	ev_prep *prep; /* NULL when none */
} tui_payload;

static int tui_save(void *payload, const sv_source *src, const char *path, sv_error *err)
{
	(void)payload;
	return sv_save(src, path, NULL, NULL, err);
}

/* The event picker's reload: the same file, the same options, another event; quietly (the
 * TUI owns the screen: no progress bar, warnings are in the file's notes). */
static int reload_file(const void *payload, const tui_reload *r, sv_source **out, sv_error *err)
{
	const cli_opts *o = ((const tui_payload *)payload)->o;
	sv_import_opts io = cli_import_opts(o);
	char def[4400]; /* the default symbol path, while the file loads */
	if (r->event)
		io.event = r->event;
	if (r->priority)
		io.priority = r->priority;
	io.code_paths = r->code_paths;
	sv_progress watch = { .fn = r->progress, .payload = r->progress_payload };
	if (r->progress)
		io.progress = &watch;
	char mods[2100];
	if (r->symbol_modules) {
		/* symbols on demand: the modules given (--symbol-modules) and those asked for; the
		 * symbol path given, else PerfView's default (Microsoft's server, cached under
		 * ~/.cache/stackview/symbols) */
		snprintf(mods, sizeof(mods), "%s%s%s", o->symbol_modules ? o->symbol_modules : "",
			 o->symbol_modules && *o->symbol_modules ? "," : "", r->symbol_modules);
		io.symbol_modules = mods;
		if (!io.symbol_path || !*io.symbol_path) {
			const char *cache = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
			snprintf(def, sizeof(def), "srv*%s%s/stackview/symbols*https://msdl.microsoft.com/download/symbols",
				 cache && *cache ? cache : home ? home : ".", cache && *cache ? "" : "/.cache");
			io.symbol_path = def;
		}
	}
	int rc = sv_load(out, o->files[0], &io, err);
	if (!rc && o->scaling) /* as cli_load applies it to the first event */
		sv_source_set_scaling(*out, strcmp(o->scaling, "time") == 0 ? SV_SCALING_TIME : SV_SCALING_DATA);
	return rc;
}

/* The Events view's reading of the file (V), on the TUI's reading thread: how far it is, and
 * its cancel, through the input's progress reports. */
static int reading_progress(void *payload, unsigned long long done, unsigned long long total)
{
	tui_ev_reading *rd = payload;
	atomic_store(&rd->done, done);
	atomic_store(&rd->total, total);
	return atomic_load(&rd->cancel) ? SV_ECANCELED : 0;
}

static int tui_load_events(const void *payload, sv_evlog *log, tui_ev_reading *rd, char *warn, size_t warncap, sv_error *err)
{
	const tui_payload *x = payload;
	sv_progress p = { .fn = reading_progress, .payload = rd };
	sv_list_prep *prep = prep_take(x->prep, false, rd); /* (waits for what is left of it) */
	return cli_events_log(x->o, x->o->files[0], prep, log, &p, &rd->cancel, warn, warncap, err);
}

/* Annotate (a) and Goto Source (Alt-D): the text stackview annotate and stackview source
 * print, each instruction or line marked hot when it has at least HOT_PERCENT of the
 * function (Goto Source: of its inclusive metric). */
#define HOT_PERCENT 0.5
static int tui_code_text(const void *payload, const sv_view *v, const char *name, bool source, char **text, bool **hot, size_t *nlines,
			 size_t *hottest, sv_error *err)
{
	sv_annotation an;
	sv_srcview g;
	*text = NULL;
	*hot = NULL;
	const cli_opts *o = ((const tui_payload *)payload)->o;
	const char *dd = o ? o->debug_dirs : NULL;
	int rc = source ? sv_goto_source(&g, v, name, o ? o->source_path : NULL, dd, err)
			: sv_annotate(&an, v, name, true, dd, err);
	if (rc)
		return rc;
	size_t n_items = source ? g.nlines : an.d.n;
	size_t len = 0, *at = malloc((n_items ? n_items : 1) * sizeof(*at));
	FILE *f = at ? open_memstream(text, &len) : NULL;
	if (f) {
		if (source)
			sv_srcview_print(f, &g, at);
		else
			sv_annotation_print(f, &an, at);
		rc = fclose(f) ? SV_ENOMEM : 0;
	} else {
		rc = SV_ENOMEM;
	}
	size_t n = 0;
	for (size_t i = 0; !rc && i < len; i++)
		n += (*text)[i] == '\n';
	if (!rc && !(*hot = calloc(n ? n : 1, sizeof(**hot))))
		rc = SV_ENOMEM;
	for (size_t i = 0; !rc && i < n_items; i++) {
		double part = source ? g.lines[i].cost.inc : an.metric[i], whole = source ? g.total.inc : an.fn->metric;
		if (at[i] < n)
			(*hot)[at[i]] = whole != 0 && 100.0 * part / whole >= HOT_PERCENT;
	}
	size_t top = source ? g.hottest : an.hottest;
	*nlines = n;
	*hottest = !rc && top < n_items ? at[top] : 0;
	free(at);
	if (source)
		sv_srcview_dispose(&g);
	else
		sv_annotation_dispose(&an);
	if (rc) {
		free(*text);
		free(*hot);
		*text = NULL;
		*hot = NULL;
		sv_error_set(err, rc, NULL);
	}
	return rc;
}

/* The terminal UI (or its headless run with --script). The TUI starts from the file's saved
 * state or the per-source defaults of spec §11.2; the command line's boxes go on top. */
int cli_run_tui(const cli_opts *o, sv_source *src, const char *title, const sv_params *p, bool pick, bool hot,
		const char *hello, struct ev_prep *prep)
{
	tui_payload pl = { o, prep };
	char *script = NULL;
	if (o->script && !(script = slurp(o->script))) {
		fprintf(stderr, "stackview: %s: cannot read the key script\n", o->script);
		sv_source_free(src);
		return EXIT_USAGE;
	}
	const char *slash = strrchr(title, '/');
	tui_options to = { slash ? slash + 1 : title, script, o->width, o->height, stdout, tui_save, NULL, pick,
			   o->presets, cli_presets_store, NULL, hello,
			   /* a file read from a pipe cannot be read again */
			   /* nor can a diff's runs, one by one */
			   o->nfiles && strcmp(o->files[0], "-") && !o->compare ? reload_file : NULL, &pl, .expand_hot = pick || hot,
			   .compare = o->compare, .give_source = true };
	/* a trace read from a file, of a format that lists events: its events can be listed */
	const sv_format *fmt = sv_format_find(sv_source_format(src));
	if (!o->compare && o->nfiles && strcmp(o->files[0], "-") && fmt && fmt->list_events)
		to.load_events = tui_load_events;
	/* code addresses (perf.data, perf script text, pprof, ETL, V8): a row's function can be
	 * annotated or its lines shown */
	if (sv_source_location_count(src))
		to.code_text = tui_code_text;
	/* a heap snapshot: the Priority box starts with what its tree was built with */
	if (!o->compare && strcmp(sv_source_format(src), "gcdump") == 0)
		to.priority = o->priority ? o->priority : sv_heap_default_priorities();
	sv_error err;
	sv_error_clear(&err);
	/* the first view of a big profile takes seconds before the window shows it: said meanwhile */
	bool said = !o->script && isatty(STDERR_FILENO);
	if (said) {
		fprintf(stderr, "stackview: making the first view of %s...", to.title);
		fflush(stderr);
	}
	cli_signals_on_fatal(tui_term_restore);
	int rc = EXIT_OK, r = tui_run(src, p, &to, &err);
	cli_signals_on_fatal(NULL);
	if (said)
		fputs("\r\033[K", stderr); /* (the window is gone: so is the line) */
	if (r) {
		char msg[1100];
		sv_error_format(msg, sizeof(msg), &err);
		fprintf(stderr, "stackview: %s\n", msg);
		rc = r == SV_EINVAL ? EXIT_USAGE : EXIT_INPUT;
	} else {
		rc = cli_finish_output(stdout);
	}
	free(script);
	return rc;
}

static int tui_on_file(const cli_opts *o, const char *why)
{
	sv_source *src = NULL;
	sv_params p = { 0 };
	ev_prep prep;
	prep_start(&prep, o); /* beside the load, on the other CPU */
	int rc = cli_load(&src, o->files[0], o);
	if (rc) {
		sv_list_prep_free(prep_take(&prep, true, NULL));
		return rc;
	}
	/* The data came through standard input (perf script | stackview): keys come from the
	 * terminal, as less and perf report read them. */
	if (!o->script && !isatty(STDIN_FILENO)) {
		int fd = open("/dev/tty", O_RDONLY | O_CLOEXEC);
		if (fd < 0 || dup2(fd, STDIN_FILENO) < 0) {
			fprintf(stderr, "stackview: no terminal to read keys from\n");
			if (fd >= 0)
				close(fd);
			sv_source_free(src);
			sv_list_prep_free(prep_take(&prep, true, NULL));
			return EXIT_USAGE;
		}
		close(fd);
	}
	const char *box[SV_BOX_COUNT];
	memcpy(box, o->box, sizeof(box));
	/* The format's opening state (PerfView's per kind of profile), unless the file saved one. */
	const sv_format *fmt = sv_format_find(sv_source_format(src));
	const sv_format_defaults *def = fmt && !sv_source_saved_params(src) ? fmt->defaults : NULL;
	char *group = NULL;
	if (def && def->group_system && !box[SV_BOX_GROUP] && sv_preset_group_system(&group, src)) {
		rc = EXIT_INPUT;
		fprintf(stderr, "stackview: out of memory\n");
		goto out;
	}
	if (def && !box[SV_BOX_GROUP])
		box[SV_BOX_GROUP] = group ? group : def->group;
	if (def && !box[SV_BOX_FOLD])
		box[SV_BOX_FOLD] = def->fold;
	if (cli_make_params(&p, src, box)) {
		rc = EXIT_INPUT;
		goto out;
	}
	/* Profiles of whole systems start with the process picker, as PerfView's do; it only
	 * fills IncPats, so a file's saved state or --inc skips it. */
	bool pick = def && def->pick_process && !o->box[SV_BOX_INC];
	/* Say what the opening boxes do, and where they came from. */
	char hello[400] = "";
	size_t h = why ? (size_t)snprintf(hello, sizeof(hello), "%s; ", why) : 0;
	if (group)
		snprintf(hello + h, sizeof(hello) - h,
			 "%s: system code grouped by module, your program's own code by function "
			 "(p edits GroupPats, P picks a preset)",
			 strncmp(group, "[group system modules]", 22) == 0 ? "[group system modules]" : "[group module entries]");
	else if (def && def->group)
		snprintf(hello + h, sizeof(hello) - h, "PerfView's opening GroupPats%s (p edits, P picks a preset)",
			 def->fold ? " and FoldPats" : "");
	/* A profile that opens with PerfView's boxes opens along its hot path, as PerfView's
	 * CallTree does. */
	rc = cli_run_tui(o, src, o->files[0], &p, pick, def != NULL, hello[0] ? hello : NULL, &prep);
	src = NULL; /* (taken over) */
out:
	sv_list_prep_free(prep_take(&prep, true, NULL)); /* (V was not pressed) */
	free(group);
	sv_params_dispose(&p);
	sv_source_free(src);
	return rc;
}

/* The tutorial profile: beside the binary in a build tree, or in PREFIX/share. */
const char *cli_tutorial_path(char *buf, size_t size)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			static const char *const rel[] = { "/../../examples/tutorial.perfView.xml",
							   "/../share/stackview/tutorial.perfView.xml" };
			for (size_t i = 0; i < 2; i++) {
				snprintf(buf, size, "%s%s", exe, rel[i]);
				if (access(buf, R_OK) == 0)
					return buf;
			}
		}
	}
	return "examples/tutorial.perfView.xml";
}

/* `stackview [view] [FILE]`. Without FILE: standard input when data is piped in (perf script
 * | stackview), else ./perf.data when there is one (perf report's default), else the tutorial.
 * The call tree is printed instead when the output is not a terminal (and no key script
 * drives the UI). */
int cmd_tui(const cli_opts *o_)
{
	cli_opts o = *o_;
	char buf[PATH_MAX + 64];
	const char *why = NULL;
	bool term_out = isatty(STDOUT_FILENO);
	if (o.nfiles == 0) {
		o.nfiles = 1;
		if (!isatty(STDIN_FILENO) && term_out && !o.script) {
			o.files[0] = "-";
			why = "read from standard input";
		} else if (access("perf.data", R_OK) == 0) {
			o.files[0] = "perf.data";
			why = "opened ./perf.data (perf record's default; stackview FILE opens another)";
			fprintf(stderr, "stackview: %s\n", why);
		} else {
			o.files[0] = cli_tutorial_path(buf, sizeof(buf));
		}
	}
	if (!o.script && !term_out)
		return cli_view(&o, "calltree");
	if (!o.script && !isatty(STDIN_FILENO) && access("/dev/tty", R_OK) != 0)
		return cli_view(&o, "calltree"); /* data piped in and no terminal to read keys from */
	return tui_on_file(&o, why);
}
