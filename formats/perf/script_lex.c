/* SPDX-License-Identifier: MIT */
/* `perf script` text importer, the lexer: header lines (comm, ids, [cpu], time, period,
 * event, payload) and frame lines (address, symbol+offset, (module)), as spans into the
 * line; nothing here allocates or touches the import context. See script_int.h. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script_int.h"

static bool all_digits(span t)
{
	if (!t.n)
		return false;
	for (size_t i = 0; i < t.n; i++)
		if (!isdigit((unsigned char)t.p[i]))
			return false;
	return true;
}

static bool is_int(span t, long long *v)
{
	size_t i = t.n && t.p[0] == '-' ? 1 : 0;
	if (i == t.n)
		return false;
	for (size_t k = i; k < t.n; k++)
		if (!isdigit((unsigned char)t.p[k]))
			return false;
	if (t.n - i > 18)
		return false;
	long long x = 0;
	for (size_t k = i; k < t.n; k++)
		x = x * 10 + (t.p[k] - '0');
	*v = i ? -x : x;
	return true;
}

/* `int` or `int/int` */
static bool is_ids(span t, long long *pid, long long *tid, bool *both)
{
	const char *slash = memchr(t.p, '/', t.n);
	if (!slash)
		return *both = false, is_int(t, tid) && ((*pid = *tid), true);
	span a = { t.p, (size_t)(slash - t.p) }, b = { slash + 1, t.n - a.n - 1 };
	*both = true;
	return is_int(a, pid) && is_int(b, tid);
}

static bool is_cpu(span t)
{
	return t.n >= 3 && t.p[0] == '[' && t.p[t.n - 1] == ']' && all_digits((span){ t.p + 1, t.n - 2 });
}

/* `secs.frac:` (microseconds, or nanoseconds with --ns) */
static bool is_time(span t, long long *secs, long long *ns)
{
	if (t.n < 4 || t.p[t.n - 1] != ':')
		return false;
	const char *dot = memchr(t.p, '.', t.n);
	if (!dot || dot == t.p)
		return false;
	size_t ni = (size_t)(dot - t.p), nf = t.n - 2 - ni;
	if (ni > 12 || nf == 0 || nf > 9)
		return false;
	long long s = 0, f = 0;
	for (size_t i = 0; i < ni; i++) {
		if (!isdigit((unsigned char)t.p[i]))
			return false;
		s = s * 10 + (t.p[i] - '0');
	}
	for (size_t i = 0; i < 9; i++) {
		char ch = i < nf ? dot[1 + i] : '0';
		if (!isdigit((unsigned char)ch))
			return false;
		f = f * 10 + (ch - '0');
	}
	*secs = s;
	*ns = f;
	return true;
}

/* An event token ends with ':' and is not a number ("cpu-clock:", "sched:sched_switch:"). */
static bool is_event(span t)
{
	if (t.n < 2 || t.p[t.n - 1] != ':')
		return false;
	for (size_t i = 0; i + 1 < t.n; i++)
		if (!isdigit((unsigned char)t.p[i]) && t.p[i] != '.')
			return true;
	return false;
}

size_t sv_ps_tokenize(span line, span *tok, size_t max)
{
	size_t n = 0, i = 0;
	while (i < line.n && n < max) {
		while (i < line.n && sv_ps_blank(line.p[i]))
			i++;
		if (i == line.n)
			break;
		size_t s = i;
		while (i < line.n && !sv_ps_blank(line.p[i]))
			i++;
		tok[n++] = (span){ line.p + s, i - s };
	}
	return n;
}

/* perf.md §1.1's rule: the pid/tid token is the first integer (or int/int) token whose whole
 * tail reads [cpu]? time:? period? event: (or ends right there). */
bool sv_ps_parse_header(span line, header *h)
{
	span tok[MAX_TOKENS];
	size_t n = sv_ps_tokenize(line, tok, MAX_TOKENS);
	memset(h, 0, sizeof(*h));
	for (size_t i = 0; i < n; i++) {
		long long pid, tid;
		bool both;
		if (!is_ids(tok[i], &pid, &tid, &both))
			continue;
		size_t j = i + 1;
		header x;
		memset(&x, 0, sizeof(x));
		x.cpu = -1;
		if (j < n && is_cpu(tok[j])) {
			x.cpu = tok[j].n - 2 <= 6 ? atol(tok[j].p + 1) : -1;
			j++;
		}
		if (j < n && is_time(tok[j], &x.time_s, &x.time_ns)) {
			x.has_time = true;
			j++;
		}
		if (j < n && all_digits(tok[j]) && tok[j].n <= 19) {
			x.has_period = true;
			/* up to 18 digits (is_int) fit an integer exactly, and its conversion rounds as
			 * strtod's */
			long long v;
			x.period = is_int(tok[j], &v) ? (double)v : strtod(tok[j].p, NULL);
			j++;
		}
		if (j < n && tok[j].n > 12 && memcmp(tok[j].p, "PERF_RECORD_", 12) == 0) {
			x.record = true;
		} else if (j < n) {
			if (!is_event(tok[j]))
				continue;
			x.event = (span){ tok[j].p, tok[j].n - 1 };
			const char *after = tok[j].p + tok[j].n;
			const char *end = line.p + line.n;
			while (after < end && sv_ps_blank(*after))
				after++;
			while (end > after && sv_ps_blank(end[-1]))
				end--;
			x.payload = (span){ after, (size_t)(end - after) };
		} else if (x.has_period && !x.has_time) {
			continue; /* "comm 12 34" is not a header */
		}
		/* The comm is everything before the ids, as printed (right-trimmed). */
		const char *cs = line.p;
		while (cs < tok[i].p && sv_ps_blank(*cs))
			cs++;
		const char *ce = tok[i].p;
		while (ce > cs && sv_ps_blank(ce[-1]))
			ce--;
		x.comm = (span){ cs, (size_t)(ce - cs) };
		x.pid = pid;
		x.tid = tid;
		x.has_pid = both;
		*h = x;
		return true;
	}
	return false;
}

bool sv_ps_next_header(const char **p, const char *end, header *h)
{
	while (*p < end) {
		const char *nl = memchr(*p, '\n', (size_t)(end - *p));
		span line = { *p, (size_t)((nl ? nl : end) - *p) };
		*p = nl ? nl + 1 : end;
		/* a frame line starts with a tab; a header may start with spaces (perf right-aligns
		 * the comm) */
		if (!line.n || line.p[0] == '\t' || line.p[0] == '#')
			continue;
		if (line.p[line.n - 1] == '\r')
			line.n--;
		if (sv_ps_parse_header(line, h) && !h->record && h->event.n)
			return true;
	}
	return false;
}

/* Strip a trailing "+0x<hex>" (not at position 0). */
span sv_ps_strip_offset(span s)
{
	for (size_t k = s.n; k-- > 1;) {
		if (s.p[k] != '+')
			continue;
		if (k + 2 < s.n && s.p[k + 1] == '0' && s.p[k + 2] == 'x' && sv_ps_is_hex((span){ s.p + k + 3, s.n - k - 3 }))
			return (span){ s.p, k };
		break;
	}
	return s;
}
