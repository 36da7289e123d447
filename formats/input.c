/* SPDX-License-Identifier: MIT */
/* Reading inputs and unwrapping single-entry zips (see stackview/formats.h). libzip does
 * the zip work; we bound what it may inflate. */
#include "stackview/formats.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

static int read_fd(sv_input *in, int fd, sv_error *err)
{
	size_t cap = 1 << 16, len = 0;
	unsigned char *buf = malloc(cap + 1);
	if (!buf)
		return sv_error_set(err, SV_ENOMEM, "out of memory reading input");
	for (;;) {
		if (len == cap) {
			if (cap >= SV_MAX_INPUT_BYTES) {
				free(buf);
				return sv_error_set(err, SV_ELIMIT, "input larger than %llu bytes",
						    (unsigned long long)SV_MAX_INPUT_BYTES);
			}
			size_t ncap = cap * 2;
			unsigned char *nb = realloc(buf, ncap + 1);
			if (!nb) {
				free(buf);
				return sv_error_set(err, SV_ENOMEM, "out of memory reading input");
			}
			buf = nb;
			cap = ncap;
		}
		ssize_t n = read(fd, buf + len, cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			free(buf);
			return sv_error_set(err, SV_EIO, "read failed: %s", strerror(e));
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0'; /* convenient when debugging; parsers use len */
	in->data = buf;
	in->len = len;
	return 0;
}

int sv_input_read(sv_input *out, const char *path, sv_error *err)
{
	sv_input in = { 0 };
	int rc;
	in.name = strdup(path);
	if (!in.name)
		return sv_error_set(err, SV_ENOMEM, NULL);
	if (strcmp(path, "-") == 0) {
		rc = read_fd(&in, STDIN_FILENO, err);
	} else {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			rc = sv_error_set(err, SV_EIO, "%s", strerror(errno));
		} else {
			struct stat st;
			void *map = MAP_FAILED;
			bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
			/* Map regular files: no copy, no fresh pages, and the page cache stays
			 * reclaimable. Pipes, devices and failures fall back to reading. */
			if (regular && st.st_size > 0 && (unsigned long long)st.st_size <= SV_MAX_INPUT_BYTES)
				map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
			if (map != MAP_FAILED) {
				(void)madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
				in.data = map;
				in.len = (size_t)st.st_size;
				in.mapped = true;
				rc = 0;
			} else if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
				rc = sv_error_set(err, SV_EIO, "is a directory");
			} else {
				rc = read_fd(&in, fd, err);
			}
			close(fd);
		}
	}
	if (rc) {
		sv_error_locate(err, path, 0, -1);
		sv_input_dispose(&in);
		return rc;
	}
	*out = in;
	return 0;
}

bool sv_input_is_zip(const sv_input *in)
{
	/* A local file header, or the end record of an empty archive. */
	return in->len >= 4 && (memcmp(in->data, "PK\3\4", 4) == 0 || memcmp(in->data, "PK\5\6", 4) == 0);
}

void sv_input_dispose(sv_input *in)
{
	if (!in)
		return;
	free(in->name);
	free(in->inner);
	if (in->mapped)
		munmap(in->data, in->len);
	else
		free(in->data);
	memset(in, 0, sizeof(*in));
}

int sv_input_unzip(sv_input *in, sv_error *err)
{
	zip_error_t ze;
	zip_error_init(&ze);
	zip_source_t *zs = zip_source_buffer_create(in->data, in->len, 0, &ze);
	zip_t *za = NULL;
	zip_file_t *zf = NULL;
	unsigned char *buf = NULL;
	int rc = 0;
	if (!zs) {
		rc = sv_error_set(err, SV_ENOMEM, NULL);
		goto out;
	}
	za = zip_open_from_source(zs, ZIP_RDONLY, &ze);
	if (!za) {
		zip_source_free(zs);
		rc = sv_error_set(err, SV_EFORMAT, "not a readable zip: %s", zip_error_strerror(&ze));
		goto out;
	}
	zip_int64_t n = zip_get_num_entries(za, 0);
	zip_int64_t pick = n == 1 ? 0 : -1;
	for (zip_int64_t i = 0; pick < 0 && i < n; i++) {
		const char *nm = zip_get_name(za, (zip_uint64_t)i, 0);
		size_t l = nm ? strlen(nm) : 0;
		if (l >= 9 && strcasecmp(nm + l - 9, ".data.txt") == 0)
			pick = i;
	}
	if (pick < 0) {
		rc = sv_error_set(err, SV_EFORMAT,
				  "zip has %lld entries; expected exactly one, or a perfcollect *.data.txt", (long long)n);
		goto out;
	}
	const char *ename = zip_get_name(za, (zip_uint64_t)pick, 0);
	zf = zip_fopen_index(za, (zip_uint64_t)pick, 0);
	if (!zf) {
		rc = sv_error_set(err, SV_EFORMAT, "cannot open zip entry: %s", zip_strerror(za));
		goto out;
	}
	/* Never trust the sizes in the directory: inflate in chunks under a bound. */
	unsigned long long limit = (unsigned long long)in->len * SV_MAX_ZIP_RATIO + (1ULL << 20);
	if (limit > SV_MAX_INPUT_BYTES)
		limit = SV_MAX_INPUT_BYTES;
	size_t cap = 1 << 16, len = 0;
	buf = malloc(cap + 1);
	if (!buf) {
		rc = sv_error_set(err, SV_ENOMEM, NULL);
		goto out;
	}
	for (;;) {
		if (len == cap) {
			if (len > limit) {
				rc = sv_error_set(err, SV_ELIMIT, "zip entry inflates past %llu bytes (limit)", limit);
				goto out;
			}
			/* Grow up to one byte past the limit, so a bomb is caught at the limit exactly. */
			size_t ncap = cap * 2 > limit + 1 ? (size_t)limit + 1 : cap * 2;
			unsigned char *nb = realloc(buf, ncap + 1);
			if (!nb) {
				rc = sv_error_set(err, SV_ENOMEM, NULL);
				goto out;
			}
			buf = nb;
			cap = ncap;
		}
		zip_int64_t got = zip_fread(zf, buf + len, cap - len);
		if (got < 0) {
			rc = sv_error_set(err, SV_EFORMAT, "corrupt zip entry: %s", zip_file_strerror(zf));
			goto out;
		}
		if (got == 0)
			break;
		len += (size_t)got;
	}
	if (len > limit) {
		rc = sv_error_set(err, SV_ELIMIT, "zip entry inflates past %llu bytes (limit)", limit);
		goto out;
	}
	buf[len] = '\0';
	char *inner = strdup(ename ? ename : "");
	if (!inner) {
		rc = sv_error_set(err, SV_ENOMEM, NULL);
		goto out;
	}
	if (in->mapped)
		munmap(in->data, in->len);
	else
		free(in->data);
	free(in->inner);
	in->data = buf;
	in->len = len;
	in->mapped = false;
	in->inner = inner;
	buf = NULL;
out:
	if (zf)
		zip_fclose(zf);
	if (za)
		zip_discard(za);
	zip_error_fini(&ze);
	free(buf);
	if (rc)
		sv_error_locate(err, in->name, 0, -1);
	return rc;
}
