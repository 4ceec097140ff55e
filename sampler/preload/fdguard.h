/*
 * The descriptor guard of the trackers dsprof preloads into a program
 * (sampler/preload/; linked into each tracker's library): keeps their
 * descriptors out of the program's way, and the program's out of theirs.
 *
 * A program may close every descriptor above 2 (close_range, closefrom,
 * a loop of close: daemons do), replace one with dup2 and open a file
 * that gets a freed number.  A tracker that went on writing through the
 * number it had would write into the program's file.  So:
 *   - a tracker's descriptor lives at a high number (a little below the
 *     soft RLIMIT_NOFILE, at most 1024: a table grown to a huge limit
 *     costs the kernel memory in every process, and fork copies it),
 *     close-on-exec: the program's own descriptors, given the lowest
 *     free number, do not meet it;
 *   - the guard interposes close, close_range, closefrom, dup2 and dup3:
 *     close of a guarded number fails as for a number that is not open
 *     (EBADF), close_range and closefrom close everything around them,
 *     and dup2 or dup3 onto one first moves the tracker's descriptor to
 *     another number (a library's that cannot move is given up: pinned);
 *   - what the guard cannot see (a raw system call) the tracker finds
 *     before it writes: ds_fdguard_use checks that the number is still
 *     its file (device and inode) and says when it is not, and the
 *     guard's functions let the program have such a number.
 *
 * A descriptor a library opens for the tracker and keeps by number
 * (libunwind's pipe, which it writes memory into to check that the
 * memory is readable) is made inside ds_fdguard_own: pipe2 there puts it
 * high, pinned.  A pinned descriptor the program takes means the library
 * must not be called again: ds_fdguard_pins_lost.
 */
#ifndef DS_PRELOAD_FDGUARD_H
#define DS_PRELOAD_FDGUARD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <sys/types.h>

/* A descriptor a tracker keeps: where it is, and what file.  Static
 * storage: zeros are an empty slot (the guard keeps no number below 3). */
typedef struct ds_fdslot {
	atomic_int fd;      /* its number now; 0: none; -1: claimed, being kept */
	atomic_int users;   /* threads between ds_fdguard_use and ds_fdguard_done */
	atomic_int taken;   /* the program took its number (a call the guard does not see) */
	dev_t dev;          /* the file it is */
	ino_t ino;
	bool pinned;        /* its number is a library's: never moved */
} ds_fdslot;

/* Keep fd in s: moved to a high free number, close-on-exec, guarded.
 * The number given is closed once moved.  want_dev and want_ino, when
 * not 0, are the file fd must be (one that came from elsewhere: a
 * number the program reused meanwhile is not taken for it).  The number
 * kept, or -1: not kept (closed, unless it was not the file wanted). */
int ds_fdguard_keep(ds_fdslot *s, int fd, dev_t want_dev, ino_t want_ino);
/* Let go of s's descriptor, closed when it is still the file. */
void ds_fdguard_drop(ds_fdslot *s);
/* The number to read or write s's file through, held until
 * ds_fdguard_done (dup2 onto it waits for that before it moves it); -1,
 * not held, when s has no descriptor or the program took its number
 * (s->taken says which).  One system call: fstat. */
int ds_fdguard_use(ds_fdslot *s);
void ds_fdguard_done(ds_fdslot *s);
/* In a fork's child: the threads that held slots are gone. */
void ds_fdguard_forked(void);
/* Around the tracker's calls into a library that makes descriptors for it
 * and keeps them by number (+1 before, -1 after): its pipes are pinned,
 * and its close of them closes them. */
void ds_fdguard_own(int delta);
/* Whether the program took a pinned descriptor's number: the library that
 * holds it must not be called again.  A load: the guard's calls see a
 * dup2 onto one; ds_fdguard_pins_check looks (fstat) for those a system
 * call the guard does not see took, and says the same. */
bool ds_fdguard_pins_lost(void);
bool ds_fdguard_pins_check(void);

#endif
