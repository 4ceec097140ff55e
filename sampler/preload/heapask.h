/*
 * How the heap tracker (sampler/preload/heap.c) gets its file from
 * `dsprof record --heap` (sampler/heap.c): it never makes one itself.
 *
 * dsprof record listens on an abstract unix socket (SOCK_SEQPACKET) whose
 * name, with a random part, is in the program's environment
 * ($DSPROF_HEAP); no file system permission is involved, so a process
 * that changed its user (setresuid to nobody, then fork) gets its file
 * as the first one did, and nothing is inherited that a program which
 * closes every descriptor could close.  Each process image connects when
 * it starts (at load, and in a fork's child), sends one ask, and gets one
 * answer with the descriptor of its file (SCM_RIGHTS): dsprof record
 * makes DIR/heap/PID-START.heap itself, PID being the process the kernel
 * says connected (SO_PEERCRED, never the ask's), and writes its header
 * page.  An image whose descriptor the program took (closed or replaced
 * it by a system call the tracker does not see) asks for its file again.
 */
#ifndef DS_PRELOAD_HEAPASK_H
#define DS_PRELOAD_HEAPASK_H

#include <linux/types.h>

#include "experiment/heapfile.h"

#define DS_HEAP_ASK_MAGIC 0x6b736168u /* "hask" */

enum ds_heap_ask_op {
	DS_HEAP_ASK_NEW = 1,         /* a new file, with this header */
	DS_HEAP_ASK_AGAIN = 2,       /* the file begun at header.start_ns, again */
};

struct ds_heap_ask {
	__u32 magic;                 /* DS_HEAP_ASK_MAGIC */
	__u32 op;                    /* enum ds_heap_ask_op */
	struct ds_heap_header header; /* NEW: ppid, flags (DS_HEAP_F_FORKED), start_ns, max_frames,
				       * mmap_min and exe are the tracker's; the rest dsprof's */
};

enum {
	DS_HEAP_ANSWER_TSC = 1 << 0, /* the kernel keeps time by the TSC (its clocksource) */
};

struct ds_heap_answer {
	__u32 magic;                 /* DS_HEAP_ASK_MAGIC */
	__s32 err;                   /* 0: the descriptor comes with it; else why not (an errno) */
	__u32 pid;                   /* the process, as the samples know it */
	__u32 flags;                 /* DS_HEAP_ANSWER_* */
	__u64 dev, ino;              /* the file's, to check the descriptor received */
};

/* The tracker's side (heapask.c): ask the dsprof record whose socket
 * $DSPROF_HEAP names for op's file (NEW: h is its header; AGAIN: h's
 * start_ns names it), into *a; its descriptor is kept in slot s (moved
 * high and guarded: fdguard.h) once it is the file the answer names.
 * 0, or why there is no file: the answer's errno, or the one that ended
 * the asking (ENOENT: no $DSPROF_HEAP; ECONNREFUSED: no dsprof record
 * listening any more). */
struct ds_fdslot;
int ds_heap_ask(struct ds_fdslot *s, __u32 op, const struct ds_heap_header *h, struct ds_heap_answer *a);

#endif
