/* SPDX-License-Identifier: MIT */
/* Inlined code in DWARF (dwarf_inline.h). */
#include "dwarf_inline.h"

#include <dwarf.h>
#include <stdbool.h>

/* The subprogram DIE whose code holds pc, among parent's children (and those of its
 * namespaces and types, to 8 levels); false when none does. */
static bool find_subprogram(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *out, int depth)
{
	Dwarf_Die d;
	if (depth > 8 || dwarf_child(parent, &d) != 0)
		return false;
	do {
		int tag = dwarf_tag(&d);
		if (tag == DW_TAG_subprogram && dwarf_haspc(&d, pc) > 0) {
			*out = d;
			return true;
		}
		if ((tag == DW_TAG_namespace || tag == DW_TAG_class_type || tag == DW_TAG_structure_type) &&
		    find_subprogram(&d, pc, out, depth + 1))
			return true;
	} while (dwarf_siblingof(&d, &d) == 0);
	return false;
}

int sv_perf_inline_chain(Dwfl_Module *mod, Dwarf_Addr pc, Dwarf_Die **cu, Dwarf_Die *chain, int max)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die fn;
	*cu = dwfl_module_addrdie(mod, pc, &bias);
	if (!*cu || !find_subprogram(*cu, pc - bias, &fn, 0))
		return 0;
	Dwarf_Die outer[256];
	int n = 0;
	Dwarf_Die at = fn, d;
	for (int depth = 0; depth < 256 && n < 256 && dwarf_child(&at, &d) == 0; depth++) {
		bool down = false;
		do {
			int tag = dwarf_tag(&d);
			if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block) && dwarf_haspc(&d, pc - bias) > 0) {
				if (tag == DW_TAG_inlined_subroutine)
					outer[n++] = d;
				at = d;
				down = true;
				break;
			}
		} while (dwarf_siblingof(&d, &d) == 0);
		if (!down)
			break;
	}
	int k = 0;
	for (int i = n; i-- > 0 && k < max;)
		chain[k++] = outer[i];
	return k;
}
