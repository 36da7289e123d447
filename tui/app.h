/* SPDX-License-Identifier: MIT */
/* The stack window's state and commands. A frame is one view on the stack of views (Drill
 * Into pushes one, Esc pops it); each keeps its parameters, filter history, focus and one
 * pane (cursor, scroll, expansion) per tab. Only tui_app_handle changes state; it returns
 * reaction flags and the main loop recomputes and redraws (style rule 17).
 * Ownership: tui_app_new borrows the source until tui_app_free; frames pushed by Drill Into
 * own theirs. */
#ifndef STACKVIEW_TUI_APP_H
#define STACKVIEW_TUI_APP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "keymap.h"
#include "screen.h"
#include "tui.h"
#include "stackview/aggview.h"
#include "stackview/evlog.h"
#include "stackview/grid.h"
#include "stackview/preset.h"
#include "stackview/rows.h"
#include "stackview/source.h"
#include "stackview/view.h"

typedef enum tui_tab {
	TAB_BYNAME, TAB_CALLTREE, TAB_CALLERS, TAB_CALLEES, TAB_CC, TAB_FLAME, TAB_NOTES, TAB_COUNT
} tui_tab;


/* What the keyboard is talking to: one field instead of a flag per dialog. Each mode has a
 * row in the mode table (commands.c): its key, mouse and paint functions. */
typedef enum tui_mode {
	MODE_GRID,    /* the stack window: the tab's grid, Flame or Notes */
	MODE_EDIT,    /* the edit line (a box, Find, Save As, a preset's name) */
	MODE_PICKER,  /* the process picker */
	MODE_PRESETS, /* the Presets dialog */
	MODE_COLUMNS, /* the Columns dialog */
	MODE_HELP,    /* the help screen */
	MODE_NOTES,   /* editing the Notes tab */
	MODE_WHEN,    /* When characters of the cursor row selected */
	MODE_EVENTS,  /* the event picker */
	MODE_EVLIST,  /* the Events view: every event of the trace */
	MODE_REPORT,  /* the Reports view: GCStats and JITStats */
	MODE_ANNOTATE, /* the Annotate and Goto Source views: a function's code or lines and their costs */
	MODE_COUNT
} tui_mode;

/* What the edit line's text is for. */
typedef enum tui_edit_kind { EDIT_BOX, EDIT_FIND, EDIT_SAVE, EDIT_PRESET, EDIT_PRIORITY } tui_edit_kind;

typedef struct tui_pane {
	size_t cursor, top;
	sv_expansion *exp;
} tui_pane;

typedef struct tui_frame {
	sv_source *src;
	bool owns_src;
	char *title;
	sv_params params;
	sv_view *view;
	sv_params *hist; /* filter history (Back / Forward) */
	size_t nhist, hpos, hist_cap;
	char *focus;
	char *priority; /* a whole heap snapshot: the Priority patterns of src; NULL = not one */
	/* asleep under another Priority's frame (tui_frame_sleep): no view, and no source when
	 * the file can be read again; the node count its view had, to know the panes still fit */
	bool asleep;
	uint32_t slept_nodes;
	sv_aggtree *agg; /* Callers or Callees of the focus, for the tab shown */
	tui_tab agg_tab;
	sv_callercallee *cc;
	struct sv_flame *flame; /* the Flame tab's layout, for flame_top at flame_w columns */
	sv_node_id flame_top;
	sv_node_id *zooms; /* earlier flame_top values: Esc goes back through them */
	size_t nzooms, zoom_cap;
	size_t flame_sel;
	int flame_w;
	tui_pane pane[TAB_COUNT];
	sv_rows rows; /* the visible rows of the current tab */
} tui_frame;

/* A cursor placement a handler asks for with TUI_REFLATTEN: the rows do not exist yet, so
 * tui_app_react applies it after rebuilding them. */
typedef enum tui_after_kind {
	AFTER_NONE,
	AFTER_ROW_ID,     /* the row with this id (a call tree node, an aggregate row ...) */
	AFTER_ROW_NAME,   /* the first row with this name id */
	AFTER_FLAME_NODE, /* the flame box of this call tree node */
	AFTER_SAMPLE,     /* the call tree node this sample lands on, its callers opened */
} tui_after_kind;
typedef struct tui_after {
	tui_after_kind kind;
	uint32_t id;
} tui_after;

/* A place the user was before a jump (nav.c): the frame depth, tab, focus and cursor. */
typedef struct tui_nav {
	size_t nframes;
	tui_tab tab;
	char *focus; /* owned; NULL = none */
	size_t cursor;
	bool tab_only; /* a tab switch: Backspace steps back over it, q and Esc go past it */
} tui_nav;

typedef struct tui_app tui_app;
/* Mouse events, in screen cells. */
typedef enum tui_mouse { TUI_MOUSE_CLICK, TUI_MOUSE_DOUBLE, TUI_MOUSE_WHEEL_UP, TUI_MOUSE_WHEEL_DOWN } tui_mouse;

/* A dialog's list (the process picker, Presets, Columns, help): the item under the cursor
 * and the first item shown. One set of keys, one mouse rule and one painter serve them all
 * (list.c); `y0` and `rows` are where it was painted last, for the mouse. */
typedef struct tui_list {
	size_t n, cursor, top;
	int y0, rows;
	bool scroll_only; /* help: a text without a cursor; the keys scroll it */
} tui_list;

/* Up/Down, PgUp/PgDn, Home/End (and k/j when `vi`; the picker types letters into its filter):
 * true when the key moved the list. */
bool tui_list_key(tui_list *l, int key, bool vi);
/* Where the list is painted: n items from screen row y0, rows lines (the dialog's layout,
 * set before keys and clicks are handled, as a headless run paints only on :dump). */
void tui_list_place(tui_list *l, size_t n, int y0, int rows);
enum { TUI_LIST_NONE, TUI_LIST_MOVED, TUI_LIST_AGAIN, TUI_LIST_OPEN };
/* The wheel scrolls three lines; a click selects (TUI_LIST_AGAIN when on the item already
 * selected), a double click opens (TUI_LIST_OPEN); TUI_LIST_NONE off the list. */
int tui_list_mouse(tui_list *l, tui_mouse m, int y);
/* Paint the placed list, the cursor kept in view and its line reversed; `line` paints item i
 * at row y with attributes attr. */
void tui_list_draw(tui_list *l, tui_app *a, tui_screen *s, void (*line)(tui_app *a, tui_screen *s, size_t i, int y, int attr));

typedef struct tui_app {
	tui_frame *frames;
	size_t nframes, frame_cap;
	tui_tab tab;
	char status[512];
	tui_mode mode;
	/* the edit line: what it is for, the box being edited (EDIT_BOX), the text */
	tui_edit_kind edit_kind;
	int edit_box;
	char edit[4096];
	size_t edit_len, edit_cur;
	int edit_hist; /* index into the frame history while browsing it with Up/Down */
	char find[256];
	int (*save)(void *payload, const sv_source *src, const char *path, sv_error *err);
	void *save_payload;
	/* presets: the user's (borrowed, changed in place) and how to store them */
	sv_presets *presets;
	int (*store_presets)(void *payload, const sv_presets *ps, sv_error *err);
	void *presets_payload;
	tui_list presets_list;
	unsigned saves;
	/* the process picker */
	sv_process *procs;
	size_t nprocs;
	size_t *shown;      /* indexes of procs matching the filter; 0..nshown-1 */
	size_t nshown;
	tui_list pick; /* item 0 = "all processes", i+1 = shown[i] */
	tui_list events; /* the event picker */
	/* the Events view (dlg_evlist.c): the trace's events, read on a thread of their own
	 * (ev_read, while it runs) from when the view is first opened, and kept */
	int (*load_events)(const void *payload, sv_evlog *log, tui_ev_reading *rd, char *warn, size_t warncap, sv_error *err);
	struct tui_ev_read *ev_read; /* evread.h */
	bool headless; /* a key script drives the run: each key waits for the reading, so every run shows the same */
	int (*code_text)(const void *payload, const sv_view *v, const char *name, bool source, char **text, bool **hot, size_t *nlines,
			 size_t *hottest, sv_error *err);
	sv_evlog *evlog;
	size_t *evidx, nevidx, evidx_cap; /* the rows the filter keeps */
	size_t ev_scanned;                /* of the rows the filter has looked at */
	tui_list evl;
	char ev_filter[128];
	char ev_warn[300];
	int ev_kind_w, ev_proc_w; /* the Event and Process columns' widths for the rows painted */
	/* the Reports view (dlg_report.c): its text, made when first opened, and its lines */
	char *report;
	size_t *report_lines, nreport_lines;
	tui_list report_list;
	/* the Annotate and Goto Source views (dlg_annotate.c): the text, its lines, the hot ones */
	char *annot;
	size_t *annot_lines, nannot_lines;
	bool *annot_hot;
	tui_list annot_list;
	struct sv_compare *compare; /* the first frame's runs (tui_options.compare), borrowed */
	/* opening the file again for another event (borrowed from tui_options) */
	int (*reload)(const void *payload, const tui_reload *r, sv_source **out, sv_error *err);
	char symbol_modules[1024]; /* modules looked up so far (Alt-S), comma-separated */
	const void *reload_payload;
	unsigned char *picked;
	char pick_filter[128];
	tui_list help;
	/* columns: hidden ones, width changes from the measured width, the sort order */
	bool col_hidden[SV_COL_COUNT]; /* columns come from lib/ (stackview/grid.h) */
	int col_delta[SV_COL_COUNT];
	int sort_col[TAB_COUNT]; /* per tab: a sv_col, or -1 = the view's own order */
	bool sort_asc[TAB_COUNT];
	tui_list cols;
	/* selecting When characters of the cursor row (Set Time Range from them) */
	int when_anchor, when_caret;
	/* editing the Notes tab */
	char *notes;      /* the text being edited */
	size_t notes_len, notes_cur, notes_top;
	/* the last text copied (y / Y), also sent to the terminal's clipboard */
	char *clip;
	/* parameters a handler asked for; tui_app_react builds their view (TUI_RECOMPUTE) */
	sv_params staged;
	bool staged_set;
	size_t staged_hpos; /* the history position Back / Forward moves to, or SIZE_MAX */
	char staged_what[600];
	/* where the cursor goes once tui_app_react has rebuilt the rows (tui_after) */
	tui_after after;
	bool esc_armed; /* Esc at the top asked "Esc again quits" */
	const char *hello; /* the first status line, shown again when the picker closes (borrowed) */
	bool expand_hot;   /* each new view's CallTree opens along its hot path */
	/* navigation history: places before each jump, and those gone back from */
	tui_nav *nav_back, *nav_fwd;
	size_t nnav_back, nnav_fwd, nav_back_cap, nav_fwd_cap;
	bool clip_new;    /* not yet sent to the terminal */
	int w, h;
	int hscroll; /* columns the Name column is scrolled right by (< and >) */
	bool quit;
	sv_error fatal; /* why the window quit on its own (code 0: it did not) */
	/* paint the window now (tui_busy); NULL in a headless run */
	void (*paint_now)(tui_app *a);
	tui_screen *paint_scr; /* the screen paint_now paints (run.c's) */
	char busy[512];        /* what tui_busy said, and the percentage last painted after it */
	int busy_pct;
	bool busy_cancel;      /* Esc stops the read being watched */
	/* whether Esc was typed (the keys typed meanwhile read); NULL in a headless run */
	bool (*esc_typed)(tui_app *a);
} tui_app;

enum {
	TUI_REDRAW = 1,
	TUI_REFLATTEN = 2, /* rows of the current tab changed */
	TUI_RECOMPUTE = 4, /* parameters changed: rebuild the view */
};

/* A window on src with the given starting parameters; errors leave *out unset. */
int tui_app_new(tui_app **out, sv_source *src, const sv_params *params, const char *title, sv_error *err);
void tui_app_free(tui_app *a);
/* Open the process picker (sources with process frames); false when there are fewer than 2. */
bool tui_app_start_picker(tui_app *a);
/* Handle one key; returns reaction flags. */
int tui_app_handle(tui_app *a, int key);
/* Handle one mouse event at column x, row y: a click selects the row, tab or flame box under
 * it, a double click also acts as Enter on it, the wheel scrolls three rows. */
int tui_app_mouse(tui_app *a, tui_mouse m, int x, int y);
/* A diff of several runs is shown (the first frame, its comparison's columns), and the
 * comparison attached to rows of that frame's view. */
bool tui_has_compare(const tui_app *a);
int tui_compare_rows(tui_app *a, sv_rows *rows);
/* Rows of the layout the painter and the mouse share. */
/* The window's rows: title, the boxes (four lines; two on a screen under 30 lines, so that an
 * 80x24 terminal shows 18 grid rows), the tabs, the column titles, the grid, the status. */
#define TUI_COMPACT_BELOW 30
#define TUI_TABS_ROW (a->h < TUI_COMPACT_BELOW ? 3 : 5)
#define TUI_GRID_TOP (TUI_TABS_ROW + 1) /* column titles; rows start below */
#define TUI_PICK_TOP 4  /* first row of the process picker's list */
/* Apply reaction flags (recompute the view, reflatten rows). */
void tui_app_react(tui_app *a, int flags);
/* Paint a dialog that owns the whole screen (the mode table says which); false when the
 * stack window is to be painted. */
bool tui_app_draw_mode(tui_app *a, tui_screen *s);
/* Paint the whole window into the screen. */
void tui_app_draw(tui_app *a, tui_screen *s);
tui_frame *tui_app_frame(tui_app *a);

/* ---- shared by the files of tui/ (not part of the window's interface) ---- */

/* The status line's text. */
void tui_status(tui_app *a, const char *fmt, ...) SV_PRINTF(2, 3);
/* The status line's text before a step that keeps the keys waiting (a file read again): on a
 * terminal the window is painted at once, so that the step is seen to be under way. */
void tui_busy(tui_app *a, const char *fmt, ...) SV_PRINTF(2, 3);
/* The read that follows tui_busy watched (tui_reload.progress): the status line gets how far
 * it is, painted as it grows; `cancel`: Esc typed meanwhile stops it (SV_ECANCELED). */
void tui_busy_watch(tui_app *a, tui_reload *rl, bool cancel);
/* Rebuild the current tab's rows from the view (tui_app_react calls it for TUI_REFLATTEN). */
void tui_reflatten(tui_app *a);
void tui_frame_dispose(tui_frame *f);
/* A box set to text, or whole parameters, applied: a new view (status says what changed). */
int tui_apply_box(tui_app *a, sv_box box, const char *text);
int tui_apply_params(tui_app *a, const sv_params *p, const char *what);
/* Stage parameters for the main loop to apply (returns TUI_RECOMPUTE); hpos is the history
 * position to move to first (Back / Forward), else SIZE_MAX; `what` goes on the status line
 * when the view is built. */
int tui_stage(tui_app *a, const sv_params *p, size_t hpos, const char *what);
/* Push a new frame (Drill Into, Flatten) on src, which it takes over. */
int tui_push_frame(tui_app *a, sv_source *src, const sv_params *p, const char *title);
/* Leave the frames above the first n (Esc, a jump back; n >= 1): the one then on top is woken
 * when asleep (*reread: its file read again; may be NULL), the status line says where the
 * user is; when it cannot be woken (memory, the file gone) the window quits with the error.
 * Returns reactions. */
int tui_pop_frames(tui_app *a, size_t n, bool *reread);
/* A heap snapshot's frame that another Priority's frame goes on: its view goes, and its
 * source when the file can be read again and not `keep_src` (one tree in memory however many
 * Priority changes); its boxes, history, focus and panes stay. tui_frame_wake makes them
 * again (the file read with the frame's priorities when its source went): 0, or an error in
 * err with the frame still asleep. */
void tui_frame_sleep(tui_app *a, tui_frame *f, bool keep_src);
int tui_frame_wake(tui_app *a, tui_frame *f, sv_error *err);
const char *tui_row_name(tui_app *a, size_t i);
/* The grid's default columns shown, the others hidden, every tab in its view's order. */
void tui_default_columns(tui_app *a);

/* app.c: show a call tree node in the CallTree tab (its ancestors expanded, the cursor on
 * it once tui_app_react has rebuilt the rows); returns the reaction. */
int tui_reveal_node(tui_app *a, sv_node_id id);
/* app.c: the cursor on the row with this id, if the current rows have it. */
void tui_keep_row(tui_app *a, uint32_t id);

/* layout.c: the grid's layout for the current width, shared by the painter, the mouse, the
 * Columns dialog and Copy.
 * tui_draw_columns: columns shown left to right and their widths; returns how many show.
 * tui_draw_tab_at: the tab whose label is at column x of the tab row, or -1.
 * tui_tab_label: tab t's label as the tab row shows it.
 * tui_tab_kind: the current tab's grid kind (ByName or a tree), for the column order.
 * tui_draw_rows_text: rows as text, the way Copy puts them on the clipboard: the grid's
 * shown columns padded to the widest cell, names indented by depth (relative to the first
 * row); malloc'd, NULL when out of memory. */
int tui_draw_columns(tui_app *a, sv_col *shown, int *width);
int tui_draw_tab_at(const tui_app *a, int x);
void tui_tab_label(char *buf, size_t size, const tui_app *a, int t);
sv_rows_kind tui_tab_kind(const tui_app *a);
char *tui_draw_rows_text(tui_app *a, const sv_rows *rows);

/* app.c: a new focus (owned, may be NULL); the Callers, Callees and Caller-Callee built for
 * the old one go. */
void tui_frame_set_focus(tui_frame *f, char *focus);

/* editline.c */
void tui_edit_start(tui_app *a, tui_edit_kind kind, int box, const char *text);
bool tui_edit_chars(char *t, size_t *len, size_t *cur, int key);
int tui_edit_key(tui_app *a, int key);
/* The next (dir 1) or previous (dir -1) row matching the Find text, wrapping. */
int tui_find_next(tui_app *a, bool include_current, int dir);

/* Open the CallTree along its hot path when the app asks for it (a->expand_hot). */
void tui_expand_hot(tui_app *a);

/* nav.c: remember where the user is before a jump; go back / forward (reactions); whether
 * there is a place to go back to (tui_app_free frees the history). */
void tui_nav_push(tui_app *a);
void tui_nav_push_tab(tui_app *a);
int tui_nav_back(tui_app *a);
/* q and Esc: back to where the last jump (a Goto, a focus change, a drill-in; not a tab
 * switch) began; false, doing nothing, when no jump is on record. */
bool tui_nav_can_leave(const tui_app *a);
int tui_nav_leave(tui_app *a);
int tui_nav_forward(tui_app *a);
bool tui_nav_can_back(const tui_app *a);
void tui_draw_edit_line(tui_screen *s, int x, int y, int avail, const char *text, size_t cur, int attr);

/* dlg_presets.c, dlg_picker.c, dlg_columns.c, dlg_help.c */
size_t tui_preset_count(const tui_app *a);
int tui_save_preset(tui_app *a, const char *name);
int tui_presets_key(tui_app *a, int key);
int tui_presets_mouse(tui_app *a, tui_mouse m, int x, int y);
void tui_presets_draw(tui_app *a, tui_screen *s);
int tui_picker_key(tui_app *a, int key);
int tui_picker_mouse(tui_app *a, tui_mouse m, int x, int y);
void tui_picker_draw(tui_app *a, tui_screen *s);
int tui_set_sort(tui_app *a, int col);
int tui_columns_key(tui_app *a, int key);
int tui_columns_mouse(tui_app *a, tui_mouse m, int x, int y);
void tui_columns_draw(tui_app *a, tui_screen *s);
int tui_column_at(tui_app *a, int x, int *x0);
int tui_events_start(tui_app *a);
/* The Priority box of a heap snapshot (dlg_priority.c): whether they apply, apply a text, or change the
 * cursor row's type (or module) priority by `delta`; each rebuilds the tree as a new view. */
bool tui_priority_usable(tui_app *a); /* false: says why on the status line */
int tui_priority_apply(tui_app *a, const char *text);
/* The Events view (dlg_evlist.c); tui_evlog_load starts reading the events, once (false:
 * the status line says why, after `what`); tui_evlog_wait waits for the reading's end (false:
 * it failed, the status line says why); tui_evlog_poll takes the rows read since the last
 * call (and the reading's end); tui_evlog_reading says whether it still runs. */
bool tui_evlog_load(tui_app *a, const char *what);
bool tui_evlog_wait(tui_app *a);
void tui_evlog_poll(tui_app *a);
bool tui_evlog_reading(const tui_app *a);
/* Lookup Symbols (symbols.c): the cursor row's module's PDB, the file read again. */
int tui_lookup_symbols(tui_app *a);
/* The Annotate and Goto Source views (dlg_annotate.c). */
int tui_annotate_start(tui_app *a);
int tui_goto_source_start(tui_app *a);
int tui_annotate_key(tui_app *a, int key);
void tui_annotate_draw(tui_app *a, tui_screen *s);
/* The Reports view (dlg_report.c). */
int tui_report_start(tui_app *a);
int tui_report_key(tui_app *a, int key);
void tui_report_draw(tui_app *a, tui_screen *s);
int tui_evlist_start(tui_app *a);
int tui_evlist_key(tui_app *a, int key);
int tui_evlist_mouse(tui_app *a, tui_mouse m, int x, int y);
void tui_evlist_draw(tui_app *a, tui_screen *s);
int tui_priority_bump(tui_app *a, bool module, double delta);
int tui_events_key(tui_app *a, int key);
int tui_events_mouse(tui_app *a, tui_mouse m, int x, int y);
void tui_events_draw(tui_app *a, tui_screen *s);
int tui_help_key(tui_app *a, int key);
void tui_help_draw(tui_app *a, tui_screen *s);

/* tab_flame.c, tab_notes.c: a tab's own commands come first (as tig's views see a key
 * before the global table); TUI_NOT_MINE passes a command on to the grid's handling. */
#define TUI_NOT_MINE (-1)
int tui_flame_command(tui_app *a, tui_command c);
int tui_notes_command(tui_app *a, tui_command c);
int tui_flame_key(tui_app *a, tui_command c);
int tui_flame_mouse(tui_app *a, tui_mouse m, int x, int y);
void tui_flame_draw(tui_app *a, tui_screen *s, int y0, int y1);
int tui_notes_start(tui_app *a);
int tui_notes_key(tui_app *a, int key);
void tui_notes_draw(tui_app *a, tui_screen *s, int y0, int y1);

#endif
