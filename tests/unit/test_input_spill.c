/* SPDX-License-Identifier: MIT */
/* A long pipe read whole (stackview/input.h, spill_bytes): past the bound the rest goes to an
 * unlinked file in $TMPDIR and the input is that file, mapped, byte for byte what the pipe
 * brought; no directory to put it in keeps it in memory; a file that cannot grow (a
 * file-size limit here) is an error naming the directory; the size limit still holds. */
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stackview/formats.h"
#include "unit.h"

#define TOTAL (5u << 20)

static unsigned char *pattern(void)
{
	unsigned char *p = malloc(TOTAL);
	for (size_t i = 0; i < TOTAL; i++)
		p[i] = (unsigned char)(i * 2654435761u >> 13);
	return p;
}

typedef struct feed {
	int fd;
	const unsigned char *p;
} feed;

static void *writer(void *arg)
{
	feed *f = arg;
	size_t off = 0;
	while (off < TOTAL) {
		ssize_t w = write(f->fd, f->p + off, TOTAL - off > 65536 ? 65536 : TOTAL - off);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	close(f->fd);
	return NULL;
}

/* The pipe read whole through sv_input_complete, spilling past 1 MiB; the input is left for
 * the caller to check and dispose. */
static int read_pipe(sv_input *in, const unsigned char *p, unsigned long long max, sv_error *err)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	feed f = { fds[1], p };
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, writer, &f), 0);
	memset(in, 0, sizeof(*in));
	in->name = strdup("-");
	in->partial = true;
	in->fd = fds[0];
	in->spill_bytes = 1u << 20;
	in->max_bytes = max;
	sv_error_clear(err);
	int rc = sv_input_complete(in, err);
	close(fds[0]);
	pthread_join(th, NULL);
	return rc;
}

static bool dir_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	bool empty = true;
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = false;
	if (d)
		closedir(d);
	return empty;
}

/* A fresh directory as TMPDIR (dir: room for "/tmp/sv-spill-XXXXXX"). */
static void fresh_tmpdir(char *dir)
{
	strcpy(dir, "/tmp/sv-spill-XXXXXX");
	assert_non_null(mkdtemp(dir));
	setenv("TMPDIR", dir, 1);
}

/* The whole pipe read, byte for byte, in a file (mapped) or in memory. */
static void read_whole(bool mapped)
{
	unsigned char *p = pattern();
	sv_input in;
	sv_error err;
	assert_int_equal(read_pipe(&in, p, 0, &err), 0);
	assert_int_equal(in.mapped, mapped);
	assert_false(in.partial);
	assert_int_equal(in.len, TOTAL);
	assert_memory_equal(in.data, p, TOTAL);
	sv_input_dispose(&in);
	free(p);
}

static void test_spills_to_a_file(void **state)
{
	(void)state;
	char dir[32];
	fresh_tmpdir(dir);
	read_whole(true);
	assert_true(dir_empty(dir)); /* unlinked at once: nothing left behind */
	rmdir(dir);
}

static void test_no_directory_stays_in_memory(void **state)
{
	(void)state;
	setenv("TMPDIR", "/nonexistent/stackview-test", 1);
	read_whole(false);
}

static void test_limit_holds(void **state)
{
	(void)state;
	char dir[32];
	fresh_tmpdir(dir);
	unsigned char *p = pattern();
	sv_input in;
	sv_error err;
	assert_int_equal(read_pipe(&in, p, 3u << 20, &err), SV_ELIMIT);
	assert_non_null(strstr(err.msg, "input larger than 3145728 bytes"));
	sv_input_dispose(&in);
	assert_true(dir_empty(dir));
	rmdir(dir);
	free(p);
}

static void test_full_file_is_an_error(void **state)
{
	(void)state;
	char dir[32];
	fresh_tmpdir(dir);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* the file may not grow past 2 MiB: the write fails (EFBIG) instead of a signal */
		signal(SIGXFSZ, SIG_IGN);
		struct rlimit rl = { 2u << 20, 2u << 20 };
		setrlimit(RLIMIT_FSIZE, &rl);
		unsigned char *p = pattern();
		sv_input in;
		sv_error err;
		int rc = read_pipe(&in, p, 0, &err);
		bool ok = rc == SV_EIO && strstr(err.msg, "cannot keep the input in ") && strstr(err.msg, dir);
		sv_input_dispose(&in);
		free(p);
		_exit(ok ? 0 : 1);
	}
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_true(dir_empty(dir));
	rmdir(dir);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN); /* a reader that stops early closes the pipe on its writer */
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_spills_to_a_file),
					    cmocka_unit_test(test_no_directory_stays_in_memory),
					    cmocka_unit_test(test_limit_holds), cmocka_unit_test(test_full_file_is_an_error) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
