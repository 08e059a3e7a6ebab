/*
** The order of symbol tables (kallsyms, ELF): address, then the best-ranked
** symbol first, then name, so deduping keeps one well-chosen name per address.
*/
#ifndef LUATOP_SYMBOLIZE_SYMORDER_H
#define LUATOP_SYMBOLIZE_SYMORDER_H

#include <stdint.h>

/* <0, 0 or >0 as symbol x sorts before, with or after symbol y. */
int symorder__cmp(uint64_t xaddr, unsigned xrank, const char *xname,
		  uint64_t yaddr, unsigned yrank, const char *yname);

#endif
