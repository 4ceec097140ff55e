/*
 * backtrack/: from a sample to the instruction that caused it.
 *
 * A precise sample (PEBS, IBS, SPE, a page fault, the simulator) names its
 * trigger: the sampled IP.  An imprecise one (cpu-clock, most counters)
 * names the next instruction to execute, and the trigger is found by
 * walking back through the function's instructions to the nearest one
 * that accesses memory.  The walk is only sound inside one basic block,
 * so it stops, with a named verdict, where control may have come from
 * elsewhere: a branch target, a call, a jump or a return, or a function
 * whose indirect jumps hide where its blocks start.
 *
 * Per unique IP this is done once (ds_backtrack, cached per function);
 * per sample only the effective address is computed from the sampled
 * registers (ds_trigger_ea), valid when no instruction between the
 * trigger and the IP overwrote the registers the address is made of.
 */
#ifndef DSPROF_BACKTRACK_H
#define DSPROF_BACKTRACK_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/arch.h"
#include "base/base.h"
#include "dwarfmap/dwarfmap.h"
#include "experiment/experiment.h"

enum ds_bt_verdict {
	DS_BT_OK,               /* the trigger and its memory operand are known */
	DS_BT_BRANCH_TARGET,    /* the walk reached an instruction a branch may jump to */
	DS_BT_CALL,             /* a call ran just before: the sample follows a return, or is at
				 * (or walked back to) its function's entry */
	DS_BT_JUMP,             /* the instruction before never falls through (jmp, ret) */
	DS_BT_INDIRECT,         /* the function jumps through tables dsprof cannot read */
	DS_BT_NOT_FOUND,        /* no memory access within the walk limit */
	DS_BT_NOT_MEMORY,       /* a precise sample at an instruction that accesses no memory */
	DS_BT_NO_CODE,          /* no code bytes: no object file, JIT code, the kernel */
	DS_BT_NO_FUNCTION,      /* no symbol bounds the function to decode */
	DS_BT_BAD_DECODE,       /* the function's instructions do not decode up to the IP */
	DS_BT_NO_MEMORY,        /* a walk stopped at a branch target, in a block that accesses no
				 * memory at all (a compute loop, a divide): no load to charge */
	DS_BT_NVERDICTS
};

/* "ok", "crossed-branch-target", "after-call", ... (used in bucket names). */
const char *ds_bt_verdict_name(enum ds_bt_verdict v);

typedef struct ds_trigger {
	enum ds_bt_verdict verdict;
	uint64_t pc;          /* vaddr of the trigger in its object */
	uint32_t len;         /* its length (RIP-relative addresses count from its end) */
	ds_memop mem;         /* the access (the first memory operand) */
	ds_memop mem2;        /* the instruction's second access, size 0 when none: call [mem]
			       * and push [mem] also write the stack, pop [mem] reads it */
	uint64_t clobbered;   /* DWARF registers written from the trigger up to the IP
			       * in a way that cannot be undone */
	/* Registers only stepped by constants since the trigger (add rdi, 8;
	 * lea rcx, [rcx+24]: a loop's pointer moving on): each one's value at
	 * the IP minus its delta is its value at the trigger. */
	struct {
		int reg;
		int64_t delta;
	} stepped[4];
	uint32_t nstepped;
	uint32_t distance;    /* instructions walked back (0: the IP itself) */
} ds_trigger;

typedef struct ds_backtracker ds_backtracker;

ds_backtracker *ds_backtracker_new(const ds_arch *a, ds_err *err);
void ds_backtracker_free(ds_backtracker *b);
/* The decoder the backtracker uses (for callers that also decode). */
ds_decoder *ds_backtracker_decoder(ds_backtracker *b);

/* The trigger of a sample at `ip` (a vaddr of object d).  Functions are
 * decoded once and cached by the backtracker. */
void ds_backtrack(ds_backtracker *b, ds_dso *d, uint64_t ip, bool precise, ds_trigger *out);

enum ds_ea_status {
	DS_EA_OK,
	DS_EA_STATIC,          /* a RIP-relative or absolute address: no registers needed */
	DS_EA_REGS_CHANGED,    /* base or index was overwritten after the trigger */
	DS_EA_NO_REGS,         /* the sample carries no (or not these) registers */
	DS_EA_SEGMENT,         /* fs:/gs: relative: the segment base is not sampled */
	DS_EA_NO_TRIGGER,      /* the trigger is unknown */
};

/* The runtime effective address of the trigger for one sample.  ip is the
 * sample's runtime IP, ip_vaddr the same instruction in the object (their
 * difference relocates RIP-relative addresses). */
enum ds_ea_status ds_trigger_ea(const ds_arch *a, const ds_trigger *t, const ds_sample *s,
				uint64_t ip_vaddr, uint64_t *ea);

#endif
