/* SPDX-License-Identifier: MIT */
/* Exporters, referenced from the format table entries (formats/ only). */
#ifndef STACKVIEW_FORMATS_EXPORT_INT_H
#define STACKVIEW_FORMATS_EXPORT_INT_H

#include "stackview/formats.h"

int sv_fmt_perfview_xml_export(FILE *f, const sv_source *src, const sv_export_opts *opts, sv_error *err);
int sv_fmt_perfview_json_export(FILE *f, const sv_source *src, const sv_export_opts *opts, sv_error *err);
int sv_fmt_folded_export(FILE *f, const sv_source *src, const sv_export_opts *opts, sv_error *err);
int sv_fmt_speedscope_export(FILE *f, const sv_source *src, const sv_export_opts *opts, sv_error *err);
int sv_fmt_svg_export(FILE *f, const sv_source *src, const sv_export_opts *opts, sv_error *err);

struct json_object;
/* Parse a whole input as one JSON document (json-c, nesting at most 64 deep, nothing but
 * blanks after it); errors name the line. *out is the caller's (json_object_put). */
int sv_json_parse_input(struct json_object **out, const sv_input *in, sv_error *err);

#endif
