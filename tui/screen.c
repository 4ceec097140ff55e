/*
 * The screen: a grid of cells the interface draws into.  The terminal
 * shows it, scripted mode dumps it as text.
 *
 * Cells hold wide characters: text is UTF-8 decoded here, a character
 * two columns wide (CJK) takes two cells (the second holds 0), a
 * combining mark rides on the cell before it.  In ASCII mode nothing but
 * ASCII reaches a cell: untrusted text is sanitized with every non-ASCII
 * byte escaped, and the interface's own symbols have ASCII forms.
 */
#include "tui/tui_int.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const tui_glyphs utf8_glyphs = {
	"\u2502", "\u2500", "\u25bc", "\u25b2", " \u203a ", "\u25b8", "\u25be", "\u25b6", "\u2026",
	{" ", "\u258f", "\u258e", "\u258d", "\u258c", "\u258b", "\u258a", "\u2589", "\u2588"},
};
static const tui_glyphs ascii_glyphs = {
	"|", "-", "v", "^", " > ", "+", "-", ">", "~",
	{" ", " ", " ", " ", "#", "#", "#", "#", "#"},
};

void grid_init(tui_screen *s, int w, int h, bool ascii)
{
	memset(s, 0, sizeof *s);
	s->ascii = ascii;
	s->g = ascii ? &ascii_glyphs : &utf8_glyphs;
	grid_resize(s, w, h);
}

void grid_fini(tui_screen *s)
{
	free(s->c);
	s->c = NULL;
}

void grid_resize(tui_screen *s, int w, int h)
{
	free(s->c);
	s->w = w > 1 ? w : 1;
	s->h = h > 1 ? h : 1;
	s->c = ds_xcalloc((size_t)s->w * (size_t)s->h, sizeof *s->c);
	grid_clear(s);
}

void grid_clear(tui_screen *s)
{
	for (int i = 0; i < s->w * s->h; i++)
		s->c[i] = (tui_cell){L' ', 0, ST_NORMAL};
}

void grid_fill(tui_screen *s, int y, int x, int n, int style)
{
	if (y < 0 || y >= s->h)
		return;
	for (int i = x < 0 ? 0 : x; i < x + n && i < s->w; i++)
		s->c[y * s->w + i] = (tui_cell){L' ', 0, (uint8_t)style};
}

void grid_restyle(tui_screen *s, int y, int x, int n, int style)
{
	if (y < 0 || y >= s->h)
		return;
	for (int i = x < 0 ? 0 : x; i < x + n && i < s->w; i++)
		s->c[y * s->w + i].style = (uint8_t)style;
}

/* The code point of the valid UTF-8 sequence at p (of length n). */
static wchar_t decode(const unsigned char *p, size_t n)
{
	switch (n) {
	case 1: return p[0];
	case 2: return (wchar_t)((p[0] & 0x1f) << 6 | (p[1] & 0x3f));
	case 3: return (wchar_t)((p[0] & 0x0f) << 12 | (p[1] & 0x3f) << 6 | (p[2] & 0x3f));
	default: return (wchar_t)((p[0] & 0x07) << 18 | (p[1] & 0x3f) << 12 | (p[2] & 0x3f) << 6 | (p[3] & 0x3f));
	}
}

/* Columns of a code point: wcwidth's answer, 1 for what it does not know. */
static int cwidth(wchar_t c)
{
	int w = c < 0x80 ? 1 : wcwidth(c);
	return w < 0 ? 1 : w > 2 ? 2 : w;
}

/* Columns of valid UTF-8 text (sanitized or our own). */
static int text_cols(const char *t)
{
	int w = 0;
	for (const unsigned char *p = (const unsigned char *)t; *p;) {
		size_t n = ds_utf8_len((const char *)p);
		if (!n)
			n = 1;
		w += cwidth(decode(p, n));
		p += n;
	}
	return w;
}

/* Put valid UTF-8 text; returns the columns used.  With `cut`, text wider
 * than maxw ends in an ellipsis. */
static int put(tui_screen *s, int y, int x, int maxw, int style, const char *t, bool cut)
{
	int col = 0, ew;
	const char *ell = s->g->ellipsis;

	if (y < 0 || y >= s->h || x >= s->w || maxw <= 0)
		return 0;
	if (x + maxw > s->w)
		maxw = s->w - x;
	ew = text_cols(ell);
	if (cut && text_cols(t) <= maxw)
		cut = false;
	for (const unsigned char *p = (const unsigned char *)t; *p;) {
		size_t n = ds_utf8_len((const char *)p);
		wchar_t c;
		int w;
		if (!n)
			n = 1;
		c = decode(p, n);
		w = cwidth(c);
		p += n;
		if (w == 0) {
			/* a combining mark: on the character before it */
			if (col > 0 && x + col - 1 >= 0) {
				tui_cell *prev = &s->c[y * s->w + x + col - 1];
				if (prev->ch == 0 && x + col - 2 >= 0)
					prev--;
				if (!prev->comb)
					prev->comb = c;
			}
			continue;
		}
		if (col + w > maxw - (cut ? ew : 0))
			break;
		if (x + col >= 0) {
			s->c[y * s->w + x + col] = (tui_cell){c, 0, (uint8_t)style};
			if (w == 2)
				s->c[y * s->w + x + col + 1] = (tui_cell){0, 0, (uint8_t)style};
		}
		col += w;
	}
	if (cut) {
		/* pad a cut wide character's column, then the ellipsis */
		while (col < maxw - ew) {
			s->c[y * s->w + x + col] = (tui_cell){L' ', 0, (uint8_t)style};
			col++;
		}
		col += put(s, y, x + col, ew, style, ell, false);
	}
	return col;
}

int grid_raw(tui_screen *s, int y, int x, int maxw, int style, const char *text)
{
	return put(s, y, x, maxw, style, text, true);
}

int grid_rawf(tui_screen *s, int y, int x, int maxw, int style, const char *fmt, ...)
{
	ds_buf b = {0};
	va_list ap;
	int n;
	va_start(ap, fmt);
	ds_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	n = put(s, y, x, maxw, style, ds_buf_str(&b), true);
	ds_buf_free(&b);
	return n;
}

int grid_text(tui_screen *s, int y, int x, int maxw, int style, const char *text)
{
	ds_buf b = {0};
	int n;
	ds_sanitize(&b, text ? text : "", s->ascii);
	n = put(s, y, x, maxw, style, ds_buf_str(&b), true);
	ds_buf_free(&b);
	return n;
}

int grid_width(const tui_screen *s, const char *text)
{
	ds_buf b = {0};
	int n;
	ds_sanitize(&b, text ? text : "", s->ascii);
	n = text_cols(ds_buf_str(&b));
	ds_buf_free(&b);
	return n;
}

int grid_text_right(tui_screen *s, int y, int x, int maxw, int style, const char *text)
{
	int w = grid_width(s, text);
	if (w >= maxw)
		return grid_text(s, y, x, maxw, style, text);
	return maxw - w + grid_text(s, y, x + maxw - w, w, style, text);
}

static void put_utf8(ds_buf *b, wchar_t c)
{
	char out[4];
	uint32_t u = (uint32_t)c;
	if (u < 0x80) {
		ds_buf_putc(b, (char)u);
		return;
	}
	if (u < 0x800) {
		out[0] = (char)(0xc0 | u >> 6);
		out[1] = (char)(0x80 | (u & 0x3f));
		ds_buf_append(b, out, 2);
	} else if (u < 0x10000) {
		out[0] = (char)(0xe0 | u >> 12);
		out[1] = (char)(0x80 | ((u >> 6) & 0x3f));
		out[2] = (char)(0x80 | (u & 0x3f));
		ds_buf_append(b, out, 3);
	} else {
		out[0] = (char)(0xf0 | u >> 18);
		out[1] = (char)(0x80 | ((u >> 12) & 0x3f));
		out[2] = (char)(0x80 | ((u >> 6) & 0x3f));
		out[3] = (char)(0x80 | (u & 0x3f));
		ds_buf_append(b, out, 4);
	}
}

void grid_dump(const tui_screen *s, ds_buf *out)
{
	for (int y = 0; y < s->h; y++) {
		size_t keep = out->len;
		for (int x = 0; x < s->w; x++) {
			const tui_cell *c = &s->c[y * s->w + x];
			if (!c->ch)
				continue;
			put_utf8(out, c->ch);
			if (c->comb)
				put_utf8(out, c->comb);
			if (c->ch != L' ')
				keep = out->len;
		}
		out->len = keep;
		ds_buf_putc(out, '\n');
	}
}
