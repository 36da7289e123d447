/* SPDX-License-Identifier: MIT */
/* The qualified name in an MSVC-decorated C++ symbol (`?draw@Widget@ns@@QAEXXZ` ->
 * `ns::Widget::draw`), templates, constructors, operators and special functions included,
 * without parameters or return type — what a frame shows. No Debian library demangles MSVC
 * names from C (libiberty knows the Itanium ABI only).
 *
 * Ownership: writes into the caller's buffer. */
#ifndef STACKVIEW_FORMATS_MSVC_DEMANGLE_H
#define STACKVIEW_FORMATS_MSVC_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

/* The name of mangled (len bytes) into buf (cap bytes, NUL-terminated): true, or false when
 * it is not a decorated name this knows (buf then holds nothing useful). Bounded: never
 * reads past len, never writes past cap, recursion limited. */
bool sv_msvc_demangle_name(const char *mangled, size_t len, char *buf, size_t cap);

#endif
