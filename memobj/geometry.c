/* Cache geometry from sysfs. */
#include "memobj/memobj.h"

#include <stdlib.h>
#include <string.h>

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
