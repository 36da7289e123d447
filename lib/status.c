/* SPDX-License-Identifier: MIT */
/* Status messages and the error record (see stackview/status.h). */
#include "stackview/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *sv_status_str(int code)
{
	switch (code) {
#define SV_STATUS_CASE(name, value, msg) \
	case value:                      \
		return msg;
		SV_STATUS_LIST(SV_STATUS_CASE)
#undef SV_STATUS_CASE
	default:
		return "unknown error";
	}
}

void sv_error_clear(sv_error *err)
{
	if (!err)
		return;
	err->code = 0;
	err->line = 0;
	err->offset = -1;
	err->file[0] = '\0';
	err->msg[0] = '\0';
}

int sv_error_vset(sv_error *err, int code, const char *fmt, va_list ap)
{
	if (!err)
		return code;
	err->code = code;
	err->line = 0;
	err->offset = -1;
	if (fmt)
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	else
		snprintf(err->msg, sizeof(err->msg), "%s", sv_status_str(code));
	/* Messages are one line: fold any newline a caller's text brought in. */
	for (char *p = err->msg; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return code;
}

int sv_error_set(sv_error *err, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = sv_error_vset(err, code, fmt, ap);
	va_end(ap);
	return rc;
}

void sv_error_locate(sv_error *err, const char *file, long line, long long offset)
{
	if (!err)
		return;
	if (file)
		snprintf(err->file, sizeof(err->file), "%s", file);
	if (line > 0)
		err->line = line;
	if (offset >= 0)
		err->offset = offset;
}

void sv_error_format(char *buf, size_t size, const sv_error *err)
{
	const char *msg = err->msg[0] ? err->msg : sv_status_str(err->code);
	if (err->file[0] && err->line > 0)
		snprintf(buf, size, "%s:%ld: %s", err->file, err->line, msg);
	else if (err->file[0] && err->offset >= 0)
		snprintf(buf, size, "%s: byte %lld: %s", err->file, err->offset, msg);
	else if (err->file[0])
		snprintf(buf, size, "%s: %s", err->file, msg);
	else
		snprintf(buf, size, "%s", msg);
}
