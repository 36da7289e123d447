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
 * Ownership: sv_two_join's maps are the caller's to free (sv_two_maps_free). */
#ifndef STACKVIEW_FORMATS_TWO_PARTS_H
#define STACKVIEW_FORMATS_TWO_PARTS_H

#include <stdatomic.h>
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

/* Reads the two parts at once: part(part_arg) on a second thread (it reads the input from
 * split on, sv_two_rest) while first(first_arg, lr) reads lr up to split on this one, its
 * progress reported scaled to the whole input (both parts advance together). When the first
 * part fails, *cancel (which the part polls) asks the second to stop. On return the second
 * thread has ended (*started: whether it ran at all), and lr reads on from split. Returns
 * the first part's result. */
int sv_two_run(sv_lines *lr, size_t split, void *(*part)(void *), void *part_arg, atomic_bool *cancel,
	       int (*first)(void *, sv_lines *), void *first_arg, bool *started);

/* Whether the part's samples can join dst's without meeting a limit one reader would have met
 * only with both (the number of samples, metrics and counts adding up; the text readers add
 * samples of count 1). */
bool sv_two_fits(const sv_source *dst, const sv_source *part);

/* The part's ids as the sink's: frames, stacks, and whether a frame was new to the sink. */
typedef struct sv_two_maps {
	sv_frame_id *frame;
	sv_stack_id *stack;
	bool *frame_new;
} sv_two_maps;
void sv_two_maps_free(sv_two_maps *m);

/* The part's frames, stacks and samples into the sink (a source's), in the part's order,
 * then the note that two threads read the input, the second from `line` on. `maps` (NULL:
 * not wanted) receives the part's ids as the sink's, to free with sv_two_maps_free whatever
 * the result. 0 or the sink's error. */
int sv_two_join(sv_sink *sink, const sv_source *part, long line, sv_two_maps *maps);

#endif
