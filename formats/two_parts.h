/* SPDX-License-Identifier: MIT */
/* Reading a large text input in two parts at once (perf script and folded text): where the
 * second part may start, whether to split, and the join of the second part's source into the
 * sink's, in the second part's own order. formats/ only.
 *
 * Why the join gives the one-reader result: a reader of the second part makes every intern
 * call one reader of the whole would make there (and some it would not, for frames and stacks
 * the first part already has), in the same order. Adding the part's frames, then its stacks,
 * in its id order, finds the ones the first part has and adds the others in the order one
 * reader would have added them; its samples follow in their order, each added as one reader
 * would have added it (the sink aggregates them the same way).
 *
 * Ownership: sv_two_join's maps are malloc'ed for the caller to free. */
#ifndef STACKVIEW_FORMATS_TWO_PARTS_H
#define STACKVIEW_FORMATS_TWO_PARTS_H

#include <stdbool.h>
#include <stddef.h>

#include "stackview/formats.h"

#define SV_TWO_MIN (16u << 20) /* smaller inputs are read in one part unless asked */

/* Whether to read `in` in two parts: asked for (threads 2), or by default a whole input of
 * SV_TWO_MIN bytes or more with two CPUs; never a stream, nor a sink that is not a source's. */
bool sv_two_wanted(unsigned threads, const sv_input *in, const sv_sink *sink);

/* Where the second part starts: the start of the first line after the middle (after a blank
 * line when `after_blank`: perf script's samples end at one), or 0 when there is none in the
 * next 16 MiB. */
size_t sv_two_split(const char *d, size_t n, bool after_blank);

/* The input from `at` on, for the second part's reader (no progress reports, no page
 * release: the first part's reader owns those). */
sv_input sv_two_rest(const sv_input *in, size_t at);

/* The first part's reader reports its progress through `self` (set up by
 * sv_two_watch_first), scaled to the whole input: both parts advance together, so the first
 * part's end is about the input's end. */
typedef struct sv_two_progress {
	sv_progress self;
	sv_progress *to;
	unsigned long long split, total;
} sv_two_progress;
/* *first: `in` with its progress scaled as above (unchanged when nobody watches). */
void sv_two_watch_first(sv_input *first, sv_two_progress *w, const sv_input *in, size_t split);

/* Whether the part's samples can join dst's without meeting a limit one reader would have met
 * only with both (the number of samples, metrics adding up). */
bool sv_two_fits(const sv_source *dst, const sv_source *part);

/* The part's frames, stacks and samples into the sink (whose source is dst), in the part's
 * order; fmap and smap: the part's ids as the sink's; fnew[f]: the frame was new to dst. 0 or
 * the sink's error. */
int sv_two_join(sv_sink *sink, const sv_source *part, sv_frame_id **fmap, sv_stack_id **smap, bool **fnew);

#endif
