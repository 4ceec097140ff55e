/*
 * The terminal, through ncurses (wide-character build): colours or
 * monochrome attributes for the interface's styles, the screen grid drawn
 * cell by cell, keys read with a timeout so that views finished by the
 * worker show without a key press.
 */
#include "tui/tui_int.h"

#include <curses.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tui_term {
	SCREEN *scr;
	bool color;
	attr_t attr[ST_NSTYLES];
	short pair[ST_NSTYLES];
};

/* htop's scheme: black on cyan for bars and the selection, black on green
 * for column headers. */
static const struct {
	short fg, bg;
	attr_t extra;
	attr_t mono;
} styles[ST_NSTYLES] = {
	[ST_NORMAL] = {-1, -1, 0, 0},
	[ST_TABBAR] = {COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE},
	[ST_TAB_ACTIVE] = {COLOR_BLACK, COLOR_GREEN, A_BOLD, A_BOLD},
	[ST_CRUMB] = {COLOR_CYAN, -1, A_BOLD, A_BOLD},
	[ST_HEADER] = {COLOR_BLACK, COLOR_GREEN, 0, A_REVERSE},
	[ST_SORTED] = {COLOR_BLACK, COLOR_CYAN, A_BOLD, A_REVERSE | A_BOLD | A_UNDERLINE},
	[ST_SELECTED] = {COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE},
	[ST_HOT] = {COLOR_RED, -1, A_BOLD, A_BOLD},
	[ST_DIM] = {COLOR_BLUE, -1, A_BOLD, A_DIM},
	[ST_WARN] = {COLOR_YELLOW, -1, A_BOLD, A_BOLD},
	[ST_ERROR] = {COLOR_WHITE, COLOR_RED, A_BOLD, A_REVERSE | A_BOLD},
	[ST_STATUS] = {-1, -1, 0, 0},
	[ST_KEY] = {COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE},
	[ST_MATCH] = {COLOR_BLACK, COLOR_YELLOW, 0, A_UNDERLINE | A_BOLD},
	[ST_POPUP] = {COLOR_BLACK, COLOR_WHITE, 0, A_NORMAL},
	[ST_POPUP_SEL] = {COLOR_BLACK, COLOR_CYAN, A_BOLD, A_REVERSE},
	[ST_BAR] = {COLOR_GREEN, -1, 0, 0},
	[ST_PAL + 0] = {COLOR_BLACK, COLOR_GREEN, 0, 0},
	[ST_PAL + 1] = {COLOR_BLACK, COLOR_YELLOW, 0, 0},
	[ST_PAL + 2] = {COLOR_WHITE, COLOR_BLUE, 0, 0},
	[ST_PAL + 3] = {COLOR_WHITE, COLOR_MAGENTA, 0, 0},
	[ST_PAL + 4] = {COLOR_BLACK, COLOR_CYAN, 0, 0},
	[ST_PAL + 5] = {COLOR_WHITE, COLOR_RED, 0, 0},
	[ST_PAL + 6] = {COLOR_BLACK, COLOR_WHITE, 0, 0},
	[ST_PAL + 7] = {COLOR_WHITE, COLOR_BLACK, A_BOLD, 0},
};

int term_open(tui_term **out, bool ascii, bool color, ds_err *err)
{
	const char *term = getenv("TERM");
	tui_term *t;

	(void)ascii;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return ds_err_set(err, DS_EINPUT,
				  "dsprof tui needs a terminal (for scripted use give --keys and --dump)");
	if (!term || !*term)
		return ds_err_set(err, DS_EENV, "cannot start the terminal interface: TERM is not set "
				  "(set it, e.g. TERM=xterm-256color)");
	t = ds_xcalloc(1, sizeof *t);
	t->scr = newterm(NULL, stdout, stdin);
	if (!t->scr) {
		free(t);
		return ds_err_set(err, DS_EENV,
				  "cannot start the terminal interface: the terminal type '%s' is unknown "
				  "(set TERM to one terminfo knows, e.g. xterm-256color)", term);
	}
	set_term(t->scr);
	raw(); /* ^C and ^Z come as keys: the terminal is always put back */
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	t->color = color && has_colors() && start_color() == OK;
	if (t->color) {
		use_default_colors();
		for (int i = 0; i < ST_NSTYLES; i++) {
			t->pair[i] = (short)(i + 1);
			init_pair(t->pair[i], styles[i].fg, styles[i].bg);
			t->attr[i] = styles[i].extra;
		}
	} else {
		for (int i = 0; i < ST_NSTYLES; i++)
			t->attr[i] = styles[i].mono;
	}
	*out = t;
	return 0;
}

void term_close(tui_term *t)
{
	if (!t)
		return;
	endwin();
	delscreen(t->scr);
	free(t);
}

void term_size(tui_term *t, int *w, int *h)
{
	(void)t;
	getmaxyx(stdscr, *h, *w);
}

void term_show(tui_term *t, const tui_screen *s)
{
	int h, w;
	getmaxyx(stdscr, h, w);
	for (int y = 0; y < s->h && y < h; y++)
		for (int x = 0; x < s->w && x < w; x++) {
			const tui_cell *c = &s->c[y * s->w + x];
			wchar_t wc[3] = {c->ch, c->comb, 0};
			cchar_t cc;
			if (!c->ch)
				continue; /* the right half of a wide character */
			setcchar(&cc, wc, t->attr[c->style], t->color ? t->pair[c->style] : 0, NULL);
			mvadd_wch(y, x, &cc);
		}
	refresh();
}

static tui_key map_key(int rc, wint_t ch)
{
	tui_key k = {K_NONE, 0, 0};
	if (rc == ERR)
		return k;
	if (rc == KEY_CODE_YES) {
		switch (ch) {
		case KEY_UP: k.code = K_UP; break;
		case KEY_DOWN: k.code = K_DOWN; break;
		case KEY_LEFT: k.code = K_LEFT; break;
		case KEY_RIGHT: k.code = K_RIGHT; break;
		case KEY_PPAGE: k.code = K_PGUP; break;
		case KEY_NPAGE: k.code = K_PGDN; break;
		case KEY_HOME: k.code = K_HOME; break;
		case KEY_END: k.code = K_END; break;
		case KEY_ENTER: k.code = K_ENTER; break;
		case KEY_BACKSPACE: k.code = K_BS; break;
		case KEY_DC: k.code = K_DEL; break;
		case KEY_BTAB: k.code = K_BTAB; break;
		case KEY_RESIZE: k.code = K_RESIZE; break;
		default:
			if (ch >= KEY_F(1) && ch <= KEY_F(12))
				k.code = K_F1 + (int)(ch - KEY_F(1));
			break;
		}
		return k;
	}
	switch (ch) {
	case '\r': case '\n': k.code = K_ENTER; break;
	case 27: k.code = K_ESC; break;
	case '\t': k.code = K_TAB; break;
	case 127: case 8: k.code = K_BS; break;
	default: k.code = (int)ch; break;
	}
	return k;
}

tui_key term_key(tui_term *t, int timeout_ms, int wake_fd)
{
	struct pollfd pfd[2] = {{STDIN_FILENO, POLLIN, 0}, {wake_fd, POLLIN, 0}};
	wint_t ch;
	int rc;

	(void)t;
	/* ncurses may hold keys it has read already: ask it first */
	timeout(0);
	rc = get_wch(&ch);
	if (rc != ERR)
		return map_key(rc, ch);
	if (poll(pfd, wake_fd >= 0 ? 2 : 1, timeout_ms) < 0 && errno != EINTR)
		return (tui_key){K_NONE, 0, 0};
	/* a resize interrupts poll(): get_wch then says KEY_RESIZE */
	rc = get_wch(&ch);
	return map_key(rc, ch);
}
