/* SPDX-License-Identifier: MIT */
/* Symbol server downloads (symsrv.h): a PDB fetched over HTTP(S) with libcurl from the
 * symbol-store layout URL/name.pdb/KEY/name.pdb (then the CAB-compressed name.pd_, expanded
 * with libmspack, as Microsoft's server often serves it) into the cache's same layout,
 * written to a temporary file and renamed into place, so a cache never holds half a PDB. */
#include "symsrv.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <mspack.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_PDB_BYTES (4ULL << 30) /* a download or an expanded .pd_ */

static int mkdirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		int rc = mkdir(path, 0755);
		*p = '/';
		if (rc && errno != EEXIST)
			return -1;
	}
	return 0;
}

typedef struct sink {
	FILE *f;
	unsigned long long n;
} sink;

static size_t on_data(char *p, size_t size, size_t nmemb, void *payload)
{
	sink *s = payload;
	size_t n = size * nmemb;
	s->n += n;
	if (s->n > MAX_PDB_BYTES)
		return 0; /* curl stops with a write error */
	return fwrite(p, 1, n, s->f);
}

/* GET url into the file at tmp; 0 ok, 404 for not there, -1 otherwise (why says). */
static int get(const char *url, const char *tmp, char *why, size_t wcap)
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
	sink s = { f, 0 };
	char err[CURL_ERROR_SIZE] = "";
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, err);
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L); /* stalled for 30 s: give up */
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, 30L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "Microsoft-Symbol-Server/10.0.0.0 (stackview)");
	CURLcode rc = curl_easy_perform(h);
	long status = 0;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(h);
	bool wrote = fclose(f) == 0;
	if (rc == CURLE_OK && status == 200 && wrote)
		return 0;
	if (rc == CURLE_OK && status == 404)
		return 404;
	if (rc == CURLE_OK)
		snprintf(why, wcap, "%s: HTTP %ld", url, status);
	else
		snprintf(why, wcap, "%s: %s", url, err[0] ? err : curl_easy_strerror(rc));
	return -1;
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

int sv_symsrv_fetch(const char *url, const char *cache, const char *name, const char *key, char *path, size_t cap,
		    char *why, size_t wcap)
{
	if (curl_global_init(CURL_GLOBAL_DEFAULT)) { /* reference-counted: paired below */
		snprintf(why, wcap, "cannot start libcurl");
		return -1;
	}
	size_t ul = strlen(url);
	while (ul && url[ul - 1] == '/')
		ul--;
	int n = snprintf(path, cap, "%s/%s/%s/%s", cache, name, key, name);
	if (n < 0 || (size_t)n >= cap || mkdirs(path)) {
		snprintf(why, wcap, "%s: cannot make the cache's directories", cache);
		curl_global_cleanup();
		return -1;
	}
	char tmp[4200], tmp2[4200], u[4200];
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	snprintf(u, sizeof(u), "%.*s/%s/%s/%s", (int)ul, url, name, key, name);
	int rc = get(u, tmp, why, wcap);
	if (rc == 404) { /* the compressed form: name.pd_ */
		size_t nl = strlen(name);
		snprintf(u, sizeof(u), "%.*s/%s/%s/%.*s_", (int)ul, url, name, key, (int)(nl ? nl - 1 : 0), name);
		snprintf(tmp2, sizeof(tmp2), "%s.cab.%ld", path, (long)getpid());
		rc = get(u, tmp2, why, wcap);
		if (rc == 0) {
			rc = sv_symsrv_expand(tmp2, tmp, why, wcap);
		}
		unlink(tmp2);
		if (rc == 404)
			snprintf(why, wcap, "not on %.*s (HTTP 404 for %s and its .pd_)", (int)ul, url, name);
	}
	if (rc == 0 && rename(tmp, path)) {
		snprintf(why, wcap, "%s: %s", path, strerror(errno));
		rc = -1;
	}
	if (rc)
		unlink(tmp);
	curl_global_cleanup();
	return rc == 0 ? 0 : rc == 404 ? 1 : -1;
}
