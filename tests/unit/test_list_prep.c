/* SPDX-License-Identifier: MIT */
/* A listing from its first part read ahead (sv_list_prepare, sv_list_events_prepared: the
 * TUI's Events view) against the listing in one go (sv_list_events): every event and warning
 * the same, on real ETL traces (and those SV_LIST_PREP_TRACES names, colon-separated), on a file that changed size in between (listed from the
 * start), on formats with nothing to do ahead, and a preparation stopped by its progress
 * callback. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stackview/formats.h"
#include "unit.h"

/* Every event and warning as text. */
typedef struct text {
	char *buf;
	size_t len;
	FILE *f;
} text;

static int on_event(void *payload, const sv_trace_event *e)
{
	text *t = payload;
	fprintf(t->f, "%.6f %s|%s|%lld|%lld|%d|%d|%zu", e->ms, e->name, e->process ? e->process : "-", e->pid, e->tid,
		e->cpu, e->has_stack, e->data_len);
	for (size_t i = 0; i < e->nfields; i++)
		fprintf(t->f, " %s=%s", e->field_names[i], e->field_values[i]);
	fputc('\n', t->f);
	return 0;
}

static void on_warning(void *payload, const char *s)
{
	text *t = payload;
	fprintf(t->f, "warning: %s\n", s);
}

static char *listed(const char *path, bool prepared)
{
	text t = { 0 };
	t.f = open_memstream(&t.buf, &t.len);
	assert_non_null(t.f);
	sv_event_lister l = { on_event, on_warning, &t };
	sv_error err;
	sv_error_clear(&err);
	int rc;
	if (prepared) {
		sv_list_prep *p = NULL;
		assert_int_equal(sv_list_prepare(&p, path, NULL, &err), 0);
		assert_non_null(p);
		rc = sv_list_events_prepared(p, NULL, &l, &err);
	} else {
		rc = sv_list_events(path, NULL, &l, &err);
	}
	fprintf(t.f, "rc %d\n", rc);
	fclose(t.f);
	return t.buf;
}

static void same(const char *path, size_t at_least)
{
	char *a = listed(path, false), *b = listed(path, true);
	size_t lines = 0;
	for (const char *c = a; *c; c++)
		lines += *c == '\n';
	assert_true(lines >= at_least);
	assert_string_equal(a, b);
	free(a);
	free(b);
}

static void test_etl(void **state)
{
	(void)state;
	assert_true(sv_list_prepares("x/trace.etl", NULL));
	assert_true(sv_list_prepares("trace.ETL.zip", NULL));
	assert_true(sv_list_prepares("anything", "etl"));
	assert_false(sv_list_prepares("perf.data", NULL));
	assert_false(sv_list_prepares("trace.etl", "perf-data"));
	same("tests/data/etl/gcevents.etl.zip", 60);
	same("tests/data/etl/primitive-types.etl.zip", 5);
	/* traces too big for the repository (make test-extended names the shared ones): where
	 * the first pass's processes, threads and late metadata name what the second lists */
	const char *more = getenv("SV_LIST_PREP_TRACES");
	char *copy = more ? strdup(more) : NULL, *save = NULL;
	for (char *t = copy ? strtok_r(copy, ":", &save) : NULL; t; t = strtok_r(NULL, ":", &save))
		same(t, 1000);
	free(copy);
}

static void test_other_formats(void **state)
{
	(void)state;
	same("tests/data/perf-z/sh-loop.zstd.data", 900);
	same("tests/data/nettrace/ref.nettrace", 10);
}

static void copy_file(const char *from, const char *to, size_t cut)
{
	FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
	assert_true(a && b);
	char buf[65536];
	size_t n, total = 0;
	while ((n = fread(buf, 1, sizeof(buf), a)) > 0) {
		total += n;
		fwrite(buf, 1, n, b);
	}
	fclose(a);
	assert_int_equal(fclose(b), 0);
	if (cut)
		assert_int_equal(truncate(to, (off_t)(total - cut)), 0);
}

/* The file is written again between the two parts: what is listed is the file as it is. */
static void test_changed(void **state)
{
	(void)state;
	char dir[] = "/tmp/sv-list-prep-XXXXXX", path[64], other[64];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a.etl", dir);
	snprintf(other, sizeof(other), "%s/b.etl", dir);
	/* an unzipped copy of the trace, then the same with its last buffers cut off */
	sv_input in;
	sv_error err;
	sv_error_clear(&err);
	assert_int_equal(sv_input_open(&in, "tests/data/etl/gcevents.etl.zip", false, NULL, &err), 0);
	FILE *f = fopen(other, "wb");
	assert_non_null(f);
	fwrite(in.data, 1, in.len, f);
	assert_int_equal(fclose(f), 0);
	size_t len = in.len;
	sv_input_dispose(&in);
	copy_file(other, path, 0);
	sv_list_prep *p = NULL;
	assert_int_equal(sv_list_prepare(&p, path, NULL, &err), 0);
	copy_file(other, path, len / 3);
	text t = { 0 };
	t.f = open_memstream(&t.buf, &t.len);
	sv_event_lister l = { on_event, on_warning, &t };
	int rc = sv_list_events_prepared(p, NULL, &l, &err);
	fprintf(t.f, "rc %d\n", rc);
	fclose(t.f);
	char *want = listed(path, false);
	assert_string_equal(t.buf, want);
	free(want);
	free(t.buf);
	/* prepared and not used */
	assert_int_equal(sv_list_prepare(&p, path, NULL, &err), 0);
	sv_list_prep_free(p);
	remove(path);
	remove(other);
	remove(dir);
}

static int stop_at_once(void *payload, unsigned long long done, unsigned long long total)
{
	(void)payload, (void)done, (void)total;
	return SV_ECANCELED;
}

static void test_cancel(void **state)
{
	(void)state;
	sv_progress pr = { .fn = stop_at_once };
	sv_import_opts io = { .progress = &pr };
	sv_list_prep *p = (sv_list_prep *)&pr; /* set to NULL on failure */
	sv_error err;
	sv_error_clear(&err);
	assert_int_equal(sv_list_prepare(&p, "tests/data/etl/gcevents.etl.zip", &io, &err), SV_ECANCELED);
	assert_null(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_etl), cmocka_unit_test(test_other_formats),
					    cmocka_unit_test(test_changed), cmocka_unit_test(test_cancel) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
