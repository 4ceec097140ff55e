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

/* DWARF register numbers of the stack pointer and the frame pointer (as
 * call-frame information names them). */
int ds_arch_dwarf_sp(const ds_arch *a);
int ds_arch_dwarf_fp(const ds_arch *a);

/* ---- decoding ---- */
typedef struct ds_decoder ds_decoder;

ds_decoder *ds_decoder_new(const ds_arch *a, ds_err *err);
void ds_decoder_free(ds_decoder *d);
/* Disassemble the instruction at code[0..len) (address addr) into text
 * ("mov rax, qword ptr [rbx + 8]"); returns its length in bytes, or 0
 * when the bytes do not decode (text then says "(bad)"). */
size_t ds_decode_text(ds_decoder *d, const uint8_t *code, size_t len, uint64_t addr,
		      char *text, size_t textlen);

#endif
