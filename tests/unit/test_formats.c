/* SPDX-License-Identifier: MIT */
/* Importers through sv_load: saved state, zips, and errors that name file and line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "stackview/formats.h"
#include "unit.h"

static char tmpdir[] = "/tmp/sv-test-XXXXXX";

static const char *write_file(const char *name, const char *text)
{
	static char path[512];
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void test_advanced_state(void **state)
{
	(void)state;
	const char *p = write_file("a.perfView.xml",
		"<?xml version=\"1.0\"?><StackWindow><StackSource>"
		"<Frames><Frame ID=\"0\">ROOT</Frame><Frame ID=\"4\">m!main</Frame><Frame ID=\"5\">m!f</Frame></Frames>"
		"<Stacks><Stack ID=\"0\" CallerID=\"-1\" FrameID=\"4\"/><Stack ID=\"1\" CallerID=\"0\" FrameID=\"5\"/></Stacks>"
		"<Samples><Sample ID=\"0\" Time=\"1.500\" StackID=\"1\" Metric=\"2.5\"/><Sample Time=\"2\" StackID=\"0\"/></Samples>"
		"</StackSource><StackWindowGuiState><FilterGuiState>"
		"<GroupRegEx><Value>[g] {%}!->m $1</Value><History><string>old</string></History></GroupRegEx>"
		"<FoldPercent><Value>x</Value></FoldPercent><IncludeRegEx>inc</IncludeRegEx>"
		"</FilterGuiState><Notes>hello</Notes><ScalingPolicy>TimeMetric</ScalingPolicy></StackWindowGuiState>"
		"</StackWindow>");
	sv_source *s;
	sv_error err;
	sv_error_clear(&err);
	assert_int_equal(sv_load(&s, p, NULL, &err), 0);
	assert_int_equal(sv_source_sample_count(s), 2);
	assert_true(sv_source_total_metric(s) == 3.5);
	const sv_params *sp = sv_source_saved_params(s);
	assert_non_null(sp);
	assert_string_equal(sp->box[SV_BOX_GROUP], "[g] {%}!->m $1");
	assert_string_equal(sp->box[SV_BOX_FOLD_PCT], ""); /* not a number: ignored */
	assert_string_equal(sp->box[SV_BOX_INC], "inc");
	assert_string_equal(sv_source_notes(s), "hello");
	assert_int_equal(sv_source_scaling(s), SV_SCALING_TIME);
	sv_source_free(s);
}

static void test_errors(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		long line;
		const char *msg;
	} cases[] = {
		{ "<StackSource>\n<Samples>\n<Sample Time=\"abc\">A</Sample>\n</Samples></StackSource>", 3, "not a number" },
		{ "<StackSource>\n<Stacks>\n<Stack ID=\"0\" CallerID=\"7\" FrameID=\"1\"/>\n</Stacks></StackSource>", 3,
		  "CallerID 7" },
		{ "<StackSource><Frames><Frame ID=\"1\">a</Frame></Frames>\n<Stacks>\n<Stack ID=\"0\" CallerID=\"1\" "
		  "FrameID=\"1\"/>\n<Stack ID=\"1\" CallerID=\"0\" FrameID=\"1\"/>\n</Stacks></StackSource>",
		  0, "cycle" },
		{ "<StackSource>\n<Samples>\n<Sample StackID=\"3\"/>\n</Samples></StackSource>", 3, "undefined stack" },
		{ "<StackSource>\n<Samples>\n<Sample>\n</Samples>", 4, "malformed XML" },
		{ "<Other/>", 0, "no <StackSource>" },
		{ "{\"StackSource\":{\"Samples\":[\n{\"Time\":1,,}]}}", 2, "malformed JSON" },
		{ "{\"StackSource\":{\"Samples\":[{\"Time\":\"x\"}]}}", 0, "Time is not a number" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *p = write_file(cases[i].text[0] == '{' ? "bad.perfView.json" : "bad.perfView.xml", cases[i].text);
		sv_source *s = NULL;
		sv_error err;
		sv_error_clear(&err);
		int rc = sv_load(&s, p, NULL, &err);
		assert_true(rc < 0);
		assert_null(s);
		char buf[1200];
		sv_error_format(buf, sizeof(buf), &err);
		if (!strstr(buf, cases[i].msg) || !strstr(buf, p))
			fail_msg("case %zu: '%s'", i, buf);
		if (cases[i].line && err.line != cases[i].line)
			fail_msg("case %zu: line %ld, want %ld (%s)", i, err.line, cases[i].line, buf);
	}
}

static void test_empty_and_unknown(void **state)
{
	(void)state;
	sv_source *s = NULL;
	sv_error err;
	const char *p = write_file("empty.xml", "");
	assert_int_equal(sv_load(&s, p, NULL, &err), SV_EFORMAT);
	assert_non_null(strstr(err.msg, "empty"));
	p = write_file("x.txt", "hello world\n");
	assert_int_equal(sv_load(&s, p, NULL, &err), SV_EFORMAT);
	assert_int_equal(sv_load(&s, "/nonexistent/file.xml", NULL, &err), SV_EIO);
}

/* A child writes n bytes of 'x' into a pipe that becomes our standard input. */
static pid_t feed_stdin(size_t n, int *saved)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		static char chunk[65536];
		memset(chunk, 'x', sizeof(chunk));
		while (n) {
			size_t k = n < sizeof(chunk) ? n : sizeof(chunk);
			if (write(fds[1], chunk, k) != (ssize_t)k)
				_exit(0); /* the reader stopped: fine */
			n -= k;
		}
		_exit(0);
	}
	close(fds[1]);
	*saved = dup(STDIN_FILENO);
	dup2(fds[0], STDIN_FILENO);
	close(fds[0]);
	return pid;
}

static void unfeed_stdin(pid_t pid, int saved)
{
	dup2(saved, STDIN_FILENO);
	close(saved);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* The input bound (SV_MAX_INPUT_BYTES, 8 GiB) tested with a small one: standard input read
 * in two steps (sniffing, then the rest), a pipe named by path, a regular file and a gzip
 * that inflates past it are refused with one error and nothing freed twice (issue 15). */
static void test_input_bound(void **state)
{
	(void)state;
	const unsigned long long max = 3u << 20; /* past the 1 MiB sniff */
	sv_input in;
	sv_error err;
	int saved;
	pid_t pid = feed_stdin(max + 1, &saved);
	assert_int_equal(sv_input_read_bounded(&in, "-", NULL, max, &err), 0);
	assert_true(in.partial);
	assert_int_equal(sv_input_complete(&in, &err), SV_ELIMIT);
	assert_non_null(strstr(err.msg, "larger than 3145728 bytes"));
	sv_input_dispose(&in);
	unfeed_stdin(pid, saved);

	pid = feed_stdin(max, &saved); /* exactly at the bound: read */
	assert_int_equal(sv_input_read_bounded(&in, "-", NULL, max, &err), 0);
	assert_int_equal(sv_input_complete(&in, &err), 0);
	assert_int_equal(in.len, max);
	sv_input_dispose(&in);
	unfeed_stdin(pid, saved);

	pid = feed_stdin(max + 100, &saved); /* a pipe named by path is read whole */
	char path[64];
	snprintf(path, sizeof(path), "/dev/fd/%d", STDIN_FILENO);
	assert_int_equal(sv_input_read_bounded(&in, path, NULL, max, &err), SV_ELIMIT);
	assert_string_equal(err.file, path);
	unfeed_stdin(pid, saved);

	char *big = malloc(max + 1);
	assert_non_null(big);
	memset(big, 'y', max + 1);
	big[max] = '\0';
	const char *p = write_file("big.txt", big);
	assert_int_equal(sv_input_read_bounded(&in, p, NULL, max - 1, &err), SV_ELIMIT);
	assert_int_equal(sv_input_read_bounded(&in, p, NULL, max, &err), 0);
	sv_input_dispose(&in);

	/* gzip of max+1 bytes: inflating stops at the bound. */
	char gz[600];
	snprintf(gz, sizeof(gz), "%s/big.gz", tmpdir);
	gzFile g = gzopen(gz, "wb");
	assert_non_null(g);
	assert_int_equal(gzwrite(g, big, (unsigned)max), (int)max);
	gzputc(g, 'z');
	gzclose(g);
	free(big);
	assert_int_equal(sv_input_read_bounded(&in, gz, NULL, max, &err), 0);
	assert_true(sv_input_is_compressed(&in));
	assert_int_equal(sv_input_inflate(&in, &err), SV_ELIMIT);
	assert_non_null(strstr(err.msg, "inflates past 3145728 bytes"));
	sv_input_dispose(&in);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_advanced_state), cmocka_unit_test(test_errors),
					    cmocka_unit_test(test_empty_and_unknown), cmocka_unit_test(test_input_bound) };
	return cmocka_run_group_tests(tests, setup, teardown);
}
