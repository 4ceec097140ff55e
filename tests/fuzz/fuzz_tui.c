/*
 * libFuzzer target: key sequences through the TUI over a fixed experiment
 * ($DSPROF_FUZZ_EXPERIMENT, see fuzz.h), in the scripted mode the unit
 * tests drive it with: every tab, menu, prompt, filter, sort, search and
 * resize a user can reach, alone or comparing two experiments.  Whatever
 * the keys, the interface must neither crash nor hang.  Memory objects
 * the keys save go to the scratch directory's file (fuzz.h), emptied
 * before each input.
 *
 * Input: a first byte of settings (bit 0: compare the experiment with
 * $DSPROF_FUZZ_EXPERIMENT2, or itself; bit 1: ASCII; bit 2: no colour;
 * bits 3-4: the screen's size), then one key a byte: printable ASCII
 * stands for itself, \n and \r for <Enter>, \t <Tab>, ESC <Esc>, \b and
 * DEL <BS>, other control bytes <C-a>..<C-z> and the like, and bytes from
 * 0x80 name the other keys (arrows, pages, F1-F12, resizes, non-ASCII
 * characters).  So every input is a valid script, and the seeds
 * (tests/fuzz/run.sh) read almost as typed.
 */
#include "tests/fuzz/fuzz.h"
#include "tui/tui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Keys enough to reach deep states, few enough to stay fast. */
#define MAX_KEYS 200

static const char *const named[] = {
	"<Up>", "<Down>", "<Left>", "<Right>", "<PgUp>", "<PgDn>", "<Home>", "<End>",
	"<Enter>", "<Esc>", "<Tab>", "<S-Tab>", "<BS>", "<Del>", "<Space>",
	"<F1>", "<F2>", "<F3>", "<F4>", "<F5>", "<F6>", "<F7>", "<F8>", "<F9>", "<F10>", "<F11>", "<F12>",
	"<Resize:80x24>", "<Resize:120x40>", "<Resize:200x50>", "<Resize:1x1>", "<Resize:79x23>",
	"<Resize:1000x30>", "<Resize:30x1000>", "\xc3\xa9", "\xe2\x86\x92", "\xe6\xbc\xa2",
	"\xf0\x9f\x98\x80",
};

static void put_key(ds_buf *b, uint8_t c)
{
	if (c == '<')
		ds_buf_puts(b, "<lt>");
	else if (c >= 0x20 && c < 0x7f)
		ds_buf_putc(b, (char)c);
	else if (c == '\n' || c == '\r')
		ds_buf_puts(b, "<Enter>");
	else if (c == '\t')
		ds_buf_puts(b, "<Tab>");
	else if (c == 0x1b)
		ds_buf_puts(b, "<Esc>");
	else if (c == '\b' || c == 0x7f)
		ds_buf_puts(b, "<BS>");
	else if (c >= 1 && c <= 26)
		ds_buf_printf(b, "<C-%c>", 'a' + c - 1);
	else if (c < 0x20)
		ds_buf_puts(b, c == 0 ? "<Del>" : c == 0x1c ? "<S-Tab>" : c == 0x1d ? "<Home>" : "<End>");
	else
		ds_buf_puts(b, named[(c - 0x80) % (sizeof named / sizeof named[0])]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int sizes[][2] = {{80, 24}, {100, 30}, {160, 50}, {80, 60}};
	static char debug_root[4096];
	const char *other = getenv("DSPROF_FUZZ_EXPERIMENT2");
	tui_opts o = {0};
	ds_buf keys = {0};
	ds_err err = {0};

	if (size < 1)
		return 0;
	fz_clear(); /* a memory object the keys saved ('w') is gone */
	snprintf(debug_root, sizeof debug_root, "%s/no-debug", fz_dir());
	for (size_t i = 1; i < size && i <= MAX_KEYS; i++)
		put_key(&keys, data[i]);
	o.input = fz_experiment();
	/* objects' debug files are not looked for: libc's alone would take
	 * seconds of every input under the sanitizers */
	o.session.debug_root = debug_root;
	o.input2 = data[0] & 1 ? other && *other ? other : o.input : NULL;
	o.ascii = data[0] & 2;
	o.color = !(data[0] & 4);
	o.keys = ds_buf_str(&keys);
	o.dump = "/dev/null";
	o.width = sizes[(data[0] >> 3) & 3][0];
	o.height = sizes[(data[0] >> 3) & 3][1];
	tui_run(&o, &err);
	ds_buf_free(&keys);
	return 0;
}
