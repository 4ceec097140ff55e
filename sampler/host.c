/* What the recording machine is: written into perf.data and meta.json. */
#include "sampler/backend.h"
#include "sampler/sampler.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>
#include <unistd.h>

/* Value of "key : value" in /proc/cpuinfo's first processor block. */
static bool cpuinfo_field(const char *info, const char *key, char *out, size_t n)
{
	size_t kl = strlen(key);
	for (const char *l = info; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *colon;
		if (*l == '\n')
			return false; /* end of the first processor */
		if (strncmp(l, key, kl) != 0 || (l[kl] != ' ' && l[kl] != '\t' && l[kl] != ':'))
			continue;
		colon = strchr(l, ':');
		if (!colon)
			continue;
		colon++;
		while (*colon == ' ')
			colon++;
		snprintf(out, n, "%.*s", (int)strcspn(colon, "\n"), colon);
		return true;
	}
	return false;
}

void ds_host_probe(ds_host *h)
{
	struct utsname u;
	char *info;
	long v;

	memset(h, 0, sizeof *h);
	if (uname(&u) == 0) {
		snprintf(h->hostname, sizeof h->hostname, "%s", u.nodename);
		snprintf(h->kernel, sizeof h->kernel, "%s", u.release);
		snprintf(h->arch, sizeof h->arch, "%s", u.machine);
	}
	info = ds_read_file("/proc/cpuinfo", NULL);
	if (info) {
		char vendor[64] = "", fam[16] = "", model[16] = "", step[16] = "";
		if (!cpuinfo_field(info, "model name", h->cpu_model, sizeof h->cpu_model))
			cpuinfo_field(info, "Processor", h->cpu_model, sizeof h->cpu_model);
		cpuinfo_field(info, "vendor_id", vendor, sizeof vendor);
		cpuinfo_field(info, "cpu family", fam, sizeof fam);
		cpuinfo_field(info, "model", model, sizeof model);
		cpuinfo_field(info, "stepping", step, sizeof step);
		if (*vendor)
			snprintf(h->cpuid, sizeof h->cpuid, "%s,%s,%s,%s", vendor, fam, model, step);
		free(info);
	}
	v = sysconf(_SC_NPROCESSORS_ONLN);
	h->ncpus_online = v > 0 ? (unsigned)v : 1;
	v = sysconf(_SC_NPROCESSORS_CONF);
	h->ncpus_avail = v > 0 ? (unsigned)v : h->ncpus_online;
	v = sysconf(_SC_PHYS_PAGES);
	h->page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	if (v > 0)
		h->mem_kb = (uint64_t)v * h->page_size / 1024;
}

uint64_t ds_clock_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void ds_pdw_info_host(ds_pdw_info *info, ds_host *h, const ds_record_opts *o)
{
	ds_host_probe(h);
	info->hostname = h->hostname;
	info->osrelease = h->kernel;
	info->version = "dsprof " DSPROF_VERSION;
	info->arch = h->arch;
	info->cpudesc = h->cpu_model;
	info->cpuid = h->cpuid[0] ? h->cpuid : NULL;
	info->nr_cpus_online = h->ncpus_online;
	info->nr_cpus_avail = h->ncpus_avail;
	info->total_mem_kb = h->mem_kb;
	info->argc = o->argc_self;
	info->argv = o->argv_self;
}
