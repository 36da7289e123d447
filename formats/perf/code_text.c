/* SPDX-License-Identifier: MIT */
/* Source text and instruction lookup for annotate and Goto Source (code_int.h). Source files
 * are the user's but read from paths a binary's DWARF names: bounded in size, read as bytes. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <signal.h>
#include <elfutils/debuginfod.h>

#include "../core/hold.h"
#include "../core/net.h"
#include "../core/side_file.h"
#include "code_int.h"
#include "perf_int.h"

#define MAX_SOURCE_BYTES (16u << 20)

static bool try_read(sv_src_text *s, const char *path)
{
	size_t tl = s->tried ? strlen(s->tried) : 0, pl = strlen(path);
	char *t = realloc(s->tried, tl + pl + 3);
	if (t) {
		s->tried = t;
		snprintf(t + tl, pl + 3, "%s%s", tl ? ", " : "", path);
	}
	/* a path a binary names: only a regular file of bounded size (a FIFO would block) */
	int fd = sv_side_open(path, SV_MAX_SIDE_TEXT);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "rb");
	if (!f) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	char *text = malloc(MAX_SOURCE_BYTES + 1);
	size_t len = text ? fread(text, 1, MAX_SOURCE_BYTES, f) : 0;
	fclose(f);
	if (!text)
		return false;
	text[len] = '\0';
	size_t lines = 1;
	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	if (!(s->line = malloc(lines * sizeof(*s->line)))) {
		free(text);
		return false;
	}
	s->text = text;
	char *p = text;
	while (p && *p) {
		s->line[s->n++] = p;
		if ((p = strchr(p, '\n')))
			*p++ = '\0';
	}
	return true;
}

/* A Windows path (a PDB's): "c:\\x", "C:/x" or "\\\\server\\x". */
static bool win_path(const char *path)
{
	return (((path[0] | 0x20) >= 'a' && (path[0] | 0x20) <= 'z' && path[1] == ':' && (path[2] == '\\' || path[2] == '/')) ||
		(path[0] == '\\' && path[1] == '\\'));
}

/* A Windows path's part after its drive (or server), with '/' for '\\', into p (cap n). */
static void win_rest(char *p, size_t n, const char *rest)
{
	size_t o = strlen(p);
	for (; *rest && o + 1 < n; rest++)
		p[o++] = *rest == '\\' ? '/' : *rest;
	p[o] = '\0';
}

/* One entry of source_path: OLD=NEW replaces the prefix OLD (perf's --prefix, gdb's
 * substitute-path); DIR tries DIR/path, then DIR/its base name. A Windows path (a PDB's
 * lines) has its prefix compared in any case and its '\\' read as '/', and under DIR it goes
 * without its drive. */
static bool try_entry(sv_src_text *s, const char *path, const char *e, size_t elen)
{
	const char *eq = memchr(e, '=', elen);
	bool win = win_path(path);
	size_t n = elen + strlen(path) + 2;
	char *p = malloc(n);
	if (!p)
		return false;
	bool got = false;
	if (eq) {
		size_t ol = (size_t)(eq - e);
		if (ol && (win ? !strncasecmp(path, e, ol) : !strncmp(path, e, ol))) {
			snprintf(p, n, "%.*s", (int)(elen - ol - 1), eq + 1);
			if (win)
				win_rest(p, n, path + ol);
			else
				snprintf(p + strlen(p), n - strlen(p), "%s", path + ol);
			got = try_read(s, p);
		}
	} else if (elen) {
		const char *rest = path[0] == '/' ? path + 1 : path, *base = sv_base_name(path);
		if (win) {
			rest = path[0] == '\\' ? path + 2 : path + 3; /* past "\\\\" or "c:\\" */
			for (const char *q = path; *q; q++)
				if (*q == '\\' || *q == '/')
					base = q + 1;
		}
		snprintf(p, n, "%.*s/", (int)elen, e);
		if (win)
			win_rest(p, n, rest);
		else
			snprintf(p + strlen(p), n - strlen(p), "%s", rest);
		if (!(got = try_read(s, p))) {
			snprintf(p, n, "%.*s/%s", (int)elen, e, base);
			got = try_read(s, p);
		}
	}
	free(p);
	return got;
}

/* The source file from debuginfod's source API (its servers from DEBUGINFOD_URLS, its cache
 * from DEBUGINFOD_CACHE_PATH), read from the cache as any other file. */
static bool try_debuginfod(sv_src_text *s, const char *path, const sv_disasm *d)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	if (!d || !d->build_id_len || !urls || !*urls || path[0] != '/')
		return false;
	size_t tl = s->tried ? strlen(s->tried) : 0;
	char *t = realloc(s->tried, tl + 64);
	if (t) {
		s->tried = t;
		snprintf(t + tl, 64, "%sdebuginfod (%s)", tl ? ", " : "", "DEBUGINFOD_URLS");
	}
	debuginfod_client *c = debuginfod_begin();
	if (!c)
		return false;
	sv_net net;
	sv_net_init(&net, NULL);
	sv_dbgd_watch w = { .net = &net, .until = sv_net_now() + sv_net_allow(&net) };
	debuginfod_set_user_data(c, &w);
	debuginfod_set_progressfn(c, sv_dbgd_progress);
	char *got = NULL;
	sigset_t old;
	sv_hold_begin(&old);
	int fd = debuginfod_find_source(c, d->build_id, (int)d->build_id_len, path, &got);
	sv_hold_end(&old);
	debuginfod_end(c);
	if (fd >= 0)
		close(fd); /* read again through the side-file guard */
	bool ok = false;
	if (fd >= 0 && got) {
		char *keep = s->tried; /* the cache's path is not a place the user looked */
		s->tried = NULL;
		ok = try_read(s, got);
		free(s->tried);
		s->tried = keep;
	}
	free(got);
	return ok;
}

void sv_src_load(sv_src_text *s, const char *path, const char *source_path, const sv_disasm *d)
{
	memset(s, 0, sizeof(*s));
	if (try_read(s, path))
		return;
	for (const char *e = source_path; e && *e;) {
		/* ':' separates the entries, but not a drive's ("c:\\src=/home/me/src") */
		const char *end = strchr(e, ':');
		while (end && ((end == e + 1 || end[-2] == '=') && (end[1] == '\\' || end[1] == '/')))
			end = strchr(end + 1, ':');
		size_t len = end ? (size_t)(end - e) : strlen(e);
		if (try_entry(s, path, e, len))
			return;
		e += len + (end ? 1 : 0);
	}
	(void)try_debuginfod(s, path, d);
}

const char *sv_src_line(const sv_src_text *s, uint32_t line)
{
	return s->text && line >= 1 && line <= s->n ? s->line[line - 1] : NULL;
}

void sv_src_dispose(sv_src_text *s)
{
	free(s->text);
	free(s->line);
	free(s->tried);
	memset(s, 0, sizeof(*s));
}

size_t sv_insn_at(const sv_disasm *d, uint64_t addr)
{
	size_t lo = 0, hi = d->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->insns[mid].addr + d->insns[mid].size <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->n && d->insns[lo].addr <= addr ? lo : SIZE_MAX;
}

const char *sv_base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

void sv_put_source(FILE *f, const char *t)
{
	for (size_t col = 0; t && *t; t++) {
		if (*t == '\t') {
			do
				fputc(' ', f);
			while (++col % 8);
		} else {
			fputc((unsigned char)*t < 0x20 || *t == 0x7f ? ' ' : *t, f);
			col++;
		}
	}
}
