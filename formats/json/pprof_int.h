/* SPDX-License-Identifier: MIT */
/* What pprof's reader (pprof.c) and writer (pprof_write.c) share: the generated message
 * types under short names, and how labels are shown as frames. formats/ only. */
#ifndef STACKVIEW_FORMATS_PPROF_INT_H
#define STACKVIEW_FORMATS_PPROF_INT_H

#include "pprof.pb-c.h"

typedef Perftools__Profiles__Profile pb_profile;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Function pb_function;
typedef Perftools__Profiles__Mapping pb_mapping;
typedef Perftools__Profiles__ValueType pb_valuetype;
typedef Perftools__Profiles__Label pb_label;
typedef Perftools__Profiles__Line pb_line;

#define LABEL_PREFIX "Label "

#endif
