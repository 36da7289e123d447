/* SPDX-License-Identifier: MIT */
/* Budgets: rules on a profile's numbers that CI can enforce (docs/diff.md "Budgets"). A
 * budget is text, one item a line: PerfView's boxes ("IncPats: Process% myapp"), in force for
 * the rules after them, and rules "KIND NAME OP LIMIT":
 *
 *   inc    myapp!parse  <= 12%     the row's Inc: % of the view's total, or in the metric
 *   exc    ~malloc      <= 5%      `~`: every ByName row the pattern matches; the worst counts
 *   growth serialize    <  2%      Inc's change against the base runs (% of the base mean, or
 *                                  in the metric), a violation counting only when the change
 *                                  is significant
 *
 * Blank lines and lines starting with '#' are comments, and a rule may end in one ('#' after
 * a blank; a box's text is kept whole). OP is <, <=, > or >=. With several profiles, inc and
 * exc are the means over them.
 *
 * Ownership: sv_budget_parse returns a budget the caller frees with sv_budget_free; rules and
 * their texts are the budget's. Evaluation borrows the sources and the comparison. */
#ifndef STACKVIEW_BUDGET_H
#define STACKVIEW_BUDGET_H

#include <stdbool.h>
#include <stddef.h>

#include "stackview/compare.h"
#include "stackview/params.h"
#include "stackview/source.h"
#include "stackview/status.h"

typedef enum sv_rule_kind { SV_RULE_INC, SV_RULE_EXC, SV_RULE_GROWTH } sv_rule_kind;
typedef enum sv_rule_op { SV_OP_LT, SV_OP_LE, SV_OP_GT, SV_OP_GE } sv_rule_op;

typedef struct sv_rule {
	long line;          /* in the budget text, from 1 */
	const char *text;   /* the rule as written, trimmed */
	sv_rule_kind kind;
	const char *name;   /* an exact row name, or the pattern after `~` */
	bool pattern;
	sv_rule_op op;
	double limit;
	bool pct;           /* the limit is a percentage */
	const sv_params *params; /* the boxes in force */
	bool group_set;     /* GroupPats was set (else a growth rule takes the diff's default) */
	/* sv_budget_eval's result */
	double value;       /* the deciding row's value (0 when no row matched) */
	const char *row;    /* the deciding row's name, NULL when no row matched */
	bool pass;
	bool noise;         /* a growth rule broken only by a change that is not significant */
} sv_rule;

typedef struct sv_budget sv_budget;

/* Parse budget text. SV_EINVAL with err->line and a message naming what is wrong (an unknown
 * line, a limit that is not a number, an operator, an invalid pattern), or for a budget
 * without rules; SV_ENOMEM. */
SV_API int sv_budget_parse(sv_budget **out, const char *text, size_t len, sv_error *err) SV_MUST_USE;
SV_API void sv_budget_free(sv_budget *b);
SV_API size_t sv_budget_count(const sv_budget *b);
SV_API const sv_rule *sv_budget_rule(const sv_budget *b, size_t i);
SV_API const char *sv_rule_op_text(sv_rule_op op);

/* Evaluate every rule on the test profiles (`cmp` compares base runs with the same profiles;
 * NULL when there are none, and then a growth rule is SV_EINVAL with err->line). Bad boxes
 * are SV_EINVAL with err->line the rule's and the engine's message. Returns the number of
 * failed rules through *failed. */
SV_API int sv_budget_eval(sv_budget *b, const sv_source *const *profiles, size_t n, sv_compare *cmp, size_t *failed,
			  sv_error *err) SV_MUST_USE;

#endif
