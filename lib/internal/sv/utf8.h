/* SPDX-License-Identifier: MIT */
/* UTF-8 validation shared by every writer that must emit well-formed text (JSON, XML).
 * Ownership: none; pure functions. */
#ifndef SV_INTERNAL_UTF8_H
#define SV_INTERNAL_UTF8_H

/* Length (1-4) of the valid UTF-8 sequence at s, or 0 when s does not start one (overlong
 * forms and surrogates are invalid). s must be NUL-terminated. */
int sv_utf8_len(const unsigned char *s);

#endif
