/*
 * memobj/: the machine's memory geometry and memory objects.
 *
 * Today: the cache hierarchy as sysfs describes it, recorded into every
 * experiment so that it can be analyzed on another machine.  Memory-object
 * expressions build on this.
 */
#ifndef DSPROF_MEMOBJ_H
#define DSPROF_MEMOBJ_H

#include "base/base.h"
#include "experiment/experiment.h"

/* Cache levels of CPU `cpu` from SYSFS/devices/system/cpu/cpuN/cache
 * (sysfs_root NULL means /sys), in sysfs index order.  Returns how many
 * were filled (0 when sysfs says nothing, as in some containers). */
int ds_geometry_sysfs(const char *sysfs_root, int cpu, ds_cache_level *out, int max);

#endif
