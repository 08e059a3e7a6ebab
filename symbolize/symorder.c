/*
** Symbol table order: address, then best rank first, then name for a stable result.
*/
#include <string.h>

#include "symbolize/symorder.h"

/* Compare two symbols by address, rank (higher first) and name. */
int symorder__cmp(uint64_t xaddr, unsigned xrank, const char *xname,
		  uint64_t yaddr, unsigned yrank, const char *yname)
{
	if (xaddr != yaddr)
		return xaddr < yaddr ? -1 : 1;
	if (xrank != yrank)
		return xrank > yrank ? -1 : 1;
	return strcmp(xname, yname);
}
