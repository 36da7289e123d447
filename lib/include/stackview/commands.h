/* SPDX-License-Identifier: MIT */
/* The stack window's commands as pure functions on filter box texts (spec §8 with D8).
 * The TUI binds keys to them; tests call them directly.
 *
 * Ownership: every function writes a malloc'ed string to *out (the caller frees it) and
 * returns 0, SV_ENOMEM, or SV_EINVAL when the command does not apply to the given name. */
#ifndef STACKVIEW_COMMANDS_H
#define STACKVIEW_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>

#include "stackview/params.h"
#include "stackview/status.h"
#include "stackview/view.h"

/* AddSet(box, item) with D8: keeps the comment, never adds an item already present. */
SV_API int sv_cmd_addset(char **out, const char *box, const char *item) SV_MUST_USE;
/* Ungroup on a display name: entry node `G <<X>>` prepends `X->;`; a plain group node
 * inserts specific exclusion entries (§8). The comment is dropped. */
SV_API int sv_cmd_ungroup(char **out, const char *grouppats, const char *name) SV_MUST_USE;
SV_API int sv_cmd_ungroup_module(char **out, const char *grouppats, const char *name) SV_MUST_USE;
/* Group Module (`mod!->mod`) or Entry Group Module (`mod!=>mod`), inserted after the
 * comment (D8). */
SV_API int sv_cmd_group_module(char **out, const char *grouppats, const char *name, bool entry) SV_MUST_USE;
SV_API int sv_cmd_fold_item(char **out, const char *foldpats, const char *name) SV_MUST_USE;
SV_API int sv_cmd_fold_module(char **out, const char *foldpats, const char *name) SV_MUST_USE;
/* Include Item / Exclude Item on one or more display names (joined with `|`). */
SV_API int sv_cmd_include_items(char **out, const char *incpats, const char *const *names, size_t n) SV_MUST_USE;
SV_API int sv_cmd_exclude_items(char **out, const char *excpats, const char *const *names, size_t n) SV_MUST_USE;
/* F7 / Shift-F7 (§4.3). An empty or non-numeric box is returned unchanged. */
SV_API int sv_cmd_fold_pct(char **out, const char *foldpct, bool increase) SV_MUST_USE;
/* Raise / Lower Item Priority and Module Priority (PerfView's Alt-P, Shift-Alt-P, Alt-Q,
 * Shift-Alt-Q on a heap snapshot): `prio` is the Priority box ("PAT->NUM;..."), `item` the
 * pattern (a type name, or "MODULE!" for its module). The entry for `item` moves to the front,
 * where it wins, with its number changed by `delta` (a new one starts from 0). */
SV_API int sv_cmd_priority(char **out, const char *prio, const char *item, double delta) SV_MUST_USE;
/* Whether a Priority box's text reads (every entry PATTERN->NUMBER, each pattern one): 0, or
 * SV_EINVAL with the entry and why in err (SV_ENOMEM). */
SV_API int sv_cmd_priority_check(const char *prio, sv_error *err) SV_MUST_USE;
/* The module of a display name (§8): text before the first `!` made of module characters,
 * else the word after `module `. Writes "" when there is none. */
SV_API void sv_cmd_module_of(char *buf, size_t size, const char *name);
/* The frame an entry group's display name shows ("module libc.so.6 <<libc.so.6!malloc>>":
 * "libc.so.6!malloc"): true with it in buf; false (buf "") for any other name. */
SV_API bool sv_cmd_entry_frame(char *buf, size_t size, const char *name);

/* Apply a command to a whole parameter set (what the TUI does). */
SV_API int sv_cmd_remove_all_folding(sv_params *p) SV_MUST_USE;
/* Set Time Range from First/Last of selected rows. */
SV_API int sv_cmd_set_time_range(sv_params *p, double first, double last) SV_MUST_USE;
/* Set Time Range from `len` selected When characters starting at index `i` (§7.7). */
SV_API int sv_cmd_set_time_range_when(sv_params *p, const sv_view *v, int i, int len) SV_MUST_USE;

#endif
