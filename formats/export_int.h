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

#endif
