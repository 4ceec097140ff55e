/*
 * memobj/: the machine's memory geometry and memory objects.
 *
 * A machine is the cache hierarchy, page sizes and NUMA nodes of a real
 * machine (sysfs), of the machine an experiment was recorded on (its
 * meta.json), or of a machine model file ("what would this look like with
 * 128-byte lines?").  A memory object maps every sampled access to an
 * index through an expression over the access (VADDR, PADDR, THRID, CPUID,
 * VIRTPC, TSTAMP) and the machine's constants (L1D_LINE, L1D_SETS, ...):
 * cache lines, sets, banks, pages, and whatever users define.  The same
 * language, with string operands, filters samples (FUNC == "main").
 *
 * docs/memory-objects.md describes the language, the predefined objects
 * and the machine model file format.
 */
#ifndef DSPROF_MEMOBJ_H
#define DSPROF_MEMOBJ_H

#include "base/base.h"
#include "experiment/experiment.h"

/* Cache levels of CPU `cpu` from SYSFS/devices/system/cpu/cpuN/cache
 * (sysfs_root NULL means /sys), in sysfs index order.  Returns how many
 * were filled (0 when sysfs says nothing, as in some containers). */
int ds_geometry_sysfs(const char *sysfs_root, int cpu, ds_cache_level *out, int max);

/* ---- machines ---- */

typedef struct ds_machine {
	char *source;             /* "sysfs", "experiment", or the model file's path */
	ds_cache_level caches[8];
	int ncaches;
	uint64_t page_size;       /* bytes */
	uint64_t huge_page_size;  /* bytes, 0 when unknown */
	int numa_nodes;           /* 0 when unknown */
	char **mobj_names;        /* memory objects the model file defines */
	char **mobj_exprs;
	size_t nmobjs;
} ds_machine;

/* This machine, from sysfs. */
int ds_machine_sysfs(ds_machine *m, ds_err *err);
/* The machine an experiment was recorded on, from its meta data. */
void ds_machine_from_meta(ds_machine *m, const ds_meta *meta);
/* A machine model file (format in docs/memory-objects.md); errors name the
 * file and line. */
int ds_machine_load(ds_machine *m, const char *path, ds_err *err);
/* Overrides like "L1D=32k:8:64,L2=1M:16:64" (size:ways:line). */
int ds_machine_override(ds_machine *m, const char *spec, ds_err *err);
void ds_machine_fini(ds_machine *m);
/* A level by name ("L1D", "L1I", "L2", "L3"), or NULL when the machine has none. */
const ds_cache_level *ds_machine_level(const ds_machine *m, const char *name);

#endif
