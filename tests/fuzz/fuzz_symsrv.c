/* SPDX-License-Identifier: MIT */
/* Fuzz target: what a symbol server answers. A server thread on 127.0.0.1 sends the input's
 * bytes, as they are, to every request (status line, headers and body: a 200 with an HTML
 * page, a redirect, a chunked body, a cabinet, garbage), then closes; sv_symsrv_fetch asks
 * it for a PDB. Whatever the bytes, it must come back within its deadline, keep nothing that
 * is not a PDB, and leave neither a temporary file nor a directory it made. */
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "windows/symsrv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const uint8_t *answer;
static size_t answer_len;
static int listener = -1, port;
static char cache[64];

static void *serve(void *arg)
{
	(void)arg;
	for (;;) {
		int fd = accept(listener, NULL, NULL);
		if (fd < 0)
			continue;
		struct timeval tv = { 1, 0 };
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		char req[4096];
		size_t got = 0;
		ssize_t n;
		while (got < sizeof(req) - 1 && (n = read(fd, req + got, sizeof(req) - 1 - got)) > 0) {
			got += (size_t)n;
			req[got] = '\0';
			if (strstr(req, "\r\n\r\n"))
				break;
		}
		pthread_mutex_lock(&lock);
		size_t off = 0;
		while (off < answer_len && (n = send(fd, answer + off, answer_len - off, MSG_NOSIGNAL)) > 0)
			off += (size_t)n;
		pthread_mutex_unlock(&lock);
		close(fd);
	}
	return NULL;
}

static void remove_cache(void)
{
	rmdir(cache);
}

static int setup(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	pthread_t t;
	snprintf(cache, sizeof(cache), "/tmp/fuzz-symsrv-XXXXXX");
	if (!mkdtemp(cache) || (listener = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    bind(listener, (struct sockaddr *)&a, sizeof(a)) || listen(listener, 16) ||
	    getsockname(listener, (struct sockaddr *)&a, &al) || pthread_create(&t, NULL, serve, NULL))
		return -1;
	pthread_detach(t);
	port = ntohs(a.sin_port);
	atexit(remove_cache);
	return 0;
}

/* Whatever is left in the cache: the PDB when the fetch succeeded, else nothing. */
static size_t leftovers(const char *dir, char *first, size_t cap)
{
	DIR *d = opendir(dir);
	size_t n = 0;
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!n++)
			snprintf(first, cap, "%s/%s", dir, e->d_name);
	}
	if (d)
		closedir(d);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (listener < 0 && setup())
		return 0;
	pthread_mutex_lock(&lock);
	answer = data;
	answer_len = size;
	pthread_mutex_unlock(&lock);
	char url[64], path[4200], why[700];
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", port);
	sv_import_opts o = { .net_file_s = 3, .net_total_s = 3 };
	sv_net net;
	sv_net_init(&net, &o);
	int rc = sv_symsrv_fetch(&net, url, cache, "x.pdb", "0123456789ABCDEF0123456789ABCDEF1", path, sizeof(path), why,
				 sizeof(why));
	char first[4200] = "";
	if (rc != 0 && leftovers(cache, first, sizeof(first))) {
		fprintf(stderr, "a failed fetch (%s) left %s\n", why, first);
		abort();
	}
	if (rc == 0) {
		FILE *f = fopen(path, "rb");
		char head[32] = "";
		if (!f || fread(head, 1, 28, f) != 28 || memcmp(head, "Microsoft C/C++ MSF 7.00\r\n\x1a" "DS", 28)) {
			fprintf(stderr, "kept %s, which is no PDB\n", path);
			abort();
		}
		fclose(f);
		/* the layout is CACHE/x.pdb/KEY/x.pdb: take it away for the next input */
		unlink(path);
		char *slash = strrchr(path, '/');
		*slash = '\0';
		rmdir(path);
		slash = strrchr(path, '/');
		*slash = '\0';
		rmdir(path);
		if (leftovers(cache, first, sizeof(first))) {
			fprintf(stderr, "a fetch left %s besides its PDB\n", first);
			abort();
		}
	}
	/* the server may still be sending this input (the client gave up early): wait for it,
	 * then no connection may read the bytes libFuzzer frees next */
	pthread_mutex_lock(&lock);
	answer = NULL;
	answer_len = 0;
	pthread_mutex_unlock(&lock);
	return 0;
}
