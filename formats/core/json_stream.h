/* SPDX-License-Identifier: MIT */
/* Walking a JSON document in place (an input held in memory) so that memory follows what the
 * importer keeps, not the text: the structure around the big arrays is walked here, and each
 * array element (one sample, one frame, one event) is parsed on its own with json-c's
 * tokenizer and freed after use. A whole-document DOM took ~23x the file's size.
 *
 * Ownership: a cursor borrows its input; values from sv_jc_value belong to the caller
 * (json_object_put). Errors are set located at the input's line. */
#ifndef SV_JSON_STREAM_H
#define SV_JSON_STREAM_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stackview/input.h"

#define SV_JSON_MAX_DEPTH 64

typedef struct sv_jcur {
	const sv_input *in;
	size_t pos;   /* offset of the next byte in in->data */
	int depth;    /* containers open around pos */
	bool first;   /* no member or element read yet in the innermost container */
} sv_jcur;

/* A cursor at the start of the input. */
void sv_jc_init(sv_jcur *c, const sv_input *in);
/* The next byte after white space, or -1 at the end. */
int sv_jc_peek_slow(sv_jcur *c);
static inline int sv_jc_peek(sv_jcur *c)
{
	/* most tokens follow the one before with no blank between: that case inline */
	if (c->pos < c->in->len) {
		unsigned char ch = c->in->data[c->pos];
		if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r')
			return ch;
	}
	return sv_jc_peek_slow(c);
}
/* Enter an object ('{') or array ('['): 0, or SV_EFORMAT when something else is there. */
int sv_jc_enter(sv_jcur *c, char open, sv_error *err);
/* Next member of the object entered: 1 with its key (cut to size, NUL-terminated) and the
 * cursor at its value; 0 at the closing '}' (consumed); or an error. */
int sv_jc_key(sv_jcur *c, char *key, size_t size, sv_error *err);
/* Next element of the array entered: 1 with the cursor at it; 0 at the closing ']' (consumed). */
int sv_jc_elem(sv_jcur *c, sv_error *err);
/* Skip one value without building it (strings, numbers, literals, nested containers). */
int sv_jc_skip(sv_jcur *c, sv_error *err);
/* The same with another nesting limit, for a value walked later with a stack of the reader's
 * own (a legacy V8 profile's node tree nests two levels a frame). */
int sv_jc_skip_deep(sv_jcur *c, int limit, sv_error *err);
/* Parse one value into a json_object (the caller puts it). */
int sv_jc_value(sv_jcur *c, json_object **out, sv_error *err);
/* Fast paths for the big arrays, read in place: an array of plain non-negative integers
 * (digits only, no leading zero, below 2^53) into *vals (grown, *n set), a plain JSON
 * number, or one such integer, into *out: 1 with the cursor past the value; 0 with the cursor where it was when
 * the value is anything else (read it with sv_jc_value: errors are reported there); or
 * SV_ENOMEM. */
int sv_jc_uint_array(sv_jcur *c, uint64_t **vals, size_t *n, size_t *cap);
int sv_jc_number(sv_jcur *c, double *out);
int sv_jc_uint(sv_jcur *c, uint64_t *out);
/* Only white space may follow the document. */
int sv_jc_end(sv_jcur *c, sv_error *err);
/* A located error: "malformed JSON: WHAT" at the cursor's line. */
int sv_jc_fail(const sv_jcur *c, sv_error *err, const char *what);
/* The line of byte offset off (1-based). */
long sv_jc_line(const sv_input *in, size_t off);

/* Of a parsed element: member `key` of object o when it has JSON type `type`, else NULL (o may
 * be NULL or not an object); a finite number (int or double) into *out. */
json_object *sv_json_member(json_object *o, const char *key, json_type type);
bool sv_json_number(json_object *o, double *out);

#endif
