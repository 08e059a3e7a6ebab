/*
** Folded stacks ("collapsed", Brendan Gregg): export and import.
*/

#ifndef LUATOP_EXPORT_FOLDED_H
#define LUATOP_EXPORT_FOLDED_H

#include <stddef.h>
#include <stdio.h>

#include "profile/calltree.h"
#include "profile/frames.h"
#include "profile/stacks.h"

#define FOLDED_NAME_MAX	1024		/* bytes of a sanitized name in folded__write */
#define FOLDED_LINE_MAX	(1 << 20)	/* longest line folded__read accepts, without EOL */

/*
** Write one line per unique non-empty stack: frames root first joined by ';',
** one space, count, '\n'. Lines sorted bytewise (LC_ALL=C sort order).
** Names sanitized (folded__sanitize, at most FOLDED_NAME_MAX bytes).
** FRAME_KERNEL names get the suffix "_[k]". Stacks with a zero count are
** skipped; stacks that print the same (e.g. frames differing only in module)
** are merged into one line; counts above 2^63 are written as 2^63, the most
** folded__read takes. Returns 0 or -errno (write errors, ENOMEM).
*/
int folded__write(FILE *f, const struct frametab *ft, const struct stacktab *st);
/* A frame as folded__write prints it (sanitized, "_[k]" for the kernel) into
** out (outsz >= 5; FOLDED_NAME_MAX + 5 holds every name); its length. */
size_t folded__frame_name(const struct frame *fr, char *out, size_t outsz);
/* Intern a printed frame name[0..len) (NUL-terminated, modified) with the kind
** its suffix says, as folded__read does: the id, or UINT32_MAX on ENOMEM. */
uint32_t folded__intern(struct frametab *ft, char *name, size_t len);
/*
** Sanitize one frame name into out (always NUL-terminated when outsz > 0,
** truncated to outsz-1 bytes on a UTF-8 boundary): ';' -> ':'; CR, LF and
** other C0 controls and DEL -> '?'; invalid UTF-8 bytes -> "\xNN"; an empty or
** NULL name -> "[unknown]"; a name ending in " <digits>" (or " <digits>.<digits>")
** gets that last space replaced by '_', so no frame reads as a count.
** Returns the length written.
*/
size_t folded__sanitize(const char *name, char *out, size_t outsz);
/*
** Read a folded file into ft/st (for `luatop -i FILE`): frames ending "_[k]"
** become FRAME_KERNEL (suffix stripped); "_[j]" FRAME_LUA_JIT (stripped);
** "[fallback]" and "-" FRAME_SPECIAL; everything else FRAME_NATIVE.
** Tolerates CRLF, spaces and tabs after the count, and a trailing line
** without '\n'; blank lines skipped.
** A malformed line (no space + positive integer count, count above 2^63 or
** counts that add up to 2^64 or more,
** empty frame, NUL byte, line longer than FOLDED_LINE_MAX) -> returns -EINVAL
** and writes "line N: <what is wrong>" into err (may be NULL). Read errors
** give -errno, out of memory -ENOMEM. Lines before the bad one stay added.
*/
int folded__read(FILE *f, struct frametab *ft, struct stacktab *st, char *err, size_t errlen);

/*
** The subtree of top in call tree t as folded stacks (top's ancestors included),
** with the self samples of each node in window w (rounded in CT_DECAY);
** fallback_only keeps the CT_FALLBACK samples only; fb_root, a frame of ft to
** root those at ([fallback]), or UINT32_MAX (as they are). *total (may be NULL)
** gets the number of samples written. 0 or -errno.
*/
int folded__write_tree(FILE *f, const struct frametab *ft, const struct calltree *t,
		       uint32_t top, enum ct_window w, int fallback_only, uint32_t fb_root,
		       uint64_t *total);

#endif
