/* SPDX-License-Identifier: MIT */
/* .perfView.xml reader: errors located at the parser's line, and the numbers of attributes
 * read where the parser holds them (PerfView's integers and doubles, nothing more). */
#include <ctype.h>
#include <errno.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sv/idmap.h"
#include "core/export_int.h"
#include "stackview/formats.h"
#include "sv/array.h"
#include "perfview_xml_int.h"

/* The line the parser is on: at an element's start callback, the line of its start tag. */
long sv_pvx_line(xml_ctx *x)
{
	long l = x->p && x->p->input ? x->p->input->line : 0;
	return l > 0 ? l : 0;
}

int sv_pvx_fail(xml_ctx *x, long line, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sv_error_vset(x->err, code, fmt, ap);
	va_end(ap);
	sv_error_locate(x->err, x->in->name, line > 0 ? line : 0, -1);
	return code;
}

/* Ours, from the parser context libxml2's handlers and ours are given. */

/* ---- number parsing ---- */

static bool parse_double(const char *s, double *out)
{
	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return false;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	while (isspace((unsigned char)*end))
		end++;
	if (*end || end == s || !isfinite(v))
		return false;
	*out = v;
	return true;
}

static bool parse_ll(const char *s, long long *out)
{
	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return false;
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	if (*end || end == s || errno)
		return false;
	*out = v;
	return true;
}

/* A plain decimal number (-?digits[.digits], at most 15 digits in all) straight from the
 * attribute's bytes: the digits as an integer are exact, and so is one division by a power of
 * ten up to 10^15, so the result is strtod's, correctly rounded. false: anything else (the
 * general parse takes it). */
static bool plain_number(const xmlChar *s, const xmlChar *end, double *out, bool integer)
{
	static const double pow10[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15 };
	bool neg = s < end && *s == '-';
	s += neg;
	uint64_t v = 0;
	int digits = 0, frac = -1;
	for (; s < end; s++) {
		if (*s >= '0' && *s <= '9') {
			if (++digits > 15)
				return false;
			v = v * 10 + (uint64_t)(*s - '0');
			frac += frac >= 0;
		} else if (*s == '.' && frac < 0 && !integer && digits) {
			frac = 0;
		} else {
			return false;
		}
	}
	if (!digits || frac == 0)
		return false;
	double d = frac > 0 ? (double)v / pow10[frac] : (double)v;
	*out = neg ? -d : d;
	return true;
}

/* The attribute named (a name from the parser's dictionary: the same pointer as the names
 * it hands over), or NULL. SAX2 gives five pointers per attribute: local name, prefix, URI,
 * value, value end; attributes with a namespace prefix are not ours. */
static const xmlChar **attr_find(const xmlChar **attrs, int nattrs, const xmlChar *name)
{
	for (int i = 0; i < nattrs; i++)
		if (attrs[5 * i] == name && !attrs[5 * i + 1])
			return attrs + 5 * i;
	return NULL;
}

/* An attribute's value that is not a plain number, parsed by the general rules (leading
 * blanks, exponents, a sign): 0, or the error naming it. */
static int attr_number(xml_ctx *x, const xmlChar **a, bool integer, double *d, long long *ll)
{
	char buf[128], *big = NULL, *v = buf;
	size_t len = (size_t)(a[4] - a[3]);
	if (len >= sizeof(buf) && !(v = big = malloc(len + 1))) /* out of memory: cut (then not a number) */
		v = buf, len = sizeof(buf) - 1;
	memcpy(v, a[3], len);
	v[len] = '\0';
	bool ok = integer ? parse_ll(v, ll) : parse_double(v, d);
	int rc = ok ? 0
		    : sv_pvx_fail(x, sv_pvx_line(x), SV_EFORMAT, "%s=\"%.40s\" is not %s", (const char *)a[0], v,
			   integer ? "an integer" : "a number");
	free(big);
	return rc;
}

/* An attribute as a number; *present says whether it was there. */
int sv_pvx_attr_double(xml_ctx *x, const xmlChar **attrs, int nattrs, const xmlChar *dname, double *out, bool *present)
{
	const xmlChar **a = attr_find(attrs, nattrs, dname);
	*present = a != NULL;
	if (!a || plain_number(a[3], a[4], out, false))
		return 0;
	return attr_number(x, a, false, out, NULL);
}

int sv_pvx_attr_ll(xml_ctx *x, const xmlChar **attrs, int nattrs, const char *elem, const xmlChar *dname, long long *out,
		   bool *present, bool required)
{
	const xmlChar **a = attr_find(attrs, nattrs, dname);
	*present = a != NULL;
	if (!a)
		return required ? sv_pvx_fail(x, sv_pvx_line(x), SV_EFORMAT, "<%s> without %s", elem, (const char *)dname) : 0;
	double d;
	if (plain_number(a[3], a[4], &d, true)) {
		*out = (long long)d;
		return 0;
	}
	return attr_number(x, a, true, NULL, out);
}
