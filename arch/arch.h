/*
 * arch/: what dsprof knows about an instruction set.
 *
 * One file per ISA (x86_64.c today); everything ISA-specific that other
 * modules need goes through this header: which registers to sample, their
 * names, and instruction decoding through Capstone.  Adding AArch64 means
 * adding one file and one table entry, not touching callers.
 */
#ifndef DSPROF_ARCH_H
#define DSPROF_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"

typedef struct ds_arch ds_arch;

/* The ISA dsprof was built for (and records on). */
const ds_arch *ds_arch_host(void);
/* By uname machine name ("x86_64"); NULL when unsupported. */
const ds_arch *ds_arch_by_name(const char *name);
const char *ds_arch_name(const ds_arch *a);

/* perf_event sample_regs_user mask: every general-purpose register, the
 * stack pointer and the instruction pointer. */
uint64_t ds_arch_sample_regs(const ds_arch *a);
/* Name of perf register number `reg` ("ax", "r8", "ip"), or NULL. */
const char *ds_arch_perf_reg_name(const ds_arch *a, unsigned reg);

/* Outside arch/, registers are named by their DWARF numbers (x86-64:
 * 0 rax, 1 rdx, 2 rcx, 3 rbx, 4 rsi, 5 rdi, 6 rbp, 7 rsp, 8-15 r8-r15,
 * 16 rip), the numbering debug information uses. */
#define DS_REG_NONE (-1)

/* DWARF register numbers of the stack pointer, the frame pointer and the
 * instruction pointer. */
int ds_arch_dwarf_sp(const ds_arch *a);
int ds_arch_dwarf_fp(const ds_arch *a);
int ds_arch_dwarf_ip(const ds_arch *a);
/* perf's number for DWARF register reg (its bit in sample_regs_user), or
 * -1 when perf does not sample it. */
int ds_arch_perf_reg(const ds_arch *a, int reg);
/* The value of DWARF register reg in a sample's user registers (regs: one
 * value per bit of mask, in bit order); false when the sample lacks it. */
bool ds_arch_sampled_reg(const ds_arch *a, uint64_t mask, const uint64_t *regs, int reg, uint64_t *v);
/* "rax", "r12", "rip"; NULL for an unknown number. */
const char *ds_arch_reg_name(const ds_arch *a, int reg);
/* The calling convention: the registers integer and pointer arguments
 * arrive in, in order, the one an integer or pointer result returns in,
 * and the registers a call may change. */
const int *ds_arch_int_args(const ds_arch *a, size_t *n);
int ds_arch_int_return(const ds_arch *a);
uint64_t ds_arch_caller_saved(const ds_arch *a);

/* ---- decoding ---- */
typedef struct ds_decoder ds_decoder;

ds_decoder *ds_decoder_new(const ds_arch *a, ds_err *err);
void ds_decoder_free(ds_decoder *d);
/* Disassemble the instruction at code[0..len) (address addr) into text
 * ("mov rax, qword ptr [rbx + 8]"); returns its length in bytes, or 0
 * when the bytes do not decode (text then says "(bad)"). */
size_t ds_decode_text(ds_decoder *d, const uint8_t *code, size_t len, uint64_t addr,
		      char *text, size_t textlen);

/* A memory operand: address = base + index * scale + disp (+ the next
 * instruction's address when rip_relative). */
typedef struct ds_memop {
	int base;           /* DWARF register, DS_REG_NONE */
	int index;          /* DWARF register, DS_REG_NONE */
	int scale;
	int64_t disp;
	uint32_t size;      /* bytes accessed */
	bool read, write;
	bool rip_relative;
	bool segment;       /* fs: or gs: prefix (thread-local): the base is not sampled */
	bool fs;            /* ... fs:, x86-64's thread pointer (gs: is no thread-local of glibc's) */
	bool address_only;  /* lea: the address is computed, memory is not touched */
} ds_memop;

enum ds_flow {
	DS_FLOW_NEXT,           /* falls through to the next instruction */
	DS_FLOW_JUMP,           /* unconditional direct jump */
	DS_FLOW_COND,           /* conditional direct jump */
	DS_FLOW_INDIRECT_JUMP,  /* jmp through a register or memory */
	DS_FLOW_CALL,           /* direct call */
	DS_FLOW_INDIRECT_CALL,
	DS_FLOW_RET,
	DS_FLOW_SYSCALL,
	DS_FLOW_STOP,           /* ud2, hlt, int3: execution does not go on */
};

/* How an instruction moves data between registers and memory, as far as
 * tracking the types of registers needs to know. */
enum ds_move {
	DS_MOVE_NONE,      /* writes no general-purpose register */
	DS_MOVE_REG,       /* dst = src */
	DS_MOVE_LOAD,      /* dst = memory at mem[0] */
	DS_MOVE_STORE,     /* memory at mem[0] = src */
	DS_MOVE_LEA,       /* dst = address of mem[0] */
	DS_MOVE_ADD_IMM,   /* dst += imm (a negative imm for sub) */
	DS_MOVE_ADD_REG,   /* dst += src */
	DS_MOVE_ADD_LOAD,  /* dst += memory at mem[0] */
	DS_MOVE_IMM,       /* dst = imm */
	DS_MOVE_SELECT,    /* dst = src, or dst as it was (a conditional move) */
	DS_MOVE_OTHER,     /* dst gets a value of unknown meaning */
};

/* Arithmetic and logic with an immediate operand, register or memory
 * destination: what bit-field accesses look like (and, or, add 1<<k). */
enum ds_alu {
	DS_ALU_NONE,
	DS_ALU_ADD,   /* also sub, with the immediate negated */
	DS_ALU_AND,
	DS_ALU_OR,
	DS_ALU_XOR,
	DS_ALU_TEST,
	DS_ALU_SHR,   /* also sar */
	DS_ALU_SHL,
};

#define DS_MAX_MEMOPS 2

typedef struct ds_insn {
	uint64_t addr;
	uint32_t len;
	enum ds_flow flow;
	uint64_t target;          /* DS_FLOW_JUMP, COND, CALL: the target address */
	uint32_t nmem;
	ds_memop mem[DS_MAX_MEMOPS]; /* explicit memory operands */
	uint64_t regs_read;       /* bit n: DWARF register n (explicit and implicit) */
	uint64_t regs_written;
	enum ds_move move;
	int dst, src;             /* DWARF registers of the move, DS_REG_NONE */
	int64_t imm;
	uint32_t move_size;       /* bytes moved */
	enum ds_alu alu;          /* with alu_imm, when the instruction has one */
	int64_t alu_imm;
} ds_insn;

/* Decode one instruction; false when the bytes do not decode. */
bool ds_decode(ds_decoder *d, const uint8_t *code, size_t len, uint64_t addr, ds_insn *out);

#endif
