/*
** C++ demangling without a link-time dependency on libstdc++.
**
** __cxa_demangle is libiberty's cp-demangle, which bounds its own recursion;
** inputs are further capped at DEMANGLE_IN_MAX bytes since symbol names come
** from untrusted files.
*/
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/demangle.h"

typedef char *(*cxa_demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

struct demangler {
	void *lib;		/* dlopen handle of libstdc++.so.6 */
	cxa_demangle_fn fn;	/* __cxa_demangle */
};

/* Load libstdc++ privately (RTLD_LOCAL: its symbols stay out of our namespace). */
struct demangler *demangler__new(void)
{
	struct demangler *d = calloc(1, sizeof(*d));
	void *sym;

	if (!d) {
		errno = ENOMEM;
		return NULL;
	}
	d->lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	sym = d->lib ? dlsym(d->lib, "__cxa_demangle") : NULL;
	if (!sym) {
		demangler__delete(d);
		errno = ENOENT;
		return NULL;
	}
	memcpy(&d->fn, &sym, sizeof(d->fn));	/* object to function pointer, portably */
	return d;
}

/* Unload libstdc++; NULL is fine. */
void demangler__delete(struct demangler *d)
{
	if (!d)
		return;
	if (d->lib)
		dlclose(d->lib);
	free(d);
}

/* Demangle one name into a malloc'd string, or NULL. */
char *demangler__demangle(const struct demangler *d, const char *name)
{
	int status = -1;
	char *out;

	if (!d || !name || name[0] != '_' || name[1] != 'Z' ||
	    strnlen(name, DEMANGLE_IN_MAX + 1) > DEMANGLE_IN_MAX)
		return NULL;
	out = d->fn(name, NULL, NULL, &status);
	if (status) {
		free(out);
		return NULL;
	}
	return out;
}
