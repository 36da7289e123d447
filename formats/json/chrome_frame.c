/* SPDX-License-Identifier: MIT */
/* What the V8 profile readers share (chrome_int.h): errors located in the document, member
 * lookups, and a call frame's name. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "chrome_int.h"
#include "sv/array.h"

int cp_fail(cp_ctx *c, long long at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sv_error_vset(c->err, SV_EFORMAT, fmt, ap);
	va_end(ap);
	sv_error_locate(c->err, c->in->name, at >= 0 ? sv_jc_line(c->in, (size_t)at) : 0, -1);
	return SV_EFORMAT;
}

const char *cp_string_or(json_object *o, const char *key, const char *dflt)
{
	json_object *v = sv_json_member(o, key, json_type_string);
	return v ? json_object_get_string(v) : dflt;
}

int64_t cp_int_or(json_object *o, const char *key, int64_t dflt)
{
	json_object *v = sv_json_member(o, key, json_type_int);
	return v ? json_object_get_int64(v) : dflt;
}

/* FILE!FUNCTION:LINE:COLUMN, the file being the URL's last path part. */
int cp_frame_of(cp_ctx *c, json_object *cf, sv_frame_id *out, bool *root)
{
	const char *fn = cp_string_or(cf, "functionName", "");
	const char *url = cp_string_or(cf, "url", "");
	int64_t line = cp_int_or(cf, "lineNumber", -1), col = cp_int_or(cf, "columnNumber", -1);
	if (line > INT32_MAX) /* no source has that many lines: not a position */
		line = -1;
	if (col > INT32_MAX)
		col = -1;
	*root = strcmp(fn, "(root)") == 0 && !url[0];
	size_t ul = strcspn(url, "?#");
	const char *file = url;
	for (size_t i = 0; i < ul; i++)
		if (url[i] == '/' && i + 1 < ul)
			file = url + i + 1;
	size_t fl = ul - (size_t)(file - url);
	size_t need = fl + strlen(fn) + 64;
	if (need > SV_MAX_NAME_LEN)
		return cp_fail(c, -1, "a call frame's name is longer than %u bytes", SV_MAX_NAME_LEN);
	if (SV_ARRAY_RESERVE(c->name, c->name_cap, need))
		return SV_ENOMEM;
	int n = snprintf(c->name, need, "%.*s%s%s", (int)fl, file, fl ? "!" : "", fn[0] ? fn : "(anonymous)");
	if (line >= 0 && fl)
		n += snprintf(c->name + n, need - (size_t)n, ":%lld:%lld", (long long)line + 1, (long long)(col >= 0 ? col + 1 : 0));
	return c->sink->ops->intern_frame(c->sink->self, out, c->name, (size_t)n);
}
