/*
** Terminal-safe copies of untrusted text.
*/
#include <string.h>

#include "base/text.h"
#include "base/utf8.h"

size_t text__safe(const char *s, char *out, size_t outsz, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = 0, n;

	if (!outsz)
		return 0;
	for (; p && *p; p += n) {
		n = utf8_len(p);
		if (!n || (utf8_is_control(utf8_code(p, n)) &&
			   !((flags & TEXT_KEEP_LINES) && (*p == '\n' || *p == '\t')))) {
			if (len + 1 >= outsz)
				break;
			out[len++] = '?';
			n = n ? n : 1;
			continue;
		}
		if (n >= outsz - len)
			break;
		memcpy(out + len, p, n);
		len += n;
	}
	out[len] = '\0';
	return len;
}
