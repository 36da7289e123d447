/* SPDX-License-Identifier: MIT */
/* Internals of stackview/compare.h shared by its files: compare.c (building the runs and
 * their diff), compare_names.c (names lined up across builds), compare_rows.c (each row's
 * numbers per run, what did not line up); compare_stats.c needs none of it.
 * Ownership: as stackview/compare.h says; nothing here is owned apart from the sv_compare. */
#ifndef STACKVIEW_LIB_COMPARE_INT_H
#define STACKVIEW_LIB_COMPARE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "stackview/compare.h"
#include "stackview/pattern.h"
#include "strtab_int.h"

struct sv_compare {
	size_t nbase, ntest, nruns;
	sv_source **runs; /* owned: each run's surviving samples, names aligned */
	sv_view **views;  /* per run, through `params` */
	sv_params params;
	bool have_params;
	sv_scaling scaling;
	bool welch;
	/* Callers / Callees and Caller-Callee of each run, for the last focus asked */
	sv_aggtree **agg;
	sv_agg_kind agg_kind;
	char *agg_focus;
	sv_callercallee **cc;
	char *cc_focus;
	/* automatic matching: test-side name -> base-side name */
	char **alias_from, **alias_to;
	size_t nalias;
	strtab report; /* the names of the last unmatched report */
};

/* --match: `OLD=>NEW` entries, each a pattern and a replacement of what it matches. */
typedef struct match_rule {
	sv_pattern *pat;
	char *repl;
} match_rule;

/* compare_names.c: where a frame's program name lies (module or path part); the test side's
 * names that stand for base-side names (automatic matching); one name through those aliases
 * (malloc'd, NULL when it has none); the --match rules parsed, applied to a run's names, freed. */
bool sv_cmp_program_span(const char *f, size_t *off, size_t *len);
int sv_cmp_find_aliases(sv_compare *c, char ***names, const sv_source *const *src);
char *sv_cmp_apply_alias(const sv_compare *c, const char *nm);
void sv_cmp_rules_free(match_rule *r, size_t n);
int sv_cmp_rules_parse(match_rule **out, size_t *n, const char *text, sv_error *err);
int sv_cmp_apply_rules(char **names, const sv_source *src, match_rule *r, size_t nr);

#endif
