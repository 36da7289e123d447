/* SPDX-License-Identifier: MIT */
/* Atomic file writing and single-entry zips (see stackview/formats.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include "hold.h"
#include "stackview/formats.h"

/* Where the bytes of `path` go: a symlink is followed to its target (the target is replaced,
 * the link stays a link); a FIFO, device, socket or directory is refused — replacing it with
 * a regular file would silently break whoever uses it. NULL with err set when refused. */
static const char *output_target(const char *path, char resolved[PATH_MAX], sv_error *err)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return path; /* a new file */
	const char *target = path;
	if (S_ISLNK(st.st_mode)) {
		if (!realpath(path, resolved)) {
			sv_error_set(err, SV_EIO, "cannot follow the symbolic link: %s", strerror(errno));
			sv_error_locate(err, path, 0, -1);
			return NULL;
		}
		target = resolved;
		if (stat(target, &st) != 0)
			return target;
	}
	if (S_ISREG(st.st_mode))
		return target;
	const char *what = S_ISDIR(st.st_mode)	   ? "a directory"
			   : S_ISFIFO(st.st_mode) ? "a FIFO"
			   : S_ISSOCK(st.st_mode) ? "a socket"
						  : "a device";
	sv_error_set(err, SV_EINVAL, "is %s, not a file: not replaced (write to a file, then copy)", what);
	sv_error_locate(err, path, 0, -1);
	return NULL;
}

/* The temporary is written through a stream that looks at the held signals before every
 * buffer it passes on: once one is pending, writes fail (the writers' loops stop on ferror)
 * and the save ends at once instead of after the whole export. */
typedef struct guarded {
	int fd;
	int error;        /* errno of the first failed write(2): ENOSPC, EDQUOT, EIO, ... */
	bool interrupted;
} guarded;

static ssize_t guarded_write(void *cookie, const char *buf, size_t n)
{
	guarded *g = cookie;
	if (g->interrupted || sv_hold_pending()) {
		g->interrupted = true;
		errno = EINTR;
		return -1;
	}
	size_t done = 0;
	while (done < n) {
		ssize_t k = write(g->fd, buf + done, n - done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (!g->error)
				g->error = k < 0 ? errno : EIO;
			return done ? (ssize_t)done : -1;
		}
		done += (size_t)k;
	}
	return (ssize_t)done;
}

static int guarded_close(void *cookie)
{
	(void)cookie; /* the fd is closed by sv_write_atomic */
	return 0;
}

/* Temporaries are named ".BASE.tmp.PID.XXXXXX" (".stackview.tmp.PID.XXXXXX" for a name near
 * NAME_MAX). A program killed outright (SIGKILL, a power cut) leaves its temporary behind: the
 * next save beside it removes ours whose process is gone. */
static void remove_stale(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	size_t plen = strlen(prefix);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, prefix, plen) != 0)
			continue;
		char *end;
		long pid = strtol(e->d_name + plen, &end, 10);
		if (pid <= 0 || *end != '.' || strlen(end) != 7 || pid == (long)getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue; /* alive, or not ours to judge */
		struct stat st;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
		    st.st_uid == geteuid())
			(void)unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
}

int sv_write_atomic(const char *path_, int (*write)(FILE *f, void *payload, sv_error *err), void *payload,
		    sv_error *err)
{
	char resolved[PATH_MAX];
	const char *path = output_target(path_, resolved, err);
	if (!path)
		return err ? err->code : SV_EINVAL;
	char *dcopy = strdup(path), *bcopy = strdup(path);
	char *tmp = NULL;
	int fd = -1, rc = 0;
	FILE *f = NULL;
	guarded g = { -1, 0, false };
	/* Signals that end the program are held while the temporary exists; one that arrived
	 * meanwhile cancels the rename and is delivered once the temporary is gone, so an
	 * interrupted save leaves the old file as it was and nothing behind. */
	sigset_t old;
	sv_hold_begin(&old);
	if (!dcopy || !bcopy) {
		rc = sv_error_set(err, SV_ENOMEM, NULL);
		goto out;
	}
	const char *dir = dirname(dcopy), *base = basename(bcopy);
	/* ".NAME.tmp.PID.XXXXXX" beside the target; a name near the 255-byte limit gets a short
	 * temporary name instead, or the rename target could not be reached at all. */
	char prefix[300];
	if (strlen(base) + 30 > 255)
		snprintf(prefix, sizeof(prefix), ".stackview.tmp.");
	else
		snprintf(prefix, sizeof(prefix), ".%s.tmp.", base);
	remove_stale(dir, prefix);
	if (asprintf(&tmp, "%s/%s%ld.XXXXXX", dir, prefix, (long)getpid()) < 0) {
		tmp = NULL;
		rc = sv_error_set(err, SV_ENOMEM, NULL);
		goto out;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		rc = sv_error_set(err, SV_EIO, "cannot create a file in %s: %s", dir, strerror(errno));
		free(tmp);
		tmp = NULL;
		goto out;
	}
	/* mkstemp makes the file 0600; a saved file gets the mode any new file would get (an
	 * existing file keeps its own). */
	struct stat st;
	mode_t mode;
	if (stat(path, &st) == 0) {
		mode = st.st_mode & 07777;
	} else {
		mode_t mask = umask(0);
		umask(mask);
		mode = 0666 & ~mask;
	}
	(void)fchmod(fd, mode);
	g.fd = fd;
	f = fopencookie(&g, "wb", (cookie_io_functions_t){ .write = guarded_write, .close = guarded_close });
	if (!f) {
		rc = sv_error_set(err, SV_ENOMEM, NULL);
		goto out;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	rc = write(f, payload, err);
	bool flushed = fflush(f) == 0 && !ferror(f);
	if (g.error) /* the system's reason, over the writer's "writing failed" */
		rc = sv_error_set(err, SV_EIO, "writing failed: %s", strerror(g.error));
	else if (!rc && !flushed)
		rc = sv_error_set(err, SV_EIO, "writing failed");
	if (g.interrupted || sv_hold_pending()) {
		rc = sv_error_set(err, SV_ECANCELED, "interrupted; the file was left as it was");
		goto out;
	}
	if (rc)
		goto out;
	if (fsync(fd) != 0) {
		rc = sv_error_set(err, SV_EIO, "writing failed: %s", strerror(errno));
		goto out;
	}
	fclose(f);
	f = NULL;
	if (close(fd) != 0) {
		fd = -1;
		rc = sv_error_set(err, SV_EIO, "writing failed: %s", strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp, path) != 0) {
		rc = sv_error_set(err, SV_EIO, "cannot replace the file: %s", strerror(errno));
		goto out;
	}
	free(tmp);
	tmp = NULL;
out:
	if (f)
		fclose(f);
	if (fd >= 0)
		close(fd);
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	free(dcopy);
	free(bcopy);
	if (rc)
		sv_error_locate(err, path, 0, -1);
	sv_hold_end(&old);
	return rc;
}

static bool ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcasecmp(s + a - b, suf) == 0;
}

const sv_format *sv_format_for_output(const char *path, bool *zipped)
{
	char name[4096];
	snprintf(name, sizeof(name), "%s", path);
	*zipped = ends_with(name, ".zip");
	if (*zipped)
		name[strlen(name) - 4] = '\0';
	/* The longest matching suffix wins: x.speedscope.json is speedscope, not PerfView JSON. */
	const sv_format *best = NULL;
	size_t best_len = 0;
	for (const sv_format *const *f = sv_formats(); *f; f++) {
		if (!(*f)->export)
			continue;
		for (const char *const *p = (*f)->patterns; p && *p; p++)
			if (!ends_with(*p, ".zip") && ends_with(name, *p) && strlen(*p) > best_len) {
				best = *f;
				best_len = strlen(*p);
			}
	}
	return best;
}

typedef struct save_job {
	const sv_source *src;
	const sv_format *fmt;
	const sv_export_opts *opts;
	const char *entry; /* zip entry name, or NULL for a plain file */
} save_job;

static int write_plain(FILE *f, void *payload, sv_error *err)
{
	save_job *j = payload;
	return j->fmt->export(f, j->src, j->opts, err);
}

/* Export into memory, wrap it in a one-entry zip, write the archive's bytes. */
static int write_zipped(FILE *f, void *payload, sv_error *err)
{
	save_job *j = payload;
	char *mem = NULL;
	size_t memlen = 0;
	int rc = 0;
	zip_error_t ze;
	zip_error_init(&ze);
	zip_source_t *zs = NULL;
	FILE *m = open_memstream(&mem, &memlen);
	if (!m)
		return sv_error_set(err, SV_ENOMEM, NULL);
	rc = j->fmt->export(m, j->src, j->opts, err);
	if (fclose(m) != 0 && !rc)
		rc = sv_error_set(err, SV_ENOMEM, NULL);
	if (rc)
		goto out;
	zs = zip_source_buffer_create(NULL, 0, 0, &ze);
	if (!zs) {
		rc = sv_error_set(err, SV_ENOMEM, NULL);
		goto out;
	}
	zip_source_keep(zs);
	zip_t *za = zip_open_from_source(zs, ZIP_TRUNCATE, &ze);
	zip_source_t *entry = za ? zip_source_buffer(za, mem, memlen, 0) : NULL;
	if (!za || !entry || zip_file_add(za, j->entry, entry, ZIP_FL_ENC_UTF_8) < 0) {
		if (entry)
			zip_source_free(entry);
		rc = sv_error_set(err, SV_ENOMEM, "cannot build the zip: %s", za ? zip_strerror(za) : zip_error_strerror(&ze));
		if (za)
			zip_discard(za);
		goto out;
	}
	if (zip_close(za) < 0) {
		rc = sv_error_set(err, SV_EIO, "cannot build the zip: %s", zip_strerror(za));
		zip_discard(za);
		goto out;
	}
	zip_stat_t st;
	if (zip_source_stat(zs, &st) < 0 || zip_source_open(zs) < 0) {
		rc = sv_error_set(err, SV_EIO, "cannot read the zip back");
		goto out;
	}
	char buf[65536];
	zip_int64_t n;
	while ((n = zip_source_read(zs, buf, sizeof(buf))) > 0)
		if (fwrite(buf, 1, (size_t)n, f) != (size_t)n) {
			rc = sv_error_set(err, SV_EIO, "writing failed");
			break;
		}
	zip_source_close(zs);
out:
	if (zs)
		zip_source_free(zs);
	zip_error_fini(&ze);
	free(mem);
	return rc;
}

int sv_save(const sv_source *src, const char *path, const char *format, const sv_export_opts *opts, sv_error *err)
{
	static const sv_export_opts dflt = { SV_FOLDED_PLAIN };
	bool zipped = false;
	const sv_format *fmt = format ? sv_format_find(format) : sv_format_for_output(path, &zipped);
	if (format && ends_with(path, ".zip"))
		zipped = true;
	if (!fmt || !fmt->export) {
		sv_error_set(err, SV_EUNSUPPORTED,
			     fmt ? "format %s cannot be written" : "cannot tell the output format from the name (use .perfView.xml, .perfView.json, their .zip forms, .folded, .speedscope.json, .pb.gz or .svg)",
			     fmt ? fmt->name : "");
		sv_error_locate(err, path, 0, -1);
		return SV_EUNSUPPORTED;
	}
	char entry[4096];
	const char *slash = strrchr(path, '/');
	snprintf(entry, sizeof(entry), "%s", slash ? slash + 1 : path);
	if (zipped && ends_with(entry, ".zip"))
		entry[strlen(entry) - 4] = '\0';
	save_job j = { src, fmt, opts ? opts : &dflt, zipped ? entry : NULL };
	return sv_write_atomic(path, zipped ? write_zipped : write_plain, &j, err);
}
