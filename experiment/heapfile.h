/*
 * The heap files of an experiment (DIR/heap/): what `dsprof record --heap`
 * saw a process allocate and free.  docs/experiment-format.md describes
 * them; this header is the layout, shared by their writers (the interposer
 * preloaded into the target, sampler/preload/; the simulator's tool,
 * sampler/sim/) and their reader (experiment/heap.c).  The tool is built
 * without libc: constants and plain structs of kernel types only.
 *
 * One file per process image: a fork's child and an exec'd program get
 * their own.  A file is a header page, then chunks of DS_HEAP_CHUNK bytes.
 * Each thread of the process gathers its records in a buffer of a chunk's
 * size and writes it into the next free chunk of the file when it is full,
 * when the thread ends and before the process exits, execs or _exits; the
 * rest of a chunk after its last record is zeros, up to its tally.  A
 * process killed loses its buffers.  A record is at least 8 bytes, a
 * multiple of 8, and starts with its type and size; a type 0 ends the
 * chunk's records.
 *
 * Records of one thread are in the order they happened, with their times;
 * those of different threads are not: a site (its frames) may come after
 * an allocation that names it.
 *
 * The tracker writes most events short (16 or 24 bytes, not 40: a
 * malloc-heavy program writes about a byte of records per nanosecond it
 * runs): each of its chunks starts with a base record, the thread and a
 * time, and a short record is an event of that thread at a time after it.
 * Events a short record cannot hold (blocks of 4 GiB or more, part of a
 * mapping unmapped) are whole records.
 *
 * A chunk's last DS_HEAP_TALLY_SIZE bytes are its tally: how many records
 * of each kind it holds, written with them, so that `dsprof record` sums a
 * file of millions of records from a page a chunk.  A chunk without one
 * (cut short, or of an older version) is counted by reading its records.
 */
#ifndef DSPROF_HEAPFILE_H
#define DSPROF_HEAPFILE_H

#include <linux/types.h>

#define DS_HEAP_MAGIC "DSHEAP01"  /* 8 bytes, no NUL */
#define DS_HEAP_VERSION 4         /* 1: no short records, 2: no tallies, 3: no end records; still read */
#define DS_HEAP_HEADER 4096        /* the header's page; chunks follow it */
#define DS_HEAP_CHUNK 65536
#define DS_HEAP_MAX_FRAMES 32      /* a site's frames, at most */
#define DS_HEAP_LIB "libdsprof-heap.so" /* the tracker record --heap preloads */

/* The file's first bytes. */
struct ds_heap_header {
	char magic[8];
	__u32 version;
	__u32 header_size;           /* DS_HEAP_HEADER */
	__u32 chunk_size;            /* DS_HEAP_CHUNK */
	__u32 pid;                   /* the process */
	__u32 ppid;                  /* its parent, when this image began */
	__u32 flags;                 /* DS_HEAP_F_* */
	__u64 start_ns;              /* when this image began, on the samples' clock */
	__u32 max_frames;            /* the deepest site it records */
	__u32 mmap_min;              /* anonymous mappings of at least this many bytes are blocks */
	char exe[256];               /* the program (/proc/self/exe), NUL-terminated */
};

enum {
	DS_HEAP_F_FORKED = 1 << 0,   /* the image began in a fork's child (the parent's program) */
	DS_HEAP_F_LOGICAL = 1 << 1,  /* times are the simulator's logical clock */
	DS_HEAP_F_TAKEN = 1 << 2,    /* the program took the tracker's descriptor of it once at least
				      * (closed or replaced it by a system call the tracker does not
				      * see); the tracker asked for the file again (heapask.h) */
	DS_HEAP_F_LOST = 1 << 3,     /* ... and did not get it: the records after that are lost */
};

enum ds_heap_type {
	DS_HEAP_END = 0,             /* no more records in this chunk */
	DS_HEAP_SITE = 1,            /* struct ds_heap_site */
	DS_HEAP_ALLOC = 2,           /* struct ds_heap_event: a block begins */
	DS_HEAP_FREE = 3,            /* struct ds_heap_event: a block ends */
	DS_HEAP_EXIT = 4,            /* struct ds_heap_event (fn, site, addr, bytes 0): the process
				      * is exiting (exit(), or main returned); blocks live after
				      * it leaked */
	DS_HEAP_BASE = 5,            /* struct ds_heap_base: the short records after it */
	DS_HEAP_SALLOC = 6,          /* struct ds_heap_salloc: DS_HEAP_ALLOC, short */
	DS_HEAP_SFREE = 7,           /* struct ds_heap_sfree: DS_HEAP_FREE of a whole block, short */
	DS_HEAP_TALLY = 8,           /* struct ds_heap_tally: at a chunk's end only */
	DS_HEAP_ENDS = 9,            /* struct ds_heap_event (fn: enum ds_heap_end, bytes: the
				      * signal; site, addr 0): the image ends otherwise, its
				      * records all written; blocks live then are not leaks.  An
				      * image with neither this nor an exit lost its last records
				      * (killed outright, or the tracker lost its file) */
};

/* How an image ends when it does not exit (DS_HEAP_ENDS). */
enum ds_heap_end {
	DS_HEAP_BY_EXEC,             /* exec (a failed one: its records go on after it) */
	DS_HEAP_BY_EXIT_NOW,         /* _exit, _Exit */
	DS_HEAP_BY_SIGNAL,           /* a signal that ends it by default (SIGINT, SIGTERM, SIGHUP) */
};

/* The allocation function a record is about. */
enum ds_heap_fn {
	DS_HEAP_MALLOC, DS_HEAP_CALLOC, DS_HEAP_REALLOC, DS_HEAP_FREE_FN, DS_HEAP_POSIX_MEMALIGN,
	DS_HEAP_ALIGNED_ALLOC, DS_HEAP_MEMALIGN, DS_HEAP_VALLOC, DS_HEAP_PVALLOC, DS_HEAP_REALLOCARRAY,
	DS_HEAP_MMAP, DS_HEAP_MUNMAP, DS_HEAP_MREMAP, DS_HEAP_NFN
};

/* A call stack allocations came from: its frames, innermost first, from
 * the return address into the function that called the allocator.  Site
 * 0 is none: an allocation made while the writer was busy with another
 * (a signal handler's), or once the writer's table of stacks was full. */
struct ds_heap_site {
	__u16 type;                  /* DS_HEAP_SITE */
	__u16 size;                  /* 8 + 8 x frames */
	__u32 site;
	__u64 frames[];
};

/* A block's beginning or end.  A realloc that moves or resizes a block is
 * its end (fn realloc) and a new block's beginning (fn realloc) at one
 * time; munmap and mremap may end part of a mapping (addr, size). */
struct ds_heap_event {
	__u16 type;                  /* DS_HEAP_ALLOC or DS_HEAP_FREE */
	__u16 size;                  /* sizeof (40) */
	__u8 fn;                     /* enum ds_heap_fn */
	__u8 pad[3];
	__u32 tid;
	__u32 site;                  /* ALLOC: the site; FREE: 0 */
	__u64 time;                  /* on the samples' clock (ns, or the simulator's) */
	__u64 addr;
	__u64 bytes;                 /* ALLOC: the size asked for; FREE: the mapping's bytes
				      * that end (munmap, mremap), 0 for the whole block */
};

/* The thread and the time of the short records that follow it in its
 * chunk, up to the next base. */
struct ds_heap_base {
	__u16 type;                  /* DS_HEAP_BASE */
	__u16 size;                  /* sizeof (24) */
	__u32 tid;
	__u64 time;                  /* ns, on the samples' clock */
	__u64 mult;                  /* a short record's time is time + (dtime * mult >> 32) */
};

/* A short record's address and function: addr | fn << 56 (user
 * addresses are below 2^56, with five-level page tables too). */
#define DS_HEAP_ADDR_BITS 56

/* A block's beginning, of fewer than 2^32 bytes. */
struct ds_heap_salloc {
	__u16 type;                  /* DS_HEAP_SALLOC */
	__u16 size;                  /* sizeof (24) */
	__u32 dtime;                 /* after the base's time, in its units (mult) */
	__u32 site;
	__u32 bytes;
	__u64 addr_fn;
};

/* A whole block's end. */
struct ds_heap_sfree {
	__u16 type;                  /* DS_HEAP_SFREE */
	__u16 size;                  /* sizeof (16) */
	__u32 dtime;
	__u64 addr_fn;
};

/* A chunk's tally, in its last bytes: the records before it in the chunk,
 * by kind (short or whole). */
struct ds_heap_tally {
	__u16 type;                  /* DS_HEAP_TALLY */
	__u16 size;                  /* sizeof (16) */
	__u32 allocs;
	__u32 frees;
	__u32 sites;
};
#define DS_HEAP_TALLY_SIZE 16
#define DS_HEAP_TALLY_AT (DS_HEAP_CHUNK - DS_HEAP_TALLY_SIZE) /* a chunk's records end before it */

/* Count a record of type (short or whole) into t. */
static inline void ds_heap_tally_add(struct ds_heap_tally *t, unsigned type)
{
	t->allocs += type == DS_HEAP_ALLOC || type == DS_HEAP_SALLOC;
	t->frees += type == DS_HEAP_FREE || type == DS_HEAP_SFREE;
	t->sites += type == DS_HEAP_SITE;
}

/* The tally of a chunk's n bytes of records p: for the writers' own
 * records, which are sound. */
static inline struct ds_heap_tally ds_heap_tally_of(const unsigned char *p, __u32 n)
{
	struct ds_heap_tally t = {DS_HEAP_TALLY, DS_HEAP_TALLY_SIZE, 0, 0, 0};
	__u16 head[2];

	for (__u32 off = 0; off + sizeof head <= n && off < DS_HEAP_TALLY_AT; off += head[1]) {
		__builtin_memcpy(head, p + off, sizeof head);
		if (head[1] < 8)
			break;
		ds_heap_tally_add(&t, head[0]);
	}
	return t;
}

#endif
