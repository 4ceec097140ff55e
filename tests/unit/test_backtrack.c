/*
 * arch/ decoding and backtrack/ on code whose every byte is known: hand
 * encodings for the decoder, and hand-written assembly (assembled here)
 * for each backtracking verdict.
 */
#include "arch/arch.h"
#include "backtrack/backtrack.h"
#include "tests/unit/unit.h"

#include <stdlib.h>
#include <string.h>

enum { RAX, RDX, RCX, RBX, RSI, RDI, RBP, RSP, R8, RIP = 16 };

static ds_decoder *dec;

static bool dec1(const char *hex, uint64_t addr, ds_insn *in)
{
	uint8_t b[16];
	size_t n = 0;
	for (const char *p = hex; *p && n < sizeof b; p += 2) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		b[n++] = (uint8_t)strtoul((char[]){p[0], p[1], 0}, NULL, 16);
	}
	return ds_decode(dec, b, n, addr, in);
}

TEST(decode_memory_operands)
{
	ds_insn in;

	CHECK(dec1("48 8b 43 08", 0x1000, &in));                 /* mov rax, [rbx+8] */
	CHECK(in.len == 4 && in.nmem == 1);
	CHECK(in.mem[0].base == RBX && in.mem[0].index == DS_REG_NONE && in.mem[0].disp == 8);
	CHECK(in.mem[0].size == 8 && in.mem[0].read && !in.mem[0].write);
	CHECK(in.move == DS_MOVE_LOAD && in.dst == RAX);
	CHECK(in.regs_written & (1u << RAX));

	CHECK(dec1("89 74 8f 10", 0, &in));                      /* mov [rdi+rcx*4+16], esi */
	CHECK(in.mem[0].base == RDI && in.mem[0].index == RCX && in.mem[0].scale == 4);
	CHECK(in.mem[0].disp == 16 && in.mem[0].size == 4 && in.mem[0].write && !in.mem[0].read);
	CHECK(in.move == DS_MOVE_STORE && in.src == RSI);

	CHECK(dec1("48 8d 05 00 01 00 00", 0x2000, &in));        /* lea rax, [rip+0x100] */
	CHECK(in.mem[0].rip_relative && in.mem[0].address_only && in.mem[0].disp == 0x100);
	CHECK(in.move == DS_MOVE_LEA && in.dst == RAX);

	CHECK(dec1("48 83 47 08 01", 0, &in));                   /* add qword ptr [rdi+8], 1 */
	CHECK(in.mem[0].read && in.mem[0].write && in.mem[0].size == 8);

	CHECK(dec1("64 8b 04 25 10 00 00 00", 0, &in));          /* mov eax, fs:[0x10] */
	CHECK(in.mem[0].segment && in.mem[0].disp == 0x10);

	CHECK(dec1("48 8b 3f", 0, &in));                         /* mov rdi, [rdi] */
	CHECK(in.regs_written & (1u << RDI));

	CHECK(dec1("53", 0, &in));                               /* push rbx */
	CHECK(in.nmem == 1 && in.mem[0].base == RSP && in.mem[0].write);

	CHECK(dec1("f3 a4", 0, &in));                            /* rep movsb */
	CHECK(in.nmem == 2);
}

TEST(decode_flow_and_moves)
{
	ds_insn in;

	CHECK(dec1("e8 10 00 00 00", 0x1000, &in));              /* call +0x10 */
	CHECK(in.flow == DS_FLOW_CALL && in.target == 0x1015);
	CHECK(dec1("75 f0", 0x1000, &in));                       /* jne -0x10 */
	CHECK(in.flow == DS_FLOW_COND && in.target == 0x1000 + 2 - 0x10);
	CHECK(dec1("eb 00", 0x1000, &in));                       /* jmp +0 */
	CHECK(in.flow == DS_FLOW_JUMP && in.target == 0x1002);
	CHECK(dec1("ff e0", 0, &in));                            /* jmp rax */
	CHECK(in.flow == DS_FLOW_INDIRECT_JUMP);
	CHECK(dec1("ff d0", 0, &in));                            /* call rax */
	CHECK(in.flow == DS_FLOW_INDIRECT_CALL);
	/* calls push the return address, ret pops it: stack accesses */
	CHECK(dec1("e8 10 00 00 00", 0x1000, &in) && in.nmem == 1);
	CHECK(in.mem[0].base == RSP && in.mem[0].disp == -8 && in.mem[0].write && !in.mem[0].read);
	CHECK(dec1("ff 15 10 00 00 00", 0, &in) && in.nmem == 2);   /* call [rip + 0x10] */
	CHECK(in.mem[0].rip_relative && in.mem[0].read && in.mem[1].base == RSP && in.mem[1].write);
	CHECK(dec1("c3", 0, &in) && in.flow == DS_FLOW_RET);
	CHECK(in.nmem == 1 && in.mem[0].base == RSP && in.mem[0].disp == 0 && in.mem[0].read);
	CHECK(dec1("0f 0b", 0, &in) && in.flow == DS_FLOW_STOP);  /* ud2 */
	CHECK(dec1("0f 05", 0, &in) && in.flow == DS_FLOW_SYSCALL);
	CHECK(dec1("0f a2", 0, &in));                            /* cpuid */
	CHECK((in.regs_written & 0xf) == 0xf);                   /* rax, rdx, rcx, rbx */
	CHECK(dec1("48 89 c3", 0, &in));                         /* mov rbx, rax */
	CHECK(in.move == DS_MOVE_REG && in.dst == RBX && in.src == RAX);
	CHECK(dec1("48 83 c0 10", 0, &in));                      /* add rax, 16 */
	CHECK(in.move == DS_MOVE_ADD_IMM && in.dst == RAX && in.imm == 16);
	CHECK(dec1("48 83 e8 10", 0, &in));                      /* sub rax, 16 */
	CHECK(in.move == DS_MOVE_ADD_IMM && in.imm == -16);
	CHECK(dec1("48 01 d8", 0, &in));                         /* add rax, rbx */
	CHECK(in.move == DS_MOVE_ADD_REG && in.dst == RAX && in.src == RBX);
	/* thread-locals: the thread pointer added from %fs:0, and %fs against %gs */
	CHECK(dec1("64 4c 03 0c 25 00 00 00 00", 0, &in));       /* add r9, qword ptr fs:[0] */
	CHECK(in.move == DS_MOVE_ADD_LOAD && in.dst == R8 + 1 && in.mem[0].fs && in.mem[0].segment);
	CHECK(dec1("64 4c 8b 03", 0, &in));                      /* mov r8, qword ptr fs:[rbx] */
	CHECK(in.move == DS_MOVE_LOAD && in.mem[0].fs && in.mem[0].base == RBX);
	CHECK(dec1("65 4c 8b 03", 0, &in));                      /* mov r8, qword ptr gs:[rbx] */
	CHECK(in.mem[0].segment && !in.mem[0].fs);
	CHECK(dec1("48 c7 c3 f0 ff ff ff", 0, &in));             /* mov rbx, -16 */
	CHECK(in.move == DS_MOVE_IMM && in.dst == RBX && in.imm == -16);
	CHECK(dec1("48 0f 45 f7", 0, &in));                      /* cmovne rsi, rdi */
	CHECK(in.move == DS_MOVE_SELECT && in.dst == RSI && in.src == RDI);
	CHECK(dec1("0f 45 f7", 0, &in));                         /* cmovne esi, edi: no pointer */
	CHECK(in.move == DS_MOVE_OTHER && in.dst == RSI);
	CHECK(dec1("48 0f af c3", 0, &in));                      /* imul rax, rbx */
	CHECK(in.move == DS_MOVE_OTHER && in.dst == RAX);
	CHECK(dec1("80 07 04", 0, &in));                         /* add byte ptr [rdi], 4 */
	CHECK(in.alu == DS_ALU_ADD && in.alu_imm == 4 && in.mem[0].size == 1);
	CHECK(dec1("25 03 ff ff ff", 0, &in));                   /* and eax, 0xffffff03 */
	CHECK(in.alu == DS_ALU_AND && (uint32_t)in.alu_imm == 0xffffff03);
	CHECK(dec1("c0 e8 02", 0, &in));                         /* shr al, 2 */
	CHECK(in.alu == DS_ALU_SHR && in.alu_imm == 2);
	CHECK(dec1("b8 2a 00 00 00", 0, &in));                   /* mov eax, 42 */
	CHECK(in.move == DS_MOVE_IMM && in.imm == 42);
	CHECK(!dec1("06", 0, &in));                              /* push es: not in 64-bit mode */
}

/* The AVX-512 instructions of glibc's string functions that Capstone 4
 * rejects (encodings from GNU as): their length, memory operand and what
 * they write come from arch/'s own VEX/EVEX decoding (kmovq and kmovb
 * Capstone knows: they check that both agree). */
TEST(decode_vex_evex)
{
	ds_insn in;
	char text[96];

	CHECK(dec1("c5 fb 93 c1", 0, &in));                      /* kmovd eax, k1 */
	CHECK(in.len == 4 && in.nmem == 0 && in.flow == DS_FLOW_NEXT);
	CHECK(in.dst == RAX && in.regs_written == (1u << RAX));

	CHECK(dec1("c5 fb 92 d1", 0, &in));                      /* kmovd k2, ecx */
	CHECK(in.len == 4 && in.regs_written == 0);

	CHECK(dec1("62 f3 6d 22 3e 0f 04", 0, &in));             /* vpcmpnequb k1{k2}, ymm18, [rdi] */
	CHECK(in.len == 7 && in.nmem == 1 && in.regs_written == 0);
	CHECK(in.mem[0].base == RDI && in.mem[0].index == DS_REG_NONE && in.mem[0].disp == 0);
	CHECK(in.mem[0].size == 32 && in.mem[0].read && !in.mem[0].write);

	/* vpcmpnequb k3, zmm17, [rsi + r9*2 + 0x40]: disp8 1, scaled by 64 bytes */
	CHECK(dec1("62 b3 75 40 3e 5c 4e 01 04", 0, &in));
	CHECK(in.len == 9 && in.mem[0].base == RSI && in.mem[0].index == R8 + 1 && in.mem[0].scale == 2);
	CHECK(in.mem[0].disp == 64 && in.mem[0].size == 64);

	CHECK(dec1("c4 c1 f8 90 0c 24", 0, &in));                /* kmovq k1, [r12] */
	CHECK(in.len == 6 && in.mem[0].base == 12 && in.mem[0].size == 8 && in.mem[0].read);
	CHECK(dec1("c5 f9 91 4c 24 08", 0, &in));                /* kmovb [rsp + 8], k1 */
	CHECK(in.len == 6 && in.mem[0].base == RSP && in.mem[0].disp == 8 && in.mem[0].size == 1);

	CHECK(!dec1("62 f3 6d", 0, &in));                         /* cut short */
	CHECK(ds_decode_text(dec, (const uint8_t[]){0xc5, 0xfb, 0x93, 0xc1}, 4, 0, text, sizeof text) == 4);
	CHECK(strncmp(text, "kmov", 4) == 0);
}

TEST(registers)
{
	const ds_arch *a = ds_arch_host();
	CHECK(ds_arch_perf_reg(a, RAX) == 0);
	CHECK(ds_arch_perf_reg(a, RBX) == 1);
	CHECK(ds_arch_perf_reg(a, RSP) == 7);
	CHECK(ds_arch_perf_reg(a, R8) == 16);
	CHECK(ds_arch_perf_reg(a, RIP) == 8);
	CHECK(ds_arch_perf_reg(a, 40) == -1);
	CHECK_STR(ds_arch_reg_name(a, RBP), "rbp");
	CHECK(ds_arch_dwarf_sp(a) == RSP && ds_arch_dwarf_fp(a) == RBP && ds_arch_dwarf_ip(a) == RIP);
}

/* One function per verdict; labels mark the sampled IPs. */
static const char asm_src[] =
	"	.text\n"
	"	.globl f_load\n"
	"	.type f_load, @function\n"
	"f_load:\n"
	"	mov 8(%rdi), %rax\n"
	"	add $1, %rcx\n"
	".Lip_load:\n"
	"	imul %rax, %rax\n"
	"	mov (%rsi), %rsi\n"
	"	nop\n"
	".Lip_changed:\n"
	"	test %rax, %rax\n"
	"	jne 1f\n"
	"	mov (%rdi), %rax\n"
	"1:\n"
	".Lip_target:\n"
	"	add %rax, %rax\n"
	"	mov (%rdi), %rdx\n"
	"2:	add $1, %rcx\n"
	".Lip_cross:\n"
	"	cmp %rcx, %rdx\n"
	"	jne 2b\n"
	"	call f_load\n"
	".Lip_call:\n"
	"	add $1, %rax\n"
	"	jmp 3f\n"
	".Lip_jump:\n"
	"	nop\n"
	"3:	mov sym(%rip), %rax\n"
	".Lip_rip:\n"
	"	ret\n"
	"	.size f_load, .-f_load\n"
	"\n"
	"	.type f_indirect, @function\n"
	"f_indirect:\n"
	"	mov (%rdi), %rax\n"
	".Lip_indirect:\n"
	"	jmp *%rax\n"
	"	.size f_indirect, .-f_indirect\n"
	"\n"
	"	.type f_sys, @function\n"
	"f_sys:\n"
	"	mov (%rdi), %rax\n"
	"	syscall\n"
	".Lip_sys:\n"
	"	ret\n"
	"	.size f_sys, .-f_sys\n"
	"\n"
	"	.type f_fparray, @function\n"
	"f_fparray:\n"
	"	mov (%rsi,%rdi,8), %rax\n"
	".Lip_fparray:\n"
	"	jmp *%rax\n"
	"	.size f_fparray, .-f_fparray\n"
	"\n"
	"	.type f_goto, @function\n"
	"f_goto:\n"
	"	lea 1f(%rip), %rax\n"
	"	mov (%rdi), %rdx\n"
	".Lip_goto:\n"
	"	jmp *%rax\n"
	"1:	ret\n"
	"	.size f_goto, .-f_goto\n"
	"\n"
	"	.type f_switch, @function\n"
	"f_switch:\n"
	"	lea table(%rip), %rdx\n"
	"	movslq (%rdx,%rdi,4), %rax\n"
	"	add %rdx, %rax\n"
	"	jmp *%rax\n"
	"case0:	mov 16(%rsi), %rax\n"
	".Lip_case:\n"
	"	ret\n"
	"case1:	xor %eax, %eax\n"
	"	ret\n"
	"	.size f_switch, .-f_switch\n"
	"\n"
	"	.type f_far, @function\n"
	"f_far:\n"
	"	mov (%rdi), %rax\n"
	"	.rept 30\n"
	"	add $1, %rcx\n"
	"	.endr\n"
	".Lip_far:\n"
	"	ret\n"
	"	.size f_far, .-f_far\n"
	"\n"
	"	.type f_precise, @function\n"
	"f_precise:\n"
	".Lip_precise_mem:\n"
	"	mov 24(%rbx), %rax\n"
	".Lip_precise_alu:\n"
	"	add $1, %rax\n"
	"	ret\n"
	"	.size f_precise, .-f_precise\n"
	"\n"
	"	.type f_entry, @function\n"
	"f_entry:\n"
	".Lip_entry:\n"
	"	add $1, %rax\n"
	".Lip_entry2:\n"
	"	ret\n"
	"	.size f_entry, .-f_entry\n"
	"\n"
	"	.type f_step, @function\n"
	"f_step:\n"
	"	mov 16(%rdi,%rcx,8), %rax\n"
	"	add $8, %rdi\n"
	"	lea 24(%rcx), %rcx\n"
	"	sub $4, %rdi\n"
	".Lip_step:\n"
	"	mov 8(%rsi,%rdx), %rax\n"
	"	add $1, %edx\n"
	".Lip_step32:\n"
	"	ret\n"
	"	.size f_step, .-f_step\n"
	"\n"
	"	.type f_loophead, @function\n"
	"f_loophead:\n"
	".Lip_loophead:\n"
	"	add $1, %rax\n"
	"	dec %rdi\n"
	"	jnz f_loophead\n"
	"	ret\n"
	"	.size f_loophead, .-f_loophead\n"
	"\n"
	"	.globl ip_load\n	.set ip_load, .Lip_load - f_load\n"
	"	.globl ip_changed\n	.set ip_changed, .Lip_changed - f_load\n"
	"	.globl ip_target\n	.set ip_target, .Lip_target - f_load\n"
	"	.globl ip_cross\n	.set ip_cross, .Lip_cross - f_load\n"
	"	.globl ip_call\n	.set ip_call, .Lip_call - f_load\n"
	"	.globl ip_jump\n	.set ip_jump, .Lip_jump - f_load\n"
	"	.globl ip_rip\n	.set ip_rip, .Lip_rip - f_load\n"
	"	.globl ip_indirect\n	.set ip_indirect, .Lip_indirect - f_indirect\n"
	"	.globl ip_sys\n	.set ip_sys, .Lip_sys - f_sys\n"
	"	.globl ip_fparray\n	.set ip_fparray, .Lip_fparray - f_fparray\n"
	"	.globl ip_goto\n	.set ip_goto, .Lip_goto - f_goto\n"
	"	.globl ip_case\n	.set ip_case, .Lip_case - f_switch\n"
	"	.globl ip_far\n	.set ip_far, .Lip_far - f_far\n"
	"	.globl ip_precise_mem\n	.set ip_precise_mem, .Lip_precise_mem - f_precise\n"
	"	.globl ip_precise_alu\n	.set ip_precise_alu, .Lip_precise_alu - f_precise\n"
	"	.globl ip_entry\n	.set ip_entry, .Lip_entry - f_entry\n"
	"	.globl ip_entry2\n	.set ip_entry2, .Lip_entry2 - f_entry\n"
	"	.globl ip_loophead\n	.set ip_loophead, .Lip_loophead - f_loophead\n"
	"	.globl ip_step\n	.set ip_step, .Lip_step - f_step\n"
	"	.globl ip_step32\n	.set ip_step32, .Lip_step32 - f_step\n"
	"	.section .rodata\n"
	"	.p2align 2\n"
	"table:	.long case0-table, case1-table\n"
	"	.data\n"
	"	.globl sym\n"
	"	.hidden sym\n"
	"sym:	.quad 7\n";

static ds_dso *lib;
static ds_backtracker *bt;

/* Labels are absolute symbols holding an offset in their function, so
 * that they add no symbol inside the functions (perf's rules would take a
 * label for a function of its own). */
static uint64_t ip_of(const char *label)
{
	static const struct {
		const char *label, *fn;
	} where[] = {
		{"ip_load", "f_load"},
		{"ip_changed", "f_load"},
		{"ip_target", "f_load"},
		{"ip_cross", "f_load"},
		{"ip_call", "f_load"},
		{"ip_jump", "f_load"},
		{"ip_rip", "f_load"},
		{"ip_indirect", "f_indirect"},
		{"ip_fparray", "f_fparray"},
		{"ip_sys", "f_sys"},
		{"ip_goto", "f_goto"},
		{"ip_case", "f_switch"},
		{"ip_far", "f_far"},
		{"ip_precise_mem", "f_precise"},
		{"ip_precise_alu", "f_precise"},
		{"ip_entry", "f_entry"},
		{"ip_entry2", "f_entry"},
		{"ip_loophead", "f_loophead"},
		{"ip_step", "f_step"},
		{"ip_step32", "f_step"},
	};
	for (size_t i = 0; i < sizeof where / sizeof where[0]; i++)
		if (strcmp(where[i].label, label) == 0)
			return unit_nm_addr("libbt.so", where[i].fn) + unit_nm_addr("libbt.so", label);
	return 0;
}

static void at(const char *label, bool precise, ds_trigger *t)
{
	ds_backtrack(bt, lib, ip_of(label), precise, t);
}

TEST(verdicts)
{
	ds_trigger t;
	uint64_t load = 0;

	at("ip_load", false, &t);
	CHECK(t.verdict == DS_BT_OK && t.distance == 2);
	CHECK(t.mem.base == RDI && t.mem.disp == 8);
	/* the load's own destination is lost; add $1, %rcx only steps rcx */
	CHECK((t.clobbered & (1u << RAX)) && !(t.clobbered & (1u << RCX)) && !(t.clobbered & (1u << RDI)));
	CHECK(t.nstepped == 0); /* rcx is no register of the access */
	load = t.pc;
	CHECK(load == unit_nm_addr("libbt.so", "f_load"));

	at("ip_changed", false, &t);      /* mov (%rsi), %rsi overwrote its own base */
	CHECK(t.verdict == DS_BT_OK && (t.clobbered & (1u << RSI)));

	at("ip_target", false, &t);
	CHECK_STR(ds_bt_verdict_name(t.verdict), "crossed-branch-target");
	/* the add before it is a loop head, and the loop reads no memory: its
	 * time is computing (the loads before the loop ran once) */
	at("ip_cross", false, &t);
	CHECK_STR(ds_bt_verdict_name(t.verdict), "no-memory-access");
	at("ip_call", false, &t);
	CHECK(t.verdict == DS_BT_CALL);
	at("ip_jump", false, &t);
	CHECK(t.verdict == DS_BT_JUMP);
	at("ip_rip", false, &t);
	CHECK(t.verdict == DS_BT_OK && t.mem.rip_relative);
	/* a tail call through a function pointer leaves the function: the
	 * load before it is the trigger */
	at("ip_indirect", false, &t);
	CHECK(t.verdict == DS_BT_OK && t.mem.base == RDI);
	at("ip_fparray", false, &t);      /* ... through an array of them */
	CHECK(t.verdict == DS_BT_OK && t.mem.base == RSI && t.mem.scale == 8);
	at("ip_sys", false, &t);          /* after a system call: the kernel's time */
	CHECK(t.verdict == DS_BT_CALL);
	at("ip_goto", false, &t);         /* a computed goto may land anywhere */
	CHECK(t.verdict == DS_BT_INDIRECT);
	at("ip_case", false, &t);         /* a jump table read from .rodata: blocks known */
	CHECK(t.verdict == DS_BT_BRANCH_TARGET ? false : t.verdict == DS_BT_OK);
	CHECK(t.mem.base == RSI && t.mem.disp == 16);
	at("ip_far", false, &t);
	CHECK(t.verdict == DS_BT_NOT_FOUND);
	at("ip_precise_mem", true, &t);
	CHECK(t.verdict == DS_BT_OK && t.mem.base == RBX && t.mem.disp == 24 && t.distance == 0);
	at("ip_precise_alu", true, &t);
	CHECK(t.verdict == DS_BT_NOT_MEMORY);
	/* a function's first instruction is entered by a call: what ran before
	 * it is in the caller, as after a call returns */
	at("ip_entry", false, &t);
	CHECK(t.verdict == DS_BT_CALL);
	at("ip_entry2", false, &t);       /* walked back to the entry */
	CHECK(t.verdict == DS_BT_CALL);
	at("ip_loophead", false, &t);     /* ... unless a jump of its own comes back to it */
	CHECK(t.verdict == DS_BT_NO_MEMORY); /* (and its loop reads no memory) */
	ds_backtrack(bt, NULL, 0x1000, false, &t);
	CHECK(t.verdict == DS_BT_NO_CODE);
}

TEST(effective_address)
{
	const ds_arch *a = ds_arch_host();
	uint64_t regs[24] = {0}, ea = 0, ip_vaddr = ip_of("ip_load");
	ds_sample s = {0};
	ds_trigger t;

	/* registers in perf order, as the recorder samples them */
	s.regs_abi = PERF_SAMPLE_REGS_ABI_64;
	s.regs_mask = ds_arch_sample_regs(a);
	s.regs = regs;
	regs[__builtin_popcountll(s.regs_mask & ((1ull << ds_arch_perf_reg(a, RDI)) - 1))] = 0x7f0000001000;
	s.ip = 0x555555554000 + ip_vaddr; /* loaded at some base */

	at("ip_load", false, &t);
	CHECK(ds_trigger_ea(a, &t, &s, ip_vaddr, &ea) == DS_EA_OK && ea == 0x7f0000001008);
	at("ip_changed", false, &t);
	CHECK(ds_trigger_ea(a, &t, &s, ip_of("ip_changed"), &ea) == DS_EA_REGS_CHANGED);
	at("ip_rip", false, &t);
	ip_vaddr = ip_of("ip_rip");
	s.ip = 0x555555554000 + ip_vaddr;
	CHECK(ds_trigger_ea(a, &t, &s, ip_vaddr, &ea) == DS_EA_STATIC);
	CHECK_EQ_U64(ea, 0x555555554000 + unit_nm_addr("libbt.so", "sym"));
	/* a pointer and an index stepped by constants after the load (a
	 * loop moving on): undone */
	regs[__builtin_popcountll(s.regs_mask & ((1ull << ds_arch_perf_reg(a, RCX)) - 1))] = 100 + 24;
	at("ip_step", false, &t);
	CHECK(t.verdict == DS_BT_OK && t.nstepped == 2 && !(t.clobbered & (1u << RDI)));
	CHECK(ds_trigger_ea(a, &t, &s, ip_of("ip_step"), &ea) == DS_EA_OK);
	CHECK_EQ_U64(ea, 0x7f0000001000 - 4 + 100 * 8 + 16);
	/* a 32-bit add clears the register's upper half: not undone */
	at("ip_step32", false, &t);
	CHECK(t.verdict == DS_BT_OK && t.mem.base == RSI && (t.clobbered & (1u << RDX)));
	CHECK(ds_trigger_ea(a, &t, &s, ip_of("ip_step32"), &ea) == DS_EA_REGS_CHANGED);
	s.regs = NULL;
	at("ip_load", false, &t);
	CHECK(ds_trigger_ea(a, &t, &s, ip_vaddr, &ea) == DS_EA_NO_REGS);
}

int main(void)
{
	ds_err err = {0};
	FILE *f;
	char *src;

	dec = ds_decoder_new(ds_arch_host(), &err);
	RUN(decode_memory_operands);
	RUN(decode_flow_and_moves);
	RUN(decode_vex_evex);
	RUN(registers);
	if (!unit_tmpdir("dsprof-backtrack"))
		return 1;
	src = unit_tpath("bt.S");
	f = fopen(src, "w");
	if (f) {
		fputs(asm_src, f);
		fclose(f);
	}
	free(src);
	if (!unit_sh("gcc -c bt.S -o bt.o && gcc -shared -nostdlib -o libbt.so bt.o")) {
		printf("not ok - cannot assemble the test functions\n");
		return 1;
	}
	src = unit_tpath("libbt.so");
	lib = ds_dso_open(src, NULL, &err);
	free(src);
	bt = ds_backtracker_new(ds_arch_host(), &err);
	CHECK(lib && bt);
	if (lib && bt) {
		RUN(verdicts);
		RUN(effective_address);
	}
	ds_backtracker_free(bt);
	ds_dso_close(lib);
	ds_decoder_free(dec);
	unit_sh("rm -rf '%s'", unit_tmp);
	return unit_done();
}
