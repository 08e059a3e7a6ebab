/*
** Text for the screen: names decoded to one-cell wide characters, fitted
** into a number of cells, and numbers formatted for people. No curses here.
*/
#ifndef LUATOP_TUI_TEXT_H
#define LUATOP_TUI_TEXT_H

#include <stddef.h>
#include <wchar.h>

/*
** Decode UTF-8 s into out[0..max), one cell per character: invalid bytes,
** controls, and (when utf8 is 0, or in a locale that says so) characters
** that are not one cell wide become '?'. Returns the count (<= max).
*/
size_t text__wide(const char *s, wchar_t *out, size_t max, int utf8);
/*
** Fit s[0..n) into cells: as is if it fits; else, for "name (where)",
** "name (…)" if that fits; else cut with an ellipsis ("…", or ".." without
** utf8; one cell: "."). Returns the count written to out (<= cells).
*/
size_t text__fit(const wchar_t *s, size_t n, wchar_t *out, size_t cells, int utf8);
/* v rounded, with thousands separators: "1,234,567". */
void text__count(char *out, size_t outsz, double v);
/* Microseconds as a time: "850 us", "12.3 ms", "4.56 s". */
void text__time(char *out, size_t outsz, double us);
/* Seconds as "mm:ss", or "h:mm:ss" from one hour. */
void text__clock(char *out, size_t outsz, double secs);

#endif
