/*
** C++ demangling through libstdc++'s __cxa_demangle, loaded at run time.
*/

#ifndef LUATOP_SYMBOLIZE_DEMANGLE_H
#define LUATOP_SYMBOLIZE_DEMANGLE_H

#include <stddef.h>

#define DEMANGLE_IN_MAX	1024	/* longer mangled names are left alone */

/*
** luatop does not link libstdc++: demangler__new dlopen()s libstdc++.so.6 and
** finds __cxa_demangle. When that fails C++ names just stay mangled.
*/
struct demangler;

/* NULL + errno (ENOENT: no libstdc++ or no __cxa_demangle, ENOMEM). */
struct demangler *demangler__new(void);
void demangler__delete(struct demangler *d);
/*
** The demangled form of a "_Z..." name as a malloc'd string (the caller frees it),
** or NULL when name is not a valid mangled C++ name, is too long, or d is NULL.
*/
char *demangler__demangle(const struct demangler *d, const char *name);

#endif
