/* SPDX-License-Identifier: MIT */
/* Lookup Symbols (Alt-S, PerfView's): the cursor row's module is added to the modules whose
 * symbols are looked up, and the file is read again with them (tui_options.reload) as a new
 * view: Esc goes back. The symbol path is the one given (--symbol-path, _NT_SYMBOL_PATH), else
 * PerfView's default (cmd/ decides). */
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "stackview/commands.h"

static bool listed(const char *list, const char *mod)
{
	size_t ml = strlen(mod);
	for (const char *p = list; *p;) {
		size_t l = strcspn(p, ",");
		if (l == ml && strncasecmp(p, mod, ml) == 0)
			return true;
		p += l + (p[l] == ',');
	}
	return false;
}

int tui_lookup_symbols(tui_app *a)
{
	tui_frame *f = tui_app_frame(a);
	const char *name = tui_row_name(a, f->pane[a->tab].cursor);
	if (!name) {
		tui_status(a, "no row selected");
		return TUI_REDRAW;
	}
	if (!a->reload || strcmp(sv_source_format(f->src), "etl")) {
		tui_status(a, "Lookup Symbols reads an ETL trace's PDBs; this view cannot be read again for them");
		return TUI_REDRAW;
	}
	char mod[256];
	sv_cmd_module_of(mod, sizeof(mod), name);
	if (!mod[0]) {
		tui_status(a, "'%s' names no module", name);
		return TUI_REDRAW;
	}
	if (listed(a->symbol_modules, mod)) {
		tui_status(a, "%s's symbols were looked up already (info and the Notes say what was found)", mod);
		return TUI_REDRAW;
	}
	char list[sizeof(a->symbol_modules)];
	int n = snprintf(list, sizeof(list), "%s%s%s", a->symbol_modules, a->symbol_modules[0] ? "," : "", mod);
	if (n < 0 || (size_t)n >= sizeof(list)) {
		tui_status(a, "too many modules looked up");
		return TUI_REDRAW;
	}
	sv_source *ns = NULL;
	sv_error err;
	sv_error_clear(&err);
	tui_reload rl = { .symbol_modules = list };
	tui_busy(a, "looking up the symbols of %s (the trace is read again)...", mod);
	tui_busy_watch(a, &rl, true);
	if (a->reload(a->reload_payload, &rl, &ns, &err)) {
		tui_status(a, "%s", err.msg);
		return TUI_REDRAW;
	}
	snprintf(a->symbol_modules, sizeof(a->symbol_modules), "%s", list);
	char title[300];
	snprintf(title, sizeof(title), "symbols: %.250s", list);
	tui_nav_push(a);
	return tui_push_frame(a, ns, &tui_app_frame(a)->params, title);
}
