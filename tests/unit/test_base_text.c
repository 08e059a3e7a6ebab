/*
** base/text.c: untrusted text made safe for a terminal.
*/
#include <criterion/criterion.h>
#include <string.h>

#include "base/grow.h"
#include "base/text.h"

static const char *safe(const char *in, size_t outsz, unsigned flags)
{
	static char out[256];

	text__safe(in, out, outsz, flags);
	return out;
}

Test(base_text, controls_become_question_marks)
{
	cr_assert_str_eq(safe("\033]2;pwned\007x", 64, 0), "?]2;pwned?x");
	cr_assert_str_eq(safe("a\rb\nc\td\x7f", 64, 0), "a?b?c?d?");
	cr_assert_str_eq(safe("a\nb\tc\r", 64, TEXT_KEEP_LINES), "a\nb\tc?");
	/* C1 controls in UTF-8 (U+009B is CSI for some terminals). */
	cr_assert_str_eq(safe("x\xc2\x9b" "31my", 64, 0), "x?31my");
}

Test(base_text, utf8_kept_invalid_replaced)
{
	cr_assert_str_eq(safe("caf\xc3\xa9 \xe2\x80\x93 \xf0\x9f\x94\xa5", 64, 0),
			 "caf\xc3\xa9 \xe2\x80\x93 \xf0\x9f\x94\xa5");
	cr_assert_str_eq(safe("\xff\xc3" "x\xe2\x80", 64, 0), "??x??");
	cr_assert_str_eq(safe("\xc0\xaf", 64, 0), "??");		/* overlong '/' */
	cr_assert_str_eq(safe("\xed\xa0\x80", 64, 0), "???");		/* a surrogate */
}

Test(base_text, truncates_on_character_boundaries)
{
	char out[5];

	cr_assert_eq(text__safe("ab\xc3\xa9\xc3\xa9", out, sizeof(out), 0), 4);
	cr_assert_str_eq(out, "ab\xc3\xa9");
	cr_assert_eq(text__safe("abc\xc3\xa9", out, sizeof(out), 0), 3);
	cr_assert_str_eq(out, "abc");
	cr_assert_eq(text__safe(NULL, out, sizeof(out), 0), 0);
	cr_assert_str_eq(out, "");
	cr_assert_eq(text__safe("abc", out, 0, 0), 0);
}

/* grow__room makes room for any element, not only the next one. */
Test(base_grow, room_for_a_far_element)
{
	uint32_t *v = NULL;
	size_t cap = 0;

	cr_assert_eq(grow__room((void **)&v, &cap, 1000, sizeof(*v)), 0);
	cr_assert_gt(cap, 1000);
	v[1000] = 7;
	cr_assert_eq(grow__room((void **)&v, &cap, 5000, sizeof(*v)), 0);
	cr_assert_gt(cap, 5000);
	cr_assert_eq(v[1000], 7);
	free(v);
}
