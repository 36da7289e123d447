/* SPDX-License-Identifier: MIT */
/* Inlined code in DWARF, shared by the perf.data reader's inline frames (sym.c) and Goto
 * Source's inline call sites (disasm.c). formats/ only. */
#ifndef STACKVIEW_FORMATS_PERF_DWARF_INLINE_H
#define STACKVIEW_FORMATS_PERF_DWARF_INLINE_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

/* The inlined instances (DW_TAG_inlined_subroutine DIEs) holding `pc` (a module address),
 * innermost first, at most `max` of them in chain: found going down from the subprogram
 * holding pc through the instances and lexical blocks that hold it — the concrete chain
 * eu-addr2line -i and perf give (libdw's dwarf_getscopes leaks on damaged DWARF). *cu: their
 * compilation unit, NULL when pc is in none. Returns how many. */
int sv_perf_inline_chain(Dwfl_Module *mod, Dwarf_Addr pc, Dwarf_Die **cu, Dwarf_Die *chain, int max);

#endif
