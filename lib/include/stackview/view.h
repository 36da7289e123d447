/* SPDX-License-Identifier: MIT */
/* A view: a source seen through filter parameters (spec/semantics.md §0, §3–§7). Building
 * one runs the whole pipeline — time range, grouping, exclusion, folding, merge with caller,
 * inclusion, call tree, Fold% — and keeps the call tree. ByName's rows are made when first
 * asked for; Callers, Callees and Caller-Callee are derived on request (aggview.h); When
 * strings are computed lazily, and a node's child list is sorted the first time it is asked
 * for. So a view, const or not, is not to be asked from two threads at once.
 *
 * Cost (design.md): patterns run once per distinct frame, the stack transform once per
 * distinct stack; the only per-sample work is one pass over the sample arrays.
 *
 * Ownership: sv_view_new returns a view the caller frees with sv_view_free. The view borrows
 * the source, which must outlive it. Names and arrays returned by getters are borrowed from
 * the view. */
#ifndef STACKVIEW_VIEW_H
#define STACKVIEW_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stackview/params.h"
#include "stackview/source.h"
#include "stackview/status.h"

typedef uint32_t sv_node_id;
typedef uint32_t sv_name_id;

#define SV_NODE_ROOT 0u
#define SV_NAME_ROOT 0u
#define SV_NAME_NONE UINT32_MAX /* sv_view_name_find: no such name */

typedef struct sv_view sv_view;

/* The numbers of one row (spec §6.2). first/last are +inf/-inf when nothing was seen. */
typedef struct sv_stats {
	double inc, inc_ct, exc, exc_ct, fold, fold_ct;
	double first, last;
	double max; /* the largest single sample's metric (thread time: the longest interval);
		     * -INFINITY when there is none */
} sv_stats;

typedef struct sv_summary {
	double metric, count, first, last, metric_per_interval, time_bucket, start, end;
	sv_scaling scaling;
} sv_summary;

/* Build the view. The params are normalised first (§5.3) and kept in the view. Errors:
 * SV_EINVAL for an invalid pattern or a box that is not a number (err names the box),
 * SV_ELIMIT for more than 64 IncPats entries, SV_ENOMEM. */
SV_API int sv_view_new(sv_view **out, const sv_source *src, const sv_params *params, sv_error *err) SV_MUST_USE;
/* The same as sv_view_new on prev's source, reusing what prev's boxes share with params:
 * the time range or Fold% changed, only the samples are added again (the TUI's zoom to a
 * When selection); IncPats or ExcPats changed, prev's tree is refiltered; FoldPats changed,
 * the tree is made again from prev's frame groups and names; GroupPats changed, nothing is
 * reused. */
SV_API int sv_view_new_like(sv_view **out, const sv_view *prev, const sv_params *params, sv_error *err) SV_MUST_USE;
/* *vp made again with params as sv_view_new_like would, the old view's memory given to the
 * new one: once params have passed every check that can fail on them (patterns, boxes, the
 * patterns' backtracking limit), the old view is freed, or its tree taken over, before the new
 * tree is made, so that a change holds one view at its peak, not two (the terminal UI's box
 * changes). *vp is taken over. On success it is the new view, *remade false. On failure it
 * is a view with the old params: the old view itself (*remade false) when the failure came
 * before it was given up, else one made again with them (*remade true: its node ids may differ
 * from the old view's), or NULL when memory ran out for that too. Errors: those of
 * sv_view_new. */
SV_API int sv_view_renew(sv_view **vp, const sv_params *params, bool *remade, sv_error *err) SV_MUST_USE;
SV_API void sv_view_free(sv_view *v);
/* For a view no other will be made like: what only sv_view_new_like reuses (each stack's
 * node before IncPats, each frame's group and name; tens of MB on big profiles) is let go.
 * sv_view_new_like from it still works, making more from scratch. */
SV_API void sv_view_trim(sv_view *v);

SV_API const sv_source *sv_view_source(const sv_view *v);
/* The normalised parameters the view was computed with. */
SV_API const sv_params *sv_view_params(const sv_view *v);
SV_API sv_scaling sv_view_scaling(const sv_view *v);
SV_API void sv_view_summary(sv_summary *out, const sv_view *v);
/* Net and peak of the samples the view keeps (its time range, IncPats, ExcPats): the sum of
 * their metrics, and the highest running sum in time order (from 0, before the first sample)
 * with the time it was reached — what PerfView's memory views show for a time range, where
 * allocations add and frees subtract. `signed_metric` says whether any metric was negative
 * (without one the peak is the net, reached at the last sample). */
typedef struct sv_netpeak {
	double net, peak, peak_time;
	bool signed_metric;
} sv_netpeak;
SV_API int sv_view_net_peak(sv_view *v, sv_netpeak *out) SV_MUST_USE; /* computed once per view */
/* The summary line of spec §6.6 ("Totals Metric: ..."). */
SV_API void sv_view_summary_line(char *buf, size_t size, const sv_view *v);

/* Names (display names; identity in tree and ByName). */
SV_API const char *sv_view_name(const sv_view *v, sv_name_id id);
/* The id of a display name, or SV_NAME_NONE. */
SV_API sv_name_id sv_view_name_find(const sv_view *v, const char *name);
SV_API uint32_t sv_view_name_count(const sv_view *v);

/* The call tree. Node SV_NODE_ROOT is ROOT. Children are sorted (§6.1). */
SV_API sv_name_id sv_view_node_name(const sv_view *v, sv_node_id n);
SV_API sv_node_id sv_view_node_parent(const sv_view *v, sv_node_id n);
/* A node's sums, made when asked for (a node keeps them apart, in less room). */
SV_API sv_stats sv_view_node_stats(const sv_view *v, sv_node_id n);
/* First time and last end time over the node's own (exclusive) samples, including those
 * Fold% moved onto it; +inf/-inf when it has none. */
SV_API void sv_view_node_exc_span(const sv_view *v, sv_node_id n, double *first, double *last);
/* The largest metric among the node's own samples (-INFINITY: none). */
SV_API double sv_view_node_exc_max(const sv_view *v, sv_node_id n);
/* Children of n; returns the count and points *out at the borrowed id array. */
SV_API uint32_t sv_view_node_children(const sv_view *v, sv_node_id n, const sv_node_id **out);
/* How many children n has, without putting them in order (sv_view_node_children sorts a
 * list the first time it is asked for): for a row shown collapsed. */
SV_API uint32_t sv_view_node_child_count(const sv_view *v, sv_node_id n);
/* Asks the memory for node n's name, sums and child count ahead of reading them: for a pass
 * over many nodes in an order of its own (a call tree's rows), where each is a random read. */
SV_API void sv_view_node_prefetch(const sv_view *v, sv_node_id n);
/* The nodes under top (top first), depth-first with children in their order: the call tree
 * with every node expanded, as ids (*out: malloc'ed, the caller's). 0 or SV_ENOMEM. */
SV_API int sv_view_preorder(const sv_view *v, sv_node_id top, sv_node_id **out, size_t *n) SV_MUST_USE;

/* ByName (§6.3): rows sorted by |exc| descending, ties by name; includes ROOT. Made the
 * first time it is asked for (a view shown only as a call tree never pays for it), or with
 * the tree when the view sv_view_renew or sv_view_new_like started from had been asked.
 * prepare makes it and says whether memory sufficed (0 or SV_ENOMEM); count and find make it
 * too, and say there are no rows (0, SV_NAME_NONE) where memory does not suffice. The row
 * and stats getters take rows below a count. A view is not to be asked from two threads at
 * once. */
SV_API int sv_view_byname_prepare(const sv_view *v) SV_MUST_USE;
SV_API uint32_t sv_view_byname_count(const sv_view *v);
SV_API sv_name_id sv_view_byname_name(const sv_view *v, uint32_t row);
SV_API const sv_stats *sv_view_byname_stats(const sv_view *v, uint32_t row);
/* Row of a name, or UINT32_MAX. */
SV_API uint32_t sv_view_byname_find(const sv_view *v, sv_name_id name);


/* Samples: the final node a sample lands on (after Fold%), with its prorated time and
 * metric; false when the sample is filtered out. */
SV_API bool sv_view_sample(const sv_view *v, size_t sample, sv_node_id *node, double *time, double *metric);
/* Per code location (sv_source_location), the metric and the count of the samples this view
 * keeps (its filters and time range, a sample's metric prorated as sv_view_sample gives it)
 * whose leaf executed there: arrays of sv_source_location_count entries, the caller's to free.
 * Both NULL (0 returned) when the source has no locations. 0 or SV_ENOMEM. */
SV_API int sv_view_location_sums(const sv_view *v, double **metric, double **count) SV_MUST_USE;
/* Node count (ids are < this; dead ids, removed by Fold% or without samples, have no parent
 * chain to ROOT and no children). */
SV_API uint32_t sv_view_node_count(const sv_view *v);
SV_API bool sv_view_node_alive(const sv_view *v, sv_node_id n);

/* Milliseconds sv_view_new spent in the filter stage (patterns, stack transform, sample
 * pass) and in the tree stage (totals, sorting, ByName, Fold%). */
SV_API void sv_view_timing(const sv_view *v, double *filter_ms, double *tree_ms);

/* Memory the view holds, for reports. */
SV_API size_t sv_view_memory(const sv_view *v);

#endif
