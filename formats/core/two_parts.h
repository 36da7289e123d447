/* SPDX-License-Identifier: MIT */
/* Reading a large text input on two threads at once (perf script and folded text): where the
 * chunks start, whether to split, who reads which chunk, and the join of a chunk's source into
 * the sink's, in the chunk's own order. formats/ only.
 *
 * The input is cut into up to SV_TWO_CHUNKS chunks at line (sample) boundaries. This thread
 * reads the first half's chunks straight into the sink, the second thread the second half's
 * into a source of its own; the one that finishes first reads the other's last chunks, each
 * into a source of its own (a thread on a faster or less busy core reads more). The sources
 * then join the sink in input order.
 *
 * Why the join gives the one-reader result: a reader of chunks makes every intern call one
 * reader of the whole would make there (and some it would not, for frames and stacks the
 * chunks before it have), in the same order. Adding the chunk's frames, then its stacks, in
 * its id order, finds the ones the sink has and adds the others in the order one reader would
 * have added them; its samples follow in their order, each added as one reader would have
 * added it (the sink aggregates them the same way).
 *
 * Ownership: sv_two_join's maps are the caller's to free (sv_two_maps_free). */
#ifndef STACKVIEW_FORMATS_TWO_PARTS_H
#define STACKVIEW_FORMATS_TWO_PARTS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "stackview/formats.h"

#define SV_TWO_MIN (16u << 20) /* smaller inputs are read by one thread unless asked */
#define SV_TWO_CHUNKS 8

/* Whether to read `in` on two threads: asked for (threads 2), or by default a whole input of
 * SV_TWO_MIN bytes or more with two CPUs; never a stream, nor a sink that is not a source's. */
bool sv_two_wanted(unsigned threads, const sv_input *in, const sv_sink *sink);

/* Where the chunks of d[0, n) start: at[0] = 0, then for each k/SV_TWO_CHUNKS of the input
 * the start of the first line from there on (after a blank line when `after_blank`: perf
 * script's samples end at one), left out when there is none in the next 16 MiB or it is not
 * past the previous one; at[m] = n. Returns m, the number of chunks (1: do not split). */
unsigned sv_two_chunks(const char *d, size_t n, bool after_blank, size_t at[SV_TWO_CHUNKS + 1]);

/* The input [from, to), for a chunk's reader (no progress reports, no page release: the
 * first thread's reader owns those). */
sv_input sv_two_window(const sv_input *in, size_t from, size_t to);

/* What every part holds (a reader puts it first in its own part): its window of the input and
 * the lines read from it, chunk after chunk; its own source; how it ended. */
typedef struct sv_two_part {
	sv_input in;
	sv_lines lr;
	bool have_lr;
	sv_source *src;
	sv_error err;
	int rc;
} sv_two_part;

/* p (zeroed) for the chunks of `in` from k on, as far as at[to] (for sv_two_reader's open):
 * SV_ENOMEM when its source cannot be made (nothing to dispose then); a failure to start its
 * lines becomes its rc. */
int sv_two_part_init(sv_two_part *p, const sv_input *in, const size_t *at, unsigned k, unsigned to);
/* p's lines made to end with chunk k (for sv_two_reader's read): false when p has failed. */
bool sv_two_part_at(sv_two_part *p, const sv_input *in, const size_t *at, unsigned k);
void sv_two_part_dispose(sv_two_part *p);

/* What reads chunks into parts (sources of their own): open(arg, k, to) makes the part that
 * reads from chunk k on, as far as at[to] at most (NULL: no memory, and this thread reads
 * those chunks itself later); read(arg, part, k) reads chunk k into it, after what it read
 * before. Both may run on either thread, and poll the cancel flag given to sv_two_run. */
typedef struct sv_two_reader {
	void *(*open)(void *arg, unsigned k, unsigned to);
	void (*read)(void *arg, void *part, unsigned k);
	void *arg;
} sv_two_reader;

/* Who read what: this thread chunks [0, front) into the sink; part[k] chunk k alone, or, for
 * k == run, the second thread's run of chunks [run, run_end); NULL: none. */
typedef struct sv_two_ranges {
	unsigned front, run, run_end;
	void *part[SV_TWO_CHUNKS];
} sv_two_ranges;

/* The first chunk after the part at chunk k. */
static inline unsigned sv_two_next(const sv_two_ranges *rg, unsigned k)
{
	return k == rg->run && rg->run < rg->run_end ? rg->run_end : k + 1;
}

/* Reads the m chunks of lr's input (chunk k is [at[k], at[k + 1]); lr stands at at[0]) on two
 * threads. This one reads with first(first_arg, lr) from the front into the sink (lr->end set
 * at each chunk's end in turn: a call reads on where the last stopped), its progress reported
 * with the bytes read elsewhere; the second reads its run from the middle chunk on. When one
 * runs out of its own chunks it reads the other's from their end, each alone (a thread that
 * runs faster, on a core of its own or a bigger core, reads more). When `first` fails,
 * *cancel asks the second thread to stop. On return the second thread has ended, lr->end is
 * restored, lr stands at at[out->front] unless first failed, and out->part holds the parts
 * (the caller's to dispose). Returns first's result. */
int sv_two_run(sv_lines *lr, const size_t *at, unsigned m, const sv_two_reader *rd, atomic_bool *cancel,
	       int (*first)(void *, sv_lines *), void *first_arg, sv_two_ranges *out);

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

/* The part's frames, stacks, code locations and samples into the sink (a source's), in the part's order.
 * `maps` (NULL: not wanted) receives the part's ids as the sink's, to free with
 * sv_two_maps_free whatever the result. 0 or the sink's error. */
int sv_two_join(sv_sink *sink, const sv_source *part, sv_two_maps *maps);

/* The parts of sv_two_run's chunks joined into the sink in input order, from rg->front on,
 * while join(arg, part, &taken) takes them (0 and taken; not taken: this thread reads the rest
 * itself), lr moved past each one's chunks; then the note that two threads read the input.
 * Returns 0 or join's or the note's error; *k: the first chunk not joined (m: none). */
int sv_two_join_all(sv_sink *sink, sv_lines *lr, const size_t *at, unsigned m, const sv_two_ranges *rg,
		    int (*join)(void *arg, sv_two_part *part, bool *taken), void *arg, unsigned *k);

#endif
