/* SPDX-License-Identifier: MIT */
/* UTF-8 validation (see stackview/utf8.h). */
#include "sv/utf8.h"

int sv_utf8_len(const unsigned char *s)
{
	if (s[0] < 0x80)
		return 1;
	int n = (s[0] & 0xE0) == 0xC0 ? 2 : (s[0] & 0xF0) == 0xE0 ? 3 : (s[0] & 0xF8) == 0xF0 ? 4 : 0;
	if (!n || (n == 2 && s[0] < 0xC2) || s[0] > 0xF4)
		return 0;
	for (int i = 1; i < n; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 0;
	if (n == 3 && s[0] == 0xE0 && s[1] < 0xA0)
		return 0;
	if (n == 3 && s[0] == 0xED && s[1] >= 0xA0)
		return 0; /* surrogates */
	if (n == 4 && s[0] == 0xF0 && s[1] < 0x90)
		return 0;
	if (n == 4 && s[0] == 0xF4 && s[1] >= 0x90)
		return 0;
	return n;
}
