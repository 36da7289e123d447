/* SPDX-License-Identifier: MIT */
/* Helpers shared by the perf importers (perf script text and perf.data): array growth, the
 * .NET JIT `[Module]` token, and PerfView's process frame names (semantics.md §1.5). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_int.h"

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

/* .NET runtime helper threads, left out of process names unless nothing else is left. */
static bool dotnet_comm(const char *s)
{
	return !strcmp(s, ".NET Finalizer") || !strcmp(s, ".NET Tiered Compilation Worker") || !strcmp(s, ".NET BGC") ||
	       !strcmp(s, ".NET Server GC");
}

char *sv_perf_process_name(const char *const *comms, size_t n, long long pid)
{
	size_t total = 64;
	for (size_t k = 0; k < n; k++)
		total += strlen(comms[k]) + 1;
	char *buf = malloc(total);
	if (!buf)
		return NULL;
	size_t o = (size_t)snprintf(buf, total, "Process "), kept = 0;
	for (int pass = 0; pass < 2 && !kept; pass++)
		for (size_t k = 0; k < n; k++) {
			if (pass == 0 && dotnet_comm(comms[k]))
				continue;
			o += (size_t)snprintf(buf + o, total - o, "%s%s", kept++ ? ";" : "", comms[k]);
		}
	snprintf(buf + o, total - o, " (%lld)", pid);
	return buf;
}

int sv_perf_process_frame(sv_sink *sink, sv_frame_id *out, long long pid)
{
	char buf[64];
	int n = snprintf(buf, sizeof(buf), "Process (%lld)", pid);
	return sink->ops->intern_frame(sink->self, out, buf, (size_t)n);
}

int sv_perf_thread_stack(sv_sink *sink, sv_idmap *memo, sv_frame_id process, long long pid, long long tid,
			 sv_stack_id *out)
{
	uint64_t key = ((uint64_t)(uint32_t)pid << 32) | (uint32_t)tid;
	uint32_t s = sv_idmap_get(memo, key);
	if (s != SV_IDMAP_NONE) {
		*out = s;
		return 0;
	}
	char buf[64];
	int n = snprintf(buf, sizeof(buf), "Thread (%lld)", tid);
	sv_frame_id tf;
	sv_stack_id ps, ts;
	int rc = sink->ops->intern_frame(sink->self, &tf, buf, (size_t)n);
	if (!rc)
		rc = sink->ops->intern_stack(sink->self, &ps, SV_STACK_NONE, process);
	if (!rc)
		rc = sink->ops->intern_stack(sink->self, &ts, ps, tf);
	if (!rc && sv_idmap_put(memo, key, ts))
		rc = SV_ENOMEM;
	if (!rc)
		*out = ts;
	return rc;
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
