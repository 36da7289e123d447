/* SPDX-License-Identifier: MIT */
/* The format table, content sniffing and sv_load (see stackview/formats.h). */
#include "stackview/formats.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const sv_format *const registry[] = {
	&sv_fmt_perfview_xml,
	&sv_fmt_speedscope,
	&sv_fmt_chrome,
	&sv_fmt_gecko,
	&sv_fmt_perfview_json,
	&sv_fmt_etl,
	&sv_fmt_perf_data,
	&sv_fmt_pprof,
	&sv_fmt_nettrace,
	&sv_fmt_gcdump,
	&sv_fmt_wperf,
	&sv_fmt_heaptrack,
	&sv_fmt_dtrace,
	&sv_fmt_mac_sample,
	&sv_fmt_perf_script,
	&sv_fmt_folded,
	&sv_fmt_svg,
	NULL,
};

const sv_format *const *sv_formats(void)
{
	return registry;
}

const sv_format *sv_format_find(const char *name)
{
	for (const sv_format *const *f = registry; *f; f++)
		if (strcasecmp((*f)->name, name) == 0)
			return *f;
	return NULL;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcasecmp(s + a - b, suffix) == 0;
}

/* Files that no reader reads but whose kind is known: refused by name, with what to do,
 * rather than taken for what they only resemble (a legacy Go heap profile reads as a perf
 * script header). */
static const struct {
	const char *prefix, *what, *advice;
} unread[] = {
	{ "heap profile: ", "a legacy Go heap profile (text)", "convert it with go tool pprof -proto FILE > FILE.pb.gz" },
	{ "--- contention:", "a legacy Go contention profile (text)", "convert it with go tool pprof -proto FILE > FILE.pb.gz" },
	{ "--- mutex:", "a legacy Go mutex profile (text)", "convert it with go tool pprof -proto FILE > FILE.pb.gz" },
	{ "goroutine profile: total ", "a Go goroutine listing (debug=1)",
	  "ask for the profile itself (/debug/pprof/goroutine without ?debug, or WriteTo(w, 0))" },
	{ "threadcreate profile: total ", "a Go threadcreate listing (debug=1)",
	  "ask for the profile itself (/debug/pprof/threadcreate without ?debug, or WriteTo(w, 0))" },
};

/* The kind (an index into unread) of a file no reader reads, or -1. */
static int unread_kind(const sv_input *in)
{
	size_t i = in->len >= 3 && !memcmp(in->data, "\xEF\xBB\xBF", 3) ? 3 : 0;
	for (size_t k = 0; k < sizeof(unread) / sizeof(unread[0]); k++) {
		size_t n = strlen(unread[k].prefix);
		if (in->len - i >= n && !memcmp(in->data + i, unread[k].prefix, n))
			return (int)k;
	}
	return -1;
}

const sv_format *sv_format_detect(const sv_input *in)
{
	if (unread_kind(in) >= 0)
		return NULL;
	for (const sv_format *const *f = registry; *f; f++)
		if ((*f)->probe && (*f)->probe(in->data, in->len))
			return *f;
	const char *name = in->inner ? in->inner : in->name;
	for (const sv_format *const *f = registry; *f; f++)
		for (const char *const *p = (*f)->patterns; (*f)->import && p && *p; p++)
			if (ends_with(name, *p))
				return *f;
	return NULL;
}

int sv_input_open(sv_input *in, const char *path, bool format_named, sv_progress *progress, sv_error *err)
{
	int rc = sv_input_read_watched(in, path, progress, err);
	if (rc)
		return rc;
	if (in->len == 0) {
		rc = sv_error_set(err, SV_EFORMAT, "empty file");
		sv_error_locate(err, path, 0, -1);
	} else if (sv_input_is_zip(in) && ((rc = sv_input_complete(in, err)) || (rc = sv_input_unzip(in, err)))) {
		/* rc set */
	} else if (!format_named && sv_input_is_compressed(in) && (sv_input_is_compressed_by_magic(in) || !sv_format_detect(in)) &&
		   ((rc = sv_input_complete(in, err)) || (rc = sv_input_inflate(in, err)))) {
		/* gzip and zstd by their magic; a zlib stream only when no format claims the bytes as
		 * they are */
	} else if (sv_input_is_utf16(in) && ((rc = sv_input_complete(in, err)) || (rc = sv_input_from_utf16(in, err)))) {
		/* rc set */
	}
	if (rc)
		sv_input_dispose(in);
	return rc;
}

/* Open an input and find its format (opts->format, else by content and name); the input
 * is read whole unless the format streams. On failure nothing is left to dispose. */
static int open_input(sv_input *in, const sv_format **fmt, const char *path, const sv_import_opts *opts, sv_error *err)
{
	const char *format = opts->format;
	int rc = sv_input_open(in, path, format != NULL, opts->progress, err);
	if (rc)
		return rc;
	if (format) {
		*fmt = sv_format_find(format);
		if (!*fmt || !(*fmt)->import) {
			rc = sv_error_set(err, SV_EINVAL, "unknown format '%s'", format);
			goto out;
		}
	} else {
		*fmt = sv_format_detect(in);
		int k = unread_kind(in);
		if (k >= 0) {
			rc = sv_error_set(err, SV_EFORMAT, "%s: not read; %s", unread[k].what, unread[k].advice);
			sv_error_locate(err, path, 0, -1);
			goto out;
		}
		if (!*fmt) {
			rc = sv_error_set(err, SV_EFORMAT, "unrecognised file format");
			sv_error_locate(err, path, 0, -1);
			goto out;
		}
	}
	if (!(*fmt)->streams && (rc = sv_input_complete(in, err)))
		goto out;
	if (in->progress)
		in->progress->next = 0; /* parsing starts over at byte 0 of what was read */
out:
	if (rc)
		sv_input_dispose(in);
	return rc;
}


bool sv_list_prepares(const char *path, const char *format)
{
	char name[4096];
	size_t n = strlen(path);
	if (n >= sizeof(name))
		return false;
	memcpy(name, path, n + 1);
	if (ends_with(name, ".zip")) /* PerfView's trace.etl.zip */
		name[n - 4] = '\0';
	for (const sv_format *const *f = registry; *f; f++) {
		if (!(*f)->list_prepare)
			continue;
		if (format) {
			if (strcmp(format, (*f)->name) == 0)
				return true;
			continue;
		}
		for (const char *const *p = (*f)->patterns; p && *p; p++)
			if (ends_with(name, *p))
				return true;
	}
	return false;
}

struct sv_list_prep {
	char *path;
	const sv_format *fmt;
	size_t len;  /* the input's length when prepared */
	void *state; /* the format's first part, or NULL */
};

void sv_list_prep_free(sv_list_prep *p)
{
	if (!p)
		return;
	if (p->state)
		p->fmt->list_state_free(p->state);
	free(p->path);
	free(p);
}

int sv_list_prepare(sv_list_prep **out, const char *path, const sv_import_opts *opts, sv_error *err)
{
	static const sv_import_opts none = { 0 };
	if (!opts)
		opts = &none;
	*out = NULL;
	sv_list_prep *p = calloc(1, sizeof(*p));
	if (!p || !(p->path = strdup(path))) {
		free(p);
		return sv_error_set(err, SV_ENOMEM, NULL);
	}
	sv_input in = { 0 };
	int rc = open_input(&in, &p->fmt, path, opts, err);
	if (rc) {
		sv_list_prep_free(p);
		return rc;
	}
	p->len = in.len;
	if (p->fmt->list_prepare && !(p->fmt->streams && (rc = sv_input_complete(&in, err))))
		rc = p->fmt->list_prepare(&in, opts, &p->state, err);
	sv_input_dispose(&in);
	if (rc) {
		sv_list_prep_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

/* A listing of the file at path, from p's first part when p holds one for this file as it
 * is now (the state is taken), else whole. */
static int list_events(const char *path, const sv_import_opts *opts, const sv_event_lister *l, sv_list_prep *p,
		       sv_error *err)
{
	static const sv_import_opts none = { 0 };
	if (!opts)
		opts = &none;
	sv_input in = { 0 };
	const sv_format *fmt = NULL;
	int rc = open_input(&in, &fmt, path, opts, err);
	if (rc)
		return rc;
	if (p && p->state && fmt == p->fmt && in.len == p->len) { /* else another file now: whole */
		void *state = p->state;
		p->state = NULL; /* list_prepared frees it */
		rc = fmt->list_prepared(&in, state, opts, l, err);
	} else if (!fmt->list_events) {
		rc = sv_error_set(err, SV_EINVAL,
				  "a %s file holds no event list (events are listed from ETL and .nettrace traces, perf.data and perf script text)",
				  fmt->name);
	} else if (!fmt->streams || !(rc = sv_input_complete(&in, err))) {
		rc = fmt->list_events(&in, opts, l, err); /* a listing reads the whole input */
	}
	if (rc < 0 && err && !err->file[0] && rc != SV_ENOMEM)
		sv_error_locate(err, path, 0, -1);
	sv_input_dispose(&in);
	return rc;
}

int sv_list_events(const char *path, const sv_import_opts *opts, const sv_event_lister *l, sv_error *err)
{
	return list_events(path, opts, l, NULL, err);
}

int sv_list_events_prepared(sv_list_prep *p, const sv_import_opts *opts, const sv_event_lister *l, sv_error *err)
{
	int rc = list_events(p->path, opts, l, p, err);
	sv_list_prep_free(p);
	return rc;
}

int sv_load(sv_source **out, const char *path, const sv_import_opts *opts, sv_error *err)
{
	static const sv_import_opts none = { 0 };
	if (!opts)
		opts = &none;
	sv_input in = { 0 };
	sv_source *src = NULL;
	const sv_format *fmt = NULL;
	int rc = open_input(&in, &fmt, path, opts, err);
	if (rc)
		return rc;
	if ((rc = sv_source_new(&src, fmt->name))) {
		sv_error_set(err, rc, NULL);
		goto out;
	}
	sv_source_set_aggregate(src, opts->aggregate);
	sv_sink sink = sv_source_sink(src);
	if ((rc = fmt->import(&sink, &in, opts, err))) {
		/* Every failure says what it is, even one an importer passed up without words; a
		 * refused sample says why. */
		const char *why = sv_source_refusal(src);
		if (err && err->msg[0] && why && !strstr(err->msg, why)) {
			size_t n = strlen(err->msg);
			snprintf(err->msg + n, sizeof(err->msg) - n, ": %s", why);
		} else if (err && !err->msg[0] && why) {
			sv_error_set(err, rc, "%s", why);
			err->file[0] = '\0';
		} else if (err && !err->msg[0]) {
			sv_error_set(err, rc, rc == SV_ELIMIT ? "a limit was exceeded (too many samples, or metrics that add "
								"up past the largest number)"
							      : NULL);
			err->file[0] = '\0';
		}
		if (!err || !err->file[0])
			sv_error_locate(err, path, 0, -1);
		goto out;
	}
	/* --event on an input that names no events is a mistake to say, not to ignore. */
	if (opts->event && sv_source_event_count(src) == 0) {
		rc = sv_error_set(err, SV_EINVAL, "no event '%s': this %s input names no events (--event is for perf, pprof, "
						   "WindowsPerf and ETL inputs)", opts->event, fmt->name);
		sv_error_locate(err, path, 0, -1);
		goto out;
	}
	sv_source_trim(src); /* read: what only interning needs goes */
	*out = src;
	src = NULL;
out:
	sv_source_free(src);
	sv_input_dispose(&in);
	return rc;
}
