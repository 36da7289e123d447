/* SPDX-License-Identifier: MIT */
/* Box text tokenizing (sv/boxtext.h). */
#include <string.h>

#include "sv/boxtext.h"

size_t sv_box_comment_len(const char *s)
{
	size_t i = 0;
	while (sv_box_blank(s[i]))
		i++;
	if (s[i] != '[')
		return 0;
	const char *close = strchr(s + i, ']');
	if (!close)
		return 0;
	i = (size_t)(close - s) + 1;
	while (sv_box_blank(s[i]))
		i++;
	return i;
}

bool sv_box_next_raw(const char **s, const char **a, const char **z)
{
	const char *p = *s;
	if (!*p)
		return false;
	const char *e = strchr(p, ';');
	if (!e)
		e = p + strlen(p);
	*a = p;
	*z = e;
	*s = *e ? e + 1 : e;
	return true;
}

bool sv_box_next(const char **s, const char **a, const char **z)
{
	if (!sv_box_next_raw(s, a, z))
		return false;
	while (*a < *z && sv_box_blank(**a))
		(*a)++;
	while (*z > *a && sv_box_blank((*z)[-1]))
		(*z)--;
	return true;
}
