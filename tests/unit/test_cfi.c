/*
 * dwarfmap call-frame information: ds_dso_cfa_at against readelf's own
 * interpretation of the same frames (--debug-dump=frames-interp), row by
 * row, for the test binary, libc, programs built here with gcc and clang
 * (.eh_frame, .debug_frame, a separate debug file, 32-bit, hand-written
 * CFI opcodes), and the vdso; then hostile CFI.
 */
#include "dwarfmap/dwarfmap.h"
#include "tests/unit/unit.h"
#include "tests/unit/unit_dso.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

/* ---- readelf as the oracle ---- */

/* DWARF register number of a register name as readelf prints it (x86-64
 * or i386 names, else "rN"), or -1. */
static int reg_number(const char *name)
{
	static const char *const x86_64[] = {"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp"};
	static const char *const i386[] = {"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi"};
	int n;

	for (int i = 0; i < 8; i++)
		if (strcmp(name, x86_64[i]) == 0 || strcmp(name, i386[i]) == 0)
			return i;
	if (strcmp(name, "rip") == 0)
		return 16;
	if (strcmp(name, "eip") == 0)
		return 8;
	return sscanf(name, "r%d", &n) == 1 ? n : -1;
}

/* What readelf says of one address: CFA "rsp+8" (or "exp"), ra "c-8",
 * "u", ... */
typedef struct expect {
	uint64_t addr;
	char cfa[32], ra[16];
} expect;

typedef struct tally {
	size_t rows, lookups, agree;
	ds_buf why; /* the first disagreements */
	int nwhy;
} tally;

static void compare(ds_dso *d, const expect *x, tally *t)
{
	char name[32];
	ds_cfa c = {0};
	bool got = ds_dso_cfa_at(d, x->addr, &c), ok;
	long long off = 0, ra = 0;
	size_t n = strcspn(x->cfa, "+-");

	t->lookups++;
	snprintf(name, sizeof name, "%.*s", (int)n, x->cfa);
	if (x->cfa[n] == '\0') {
		ok = !got; /* "exp": a DWARF expression */
	} else {
		off = strtoll(x->cfa + n, NULL, 10);
		ok = got && c.cfa_reg == reg_number(name) && c.cfa_offset == off;
		if (sscanf(x->ra, "c%lld", &ra) == 1)
			ok = ok && c.ra_saved && c.ra_offset == ra;
		else
			ok = ok && !c.ra_saved;
	}
	if (ok) {
		t->agree++;
	} else if (t->nwhy++ < 8) {
		ds_buf_printf(&t->why, "# %#" PRIx64 ": readelf %s ra %s, dsprof ", x->addr, x->cfa,
			      x->ra);
		if (got)
			ds_buf_printf(&t->why, "r%d%+" PRId64 " ra %s%" PRId64 "\n", c.cfa_reg,
				      c.cfa_offset, c.ra_saved ? "c" : "not saved ", c.ra_offset);
		else
			ds_buf_puts(&t->why, "false\n");
	}
}

typedef struct parser {
	ds_dso *d;
	tally *t;
	/* the entry being read: an FDE's range, or a CIE */
	bool in_fde;
	uint64_t lo, hi, cie;
	int ra_col;
	DS_VEC(expect) rows;
	DS_VEC(expect) cies; /* each CIE's initial row; addr = its offset */
} parser;

/* Check the rows of the FDE just read: each at its address, and one byte
 * further when the row covers it.  readelf prints no table for an FDE
 * without instructions: the CIE's initial row holds there. */
static void finish_entry(parser *p)
{
	if (!p->in_fde) {
		if (p->rows.n)
			ds_vec_push(&p->cies, p->rows.v[p->rows.n - 1]);
		p->rows.n = 0;
		return;
	}
	p->in_fde = false;
	if (p->rows.n == 0) {
		for (size_t i = 0; i < p->cies.n && p->lo < p->hi; i++) {
			if (p->cies.v[i].addr != p->cie)
				continue;
			expect x = p->cies.v[i];
			x.addr = p->lo;
			p->t->rows++;
			compare(p->d, &x, p->t);
		}
		return;
	}
	for (size_t i = 0; i < p->rows.n; i++) {
		expect *x = &p->rows.v[i];
		uint64_t end = i + 1 < p->rows.n ? p->rows.v[i + 1].addr : p->hi;
		if (x->addr >= end)
			continue; /* an empty row: the next one is in effect */
		p->t->rows++;
		compare(p->d, x, p->t);
		if (x->addr + 1 < end) {
			x->addr++;
			compare(p->d, x, p->t);
		}
	}
	p->rows.n = 0;
}

/* The column of "ra" in a table's header, or -1 when it has none. */
static int ra_column(char *header)
{
	char *save = NULL, *s = strtok_r(header, " \n", &save);

	for (int col = 0; s; col++, s = strtok_r(NULL, " \n", &save))
		if (strcmp(s, "ra") == 0)
			return col;
	return -1;
}

/* A table row: LOC, CFA, then one column per register, where a register
 * rule reads "r9 (r9)": one column, two words. */
static expect parse_row(char *line, uint64_t addr, int ra_col)
{
	expect x = {.addr = addr, .ra = "u"}; /* no ra column: never defined */
	char *save = NULL, *s = strtok_r(line, " \n", &save);

	for (int col = 0; s; s = strtok_r(NULL, " \n", &save)) {
		if (s[0] == '(')
			continue;
		if (col == 1)
			snprintf(x.cfa, sizeof x.cfa, "%s", s);
		if (col == ra_col)
			snprintf(x.ra, sizeof x.ra, "%s", s);
		col++;
	}
	return x;
}

static void parse_line(parser *p, char *line)
{
	unsigned long long off, len, id, cie, lo, hi, loc;

	if (strncmp(line, "Contents of", 11) == 0) {
		finish_entry(p);
		p->cies.n = 0;
	} else if (sscanf(line, "%llx %llx %llx FDE cie=%llx pc=%llx..%llx", &off, &len, &id, &cie,
			  &lo, &hi) == 6) {
		finish_entry(p);
		p->in_fde = true;
		p->lo = lo;
		p->hi = hi;
		p->cie = cie;
	} else if (strstr(line, " CIE") && sscanf(line, "%llx", &off) == 1) {
		finish_entry(p);
		p->cie = off;
	} else if (strncmp(line, "   LOC", 6) == 0) {
		p->ra_col = ra_column(line);
	} else if (isxdigit((unsigned char)line[0]) && sscanf(line, "%llx", &loc) == 1 &&
		   !strstr(line, "ZERO")) {
		expect x = parse_row(line, p->in_fde ? loc : p->cie, p->ra_col);
		ds_vec_push(&p->rows, x);
	}
}

/* Compare d with readelf's reading of the file at path (readelf follows a
 * debug link itself, as ds_dso does). */
static void against_readelf(ds_dso *d, const char *path, tally *t)
{
	char *cmd = ds_xasprintf("readelf --debug-dump=frames-interp '%s' 2>/dev/null", path);
	FILE *f = popen(cmd, "r");
	parser p = {.d = d, .t = t, .ra_col = -1};
	char line[1024];

	while (f && fgets(line, sizeof line, f))
		parse_line(&p, line);
	finish_entry(&p);
	if (f)
		pclose(f);
	ds_vec_free(&p.rows);
	ds_vec_free(&p.cies);
	free(cmd);
}

static size_t total_rows, total_lookups, total_agree;

/* Every row of the file's CFI agrees with readelf, and there are at least
 * min_rows of them. */
static void check_file(ds_dso *d, const char *path, size_t min_rows)
{
	tally t = {0};

	CHECK(d != NULL);
	if (!d)
		return;
	against_readelf(d, path, &t);
	printf("# %s: %zu rows (%zu lookups), %zu agree\n", path, t.rows, t.lookups, t.agree);
	if (t.nwhy)
		fputs(ds_buf_str(&t.why), stdout);
	total_rows += t.rows;
	total_lookups += t.lookups;
	total_agree += t.agree;
	CHECK(t.rows >= min_rows);
	CHECK_EQ_U64(t.agree, t.lookups);
	ds_buf_free(&t.why);
}

static void check_tmp(const char *name, size_t min_rows)
{
	char *p = unit_tpath(name);
	ds_dso *d = unit_open_dso(name, NULL);

	check_file(d, p, min_rows);
	ds_dso_close(d);
	free(p);
}

/* ---- the programs ---- */

static const char prog_c[] =
	"#include <alloca.h>\n"
	"#include <stdarg.h>\n"
	"#include <stdio.h>\n"
	"#include <string.h>\n"
	"static volatile int sink;\n"
	"const int table[64] = {1, 2, 3};\n"
	"__attribute__((noinline)) static int leaf(int x) { return x * 3 + sink; }\n"
	"__attribute__((noinline)) static int many_regs(int n) {\n"
	"  int a[8] = {0}; long s = 0;\n"
	"  for (int i = 0; i < n; i++) { a[i & 7] += leaf(i); s += a[(i * 3) & 7] * leaf((int)s); }\n"
	"  return (int)s + a[1]; }\n"
	"__attribute__((noinline)) static int dyn_stack(int n) {\n"
	"  char *p = alloca(n + 16); memset(p, n, n + 16); return p[n / 2] + leaf(n); }\n"
	"__attribute__((noinline)) static int aligned_local(int n) {\n"
	"  int v[16] __attribute__((aligned(64)));\n"
	"  for (int i = 0; i < 16; i++) v[i] = leaf(i + n);\n"
	"  return v[n & 15] + table[n & 63]; }\n"
	"__attribute__((noinline)) static int early_exit(int n) {\n"
	"  if (n < 0) return leaf(n);\n"
	"  int s = 0; for (int i = 0; i < n; i++) s += leaf(i) * many_regs(i & 3);\n"
	"  if (s == 42) return 1; return s; }\n"
	"__attribute__((noinline)) static int vsum(int n, ...) {\n"
	"  va_list ap; int s = 0; va_start(ap, n);\n"
	"  for (int i = 0; i < n; i++) s += va_arg(ap, int);\n"
	"  va_end(ap); return s + leaf(s); }\n"
	"__attribute__((noinline)) static int big_frame(int n) {\n"
	"  char buf[70000]; memset(buf, n, sizeof buf); return buf[n] + leaf(buf[n + 1]); }\n"
	"static void drop(int *p) { sink += *p; }\n"
	"__attribute__((noinline)) static int with_cleanup(int n) {\n"
	"  int c __attribute__((cleanup(drop))) = n; return leaf(c); }\n"
	"int main(int argc, char **argv) {\n"
	"  (void)argv;\n"
	"  printf(\"%d\\n\", many_regs(argc) + dyn_stack(argc) + aligned_local(argc) +\n"
	"         early_exit(argc) + vsum(3, 1, 2, argc) + big_frame(argc) + with_cleanup(argc));\n"
	"  return 0; }\n";

/* Opcodes compilers seldom emit, through .cfi_escape, with rows between
 * them; advance_loc2 and advance_loc4 through long stretches of code. */
static const char ops_s[] =
	"  .text\n"
	"  .globl cfi_ops\n"
	"  .type cfi_ops, @function\n"
	"cfi_ops:\n"
	"  .cfi_startproc\n"
	"  push %rbp\n"
	"  .cfi_def_cfa_offset 16\n"
	"  .cfi_offset %rbp, -16\n"
	"  mov %rsp, %rbp\n"
	"  .cfi_def_cfa_register %rbp\n"
	"  .cfi_escape 0x2e, 0x10\n"             /* GNU_args_size 16 */
	"  nop\n"
	"  .cfi_escape 0x12, 0x07, 0x7e\n"       /* def_cfa_sf rsp, -2 * -8 */
	"  nop\n"
	"  .cfi_escape 0x13, 0x7d\n"             /* def_cfa_offset_sf -3 * -8 */
	"  nop\n"
	"  .cfi_escape 0x11, 0x10, 0x7f\n"       /* offset_extended_sf ra, -1 * -8 */
	"  nop\n"
	"  .cfi_escape 0x06, 0x10\n"             /* restore_extended ra */
	"  nop\n"
	"  .cfi_escape 0x2f, 0x10, 0x02\n"       /* GNU_negative_offset_extended ra */
	"  nop\n"
	"  .cfi_escape 0x05, 0x10, 0x01\n"       /* offset_extended ra, 1 * -8 */
	"  nop\n"
	"  .cfi_escape 0x14, 0x10, 0x01\n"       /* val_offset ra */
	"  nop\n"
	"  .cfi_restore 16\n"
	"  .cfi_remember_state\n"
	"  .cfi_register 16, 0\n"
	"  nop\n"
	"  .cfi_same_value 16\n"
	"  .skip 300, 0x90\n"
	"  .cfi_undefined 16\n"
	"  .skip 70000, 0x90\n"
	"  .cfi_restore_state\n"
	"  nop\n"
	"  .cfi_escape 0x10, 0x03, 0x02, 0x76, 0x00\n" /* expression rbx */
	"  nop\n"
	"  .cfi_escape 0x16, 0x10, 0x02, 0x77, 0x08\n" /* val_expression ra */
	"  nop\n"
	"  .cfi_escape 0x0f, 0x03, 0x77, 0x08, 0x06\n" /* def_cfa_expression */
	"  nop\n"
	"  .cfi_def_cfa %rsp, 8\n"
	"  .cfi_offset 16, -8\n"
	"  nop\n"
	"  .cfi_val_offset 16, -8\n"
	"  nop\n"
	"  .cfi_escape 0x15, 0x10, 0x7f\n"       /* val_offset_sf ra */
	"  .cfi_escape 0x90, 0x01\n"              /* offset ra, 1 * -8 */
	"  .cfi_escape 0x2d\n"                   /* GNU_window_save: a no-op here */
	"  nop\n"
	"  .cfi_escape 0x1d, 1, 0, 0, 0, 0, 0, 0, 0\n" /* MIPS_advance_loc8 1 */
	"  .cfi_def_cfa_offset 32\n"
	"  nop\n"
	"  nop\n"
	"  ret\n"
	"  .cfi_endproc\n"
	"  .size cfi_ops, .-cfi_ops\n"
	"  .section .note.GNU-stack,\"\",@progbits\n";

static const char ops_main_c[] = "void cfi_ops(void);\n"
				 "int main(int argc, char **argv) {\n"
				 "  (void)argv; if (argc > 5) cfi_ops(); return 0; }\n";

/* A .debug_frame written by hand, for what compilers do not emit: CIE
 * versions 1, 3 and 4, augmentations in .debug_frame with 2-, 4- and
 * 8-byte address encodings and a personality, DW_CFA_set_loc, and 64-bit
 * DWARF.  Each df_N is push/nop/nop/pop/ret with rows at +1 and +3. */
static const char hand_s[] =
	"  .macro fn name\n"
	"  .globl \\name\n"
	"  .type \\name, @function\n"
	"\\name:\n"
	"  push %rbp\n"
	"  nop\n"
	"  nop\n"
	"  pop %rbp\n"
	"  ret\n"
	"\\name\\()_end:\n"
	"  .size \\name, .-\\name\n"
	"  .endm\n"
	"\n"
	"  .text\n"
	"  fn df_0\n"
	"  fn df_1\n"
	"  fn df_2\n"
	"  fn df_3\n"
	"  fn df_4\n"
	"  fn df_5\n"
	"  fn df_6\n"
	"  fn df_7\n"
	"\n"
	"  # push rbp at +0, pop at +3: rows at +1 and (set_loc) +3\n"
	"  .macro body fn, addr\n"
	"  .byte 0x41, 0x0e, 0x10, 0x86, 0x02\n"
	"  .byte 0x01\n"
	"  \\addr \\fn + 3\n"
	"  .byte 0x0e, 0x08, 0xc6\n"
	"  .endm\n"
	"\n"
	"  # a 32-bit FDE; aug: the augmentation data's bytes, if any\n"
	"  .macro fde cie, fn, addr, aug=\n"
	"  .long 9f - 8f\n"
	"8:  .long \\cie\n"
	"  \\addr \\fn\n"
	"  \\addr \\fn\\()_end - \\fn\n"
	"  .ifnb \\aug\n"
	"  \\aug\n"
	"  .endif\n"
	"  body \\fn, \\addr\n"
	"9:\n"
	"  .endm\n"
	"\n"
	"  # a CIE: version, augmentation, extra header bytes, ra column as bytes\n"
	"  .macro cie label, version, aug, ra, extra=\n"
	"\\label:\n"
	"  .long 9f - 8f\n"
	"8:  .long 0xffffffff\n"
	"  .byte \\version\n"
	"  .string \"\\aug\"\n"
	"  \\extra\n"
	"  .uleb128 1\n"
	"  .sleb128 -8\n"
	"  .byte \\ra\n"
	"  .byte 0x0c, 0x07, 0x08, 0x90, 0x01\n"
	"9:\n"
	"  .endm\n"
	"\n"
	"  .section .debug_frame,\"\",@progbits\n"
	"  cie .Lc1, 1, \"\", 16\n"
	"  fde .Lc1, df_0, .quad\n"
	"  cie .Lc3, 3, \"\", 16\n"
	"  fde .Lc3, df_1, .quad\n"
	"  cie .Lc4, 4, \"\", 16, \".byte 8, 0\"\n"
	"  fde .Lc4, df_2, .quad\n"
	"  cie .Lu2, 1, \"zR\", \"16, 1, 0x02\"\n"
	"  fde .Lu2, df_3, .value, \".uleb128 0\"\n"
	"  cie .Ls4, 1, \"zR\", \"16, 1, 0x0b\"\n"
	"  fde .Ls4, df_4, .long, \".uleb128 0\"\n"
	"  cie .Lu8, 1, \"zR\", \"16, 1, 0x04\"\n"
	"  fde .Lu8, df_5, .quad, \".uleb128 0\"\n"
	"  cie .Lpl, 1, \"zPLR\", \"16, 7, 0x03, 0x03, 0x34, 0x12, 0, 0x03, 0x03\"\n"
	"  fde .Lpl, df_6, .long, \".uleb128 4; .long 0\"\n"
	"\n"
	"  # 64-bit DWARF\n"
	".Lc64:\n"
	"  .long 0xffffffff\n"
	"  .quad 9f - 8f\n"
	"8:  .quad 0xffffffffffffffff\n"
	"  .byte 4\n"
	"  .string \"\"\n"
	"  .byte 8, 0\n"
	"  .uleb128 1\n"
	"  .sleb128 -8\n"
	"  .uleb128 16\n"
	"  .byte 0x0c, 0x07, 0x08, 0x90, 0x01\n"
	"9:\n"
	"  .long 0xffffffff\n"
	"  .quad 9f - 8f\n"
	"8:  .quad .Lc64\n"
	"  .quad df_7\n"
	"  .quad df_7_end - df_7\n"
	"  body df_7, .quad\n"
	"9:\n"
	"  .section .note.GNU-stack,\"\",@progbits\n";

/* CFI that breaks the interpreter's limits. */
#define ARGS_SIZE_0_X8 "0x2e, 0, 0x2e, 0, 0x2e, 0, 0x2e, 0, 0x2e, 0, 0x2e, 0, 0x2e, 0, 0x2e, 0"
static const char hostile_s[] =
	"  .text\n"
	"  .macro fn name\n"
	"  .globl \\name\n"
	"  .type \\name, @function\n"
	"\\name:\n"
	"  .cfi_startproc\n"
	"  .endm\n"
	"  .macro endfn name\n"
	"  nop\n"
	"  ret\n"
	"  .cfi_endproc\n"
	"  .size \\name, .-\\name\n"
	"  .endm\n"
	"  fn sane\n"
	"  endfn sane\n"
	"  fn deep\n"
	"  .rept 40\n"
	"  .cfi_remember_state\n"
	"  .endr\n"
	"  endfn deep\n"
	"  fn underflow\n"
	"  .cfi_escape 0x0b\n"                    /* restore_state on an empty stack */
	"  endfn underflow\n"
	"  fn unknown_op\n"
	"  .cfi_escape 0x3e, 0x01\n"              /* no such opcode */
	"  endfn unknown_op\n"
	"  fn huge_reg\n"
	"  .cfi_escape 0x0c, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x08\n" /* def_cfa r4294967295 */
	"  endfn huge_reg\n"
	"  fn many_ops\n"
	"  .rept 40000\n"                      /* 1.28 million DW_CFA_GNU_args_size */
	"  .cfi_escape " ARGS_SIZE_0_X8 ", " ARGS_SIZE_0_X8 ", " ARGS_SIZE_0_X8 ", " ARGS_SIZE_0_X8 "\n"
	"  .endr\n"
	"  endfn many_ops\n"
	"  fn overflow\n"
	"  .cfi_escape 0x11, 0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00\n"
	"  endfn overflow\n"
	"  .section .note.GNU-stack,\"\",@progbits\n";

static const char hostile_main_c[] = "int main(void) { return 0; }\n";

/* ---- tests ---- */

TEST(self)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
	ds_err err;
	ds_dso *d;

	CHECK(n > 0);
	if (n <= 0)
		return;
	path[n] = '\0';
	d = ds_dso_open(path, NULL, &err);
	check_file(d, path, 500);
	if (d) {
		ds_cfa c;
		CHECK(!ds_dso_cfa_at(d, 0, &c));
		CHECK(!ds_dso_cfa_at(d, UINT64_MAX, &c));
	}
	ds_dso_close(d);
}

/* The libc this process runs with, from /proc/self/maps. */
static bool libc_path(char *out, size_t size)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	bool found = false;

	while (f && !found && fgets(line, sizeof line, f)) {
		char *p = strchr(line, '/');
		if (!p || !strstr(p, "/libc.so"))
			continue;
		p[strcspn(p, "\n")] = '\0';
		snprintf(out, size, "%s", p);
		found = true;
	}
	if (f)
		fclose(f);
	return found;
}

TEST(libc)
{
	char path[PATH_MAX], *root = unit_tpath("noroot");
	ds_dso_opts o = {.debug_root = root};
	ds_err err;
	ds_dso *d = NULL;
	double t0;
	ds_cfa c;

	CHECK(libc_path(path, sizeof path));
	d = ds_dso_open(path, &o, &err);
	free(root);
	if (d) {
		/* the first query builds the index */
		t0 = ds_now();
		ds_dso_cfa_at(d, 0, &c);
		printf("# %s: FDE index built in %.2f ms\n", path, (ds_now() - t0) * 1e3);
	}
	check_file(d, path, 10000);
	ds_dso_close(d);
}

TEST(gcc)
{
	ds_cfa c;
	ds_dso *d;
	uint64_t data;

	CHECK(unit_write_text("prog.c", prog_c));
	CHECK(unit_sh("gcc -O2 -fexceptions -o o2 prog.c"));
	check_tmp("o2", 40);
	CHECK(unit_sh("gcc -O0 -fno-omit-frame-pointer -o o0 prog.c"));
	check_tmp("o0", 40);

	/* outside every FDE: data, and nothing at all */
	d = unit_open_dso("o2", NULL);
	data = unit_nm_addr("o2", "table");
	CHECK(data != 0);
	CHECK(d && !ds_dso_cfa_at(d, data, &c));
	CHECK(d && !ds_dso_cfa_at(d, 0, &c));
	ds_dso_close(d);
}

TEST(clang)
{
	if (!unit_have("clang")) {
		unit_skip("clang is not installed");
		return;
	}
	CHECK(unit_sh("clang -O2 -o clang2 prog.c"));
	check_tmp("clang2", 30);
	/* .debug_frame with version 4 CIEs */
	CHECK(unit_sh("clang -O1 -g -fno-asynchronous-unwind-tables -o clangdf prog.c"));
	check_tmp("clangdf", 30);
}

TEST(debug_frame)
{
	CHECK(unit_sh("gcc -O2 -g -fno-asynchronous-unwind-tables -fno-unwind-tables -o df prog.c"));
	check_tmp("df", 30);
	/* .debug_frame only in the separate debug file (compressed there) */
	CHECK(unit_sh("cp df dl && objcopy --only-keep-debug --compress-debug-sections dl dl.debug && "
		 "objcopy --strip-all --add-gnu-debuglink=dl.debug dl"));
	check_tmp("dl", 30);
}

TEST(opcodes)
{
	ds_dso *d;
	uint64_t fn;
	ds_cfa c = {0};

	CHECK(unit_write_text("ops.s", ops_s) && unit_write_text("opsmain.c", ops_main_c));
	CHECK(unit_sh("gcc -O2 -o ops opsmain.c ops.s"));
	check_tmp("ops", 25);
	d = unit_open_dso("ops", NULL);
	fn = unit_nm_addr("ops", "cfi_ops");
	CHECK(d && fn && ds_dso_cfa_at(d, fn, &c));
	CHECK(c.cfa_reg == 7 && c.cfa_offset == 8 && c.ra_saved && c.ra_offset == -8);
	CHECK(d && ds_dso_cfa_at(d, fn + 4, &c) && c.cfa_reg == 6 && c.cfa_offset == 16);
	ds_dso_close(d);
}

/* A relocatable object: its FDEs' start addresses are relocations against
 * .text (R_X86_64_PC32, the bytes zero), so unrelocated every FDE would
 * start at its own offset in .eh_frame.  Relocated, cfi_ops' rules are found
 * at its offset in .text, where the object has it, past another function. */
TEST(object)
{
	static const char first_s[] = "  .text\n"
				      "first:\n"
				      "  .cfi_startproc\n"
				      "  .fill 40, 1, 0x90\n"
				      "  ret\n"
				      "  .cfi_endproc\n";
	ds_dso *d;
	uint64_t fn;
	ds_cfa c = {0};

	CHECK(unit_write_text("ops.s", ops_s) && unit_write_text("first.s", first_s));
	CHECK(unit_sh("cat first.s ops.s >both.s && gcc -c -o both.o both.s"));
	d = unit_open_dso("both.o", NULL);
	fn = unit_nm_addr("both.o", "cfi_ops");
	CHECK(fn == 41);
	CHECK(d && ds_dso_cfa_at(d, fn, &c) && c.cfa_reg == 7 && c.cfa_offset == 8);
	CHECK(d && ds_dso_cfa_at(d, fn + 4, &c) && c.cfa_reg == 6 && c.cfa_offset == 16);
	CHECK(d && ds_dso_cfa_at(d, 0, &c) && c.cfa_reg == 7 && c.cfa_offset == 8);
	ds_dso_close(d);
}

TEST(handmade_debug_frame)
{
	ds_dso *d;
	ds_cfa c = {0};
	char name[8];
	uint64_t a;

	CHECK(unit_write_text("hand.s", hand_s) && unit_write_text("hmain.c", hostile_main_c));
	CHECK(unit_sh("gcc -O2 -o hand hmain.c hand.s"));
	check_tmp("hand", 24);
	d = unit_open_dso("hand", NULL);
	for (int i = 0; d && i < 8; i++) {
		snprintf(name, sizeof name, "df_%d", i);
		a = unit_nm_addr("hand", name);
		CHECK(a && ds_dso_cfa_at(d, a + 2, &c) && c.cfa_reg == 7 && c.cfa_offset == 16);
		CHECK(a && ds_dso_cfa_at(d, a + 3, &c) && c.cfa_reg == 7 && c.cfa_offset == 8);
	}
	ds_dso_close(d);
}

TEST(i386)
{
	static const char src[] =
		"static volatile int sink;\n"
		"__attribute__((noinline)) static int leaf(int x) { return x * 3 + sink; }\n"
		"__attribute__((noinline)) int many(int n) {\n"
		"  int a[8] = {0}; int s = 0;\n"
		"  for (int i = 0; i < n; i++) { a[i & 7] += leaf(i); s += a[(i * 3) & 7] * leaf(s); }\n"
		"  return s + a[1]; }\n"
		"void _start(void) { sink = many(sink); for (;;) ; }\n";

	CHECK(unit_write_text("s32.c", src));
	if (!unit_sh("gcc -m32 -O2 -nostdlib -static -fno-pie -no-pie -o s32 s32.c")) {
		unit_skip("gcc cannot build 32-bit code here");
		return;
	}
	check_tmp("s32", 10);
}

TEST(vdso)
{
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	FILE *f = fopen("/proc/self/maps", "r"), *out;
	unsigned long lo = 0, hi = 0;
	char line[512], *path = unit_tpath("vdso.so");
	const ds_symbol *s = NULL;
	ds_err err;
	ds_dso *d;
	ds_cfa c = {0};

	while (f && fgets(line, sizeof line, f))
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			break;
	if (f)
		fclose(f);
	if (!base || base != lo) {
		unit_skip("no vdso");
		free(path);
		return;
	}
	out = fopen(path, "wb");
	CHECK(out && fwrite((const void *)base, 1, hi - lo, out) == hi - lo);
	if (out)
		fclose(out);
	d = ds_dso_open_mem((const void *)base, hi - lo, "[vdso]", &err);
	check_file(d, path, 5);
	for (size_t i = 0; d && i < ds_dso_nsymbols(d); i++)
		if (strcmp(ds_dso_symbol(d, i)->name, "__vdso_clock_gettime") == 0)
			s = ds_dso_symbol(d, i);
	CHECK(s && ds_dso_cfa_at(d, s->start, &c));
	CHECK(c.cfa_reg == 7 && c.cfa_offset == 8 && c.ra_saved && c.ra_offset == -8);
	ds_dso_close(d);
	free(path);
}

TEST(kallsyms)
{
	char *p = unit_tpath("kallsyms");
	ds_err err;
	ds_dso *d;
	ds_cfa c;

	CHECK(unit_write_text("kallsyms", "ffffffff81000000 T _text\nffffffff81000100 t helper\n"));
	d = ds_dso_open_kallsyms(p, false, &err);
	CHECK(d && !ds_dso_cfa_at(d, 0xffffffff81000100ull, &c));
	ds_dso_close(d);
	free(p);
}

TEST(hostile_cfi)
{
	static const char *const bad[] = {"deep", "underflow", "unknown_op", "huge_reg",
					  "overflow", "many_ops"};
	ds_dso *d;
	ds_cfa c;
	uint64_t a;

	CHECK(unit_write_text("hostile.s", hostile_s) && unit_write_text("hmain.c", hostile_main_c));
	CHECK(unit_sh("gcc -O2 -o hostile hmain.c hostile.s"));
	d = unit_open_dso("hostile", NULL);
	CHECK(d != NULL);
	if (!d)
		return;
	a = unit_nm_addr("hostile", "sane");
	CHECK(a && ds_dso_cfa_at(d, a, &c) && c.cfa_reg == 7 && c.cfa_offset == 8);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		a = unit_nm_addr("hostile", bad[i]);
		CHECK(a != 0);
		CHECK(!ds_dso_cfa_at(d, a + 1, &c));
	}
	ds_dso_close(d);
}

/* .eh_frame's file offset and size from readelf -S. */
static bool eh_frame_extent(const char *bin, uint64_t *off, uint64_t *size)
{
	char *cmd = ds_xasprintf("readelf -SW '%s/%s'", unit_tmp, bin);
	FILE *p = popen(cmd, "r");
	char line[512], *s;
	unsigned long long addr, o, n;
	bool found = false;

	while (p && fgets(line, sizeof line, p))
		if ((s = strstr(line, " .eh_frame ")) &&
		    sscanf(s, " .eh_frame PROGBITS %llx %llx %llx", &addr, &o, &n) == 3) {
			*off = o;
			*size = n;
			found = true;
		}
	if (p)
		pclose(p);
	free(cmd);
	return found;
}

/* Query every address of every function; the answers do not matter. */
static size_t query_all(const char *name)
{
	ds_dso *d = unit_open_dso(name, NULL);
	size_t yes = 0;
	ds_cfa c;

	for (size_t i = 0; d && i < ds_dso_nsymbols(d); i++) {
		const ds_symbol *s = ds_dso_symbol(d, i);
		for (uint64_t a = s->start; a < s->start + s->size && a - s->start < 4096; a++)
			yes += ds_dso_cfa_at(d, a, &c);
	}
	ds_dso_close(d);
	return yes;
}

TEST(corrupt_eh_frame)
{
	static const uint8_t tricky[] = {0x00, 0xff, 0x0a, 0x0b, 0x0f, 0x2e, 0x40, 0x80, 0xc0, 0x1d};
	uint64_t off = 0, size = 0;
	size_t good;
	int round, changed = 0;
	ds_buf cmd = {0};

	CHECK(unit_sh("gcc -O2 -fexceptions -o small prog.c"));
	CHECK(eh_frame_extent("small", &off, &size) && size > 64);
	good = query_all("small");
	CHECK(good > 100);
	srand(5);
	for (round = 0; round < 300 && size; round++) {
		ds_buf_reset(&cmd);
		ds_buf_puts(&cmd, "cp small fz");
		for (int k = 0; k < 1 + round % 12; k++) {
			unsigned v = rand() & 1 ? (unsigned)rand() & 0xff
						: tricky[(unsigned)rand() % sizeof tricky];
			ds_buf_printf(&cmd, " && printf '\\%03o' | dd of=fz bs=1 seek=%llu count=1 "
				      "conv=notrunc", v, (unsigned long long)(off + (uint64_t)rand() % size));
		}
		if (!unit_sh("%s", ds_buf_str(&cmd)))
			break;
		changed += query_all("fz") != good;
	}
	ds_buf_free(&cmd);
	printf("# %d corrupt copies, %d of them changed the answers\n", round, changed);
	/* getting here at all is the test: ASan and UBSan watch the reads */
	CHECK(round == 300);
}

int main(void)
{
	if (!unit_tmpdir("dsprof-cfi"))
		return 1;
	RUN(self);
	RUN(libc);
	RUN(gcc);
	RUN(clang);
	RUN(debug_frame);
	RUN(opcodes);
	RUN(object);
	RUN(handmade_debug_frame);
	RUN(i386);
	RUN(vdso);
	RUN(kallsyms);
	RUN(hostile_cfi);
	RUN(corrupt_eh_frame);
	printf("# readelf rows compared: %zu (%zu lookups), %zu lookups agree\n", total_rows,
	       total_lookups, total_agree);
	unit_sh("rm -rf '%s'", unit_tmp);
	return unit_done();
}
