/* SPDX-License-Identifier: MIT */
/* An input line by line (see stackview/input.h, sv_lines): a whole input in place, a mapped
 * file's pages let go of as they are passed, a pipe read a buffer at a time; memory bounded
 * by the longest line. */
#include "stackview/formats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int sv_lines_init(sv_lines *lr, const sv_input *in)
{
	memset(lr, 0, sizeof(*lr));
	lr->in = in;
	if (!in->partial) {
		lr->p = (const char *)in->data;
		lr->end = lr->p + in->len;
		return 0;
	}
	lr->cap = in->len > (1 << 16) ? in->len : (1 << 16);
	lr->buf = malloc(lr->cap);
	if (!lr->buf)
		return SV_ENOMEM;
	memcpy(lr->buf, in->data, in->len);
	lr->len = in->len;
	lr->consumed = in->len;
	return 0;
}

void sv_lines_dispose(sv_lines *lr)
{
	if (lr)
		free(lr->buf);
}

static void strip_cr(const char **line, size_t *len)
{
	if (*len && (*line)[*len - 1] == '\r')
		(*len)--;
}

int sv_lines_next(sv_lines *lr, const char **line, size_t *len, sv_error *err)
{
	if (!lr->buf) {
		if (lr->p >= lr->end)
			return 0;
		/* A mapped file: let go of what has been read, so resident memory stays bounded
		 * (the pages remain in the page cache; nothing refers back to them). */
		size_t done = (size_t)(lr->p - (const char *)lr->in->data);
		if (lr->in->mapped && done - lr->released >= (64u << 20)) {
			size_t page = (size_t)sysconf(_SC_PAGESIZE);
			size_t upto = done / page * page;
			(void)madvise(lr->in->data + lr->released, upto - lr->released, MADV_DONTNEED);
			lr->released = upto;
		}
		int rc = sv_input_progress(lr->in, done, err);
		if (rc)
			return rc;
		const char *nl = memchr(lr->p, '\n', (size_t)(lr->end - lr->p));
		const char *le = nl ? nl : lr->end;
		if ((size_t)(le - lr->p) > SV_MAX_LINE) { /* the same bound as for a pipe */
			sv_error_set(err, SV_ELIMIT, "line longer than %u bytes", SV_MAX_LINE);
			sv_error_locate(err, lr->in->name, lr->line + 1, -1);
			return SV_ELIMIT;
		}
		*line = lr->p;
		*len = (size_t)(le - lr->p);
		lr->p = nl ? nl + 1 : lr->end;
		lr->line++;
		strip_cr(line, len);
		return 1;
	}
	size_t scanned = 0;
	for (;;) {
		char *s = lr->buf + lr->start;
		size_t avail = lr->len - lr->start;
		char *nl = memchr(s + scanned, '\n', avail - scanned);
		if (nl || (lr->eof && avail)) {
			size_t n = nl ? (size_t)(nl - s) : avail;
			*line = s;
			*len = n;
			lr->start += nl ? n + 1 : n;
			lr->line++;
			strip_cr(line, len);
			return 1;
		}
		if (lr->eof)
			return 0;
		scanned = avail;
		/* Keep the partial line, make room, read more. */
		if (lr->start) {
			memmove(lr->buf, s, avail);
			lr->len = avail;
			lr->start = 0;
		}
		if (lr->len == lr->cap) {
			if (lr->cap >= SV_MAX_LINE) {
				sv_error_set(err, SV_ELIMIT, "line longer than %u bytes", SV_MAX_LINE);
				sv_error_locate(err, lr->in->name, lr->line + 1, -1);
				return SV_ELIMIT;
			}
			char *nb = realloc(lr->buf, lr->cap * 2);
			if (!nb)
				return sv_error_set(err, SV_ENOMEM, NULL);
			lr->buf = nb;
			lr->cap *= 2;
		}
		ssize_t got = read(lr->in->fd, lr->buf + lr->len, lr->cap - lr->len);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			sv_error_set(err, SV_EIO, "read failed: %s", strerror(errno));
			sv_error_locate(err, lr->in->name, 0, -1);
			return SV_EIO;
		}
		if (got == 0)
			lr->eof = true;
		lr->len += (size_t)got;
		lr->consumed += (size_t)got;
		int rc = sv_input_progress(lr->in, lr->consumed, err);
		if (rc)
			return rc;
	}
}
