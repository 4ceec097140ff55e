/*
 * The heap tracker's own stack walk (x86-64): from a return address and
 * the caller's stack and frame pointers up, by the rules the compiler's
 * call-frame information (.eh_frame, found through .eh_frame_hdr) gives
 * at each return address.  A rule is read once and kept in a cache: the
 * CFA is rsp or rbp plus an offset, the return address and the saved rbp
 * are at offsets from it.  A frame whose rule is any other (a signal
 * frame, a CFA computed by an expression, a stack realigned through
 * another register) or that has no rule stops the walk with -1: the
 * caller asks the unwinder (libunwind) instead.
 *
 * Used by sampler/preload/heap.c, which checks its stacks against the
 * unwinder's, and by tests/unit/test_walk.c.
 */
#ifndef DS_PRELOAD_WALK_H
#define DS_PRELOAD_WALK_H

#include <stdint.h>

#define DS_WALK_BITS 14

typedef struct ds_walk_rule {
	uintptr_t ra;    /* the return address it is the rule at; 0: empty */
	int32_t cfa_off; /* CFA = rsp or rbp (how) + cfa_off */
	int16_t rbp_off; /* the caller's rbp at CFA + rbp_off; 0: rbp is the caller's */
	int8_t ra_off;   /* the caller's return address is at CFA + ra_off */
	uint8_t how;
} ds_walk_rule;

/* Rules by return address, direct-mapped: zeroed memory is empty.  One a
 * thread: the walk neither locks nor allocates. */
typedef struct ds_walk_cache {
	ds_walk_rule slot[1u << DS_WALK_BITS];
} ds_walk_cache;

/* The return addresses from ra (the caller's: it returns to ra with stack
 * pointer sp and frame pointer rbp) up, into f, at most max; the stack
 * ends below hi (its top).  How many, or -1 when a frame has no rule the
 * walk knows, or leaves the stack. */
int ds_walk(ds_walk_cache *c, uintptr_t ra, uintptr_t sp, uintptr_t rbp, uintptr_t hi, void **f, int max);

#endif
