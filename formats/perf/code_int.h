/* SPDX-License-Identifier: MIT */
/* What annotate.c and source_view.c share (code_text.c): source files read for their lines'
 * text, an instruction found by address, text written for a terminal. */
#ifndef SV_PERF_CODE_INT_H
#define SV_PERF_CODE_INT_H

#include <stdio.h>

#include "stackview/formats.h"

/* A source file's lines, read once (text NULL when it could not be read). */
typedef struct sv_src_text {
	char *text;
	const char **line; /* line[k]: line k + 1 */
	size_t n;
	char *tried; /* the paths looked at, for a message when none could be read */
} sv_src_text;

/* Read `path` (as DWARF gives it), else through source_path (NULL = none): ':'-separated
 * entries, OLD=NEW (the prefix OLD replaced by NEW) or DIR (DIR/path, DIR/base name), else
 * from debuginfod's source API by the binary's build id (d; NULL = none) when
 * DEBUGINFOD_URLS names servers (as --debuginfod sets it), within the network's default
 * time limits and stopped by Ctrl-C. Never fails: an unreadable file leaves text NULL and
 * says in `tried` what was looked at. */
void sv_src_load(sv_src_text *s, const char *path, const char *source_path, const sv_disasm *d);
const char *sv_src_line(const sv_src_text *s, uint32_t line);
void sv_src_dispose(sv_src_text *s);
/* The instruction holding addr, or SIZE_MAX. */
size_t sv_insn_at(const sv_disasm *d, uint64_t addr);
const char *sv_base_name(const char *path);
/* A source line as terminal text: tabs to the next multiple of 8, control characters as spaces. */
void sv_put_source(FILE *f, const char *text);

#endif
