/* Cache geometry of this machine: from sysfs, else from CPUID.
 *
 * sysfs is what the kernel computed from the CPU, and has the shared-CPU
 * lists; some virtual machines (Firecracker guests, some containers) have
 * no cpu/cpuN/cache directory at all.  The kernel fills that directory
 * from CPUID on x86, so reading CPUID ourselves gives the same sizes, ways
 * and lines there (without the shared-CPU lists). */
#include "memobj/memobj.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

static bool read_u64(const char *dir, const char *name, uint64_t *out)
{
	char *path = ds_xasprintf("%s/%s", dir, name);
	char *s = ds_read_line(path);
	char *end;
	uint64_t mul = 1;
	bool ok = false;

	free(path);
	if (!s)
		return false;
	unsigned long long v = strtoull(s, &end, 10);
	/* sizes read "48K", "1024K", "32M" */
	if (*end == 'K')
		mul = 1024;
	else if (*end == 'M')
		mul = 1024 * 1024;
	else if (*end == 'G')
		mul = 1024ull * 1024 * 1024;
	if (end != s) {
		*out = v * mul;
		ok = true;
	}
	free(s);
	return ok;
}

int ds_geometry_sysfs(const char *sysfs_root, int cpu, ds_cache_level *out, int max)
{
	int n = 0;
	for (int idx = 0; n < max && idx < 16; idx++) {
		char *dir = ds_xasprintf("%s/devices/system/cpu/cpu%d/cache/index%d",
					 sysfs_root ? sysfs_root : "/sys", cpu, idx);
		char *type, *tpath = ds_xasprintf("%s/type", dir);
		ds_cache_level *c = &out[n];
		uint64_t v;

		type = ds_read_line(tpath);
		free(tpath);
		if (!type) {
			free(dir);
			break;
		}
		memset(c, 0, sizeof *c);
		snprintf(c->type, sizeof c->type, "%s", type);
		free(type);
		if (read_u64(dir, "level", &v)) c->level = (int)v;
		if (read_u64(dir, "size", &v)) c->size = v;
		if (read_u64(dir, "coherency_line_size", &v)) c->line = (unsigned)v;
		if (read_u64(dir, "ways_of_associativity", &v)) c->ways = (unsigned)v;
		if (read_u64(dir, "number_of_sets", &v)) c->sets = (unsigned)v;
		{
			char *p = ds_xasprintf("%s/shared_cpu_list", dir);
			char *s = ds_read_line(p);
			snprintf(c->shared_cpus, sizeof c->shared_cpus, "%s", s ? s : "");
			free(s);
			free(p);
		}
		free(dir);
		n++;
	}
	return n;
}

/* ---- CPUID ---- */

static bool real_cpuid(void *ctx, uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	(void)ctx;
#if defined(__x86_64__) || defined(__i386__)
	__cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
	return true;
#else
	(void)leaf, (void)sub, (void)r;
	return false;
#endif
}

static bool leaf(ds_cpuid_fn *fn, void *ctx, uint32_t l, uint32_t sub, uint32_t r[4])
{
	memset(r, 0, 4 * sizeof *r);
	return fn(ctx, 0, 0, r) && (l < 0x80000000u ? r[0] >= l : fn(ctx, 0x80000000u, 0, r) && r[0] >= l) &&
	       fn(ctx, l, sub, r);
}

/* Intel's leaf 4 and AMD's 0x8000001D: one sub-leaf per cache, in the
 * format the SDM calls "deterministic cache parameters". */
static int deterministic(ds_cpuid_fn *fn, void *ctx, uint32_t l, ds_cache_level *out, int max)
{
	static const char *const types[] = {NULL, "Data", "Instruction", "Unified"};
	uint32_t r[4];
	int n = 0;

	for (uint32_t sub = 0; n < max && sub < 16 && leaf(fn, ctx, l, sub, r); sub++) {
		unsigned type = r[0] & 31;
		ds_cache_level *c = &out[n];

		if (type == 0)
			break;
		if (type > 3)
			continue;
		memset(c, 0, sizeof *c);
		snprintf(c->type, sizeof c->type, "%s", types[type]);
		c->level = (int)((r[0] >> 5) & 7);
		c->line = (r[1] & 0xfff) + 1;
		c->size = (uint64_t)c->line * (((r[1] >> 12) & 0x3ff) + 1) * ((r[1] >> 22) + 1) *
			  ((uint64_t)r[2] + 1);
		if (!((r[0] >> 9) & 1)) { /* a fully associative cache has no sets to speak of */
			c->ways = (r[1] >> 22) + 1;
			c->sets = r[2] + 1;
		}
		n++;
	}
	return n;
}

/* AMD's associativity codes of leaf 0x80000006 (0 disabled; 9: "see leaf
 * 0x8000001D", unknown without it). */
static unsigned amd_ways(unsigned code)
{
	static const unsigned ways[16] = {0, 1, 2, 3, 4, 0, 8, 0, 16, 0, 32, 48, 64, 96, 128, 0};
	return code == 5 ? 6 : ways[code & 15];
}

static void amd_level(ds_cache_level *c, int level, const char *type, uint64_t size, unsigned ways,
		      unsigned line)
{
	memset(c, 0, sizeof *c);
	c->level = level;
	snprintf(c->type, sizeof c->type, "%s", type);
	c->size = size;
	c->line = line;
	c->ways = ways;
	if (ways && line && size % ((uint64_t)ways * line) == 0)
		c->sets = (unsigned)(size / ((uint64_t)ways * line));
}

/* AMD's legacy leaves 0x80000005 (L1) and 0x80000006 (L2, L3), for CPUs
 * and hypervisors without the topology extensions. */
static int amd_legacy(ds_cpuid_fn *fn, void *ctx, ds_cache_level *out, int max)
{
	uint32_t r5[4], r6[4];
	int n = 0;

	if (!leaf(fn, ctx, 0x80000005u, 0, r5))
		return 0;
	if (n < max && (r5[2] >> 24)) /* ECX: L1D; ways 0xff: fully associative */
		amd_level(&out[n++], 1, "Data", (uint64_t)(r5[2] >> 24) << 10,
			  ((r5[2] >> 16) & 0xff) == 0xff ? 0 : (r5[2] >> 16) & 0xff, r5[2] & 0xff);
	if (n < max && (r5[3] >> 24)) /* EDX: L1I */
		amd_level(&out[n++], 1, "Instruction", (uint64_t)(r5[3] >> 24) << 10,
			  ((r5[3] >> 16) & 0xff) == 0xff ? 0 : (r5[3] >> 16) & 0xff, r5[3] & 0xff);
	if (!leaf(fn, ctx, 0x80000006u, 0, r6))
		return n;
	if (n < max && (r6[2] >> 16) && ((r6[2] >> 12) & 15))
		amd_level(&out[n++], 2, "Unified", (uint64_t)(r6[2] >> 16) << 10,
			  amd_ways((r6[2] >> 12) & 15), r6[2] & 0xff);
	if (n < max && (r6[3] >> 18) && ((r6[3] >> 12) & 15))
		amd_level(&out[n++], 3, "Unified", (uint64_t)(r6[3] >> 18) << 19,
			  amd_ways((r6[3] >> 12) & 15), r6[3] & 0xff);
	return n;
}

int ds_geometry_cpuid(ds_cpuid_fn *fn, void *ctx, ds_cache_level *out, int max)
{
	uint32_t r[4];
	char vendor[13] = {0};
	int n;

	if (!fn)
		fn = real_cpuid;
	if (max <= 0 || !fn(ctx, 0, 0, r))
		return 0;
	memcpy(vendor, &r[1], 4);
	memcpy(vendor + 4, &r[3], 4);
	memcpy(vendor + 8, &r[2], 4);
	if (strcmp(vendor, "AuthenticAMD") == 0 || strcmp(vendor, "HygonGenuine") == 0) {
		/* 0x8000001D is there when 0x80000001 ECX bit 22 (TOPOEXT) is */
		if (leaf(fn, ctx, 0x80000001u, 0, r) && (r[2] >> 22 & 1) &&
		    (n = deterministic(fn, ctx, 0x8000001Du, out, max)) > 0)
			return n;
		return amd_legacy(fn, ctx, out, max);
	}
	return deterministic(fn, ctx, 4, out, max);
}

int ds_geometry_here(ds_cache_level *out, int max, const char **source)
{
	int n = ds_geometry_sysfs(NULL, 0, out, max);

	if (n > 0) {
		*source = "sysfs";
		return n;
	}
	n = ds_geometry_cpuid(NULL, NULL, out, max);
	*source = n > 0 ? "cpuid" : NULL;
	return n;
}
