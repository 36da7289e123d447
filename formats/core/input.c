/* SPDX-License-Identifier: MIT */
/* Reading inputs and unwrapping single-entry zips (see stackview/formats.h). libzip does
 * the zip work; we bound what it may inflate. */
#include "stackview/formats.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <iconv.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>
#include <zlib.h>
#include <zstd.h>

#define SNIFF_BYTES (1u << 20)

/* in->data let go, however it was had. */
static void data_free(sv_input *in)
{
	if (in->mapped)
		munmap(in->data, in->len);
	else if (in->anon)
		munmap(in->data, in->len + 1);
	else
		free(in->data);
	in->data = NULL;
	in->mapped = in->anon = false;
}

/* An inflater's output (gzip, zlib, zstd, a zip's entry): memory mapped for it and grown by
 * mremap, so that growing copies nothing however large it gets (the heap's blocks below the
 * CLI's mmap threshold would be copied at each doubling), on huge pages where the kernel
 * gives them. */
typedef struct outbuf {
	unsigned char *p;
	size_t cap; /* bytes mapped; the output may fill all but the last (its NUL) */
} outbuf;

static int out_grow(outbuf *o, size_t cap, sv_error *err)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), want = (cap + 1 + page - 1) / page * page;
	void *p = o->p ? mremap(o->p, o->cap, want, MREMAP_MAYMOVE)
		       : mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return sv_error_set(err, SV_ENOMEM, NULL);
#ifdef MADV_HUGEPAGE
	if (!o->p) /* the whole mapping (advising a part splits it, and mremap takes one) */
		(void)madvise(p, want, MADV_HUGEPAGE);
#endif
	o->p = p;
	o->cap = want;
	return 0;
}

/* Room for the output to reach len + 1 bytes (doubling, at most limit + 1 bytes of output:
 * one byte too many is seen), or SV_ELIMIT past the limit ("WHAT inflates past"). */
static int out_room(outbuf *o, size_t len, unsigned long long limit, const char *what, sv_error *err)
{
	if (o->p && len + 1 < o->cap)
		return 0;
	if (len > limit)
		return sv_error_set(err, SV_ELIMIT, "%s inflates past %llu bytes (limit)", what, limit);
	size_t cap = o->p ? o->cap * 2 : (size_t)1 << 20;
	return out_grow(o, cap > limit + 1 ? (size_t)limit + 1 : cap, err);
}

/* The output o[0..len) (o made: out_room) replaces the input's data, NUL-terminated; the
 * pages past it go back. */
static void out_install(sv_input *in, outbuf *o, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), keep = (len + 1 + page - 1) / page * page;
	if (keep < o->cap)
		(void)munmap(o->p + keep, o->cap - keep);
	o->p[len] = '\0';
	data_free(in);
	in->data = o->p;
	in->len = len;
	in->anon = true;
	*o = (outbuf){ 0 };
}

/* ---- progress ---- */

static int report(const sv_input *in, unsigned long long done, unsigned long long total, sv_error *err)
{
	sv_progress *p = in->progress;
	if (!p || done < p->next)
		return 0;
	p->next = done + (p->step ? p->step : (1ull << 20));
	if (!p->fn(p->payload, done, total))
		return 0;
	sv_error_set(err, SV_ECANCELED, "loading canceled");
	sv_error_locate(err, in->name, 0, -1);
	return SV_ECANCELED;
}

int sv_input_progress(const sv_input *in, unsigned long long done, sv_error *err)
{
	return report(in, done, in->partial ? 0 : in->len, err);
}

int sv_input_progress_of(const sv_input *in, unsigned long long done, unsigned long long total, sv_error *err)
{
	return report(in, done, in->partial ? 0 : total, err);
}

/* The bound on what this input may hold in memory. */
static unsigned long long max_bytes(const sv_input *in)
{
	return in->max_bytes && in->max_bytes < SV_MAX_INPUT_BYTES ? in->max_bytes : SV_MAX_INPUT_BYTES;
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The rest of fd after what in->data holds, through an unlinked file in $TMPDIR (else /tmp)
 * that is mapped once complete (in->mapped: the readers give its pages back as they go).
 * 1 when no file could be made or filled with what is held (then nothing changed: go on in
 * memory); else 0 or an error, with in->data freed or mapped. */
static int spill(sv_input *in, int fd, sv_error *err)
{
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	size_t dl = strlen(dir);
	char *path = malloc(dl + sizeof("/stackview-XXXXXX"));
	if (!path)
		return 1;
	memcpy(path, dir, dl);
	memcpy(path + dl, "/stackview-XXXXXX", sizeof("/stackview-XXXXXX"));
	int tfd = mkostemp(path, O_CLOEXEC);
	if (tfd >= 0)
		unlink(path);
	free(path);
	enum { BLOCK = 1 << 20 };
	unsigned char *block = tfd < 0 ? NULL : malloc(BLOCK);
	if (!block || write_all(tfd, in->data, in->len)) {
		free(block);
		if (tfd >= 0)
			close(tfd);
		return 1;
	}
	unsigned long long max = max_bytes(in);
	size_t len = in->len;
	free(in->data);
	in->data = NULL;
	in->len = 0;
	int rc = 0;
	for (;;) {
		ssize_t n = read(fd, block, BLOCK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = sv_error_set(err, SV_EIO, "read failed: %s", strerror(errno));
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > max) {
			rc = sv_error_set(err, SV_ELIMIT, "input larger than %llu bytes (limit)", max);
			break;
		}
		if (write_all(tfd, block, (size_t)n)) {
			rc = sv_error_set(err, SV_EIO, "cannot keep the input in %s: %s (set TMPDIR to a directory with room)", dir,
					  strerror(errno));
			break;
		}
		if ((rc = report(in, len, 0, err)))
			break;
	}
	free(block);
	if (!rc) {
		void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, tfd, 0);
		if (map == MAP_FAILED) {
			rc = sv_error_set(err, SV_ENOMEM, "cannot map the input kept in %s: %s", dir, strerror(errno));
		} else {
			(void)madvise(map, len, MADV_SEQUENTIAL);
			in->data = map;
			in->len = len;
			in->mapped = true;
		}
	}
	close(tfd);
	return rc;
}

/* Read fd into in->data (appending to what is there) until EOF, or until `limit` bytes
 * are held; then the input stays partial. More than max_bytes(in) is an error; in->data
 * stays owned by `in` on every path (sv_input_dispose frees it once). */
static int read_fd(sv_input *in, int fd, size_t limit, sv_error *err)
{
	unsigned long long max = max_bytes(in);
	size_t len = in->len, cap = len > (1 << 16) ? len : (1 << 16);
	unsigned char *buf = realloc(in->data, cap + 1);
	if (!buf)
		return sv_error_set(err, SV_ENOMEM, "out of memory reading input");
	in->data = buf;
	in->partial = false;
	/* read whole: past spill_bytes the rest goes to a file (spill) */
	unsigned long long spill_at = limit != SIZE_MAX ? ULLONG_MAX : in->spill_bytes ? in->spill_bytes : SV_SPILL_BYTES;
	for (;;) {
		if (len >= limit) {
			in->partial = true;
			in->fd = fd;
			break;
		}
		if (len > max)
			return sv_error_set(err, SV_ELIMIT, "input larger than %llu bytes (limit)", max);
		if (len >= spill_at) {
			in->len = len;
			int rc = spill(in, fd, err);
			if (rc <= 0)
				return rc;
			spill_at = ULLONG_MAX; /* no file: on in memory */
			buf = in->data;
		}
		if (len == cap) {
			/* Grow up to one byte past the bound, so one byte too many is seen. */
			size_t ncap = (unsigned long long)cap * 2 > max + 1 ? (size_t)(max + 1) : cap * 2;
			unsigned char *nb = realloc(buf, ncap + 1);
			if (!nb)
				return sv_error_set(err, SV_ENOMEM, "out of memory reading input");
			in->data = buf = nb;
			cap = ncap;
		}
		size_t want = cap - len < limit - len ? cap - len : limit - len;
		ssize_t n = read(fd, buf + len, want);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return sv_error_set(err, SV_EIO, "read failed: %s", strerror(errno));
		}
		if (n == 0)
			break;
		len += (size_t)n;
		in->len = len;
		int rc = report(in, len, 0, err); /* still reading: the size is not known */
		if (rc)
			return rc;
	}
	buf[len] = '\0'; /* convenient when debugging; parsers use len */
	in->len = len;
	return 0;
}

int sv_input_complete(sv_input *in, sv_error *err)
{
	if (!in->partial)
		return 0;
	int rc = read_fd(in, in->fd, SIZE_MAX, err);
	if (rc)
		sv_error_locate(err, in->name, 0, -1);
	return rc;
}

int sv_input_read(sv_input *out, const char *path, sv_error *err)
{
	return sv_input_read_watched(out, path, NULL, err);
}

int sv_input_read_watched(sv_input *out, const char *path, sv_progress *progress, sv_error *err)
{
	return sv_input_read_bounded(out, path, progress, 0, err);
}

int sv_input_read_bounded(sv_input *out, const char *path, sv_progress *progress,
			  unsigned long long max, sv_error *err)
{
	sv_input in = { 0 };
	int rc;
	in.fd = -1;
	in.max_bytes = max;
	in.progress = progress;
	in.name = strdup(path);
	if (!in.name)
		return sv_error_set(err, SV_ENOMEM, NULL);
	if (strcmp(path, "-") == 0) {
		rc = read_fd(&in, STDIN_FILENO, SNIFF_BYTES, err);
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
			if (regular && st.st_size > 0 && (unsigned long long)st.st_size <= max_bytes(&in))
				map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
			if (regular && (unsigned long long)st.st_size > max_bytes(&in)) {
				rc = sv_error_set(err, SV_ELIMIT, "input larger than %llu bytes (limit)",
						  max_bytes(&in));
			} else if (map != MAP_FAILED) {
				(void)madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
				in.data = map;
				in.len = (size_t)st.st_size;
				in.mapped = true;
				rc = 0;
			} else if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
				rc = sv_error_set(err, SV_EIO, "is a directory");
			} else {
				rc = read_fd(&in, fd, SIZE_MAX, err);
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

unsigned char *sv_input_copy_range(const sv_input *in, size_t off, size_t len)
{
	if (!in->mapped || off > in->len || len > in->len - off || len < ((size_t)8 << 20))
		return NULL;
	/* mapped on its own, so that its pages go back when it is freed whatever the allocator
	 * keeps (a terminal UI's thread arena kept 150 MB of a malloc'd copy); where there is no
	 * room for it, the input is read in place */
	unsigned char *c = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	(void)madvise(c, len, MADV_HUGEPAGE); /* a hint: where it is refused, pages stay small */
#endif
	size_t page = (size_t)sysconf(_SC_PAGESIZE), step = (size_t)8 << 20;
	size_t released = (off + page - 1) / page * page; /* the range's first whole page */
	for (size_t done = 0; done < len;) {
		size_t n = len - done < step ? len - done : step;
		memcpy(c + done, in->data + off + done, n);
		done += n;
		size_t upto = (off + done) / page * page;
		if (upto > released) {
			(void)madvise(in->data + released, upto - released, MADV_DONTNEED);
			released = upto;
		}
	}
	return c;
}

void sv_input_copy_free(unsigned char *copy, size_t len)
{
	if (copy)
		munmap(copy, len);
}

static unsigned rd16(const unsigned char *p) { return p[0] | (unsigned)p[1] << 8; }
static unsigned long rd32(const unsigned char *p) { return rd16(p) | (unsigned long)rd16(p + 2) << 16; }

/* Where the archive starts, for a zip with bytes before it (a self-extracting archive, a
 * script with a zip appended): the end record, found in the last 64 KiB + 22 bytes as unzip
 * finds it, must end exactly at the end of the input with its comment, and its central
 * directory must fit before it. The bytes before what the directory's offsets count from are
 * the prefix. -1 when there is no such end record. */
static long long zip_start(const sv_input *in)
{
	if (in->partial || in->len < 22)
		return -1;
	size_t lo = in->len > 65557 ? in->len - 65557 : 0;
	for (size_t i = in->len - 22 + 1; i-- > lo;) {
		const unsigned char *e = in->data + i;
		if (memcmp(e, "PK\5\6", 4) != 0 || i + 22 + rd16(e + 20) != in->len)
			continue;
		unsigned long cd_size = rd32(e + 12), cd_off = rd32(e + 16);
		if ((unsigned long long)cd_size + cd_off > i)
			return -1;
		size_t start = i - cd_size - cd_off;
		/* The directory (or, for an empty archive, the end record) is where it says. */
		if (cd_size ? memcmp(in->data + start + cd_off, "PK\1\2", 4) != 0 : false)
			return -1;
		return (long long)start;
	}
	return -1;
}

bool sv_input_is_zip(const sv_input *in)
{
	/* A local file header, or the end record of an empty archive; else an archive with
	 * bytes before it. */
	if (in->len >= 4 && (memcmp(in->data, "PK\3\4", 4) == 0 || memcmp(in->data, "PK\5\6", 4) == 0))
		return true;
	return zip_start(in) >= 0;
}

void sv_input_dispose(sv_input *in)
{
	if (!in)
		return;
	free(in->name);
	free(in->inner);
	data_free(in);
	memset(in, 0, sizeof(*in));
	in->fd = -1;
}

int sv_input_unzip(sv_input *in, sv_error *err)
{
	zip_error_t ze;
	zip_error_init(&ze);
	long long start = zip_start(in);
	if (start < 0)
		start = 0;
	zip_source_t *zs = zip_source_buffer_create(in->data + start, in->len - (size_t)start, 0, &ze);
	zip_t *za = NULL;
	zip_file_t *zf = NULL;
	outbuf o = { 0 };
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
	/* PerfView's .etl.zip: exactly one .etl entry beside its log and symbol files. */
	for (zip_int64_t i = 0, netl = 0; pick < 0 && i < n; i++) {
		const char *nm = zip_get_name(za, (zip_uint64_t)i, 0);
		size_t l = nm ? strlen(nm) : 0;
		if (l >= 4 && strcasecmp(nm + l - 4, ".etl") == 0 && netl++ == 0)
			for (zip_int64_t j = i + 1; j < n; j++) {
				const char *nj = zip_get_name(za, (zip_uint64_t)j, 0);
				size_t lj = nj ? strlen(nj) : 0;
				if (lj >= 4 && strcasecmp(nj + lj - 4, ".etl") == 0)
					netl++;
			}
		if (netl == 1)
			pick = i;
		else if (netl > 1)
			break;
	}
	if (pick < 0) {
		rc = sv_error_set(err, SV_EFORMAT,
				  "zip has %lld entries; expected exactly one, a perfcollect *.data.txt or one *.etl",
				  (long long)n);
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
	if (limit > max_bytes(in))
		limit = max_bytes(in);
	size_t len = 0;
	for (;;) {
		/* up to one byte past the limit, so a bomb is caught at the limit exactly */
		if ((rc = out_room(&o, len, limit, "zip entry", err)))
			goto out;
		zip_int64_t got = zip_fread(zf, o.p + len, o.cap - 1 - len);
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
	if (len >= 4 && (memcmp(o.p, "PK\3\4", 4) == 0 || memcmp(o.p, "PK\5\6", 4) == 0)) {
		rc = sv_error_set(err, SV_EUNSUPPORTED, "the zip's entry '%s' is itself a zip: unzip it first",
				  ename ? ename : "");
		goto out;
	}
	char *inner = strdup(ename ? ename : "");
	if (!inner) {
		rc = sv_error_set(err, SV_ENOMEM, NULL);
		goto out;
	}
	out_install(in, &o, len);
	free(in->inner);
	in->inner = inner;
out:
	if (zf)
		zip_fclose(zf);
	if (za)
		zip_discard(za);
	zip_error_fini(&ze);
	if (o.p)
		munmap(o.p, o.cap);
	if (rc)
		sv_error_locate(err, in->name, 0, -1);
	return rc;
}

/* ---- gzip and zlib ---- */

static bool zlib_header(const unsigned char *p)
{
	return (p[0] & 0x0f) == 8 && (p[0] >> 4) <= 7 && ((unsigned)p[0] << 8 | p[1]) % 31 == 0;
}

/* gzip, a zlib stream, or Qt's qCompress (a 4-byte big-endian size, then zlib). */
static size_t deflate_start(const sv_input *in)
{
	if (in->len >= 18 && in->data[0] == 0x1f && in->data[1] == 0x8b)
		return 0;
	if (in->len >= 8 && zlib_header(in->data))
		return 0;
	if (in->len >= 10 && zlib_header(in->data + 4))
		return 4;
	return SIZE_MAX;
}

bool sv_input_is_utf16(const sv_input *in)
{
	return in->len >= 2 && ((in->data[0] == 0xFF && in->data[1] == 0xFE) || (in->data[0] == 0xFE && in->data[1] == 0xFF));
}

int sv_input_from_utf16(sv_input *in, sv_error *err)
{
	/* UTF-8 needs at most 3 bytes for each 2-byte UTF-16 unit. */
	size_t cap = in->len / 2 * 3 + 4;
	char *out = malloc(cap + 1);
	if (!out)
		return sv_error_set(err, SV_ENOMEM, NULL);
	iconv_t cd = iconv_open("UTF-8", "UTF-16"); /* the BOM says which byte order */
	if (cd == (iconv_t)-1) {
		free(out);
		return sv_error_set(err, SV_EUNSUPPORTED, "cannot convert UTF-16: %s", strerror(errno));
	}
	char *ip = (char *)in->data, *op = out;
	size_t il = in->len, ol = cap;
	size_t r = iconv(cd, &ip, &il, &op, &ol);
	iconv_close(cd);
	if (r == (size_t)-1) {
		long long at = (long long)(ip - (char *)in->data);
		free(out);
		sv_error_set(err, SV_EFORMAT, "not valid UTF-16 (it starts with a UTF-16 byte order mark)");
		sv_error_locate(err, in->name, 0, at);
		return SV_EFORMAT;
	}
	size_t len = (size_t)(op - out);
	out[len] = '\0';
	data_free(in);
	in->data = (unsigned char *)out;
	in->len = len;
	in->from_utf16 = true;
	return 0;
}

/* A zstd frame (heaptrack writes its files so): its magic number. */
static bool is_zstd(const sv_input *in)
{
	return in->len >= 9 && in->data[0] == 0x28 && in->data[1] == 0xB5 && in->data[2] == 0x2F && in->data[3] == 0xFD;
}

bool sv_input_is_compressed(const sv_input *in)
{
	return deflate_start(in) != SIZE_MAX || is_zstd(in);
}

bool sv_input_is_compressed_by_magic(const sv_input *in)
{
	return (in->len >= 2 && in->data[0] == 0x1f && in->data[1] == 0x8b) || is_zstd(in);
}

/* The end of an inflater: the inflated bytes o[0..len) replace the input's, or on failure
 * (rc, or more than limit bytes) go, with the error naming the file. */
static int inflated(sv_input *in, outbuf *o, size_t len, unsigned long long limit, int rc, sv_error *err)
{
	if (!rc && len > limit)
		rc = sv_error_set(err, SV_ELIMIT, "compressed data inflates past %llu bytes (limit)", limit);
	if (rc) {
		if (o->p)
			munmap(o->p, o->cap);
		sv_error_locate(err, in->name, 0, -1);
		return rc;
	}
	out_install(in, o, len);
	return 0;
}

/* zstd frames, one after another, into a buffer no larger than the limit. */
static int unzstd(sv_input *in, unsigned long long limit, sv_error *err)
{
	ZSTD_DStream *zs = ZSTD_createDStream();
	if (!zs || ZSTD_isError(ZSTD_initDStream(zs))) {
		ZSTD_freeDStream(zs);
		return sv_error_set(err, SV_ENOMEM, NULL);
	}
	size_t len = 0, pending = 1; /* pending: 0 once a frame is whole */
	outbuf o = { 0 };
	int rc = 0;
	ZSTD_inBuffer zin = { in->data, in->len, 0 };
	while (!rc && (zin.pos < zin.size || pending)) {
		if ((rc = out_room(&o, len, limit, "compressed data", err)))
			break;
		size_t cap = o.cap - 1;
		ZSTD_outBuffer zout = { o.p, cap, len };
		size_t in_before = zin.pos;
		pending = ZSTD_decompressStream(zs, &zout, &zin);
		bool moved = zout.pos != len || zin.pos != in_before;
		len = zout.pos;
		if (ZSTD_isError(pending))
			rc = sv_error_set(err, SV_EFORMAT, "corrupt zstd data at byte offset %zu (%s)", zin.pos,
					  ZSTD_getErrorName(pending));
		else if (!moved && len < cap)
			rc = sv_error_set(err, SV_EFORMAT, "compressed data ends early (truncated zstd stream)");
	}
	ZSTD_freeDStream(zs);
	return inflated(in, &o, len, limit, rc, err);
}

int sv_input_inflate(sv_input *in, sv_error *err)
{
	if (is_zstd(in)) {
		unsigned long long limit = (unsigned long long)in->len * SV_MAX_ZSTD_RATIO + (1ULL << 20);
		return unzstd(in, limit > max_bytes(in) ? max_bytes(in) : limit, err);
	}
	size_t start = deflate_start(in);
	if (start == SIZE_MAX)
		return 0;
	unsigned long long limit = (unsigned long long)in->len * SV_MAX_ZIP_RATIO + (1ULL << 20);
	if (limit > max_bytes(in))
		limit = max_bytes(in);
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 15 + 32) != Z_OK) /* gzip or zlib, by the header */
		return sv_error_set(err, SV_ENOMEM, NULL);
	size_t len = 0;
	outbuf o = { 0 };
	int rc = 0;
	zs.next_in = in->data + start;
	size_t left = in->len - start;
	int zr = Z_OK;
	while (!rc && zr != Z_STREAM_END) {
		if ((rc = out_room(&o, len, limit, "compressed data", err)))
			break;
		size_t cap = o.cap - 1;
		uInt chunk = left > (1u << 30) ? (1u << 30) : (uInt)left;
		zs.avail_in = chunk;
		zs.next_out = o.p + len;
		zs.avail_out = (uInt)(cap - len > (1u << 30) ? (1u << 30) : cap - len);
		size_t before_out = zs.avail_out;
		zr = inflate(&zs, Z_NO_FLUSH);
		left -= chunk - zs.avail_in;
		len += before_out - zs.avail_out;
		if (zr == Z_BUF_ERROR && !left)
			rc = sv_error_set(err, SV_EFORMAT, "compressed data ends early (truncated gzip/zlib stream)");
		else if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR)
			rc = sv_error_set(err, SV_EFORMAT, "corrupt gzip/zlib data at byte offset %zu",
					  (size_t)(zs.next_in - in->data));
		/* A gzip file may hold several members (cat a.gz b.gz, pigz --independent): their
		 * contents follow one another, as gzip -d gives them. */
		if (!rc && zr == Z_STREAM_END && left >= 2 && zs.next_in[0] == 0x1f && zs.next_in[1] == 0x8b) {
			if (inflateReset(&zs) != Z_OK)
				rc = sv_error_set(err, SV_ENOMEM, NULL);
			zr = Z_OK;
		}
	}
	/* Anything but zero padding after the last member is not ours to guess at. */
	for (size_t i = 0; !rc && i < left; i++)
		if (zs.next_in[i]) {
			rc = sv_error_set(err, SV_EFORMAT, "data after the end of the compressed stream at byte offset %zu",
					  (size_t)(zs.next_in + i - in->data));
			break;
		}
	inflateEnd(&zs);
	return inflated(in, &o, len, limit, rc, err);
}
