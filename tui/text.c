/*
** Text helpers for the TUI.
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/utf8.h"
#include "tui/text.h"

#define ELLIPSIS	0x2026	/* … */

/* Decode s into one-cell characters. */
size_t text__wide(const char *s, wchar_t *out, size_t max, int utf8)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0, len;

	if (!s)
		return 0;
	while (*p && n < max) {
		uint32_t c;

		len = utf8_len(p);
		c = len ? utf8_code(p, len) : '?';
		if (!len) {
			len = 1;
		} else if (utf8_is_control(c)) {
			c = '?';
		} else if (c >= 0x80 && (!utf8 || wcwidth((wchar_t)c) != 1)) {
			c = '?';
		}
		out[n++] = (wchar_t)c;
		p += len;
	}
	return n;
}

/* Cut s to cells, ending in an ellipsis. */
static size_t cut(const wchar_t *s, wchar_t *out, size_t cells, int utf8)
{
	size_t keep;

	if (cells == 1) {
		out[0] = '.';
		return 1;
	}
	keep = utf8 ? cells - 1 : cells - 2;
	while (keep && s[keep - 1] == ' ')	/* "name.." rather than "name .." */
		keep--;
	wmemcpy(out, s, keep);
	if (utf8) {
		out[keep] = ELLIPSIS;
		return keep + 1;
	}
	out[keep] = out[keep + 1] = '.';
	return keep + 2;
}

/* Fit s[0..n) into cells. */
size_t text__fit(const wchar_t *s, size_t n, wchar_t *out, size_t cells, int utf8)
{
	size_t p;

	if (!cells)
		return 0;
	if (n <= cells) {
		wmemcpy(out, s, n);
		return n;
	}
	/* "name (chunk:line)": keep the name, elide where it is. */
	for (p = 1; p + 1 < n; p++)
		if (s[p] == ' ' && s[p + 1] == '(')
			break;
	if (p + 1 < n) {
		const wchar_t *tail = utf8 ? L" (\x2026)" : L" (..)";
		size_t tn = wcslen(tail);

		if (p + tn <= cells) {
			wmemcpy(out, s, p);
			wmemcpy(out + p, tail, tn);
			return p + tn;
		}
	}
	return cut(s, out, cells, utf8);
}

/* v with thousands separators. */
void text__count(char *out, size_t outsz, double v)
{
	char digits[32], tmp[48];
	size_t n, i, j = 0;

	if (!(v >= 0))
		v = 0;
	if (v > 9.2e18)
		v = 9.2e18;
	n = (size_t)snprintf(digits, sizeof(digits), "%llu", (unsigned long long)llround(v));
	for (i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			tmp[j++] = ',';
		tmp[j++] = digits[i];
	}
	tmp[j] = '\0';
	snprintf(out, outsz, "%s", tmp);
}

/* Seconds as mm:ss or h:mm:ss. */
void text__time(char *out, size_t outsz, double us)
{
	if (!(us >= 0))
		us = 0;
	if (us < 1e3)
		snprintf(out, outsz, "%.0f us", us);
	else if (us < 1e6)
		snprintf(out, outsz, "%.1f ms", us / 1e3);
	else if (us < 1e9)
		snprintf(out, outsz, "%.2f s", us / 1e6);
	else
		text__count(out, outsz, us / 1e6), strncat(out, " s", outsz - strlen(out) - 1);
}

void text__clock(char *out, size_t outsz, double secs)
{
	unsigned long s = secs > 0 ? (unsigned long)secs : 0;

	if (s >= 3600)
		snprintf(out, outsz, "%lu:%02lu:%02lu", s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(out, outsz, "%02lu:%02lu", s / 60, s % 60);
}
