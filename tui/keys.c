/* Keys: their names, and scripts of them for scripted mode. */
#include "tui/tui_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct {
	const char *name;
	int code;
} names[] = {
	{"Enter", K_ENTER}, {"Esc", K_ESC},     {"Tab", K_TAB},       {"S-Tab", K_BTAB},
	{"BS", K_BS},       {"Del", K_DEL},     {"Space", ' '},       {"Up", K_UP},
	{"Down", K_DOWN},   {"Left", K_LEFT},   {"Right", K_RIGHT},   {"PgUp", K_PGUP},
	{"PgDn", K_PGDN},   {"Home", K_HOME},   {"End", K_END},       {"lt", '<'},
	{"Backspace", K_BS}, {"Return", K_ENTER},
};

void key_label(int code, char *buf, size_t n)
{
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].code == code) {
			snprintf(buf, n, "<%s>", names[i].name);
			return;
		}
	if (code >= K_F1 && code < K_F1 + 12)
		snprintf(buf, n, "<F%d>", code - K_F1 + 1);
	else if (code == K_RESIZE)
		snprintf(buf, n, "<Resize>");
	else if (code > 0 && code < 0x20)
		snprintf(buf, n, "<C-%c>", 'a' + code - 1);
	else if (code >= 0x20 && code < 0x7f)
		snprintf(buf, n, "%c", code);
	else
		snprintf(buf, n, "<U+%04X>", (unsigned)code);
}

/* The name inside <...> (len bytes at p). */
static int named_key(const char *p, size_t len, tui_key *k)
{
	unsigned w, h;
	char tail;
	char *name = ds_xstrndup(p, len);
	int rc = -1;

	memset(k, 0, sizeof *k);
	for (size_t i = 0; i < sizeof names / sizeof names[0] && rc; i++)
		if (strcasecmp(names[i].name, name) == 0) {
			k->code = names[i].code;
			rc = 0;
		}
	if (rc && len == 3 && (name[0] == 'C' || name[0] == 'c') && name[1] == '-' &&
	    ((name[2] >= 'a' && name[2] <= 'z') || (name[2] >= 'A' && name[2] <= 'Z'))) {
		k->code = K_CTRL(name[2]);
		rc = 0;
	}
	if (rc && (name[0] == 'F' || name[0] == 'f')) {
		char *end;
		long f = strtol(name + 1, &end, 10);
		if (end != name + 1 && !*end && f >= 1 && f <= 12) {
			k->code = K_F1 + (int)f - 1;
			rc = 0;
		}
	}
	if (rc && sscanf(name, "Resize:%ux%u%c", &w, &h, &tail) == 2 && w >= 1 && w <= 1000 &&
	    h >= 1 && h <= 1000) {
		k->code = K_RESIZE;
		k->w = (int)w;
		k->h = (int)h;
		rc = 0;
	}
	free(name);
	return rc;
}

int keys_parse(const char *script, tui_keys *out, ds_err *err)
{
	const char *p = script;
	while (*p) {
		tui_key k = {0, 0, 0};
		size_t n;
		if (*p == '<') {
			const char *end = strchr(p + 1, '>');
			if (!end || end == p + 1 || named_key(p + 1, (size_t)(end - p - 1), &k)) {
				int len = end ? (int)(end - p + 1) : (int)strlen(p);
				return ds_err_set(err, DS_EINPUT,
						  "bad key '%.*s' at column %d of --keys (characters, or <Enter> <Esc> "
						  "<Tab> <S-Tab> <BS> <Del> <Space> <Up> <Down> <Left> <Right> <PgUp> "
						  "<PgDn> <Home> <End> <F1>..<F12> <C-a>..<C-z> <lt> <Resize:WxH>)",
						  len > 40 ? 40 : len, p, (int)(p - script) + 1);
			}
			ds_vec_push(out, k);
			p = end + 1;
			continue;
		}
		n = ds_utf8_len(p);
		if (!n || (unsigned char)*p < 0x20 || *p == 0x7f)
			return ds_err_set(err, DS_EINPUT,
					  "bad byte 0x%02x at column %d of --keys (name control keys as <Enter>, "
					  "<C-x>, ...)", (unsigned char)*p, (int)(p - script) + 1);
		if (n == 1) {
			k.code = (unsigned char)*p;
		} else {
			const unsigned char *u = (const unsigned char *)p;
			k.code = n == 2 ? (u[0] & 0x1f) << 6 | (u[1] & 0x3f)
			       : n == 3 ? (u[0] & 0x0f) << 12 | (u[1] & 0x3f) << 6 | (u[2] & 0x3f)
				        : (u[0] & 0x07) << 18 | (u[1] & 0x3f) << 12 | (u[2] & 0x3f) << 6 | (u[3] & 0x3f);
		}
		ds_vec_push(out, k);
		p += n;
	}
	return 0;
}
