/*
 * dsprof record --mem: the events that sample memory accesses precisely on
 * the CPU this runs on, picked as perf mem picks them, from the PMUs the
 * kernel lists under /sys/bus/event_source/devices (their own event names
 * and formats, no encodings of ours):
 *
 *   Intel, PEBS: the core PMU's mem-loads event with a load-latency
 *   threshold (ldlat) and its mem-stores event, precise, each sample with
 *   the data address, the source of the data and the latency (weight).  A
 *   hybrid has two core PMUs (cpu_core, cpu_atom): both are sampled.
 *   AMD Zen, IBS: the ibs_op PMU tags every kind of op; a load or a store
 *   is told by the data source the kernel decodes from the op's registers.
 *   Arm, SPE: an arm_spe PMU writes its records into an AUX area, which
 *   dsprof does not map while recording: said so, with what to use
 *   instead (perf records it; dsprof import decodes its records).
 */
#include "sampler/sampler.h"
#include "sampler/events_int.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool has(const char *devroot, const char *pmu, const char *file)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s/%s", devroot, pmu, file);
	return access(path, F_OK) == 0;
}

/* The first arm_spe PMU, in name. */
static bool find_spe(const char *devroot, char *name, size_t n)
{
	DIR *d = opendir(devroot);
	struct dirent *de;
	bool found = false;
	while (d && !found && (de = readdir(d)))
		if (!strncmp(de->d_name, "arm_spe", 7)) {
			snprintf(name, n, "%s", de->d_name);
			found = true;
		}
	if (d)
		closedir(d);
	return found;
}

static void add(ds_mem_plan *p, char *ev)
{
	if (p->nevents < sizeof p->events / sizeof p->events[0])
		p->events[p->nevents++] = ev;
	else
		free(ev);
}

int ds_mem_plan_at(const char *devroot, bool loads, bool stores, unsigned ldlat, ds_mem_plan *out,
		   ds_err *err)
{
	static const char *const cores[] = {"cpu_core", "cpu_atom", "cpu"};
	char spe[256];

	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < sizeof cores / sizeof cores[0]; i++) {
		if (!has(devroot, cores[i], "events/mem-loads"))
			continue;
		out->mechanism = "Intel PEBS (load latency and precise stores)";
		if (loads)
			add(out, ds_xasprintf("%s/mem-loads,ldlat=%u/P", cores[i], ldlat));
		if (stores && has(devroot, cores[i], "events/mem-stores"))
			add(out, ds_xasprintf("%s/mem-stores/P", cores[i]));
	}
	if (out->nevents)
		return 0;
	if (out->mechanism)
		return ds_err_set(err, DS_EENV,
				  "--mem --stores: this CPU's PEBS has no mem-stores event (%s); record its loads "
				  "(--mem --loads)", devroot);
	if (has(devroot, "ibs_op", "type")) {
		out->mechanism = "AMD IBS op (loads and stores told by their data source)";
		add(out, ds_xstrdup("ibs_op//"));
		return 0;
	}
	if (find_spe(devroot, spe, sizeof spe))
		return ds_err_set(err, DS_EENV,
				  "--mem: this CPU has Arm SPE (%s), whose AUX area dsprof does not record; "
				  "record with 'perf mem record', then 'dsprof import perf.data' (which decodes "
				  "its records), or use --sim --mem", spe);
	return ds_err_set(err, DS_EENV,
			  "--mem needs precise memory sampling (Intel PEBS mem-loads, AMD IBS op or Arm "
			  "SPE) and this machine has none in %s; use --sim --mem for simulated memory "
			  "cycles, or -e cpu-clock", devroot);
}

int ds_mem_plan_make(bool loads, bool stores, unsigned ldlat, ds_mem_plan *out, ds_err *err)
{
	return ds_mem_plan_at(DS_EV_DEVROOT, loads, stores, ldlat, out, err);
}

void ds_mem_plan_fini(ds_mem_plan *p)
{
	for (size_t i = 0; i < p->nevents; i++)
		free(p->events[i]);
	memset(p, 0, sizeof *p);
}
