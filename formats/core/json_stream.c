/* SPDX-License-Identifier: MIT */
/* Walking JSON in place (see json_stream.h). */
#include "json_stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "sv/array.h"

#include "stackview/status.h"

void sv_jc_init(sv_jcur *c, const sv_input *in)
{
	c->in = in;
	c->pos = 0;
	c->depth = 0;
	c->first = true;
}

long sv_jc_line(const sv_input *in, size_t off)
{
	long line = 1;
	const unsigned char *p = in->data, *e = in->data + (off < in->len ? off : in->len);
	while ((p = memchr(p, '\n', (size_t)(e - p)))) {
		line++;
		p++;
	}
	return line;
}

int sv_jc_fail(const sv_jcur *c, sv_error *err, const char *what)
{
	sv_error_set(err, SV_EFORMAT, "malformed JSON: %s", what);
	sv_error_locate(err, c->in->name, sv_jc_line(c->in, c->pos), -1);
	return SV_EFORMAT;
}

int sv_jc_peek_slow(sv_jcur *c)
{
	const unsigned char *d = c->in->data;
	while (c->pos < c->in->len && (d[c->pos] == ' ' || d[c->pos] == '\t' || d[c->pos] == '\n' || d[c->pos] == '\r'))
		c->pos++;
	return c->pos < c->in->len ? d[c->pos] : -1;
}

int sv_jc_enter(sv_jcur *c, char open, sv_error *err)
{
	if (sv_jc_peek(c) != (unsigned char)open)
		return sv_jc_fail(c, err, open == '{' ? "expected an object" : "expected an array");
	if (c->depth >= SV_JSON_MAX_DEPTH)
		return sv_jc_fail(c, err, "nesting too deep");
	c->pos++;
	c->depth++;
	c->first = true;
	return 0;
}

/* Past a ',' between members/elements, or at the closing bracket: 1 more, 0 closed. */
static int next_item(sv_jcur *c, char close, sv_error *err)
{
	int ch = sv_jc_peek(c);
	if (ch == (unsigned char)close) {
		c->pos++;
		c->depth--;
		c->first = false;
		return 0;
	}
	if (!c->first) {
		if (ch != ',')
			return sv_jc_fail(c, err, ch < 0 ? "unexpected end of input" : close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
		c->pos++;
		ch = sv_jc_peek(c);
		if (ch == (unsigned char)close) { /* a trailing comma, which json-c accepts too */
			c->pos++;
			c->depth--;
			return 0;
		}
	}
	if (ch < 0)
		return sv_jc_fail(c, err, "unexpected end of input");
	c->first = false;
	return 1;
}

int sv_jc_key(sv_jcur *c, char *key, size_t size, sv_error *err)
{
	int rc = next_item(c, '}', err);
	if (rc <= 0)
		return rc;
	if (sv_jc_peek(c) != '"')
		return sv_jc_fail(c, err, "expected a member name");
	json_object *k = NULL;
	if ((rc = sv_jc_value(c, &k, err)))
		return rc;
	snprintf(key, size, "%s", json_object_get_string(k));
	json_object_put(k);
	if (sv_jc_peek(c) != ':')
		return sv_jc_fail(c, err, "expected ':'");
	c->pos++;
	if (sv_jc_peek(c) < 0)
		return sv_jc_fail(c, err, "unexpected end of input");
	return 1;
}

int sv_jc_elem(sv_jcur *c, sv_error *err)
{
	return next_item(c, ']', err);
}

/* The characters of a number or a literal (true, false, null, and what json-c would then
 * refuse): a table, as skipping is a walk over every byte of what is skipped. */
static const unsigned char literal_char[256] = {
	['-'] = 1, ['+'] = 1, ['.'] = 1,
	['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1,
	['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1,
	['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1,
	['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
	['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1,
	['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1,
	['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1,
};

int sv_jc_skip(sv_jcur *c, sv_error *err)
{
	return sv_jc_skip_deep(c, SV_JSON_MAX_DEPTH, err);
}

int sv_jc_skip_deep(sv_jcur *c, int limit, sv_error *err)
{
	const unsigned char *d = c->in->data;
	size_t n = c->in->len, pos = c->pos;
	int depth = 0;
	do {
		while (pos < n && (d[pos] == ' ' || d[pos] == '\t' || d[pos] == '\n' || d[pos] == '\r'))
			pos++;
		c->pos = pos; /* where an error is told */
		if (pos >= n)
			return sv_jc_fail(c, err, "unexpected end of input");
		unsigned char ch = d[pos];
		if (literal_char[ch]) {
			/* number or literal: its characters */
			while (pos < n && literal_char[d[pos]])
				pos++;
		} else if (ch == ',' || ch == ':') {
			if (!depth)
				return sv_jc_fail(c, err, "expected a value");
			pos++;
		} else if (ch == '"') {
			size_t i = pos + 1;
			while (i < n && d[i] != '"') {
				if (d[i] == '\\')
					i++;
				i++; /* json-c takes control characters in strings: so do we */
			}
			if (i >= n || d[i] != '"') {
				c->pos = i < n ? i : n;
				return sv_jc_fail(c, err, "unterminated string");
			}
			pos = i + 1;
		} else if (ch == '{' || ch == '[') {
			if (c->depth + depth >= limit)
				return sv_jc_fail(c, err, "nesting too deep");
			depth++;
			pos++;
		} else if (ch == '}' || ch == ']') {
			if (!depth)
				return sv_jc_fail(c, err, "unexpected closing bracket");
			depth--;
			pos++;
		} else {
			return sv_jc_fail(c, err, "unexpected character");
		}
	} while (depth);
	c->pos = pos;
	return 0;
}

static bool is_ws(unsigned char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

/* A plain non-negative integer at d[*i] (digits, no leading zero, at most 2^53), *i past it:
 * true, else false. */
static bool plain_uint(const unsigned char *d, size_t len, size_t *i, uint64_t *out)
{
	size_t k = *i;
	if (k >= len || d[k] < '0' || d[k] > '9' || (d[k] == '0' && k + 1 < len && d[k + 1] >= '0' && d[k + 1] <= '9'))
		return false;
	uint64_t v = 0;
	while (k < len && d[k] >= '0' && d[k] <= '9') {
		v = v * 10 + (uint64_t)(d[k++] - '0');
		if (v > (1ULL << 53))
			return false;
	}
	*i = k, *out = v;
	return true;
}

int sv_jc_uint_array(sv_jcur *c, uint64_t **vals, size_t *n, size_t *cap)
{
	const unsigned char *d = c->in->data;
	size_t len = c->in->len, i = c->pos, k = 0;
	while (i < len && is_ws(d[i]))
		i++;
	if (i >= len || d[i] != '[')
		return 0;
	i++;
	for (;;) {
		while (i < len && is_ws(d[i]))
			i++;
		if (i < len && d[i] == ']' && k == 0)
			break;
		uint64_t v;
		if (!plain_uint(d, len, &i, &v))
			return 0;
		if (sv_array_reserve(vals, cap, k + 1, sizeof(**vals)))
			return SV_ENOMEM;
		(*vals)[k++] = v;
		while (i < len && is_ws(d[i]))
			i++;
		if (i < len && d[i] == ',') {
			i++;
			continue;
		}
		if (i < len && d[i] == ']')
			break;
		return 0;
	}
	c->pos = i + 1;
	*n = k;
	return 1;
}

int sv_jc_uint(sv_jcur *c, uint64_t *out)
{
	const unsigned char *d = c->in->data;
	size_t len = c->in->len, i = c->pos;
	while (i < len && is_ws(d[i]))
		i++;
	uint64_t v;
	if (!plain_uint(d, len, &i, &v) || i >= len || !(is_ws(d[i]) || d[i] == ',' || d[i] == ']' || d[i] == '}'))
		return 0;
	*out = v;
	c->pos = i;
	return 1;
}

int sv_jc_number(sv_jcur *c, double *out)
{
	const unsigned char *d = c->in->data;
	size_t len = c->in->len, i = c->pos;
	while (i < len && is_ws(d[i]))
		i++;
	/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? and then a delimiter */
	size_t s = i;
	if (i < len && d[i] == '-')
		i++;
	if (i >= len || d[i] < '0' || d[i] > '9')
		return 0;
	if (d[i] == '0')
		i++;
	else
		while (i < len && d[i] >= '0' && d[i] <= '9')
			i++;
	if (i < len && d[i] == '.') {
		if (++i >= len || d[i] < '0' || d[i] > '9')
			return 0;
		while (i < len && d[i] >= '0' && d[i] <= '9')
			i++;
	}
	if (i < len && (d[i] == 'e' || d[i] == 'E')) {
		if (++i < len && (d[i] == '+' || d[i] == '-'))
			i++;
		if (i >= len || d[i] < '0' || d[i] > '9')
			return 0;
		while (i < len && d[i] >= '0' && d[i] <= '9')
			i++;
	}
	if (i >= len || !(is_ws(d[i]) || d[i] == ',' || d[i] == ']' || d[i] == '}') || i - s > 64)
		return 0;
	/* an integer is json-c's int64 made a double ("-0" is 0); a long one it might clamp: its way */
	bool integer = !memchr(d + s, '.', i - s) && !memchr(d + s, 'e', i - s) && !memchr(d + s, 'E', i - s);
	if (integer && i - s > 15)
		return 0;
	char buf[72];
	memcpy(buf, d + s, i - s);
	buf[i - s] = '\0';
	double v = integer ? (double)strtoll(buf, NULL, 10) : strtod(buf, NULL);
	if (!isfinite(v))
		return 0;
	*out = v;
	c->pos = i;
	return 1;
}

int sv_jc_value(sv_jcur *c, json_object **out, sv_error *err)
{
	*out = NULL;
	if (sv_jc_peek(c) < 0)
		return sv_jc_fail(c, err, "unexpected end of input");
	size_t left = c->in->len - c->pos;
	if (left > INT32_MAX)
		left = INT32_MAX;
	json_tokener *tok = json_tokener_new_ex(SV_JSON_MAX_DEPTH - c->depth > 1 ? SV_JSON_MAX_DEPTH - c->depth : 1);
	if (!tok)
		return sv_error_set(err, SV_ENOMEM, NULL);
	/* json-c needs to see past a number to know it ended: at the very end of the input the
	 * tokenizer is told so by a second, empty call. */
	json_object *v = json_tokener_parse_ex(tok, (const char *)c->in->data + c->pos, (int)left);
	enum json_tokener_error jerr = json_tokener_get_error(tok);
	size_t used = json_tokener_get_parse_end(tok);
	if (!v && jerr == json_tokener_continue && c->pos + left == c->in->len) {
		v = json_tokener_parse_ex(tok, "", 1);
		if (!v) { /* the input ended inside the value */
			json_tokener_free(tok);
			c->pos = c->in->len;
			return sv_jc_fail(c, err, "unexpected end of input");
		}
		jerr = json_tokener_get_error(tok);
	}
	json_tokener_free(tok);
	if (!v && jerr == json_tokener_success)
		return sv_error_set(err, SV_ENOMEM, "out of memory while parsing JSON");
	if (!v || jerr != json_tokener_success) {
		c->pos += used < left ? used : left;
		return sv_jc_fail(c, err, jerr == json_tokener_continue ? "unexpected end of input" : json_tokener_error_desc(jerr));
	}
	c->pos += used;
	*out = v;
	return 0;
}

int sv_jc_end(sv_jcur *c, sv_error *err)
{
	return sv_jc_peek(c) < 0 ? 0 : sv_jc_fail(c, err, "unexpected text after the document");
}

json_object *sv_json_member(json_object *o, const char *key, json_type type)
{
	json_object *v = NULL;
	if (!o || !json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, type))
		return NULL;
	return v;
}

bool sv_json_number(json_object *o, double *out)
{
	if (!o || !(json_object_is_type(o, json_type_int) || json_object_is_type(o, json_type_double)))
		return false;
	*out = json_object_get_double(o);
	return isfinite(*out);
}
