/* SPDX-License-Identifier: MIT */
/* The main loops: headless (a key script in, plain-text screens out, tig's TIG_SCRIPT idea)
 * and the real terminal (term.c owns curses). Both feed keys to tui_app_handle, apply the
 * reactions, and draw. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "app.h"
#include "term.h"
#include "tui.h"

static const struct {
	const char *name;
	int key;
} named_keys[] = {
	{ "Up", KEY_UP },       { "Down", KEY_DOWN },   { "Left", KEY_LEFT },     { "Right", KEY_RIGHT },
	{ "PgUp", KEY_PPAGE },  { "PgDn", KEY_NPAGE },  { "Home", KEY_HOME },     { "End", KEY_END },
	{ "Enter", '\n' },      { "Esc", TUI_KEY_ESC }, { "Tab", '\t' },          { "S-Tab", KEY_BTAB },
	{ "Space", ' ' },       { "BS", KEY_BACKSPACE }, { "Del", KEY_DC },        { "S-F7", KEY_F(19) }, { "S-F10", KEY_F(22) },
	{ "M-Left", TUI_ALT(KEY_LEFT) }, { "M-Right", TUI_ALT(KEY_RIGHT) }, { "lt", '<' },
};

/* Parse one "<...>" token; returns the key or -1. */
static int parse_named(const char *t, size_t n)
{
	for (size_t i = 0; i < sizeof(named_keys) / sizeof(named_keys[0]); i++)
		if (strlen(named_keys[i].name) == n && strncasecmp(named_keys[i].name, t, n) == 0)
			return named_keys[i].key;
	if (n >= 2 && (t[0] == 'F' || t[0] == 'f') && isdigit((unsigned char)t[1])) {
		int k = atoi(t + 1);
		if (k >= 1 && k <= 24)
			return KEY_F(k);
	}
	if (n == 3 && t[1] == '-' && (t[0] == 'C' || t[0] == 'c'))
		return TUI_CTRL(t[2]);
	if (n == 3 && t[1] == '-' && (t[0] == 'M' || t[0] == 'm'))
		return TUI_ALT(t[2]);
	return -1;
}

/* After a key: the events read meanwhile (a key script waits for them all). */
static void settle(tui_app *a)
{
	if (a->headless)
		(void)tui_evlog_wait(a);
	tui_evlog_poll(a);
}

static void feed(tui_app *a, int key)
{
	int flags = tui_app_handle(a, key);
	tui_app_react(a, flags);
	settle(a);
}

static void feed_mouse(tui_app *a, tui_mouse m, int x, int y)
{
	tui_app_react(a, tui_app_mouse(a, m, x, y));
	settle(a);
}

/* "<Click:X,Y>", "<DClick:X,Y>", "<WheelUp:X,Y>", "<WheelDown:X,Y>" (columns and rows from 0). */
static bool parse_mouse(const char *p, tui_mouse *m, int *x, int *y, const char **end)
{
	static const struct {
		const char *name;
		tui_mouse m;
	} kinds[] = { { "<Click:", TUI_MOUSE_CLICK }, { "<DClick:", TUI_MOUSE_DOUBLE },
		      { "<WheelUp:", TUI_MOUSE_WHEEL_UP }, { "<WheelDown:", TUI_MOUSE_WHEEL_DOWN } };
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t l = strlen(kinds[i].name);
		int n = 0;
		if (strncasecmp(p, kinds[i].name, l) == 0 && sscanf(p + l, "%d,%d>%n", x, y, &n) == 2 && n > 0) {
			*m = kinds[i].m;
			*end = p + l + n;
			return true;
		}
	}
	return false;
}

/* A screen of w x h for the app; false when the size is unusable or memory short. */
static bool resize_app(tui_app *a, tui_screen **scr, int w, int h)
{
	tui_screen *ns = tui_screen_new(w, h);
	if (!ns)
		return false;
	tui_screen_free(*scr);
	*scr = ns;
	a->w = w;
	a->h = h;
	return true;
}

/* Script tokens, separated by blanks or newlines:
 *   <Down> <Enter> <F7> <S-F7> <C-d> <M-u> ...  named keys
 *   "text"          types the text (blanks included)
 *   :dump           writes the screen to the output, followed by a line "----"
 *   :dump>          the same with the cursor bars marked ('>' before their lines)
 *   <Click:X,Y> <DClick:X,Y> <WheelUp:X,Y> <WheelDown:X,Y>   mouse events (from 0)
 *   :resize WxH     resizes the screen
 *   :clipboard      writes the text last copied (y, Y), followed by a line "----"
 *   # ...           a comment to the end of the line
 *   anything else   types its characters one by one */
static int run_script(tui_app *a, const tui_options *o, sv_error *err)
{
	tui_screen *scr = NULL;
	if (!resize_app(a, &scr, o->width, o->height))
		return sv_error_set(err, SV_EINVAL, "bad screen size %dx%d", o->width, o->height);
	const char *p = o->script;
	int rc = 0, mx, my;
	tui_mouse mouse;
	bool dumped_last = false;
	while (*p && !a->quit) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		if (*p == '#') {
			while (*p && *p != '\n')
				p++;
			continue;
		}
		const char *t = p;
		dumped_last = false;
		if (*p == '<' && parse_mouse(p, &mouse, &mx, &my, &p)) {
			feed_mouse(a, mouse, mx, my);
		} else if (*p == '<') {
			const char *e = strchr(p, '>');
			int key = e ? parse_named(p + 1, (size_t)(e - p - 1)) : -1;
			if (key < 0) {
				rc = sv_error_set(err, SV_EINVAL, "key script: unknown key '%.*s'", (int)(e ? e - t + 1 : 12), t);
				break;
			}
			feed(a, key);
			p = e + 1;
		} else if (*p == '"') {
			const char *e = strchr(p + 1, '"');
			if (!e) {
				rc = sv_error_set(err, SV_EINVAL, "key script: unterminated \"");
				break;
			}
			for (const char *c = p + 1; c < e; c++)
				feed(a, (unsigned char)*c);
			p = e + 1;
		} else if (strncmp(p, ":dump", 5) == 0) {
			bool marks = p[5] == '>';
			tui_app_draw(a, scr);
			tui_screen_dump(scr, o->out, marks);
			fputs("----\n", o->out);
			dumped_last = true;
			p += marks ? 6 : 5;
		} else if (strncmp(p, ":clipboard", 10) == 0) {
			fprintf(o->out, "%s----\n", a->clip ? a->clip : "");
			a->clip_new = false;
			p += 10;
		} else if (strncmp(p, ":resize", 7) == 0) {
			int w, h, n = 0;
			if (sscanf(p + 7, " %dx%d%n", &w, &h, &n) != 2 || !resize_app(a, &scr, w, h)) {
				rc = sv_error_set(err, SV_EINVAL, "key script: bad :resize");
				break;
			}
			feed(a, KEY_RESIZE);
			p += 7 + n;
		} else {
			while (*p && !isspace((unsigned char)*p))
				feed(a, (unsigned char)*p++);
		}
	}
	if (!rc && !dumped_last) {
		tui_app_draw(a, scr);
		tui_screen_dump(scr, o->out, false);
	}
	tui_screen_free(scr);
	return rc;
}

/* tui_busy on a terminal: the window as it is, painted before the step that follows. */
static void paint_now(tui_app *a)
{
	if (!a->paint_scr)
		return;
	tui_app_draw(a, a->paint_scr);
	tui_term_paint(a->paint_scr);
}

/* While a file is read again (tui_busy_watch): whether Esc was typed. Other keys typed
 * meanwhile are dropped (meant for a window that was not there yet); a resize is kept for
 * the main loop. */
static bool resized_meanwhile;

static bool esc_typed(tui_app *a)
{
	(void)a;
	for (;;) {
		int key = tui_term_key(0);
		if (key == TUI_KEY_TICK)
			return false;
		if (key == KEY_RESIZE)
			resized_meanwhile = true;
		if (key == TUI_KEY_ESC)
			return true;
	}
}

static int run_terminal(tui_app *a, sv_error *err)
{
	tui_screen *scr = NULL;
	int rc = tui_term_start(err);
	if (rc)
		return rc;
	int w, h;
	tui_term_size(&w, &h);
	if (!resize_app(a, &scr, w, h)) {
		tui_term_stop();
		return sv_error_set(err, SV_EUNSUPPORTED, "terminal too small");
	}
	a->paint_now = paint_now;
	a->esc_typed = esc_typed;
	while (!a->quit) {
		if (resized_meanwhile) { /* (met by esc_typed while the last key's work read a file) */
			resized_meanwhile = false;
			tui_term_size(&w, &h);
			if (w > 0 && h > 0)
				(void)resize_app(a, &scr, w, h);
			feed(a, KEY_RESIZE);
			continue;
		}
		a->paint_scr = scr; /* (a new one after a resize) */
		tui_app_draw(a, scr);
		tui_term_paint(scr);
		if (a->clip_new && a->clip) {
			tui_term_clipboard(a->clip);
			a->clip_new = false;
		}
		/* while events are read, the screen follows them a few times a second */
		int key = tui_term_key(tui_evlog_reading(a) ? 50 : -1);
		if (key == TUI_KEY_TICK) {
			tui_evlog_poll(a);
			continue;
		}
		if (key == KEY_MOUSE) {
			int m, x, y;
			if (tui_term_mouse(&m, &x, &y))
				feed_mouse(a, (tui_mouse)m, x, y);
			continue;
		}
		if (key == KEY_RESIZE) {
			tui_term_size(&w, &h);
			if (w > 0 && h > 0)
				(void)resize_app(a, &scr, w, h); /* too small: keep the old screen */
		}
		feed(a, key);
	}
	a->paint_now = NULL;
	a->paint_scr = NULL;
	a->esc_typed = NULL;
	tui_term_stop();
	tui_screen_free(scr);
	return 0;
}

int tui_run(sv_source *src, const sv_params *params, const tui_options *o, sv_error *err)
{
	tui_app *a;
	int rc = tui_app_new(&a, src, params, o->title, err);
	if (rc) {
		if (o->give_source)
			sv_source_free(src);
		return rc;
	}
	a->frames[0].owns_src = o->give_source;
	a->save = o->save;
	a->save_payload = o->save_payload;
	a->presets = o->presets;
	a->store_presets = o->store_presets;
	a->presets_payload = o->presets_payload;
	a->hello = o->hello;
	a->reload = o->reload;
	a->reload_payload = o->reload_payload;
	a->load_events = o->load_events;
	a->headless = o->script != NULL;
	a->code_text = o->code_text;
	a->expand_hot = o->expand_hot;
	if (o->priority && !(a->frames[0].priority = strdup(o->priority))) {
		tui_app_free(a);
		sv_error_set(err, SV_ENOMEM, NULL);
		return SV_ENOMEM;
	}
	a->compare = o->compare;
	if (a->compare) {
		tui_default_columns(a);
		tui_app_react(a, TUI_REFLATTEN);
	}
	if (a->expand_hot) {
		tui_expand_hot(a);
		tui_app_react(a, TUI_REFLATTEN);
	}
	if (a->hello)
		tui_status(a, "%s", a->hello);
	if (o->pick_process)
		(void)tui_app_start_picker(a);
	rc = o->script ? run_script(a, o, err) : run_terminal(a, err);
	if (!rc && a->fatal.code) {
		*err = a->fatal;
		rc = a->fatal.code;
	}
	tui_app_free(a);
	return rc;
}
