/* SPDX-License-Identifier: MIT */
/* Filter box texts (see stackview/params.h). */
#include "stackview/params.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const box_names[SV_BOX_COUNT] = {
	"GroupPats", "FoldPats", "Fold%", "IncPats", "ExcPats", "Start", "End",
};

const char *sv_box_name(sv_box box)
{
	return (unsigned)box < SV_BOX_COUNT ? box_names[box] : "?";
}

int sv_params_init(sv_params *p)
{
	for (int i = 0; i < SV_BOX_COUNT; i++)
		p->box[i] = NULL;
	for (int i = 0; i < SV_BOX_COUNT; i++) {
		p->box[i] = strdup("");
		if (!p->box[i])
			return SV_ENOMEM;
	}
	return 0;
}

void sv_params_dispose(sv_params *p)
{
	if (!p)
		return;
	for (int i = 0; i < SV_BOX_COUNT; i++) {
		free(p->box[i]);
		p->box[i] = NULL;
	}
}

int sv_params_copy(sv_params *out, const sv_params *src)
{
	for (int i = 0; i < SV_BOX_COUNT; i++)
		out->box[i] = NULL;
	for (int i = 0; i < SV_BOX_COUNT; i++) {
		out->box[i] = strdup(src->box[i] ? src->box[i] : "");
		if (!out->box[i])
			return SV_ENOMEM;
	}
	return 0;
}

int sv_params_set(sv_params *p, sv_box box, const char *text)
{
	char *copy = strdup(text ? text : "");
	if (!copy)
		return SV_ENOMEM;
	free(p->box[box]);
	p->box[box] = copy;
	return 0;
}

bool sv_params_equal(const sv_params *a, const sv_params *b)
{
	for (int i = 0; i < SV_BOX_COUNT; i++)
		if (strcmp(a->box[i], b->box[i]) != 0)
			return false;
	return true;
}

bool sv_parse_number(const char *text, double *out)
{
	char buf[128];
	size_t n = 0;
	const char *s = text;
	while (isspace((unsigned char)*s))
		s++;
	const char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	if (e == s)
		return false;
	if ((size_t)(e - s) == 8 && strncasecmp(s, "Infinity", 8) == 0) {
		*out = INFINITY;
		return true;
	}
	if ((size_t)(e - s) == 9 && strncasecmp(s, "-Infinity", 9) == 0) {
		*out = -INFINITY;
		return true;
	}
	for (const char *c = s; c < e; c++) {
		if (*c == ',')
			continue; /* thousands separator (spec §5.3 [R]) */
		if (!(isdigit((unsigned char)*c) || *c == '.' || *c == '-' || *c == '+' || *c == 'e' || *c == 'E'))
			return false;
		if (n + 1 >= sizeof(buf))
			return false;
		buf[n++] = *c;
	}
	buf[n] = '\0';
	if (n == 0)
		return false;
	char *end;
	double v = strtod(buf, &end);
	if (*end != '\0' || isnan(v))
		return false;
	*out = v;
	return true;
}

/* "%.*f" of value without printf when the rounding cannot be in doubt: |value| * 10^decimals
 * below 2^53 and its fraction not within a few units of the last place of one half (the
 * product is off by at most half a unit there, so the exact value rounds the same way);
 * false otherwise (printf's exact expansion decides). Grids print hundreds of thousands of
 * numbers: printf's exact decimal expansion was most of the output's time. */
static bool fixed_fast(char *out, double value, int decimals)
{
	static const double pow10[] = { 1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8 };
	if (decimals > 8)
		return false;
	double a = fabs(value), y = a * pow10[decimals];
	if (!(y < 4503599627370496.0)) /* 2^52: y's units and its fraction are exact parts */
		return false;
	double fl = floor(y), frac = y - fl;
	double slack = y * 0x1p-50 + 0x1p-60;
	if (fabs(frac - 0.5) <= slack)
		return false;
	uint64_t r = (uint64_t)fl + (frac > 0.5);
	char digits[32];
	int nd = 0;
	do {
		digits[nd++] = (char)('0' + r % 10);
		r /= 10;
	} while (r);
	while (nd <= decimals) /* at least one integer digit */
		digits[nd++] = '0';
	size_t o = 0;
	if (value < 0)
		out[o++] = '-';
	for (int i = nd - 1; i >= 0; i--) {
		out[o++] = digits[i];
		if (i == decimals && decimals > 0)
			out[o++] = '.';
	}
	out[o] = '\0';
	return true;
}

void sv_format_number(char *buf, size_t size, double value, int decimals)
{
	/* Sized for any finite double: 309 integer digits, 102 separators, 20 decimals. */
	char tmp[400];
	if (decimals < 0)
		decimals = 0;
	if (decimals > 20)
		decimals = 20;
	if (!isfinite(value)) {
		snprintf(buf, size, "%s", isnan(value) ? "NaN" : value < 0 ? "-Infinity" : "Infinity");
		return;
	}
	/* .NET rounds an exact tie away from zero (1.25 -> "1.3"); printf rounds it to even. A
	 * double m * 2^e (m odd) has exactly -e decimals, the last of them a 5: it is a tie at
	 * `decimals` exactly when -e == decimals + 1. No long expansion needed. */
	bool tie = false;
	if (value != 0 && fabs(value) < 9007199254740992.0) {
		int x;
		double f = frexp(fabs(value), &x);
		uint64_t m = (uint64_t)ldexp(f, 53);
		int e = x - 53;
		while (!(m & 1)) {
			m >>= 1;
			e++;
		}
		tie = -e == decimals + 1;
	}
	if (fabs(value) >= 1e17) {
		/* An integer past 17 digits: its shortest round-trip digits, then zeros (as .NET
		 * prints it), instead of a slow exact expansion of up to 309 digits. */
		char sig[40];
		for (int prec = 15; prec <= 17; prec++) { /* 17 digits always round-trip */
			snprintf(sig, sizeof(sig), "%.*e", prec - 1, value);
			if (strtod(sig, NULL) == value)
				break;
		}
		char *ep = strchr(sig, 'e');
		int exp10 = atoi(ep + 1);
		size_t o = 0;
		if (value < 0)
			tmp[o++] = '-';
		for (const char *c = sig; c < ep && o < sizeof(tmp) - 40; c++)
			if (isdigit((unsigned char)*c))
				tmp[o++] = *c;
		size_t ndig = o - (value < 0);
		for (size_t i = ndig; i < (size_t)exp10 + 1 && o < sizeof(tmp) - 25; i++)
			tmp[o++] = '0';
		if (decimals > 0) {
			tmp[o++] = '.';
			for (int i = 0; i < decimals; i++)
				tmp[o++] = '0';
		}
		tmp[o] = '\0';
	} else if (!tie && !fixed_fast(tmp, value, decimals)) {
		snprintf(tmp, sizeof(tmp), "%.*f", decimals, value);
	} else if (tie) {
		snprintf(tmp, sizeof(tmp), "%.*f", decimals, nextafter(value, value < 0 ? -INFINITY : INFINITY));
	}
	/* "-0.0" reads badly in a grid: print zero without a sign. */
	bool zero = true;
	for (const char *c = tmp; *c; c++)
		if (*c >= '1' && *c <= '9')
			zero = false;
	const char *digits = tmp;
	char out[512];
	size_t o = 0;
	if (*digits == '-') {
		if (!zero)
			out[o++] = '-';
		digits++;
	}
	const char *dot = strchr(digits, '.');
	size_t intlen = dot ? (size_t)(dot - digits) : strlen(digits);
	for (size_t i = 0; i < intlen; i++) {
		out[o++] = digits[i];
		size_t left = intlen - i - 1;
		if (left > 0 && left % 3 == 0)
			out[o++] = ',';
	}
	if (dot) {
		size_t n = strlen(dot);
		memcpy(out + o, dot, n);
		o += n;
	}
	out[o] = '\0';
	if (size) { /* (as snprintf "%s" would, without its format parsing: grids print millions) */
		size_t n = o < size - 1 ? o : size - 1;
		memcpy(buf, out, n);
		buf[n] = '\0';
	}
}
