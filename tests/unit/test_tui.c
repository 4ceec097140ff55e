/*
 * The terminal interface through its scripted mode: keys replayed without
 * a terminal, every screen written as text, assertions on the screens.
 * Every tab is visited on a recording of the bundled example program
 * (tests/run.sh gives DSPROF and PROGS).
 */
#include "unit.h"

#include "tui/tui.h"

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

/* Run keys on the experiment; false (with err) when tui_run fails. */
static bool run_keys(const char *input, const char *keys, int w, int h, bool ascii, screens *out,
		     ds_err *err)
{
	char *dump = unit_tpath("screens.txt");
	const char *p, *body = NULL;
	tui_opts o;
	bool ok;

	memset(out, 0, sizeof *out);
	memset(&o, 0, sizeof o);
	o.input = input;
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
	/* tab bar: every tab with its key, the active one in full */
	CHECK(strncmp(line_of(scr, 0, buf, sizeof buf), " 1 Functions 2 Cal 3 Src 4 Asm 5 Dat 6 Lay 7 Mem 8 Hot "
			      "9 Shr 0 Tim i Sum", 76) == 0);
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
		{"9", "Sharing", "not part of this dsprof yet"},
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
	/* the source opens at the function's hottest line, highlighted by the cursor */
	CHECK_HAS(cursor_line(screen(&s, 3), buf, sizeof buf), "e += c->energy");
	/* disassembly: the verdict beside each instruction */
	CHECK_HAS(screen(&s, 4), " ok ");
	/* the layout's bars and the instances' alignment */
	CHECK_HAS(screen(&s, 6), "\u2588");
	CHECK_HAS(screen(&s, 6), "instances start at byte");
	/* the timeline's legend names the functions by letter */
	CHECK_HAS(screen(&s, 10), "A walk_cells");
	/* the summary's resolution statistics */
	CHECK_HAS(screen(&s, 11), "Resolution of samples to data");
	/* help lists the keys */
	CHECK_HAS(screen(&s, 12), "Keys of dsprof tui");
	CHECK_HAS(screen(&s, 12), "drill down");
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
	/* the line's instructions: the cursor on one of line 57 */
	CHECK_HAS(cursor_line(screen(&s, 2), buf, sizeof buf), " 57");
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
		for (const char *p = steps[i]; *p; p++, n++)
			if (*p == '<')
				p = strchr(p, '>');
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
	screens_free(&s);
	ds_buf_free(&keys);
	free(mobj_file);
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
 * symbol table gives them. */
TEST(names_sanitized_and_wide)
{
	static const char prog[] =
		"__attribute__((noinline)) void evil_name_here(volatile long *x) { for (long i = 0; i < 150000000; i++) *x += i; }\n"
		"__attribute__((noinline)) void wide_name_here(volatile long *x) { for (long i = 0; i < 150000000; i++) *x ^= i; }\n"
		"int main(void) { volatile long x = 0; evil_name_here(&x); wide_name_here(&x); return 0; }\n";
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
	if (!run_keys(e, "/wide<Enter>", 80, 24, false, &s, &err)) {
		CHECK_STR(err.msg, "");
	} else {
		char buf[512];
		for (const char *p = s.text; *p; p++)
			esc |= *p == 0x1b;
		CHECK(!esc);
		CHECK_HAS(s.text, "evil\\x1b[2Jname");
		CHECK_HAS(s.text, "\xe8\xa8\x88\xe7\xae\x97_wide");
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
	RUN(resize_and_small);
	RUN(ascii);
	RUN(timeline_zoom);
	RUN(names_sanitized_and_wide);
	unit_sh("rm -rf '%s'", unit_tmp);
	free(exp_dir);
	return unit_done();
}
