/*
 * dwarfmap variables: globals, statics and thread-locals, and the
 * parameters and locals in scope at a pc with their locations.  On one
 * program built here with gcc and clang at -O0 and -O2 in DWARF 4 and 5, a
 * C++ program (specifications), hand-written DWARF for the forms those
 * compilers do not emit, and a large binary (dsprof).  The oracles: nm for
 * addresses, the registers the compiler chose for asm operands (read back
 * with objdump), and gdb's `info scope`, whose description of every
 * location, and of every entry of every location list, is compared with
 * ds_dso_vars_at.  Then hostile DWARF, and the load time of the large one.
 */
#include "dwarfmap/dwarfmap.h"
#include "tests/unit/unit.h"
#include "tests/unit/unit_dso.h"

#include <gelf.h>
#include <libgen.h>
#include <limits.h>
#include <unistd.h>

/* tls_count follows a 24-byte thread-local, so its offset is not 0; sq's
 * and blocky's asm name the register that holds t and inner. */
static const char prog_c[] =
	"#include <stdio.h>\n"
	"struct cell { int x; double y; char tag[4]; };\n"
	"struct node { long val; struct node *next; };\n"
	"typedef struct cell cell_t;\n"
	"struct cell grid[16];\n"
	"long counter = 3;\n"
	"static int hidden[5][3];\n"
	"__thread long tls_first[3] = {1};\n"
	"__thread int tls_count = 2;\n"
	"const cell_t *volatile cptr;\n"
	"struct node nodes[8];\n"
	"extern int spec_var;\n"
	"static inline __attribute__((always_inline)) int sq(int v)\n"
	"{\n"
	"	int t = v * v;\n"
	"	__asm__ volatile(\".globl mark_inline\\nmark_inline:\\n\\ttest %0, %0\"\n"
	"			 : : \"r\"(t) : \"cc\");\n"
	"	return t + 1;\n"
	"}\n"
	"__attribute__((noinline)) long sum_cells(const struct cell *c, int n)\n"
	"{\n"
	"	long s = 0;\n"
	"	for (int i = 0; i < n; i++)\n"
	"		s += c[i].x;\n"
	"	return s;\n"
	"}\n"
	"__attribute__((noinline)) int use_buf(int k)\n"
	"{\n"
	"	char buf[32];\n"
	"	static int calls;\n"
	"	calls++;\n"
	"	for (int i = 0; i < 32; i++)\n"
	"		buf[i] = (char)(k + i);\n"
	"	return buf[k & 31] + sq(k) + calls;\n"
	"}\n"
	"__attribute__((noinline)) int blocky(int k)\n"
	"{\n"
	"	int outer = k * 3;\n"
	"	if (k > 0) {\n"
	"		int inner = outer + k;\n"
	"		__asm__ volatile(\".globl mark_block\\nmark_block:\\n\\ttest %0, %0\"\n"
	"				 : : \"r\"(inner) : \"cc\");\n"
	"		counter += inner;\n"
	"	}\n"
	"	return outer + spec_var;\n"
	"}\n"
	"__attribute__((noinline)) long walk(const struct node *p)\n"
	"{\n"
	"	long s = 0;\n"
	"	while (p) {\n"
	"		s += p->val;\n"
	"		p = p->next;\n"
	"	}\n"
	"	return s;\n"
	"}\n"
	"int spec_var = 7;\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	(void)argv;\n"
	"	for (int i = 0; i < 16; i++)\n"
	"		grid[i].x = i * argc;\n"
	"	for (int i = 0; i < 8; i++) {\n"
	"		nodes[i].val = i;\n"
	"		nodes[i].next = i < 7 ? &nodes[i + 1] : NULL;\n"
	"	}\n"
	"	tls_count += (int)tls_first[argc % 3];\n"
	"	cptr = &grid[argc & 15];\n"
	"	hidden[argc % 5][argc % 3] = argc;\n"
	"	printf(\"%ld %d %d %ld %d\\n\", sum_cells(grid, 16), use_buf(argc), blocky(argc),\n"
	"	       walk(nodes), hidden[1][argc % 3] + tls_count);\n"
	"	return 0;\n"
	"}\n";

/* A static member and a namespace variable: their definitions name
 * their declarations (DW_AT_specification), a DW_TAG_member in DWARF 4. */
static const char prog_cc[] =
	"namespace ns {\n"
	"int value = 4;\n"
	"struct S { static long count; int m; };\n"
	"long S::count = 9;\n"
	"}\n"
	"__attribute__((noinline)) static int helper(ns::S *s)\n"
	"{\n"
	"	int local = s->m;\n"
	"	return local + ns::value;\n"
	"}\n"
	"int main(int argc, char **)\n"
	"{\n"
	"	ns::S s{argc};\n"
	"	return helper(&s) + (int)ns::S::count;\n"
	"}\n";

/* Hand-written DWARF for the forms the compilers here do not emit: a
 * DWARF 5 unit (DW_FORM_addrx, loclistx, rnglistx; DW_LLE_startx_endx,
 * startx_length, start_end, start_length, default_location, a GNU view
 * pair; every DW_RLE_ kind; DW_OP_bregx, regx, constx, implicit_value,
 * GNU_uninit, pieces, an empty expression, DW_AT_const_value) and a
 * DWARF 4 unit whose .debug_loc and .debug_ranges select base addresses.
 * f is _start: 32 nops; g: 16 nops; the CFA is rsp + 8 throughout. */
static const char hand_s[] =
	"	.file 1 \"hand.c\"\n"
	"	.text\n"
	"	.globl _start\n"
	"	.type _start, @function\n"
	"_start:\n"
	"	.cfi_startproc\n"
	"	.loc 1 1\n"
	"	.fill 32, 1, 0x90\n"
	"	mov $60, %eax\n"
	"	xor %edi, %edi\n"
	"	syscall\n"
	"	.cfi_endproc\n"
	".Lf_end:\n"
	"	.size _start, .-_start\n"
	"	.type g, @function\n"
	"g:\n"
	"	.cfi_startproc\n"
	"	.loc 1 2\n"
	"	.fill 16, 1, 0x90\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".Lg_end:\n"
	"	.size g, .-g\n"
	"\n"
	"	.data\n"
	"gvar:	.quad 1, 2, 3, 4\n"
	"sdata:	.long 7\n"
	"fdata:	.long 9\n"
	"\n"
	"	.section .debug_abbrev,\"\",@progbits\n"
	".Labbrev5:\n"
	"	.uleb128 1, 0x11; .byte 1\n"
	"	.uleb128 0x03, 0x08, 0x11, 0x01, 0x12, 0x07, 0x73, 0x17, 0x8c, 0x17, 0x74, 0x17, 0, 0\n"
	"	.uleb128 2, 0x2e; .byte 1\n"
	"	.uleb128 0x03, 0x08, 0x11, 0x1b, 0x12, 0x06, 0x40, 0x18, 0, 0\n"
	"	.uleb128 3, 0x05; .byte 0\n"
	"	.uleb128 0x03, 0x08, 0x49, 0x13, 0x02, 0x18, 0, 0\n"
	"	.uleb128 4, 0x34; .byte 0\n"
	"	.uleb128 0x03, 0x08, 0x49, 0x13, 0x02, 0x22, 0, 0\n"
	"	.uleb128 5, 0x0b; .byte 1\n"
	"	.uleb128 0x55, 0x23, 0, 0\n"
	"	.uleb128 6, 0x24; .byte 0\n"
	"	.uleb128 0x03, 0x08, 0x0b, 0x0b, 0x3e, 0x0b, 0, 0\n"
	"	.uleb128 7, 0x34; .byte 0\n"
	"	.uleb128 0x03, 0x08, 0x49, 0x13, 0x1c, 0x0b, 0, 0\n"
	"	.uleb128 8, 0x34; .byte 0\n"
	"	.uleb128 0x03, 0x08, 0x49, 0x13, 0x02, 0x17, 0, 0\n"
	"	.uleb128 9, 0x0b; .byte 1\n"
	"	.uleb128 0x55, 0x17, 0, 0\n"
	"	.uleb128 10, 0x01; .byte 1\n"
	"	.uleb128 0x49, 0x13, 0, 0\n"
	"	.uleb128 11, 0x21; .byte 0\n"
	"	.uleb128 0x37, 0x0b, 0, 0\n"
	"	.uleb128 13, 0x21; .byte 0\n"
	"	.uleb128 0x2f, 0x0b, 0, 0\n"
	"	.uleb128 14, 0x34; .byte 0\n"
	"	.uleb128 0x03, 0x08, 0x49, 0x13, 0x02, 0x18, 0, 0\n"
	"	.byte 0\n"
	".Labbrev4:\n"
	"	.uleb128 1, 0x11; .byte 1\n"
	"	.uleb128 0x03, 0x08, 0x11, 0x01, 0x12, 0x07, 0, 0\n"
	"	.uleb128 2, 0x24; .byte 0\n"
	"	.uleb128 0x03, 0x08, 0x0b, 0x0b, 0x3e, 0x0b, 0, 0\n"
	"	.uleb128 3, 0x2e; .byte 1\n"
	"	.uleb128 0x03, 0x08, 0x11, 0x01, 0x12, 0x07, 0x40, 0x18, 0, 0\n"
	"	.uleb128 4, 0x34; .byte 0\n"
	"	.uleb128 0x03, 0x08, 0x49, 0x13, 0x02, 0x17, 0, 0\n"
	"	.uleb128 5, 0x0b; .byte 1\n"
	"	.uleb128 0x55, 0x17, 0, 0\n"
	"	.uleb128 6, 0x34; .byte 0\n"
	"	.uleb128 0x03, 0x08, 0x49, 0x13, 0x02, 0x18, 0, 0\n"
	"	.byte 0\n"
	"\n"
	"	.section .debug_info,\"\",@progbits\n"
	".Lcu5:\n"
	"	.long .Lcu5_end - .Lcu5_start\n"
	".Lcu5_start:\n"
	"	.short 5\n"
	"	.byte 1, 8\n"
	"	.long .Labbrev5\n"
	"	.uleb128 1\n"
	"	.string \"hand.c\"\n"
	"	.quad _start, .Lf_end - _start\n"
	"	.long .Laddr_base, .Lll_base, .Lrl_base\n"
	".Lint:	.uleb128 6\n"
	"	.string \"int\"\n"
	"	.byte 4, 5\n"
	".Llong:	.uleb128 6\n"
	"	.string \"long\"\n"
	"	.byte 8, 5\n"
	".Larr4:	.uleb128 10\n"
	"	.long .Llong - .Lcu5\n"
	"	.uleb128 11\n"
	"	.byte 4\n"
	"	.byte 0\n"
	".Larr1:	.uleb128 10\n"
	"	.long .Lint - .Lcu5\n"
	"	.uleb128 13\n"
	"	.byte 0\n"
	"	.byte 0\n"
	"	.uleb128 14\n"
	"	.string \"gvar\"\n"
	"	.long .Larr4 - .Lcu5\n"
	"	.uleb128 2\n"
	"	.byte 0xa1, 1			/* DW_OP_addrx 1 */\n"
	"	.uleb128 14\n"
	"	.string \"sarr\"\n"
	"	.long .Larr1 - .Lcu5\n"
	"	.uleb128 9\n"
	"	.byte 0x03			/* DW_OP_addr */\n"
	"	.quad sdata\n"
	"	.uleb128 14\n"
	"	.string \"tls_var\"\n"
	"	.long .Llong - .Lcu5\n"
	"	.uleb128 3\n"
	"	.byte 0x08, 0, 0xe0		/* DW_OP_const1u 0, DW_OP_GNU_push_tls_address */\n"
	"	.uleb128 14\n"
	"	.string \"tls_x\"\n"
	"	.long .Lint - .Lcu5\n"
	"	.uleb128 3\n"
	"	.byte 0xa2, 9, 0x9b		/* DW_OP_constx 9, DW_OP_form_tls_address */\n"
	"	.uleb128 2\n"
	"	.string \"f\"\n"
	"	.uleb128 0			/* DW_AT_low_pc: DW_FORM_addrx 0 */\n"
	"	.long .Lf_end - _start\n"
	"	.uleb128 1\n"
	"	.byte 0x9c			/* DW_OP_call_frame_cfa */\n"
	"	.uleb128 3\n"
	"	.string \"p_entry\"\n"
	"	.long .Lint - .Lcu5\n"
	"	.uleb128 4\n"
	"	.byte 0xa3, 1, 0x55, 0x9f	/* DW_OP_entry_value(DW_OP_reg5), DW_OP_stack_value */\n"
	"	.uleb128 3\n"
	"	.string \"p_fb\"\n"
	"	.long .Llong - .Lcu5\n"
	"	.uleb128 2\n"
	"	.byte 0x91, 0x70		/* DW_OP_fbreg -16 */\n"
	"	.uleb128 3\n"
	"	.string \"p_bregx\"\n"
	"	.long .Llong - .Lcu5\n"
	"	.uleb128 3\n"
	"	.byte 0x92, 3, 0x68		/* DW_OP_bregx 3 -24 */\n"
	"	.uleb128 3\n"
	"	.string \"p_regx\"\n"
	"	.long .Llong - .Lcu5\n"
	"	.uleb128 2\n"
	"	.byte 0x90, 17			/* DW_OP_regx 17 */\n"
	"	.uleb128 4\n"
	"	.string \"v_list\"\n"
	"	.long .Lint - .Lcu5\n"
	"	.uleb128 0			/* DW_FORM_loclistx 0 */\n"
	"	.uleb128 8\n"
	"	.string \"v_view\"\n"
	"	.long .Lint - .Lcu5\n"
	"	.long .Lll1			/* DW_FORM_sec_offset */\n"
	"	.uleb128 7\n"
	"	.string \"v_const\"\n"
	"	.long .Lint - .Lcu5\n"
	"	.byte 5\n"
	"	.uleb128 14\n"
	"	.string \"v_piece\"\n"
	"	.long .Llong - .Lcu5\n"
	"	.uleb128 6\n"
	"	.byte 0x50, 0x93, 4, 0x51, 0x93, 4 /* DW_OP_reg0 DW_OP_piece 4 DW_OP_reg1 DW_OP_piece 4 */\n"
	"	.uleb128 14\n"
	"	.string \"v_uninit\"\n"
	"	.long .Lint - .Lcu5\n"
	"	.uleb128 2\n"
	"	.byte 0x53, 0xf0		/* DW_OP_reg3 DW_OP_GNU_uninit */\n"
	"	.uleb128 14\n"
	"	.string \"fstatic\"\n"
	"	.long .Lint - .Lcu5\n"
	"	.uleb128 2\n"
	"	.byte 0xa1, 8			/* DW_OP_addrx 8 */\n"
	"	.uleb128 14\n"
	"	.string \"v_empty\"\n"
	"	.long .Lint - .Lcu5\n"
	"	.uleb128 0\n"
	"	.uleb128 5\n"
	"	.uleb128 0			/* DW_FORM_rnglistx 0 */\n"
	"	.uleb128 14\n"
	"	.string \"inner\"\n"
	"	.long .Lint - .Lcu5\n"
	"	.uleb128 1\n"
	"	.byte 0x58			/* DW_OP_reg8 */\n"
	"	.byte 0\n"
	"	.uleb128 9\n"
	"	.long .Lrl1\n"
	"	.uleb128 14\n"
	"	.string \"bvar\"\n"
	"	.long .Lint - .Lcu5\n"
	"	.uleb128 1\n"
	"	.byte 0x59			/* DW_OP_reg9 */\n"
	"	.byte 0\n"
	"	.byte 0\n"
	"	.byte 0\n"
	".Lcu5_end:\n"
	".Lcu4:\n"
	"	.long .Lcu4_end - .Lcu4_start\n"
	".Lcu4_start:\n"
	"	.short 4\n"
	"	.long .Labbrev4\n"
	"	.byte 8\n"
	"	.uleb128 1\n"
	"	.string \"hand4.c\"\n"
	"	.quad g, .Lg_end - g\n"
	".Lint4:	.uleb128 2\n"
	"	.string \"int\"\n"
	"	.byte 4, 5\n"
	"	.uleb128 3\n"
	"	.string \"g\"\n"
	"	.quad g, .Lg_end - g\n"
	"	.uleb128 1\n"
	"	.byte 0x9c\n"
	"	.uleb128 4\n"
	"	.string \"w4\"\n"
	"	.long .Lint4 - .Lcu4\n"
	"	.long .Lloc0\n"
	"	.uleb128 5\n"
	"	.long .Lrng0\n"
	"	.uleb128 6\n"
	"	.string \"b4\"\n"
	"	.long .Lint4 - .Lcu4\n"
	"	.uleb128 2\n"
	"	.byte 0x91, 0x6c		/* DW_OP_fbreg -20 */\n"
	"	.byte 0\n"
	"	.byte 0\n"
	"	.byte 0\n"
	".Lcu4_end:\n"
	"\n"
	"	.section .debug_addr,\"\",@progbits\n"
	"	.long .Laddr_end - .Laddr_start\n"
	".Laddr_start:\n"
	"	.short 5\n"
	"	.byte 8, 0\n"
	".Laddr_base:\n"
	"	.quad _start, gvar, _start + 8, _start + 10, _start + 12, _start + 22, _start + 23\n"
	"	.quad _start + 24, fdata, 8\n"
	".Laddr_end:\n"
	"\n"
	"	.section .debug_loclists,\"\",@progbits\n"
	"	.long .Lll_end - .Lll_start\n"
	".Lll_start:\n"
	"	.short 5\n"
	"	.byte 8, 0\n"
	"	.long 1\n"
	".Lll_base:\n"
	"	.long .Lll0 - .Lll_base\n"
	".Lll0:\n"
	"	.byte 1; .uleb128 0				/* base_addressx: _start */\n"
	"	.byte 4; .uleb128 0, 2, 1; .byte 0x50		/* offset_pair [0, 2): reg0 */\n"
	"	.byte 2; .uleb128 2, 3, 1; .byte 0x51		/* startx_endx [8, 10): reg1 */\n"
	"	/* startx_length [12, 14): implicit_value */\n"
	"	.byte 3; .uleb128 4, 2, 6; .byte 0x9e, 4; .long 42\n"
	"	/* start_end [14, 16): lit3 stack_value */\n"
	"	.byte 7; .quad _start + 14, _start + 16; .uleb128 2; .byte 0x33, 0x9f\n"
	"	/* start_length [16, 17): breg6 -8 */\n"
	"	.byte 8; .quad _start + 16; .uleb128 1, 2; .byte 0x76, 0x78\n"
	"	.byte 5; .uleb128 1; .byte 0x52			/* default_location: reg2 */\n"
	"	.byte 0\n"
	".Lll1:\n"
	"	.byte 9; .uleb128 1, 2				/* GNU view pair */\n"
	"	.byte 6; .quad _start				/* base_address */\n"
	"	.byte 4; .uleb128 4, 6, 1; .byte 0x54		/* offset_pair [4, 6): reg4 */\n"
	"	.byte 0\n"
	".Lll_end:\n"
	"\n"
	"	.section .debug_rnglists,\"\",@progbits\n"
	"	.long .Lrl_end - .Lrl_start\n"
	".Lrl_start:\n"
	"	.short 5\n"
	"	.byte 8, 0\n"
	"	.long 1\n"
	".Lrl_base:\n"
	"	.long .Lrl0 - .Lrl_base\n"
	".Lrl0:\n"
	"	.byte 1; .uleb128 0				/* base_addressx: _start */\n"
	"	.byte 4; .uleb128 20, 21			/* offset_pair [20, 21) */\n"
	"	.byte 2; .uleb128 5, 6				/* startx_endx [22, 23) */\n"
	"	.byte 3; .uleb128 7, 1				/* startx_length [24, 25) */\n"
	"	.byte 6; .quad _start + 26, _start + 27		/* start_end [26, 27) */\n"
	"	.byte 7; .quad _start + 28; .uleb128 1		/* start_length [28, 29) */\n"
	"	.byte 5; .quad _start + 10			/* base_address */\n"
	"	.byte 4; .uleb128 20, 21			/* offset_pair [30, 31) */\n"
	"	.byte 0\n"
	".Lrl1:\n"
	"	.byte 7; .quad _start + 2; .uleb128 3		/* start_length [2, 5) */\n"
	"	.byte 0\n"
	".Lrl_end:\n"
	"\n"
	"	.section .debug_loc,\"\",@progbits\n"
	".Lloc0:\n"
	"	.quad 0, 2; .short 1; .byte 0x50		/* [g, g + 2): reg0 */\n"
	"	.quad -1, g + 8					/* base address selection */\n"
	"	.quad 0, 2; .short 1; .byte 0x51		/* [g + 8, g + 10): reg1 */\n"
	"	.quad 0, 0\n"
	"\n"
	"	.section .debug_ranges,\"\",@progbits\n"
	".Lrng0:\n"
	"	.quad 4, 6					/* [g + 4, g + 6) */\n"
	"	.quad -1, g + 12\n"
	"	.quad 0, 1					/* [g + 12, g + 13) */\n"
	"	.quad 0, 0\n"
	"\n"
	"	.section .note.GNU-stack,\"\",@progbits\n";

typedef struct variant {
	const char *name, *cc, *flags;
	bool opt;
} variant;

static const variant variants[] = {
	{"g0d4", "gcc", "-O0 -gdwarf-4", false},
	{"g0d5", "gcc", "-O0 -gdwarf-5", false},
	{"g2d4", "gcc", "-O2 -gdwarf-4", true},
	{"g2d5", "gcc", "-O2 -gdwarf-5", true},
	{"c0d5", "clang", "-O0 -gdwarf-5", false},
	{"c2d4", "clang", "-O2 -gdwarf-4", true},
	{"c2d5", "clang", "-O2 -gdwarf-5", true},
};

static const ds_var *find_global(ds_dso *d, const char *name)
{
	for (size_t i = 0; i < ds_dso_nglobals(d); i++)
		if (strcmp(ds_dso_global(d, i)->name, name) == 0)
			return ds_dso_global(d, i);
	return NULL;
}

#define MAX_VARS 256

/* The first (innermost) variable called name in scope at pc, copied to *out. */
static bool var_at(ds_dso *d, uint64_t pc, const char *name, ds_var *out)
{
	ds_var v[MAX_VARS];
	size_t n = ds_dso_vars_at(d, pc, v, MAX_VARS);

	for (size_t i = 0; i < n && i < MAX_VARS; i++)
		if (strcmp(v[i].name, name) == 0) {
			*out = v[i];
			return true;
		}
	return false;
}

/* DWARF number of an x86-64 register as objdump or gdb names it, or -1. */
static int dwarf_reg(const char *name)
{
	static const char *const r64[] = {"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp"};
	static const char *const r32[] = {"eax", "edx", "ecx", "ebx", "esi", "edi", "ebp", "esp"};
	int n;

	if (*name == '%' || *name == '$')
		name++;
	for (int i = 0; i < 8; i++)
		if (strcmp(name, r64[i]) == 0 || strcmp(name, r32[i]) == 0)
			return i;
	if (sscanf(name, "r%d", &n) == 1 && n >= 8 && n <= 15)
		return n;
	if (sscanf(name, "xmm%d", &n) == 1 && n >= 0 && n <= 15)
		return 17 + n;
	return -1;
}

/* Address of the first symbol whose name contains part (statics are
 * "calls.0" for gcc, "use_buf.calls" for clang), 0 when none. */
static uint64_t nm_containing(const char *bin, const char *part)
{
	char *cmd = ds_xasprintf("nm -P '%s/%s' 2>/dev/null", unit_tmp, bin);
	FILE *p = popen(cmd, "r");
	char line[1024], sym[512], type[8];
	unsigned long long v;
	uint64_t addr = 0;

	while (p && fgets(line, sizeof line, p))
		if (!addr && sscanf(line, "%511s %7s %llx", sym, type, &v) == 3 && strstr(sym, part))
			addr = v;
	if (p)
		pclose(p);
	free(cmd);
	return addr;
}

/* The instructions of func as objdump prints them ("addr:\tinsn"). */
static size_t disassemble(const char *bin, const char *func, uint64_t *addrs, char (*text)[128],
			  size_t max)
{
	char *cmd = ds_xasprintf("objdump -d --no-show-raw-insn '%s/%s' 2>/dev/null", unit_tmp, bin);
	char *head = ds_xasprintf("<%s>:", func);
	FILE *p = popen(cmd, "r");
	char line[512];
	bool in = false;
	size_t n = 0;
	unsigned long long a;
	int used;

	while (p && fgets(line, sizeof line, p)) {
		if (strstr(line, head))
			in = true;
		else if (in && line[0] != ' ')
			in = false;
		else if (in && n < max && sscanf(line, " %llx:%n", &a, &used) == 1) {
			addrs[n] = a;
			snprintf(text[n++], sizeof text[0], "%s", ds_trim(line + used));
		}
	}
	if (p)
		pclose(p);
	free(cmd);
	free(head);
	return n;
}

/* ---- globals ---- */

static void check_globals(ds_dso *d, const variant *v)
{
	const ds_var *grid = find_global(d, "grid"), *counter = find_global(d, "counter");
	const ds_var *hidden = find_global(d, "hidden"), *cptr = find_global(d, "cptr");
	const ds_var *nodes = find_global(d, "nodes"), *calls = find_global(d, "calls");
	const ds_var *tls = find_global(d, "tls_count"), *tls1 = find_global(d, "tls_first");
	const ds_var *spec = find_global(d, "spec_var");
	const ds_var *g;
	uint64_t off = 0, addr = unit_nm_addr(v->name, "grid");
	bool sorted = true;

	CHECK(grid && grid->loc.kind == DS_LOC_ADDR && grid->loc.addr == addr && grid->size == 16 * 24);
	CHECK(grid && grid->global && !grid->param && grid->type_die && !grid->function);
	CHECK(counter && counter->loc.addr == unit_nm_addr(v->name, "counter") && counter->size == 8);
	CHECK(hidden && hidden->loc.addr == unit_nm_addr(v->name, "hidden") && hidden->size == 60);
	CHECK(cptr && cptr->loc.addr == unit_nm_addr(v->name, "cptr") && cptr->size == 8);
	CHECK(nodes && nodes->loc.addr == unit_nm_addr(v->name, "nodes") && nodes->size == 128);
	CHECK(spec && spec->loc.addr == unit_nm_addr(v->name, "spec_var") && spec->size == 4);
	CHECK(calls && calls->loc.addr == nm_containing(v->name, "calls") && calls->size == 4);
	CHECK_STR(calls ? calls->function : NULL, "use_buf");
	/* nm shows a thread-local's offset in the TLS block */
	CHECK(tls && tls->loc.kind == DS_LOC_TLS && tls->size == 4);
	CHECK(tls1 && tls1->loc.kind == DS_LOC_TLS && tls1->size == 24);
	CHECK(tls && tls1 && tls->loc.offset != tls1->loc.offset);
	CHECK_EQ_U64(tls ? (uint64_t)tls->loc.offset : 1, unit_nm_addr(v->name, "tls_count"));
	CHECK_EQ_U64(tls1 ? (uint64_t)tls1->loc.offset : 1, unit_nm_addr(v->name, "tls_first"));

	/* sorted: static addresses ascending, then the thread-locals */
	for (size_t i = 1; i < ds_dso_nglobals(d); i++) {
		const ds_var *a = ds_dso_global(d, i - 1), *b = ds_dso_global(d, i);
		if (a->loc.kind == DS_LOC_TLS ? b->loc.kind != DS_LOC_TLS
					      : b->loc.kind == DS_LOC_ADDR && b->loc.addr < a->loc.addr)
			sorted = false;
	}
	CHECK(sorted);
	CHECK(ds_dso_global(d, ds_dso_nglobals(d)) == NULL);

	g = ds_dso_global_at(d, addr + 5 * 24 + 8, &off); /* grid[5].y */
	CHECK(g == grid && off == 128);
	g = ds_dso_global_at(d, addr + 16 * 24 - 1, &off);
	CHECK(g == grid && off == 16 * 24 - 1);
	g = ds_dso_global_at(d, unit_nm_addr(v->name, "nodes") + 3 * 16 + 8, &off);
	CHECK(g == nodes && off == 56);
	g = ds_dso_global_at(d, unit_nm_addr(v->name, "counter"), &off);
	CHECK(g == counter && off == 0);
	CHECK(ds_dso_global_at(d, unit_nm_addr(v->name, "main"), &off) == NULL);
	CHECK(ds_dso_global_at(d, 0, &off) == NULL);
}

/* ---- parameters and locals ---- */

/* The register objdump shows in the asm marker's `test %reg,%reg`. */
static int marker_reg(const char *bin, const char *mark)
{
	uint64_t a[4];
	char t[4][128], reg[16];

	if (disassemble(bin, mark, a, t, 4) == 0 || sscanf(t[0], "test %%%15[a-z0-9]", reg) != 1)
		return -1;
	return dwarf_reg(reg);
}

/* The marker in the inlined sq: its variables first, function "sq", then
 * the caller's. */
static void check_inlined(ds_dso *d, const variant *v)
{
	uint64_t pc = unit_nm_addr(v->name, "mark_inline");
	ds_var vars[MAX_VARS];
	size_t n = ds_dso_vars_at(d, pc, vars, MAX_VARS), nsq = 0;
	ds_var t = {0}, par = {0}, k = {0};
	bool sq_first = true;

	for (size_t i = 0; i < n && i < MAX_VARS; i++) {
		bool in_sq = vars[i].function && strcmp(vars[i].function, "sq") == 0;
		if (in_sq && i != nsq++)
			sq_first = false;
	}
	CHECK(pc != 0 && nsq == 2 && sq_first);
	CHECK(var_at(d, pc, "v", &par) && par.param && par.size == 4);
	CHECK_STR(par.function, "sq");
	CHECK(var_at(d, pc, "t", &t) && !t.param);
	CHECK(var_at(d, pc, "k", &k) && k.param);
	CHECK_STR(k.function, "use_buf");
	if (v->opt)
		CHECK(t.loc.kind == DS_LOC_REG && t.loc.reg == marker_reg(v->name, "mark_inline"));
	else
		CHECK(t.loc.kind == DS_LOC_MEM && t.loc.reg == 6);
	/* fewer slots than variables: the count stays, the copy stops */
	CHECK(ds_dso_vars_at(d, pc, vars, 1) == n && strcmp(vars[0].function, "sq") == 0);
}

static void check_block(ds_dso *d, const variant *v)
{
	uint64_t pc = unit_nm_addr(v->name, "mark_block");
	ds_var vars[MAX_VARS], inner = {0};
	size_t n = ds_dso_vars_at(d, pc, vars, MAX_VARS);

	CHECK(n >= 3 && strcmp(vars[0].name, "inner") == 0);
	CHECK(var_at(d, pc, "inner", &inner) && var_at(d, pc, "outer", &vars[1]) &&
	      var_at(d, pc, "k", &vars[2]) && vars[2].param);
	CHECK_STR(inner.function, "blocky");
	if (v->opt)
		CHECK(inner.loc.kind == DS_LOC_REG &&
		      inner.loc.reg == marker_reg(v->name, "mark_block"));
	else
		CHECK(inner.loc.kind == DS_LOC_MEM && inner.loc.reg == 6);
}

/* walk's loop loads p->next through the register that holds p. */
static void check_register_param(ds_dso *d, const variant *v)
{
	uint64_t a[64];
	char t[64][128], reg[16];
	size_t n = disassemble(v->name, "walk", a, t, 64);
	ds_var p = {0};
	bool found = false;

	for (size_t i = 0; i < n && !found; i++) {
		if (!ds_str_has_prefix(t[i], "mov") || sscanf(t[i], "%*s 0x8(%%%15[a-z0-9]),", reg) != 1)
			continue;
		found = true;
		CHECK(var_at(d, a[i], "p", &p) && p.param && p.size == 8);
		CHECK(p.loc.kind == DS_LOC_REG && p.loc.reg == dwarf_reg(reg));
		CHECK_STR(p.function, "walk");
	}
	CHECK(found);
}

/* ---- gdb's `info scope` as the oracle ---- */

typedef struct want {
	enum ds_loc_kind kind;
	int reg;
	int64_t offset;
	uint64_t addr;
	bool cfa;       /* MEM at the CFA + offset (DW_OP_fbreg over DW_OP_call_frame_cfa) */
	bool entry_reg; /* DW_OP_entry_value(DW_OP_regN): NONE, or REG N at the entry */
} want;

/* gdb's "DW_OP_..." lines of a complex expression. */
static bool parse_complex(const char *s, want *w)
{
	char ops[8][40];
	int n = 0;
	long long a = 0;

	for (const char *p = strstr(s, "DW_OP_"); p && n < 8; p = strstr(p + 1, "DW_OP_"))
		if (sscanf(p, "%39s", ops[n]) == 1 && n++ == 0 && strcmp(ops[0], "DW_OP_fbreg") == 0)
			sscanf(p, "DW_OP_fbreg %lld", &a);
	if (n == 0)
		return false;
	for (int i = 0; i < n; i++)
		if (strcmp(ops[i], "DW_OP_entry_value") == 0 || strcmp(ops[i], "DW_OP_GNU_entry_value") == 0) {
			w->kind = DS_LOC_NONE;
			w->entry_reg = n == 3 && i == 0 && strncmp(ops[1], "DW_OP_reg", 9) == 0 &&
				       strcmp(ops[2], "DW_OP_stack_value") == 0;
			w->reg = w->entry_reg ? atoi(ops[1] + 9) : 0;
			return true;
		}
	if (n == 1 && strcmp(ops[0], "DW_OP_fbreg") == 0) {
		w->kind = DS_LOC_MEM;
		w->cfa = true;
		w->offset = a;
		return true;
	}
	if (strcmp(ops[n - 1], "DW_OP_stack_value") == 0) {
		w->kind = DS_LOC_IMPLICIT;
		return true;
	}
	return false;
}

/* What gdb's description of a location means; false when it is one the
 * comparison does not cover. */
static bool parse_want(const char *s, want *w)
{
	char reg[16];
	long long a, b;
	unsigned long long x;

	memset(w, 0, sizeof *w);
	if (strstr(s, "Corrupted DWARF")) /* gdb gave up on it */
		return false;
	if (strstr(s, "-byte piece")) { /* a composite location */
		w->kind = DS_LOC_COMPLEX;
		return true;
	}
	if (sscanf(s, "a variable in $%15[a-z0-9]", reg) == 1) {
		w->kind = DS_LOC_REG;
		w->reg = dwarf_reg(reg);
		return w->reg >= 0;
	}
	if (sscanf(s, "a variable at frame base reg $%15[a-z0-9] offset %lld+%lld", reg, &a, &b) == 3 ||
	    (sscanf(s, "a variable at offset %lld from base reg $%15[a-z0-9]", &a, reg) == 2 &&
	     (b = 0) == 0)) {
		w->kind = DS_LOC_MEM;
		w->reg = dwarf_reg(reg);
		w->offset = a + b;
		return w->reg >= 0;
	}
	if (sscanf(s, "in static storage at address 0x%llx", &x) == 1) {
		w->kind = DS_LOC_ADDR;
		w->addr = x;
		return true;
	}
	if (sscanf(s, "a thread-local variable at offset 0x%llx", &x) == 1) {
		w->kind = DS_LOC_TLS;
		w->offset = (int64_t)x;
		return true;
	}
	if (ds_str_has_prefix(s, "the constant") || ds_str_has_prefix(s, "constant")) {
		w->kind = DS_LOC_IMPLICIT;
		return true;
	}
	if (ds_str_has_prefix(s, "optimized out")) {
		w->kind = DS_LOC_NONE;
		return true;
	}
	if (ds_str_has_prefix(s, "a complex DWARF expression"))
		return parse_complex(s, w);
	return false;
}

typedef struct tally {
	size_t compared, agree, missing, ambiguous;
	ds_buf why; /* the first disagreements */
	int nwhy;
} tally;

/* How many variables called name (any, for NULL) are in scope at pc: gdb's
 * symbol of that name may be any of them (an inlined callee's parameter,
 * say). */
static size_t names_at(ds_dso *d, uint64_t pc, const char *name)
{
	ds_var v[MAX_VARS];
	size_t n = ds_dso_vars_at(d, pc, v, MAX_VARS), k = 0;

	if (!name)
		return n;
	for (size_t i = 0; i < n && i < MAX_VARS; i++)
		k += strcmp(v[i].name, name) == 0;
	return k;
}

static const char *const kind_names[] = {
	"none", "addr", "tls", "reg", "mem", "implicit", "complex",
};

static void compare(ds_dso *d, const char *bin, const char *name, uint64_t pc, const want *w,
		    bool must_be_in_scope, tally *t)
{
	ds_var v;
	ds_cfa cfa;
	want x = *w;
	bool ok;

	if (names_at(d, pc, name) > 1) {
		t->ambiguous++;
		return;
	}
	if (!var_at(d, pc, name, &v)) {
		uint64_t off;
		const ds_var *g = x.kind == DS_LOC_ADDR ? ds_dso_global_at(d, x.addr, &off) : NULL;

		/* gdb also gives a concrete function the statics of its abstract
		 * origin, which dsprof knows as globals only */
		if (g && off == 0 && strcmp(g->name, name) == 0) {
			t->compared++;
			t->agree++;
			return;
		}
		/* gdb also lists labels, and variables of an abstract origin that
		 * no concrete block holds, as optimized out; at a pc in no
		 * function's DWARF it lists the unit's statics */
		if (must_be_in_scope && w->kind != DS_LOC_NONE && names_at(d, pc, NULL)) {
			t->missing++;
			if (t->nwhy++ < 10)
				ds_buf_printf(&t->why, "# %s %#" PRIx64 " %s: not in scope\n", bin, pc, name);
		}
		return;
	}
	if (x.cfa) {
		if (!ds_dso_cfa_at(d, pc, &cfa))
			return;
		x.reg = cfa.cfa_reg;
		x.offset += cfa.cfa_offset;
	}
	switch (x.kind) {
	case DS_LOC_REG:
		ok = v.loc.kind == DS_LOC_REG && v.loc.reg == x.reg;
		break;
	case DS_LOC_MEM:
		ok = v.loc.kind == DS_LOC_MEM && v.loc.reg == x.reg && v.loc.offset == x.offset;
		break;
	case DS_LOC_ADDR:
		ok = v.loc.kind == DS_LOC_ADDR && v.loc.addr == x.addr;
		break;
	case DS_LOC_TLS:
		ok = v.loc.kind == DS_LOC_TLS && v.loc.offset == x.offset;
		break;
	case DS_LOC_NONE:
		ok = v.loc.kind == DS_LOC_NONE ||
		     (x.entry_reg && v.loc.kind == DS_LOC_REG && v.loc.reg == x.reg);
		break;
	default:
		ok = v.loc.kind == x.kind;
		break;
	}
	t->compared++;
	if (ok) {
		t->agree++;
	} else if (t->nwhy++ < 10) {
		ds_buf_printf(&t->why,
			      "# %s %#" PRIx64 " %s: gdb %s r%d%+" PRId64 " %#" PRIx64
			      ", dsprof %s r%d%+" PRId64 " %#" PRIx64 "\n",
			      bin, pc, name, kind_names[x.kind], x.reg, x.offset, x.addr,
			      kind_names[v.loc.kind], v.loc.reg, v.loc.offset, v.loc.addr);
	}
}

/* One "Symbol NAME is DESC, length N." of info scope at the breakpoint pc:
 * a single location there, or a list whose every range is checked at its
 * first and last byte. */
static void check_symbol(ds_dso *d, const char *bin, char *text, uint64_t pc, ds_buf *seen,
			 tally *t)
{
	char name[128], key[132];
	char *is = strstr(text, " is "), *len = strstr(text, ", length"), *desc, *r;
	want w;

	if (len)
		*len = '\0';
	if (!is || sscanf(text, "Symbol %127s", name) != 1)
		return;
	/* gdb lists a name twice when it adds an abstract origin's variables
	 * to the concrete ones: which is which is unknown */
	snprintf(key, sizeof key, "\n%s\n", name);
	if (strstr(ds_buf_str(seen), key)) {
		t->ambiguous++;
		return;
	}
	ds_buf_puts(seen, key + 1);
	desc = is + 4;
	if (!ds_str_has_prefix(desc, "multi-location:")) {
		if (parse_want(desc, &w))
			compare(d, bin, name, pc, &w, true, t);
		return;
	}
	for (r = strstr(desc, "Range 0x"); r; r = strstr(r + 1, "Range 0x")) {
		unsigned long long lo, hi;
		char *next = strstr(r + 1, "Range 0x"), *colon = strstr(r, ": ");
		char saved = 0;

		if (sscanf(r, "Range 0x%llx-0x%llx", &lo, &hi) != 2 || !colon || lo >= hi)
			continue;
		if (next) {
			saved = *next;
			*next = '\0';
		}
		if (parse_want(colon + 2, &w)) {
			compare(d, bin, name, lo, &w, false, t);
			compare(d, bin, name, hi - 1, &w, false, t);
		}
		if (next)
			*next = saved;
	}
}

/* Break at each function of the file at path (the pc info scope
 * describes) and list its scope; bin names it in messages. */
static void gdb_cross_check(ds_dso *d, const char *path, const char *bin,
			    const char *const *funcs, size_t nfuncs, tally *t)
{
	ds_buf cmd = {0}, sym = {0}, seen = {0};
	char line[1024];
	unsigned long long pc = 0;
	FILE *p;

	ds_buf_printf(&cmd, "gdb -batch -nx");
	for (size_t i = 0; i < nfuncs; i++)
		ds_buf_printf(&cmd, " -ex 'break %s' -ex 'info scope %s'", funcs[i], funcs[i]);
	ds_buf_printf(&cmd, " '%s' 2>&1", path);
	p = popen(ds_buf_str(&cmd), "r");
	while (p && fgets(line, sizeof line, p)) {
		bool start = ds_str_has_prefix(line, "Symbol ") || ds_str_has_prefix(line, "Breakpoint ") ||
			     ds_str_has_prefix(line, "Scope for ");
		if (start && sym.len) {
			check_symbol(d, bin, sym.p, pc, &seen, t);
			ds_buf_reset(&sym);
		}
		if (ds_str_has_prefix(line, "Scope for ")) {
			ds_buf_reset(&seen);
			ds_buf_putc(&seen, '\n');
		}
		if (sscanf(line, "Breakpoint %*d at 0x%llx", &pc) == 1) {
			/* a name with several functions: which one info scope shows is unknown */
			if (strstr(line, "locations)"))
				pc = 0;
			continue;
		}
		if (pc && (ds_str_has_prefix(line, "Symbol ") || sym.len))
			ds_buf_puts(&sym, line);
	}
	if (sym.len)
		check_symbol(d, bin, sym.p, pc, &seen, t);
	if (p)
		pclose(p);
	ds_buf_free(&cmd);
	ds_buf_free(&sym);
	ds_buf_free(&seen);
}

TEST(programs)
{
	static const char *const funcs[] = {"main", "use_buf", "sum_cells", "walk", "blocky"};
	bool have_clang = unit_have("clang"), have_gdb = unit_have("gdb");
	tally all = {0};

	CHECK(unit_write_text("prog.c", prog_c));
	if (!have_gdb)
		unit_skip("gdb is not installed: no cross-check of locations");
	for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
		const variant *v = &variants[i];
		tally t = {0};
		ds_dso *d;

		if (strcmp(v->cc, "clang") == 0 && !have_clang) {
			unit_skip("clang is not installed");
			continue;
		}
		CHECK(unit_sh("%s %s -g -w -o %s prog.c", v->cc, v->flags, v->name));
		d = unit_open_dso(v->name, NULL);
		CHECK(d != NULL);
		if (!d)
			continue;
		unit_current = v->name;
		check_globals(d, v);
		check_inlined(d, v);
		check_block(d, v);
		if (v->opt)
			check_register_param(d, v);
		CHECK(ds_dso_note(d) == NULL);
		if (have_gdb) {
			char *path = unit_tpath(v->name);
			gdb_cross_check(d, path, v->name, funcs, sizeof funcs / sizeof funcs[0], &t);
			free(path);
			printf("# %s: gdb's info scope: %zu locations compared, %zu agree, %zu not in scope\n",
			       v->name, t.compared, t.agree, t.missing);
			fputs(ds_buf_str(&t.why), stdout);
			CHECK(t.compared >= 10 && t.agree == t.compared && t.missing == 0);
			all.compared += t.compared;
			all.agree += t.agree;
		}
		ds_buf_free(&t.why);
		ds_dso_close(d);
		unit_current = "programs";
	}
	if (have_gdb)
		printf("# gdb cross-check: %zu locations compared in all, %zu agree\n", all.compared,
		       all.agree);
}

/* A program's thread-locals by their offset from the thread pointer, as
 * the program itself measures them (its variables' addresses less %fs:0),
 * built as a PIE and not, with a block aligned to 64; a library's have no
 * fixed offset. */
TEST(thread_locals)
{
	static const char src[] =
		"#include <stdio.h>\n"
		"__thread long a = 1;\n"
		"__thread _Alignas(64) char buf[100];\n"
		"__thread int b;\n"
		"static __thread double arr[10];\n"
		"static void put(const char *n, void *p) {\n"
		"	char *tp;\n"
		"	__asm__(\"mov %%fs:0, %0\" : \"=r\"(tp));\n"
		"	printf(\"%s %ld\\n\", n, (long)((char *)p - tp));\n"
		"}\n"
		"int main(void) { put(\"a\", &a); put(\"buf\", buf); put(\"b\", &b); put(\"arr\", arr);\n"
		"	return (int)a + b + buf[1] + (int)arr[2] - 1; }\n";
	static const char *const names[] = {"a", "buf", "b", "arr"};
	static const char *const builds[] = {"-pie -fPIE", "-no-pie -fno-PIE"};
	ds_dso *d;

	CHECK(unit_write_text("tls.c", src));
	for (size_t k = 0; k < 2; k++) {
		char line[128], *path;
		FILE *f;
		int seen = 0;

		unit_current = builds[k];
		if (!unit_sh("gcc -O0 -g %s -o tls.out tls.c && ./tls.out >tls.txt", builds[k])) {
			CHECK(!"the program builds and runs");
			continue;
		}
		d = unit_open_dso("tls.out", NULL);
		path = unit_tpath("tls.txt");
		f = fopen(path, "r");
		free(path);
		CHECK(d && f);
		while (d && f && fgets(line, sizeof line, f)) {
			char name[16];
			long tpoff;
			uint64_t off = 99;
			const ds_var *v;
			if (sscanf(line, "%15s %ld", name, &tpoff) != 2)
				continue;
			for (size_t i = 0; i < 4; i++)
				seen += !strcmp(name, names[i]);
			v = ds_dso_tls_at(d, tpoff, &off);
			CHECK(v && !strcmp(v->name, name) && off == 0);
			if (!strcmp(name, "arr")) {
				v = ds_dso_tls_at(d, tpoff + 8 * 9 + 3, &off);
				CHECK(v && !strcmp(v->name, "arr") && off == 75);
			}
			if (!strcmp(name, "buf"))
				CHECK(ds_dso_tls_at(d, tpoff + 100, &off) == NULL ||
				      strcmp(ds_dso_tls_at(d, tpoff + 100, &off)->name, "buf"));
		}
		CHECK(seen == 4);
		CHECK(d && ds_dso_tls_at(d, 0, NULL) == NULL); /* the control block */
		if (f)
			fclose(f);
		if (d)
			ds_dso_close(d);
	}
	unit_current = "thread_locals";
	CHECK(unit_sh("gcc -O0 -g -shared -fPIC -o libtls.so tls.c"));
	d = unit_open_dso("libtls.so", NULL);
	CHECK(d && find_global(d, "a") && ds_dso_tls_at(d, -8, NULL) == NULL);
	for (long t = -4096; d && t < 0; t++)
		if (ds_dso_tls_at(d, t, NULL)) {
			CHECK(!"a library's thread-locals have no offset");
			break;
		}
	if (d)
		ds_dso_close(d);
}

TEST(cxx_specification)
{
	if (!unit_have("g++")) {
		unit_skip("g++ is not installed");
		return;
	}
	CHECK(unit_write_text("prog.cc", prog_cc));
	for (int version = 4; version <= 5; version++) {
		char name[16];
		ds_dso *d;
		const ds_var *value, *count;
		uint64_t helper;
		ds_var s = {0}, local = {0};

		snprintf(name, sizeof name, "cc%d", version);
		CHECK(unit_sh("g++ -O0 -gdwarf-%d -o %s prog.cc", version, name));
		d = unit_open_dso(name, NULL);
		CHECK(d != NULL);
		if (!d)
			continue;
		value = find_global(d, "value");
		count = find_global(d, "count");
		CHECK(value && value->loc.addr == unit_nm_addr(name, "_ZN2ns5valueE") && value->size == 4);
		CHECK(count && count->loc.addr == unit_nm_addr(name, "_ZN2ns1S5countE") &&
		      count->size == 8 && count->type_die != 0);
		helper = unit_nm_addr(name, "_ZL6helperPN2ns1SE");
		CHECK(helper && var_at(d, helper + 8, "s", &s) && s.param && s.loc.kind == DS_LOC_MEM);
		CHECK(var_at(d, helper + 8, "local", &local) && local.size == 4);
		CHECK_STR(local.function, "helper");
		CHECK(ds_dso_note(d) == NULL);
		ds_dso_close(d);
	}
}

/* The location of the innermost variable called name at pc, as
 * "kind reg offset" ("absent" when it is not in scope). */
static char *loc_text(ds_dso *d, uint64_t pc, const char *name)
{
	ds_var v;

	if (!var_at(d, pc, name, &v))
		return ds_xstrdup("absent");
	return ds_xasprintf("%s %d %" PRId64, kind_names[v.loc.kind], v.loc.reg, v.loc.offset);
}

typedef struct hand_case {
	const char *func, *name;
	unsigned off; /* from the function's start */
	const char *want;
} hand_case;

TEST(hand_written)
{
	static const hand_case cases[] = {
		/* parameters: DW_OP_entry_value is its register at the entry only */
		{"_start", "p_entry", 0, "reg 5 0"}, {"_start", "p_entry", 5, "none 0 0"},
		{"_start", "p_fb", 5, "mem 7 -8"}, {"_start", "p_bregx", 5, "mem 3 -24"},
		{"_start", "p_regx", 5, "reg 17 0"}, {"_start", "v_const", 5, "implicit 0 0"},
		{"_start", "v_piece", 5, "complex 0 0"}, {"_start", "v_uninit", 5, "reg 3 0"},
		{"_start", "v_empty", 5, "none 0 0"}, {"_start", "fstatic", 5, "addr 0 0"},
		/* the DWARF 5 location list, entry by entry, and its default */
		{"_start", "v_list", 0, "reg 0 0"}, {"_start", "v_list", 1, "reg 0 0"},
		{"_start", "v_list", 2, "reg 2 0"}, {"_start", "v_list", 8, "reg 1 0"},
		{"_start", "v_list", 9, "reg 1 0"}, {"_start", "v_list", 10, "reg 2 0"},
		{"_start", "v_list", 12, "implicit 0 0"}, {"_start", "v_list", 13, "implicit 0 0"},
		{"_start", "v_list", 14, "implicit 0 0"}, {"_start", "v_list", 16, "mem 6 -8"},
		{"_start", "v_list", 17, "reg 2 0"}, {"_start", "v_list", 31, "reg 2 0"},
		{"_start", "v_view", 3, "none 0 0"}, {"_start", "v_view", 4, "reg 4 0"},
		{"_start", "v_view", 5, "reg 4 0"}, {"_start", "v_view", 6, "none 0 0"},
		/* the lexical blocks: every kind of range list entry */
		{"_start", "inner", 19, "absent"}, {"_start", "inner", 20, "reg 8 0"},
		{"_start", "inner", 21, "absent"}, {"_start", "inner", 22, "reg 8 0"},
		{"_start", "inner", 23, "absent"}, {"_start", "inner", 24, "reg 8 0"},
		{"_start", "inner", 25, "absent"}, {"_start", "inner", 26, "reg 8 0"},
		{"_start", "inner", 27, "absent"}, {"_start", "inner", 28, "reg 8 0"},
		{"_start", "inner", 29, "absent"}, {"_start", "inner", 30, "reg 8 0"},
		{"_start", "inner", 31, "absent"}, {"_start", "bvar", 1, "absent"},
		{"_start", "bvar", 2, "reg 9 0"}, {"_start", "bvar", 4, "reg 9 0"},
		{"_start", "bvar", 5, "absent"},
		/* DWARF 4: base address selection in .debug_loc and .debug_ranges */
		{"g", "w4", 0, "reg 0 0"}, {"g", "w4", 1, "reg 0 0"}, {"g", "w4", 2, "none 0 0"},
		{"g", "w4", 8, "reg 1 0"}, {"g", "w4", 9, "reg 1 0"}, {"g", "w4", 10, "none 0 0"},
		{"g", "b4", 3, "absent"}, {"g", "b4", 4, "mem 7 -12"}, {"g", "b4", 5, "mem 7 -12"},
		{"g", "b4", 6, "absent"}, {"g", "b4", 12, "mem 7 -12"}, {"g", "b4", 13, "absent"},
	};
	ds_dso *d;
	const ds_var *gvar, *sarr, *fstatic, *tls, *tlsx;
	ds_var v;
	bool all = true;

	CHECK(unit_write_text("hand.s", hand_s));
	CHECK(unit_sh("gcc -nostdlib -static -no-pie -o hand hand.s"));
	d = unit_open_dso("hand", NULL);
	CHECK(d != NULL);
	if (!d)
		return;
	gvar = find_global(d, "gvar");
	sarr = find_global(d, "sarr");
	fstatic = find_global(d, "fstatic");
	tls = find_global(d, "tls_var");
	tlsx = find_global(d, "tls_x");
	CHECK(gvar && gvar->loc.addr == unit_nm_addr("hand", "gvar") && gvar->size == 32);
	CHECK(sarr && sarr->loc.addr == unit_nm_addr("hand", "sdata") && sarr->size == 4);
	CHECK(fstatic && fstatic->loc.addr == unit_nm_addr("hand", "fdata") && fstatic->size == 4);
	CHECK_STR(fstatic ? fstatic->function : NULL, "f");
	CHECK(tls && tls->loc.kind == DS_LOC_TLS && tls->loc.offset == 0 && tls->size == 8);
	CHECK(tlsx && tlsx->loc.kind == DS_LOC_TLS && tlsx->loc.offset == 8 && tlsx->size == 4);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const hand_case *c = &cases[i];
		uint64_t pc = unit_nm_addr("hand", c->func) + c->off;
		char *got = loc_text(d, pc, c->name);
		if (strcmp(got, c->want) != 0) {
			printf("# %s+%u %s: want %s, got %s\n", c->func, c->off, c->name, c->want, got);
			all = false;
		}
		free(got);
	}
	CHECK(all);
	CHECK(var_at(d, unit_nm_addr("hand", "_start") + 20, "v_list", &v));
	CHECK_STR(v.function, "f");
	CHECK(var_at(d, unit_nm_addr("hand", "g"), "w4", &v));
	CHECK_STR(v.function, "g");
	{
		ds_var vars[MAX_VARS];
		size_t n = ds_dso_vars_at(d, unit_nm_addr("hand", "_start") + 20, vars, MAX_VARS);
		CHECK(n == 12 && strcmp(vars[0].name, "inner") == 0);
	}
	CHECK(ds_dso_note(d) == NULL);
	ds_dso_close(d);
}

/* ---- hostile DWARF ---- */

typedef struct section {
	char name[32];
	size_t off, size;
	uint64_t addr;
} section;

/* The sections of an ELF image in memory, by name. */
static size_t sections_of(const char *img, size_t len, section *out, size_t max)
{
	Elf *e;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstr, n = 0;

	elf_version(EV_CURRENT);
	e = elf_memory((char *)img, len);
	if (!e || elf_getshdrstrndx(e, &shstr) != 0) {
		if (e)
			elf_end(e);
		return 0;
	}
	while ((scn = elf_nextscn(e, scn)) != NULL && n < max) {
		const char *nm;
		if (!gelf_getshdr(scn, &sh) || !(nm = elf_strptr(e, shstr, sh.sh_name)))
			continue;
		snprintf(out[n].name, sizeof out[n].name, "%s", nm);
		out[n].off = sh.sh_type == SHT_NOBITS ? 0 : sh.sh_offset;
		out[n].size = sh.sh_type == SHT_NOBITS ? 0 : sh.sh_size;
		out[n++].addr = sh.sh_addr;
	}
	elf_end(e);
	return n;
}

static const section *find_section(const section *s, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(s[i].name, name) == 0)
			return &s[i];
	return NULL;
}

/* Open, query everything, close; true when every answer is well formed.
 * A crash or a sanitizer report is the failure this is after. */
static bool exercise(const char *name, const section *text, bool *noted)
{
	ds_dso *d = unit_open_dso(name, NULL);
	ds_var vars[32];
	bool ok = true;

	if (!d)
		return false;
	for (size_t i = 0; i < ds_dso_nglobals(d); i++) {
		const ds_var *g = ds_dso_global(d, i);
		uint64_t off;
		ok = ok && g->name && g->global && g->loc.kind <= DS_LOC_COMPLEX;
		if (g->loc.kind == DS_LOC_ADDR && g->size)
			ok = ok && ds_dso_global_at(d, g->loc.addr + g->size / 2, &off) != NULL;
	}
	for (uint64_t pc = text->addr; pc < text->addr + text->size; pc++) {
		size_t n = ds_dso_vars_at(d, pc, vars, 32);
		for (size_t i = 0; i < n && i < 32; i++)
			ok = ok && vars[i].name && vars[i].loc.kind <= DS_LOC_COMPLEX;
	}
	*noted = ds_dso_note(d) != NULL;
	ds_dso_close(d);
	return ok;
}

TEST(malformed)
{
	static const char *const bins[] = {"c2d5", "g2d5", "g2d4", "hand"};
	static const char *const targets[] = {
		".debug_info", ".debug_loclists", ".debug_rnglists", ".debug_addr",
		".debug_loc", ".debug_ranges", ".debug_abbrev",
	};
	/* make test: 10 of the 40 copies of each section, the two whole
	 * ones among them */
	const int nrounds = 40, sampled = unit_full() ? nrounds : 8;
	size_t rounds = 0, all_rounds = 0, well_formed = 0, notes = 0;

	srand(7);
	for (size_t b = 0; b < sizeof bins / sizeof bins[0]; b++) {
		size_t len = 0, ns;
		char *path = unit_tpath(bins[b]), *img = ds_read_file(path, &len);
		section secs[64];
		const section *text;

		free(path);
		if (!img) {
			unit_skip("test program not built");
			continue;
		}
		ns = sections_of(img, len, secs, 64);
		text = find_section(secs, ns, ".text");
		CHECK(text != NULL);
		for (size_t s = 0; text && s < sizeof targets / sizeof targets[0]; s++) {
			const section *sec = find_section(secs, ns, targets[s]);
			char *bad = ds_xmalloc(len);

			all_rounds += sec && sec->size ? (size_t)nrounds : 0;
			for (int round = 0; sec && sec->size && round < nrounds; round++) {
				int k;
				if (round >= sampled && round < 38)
					continue;
				k = 1 + rand() % (round < 30 ? 8 : 64);
				memcpy(bad, img, len);
				if (round == 38)
					memset(bad + sec->off, 0xff, sec->size);
				else if (round == 39)
					memset(bad + sec->off, 0, sec->size);
				else
					for (int j = 0; j < k; j++)
						bad[sec->off + (size_t)rand() % sec->size] = (char)(rand() & 0xff);
				bool noted = false;
				well_formed += unit_write_file("fuzz.out", bad, len) &&
					       exercise("fuzz.out", text, &noted);
				notes += noted;
				rounds++;
			}
			free(bad);
		}
		free(img);
	}
	printf("# malformed: %zu of %zu corrupted binaries, %zu with a note\n", rounds, all_rounds, notes);
	CHECK(all_rounds > 400);
	CHECK_SAMPLED(well_formed == rounds, rounds, all_rounds, "corrupted binaries");
	CHECK(notes > 0);
}

/* ---- a large binary ---- */

/* build/dsprof next to build/tests/unit/, else this test itself: both
 * hold all of dsprof's code with -g. */
static char *large_binary(void)
{
	char self[PATH_MAX], dir[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	char *prog, *real;

	if (n <= 0)
		return NULL;
	self[n] = '\0';
	memcpy(dir, self, (size_t)n + 1);
	prog = ds_xasprintf("%s/../../dsprof", dirname(dir));
	real = realpath(prog, NULL);
	free(prog);
	return real ? real : ds_xstrdup(self);
}

/* Every function of the large binary through gdb, a hundred per run
 * (make test: every few, about 200 in all; gdb reads the whole binary's
 * DWARF for each run).  Names with a dot are compiler clones gdb does not
 * break on by name. */
static void gdb_large(ds_dso *d, const char *path)
{
	const char **funcs = ds_xcalloc(ds_dso_nsymbols(d) + 1, sizeof *funcs);
	size_t n = 0, m = 0, step;
	tally t = {0};

	for (size_t i = 0; i < ds_dso_nsymbols(d); i++) {
		const ds_symbol *s = ds_dso_symbol(d, i);
		if (s->type == STT_FUNC && !strpbrk(s->raw, ".@"))
			funcs[n++] = s->raw;
	}
	step = unit_step(n, 200);
	for (size_t i = 0; i < n; i += step)
		funcs[m++] = funcs[i];
	for (size_t i = 0; i < m; i += 100)
		gdb_cross_check(d, path, "large", funcs + i, m - i < 100 ? m - i : 100, &t);
	printf("# %s: gdb's info scope of %zu of %zu functions: %zu locations compared, %zu agree, "
	       "%zu not in scope, %zu skipped (a name in scope twice)\n",
	       path, m, n, t.compared, t.agree, t.missing, t.ambiguous);
	fputs(ds_buf_str(&t.why), stdout);
	/* gdb and dsprof read the same DWARF: any difference is worth a look,
	 * but one odd construct in code written later should not fail the suite */
	CHECK_SAMPLED(t.compared >= 1000 && t.agree * 1000 >= (t.compared + t.missing) * 995, m, n,
		      "functions against gdb");
	ds_buf_free(&t.why);
	free(funcs);
}

TEST(large_binary)
{
	char *path = large_binary();
	ds_err err;
	ds_dso *d = path ? ds_dso_open(path, NULL, &err) : NULL;
	double t0, t1, t2;
	size_t nglob, nfunc = 0, nvars = 0;
	ds_var vars[MAX_VARS];

	CHECK(d != NULL);
	if (!d) {
		free(path);
		return;
	}
	t0 = ds_now();
	nglob = ds_dso_nglobals(d);
	t1 = ds_now();
	for (size_t i = 0; i < ds_dso_nsymbols(d); i++) {
		const ds_symbol *s = ds_dso_symbol(d, i);
		if (s->type != STT_FUNC)
			continue;
		nfunc++;
		nvars += ds_dso_vars_at(d, s->start + s->size / 2, vars, MAX_VARS);
	}
	t2 = ds_now();
	printf("# variables of %s: %zu globals, loaded in %.1f ms; %zu queries at function "
	       "middles (%zu variables) in %.1f ms\n",
	       path, nglob, (t1 - t0) * 1e3, nfunc, nvars, (t2 - t1) * 1e3);
	CHECK(nglob > 10);
	CHECK(nvars > nfunc);
	CHECK(ds_dso_note(d) == NULL);
	if (unit_have("gdb"))
		gdb_large(d, path);
	else
		unit_skip("gdb is not installed: no cross-check of locations");
	ds_dso_close(d);
	free(path);
}

int main(void)
{
	if (!unit_tmpdir("dsprof-vars"))
		return 1;
	RUN(programs);
	RUN(thread_locals);
	RUN(cxx_specification);
	RUN(hand_written);
	RUN(malformed);
	RUN(large_binary);
	unit_sh("rm -rf '%s'", unit_tmp);
	return unit_done();
}
