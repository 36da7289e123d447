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

#include "keymap.h"
#include "screen.h"
#include "stackview/aggview.h"
#include "stackview/grid.h"
#include "stackview/preset.h"
#include "stackview/rows.h"
#include "stackview/source.h"
#include "stackview/view.h"

typedef enum tui_tab {
	TAB_BYNAME, TAB_CALLTREE, TAB_CALLERS, TAB_CALLEES, TAB_CC, TAB_FLAME, TAB_NOTES, TAB_COUNT
} tui_tab;


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
	size_t nhist, hpos;
	char *focus;
	sv_aggtree *agg; /* Callers or Callees of the focus, for the tab shown */
	tui_tab agg_tab;
	sv_callercallee *cc;
	struct sv_flame *flame; /* the Flame tab's layout, for flame_top at flame_w columns */
	sv_node_id flame_top;
	sv_node_id *zooms; /* earlier flame_top values: Esc goes back through them */
	size_t nzooms;
	size_t flame_sel;
	int flame_w;
	tui_pane pane[TAB_COUNT];
	sv_rows rows; /* the visible rows of the current tab */
} tui_frame;

typedef struct tui_app {
	tui_frame *frames;
	size_t nframes;
	tui_tab tab;
	char status[512];
	/* editing a box: -1 = not editing */
	int edit_box;
	char edit[4096];
	size_t edit_len, edit_cur;
	int edit_hist; /* index into the frame history while browsing it with Up/Down */
	bool finding;
	bool saving;
	char find[256];
	int (*save)(void *payload, const sv_source *src, const char *path, char *err, size_t errsize);
	void *save_payload;
	/* presets: the user's (borrowed, changed in place) and how to store them */
	sv_presets *presets;
	int (*store_presets)(void *payload, const sv_presets *ps, char *err, size_t errsize);
	void *presets_payload;
	bool presets_open, naming_preset;
	size_t preset_cursor, preset_top;
	unsigned saves;
	/* the process picker */
	bool picking;
	sv_process *procs;
	size_t nprocs;
	size_t *shown;      /* indexes of procs matching the filter; 0..nshown-1 */
	size_t nshown;
	size_t pick_cursor; /* 0 = "all processes", i+1 = shown[i] */
	unsigned char *picked;
	char pick_filter[128];
	bool help;
	size_t help_top;
	/* columns: hidden ones, width changes from the measured width, the sort order */
	bool col_hidden[SV_COL_COUNT]; /* columns come from lib/ (stackview/grid.h) */
	int col_delta[SV_COL_COUNT];
	int sort_col[TAB_COUNT]; /* per tab: a sv_col, or -1 = the view's own order */
	bool sort_asc[TAB_COUNT];
	bool cols_open;
	size_t cols_cursor;
	/* selecting When characters of the cursor row (Set Time Range from them) */
	bool when_sel;
	int when_anchor, when_caret;
	/* editing the Notes tab */
	bool notes_edit;
	char *notes;      /* the text being edited */
	size_t notes_len, notes_cur, notes_top;
	/* the last text copied (y / Y), also sent to the terminal's clipboard */
	char *clip;
	bool clip_new;    /* not yet sent to the terminal */
	int w, h;
	bool quit;
} tui_app;

enum {
	TUI_REDRAW = 1,
	TUI_REFLATTEN = 2, /* rows of the current tab changed */
	TUI_RECOMPUTE = 4, /* parameters changed: rebuild the view */
};

/* A window on src with the given starting parameters; errors leave *out unset. */
int tui_app_new(tui_app **out, sv_source *src, const sv_params *params, const char *title, char *err, size_t errsize);
void tui_app_free(tui_app *a);
/* Open the process picker (sources with process frames); false when there are fewer than 2. */
bool tui_app_start_picker(tui_app *a);
/* Handle one key; returns reaction flags. */
int tui_app_handle(tui_app *a, int key);
/* Mouse events, in screen cells. */
typedef enum tui_mouse { TUI_MOUSE_CLICK, TUI_MOUSE_DOUBLE, TUI_MOUSE_WHEEL_UP, TUI_MOUSE_WHEEL_DOWN } tui_mouse;
/* Handle one mouse event at column x, row y: a click selects the row, tab or flame box under
 * it, a double click also acts as Enter on it, the wheel scrolls three rows. */
int tui_app_mouse(tui_app *a, tui_mouse m, int x, int y);
/* The grid's layout for the current width: columns shown left to right and their widths
 * (draw.c; the mouse uses it to map a click to a column). Returns how many are shown. */
int tui_draw_columns(tui_app *a, sv_col *shown, int *width);
/* Rows as text, the way Copy puts them on the clipboard: the grid's shown columns padded
 * to the widest cell, names indented by depth (relative to the first row). malloc'd; NULL
 * when out of memory (draw.c). */
char *tui_draw_rows_text(tui_app *a, const sv_rows *rows);
/* Rows of the layout the painter and the mouse share. */
#define TUI_TABS_ROW 5
#define TUI_GRID_TOP 6  /* column titles; rows start below */
#define TUI_PICK_TOP 4  /* first row of the process picker's list */
/* The tab whose label is at column x of the tab row, or -1 (draw.c). */
int tui_draw_tab_at(const tui_app *a, int x);
/* Columns [x0, x1) of a flame box on screen; false when it is too narrow to show (draw.c). */
struct sv_flame_box;
bool tui_draw_flame_span(const tui_app *a, const struct sv_flame_box *b, int *x0, int *x1);
/* First depth the Flame tab shows in `rows` rows (draw.c). */
int tui_draw_flame_top_depth(const tui_app *a, int rows);
/* Entry i of the presets list as one line (built-ins first, then the user's). */
void tui_app_preset_line(const tui_app *a, size_t i, char *buf, size_t size);
/* Apply reaction flags (recompute the view, reflatten rows). */
void tui_app_react(tui_app *a, int flags);
/* Paint the whole window into the screen. */
void tui_app_draw(tui_app *a, tui_screen *s);
tui_frame *tui_app_frame(tui_app *a);

#endif
