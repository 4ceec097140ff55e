/*
 * sampler/physaddr.h (internal to sampler/): physical addresses for the
 * samples whose event asks for them (PERF_SAMPLE_PHYS_ADDR) but that the
 * kernel could not give one.
 *
 * The kernel translates a sample's data address when it takes the sample;
 * a page fault is sampled before it is handled, so the page is not there
 * yet and PHYS_ADDR is 0.  When the recorder drains the ring buffer the
 * fault has been handled: /proc/PID/pagemap then names the page's frame
 * (to a reader with CAP_SYS_ADMIN; to others it shows none), and the
 * sample's PHYS_ADDR is filled in, in the copy of the records that is
 * written.  A page
 * that was unmapped, or a process that exited, before the drain leaves
 * the sample without one; the recorder drains often while it translates
 * (ds_physaddr_drain_ms) to keep that rare.
 */
#ifndef DSPROF_SAMPLER_PHYSADDR_H
#define DSPROF_SAMPLER_PHYSADDR_H

#include <stddef.h>
#include <stdint.h>

#include "experiment/experiment.h"

typedef struct ds_physaddr ds_physaddr;

/* A translator for the events[0..n) whose samples have PHYS_ADDR, or NULL
 * when none has (or this process cannot read frame numbers). */
ds_physaddr *ds_physaddr_new(const ds_event *events, size_t n);
void ds_physaddr_free(ds_physaddr *p);
/* Fill in the missing physical addresses of the samples among the
 * records recs[0..len) (a copy: the kernel maps ring buffers' data
 * read-only). */
void ds_physaddr_fill(ds_physaddr *p, unsigned char *recs, size_t len);
/* How often to drain the ring buffers while translating (milliseconds). */
int ds_physaddr_drain_ms(void);

#endif
