/* SPDX-License-Identifier: MIT */
/* Symbol server downloads (symsrv.h): a PDB fetched over HTTP(S) with libcurl from the
 * symbol-store layout URL/name.pdb/KEY/name.pdb (then the CAB-compressed name.pd_, expanded
 * with libmspack, as Microsoft's server often serves it) into the cache's same layout,
 * written to a temporary file and renamed into place, so a cache never holds half a PDB. */
#include "symsrv.h"

#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <mspack.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "core/hold.h"

#define MAX_PDB_BYTES (4ULL << 30) /* a download or an expanded .pd_ */

/* Make the directories of path that do not exist; each one made is recorded in made[] (up to
 * 4, outermost first) so that a failed download can take them away again. */
static int mkdirs(char *path, char made[][4200], int *nmade)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		int rc = mkdir(path, 0755);
		if (!rc && *nmade < 4)
			snprintf(made[(*nmade)++], 4200, "%s", path);
		*p = '/';
		if (rc && errno != EEXIST)
			return -1;
	}
	return 0;
}

/* A name from a trace names one file: no separator, no "." or "..", no control character. */
bool sv_symsrv_safe_name(const char *s)
{
	if (!*s || !strcmp(s, ".") || !strcmp(s, "..") || strlen(s) > 255)
		return false;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f || *p == '/' || *p == '\\' || *p == ':')
			return false;
	return true;
}

/* A store key: the GUID and age (PDBs) or the time stamp and size (images), in hex. */
static bool safe_key(const char *s)
{
	size_t n = strlen(s);
	if (!n || n > 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* A download stops when the cache's file system would keep less than this free. */
#define MIN_FREE_BYTES (1ULL << 30)

typedef struct sink {
	FILE *f;
	unsigned long long n, checked; /* bytes received; when the free space was last looked at */
	bool full;
	sv_net *net;
	unsigned char head[32]; /* the first bytes, to say what a wrong answer was */
} sink;

static size_t on_data(char *p, size_t size, size_t nmemb, void *payload)
{
	sink *s = payload;
	size_t n = size * nmemb;
	if (s->n < sizeof(s->head))
		memcpy(s->head + s->n, p, n < sizeof(s->head) - s->n ? n : sizeof(s->head) - s->n);
	s->n += n;
	if (s->n > MAX_PDB_BYTES)
		return 0; /* curl stops with a write error */
	if (s->n - s->checked >= (64u << 20)) { /* an endless body must not fill the disk */
		struct statvfs v;
		s->checked = s->n;
		if (fstatvfs(fileno(s->f), &v) == 0 && (unsigned long long)v.f_bavail * v.f_frsize < MIN_FREE_BYTES) {
			s->full = true;
			return 0;
		}
	}
	return fwrite(p, 1, n, s->f);
}

/* Called by libcurl about once a second even while nothing arrives: stop on Ctrl-C. */
static int on_progress(void *payload, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
	(void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
	sink *s = payload;
	return sv_net_stop(s->net) ? 1 : 0;
}

/* The first bytes of a download as a short printable quote. */
static void quote(char *buf, size_t cap, const unsigned char *head, unsigned long long n)
{
	size_t k = 0, m = n < 24 ? (size_t)n : 24;
	for (size_t i = 0; i < m && k + 5 < cap; i++)
		k += (size_t)snprintf(buf + k, cap - k, head[i] >= 0x20 && head[i] < 0x7f ? "%c" : "\\x%02x", head[i]);
	buf[k] = '\0';
}

/* GET url into the file at tmp within `allow` seconds; 0 ok, 404 for not there, -2 when the
 * user stopped it, -1 otherwise (why says). *head holds the body's first bytes. */
static int get(const char *url, const char *tmp, double allow, sv_net *net, unsigned char head[32],
	       unsigned long long *got, char *why, size_t wcap)
{
	FILE *f = fopen(tmp, "wb");
	if (!f) {
		snprintf(why, wcap, "%s: %s", tmp, strerror(errno));
		return -1;
	}
	CURL *h = curl_easy_init();
	if (!h) {
		fclose(f);
		snprintf(why, wcap, "cannot start a download");
		return -1;
	}
	sink s = { .f = f, .net = net };
	char err[CURL_ERROR_SIZE] = "";
	long ms = (long)(allow * 1000);
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
	curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(h, CURLOPT_XFERINFODATA, &s);
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, err);
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, ms < 10000 ? ms : 10000L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, ms > 0 ? ms : 1L); /* the whole transfer */
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L); /* stalled for 30 s: give up */
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, 30L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "Microsoft-Symbol-Server/10.0.0.0 (stackview)");
	CURLcode rc = curl_easy_perform(h);
	long status = 0;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(h);
	bool wrote = fclose(f) == 0;
	memcpy(head, s.head, sizeof(s.head));
	*got = s.n;
	if (net->stopped || rc == CURLE_ABORTED_BY_CALLBACK) {
		snprintf(why, wcap, "%s: stopped", url);
		return -2;
	}
	if (rc == CURLE_OK && status == 200 && wrote)
		return 0;
	if (rc == CURLE_OK && status == 404)
		return 404;
	if (rc == CURLE_OK)
		snprintf(why, wcap, "%s: HTTP %ld", url, status);
	else if (rc == CURLE_OPERATION_TIMEDOUT)
		snprintf(why, wcap, "%s: timed out after %.0f s (%llu bytes received; --net-timeout, --net-total)", url,
			 allow, s.n);
	else if (rc == CURLE_WRITE_ERROR && s.full)
		snprintf(why, wcap, "%s: stopped at %llu bytes: the cache's file system has less than 1 GiB free", url, s.n);
	else if (rc == CURLE_WRITE_ERROR && s.n > MAX_PDB_BYTES)
		snprintf(why, wcap, "%s: more than %llu bytes: not a PDB", url, MAX_PDB_BYTES);
	else
		snprintf(why, wcap, "%s: %s", url, err[0] ? err : curl_easy_strerror(rc));
	return -1;
}

static bool is_pdb(const char *name)
{
	size_t l = strlen(name);
	return l >= 4 && !strcasecmp(name + l - 4, ".pdb");
}

/* What a PDB (MSF 7.00) or an image (MZ) begins with: a server's 200 may be an HTML page. */
static bool right_kind(const char *name, const unsigned char *head, unsigned long long n)
{
	static const char msf[] = "Microsoft C/C++ MSF 7.00\r\n\x1a" "DS";
	if (is_pdb(name))
		return n >= sizeof(msf) - 1 && !memcmp(head, msf, sizeof(msf) - 1);
	return n >= 2 && head[0] == 'M' && head[1] == 'Z';
}

static bool file_head(const char *path, unsigned char head[32], unsigned long long *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	*n = fread(head, 1, 32, f);
	fclose(f);
	return true;
}

/* Expand the one file of the cabinet at cab into out; 0 or -1 (why says). */
int sv_symsrv_expand(const char *cab, const char *out, char *why, size_t wcap)
{
	struct mscab_decompressor *d = mspack_create_cab_decompressor(NULL);
	if (!d) {
		snprintf(why, wcap, "cannot start libmspack");
		return -1;
	}
	int rc = -1;
	struct mscabd_cabinet *c = d->open(d, (char *)(uintptr_t)cab);
	if (!c)
		snprintf(why, wcap, "%s: not a cabinet (libmspack error %d)", cab, d->last_error(d));
	else if (!c->files || c->files->next)
		snprintf(why, wcap, "%s: a cabinet of %s files, not one PDB", cab, c->files ? "several" : "no");
	else if (d->extract(d, c->files, (char *)(uintptr_t)out) != MSPACK_ERR_OK)
		snprintf(why, wcap, "%s: corrupt cabinet (libmspack error %d)", cab, d->last_error(d));
	else
		rc = 0;
	if (c)
		d->close(d, c);
	mspack_destroy_cab_decompressor(d);
	return rc;
}

int sv_symsrv_fetch(sv_net *net, const char *url, const char *cache, const char *name, const char *key, char *path,
		    size_t cap, char *why, size_t wcap)
{
	if (!sv_symsrv_safe_name(name) || !safe_key(key)) {
		snprintf(why, wcap, "not asked: the trace's name '%.80s' (key '%.40s') is not one file's name", name, key);
		return -1;
	}
	double allow = sv_net_allow(net);
	if (allow <= 0) {
		snprintf(why, wcap, net->stopped ? "not asked: stopped"
						 : "not asked: the run's %.0f s for downloads are spent (--net-total)",
			 net->total_s);
		return net->stopped ? -2 : -1;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT)) { /* reference-counted: paired below */
		snprintf(why, wcap, "cannot start libcurl");
		return -1;
	}
	size_t ul = strlen(url);
	while (ul && url[ul - 1] == '/')
		ul--;
	char made[4][4200];
	int nmade = 0;
	int n = snprintf(path, cap, "%s/%s/%s/%s", cache, name, key, name);
	if (n < 0 || (size_t)n >= cap || mkdirs(path, made, &nmade)) {
		snprintf(why, wcap, "%s: cannot make the cache's directories", cache);
		while (nmade)
			rmdir(made[--nmade]);
		curl_global_cleanup();
		return -1;
	}
	char tmp[4200], tmp2[4200], u[4200];
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	snprintf(tmp2, sizeof(tmp2), "%s.cab.%ld", path, (long)getpid());
	snprintf(u, sizeof(u), "%.*s/%s/%s/%s", (int)ul, url, name, key, name);
	/* The temporaries exist only while the signals that end the program are held: one that
	 * arrives stops the transfer within a second, the temporaries go, then it is delivered. */
	sigset_t old;
	sv_hold_begin(&old);
	unsigned char head[32];
	unsigned long long got = 0;
	double t0 = sv_net_now();
	int rc = get(u, tmp, allow, net, head, &got, why, wcap);
	if (rc == 0 && !right_kind(name, head, got)) {
		char q[128];
		quote(q, sizeof(q), head, got);
		snprintf(why, wcap, "%s: HTTP 200 but not a %s (it begins \"%s\")", u,
			 is_pdb(name) ? "PDB" : "PE image", q);
		rc = -1;
	}
	if (rc == 404) { /* the compressed form: name.pd_ */
		size_t nl = strlen(name);
		snprintf(u, sizeof(u), "%.*s/%s/%s/%.*s_", (int)ul, url, name, key, (int)(nl ? nl - 1 : 0), name);
		double left = allow - (sv_net_now() - t0);
		rc = left > 0 ? get(u, tmp2, left, net, head, &got, why, wcap) : -1;
		if (left <= 0)
			snprintf(why, wcap, "%s: no time left for the .pd_ (--net-timeout)", u);
		if (rc == 0)
			rc = sv_symsrv_expand(tmp2, tmp, why, wcap);
		if (rc == 0 && (!file_head(tmp, head, &got) || !right_kind(name, head, got))) {
			snprintf(why, wcap, "%s: the cabinet holds no %s", u, "PDB");
			rc = -1;
		}
		unlink(tmp2);
		if (rc == 404)
			snprintf(why, wcap, "not on %.*s (HTTP 404 for %s and its .pd_)", (int)ul, url, name);
	}
	if (rc == -1 && sv_net_allow(net) <= 0 && !net->stopped)
		snprintf(why + strlen(why), wcap - strlen(why), "; the run's %.0f s for downloads are spent", net->total_s);
	if (rc == 0 && sv_hold_pending()) {
		net->stopped = true;
		snprintf(why, wcap, "%s: stopped", u);
		rc = -2;
	}
	if (rc == 0 && rename(tmp, path)) {
		snprintf(why, wcap, "%s: %s", path, strerror(errno));
		rc = -1;
	}
	if (rc) {
		unlink(tmp);
		while (nmade) /* only those this call made, and only when empty */
			rmdir(made[--nmade]);
	}
	sv_hold_end(&old);
	curl_global_cleanup();
	return rc == 0 ? 0 : rc == 404 ? 1 : rc == -2 ? -2 : -1;
}
