/*
** The help screen, generated from the key table: every binding and what it
** does, in as many columns as the width allows.
*/
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "tui/colors.h"
#include "tui/keys.h"
#include "tui/ui.h"

#define KEY_COL		20	/* width of the key column */
#define HELP_COL	80	/* width of one column of help */

/* Draw the help over the icicle area. */
void help__draw(struct ui *u)
{
	int y0 = u->body_y, rows = u->body_h - 2, ncol, per;

	if (rows < 1)
		rows = 1;
	/* One column when it fits, else two if the width allows. */
	ncol = (int)keys__count > rows && COLS >= HELP_COL + 40 ? 2 : 1;
	per = ((int)keys__count + ncol - 1) / ncol;
	ui__put(u, y0, 1, COLS - 1, CR_HELP_KEY,
		"luatop keys (any key closes this; see also man luatop)");
	for (size_t i = 0; i < keys__count; i++) {
		const struct keydef *k = &keys__table[i];
		int col = (int)i / per, row = (int)i % per, w = COLS / ncol, x = col * w + 1;

		if (row >= rows) {
			if (col == ncol - 1 && row == rows)
				ui__put(u, y0 + 1 + rows, x, w, CR_MORE,
					"... (a taller terminal shows all)");
			continue;
		}
		ui__put(u, y0 + 2 + row, x, KEY_COL, CR_HELP_KEY, k->name);
		ui__put(u, y0 + 2 + row, x + KEY_COL, w - KEY_COL - 1, CR_HELP, k->help);
	}
}
