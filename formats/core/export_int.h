/* SPDX-License-Identifier: MIT */
/* Writers: the format table's export entries and what they share (escape.c). formats/ only. */
#ifndef STACKVIEW_FORMATS_EXPORT_INT_H
#define STACKVIEW_FORMATS_EXPORT_INT_H

#include "stackview/formats.h"

int sv_fmt_perfview_xml_export(FILE *f, const sv_source *src, const sv_export_opts *opts, sv_error *err);
int sv_fmt_perfview_json_export(FILE *f, const sv_source *src, const sv_export_opts *opts, sv_error *err);
int sv_fmt_folded_export(FILE *f, const sv_source *src, const sv_export_opts *opts, sv_error *err);
int sv_fmt_speedscope_export(FILE *f, const sv_source *src, const sv_export_opts *opts, sv_error *err);
int sv_fmt_pprof_export(FILE *f, const sv_source *src, const sv_export_opts *opts, sv_error *err);
int sv_fmt_svg_export(FILE *f, const sv_source *src, const sv_export_opts *opts, sv_error *err);

/* escape.c: a number with the fewest digits that read back to the same double; text for XML
 * content or attribute values; SV_EIO when the stream had a write error. */
void sv_write_num(FILE *f, double d);
void sv_xml_write_text(FILE *f, const char *str);
int sv_write_check(FILE *f, sv_error *err);

#endif
