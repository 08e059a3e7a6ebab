/*
** UTF-8, strictly (RFC 3629): no overlong forms, no surrogates, nothing above
** U+10FFFF. Names and paths come from target processes and files, so a decoder
** that accepts less is what keeps them from turning into terminal controls.
*/
#ifndef LUATOP_BASE_UTF8_H
#define LUATOP_BASE_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Length of the valid sequence at s (1 for ASCII, NUL included), 0 if invalid.
** Never reads past a NUL. */
static inline size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;	/* continuation byte, overlong C0/C1, or F5..FF */
	if (c == 0xe0)
		lo = 0xa0;	/* overlong */
	else if (c == 0xed)
		hi = 0x9f;	/* UTF-16 surrogates */
	else if (c == 0xf0)
		lo = 0x90;	/* overlong */
	else if (c == 0xf4)
		hi = 0x8f;	/* above U+10FFFF */
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)	/* a NUL fails here */
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* The code point of the valid sequence of length n at s (n from utf8_len). */
static inline uint32_t utf8_code(const unsigned char *s, size_t n)
{
	static const unsigned char lead_mask[5] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	uint32_t c = s[0] & lead_mask[n];

	for (size_t i = 1; i < n; i++)
		c = c << 6 | (s[i] & 0x3f);
	return c;
}

/* A C0 or C1 control or DEL: what a terminal acts on instead of showing. */
static inline int utf8_is_control(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c < 0xa0);
}

#endif
