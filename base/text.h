/*
** Text from targets and files made safe for a terminal: luatop runs as root,
** and a process name, a path or a symbol can carry escape sequences that
** retitle, recolour or rewrite the user's terminal.
*/
#ifndef LUATOP_BASE_TEXT_H
#define LUATOP_BASE_TEXT_H

#include <stddef.h>

enum {
	TEXT_KEEP_LINES = 1,	/* keep '\n' and '\t' (multi-line diagnostics) */
};

/*
** Copy s into out (outsz > 0), every control character (C0, DEL, C1) and
** every byte that is not valid UTF-8 replaced by '?'; never splits a
** character. Returns the length written.
*/
size_t text__safe(const char *s, char *out, size_t outsz, unsigned flags);

#endif
