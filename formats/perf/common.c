/* SPDX-License-Identifier: MIT */
/* Helpers shared by the perf importers (perf script text and perf.data): the sorted-table
 * search, the .NET JIT `[Module]` token, which mapped files are the profiled programs', and
 * the format table's opening state. Process and thread names are names.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <elfutils/debuginfod.h>

#include "perf_int.h"
#include "core/net.h"

size_t sv_perf_upper(const void *v, size_t n, size_t size, size_t key, uint64_t addr)
{
	const unsigned char *b = v;
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t start;
		memcpy(&start, b + mid * size + key, sizeof(start));
		if (start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int sv_perf_keys_build(sv_perf_keys *k, const void *v, size_t n, size_t size, size_t key, size_t end)
{
	memset(k, 0, sizeof(*k));
	if (n < 64)
		return 0;
	/* each level's lines padded with the largest start (counted only for it: see below) */
	size_t len[SV_PERF_KEYS_LEVELS], total = 0;
	unsigned nl = 0;
	len[nl] = (n + 3) / 4 * 8; /* the bottom's pairs */
	total += len[nl++];
	for (size_t m = len[0] / 8; nl < SV_PERF_KEYS_LEVELS; m = len[nl - 1] / 8) {
		len[nl] = (m + 7) / 8 * 8;
		total += len[nl++];
		if (m <= 8)
			break;
	}
	void *p = NULL;
	if (total > SIZE_MAX / 8 || posix_memalign(&p, 64, total * sizeof(uint64_t)))
		return SV_ENOMEM;
	k->keys = p;
	size_t at = total;
	for (unsigned l = 0; l < nl; l++) {
		at -= len[l];
		k->off[l] = at;
	}
	uint64_t *bottom = k->keys + k->off[0];
	const unsigned char *b = v;
	for (size_t i = 0; i < n; i++) {
		memcpy(&bottom[2 * i], b + i * size + key, sizeof(uint64_t));
		memcpy(&bottom[2 * i + 1], b + i * size + end, sizeof(uint64_t));
	}
	for (size_t i = 2 * n; i < len[0]; i++)
		bottom[i] = UINT64_MAX;
	for (unsigned l = 1; l < nl; l++) {
		const uint64_t *below = k->keys + k->off[l - 1];
		uint64_t *here = k->keys + k->off[l];
		size_t lines = len[l - 1] / 8;
		for (size_t i = 0; i < len[l]; i++)
			here[i] = i < lines ? below[i * 8] : UINT64_MAX; /* (a pair's start is first) */
	}
	k->n = n;
	k->nlevels = nl;
	return 0;
}

size_t sv_perf_keys_upper(const sv_perf_keys *k, uint64_t addr, uint64_t *end)
{
	if (addr == UINT64_MAX) { /* every start is at or before it, padding too */
		*end = k->keys[k->off[0] + 2 * k->n - 1];
		return k->n;
	}
	/* a level's line holds the first starts of the eight lines below it: the last of them
	 * at or before addr is the line below to read (every start before that line's is too,
	 * and none after it) */
	size_t line = 0;
	for (unsigned l = k->nlevels; l-- > 1;) {
		const uint64_t *p = k->keys + k->off[l] + line * 8;
		size_t c = 0;
		for (int i = 0; i < 8; i++)
			c += p[i] <= addr;
		if (!c)
			return 0; /* (only at the top: below, a line's first start is its parent's) */
		line = line * 8 + c - 1;
	}
	const uint64_t *p = k->keys + k->off[0] + line * 8;
	size_t c = 0;
	for (int i = 0; i < 4; i++)
		c += p[2 * i] <= addr;
	if (c)
		*end = p[2 * c - 1];
	return line * 4 + c;
}

void sv_perf_keys_free(sv_perf_keys *k)
{
	free(k->keys);
	memset(k, 0, sizeof(*k));
}

bool sv_perf_jit_split(const char *sym, size_t n, const char **module, size_t *mlen, const char **rest, size_t *rlen)
{
	size_t i = 0;
	while (i < n) {
		while (i < n && (sym[i] == ' ' || sym[i] == '\t'))
			i++;
		size_t j = i;
		while (j < n && sym[j] != ' ' && sym[j] != '\t')
			j++;
		if (j - i >= 3 && sym[i] == '[' && sym[j - 1] == ']') {
			*module = sym + i + 1;
			*mlen = j - i - 2;
			while (j < n && (sym[j] == ' ' || sym[j] == '\t'))
				j++;
			*rest = sym + j;
			*rlen = n - j;
			return true;
		}
		i = j;
	}
	return false;
}

/* PerfView's defaults for CPU stacks of whole systems (semantics §11.2), except that the
 * recorded programs' own modules stay ungrouped, so their functions show by name (PerfView's
 * "Just My App" idea; issue 14). */
const sv_format_defaults sv_perf_defaults = {
	.group = "[group module entries]  {%}!=>module $1",
	.pick_process = true,
	.group_system = true,
};

bool sv_perf_program_file(const char *path, size_t len)
{
	static const char *const dirs[] = { "/usr/", "/lib/", "/lib32/", "/lib64/", "/libx32/", "/bin/", "/sbin/",
					    "/etc/", "/snap/", "/nix/store/", "/gnu/store/" };
	/* Not a file: [kernel.kallsyms], [vdso], [unknown] (perf script prints them without
	 * brackets once unwrapped), //anon, memfd: */
	if (!len || path[0] != '/' || (len >= 2 && path[1] == '/') || (len >= 7 && memcmp(path, "/memfd:", 7) == 0))
		return false;
	/* JIT maps name their code's modules themselves */
	if (len >= 4 && memcmp(path + len - 4, ".map", 4) == 0)
		return false;
	/* an executable is a program wherever it lives (/usr/bin/gcc, .../cc1) */
	const char *base = path + len;
	while (base > path && base[-1] != '/')
		base--;
	if (!memmem(base, (size_t)(path + len - base), ".so", 3))
		return true;
	/* a library is the program's own unless it is the system's */
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		size_t l = strlen(dirs[i]);
		if (len >= l && memcmp(path, dirs[i], l) == 0)
			return false;
	}
	return true;
}

size_t sv_perf_text_fields(const char *text, size_t n, char *buf, const char **names, const char **values, size_t max)
{
	size_t nf = 0, o = 0, i = 0;
	while (i < n && nf < max) {
		while (i < n && (text[i] == ' ' || text[i] == '\t'))
			i++;
		size_t s = i;
		while (i < n && text[i] != ' ' && text[i] != '\t')
			i++;
		const char *eq = memchr(text + s, '=', i - s);
		if (!eq || eq == text + s)
			continue;
		size_t kl = (size_t)(eq - text - s), vl = i - s - kl - 1;
		names[nf] = buf + o;
		memcpy(buf + o, text + s, kl), o += kl, buf[o++] = '\0';
		values[nf++] = buf + o;
		memcpy(buf + o, eq + 1, vl), o += vl, buf[o++] = '\0';
	}
	while (!nf && n && (text[n - 1] == ' ' || text[n - 1] == '\t'))
		n--; /* as the text's line ends */
	if (!nf && n && max) {
		names[nf] = "text";
		values[nf++] = buf + o;
		memcpy(buf + o, text, n), buf[o + n] = '\0';
	}
	return nf;
}

int sv_dbgd_progress(debuginfod_client *client, long a, long b)
{
	(void)a, (void)b;
	sv_dbgd_watch *w = debuginfod_get_user_data(client);
	if (w->net && sv_net_stop(w->net)) {
		snprintf(w->why, sizeof(w->why), "stopped");
		return 1;
	}
	if (sv_net_now() > w->until) {
		snprintf(w->why, sizeof(w->why), "timed out (--net-timeout, --net-total)");
		return 1;
	}
	return 0;
}
