/* SPDX-License-Identifier: MIT */
/* The progress bar on stderr while a file loads, and cancelling the load: Ctrl-C, or Esc / q
 * typed on the terminal. The importers report parsed bytes through sv_progress (formats.h);
 * this file draws and decides; signals.c owns the handlers. */
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* The terminal's settings while keys are read during a load, for a fatal signal to give
 * back (tcsetattr is async-signal-safe). */
static struct termios saved_tio;

static void restore_tio(void)
{
	tcsetattr(STDIN_FILENO, TCSANOW, &saved_tio);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void human(char *buf, size_t size, unsigned long long n)
{
	if (n >= (1ull << 30))
		snprintf(buf, size, "%.1f GiB", (double)n / (double)(1ull << 30));
	else if (n >= (1ull << 20))
		snprintf(buf, size, "%.1f MiB", (double)n / (double)(1ull << 20));
	else
		snprintf(buf, size, "%llu KiB", n >> 10);
}

/* Esc, q or Ctrl-C typed while loading (the terminal is in non-canonical mode then). */
static bool key_cancel(cli_progress *cp)
{
	if (!cp->keys)
		return false;
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	while (poll(&pfd, 1, 0) > 0 && (pfd.revents & POLLIN)) {
		unsigned char c;
		if (read(STDIN_FILENO, &c, 1) != 1)
			return false;
		if (c == 27 || c == 'q' || c == 3)
			return true;
	}
	return false;
}

static void draw(cli_progress *cp, unsigned long long done, unsigned long long total, bool last)
{
	char d[32], t[32], line[256];
	human(d, sizeof(d), done);
	if (total) {
		double f = (double)done / (double)total;
		if (f > 1)
			f = 1;
		int fill = (int)(f * 30 + 0.5);
		char bar[31];
		memset(bar, '#', (size_t)fill);
		memset(bar + fill, '.', (size_t)(30 - fill));
		bar[30] = '\0';
		human(t, sizeof(t), total);
		snprintf(line, sizeof(line), "loading %s [%s] %3.0f%%  %s of %s", cp->name, bar, f * 100, d, t);
	} else {
		snprintf(line, sizeof(line), "loading %s: %s read", cp->name, d);
	}
	if (cp->tty)
		fprintf(stderr, "\r\033[K%s%s", line, last ? "" : (cp->keys ? "   (Esc cancels)" : "   (Ctrl-C cancels)"));
	else
		fprintf(stderr, "stackview: %s\n", line);
	fflush(stderr);
	cp->drawn = true;
}

static int on_progress(void *payload, unsigned long long done, unsigned long long total)
{
	cli_progress *cp = payload;
	if (cli_signals_interrupted() || key_cancel(cp))
		return 1;
	if (!cp->on)
		return 0;
	double t = now_s();
	/* Nothing for a quick load; then at most ten redraws a second. */
	if ((done == 0 && total) || t - cp->t0 < (cp->tty ? 0.25 : 0) || t - cp->last < 0.1)
		return 0;
	cp->last = t;
	draw(cp, done, total, false);
	return 0;
}

void cli_progress_begin(cli_progress *cp, const char *path, int mode)
{
	memset(cp, 0, sizeof(*cp));
	const char *slash = strrchr(path, '/');
	cp->name = slash && slash[1] ? slash + 1 : path;
	cp->tty = isatty(STDERR_FILENO);
	cp->on = mode > 0 || (mode < 0 && cp->tty);
	cp->t0 = now_s();
	cp->last = -1;
	cp->p.fn = on_progress;
	cp->p.payload = cp;
	cli_signals_listen(true);
	/* Keys cancel only when the terminal is ours to read: not when the data is stdin. */
	if (cp->on && cp->tty && strcmp(path, "-") != 0 && isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &cp->saved) == 0) {
		struct termios raw = cp->saved;
		raw.c_lflag &= (tcflag_t) ~(ICANON | ECHO);
		raw.c_cc[VMIN] = 0;
		raw.c_cc[VTIME] = 0;
		saved_tio = cp->saved;
		cli_signals_on_fatal(restore_tio);
		cp->keys = tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
		if (!cp->keys)
			cli_signals_on_fatal(NULL);
	}
}

sv_progress *cli_progress_watch(cli_progress *cp)
{
	return &cp->p;
}

bool cli_progress_end(cli_progress *cp, bool ok)
{
	if (cp->keys) {
		tcsetattr(STDIN_FILENO, TCSANOW, &cp->saved);
		cli_signals_on_fatal(NULL);
	}
	bool late = cli_signals_listen(false);
	if (!cp->on)
		return late;
	if (cp->tty) {
		if (cp->drawn)
			fputs("\r\033[K", stderr); /* the bar goes away; errors and the TUI follow */
	} else if (ok) {
		fprintf(stderr, "stackview: loaded %s in %.2f s\n", cp->name, now_s() - cp->t0);
	}
	fflush(stderr);
	return late;
}
