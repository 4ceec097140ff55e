/*
 * The terminal interface through its scripted mode: keys replayed without
 * a terminal, every screen written as text, assertions on the screens.
 * Every tab is visited on a recording of the bundled example program
 * (tests/run.sh gives DSPROF and PROGS).
 */
#include "unit.h"

#include "tui/tui.h"

#include <inttypes.h>
#include <unistd.h>

static char *exp_dir;

/* The screens a script produced: v[i] is the text after key i (0: the
 * start), each line ending in '\n'. */
typedef struct screens {
	char *text;           /* the whole dump */
	DS_VEC(char *) v;
} screens;

static void screens_free(screens *s)
{
	for (size_t i = 0; i < s->v.n; i++)
		free(s->v.v[i]);
	ds_vec_free(&s->v);
	free(s->text);
	memset(s, 0, sizeof *s);
}

/* Run keys on the experiment (comparing it with `after` when not NULL);
 * false (with err) when tui_run fails. */
static bool run_keys_vs(const char *input, const char *after, const char *keys, int w, int h, bool ascii,
			screens *out, ds_err *err)
{
	char *dump = unit_tpath("screens.txt");
	const char *p, *body = NULL;
	tui_opts o;
	bool ok;

	memset(out, 0, sizeof *out);
	memset(&o, 0, sizeof o);
	o.input = input;
	o.input2 = after;
	o.keys = keys;
	o.dump = dump;
	o.width = w;
	o.height = h;
	o.ascii = ascii;
	o.color = true;
	ok = tui_run(&o, err) == 0;
	if (ok)
		out->text = ds_read_file(dump, NULL);
	free(dump);
	if (!ok || !out->text)
		return false;
	/* "--- screen N: KEY (WxH)" heads each screen */
	for (p = out->text;; p = strchr(p, '\n') + 1) {
		bool head = !*p || !strncmp(p, "--- screen ", 11);
		if (head && body)
			ds_vec_push(&out->v, ds_xstrndup(body, (size_t)(p - body)));
		if (!*p || !strchr(p, '\n'))
			break;
		if (head)
			body = strchr(p, '\n') + 1;
	}
	return true;
}

static bool run_keys(const char *input, const char *keys, int w, int h, bool ascii, screens *out, ds_err *err)
{
	return run_keys_vs(input, NULL, keys, w, h, ascii, out, err);
}

/* How many keys a script is: characters, and <...> names one each. */
static size_t count_keys(const char *script)
{
	size_t n = 0;
	for (const char *p = script; *p; p++, n++)
		if (*p == '<' && strchr(p, '>'))
			p = strchr(p, '>');
	return n;
}

static const char *screen(const screens *s, size_t i)
{
	return i < s->v.n ? s->v.v[i] : "";
}

/* Line y (0-based) of a screen, in buf. */
static const char *line_of(const char *scr, int y, char *buf, size_t n)
{
	const char *p = scr;
	for (int i = 0; i < y && p; i++) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (!p) {
		buf[0] = 0;
		return buf;
	}
	snprintf(buf, n, "%.*s", (int)strcspn(p, "\n"), p);
	return buf;
}

/* The lines of a screen after the one holding heading, up to an empty one,
 * each without its leading and trailing blanks, joined by single spaces:
 * wrapped text whole again. */
static char *joined_after(const char *scr, const char *heading)
{
	ds_buf b = {0};
	const char *p = strstr(scr, heading);

	for (p = p ? strchr(p, '\n') : NULL; p && *++p;) {
		size_t n = strcspn(p, "\n");
		const char *q = p, *e = p + n;
		while (q < e && *q == ' ')
			q++;
		while (e > q && e[-1] == ' ')
			e--;
		if (q == e)
			break;
		ds_buf_printf(&b, "%s%.*s", b.len ? " " : "", (int)(e - q), q);
		p += n;
		if (!*p)
			break;
	}
	return b.p ? ds_buf_steal(&b) : ds_xstrdup("");
}

/* The line the cursor is on (it starts with the mark). */
static const char *cursor_line(const char *scr, char *buf, size_t n)
{
	const char *p = strstr(scr, "\n\u25b6");
	if (!p)
		p = strstr(scr, "\n>");
	if (!p) {
		buf[0] = 0;
		return buf;
	}
	p++;
	snprintf(buf, n, "%.*s", (int)strcspn(p, "\n"), p);
	return buf;
}

static int count_lines(const char *scr)
{
	int n = 0;
	for (const char *p = scr; *p; p++)
		n += *p == '\n';
	return n;
}

/* Columns of the widest line (UTF-8 code points; the tests use no wide ones here). */
static size_t widest(const char *scr)
{
	size_t best = 0, w = 0;
	for (const unsigned char *p = (const unsigned char *)scr; *p; p++) {
		if (*p == '\n') {
			if (w > best)
				best = w;
			w = 0;
		} else if ((*p & 0xc0) != 0x80) {
			w++;
		}
	}
	return best;
}

#define CHECK_HAS(scr, what) CHECK(strstr((scr), (what)) != NULL)
#define CHECK_HASNT(scr, what) CHECK(strstr((scr), (what)) == NULL)

TEST(bad_keys)
{
	screens s;
	ds_err err = {0};
	CHECK(!run_keys(exp_dir, "2<Dwn>", 80, 24, false, &s, &err));
	CHECK(strstr(err.msg, "bad key '<Dwn>' at column 2") != NULL);
	CHECK(strstr(err.msg, "<Resize:WxH>") != NULL);
	memset(&err, 0, sizeof err);
	CHECK(!run_keys(exp_dir, "<Enter", 80, 24, false, &s, &err));
	CHECK(strstr(err.msg, "at column 1") != NULL);
	memset(&err, 0, sizeof err);
	CHECK(!run_keys(exp_dir, "q", 60, 20, false, &s, &err));
	CHECK(strstr(err.msg, "80x24") != NULL);
	memset(&err, 0, sizeof err);
	CHECK(!run_keys("/nonexistent/exp", "q", 80, 24, false, &s, &err));
	CHECK(strstr(err.msg, "/nonexistent/exp") != NULL);
	screens_free(&s);
}

TEST(frame)
{
	screens s;
	ds_err err = {0};
	char buf[512];
	const char *scr;
	if (!run_keys(exp_dir, "<Down>", 80, 24, false, &s, &err)) {
		CHECK_STR(err.msg, "");
		return;
	}
	CHECK_EQ_U64(s.v.n, 2);
	scr = screen(&s, 0);
	CHECK_EQ_U64(count_lines(scr), 24);
	CHECK(widest(scr) <= 80);
	/* tab bar: every tab with its key, briefly on 80 columns (the line
	 * below names the active one) */
	CHECK_STR(line_of(scr, 0, buf, sizeof buf), " 1 Fun 2 Cal 3 Src 4 Asm 5 Dat 6 Lay 7 Mem 8 Hot "
						    "9 Shr h Hep t Tre 0 Tim i Sum");
	CHECK(strncmp(line_of(scr, 1, buf, sizeof buf), "Functions ", 10) == 0);
	/* the column headers, the sort indicator on samples */
	CHECK_HAS(line_of(scr, 2, buf, sizeof buf), "cpu-clock");
	CHECK_HAS(line_of(scr, 3, buf, sizeof buf), "samples\u25bc");
	CHECK_HAS(line_of(scr, 3, buf, sizeof buf), "incl%");
	/* the hottest function first, under the cursor, in the status line too */
	CHECK_HAS(cursor_line(scr, buf, sizeof buf), "walk_cells");
	CHECK(strncmp(line_of(scr, 22, buf, sizeof buf), "walk_cells", 10) == 0);
	CHECK(strncmp(line_of(scr, 23, buf, sizeof buf), "F1 Help", 7) == 0);
	/* Down moves the cursor */
	CHECK_HASNT(cursor_line(screen(&s, 1), buf, sizeof buf), "walk_cells");
	screens_free(&s);
}

/* Every tab by its key: its name in the breadcrumb and its own content. */
TEST(every_tab)
{
	static const struct {
		const char *key, *crumb, *content;
	} tabs[] = {
		{"1", "Functions", "walk_cells"},
		{"2", "Callers-Callees: walk_cells", "caller"},
		{"3", "Source: walk_cells", "c->energy"},
		{"4", "Disassembly: walk_cells", "struct cell."},
		{"5", "DataObjects", "struct cell"},
		{"6", "DataLayout: struct cell", "count"},
		{"7", "MemObjects", "pick a memory object"},
		{"8", "HotLines", "cache line"},
		{"9", "Sharing", "No cache line was shared"},
		{"h", "Heap", "<no heap data>"},
		{"0", "Timeline", "walk_cells"},
		{"i", "Summary", "unique_instructions"},
	};
	ds_buf keys = {0};
	screens s;
	ds_err err = {0};
	char buf[512];

	for (size_t i = 0; i < sizeof tabs / sizeof tabs[0]; i++)
		ds_buf_puts(&keys, tabs[i].key);
	ds_buf_puts(&keys, "?");
	if (!run_keys(exp_dir, ds_buf_str(&keys), 100, 30, false, &s, &err)) {
		CHECK_STR(err.msg, "");
		ds_buf_free(&keys);
		return;
	}
	for (size_t i = 0; i < sizeof tabs / sizeof tabs[0]; i++) {
		const char *scr = screen(&s, i + 1);
		unit_current = tabs[i].crumb;
		CHECK(strncmp(line_of(scr, 1, buf, sizeof buf), tabs[i].crumb, strlen(tabs[i].crumb)) == 0);
		CHECK_HAS(scr, tabs[i].content);
		CHECK_EQ_U64(count_lines(scr), 30);
		CHECK(widest(scr) <= 100);
	}
	unit_current = "every_tab";
	/* the callers tab opens on the function, its caller main above it */
	CHECK_HAS(cursor_line(screen(&s, 2), buf, sizeof buf), "function");
	CHECK_HAS(screen(&s, 2), "main");
	/* the source opens at the function's hottest line, highlighted by the
	 * cursor: the one whose load misses (its samples' trigger), not the
	 * one after it that the timer names */
	CHECK_HAS(cursor_line(screen(&s, 3), buf, sizeof buf), "c->count++");
	/* disassembly: the verdict beside the hottest instruction */
	CHECK_HAS(cursor_line(screen(&s, 4), buf, sizeof buf), " ok");
	/* the layout's bars and the instances' alignment */
	CHECK_HAS(screen(&s, 6), "\u2588");
	CHECK_HAS(screen(&s, 6), "instances start at byte");
	/* the timeline's legend names the functions by letter */
	CHECK_HAS(screen(&s, 11), "A walk_cells");
	/* the summary's resolution statistics */
	CHECK_HAS(screen(&s, 12), "Resolution of samples to data");
	/* help lists the keys */
	CHECK_HAS(screen(&s, 13), "Keys of dsprof tui");
	CHECK_HAS(screen(&s, 13), "drill down");
	screens_free(&s);
	ds_buf_free(&keys);
}

TEST(drill_down_and_back)
{
	screens s;
	ds_err err = {0};
	char buf[512];
	/* function -> source -> instructions of the line -> back twice */
	if (!run_keys(exp_dir, "<Enter><Enter><BS><BS>5<Right><Down><Enter><BS><Up><Enter><Down><Down><Down><Enter>",
		      100, 30, false, &s, &err)) {
		CHECK_STR(err.msg, "");
		return;
	}
	CHECK(strncmp(line_of(screen(&s, 1), 1, buf, sizeof buf), "Functions \u203a Source: walk_cells", 30) == 0);
	CHECK(strncmp(line_of(screen(&s, 2), 1, buf, sizeof buf),
		      "Functions \u203a Source: walk_cells \u203a Disassembly: walk_cells", 50) == 0);
	/* the line's instructions: the cursor on one of line 56 */
	CHECK_HAS(cursor_line(screen(&s, 2), buf, sizeof buf), " 56");
	CHECK(strncmp(line_of(screen(&s, 3), 1, buf, sizeof buf), "Functions \u203a Source: walk_cells ", 32) == 0);
	CHECK(strncmp(line_of(screen(&s, 4), 1, buf, sizeof buf), "Functions ", 10) == 0);
	/* a type's fields unfold; a field drills to the instructions touching it */
	CHECK_HAS(screen(&s, 6), "struct cell.count");
	CHECK_HAS(line_of(screen(&s, 8), 1, buf, sizeof buf), "DataObjects \u203a Disassembly: struct cell.");
	CHECK_HAS(screen(&s, 8), "walk_cells+0x");
	/* a type drills to its layout; a member to its instructions */
	CHECK_HAS(line_of(screen(&s, 11), 1, buf, sizeof buf), "DataObjects \u203a DataLayout: struct cell");
	CHECK_HAS(line_of(screen(&s, 15), 1, buf, sizeof buf), "DataLayout: struct cell \u203a Disassembly: struct cell.");
	screens_free(&s);
}

TEST(search_sort_metrics)
{
	screens s;
	ds_err err = {0};
	char buf[512];
	/* screens: 1-9 the search, 10-14 the sort menu, 15-19 the metrics */
	if (!run_keys(exp_dir, "/count_h<Enter>s<End><Up><Up><Enter>m<Down><Down> <Esc>", 100, 30, false, &s,
		      &err)) {
		CHECK_STR(err.msg, "");
		return;
	}
	/* incremental search moves the cursor as the text grows */
	CHECK_HAS(cursor_line(screen(&s, 8), buf, sizeof buf), "count_hits");
	CHECK_HAS(line_of(screen(&s, 8), 28, buf, sizeof buf), "Search: count_h");
	CHECK_HAS(cursor_line(screen(&s, 9), buf, sizeof buf), "count_hits");
	/* the sort menu lists the view's keys; choosing one sorts by it */
	CHECK_HAS(screen(&s, 10), "Sort by");
	CHECK_HAS(screen(&s, 10), "cpu-clock samples");
	CHECK_HAS(line_of(screen(&s, 14), 3, buf, sizeof buf), "function\u25b2");
	CHECK_HASNT(line_of(screen(&s, 14), 3, buf, sizeof buf), "samples\u25bc");
	/* metrics: count joins the columns */
	CHECK_HAS(screen(&s, 15), "[ ] cpu-clock count");
	CHECK_HAS(screen(&s, 18), "[x] cpu-clock count");
	CHECK_HAS(line_of(screen(&s, 19), 3, buf, sizeof buf), "count");
	CHECK_HASNT(screen(&s, 19), "Metrics shown");
	screens_free(&s);
}

TEST(filter_and_memory_objects)
{
	static const char *const steps[] = {
		"fFUNC == \"walk_cells\"<Enter>", /* a filter */
		"f(<Enter>",                      /* a mistake */
		"f<Enter>",                       /* none */
		"7<Enter>",                       /* the memory objects */
		"<Down><Enter>",                  /* the second */
		"ehalf = VADDR >>> 5<Enter>",     /* a mistake */
		"ehalf = VADDR >> 5<Enter>",      /* a new one */
		"w",                              /* saved */
		"fFIELD == \"struct cell.count\" && THRID > 0<Enter>5", /* a field, a thread */
		"fDOBJ == \"struct particle\"<Enter>",                   /* a type */
		"fTSTAMP == 0<Enter>",                                 /* nothing */
	};
	size_t at[sizeof steps / sizeof steps[0]]; /* the screen after each step */
	ds_buf keys = {0};
	size_t n = 0;
	screens s;
	ds_err err = {0};
	char buf[512];
	char *mobj_file = unit_tpath("mobj");

	setenv("DSPROF_MOBJ", mobj_file, 1); /* w writes here, not in ~/.config */
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		ds_buf_puts(&keys, steps[i]);
		n += count_keys(steps[i]);
		at[i] = n;
	}
	if (!run_keys(exp_dir, ds_buf_str(&keys), 100, 30, false, &s, &err)) {
		CHECK_STR(err.msg, "");
		ds_buf_free(&keys);
		free(mobj_file);
		return;
	}
	/* a filter narrows every view; the breadcrumb says which */
	CHECK_HAS(line_of(screen(&s, at[0]), 1, buf, sizeof buf), "[filter: FUNC == \"walk_cells\"]");
	CHECK_HAS(cursor_line(screen(&s, at[0]), buf, sizeof buf), "100.0%");
	CHECK_HASNT(screen(&s, at[0]), "count_hits");
	/* a mistake is named with its column; the filter stays */
	CHECK_HAS(line_of(screen(&s, at[1]), 28, buf, sizeof buf), "column");
	CHECK_HAS(line_of(screen(&s, at[1]), 1, buf, sizeof buf), "[filter:");
	/* an empty filter removes it */
	CHECK_HASNT(line_of(screen(&s, at[2]), 1, buf, sizeof buf), "filter");
	CHECK_HAS(screen(&s, at[2]), "count_hits");
	/* the memory objects: a list to pick from, then the object's view */
	CHECK_HAS(screen(&s, at[3]), "L1D_line");
	CHECK_HAS(screen(&s, at[3]), "predefined");
	CHECK_HAS(line_of(screen(&s, at[4]), 1, buf, sizeof buf), "MemObjects: L1D_set");
	CHECK_HAS(line_of(screen(&s, at[4]), 3, buf, sizeof buf), "index");
	/* a new one: a mistake says where, a good one shows at once */
	CHECK_HAS(line_of(screen(&s, at[5]), 28, buf, sizeof buf), "column");
	CHECK_HAS(line_of(screen(&s, at[6]), 1, buf, sizeof buf), "MemObjects: half");
	CHECK_HAS(line_of(screen(&s, at[6]), 28, buf, sizeof buf), "Defined half");
	/* w keeps it in the user's file */
	CHECK_HAS(line_of(screen(&s, at[7]), 28, buf, sizeof buf), "Saved half = VADDR >> 5");
	{
		char *f = ds_read_file(mobj_file, NULL);
		CHECK(f && strstr(f, "half = VADDR >> 5"));
		free(f);
	}
	/* the filter's other variables: one field of every thread, then a type */
	CHECK_HAS(line_of(screen(&s, at[8]), 1, buf, sizeof buf), "DataObjects  [filter: FIELD == ");
	CHECK_HAS(cursor_line(screen(&s, at[8]), buf, sizeof buf), "100.0%");
	CHECK_HAS(buf, "struct cell");
	CHECK_HASNT(screen(&s, at[8]), "struct particle");
	CHECK_HASNT(screen(&s, at[8]), "table");
	CHECK_HAS(cursor_line(screen(&s, at[9]), buf, sizeof buf), "struct particle");
	CHECK_HASNT(screen(&s, at[9]), "struct cell");
	/* a filter that keeps nothing: no rows, and why (UBSan once stopped here) */
	CHECK_HAS(line_of(screen(&s, at[10]), 1, buf, sizeof buf), "DataObjects  [filter: TSTAMP == 0]");
	CHECK_HAS(screen(&s, at[10]), "No rows: the filter keeps no samples here");
	CHECK_HASNT(screen(&s, at[10]), "struct");
	screens_free(&s);
	ds_buf_free(&keys);
	free(mobj_file);
}

/* l: the cache lines of DataLayout and HotLines, a size or a level's. */
TEST(cache_lines)
{
	screens s;
	ds_err err = {0};
	char buf[512];
	const char *p;
	/* screens: 1 the layout, 2 the menu, 3-4 256 bytes, 5 the hot lines,
	 * 6-9 L1D's lines, 10 the layout again */
	if (!run_keys(exp_dir, "6l<End><Enter>8l<Home><Down><Enter>6", 100, 40, false, &s, &err)) {
		CHECK_STR(err.msg, "");
		return;
	}
	/* the layout draws each level's lines, here the L1D's 64 bytes */
	CHECK_HAS(screen(&s, 1), "--- L1D line 1 (64 bytes) ---");
	CHECK_HAS(screen(&s, 2), "Cache lines of DataLayout, HotLines and Sharing");
	CHECK_HAS(screen(&s, 2), "L1D: its 64-byte lines (measured)");
	CHECK_HAS(screen(&s, 2), "256-byte lines");
	/* 256 bytes: the 128-byte struct particle fits in one line */
	CHECK_HAS(line_of(screen(&s, 4), 38, buf, sizeof buf), "use 256-byte lines");
	CHECK_HASNT(screen(&s, 4), "L1D line 1");
	CHECK_HASNT(screen(&s, 4), "(64 bytes)");
	CHECK_HAS(screen(&s, 4), "of a 256-byte line");
	/* and the hot lines are 256-byte lines: their addresses end in 00 */
	cursor_line(screen(&s, 5), buf, sizeof buf);
	p = strstr(buf, "0x");
	CHECK(p != NULL);
	if (p)
		CHECK(p[strcspn(p, " ") - 2] == '0' && p[strcspn(p, " ") - 1] == '0');
	/* a level: its measured lines */
	CHECK_HAS(line_of(screen(&s, 9), 38, buf, sizeof buf), "use L1D's 64-byte lines");
	CHECK_HAS(screen(&s, 10), "of a 64-byte line");
	screens_free(&s);
}

TEST(resize_and_small)
{
	screens s;
	ds_err err = {0};
	if (!run_keys(exp_dir, "<Resize:120x40><Resize:60x20><Resize:80x24>", 80, 24, false, &s, &err)) {
		CHECK_STR(err.msg, "");
		return;
	}
	CHECK_EQ_U64(count_lines(screen(&s, 1)), 40);
	CHECK(widest(screen(&s, 1)) <= 120);
	CHECK(widest(screen(&s, 1)) > 80);
	CHECK_HAS(screen(&s, 2), "needs 80x24 at least");
	CHECK_HAS(screen(&s, 2), "this terminal is 60x20");
	CHECK_HAS(screen(&s, 3), "walk_cells");
	screens_free(&s);
}

TEST(ascii)
{
	screens s;
	ds_err err = {0};
	bool ascii = true;
	if (!run_keys(exp_dir, "5<Right>6?", 80, 24, true, &s, &err)) {
		CHECK_STR(err.msg, "");
		return;
	}
	for (const unsigned char *p = (const unsigned char *)s.text; *p; p++)
		ascii &= *p < 0x80;
	CHECK(ascii);
	CHECK_HAS(screen(&s, 0), "samplesv");
	CHECK_HAS(screen(&s, 2), "- struct cell");
	CHECK_HAS(screen(&s, 3), "#");
	screens_free(&s);
}

TEST(timeline_zoom)
{
	screens s;
	ds_err err = {0};
	char buf[512];
	if (!run_keys(exp_dir, "0++<Home>d", 100, 30, false, &s, &err)) {
		CHECK_STR(err.msg, "");
		return;
	}
	/* each zoom halves the time a column stands for */
	CHECK_STR(line_of(screen(&s, 1), 3, buf, sizeof buf), line_of(screen(&s, 4), 3, buf + 256, 256));
	CHECK(strcmp(line_of(screen(&s, 1), 3, buf, sizeof buf), line_of(screen(&s, 3), 3, buf + 256, 256)) != 0);
	CHECK_HAS(screen(&s, 5), "by dataobject");
	CHECK_HAS(screen(&s, 5), "struct cell");
	screens_free(&s);
}

/* Symbols with an escape sequence and with wide characters, as the
 * symbol table gives them, and a thread whose name (comm) is an escape
 * sequence with a bell. */
TEST(names_sanitized_and_wide)
{
	static const char prog[] =
		"#include <sys/prctl.h>\n"
		"__attribute__((noinline)) void evil_name_here(volatile long *x) { for (long i = 0; i < 150000000; i++) *x += i; }\n"
		"__attribute__((noinline)) void wide_name_here(volatile long *x) { for (long i = 0; i < 150000000; i++) *x ^= i; }\n"
		"int main(void) { volatile long x = 0; prctl(PR_SET_NAME, \"\\033[31mevil\\a\");\n"
		"  evil_name_here(&x); wide_name_here(&x); return 0; }\n";
	screens s;
	ds_err err = {0};
	char *src = unit_tpath("names.c"), *e = unit_tpath("names_exp");
	FILE *f = fopen(src, "w");
	bool esc = false;
	if (f) {
		fputs(prog, f);
		fclose(f);
	}
	if (!unit_have("cc") || !unit_have("objcopy") || !unit_sh("cc -O1 -g -o names0 names.c") ||
	    !unit_sh("objcopy --redefine-sym evil_name_here=\"$(printf 'evil\\033[2Jname')\" "
		     "--redefine-sym wide_name_here=\"$(printf '\\350\\250\\210\\347\\256\\227_wide')\" names0 names") ||
	    !unit_sh("\"$DSPROF\" record -q -o names_exp -- ./names")) {
		unit_skip("no C compiler or objcopy to make a program with such names");
		free(src);
		free(e);
		return;
	}
	if (!run_keys(e, "/wide<Enter>0", 80, 24, false, &s, &err)) {
		CHECK_STR(err.msg, "");
	} else {
		char buf[512];
		for (const char *p = s.text; *p; p++)
			esc |= *p == 0x1b;
		CHECK(!esc);
		CHECK_HAS(s.text, "evil\\x1b[2Jname");
		CHECK_HAS(s.text, "\xe8\xa8\x88\xe7\xae\x97_wide");
		/* the thread's name on the timeline: escaped, the bell too */
		CHECK_HAS(screen(&s, 7), "\\x1b[31mevil");
		CHECK_HAS(screen(&s, 7), "\\x1b[31mevil\\x07");
		/* a wide name takes two columns a character: the module column stays in line */
		{
			const char *w = cursor_line(screen(&s, 6), buf, sizeof buf);
			const char *evil = strstr(s.text, "evil\\x1b");
			char other[512];
			const char *le = evil;
			while (le > s.text && le[-1] != '\n')
				le--;
			snprintf(other, sizeof other, "%.*s", (int)strcspn(le, "\n"), le);
			CHECK(strstr(w, "names") && strstr(other, "names"));
			if (strstr(w, "names") && strstr(other, "names")) {
				/* columns before "names" after the cursor's mark: count code
				 * points, the CJK ones (3-byte UTF-8) twice */
				size_t cw = 1, co = 1;
				const unsigned char *p = (const unsigned char *)w + ds_utf8_len(w);
				for (; p < (const unsigned char *)strstr(w, " names"); p++)
					cw += (*p & 0xc0) != 0x80 ? (*p >= 0xe0 ? 2 : 1) : 0;
				for (p = (const unsigned char *)other + 1; p < (const unsigned char *)strstr(other, " names"); p++)
					co += (*p & 0xc0) != 0x80 ? 1 : 0;
				CHECK_EQ_U64(cw, co);
			}
		}
		screens_free(&s);
	}
	free(src);
	free(e);
}

/* Enter on a hot line shows its data, threads and code; Enter on those
 * drills to the instructions touching the data, the source line. */
TEST(hot_line_drill)
{
	screens s;
	ds_err err = {0};
	char buf[512], line[32] = "";
	const char *scr, *p;
	enum { F = 22 }; /* the filter's keys: hot lines of walk_cells, whose code has source */
	/* screens after it: 1 tab, 2 unfolded, 3 first child, 4 its instructions, 5 back,
	 * 6-17 the search for a code row, 18 its source */
	if (!run_keys(exp_dir, "fFUNC == \"walk_cells\"<Enter>8<Enter><Down><Enter><BS>/example.c:<Enter><Enter>", 120, 30,
		      false, &s, &err)) {
		CHECK_STR(err.msg, "");
		return;
	}
	/* the line's threads beside it */
	CHECK_HAS(line_of(screen(&s, F + 1), 3, buf, sizeof buf), "nthreads");
	CHECK_HAS(line_of(screen(&s, F + 1), 3, buf, sizeof buf), "threads");
	/* unfolded: the data objects on the line and the code that touched it */
	scr = screen(&s, F + 2);
	CHECK_HAS(scr, "\u25be ");
	CHECK_HAS(scr, "example.c:");
	/* the first child is a data object: Enter shows the instructions touching it */
	cursor_line(screen(&s, F + 3), buf, sizeof buf);
	CHECK_HASNT(buf, "\u25be");
	CHECK_HAS(line_of(screen(&s, F + 4), 1, buf, sizeof buf), "HotLines \u203a Disassembly: ");
	CHECK_HASNT(screen(&s, F + 4), "No sampled instructions here");
	CHECK(strncmp(line_of(screen(&s, F + 5), 1, buf, sizeof buf), "HotLines ", 9) == 0);
	/* a code row: Enter opens its function's source at its line */
	cursor_line(screen(&s, F + 17), buf, sizeof buf);
	p = strstr(buf, "example.c:");
	CHECK(p != NULL);
	if (p)
		snprintf(line, sizeof line, "%.*s", (int)strspn(p + 10, "0123456789"), p + 10);
	CHECK(line[0] != 0);
	CHECK_HAS(line_of(screen(&s, F + 18), 1, buf, sizeof buf), "HotLines \u203a Source: ");
	cursor_line(screen(&s, F + 18), buf, sizeof buf);
	CHECK(line[0] && strncmp(buf + strspn(buf, "\u25b6 "), line, strlen(line)) == 0 &&
	      buf[strspn(buf, "\u25b6 ") + strlen(line)] == ' ');
	screens_free(&s);
}

/* Compared side by side, a filter's names may be either side's (a function
 * the fix inlined away); a name neither has is the error, naming both. */
TEST(filter_names_of_a_pair)
{
	char *other = unit_tpath("exp_spin");
	ds_session *s = NULL, *o = NULL;
	ds_err err = {0};

	if (!unit_sh("\"$DSPROF\" record -q -o exp_spin -- \"$PROGS/behave\" spin 0.2")) {
		CHECK(!"dsprof record of behave spin");
		free(other);
		return;
	}
	CHECK(ds_session_open(exp_dir, &(ds_session_opts){0}, &s, &err) == 0);
	CHECK(ds_session_open(other, &(ds_session_opts){0}, &o, &err) == 0);
	if (s && o) {
		CHECK(ds_session_set_filter(s, "FUNC == \"spin_work\"", &err) < 0);
		CHECK_HAS(err.msg, "filter: no sampled function is named 'spin_work' in ");
		ds_session_pair(s, o);
		memset(&err, 0, sizeof err);
		CHECK(ds_session_set_filter(s, "FUNC == \"spin_work\"", &err) == 0);
		CHECK(ds_session_samples(s) == 0);
		CHECK(ds_session_set_filter(s, "FUNC == \"spin_wrk\"", &err) < 0);
		CHECK_HAS(err.msg, "' or '");
		CHECK_HAS(err.msg, "; nearest: 'spin_work'");
		/* on error the previous filter stays */
		CHECK_STR(ds_session_filter(s), "FUNC == \"spin_work\"");
	}
	ds_session_close(o);
	ds_session_close(s);
	free(other);
}

/* dsprof tui BEFORE AFTER: every tab shows the diff dsprof diff prints. */
TEST(compare)
{
	/* pre: keys before the tab's, to select walk_cells and struct cell
	 * whatever order the changes put them in */
	static const struct {
		const char *pre, *key, *crumb, *content;
	} tabs[] = {
		{"", "1", "Functions", "walk_cells"},
		{"/walk_cells<Enter>", "2", "Callers-Callees: walk_cells", "main"},
		{"", "3", "Source: walk_cells", "c->energy"},
		{"", "4", "Disassembly: walk_cells", "struct cell."},
		{"", "5", "DataObjects", "struct cell.count"},
		{"/struct cell<Enter>", "6", "DataLayout: struct cell", "struct cell.count"},
		{"", "7", "MemObjects", "pick a memory object"},
		{"", "8", "HotLines", "struct cell.count"},
		{"", "9", "Sharing", "haring"},
		{"", "0", "Timeline", "is not compared"},
		{"", "i", "Summary", "Verdict (dsprof diff BEFORE AFTER"},
	};
	size_t at[sizeof tabs / sizeof tabs[0]], n = 0, sort_at;
	char *after = unit_tpath("exp_after");
	ds_session *ss[2] = {NULL, NULL};
	ds_diff *d = NULL;
	ds_buf keys = {0};
	screens s, s80;
	ds_err err = {0};
	char buf[512], want[64];
	int dc;

	if (!unit_sh("\"$DSPROF\" record -q -o exp_after -- \"$PROGS/example\" 20")) {
		CHECK(!"dsprof record of the example program, the second time");
		free(after);
		return;
	}
	for (size_t i = 0; i < sizeof tabs / sizeof tabs[0]; i++) {
		ds_buf_puts(&keys, tabs[i].pre);
		ds_buf_puts(&keys, tabs[i].key);
		n += count_keys(tabs[i].pre) + 1;
		at[i] = n;
	}
	/* the diff's sort keys; a filter on both sides */
	ds_buf_puts(&keys, "1s<Esc>fFUNC == \"walk_cells\"<Enter>");
	sort_at = n + 2;
	if (!run_keys_vs(exp_dir, after, ds_buf_str(&keys), 120, 30, false, &s, &err)) {
		CHECK_STR(err.msg, "");
		goto out;
	}
	/* the first screen: both sides' metrics, the status and the change,
	 * largest first; the two experiments named */
	CHECK_HAS(line_of(screen(&s, 0), 1, buf, sizeof buf), " -> ");
	CHECK_HAS(line_of(screen(&s, 0), 1, buf, sizeof buf), "exp_after");
	CHECK_HAS(line_of(screen(&s, 0), 2, buf, sizeof buf), "after:cpu-clock");
	CHECK_HAS(line_of(screen(&s, 0), 2, buf, sizeof buf), "before:");
	CHECK_HAS(line_of(screen(&s, 0), 3, buf, sizeof buf), "status");
	CHECK_HAS(line_of(screen(&s, 0), 3, buf, sizeof buf), "delta\u25bc");
	CHECK_HAS(line_of(screen(&s, 0), 3, buf, sizeof buf), " change ");
	/* the numbers are ds_diff_sessions' */
	CHECK(ds_session_open(exp_dir, &(ds_session_opts){0}, &ss[0], &err) == 0);
	CHECK(ds_session_open(after, &(ds_session_opts){0}, &ss[1], &err) == 0);
	CHECK(ss[0] && ss[1] && ds_diff_sessions(ss[0], ss[1], "functions", NULL, &d, &err) == 0);
	for (dc = 0; d && dc < (int)d->table->ncols && strcmp(d->table->cols[dc].name, "delta:cpu-clock"); dc++)
		;
	if (d && dc < (int)d->table->ncols && d->table->nrows) {
		const ds_row *r = &d->table->rows[0];
		cursor_line(screen(&s, 0), buf, sizeof buf);
		CHECK_HAS(buf, r->name);
		snprintf(want, sizeof want, " %+.3fs ", (double)(int64_t)r->cells[dc].u / 1e9);
		CHECK_HAS(buf, want);
		snprintf(want, sizeof want, " %" PRIu64 " ", r->samples[0]);
		CHECK_HAS(buf, want);
		snprintf(want, sizeof want, " %" PRIu64 " ", r->samples[1]);
		CHECK_HAS(buf, want);
		/* at 80x24 too the numbers are whole: the names give up their room */
		if (run_keys_vs(exp_dir, after, "<Down><Up>", 80, 24, false, &s80, &err)) {
			cursor_line(screen(&s80, 2), buf, sizeof buf);
			CHECK_HAS(buf, r->name);
			snprintf(want, sizeof want, " %+.3fs ", (double)(int64_t)r->cells[dc].u / 1e9);
			CHECK_HAS(buf, want);
			CHECK(widest(screen(&s80, 2)) <= 80);
			screens_free(&s80);
		} else {
			CHECK_STR(err.msg, "");
		}
	} else {
		CHECK(!"the functions' diff has a delta:cpu-clock column and rows");
	}
	for (size_t i = 0; i < sizeof tabs / sizeof tabs[0]; i++) {
		const char *scr = screen(&s, at[i]);
		unit_current = tabs[i].crumb;
		CHECK(strncmp(line_of(scr, 1, buf, sizeof buf), tabs[i].crumb, strlen(tabs[i].crumb)) == 0);
		CHECK_HAS(scr, tabs[i].content);
		CHECK_EQ_U64(count_lines(scr), 30);
		CHECK(widest(scr) <= 120);
	}
	unit_current = "compare";
	/* every table is a diff: rows say whether both sides have them; data
	 * objects do not fold (the diff's order is the changes') */
	for (size_t i = 0; i < 8; i++)
		if (i != 6)
			CHECK_HAS(screen(&s, at[i]), " both ");
	CHECK_HASNT(screen(&s, at[4]), "\u25b8");
	/* the summary: the verdict, each finding whole (wrapped at the
	 * screen's width), then each side */
	{
		char *verdict = joined_after(screen(&s, at[10]), "Verdict (dsprof diff");
		for (size_t i = 0; d && i < d->nverdict; i++)
			CHECK_HAS(verdict, d->verdict[i].text);
		free(verdict);
	}
	CHECK(d && d->nverdict > 0);
	CHECK_HAS(screen(&s, at[10]), "BEFORE: ");
	/* the sort menu offers the diff's keys */
	CHECK_HAS(screen(&s, sort_at), "cpu-clock delta");
	CHECK_HAS(screen(&s, sort_at), "cpu-clock change");
	/* a filter applies to both */
	{
		const char *scr = screen(&s, s.v.n - 1);
		CHECK_HAS(line_of(scr, 1, buf, sizeof buf), "[filter: FUNC == \"walk_cells\"]");
		CHECK_HAS(cursor_line(scr, buf, sizeof buf), "100.0%");
		CHECK_HASNT(scr, "count_hits");
	}
	screens_free(&s);
out:
	ds_diff_free(d);
	ds_session_close(ss[0]);
	ds_session_close(ss[1]);
	ds_buf_free(&keys);
	free(after);
}

/* The Sharing tab on the false-sharing program under the simulator: the
 * line, its threads, the evidence and the fix; Enter from a thread to the
 * layout of the type on the line; and the padded build compared with it. */
TEST(sharing)
{
	screens s;
	ds_err err = {0};
	char buf[512];
	char *shared = unit_tpath("shared"), *padded = unit_tpath("padded");

	if (!unit_have("valgrind")) {
		unit_skip("the simulator needs valgrind ('make deps' installs it)");
		goto out;
	}
	if (!unit_sh("\"$DSPROF\" record --sim -e sim:HITM,sim:stores -q -o shared -- \"$PROGS/counters\" >/dev/null") ||
	    !unit_sh("\"$DSPROF\" record --sim -e sim:HITM,sim:stores -q -o padded -- \"$PROGS/counters_padded\" "
		     ">/dev/null")) {
		CHECK(!"dsprof record --sim of the counters programs");
		goto out;
	}
	/* screens: 1 the tab, 2 unfolded, 3 a thread, 4 the type's layout */
	if (!run_keys(shared, "9<Enter><Down><Enter>", 120, 30, false, &s, &err)) {
		CHECK_STR(err.msg, "");
		goto out;
	}
	CHECK_HAS(cursor_line(screen(&s, 1), buf, sizeof buf), "false-sharing");
	CHECK_HAS(buf, "\u25b8 0x");
	CHECK_HAS(line_of(screen(&s, 1), 3, buf, sizeof buf), "hitm");
	CHECK_HAS(screen(&s, 2), "counters");
	CHECK_HAS(screen(&s, 2), "evidence: ");
	CHECK_HAS(screen(&s, 2), "fix: ");
	CHECK_HAS(cursor_line(screen(&s, 3), buf, sizeof buf), " counters");
	CHECK_HAS(line_of(screen(&s, 4), 1, buf, sizeof buf), "Sharing \u203a DataLayout: struct worker_stats");
	CHECK_HAS(screen(&s, 4), "packets");
	CHECK_HAS(screen(&s, 4), "bytes");
	screens_free(&s);
	/* v: the line's row in full, its long fix wrapped, not cut; any key
	 * closes it (screens: 1 the tab, 2 the row, 3 closed) */
	if (!run_keys(shared, "9vq", 80, 24, false, &s, &err)) {
		CHECK_STR(err.msg, "");
		goto out;
	}
	CHECK_HAS(screen(&s, 2), "The row in full");
	CHECK_HAS(screen(&s, 2), "  class: false-sharing");
	CHECK_HAS(screen(&s, 2), "  fix: give each its own 64-byte line");
	/* the fix's last words, on a continuation line under its text */
	CHECK_HAS(screen(&s, 2), "\n       instances sit side by side");
	CHECK_HAS(screen(&s, 2), "put _Alignas(64) on it");
	CHECK(strstr(screen(&s, 3), "The row in full") == NULL);
	screens_free(&s);
	/* the fix, compared: the shared line is gone */
	if (!run_keys_vs(shared, padded, "9", 120, 30, false, &s, &err)) {
		CHECK_STR(err.msg, "");
		goto out;
	}
	CHECK_HAS(line_of(screen(&s, 1), 1, buf, sizeof buf), "Sharing");
	CHECK_HAS(screen(&s, 1), " gone ");
	CHECK_HAS(screen(&s, 1), "false-sharing");
	screens_free(&s);
out:
	free(shared);
	free(padded);
}

/* Two definitions of struct node (tests/programs/samename): DataObjects
 * names each by its file, and each drills to its own layout. */
TEST(types_of_one_name)
{
	screens s;
	ds_err err = {0};
	char buf[512];
	char *e = unit_tpath("samename_exp");
	const char *keys = "5/tu2.c<Enter><Enter>";
	size_t n = count_keys(keys);

	if (!unit_sh("\"$DSPROF\" record -q -e page-faults -o samename_exp -- \"$PROGS/samename\" >/dev/null")) {
		CHECK(!"dsprof record of the samename program");
		free(e);
		return;
	}
	if (!run_keys(e, keys, 120, 30, false, &s, &err)) {
		CHECK_STR(err.msg, "");
		free(e);
		return;
	}
	CHECK_HAS(screen(&s, 1), "struct node (tu1.c:");
	CHECK_HAS(screen(&s, 1), "struct node (tu2.c:");
	CHECK_HAS(cursor_line(screen(&s, n - 1), buf, sizeof buf), "struct node (tu2.c:");
	CHECK_HAS(line_of(screen(&s, n), 1, buf, sizeof buf), "DataObjects \u203a DataLayout: struct node (tu2.c:");
	CHECK_HAS(screen(&s, n), "   pad\n");
	CHECK_HASNT(screen(&s, n), "tu1.c");
	screens_free(&s);
	free(e);
}

/* Members that are structs and unions (tests/programs/nested): DataLayout
 * shows each as a row with its total, its members indented under it, the
 * holes and padding inside it. */
TEST(nested_layout)
{
	screens s;
	ds_err err = {0};
	char buf[512];
	char *e = unit_tpath("nested_exp");

	if (!unit_sh("\"$DSPROF\" record -q -e page-faults -o nested_exp -- \"$PROGS/nested\" >/dev/null")) {
		CHECK(!"dsprof record of the nested program");
		free(e);
		return;
	}
	/* screens: 1 the tab; 8 Enter on u (the seventh row, under the type
	 * and its two notes) */
	if (!run_keys(e, "6<Down><Down><Down><Down><Down><Down><Enter>", 120, 40, false, &s, &err)) {
		CHECK_STR(err.msg, "");
		free(e);
		return;
	}
	CHECK_HAS(screen(&s, 1), "struct pkt\n");
	CHECK_HAS(screen(&s, 1), "   u\n");
	CHECK_HAS(screen(&s, 1), "     u.p\n");
	CHECK_HAS(screen(&s, 1), "       u.p.hi\n");
	CHECK_HAS(screen(&s, 1), "   inner\n");
	CHECK_HAS(screen(&s, 1), "     <hole: 3 bytes>\n");
	CHECK_HAS(screen(&s, 1), "     <padding: 7 bytes>\n");
	CHECK_HAS(screen(&s, 1), "   <union at 48>\n");
	CHECK_HAS(screen(&s, 1), "       st.ns.hi\n");
	/* a member that is a union drills to the instructions touching anything in it */
	CHECK_HAS(line_of(screen(&s, 8), 1, buf, sizeof buf), "DataLayout \u203a Disassembly: struct pkt.u ");
	CHECK_HAS(screen(&s, 8), "struct pkt.u.p.hi");
	screens_free(&s);
	free(e);
}

/* S in DataLayout (tests/programs/spread, simulated): the suggestion for
 * the type under the cursor, its hot members together, scrolled with the
 * arrows and closed by another key; elsewhere S says where it works. */
TEST(suggest_key)
{
	screens s;
	ds_err err = {0};
	char buf[512];
	char *e = unit_tpath("spread_exp");

	if (!unit_sh("\"$DSPROF\" record -q --sim -e sim:L1D_MISS -c 11 -o spread_exp -- \"$PROGS/spread\" 1 >/dev/null")) {
		CHECK(!"dsprof record --sim of the spread program");
		free(e);
		return;
	}
	/* screens: 1 the tab (the type's row first); 2 S; 3 a line down;
	 * 4 q closes it; 5 Functions; 6 S there */
	if (!run_keys(e, "6S<Down>q1S", 120, 40, false, &s, &err)) {
		CHECK_STR(err.msg, "");
		free(e);
		return;
	}
	CHECK_HAS(line_of(screen(&s, 2), 2, buf, sizeof buf), "A member order for struct spread");
	CHECK_HAS(screen(&s, 2), "struct spread {\n");
	CHECK_HAS(screen(&s, 2), "    long int a;\n");
	CHECK_HAS(screen(&s, 2), "lines a visit touches 3.00 -> 1.00");
	CHECK_HASNT(screen(&s, 3), "dsprof layout --suggest: struct spread");
	CHECK_HAS(screen(&s, 4), "struct spread");
	CHECK_HASNT(screen(&s, 4), "A member order for");
	CHECK_HAS(screen(&s, 6), "S suggests a member order: select a type");
	screens_free(&s);
	free(e);
}

/* The call tree of a program without frame pointers: hot paths unfolded,
 * Left folds the node under the cursor, Right unfolds it again, Enter on a
 * function opens its callers and callees. */
TEST(calltree_tab)
{
	screens s;
	ds_err err = {0};
	char buf[512];
	char *e = unit_tpath("calltree_exp");
	/* screens: 1 the tab; 2 Left folds _start (the first row); 3 Right
	 * unfolds it; then a search for mid_b, and Enter on it (the last) */
	const char *keys = "t<Left><Right>/mid_b<Enter><Enter>";
	size_t n = count_keys(keys);

	if (!unit_sh("\"$DSPROF\" record -q -o calltree_exp -- \"$PROGS/callpath\" direct 300 >/dev/null")) {
		CHECK(!"dsprof record of the callpath program");
		free(e);
		return;
	}
	if (!run_keys(e, keys, 120, 40, false, &s, &err)) {
		CHECK_STR(err.msg, "");
		free(e);
		return;
	}
	CHECK(strncmp(line_of(screen(&s, 1), 1, buf, sizeof buf), "CallTree", 8) == 0);
	CHECK_HAS(screen(&s, 1), " _start ");
	CHECK_HAS(screen(&s, 1), "       main ");
	CHECK_HAS(screen(&s, 1), "         top ");
	CHECK_HAS(screen(&s, 1), " leaf ");
	CHECK(strstr(screen(&s, 2), " main ") == NULL);
	CHECK_HAS(screen(&s, 3), "       main ");
	CHECK_HAS(cursor_line(screen(&s, n - 1), buf, sizeof buf), "mid_b");
	CHECK_HAS(line_of(screen(&s, n), 1, buf, sizeof buf), "Callers-Callees");
	CHECK_HAS(screen(&s, n), "mid_b");
	screens_free(&s);
	free(e);
}

/* The Disassembly tab annotates the selected function whole: every
 * instruction under its source line, the hottest under the cursor, H to
 * the next hottest, Enter on a source line to the Source tab there. */
TEST(annotate_tab)
{
	screens s;
	ds_err err = {0};
	char buf[512];
	/* screens: 1 the tab; 2 k: the source line above the hottest; 3 Enter;
	 * 4 back; 5 H from there: the hottest; 6 H: the next */
	const char *keys = "4k<Enter><BS>HH";

	if (!run_keys(exp_dir, keys, 120, 40, false, &s, &err)) {
		CHECK_STR(err.msg, "");
		return;
	}
	CHECK(strncmp(line_of(screen(&s, 1), 1, buf, sizeof buf), "Disassembly: walk_cells ", 24) == 0);
	CHECK_HAS(screen(&s, 1), "c->count++;");
	CHECK_HAS(screen(&s, 1), " ret");
	CHECK_HAS(cursor_line(screen(&s, 1), buf, sizeof buf), "struct cell.count");
	CHECK_HAS(cursor_line(screen(&s, 1), buf, sizeof buf), " ok");
	CHECK_HAS(cursor_line(screen(&s, 2), buf, sizeof buf), "c->count++;");
	CHECK_HAS(line_of(screen(&s, 3), 1, buf, sizeof buf), "Disassembly: walk_cells \u203a Source: walk_cells");
	CHECK_HAS(cursor_line(screen(&s, 3), buf, sizeof buf), "c->count++;");
	CHECK_HAS(cursor_line(screen(&s, 4), buf, sizeof buf), "c->count++;");
	CHECK_HAS(cursor_line(screen(&s, 5), buf, sizeof buf), "struct cell.count");
	CHECK_HAS(screen(&s, 5), "Hot row 1 of ");
	CHECK_HAS(screen(&s, 6), "Hot row 2 of ");
	CHECK(strstr(cursor_line(screen(&s, 6), buf, sizeof buf), "struct cell.count") == NULL);
	screens_free(&s);
}

/* Whether a line starts with the word w (then a blank or its end). */
static bool starts_word(const char *line, const char *w)
{
	size_t n = strlen(w);
	return !strncmp(line, w, n) && (line[n] == ' ' || !line[n]);
}

/* The CallTree tab as a flame graph: frames as wide as their samples,
 * zoom in and out, search, and back to the tree on the frame selected. */
TEST(flame_graph)
{
	screens s;
	ds_err err = {0};
	char buf[512];
	char *e = unit_tpath("calltree_exp"); /* calltree_tab's */
	/* screens: 2 F; 9 the search for mid_b kept; 10 Enter zooms into it;
	 * 11 j: its callee; 12 BS zooms out a level; 13 Home: all; 14 F: the tree */
	const char *keys = "tF/mid_b<Enter><Enter>j<BS><Home>F";
	const char *mb, *ma;
	int found = 0;

	if (!run_keys(e, keys, 100, 24, false, &s, &err)) {
		CHECK_STR(err.msg, "");
		free(e);
		return;
	}
	CHECK_HAS(line_of(screen(&s, 2), 2, buf, sizeof buf), "Flame graph of cpu-clock");
	CHECK(strncmp(line_of(screen(&s, 2), 4, buf, sizeof buf), "all (", 5) == 0);
	/* mid_b has three times mid_a's samples: mid_a starts about 3/4 across */
	for (int y = 5; y < 20; y++) {
		line_of(screen(&s, 2), y, buf, sizeof buf);
		if (starts_word(buf, "main") || starts_word(buf, "top"))
			found++;
		mb = strstr(buf, "mid_b");
		ma = strstr(buf, "mid_a");
		if (mb && ma) {
			CHECK(mb == buf);
			CHECK(ma - buf >= 68 && ma - buf <= 82);
			found++;
		}
	}
	CHECK_EQ_U64(found, 3);
	CHECK(strncmp(line_of(screen(&s, 9), 22, buf, sizeof buf), "mid_b", 5) == 0);
	CHECK_HAS(buf, "incl=");
	CHECK_HAS(line_of(screen(&s, 9), 3, buf, sizeof buf), "search: mid_b matches 7");
	CHECK_HASNT(screen(&s, 10), "mid_a");
	CHECK_HAS(screen(&s, 10), "\nmid_b");
	CHECK(strncmp(line_of(screen(&s, 11), 22, buf, sizeof buf), "leaf ", 5) == 0);
	CHECK_HAS(screen(&s, 12), "mid_a");
	CHECK_HAS(line_of(screen(&s, 12), 3, buf, sizeof buf), "zoomed");
	CHECK_HAS(line_of(screen(&s, 13), 3, buf, sizeof buf), "Enter: zoom");
	CHECK_HAS(line_of(screen(&s, 14), 3, buf, sizeof buf), "incl%");
	CHECK_HAS(cursor_line(screen(&s, 14), buf, sizeof buf), " leaf ");
	screens_free(&s);
	/* a filter that keeps no sample: an empty graph, its keys, and back */
	if (!run_keys(e, "tFfFUNC == \"nope\"<Enter><Left><Right>jk<Enter>/x<Enter>F", 100, 24, false, &s, &err)) {
		CHECK_STR(err.msg, "");
		free(e);
		return;
	}
	CHECK(strncmp(line_of(screen(&s, s.v.n - 1), 1, buf, sizeof buf), "CallTree", 8) == 0);
	screens_free(&s);
	free(e);
}

int main(void)
{
	const char *dsprof = getenv("DSPROF"), *progs = getenv("PROGS");
	if (!unit_tmpdir("dsprof-tui"))
		return 1;
	exp_dir = unit_tpath("exp");
	unit_current = "record";
	if (!dsprof || !progs) {
		unit_skip("DSPROF and PROGS are not set (run through tests/run.sh)");
		return 0;
	}
	if (!unit_sh("\"$DSPROF\" record -q -o exp -- \"$PROGS/example\" 40")) {
		CHECK(!"dsprof record of the example program");
		return unit_done();
	}
	RUN(bad_keys);
	RUN(frame);
	RUN(every_tab);
	RUN(drill_down_and_back);
	RUN(search_sort_metrics);
	RUN(filter_and_memory_objects);
	RUN(cache_lines);
	RUN(resize_and_small);
	RUN(ascii);
	RUN(timeline_zoom);
	RUN(hot_line_drill);
	RUN(filter_names_of_a_pair);
	RUN(compare);
	RUN(sharing);
	RUN(names_sanitized_and_wide);
	RUN(types_of_one_name);
	RUN(nested_layout);
	RUN(suggest_key);
	RUN(calltree_tab);
	RUN(flame_graph);
	RUN(annotate_tab);
	unit_sh("rm -rf '%s'", unit_tmp);
	free(exp_dir);
	return unit_done();
}
