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
