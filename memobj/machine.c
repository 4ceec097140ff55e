/* Machines: this one (sysfs), an experiment's (meta.json), a model file,
 * and overrides of single settings. */
#include "memobj/memobj.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Ranges of physical memory per NUMA node beyond which the node map is not
 * worth an expression (the ?: chain would be too deep to compile). */
#define MAX_NODE_RANGES 32

const char *const ds_machine_constants[] = {
	"L1D_LINE", "L1D_SETS", "L1D_WAYS", "L1D_SIZE",
	"L2_LINE", "L2_SETS", "L2_WAYS", "L2_SIZE",
	"L3_LINE", "L3_SETS", "L3_WAYS", "L3_SIZE",
	"PAGE_SIZE", "HUGE_PAGE_SIZE", NULL,
};

typedef DS_VEC(int) int_vec;

const ds_cache_level *ds_machine_level(const ds_machine *m, const char *name)
{
	bool instr = strcmp(name, "L1I") == 0;
	int level;

	if (strcmp(name, "L1D") == 0 || instr)
		level = 1;
	else if (name[0] == 'L' && name[1] >= '2' && name[1] <= '9' && !name[2])
		level = name[1] - '0';
	else
		return NULL;
	for (int i = 0; i < m->ncaches; i++) {
		const ds_cache_level *c = &m->caches[i];
		if (c->level == level && (strcmp(c->type, "Instruction") == 0) == instr)
			return c;
	}
	return NULL;
}

bool ds_machine_constant(const ds_machine *m, const char *name, int64_t *value)
{
	static const char *const levels[] = {"L1D", "L2", "L3"};
	uint64_t v = 0;

	if (strcmp(name, "PAGE_SIZE") == 0) {
		v = m->page_size;
	} else if (strcmp(name, "HUGE_PAGE_SIZE") == 0) {
		v = m->huge_page_size;
	} else {
		for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
			size_t n = strlen(levels[i]);
			const ds_cache_level *c;
			if (strncmp(name, levels[i], n) != 0 || name[n] != '_')
				continue;
			if (!(c = ds_machine_level(m, levels[i])))
				return false;
			if (strcmp(name + n, "_LINE") == 0)
				v = c->line;
			else if (strcmp(name + n, "_SETS") == 0)
				v = c->sets;
			else if (strcmp(name + n, "_WAYS") == 0)
				v = c->ways;
			else if (strcmp(name + n, "_SIZE") == 0)
				v = c->size;
			break;
		}
	}
	if (v == 0 || v > INT64_MAX)
		return false;
	*value = (int64_t)v;
	return true;
}

/* sysfs leaves number_of_sets out on some machines; the rest implies it. */
static void complete_sets(ds_cache_level *c)
{
	if (!c->sets && c->ways && c->line && c->size % ((uint64_t)c->ways * c->line) == 0)
		c->sets = (unsigned)(c->size / ((uint64_t)c->ways * c->line));
}

/* Define (or redefine) a memory object of the machine. */
static void add_mobj(ds_machine *m, const char *name, const char *text)
{
	for (size_t i = 0; i < m->nmobjs; i++)
		if (strcmp(m->mobj_names[i], name) == 0) {
			free(m->mobj_exprs[i]);
			m->mobj_exprs[i] = ds_xstrdup(text);
			return;
		}
	m->mobj_names = ds_xrealloc(m->mobj_names, (m->nmobjs + 1) * sizeof *m->mobj_names);
	m->mobj_exprs = ds_xrealloc(m->mobj_exprs, (m->nmobjs + 1) * sizeof *m->mobj_exprs);
	m->mobj_names[m->nmobjs] = ds_xstrdup(name);
	m->mobj_exprs[m->nmobjs++] = ds_xstrdup(text);
}

void ds_machine_fini(ds_machine *m)
{
	for (size_t i = 0; i < m->nmobjs; i++) {
		free(m->mobj_names[i]);
		free(m->mobj_exprs[i]);
	}
	free(m->mobj_names);
	free(m->mobj_exprs);
	free(m->source);
	memset(m, 0, sizeof *m);
}

/* ---- sysfs ---- */

static uint64_t read_number(const char *path, int base)
{
	char *s = ds_read_line(path);
	uint64_t v = s ? strtoull(s, NULL, base) : 0;
	free(s);
	return v;
}

/* The size of the huge pages a program gets: transparent huge pages (what
 * programs get without asking), else hugetlbfs's default, else the
 * smallest hugetlbfs size. */
static uint64_t huge_page_size(const char *sys, const char *proc)
{
	char *p = ds_xasprintf("%s/kernel/mm/transparent_hugepage/hpage_pmd_size", sys);
	uint64_t v = read_number(p, 10);
	char *meminfo, *line;
	DIR *d;
	struct dirent *e;

	free(p);
	if (v)
		return v;
	p = ds_xasprintf("%s/meminfo", proc);
	meminfo = ds_read_file(p, NULL);
	free(p);
	if (meminfo && (line = strstr(meminfo, "Hugepagesize:")))
		v = strtoull(line + strlen("Hugepagesize:"), NULL, 10) * 1024;
	free(meminfo);
	if (v)
		return v;
	p = ds_xasprintf("%s/kernel/mm/hugepages", sys);
	d = opendir(p);
	free(p);
	while (d && (e = readdir(d))) {
		unsigned long long kb;
		if (sscanf(e->d_name, "hugepages-%llukB", &kb) == 1 && kb && (!v || kb * 1024 < v))
			v = kb * 1024;
	}
	if (d)
		closedir(d);
	return v;
}

typedef struct block_node {
	uint64_t block;
	int node;
} block_node;

static int cmp_block(const void *a, const void *b)
{
	const block_node *x = a, *y = b;
	return x->block < y->block ? -1 : x->block > y->block;
}

/* NUMA nodes, and from the memory blocks each node holds, numa_node as an
 * expression over PADDR: a chain of range tests.  One node needs no map. */
static void numa_nodes(ds_machine *m, const char *sys)
{
	char *p = ds_xasprintf("%s/devices/system/node", sys);
	DIR *d = opendir(p), *nd;
	struct dirent *e, *f;
	DS_VEC(block_node) blocks = {0};
	int last_node = -1;
	uint64_t block_size;

	free(p);
	while (d && (e = readdir(d))) {
		int node;
		char c;
		if (sscanf(e->d_name, "node%d%c", &node, &c) != 1)
			continue;
		m->numa_nodes++;
		last_node = node;
		p = ds_xasprintf("%s/devices/system/node/%s", sys, e->d_name);
		nd = opendir(p);
		free(p);
		while (nd && (f = readdir(nd))) {
			unsigned long long b;
			if (sscanf(f->d_name, "memory%llu%c", &b, &c) == 1)
				ds_vec_push(&blocks, ((block_node){b, node}));
		}
		if (nd)
			closedir(nd);
	}
	if (d)
		closedir(d);
	p = ds_xasprintf("%s/devices/system/memory/block_size_bytes", sys);
	block_size = read_number(p, 16);
	free(p);

	if (m->numa_nodes == 1) {
		char *text = ds_xasprintf("PADDR < 0 ? -1 : %d", last_node);
		add_mobj(m, "numa_node", text);
		free(text);
	} else if (m->numa_nodes > 1 && blocks.n && block_size) {
		ds_buf b = {0};
		size_t ranges = 0, i = 0;
		uint64_t end = 0;

		ds_sort(blocks.v, blocks.n, sizeof *blocks.v, cmp_block);
		ds_buf_puts(&b, "PADDR < 0 ? -1");
		while (i < blocks.n && ranges <= MAX_NODE_RANGES) {
			size_t j = i + 1;
			while (j < blocks.n && blocks.v[j].node == blocks.v[i].node &&
			       blocks.v[j].block == blocks.v[j - 1].block + 1)
				j++;
			if (blocks.v[i].block * block_size != end)
				ds_buf_printf(&b, " : PADDR < 0x%" PRIx64 " ? -1",
					      blocks.v[i].block * block_size);
			end = (blocks.v[j - 1].block + 1) * block_size;
			ds_buf_printf(&b, " : PADDR < 0x%" PRIx64 " ? %d", end, blocks.v[i].node);
			ranges++;
			i = j;
		}
		ds_buf_puts(&b, " : -1");
		if (ranges <= MAX_NODE_RANGES)
			add_mobj(m, "numa_node", ds_buf_str(&b));
		ds_buf_free(&b);
	}
	ds_vec_free(&blocks);
}

int ds_machine_sysfs_at(ds_machine *m, const char *sysfs_root, const char *procfs_root,
			ds_err *err)
{
	const char *sys = sysfs_root ? sysfs_root : "/sys";
	long page = sysconf(_SC_PAGESIZE);

	(void)err; /* a machine that says nothing about itself is still a machine */
	const char *from = "sysfs";

	memset(m, 0, sizeof *m);
	if (sysfs_root)
		m->ncaches = ds_geometry_sysfs(sysfs_root, 0, m->caches, 8);
	else
		m->ncaches = ds_geometry_here(m->caches, 8, &from);
	m->source = ds_xstrdup(from ? from : "sysfs");
	for (int i = 0; i < m->ncaches; i++)
		complete_sets(&m->caches[i]);
	m->page_size = page > 0 ? (uint64_t)page : 0;
	m->huge_page_size = huge_page_size(sys, procfs_root ? procfs_root : "/proc");
	numa_nodes(m, sys);
	return 0;
}

int ds_machine_sysfs(ds_machine *m, ds_err *err)
{
	return ds_machine_sysfs_at(m, NULL, NULL, err);
}

/* ---- an experiment's machine ---- */

void ds_machine_from_meta(ds_machine *m, const ds_meta *meta)
{
	memset(m, 0, sizeof *m);
	m->source = ds_xstrdup("experiment");
	for (int i = 0; i < meta->ncaches && i < 8; i++) {
		m->caches[m->ncaches] = meta->caches[i];
		complete_sets(&m->caches[m->ncaches++]);
	}
	m->page_size = meta->page_size;
	m->huge_page_size = meta->huge_page_size;
	/* older experiments lack the huge page size, but on x86-64 and arm64
	 * it follows from the base page: a page-table page of 8-byte entries
	 * maps page_size/8 pages (2 MiB with 4 KiB pages) */
	if (!m->huge_page_size && meta->arch &&
	    (strcmp(meta->arch, "x86_64") == 0 || strcmp(meta->arch, "aarch64") == 0) &&
	    meta->page_size >= 4096 && meta->page_size <= 65536)
		m->huge_page_size = meta->page_size * (meta->page_size / 8);
	m->numa_nodes = meta->numa_nodes;
	if (meta->numa_map)
		add_mobj(m, "numa_node", meta->numa_map);
}

/* ---- settings: model files and overrides ---- */

/* A size: decimal or 0x hex, with an optional K, M or G (powers of 1024). */
static bool parse_size(const char *s, uint64_t *out)
{
	char *end;
	uint64_t v, mul = 1;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return false;
	switch (*end) {
	case 'k': case 'K': mul = 1ull << 10; end++; break;
	case 'm': case 'M': mul = 1ull << 20; end++; break;
	case 'g': case 'G': mul = 1ull << 30; end++; break;
	}
	if (*end || v > (uint64_t)INT64_MAX / mul)
		return false;
	*out = v * mul;
	return true;
}

/* "SIZE:WAYS:LINE" into level name's slot of m, keeping the levels in the
 * order sysfs lists them (by level, data before instruction). */
static int set_cache(ds_machine *m, const char *name, const char *value, ds_err *err)
{
	ds_cache_level c = {0};
	char *v = ds_xstrdup(value), *ways = strchr(v, ':'), *line = ways ? strchr(ways + 1, ':') : NULL;
	uint64_t size, w, l;
	int i;

	if (ways)
		*ways++ = 0;
	if (line)
		*line++ = 0;
	if (!line || !parse_size(v, &size) || !parse_size(ways, &w) || !parse_size(line, &l) ||
	    !size || !w || !l || w > 1u << 16 || l > 1u << 16) {
		free(v);
		return ds_err_set(err, DS_EINPUT, "%s = %s: expected SIZE:WAYS:LINE, as in 32K:8:64",
				  name, value);
	}
	free(v);
	if (size % (w * l) || size / (w * l) > UINT32_MAX)
		return ds_err_set(err, DS_EINPUT,
				  "%s = %s: the size is not a whole number of sets of %" PRIu64
				  " ways of %" PRIu64 " bytes",
				  name, value, w, l);
	c.level = name[1] - '0';
	snprintf(c.type, sizeof c.type, "%s",
		 strcmp(name, "L1D") == 0 ? "Data" : strcmp(name, "L1I") == 0 ? "Instruction" : "Unified");
	c.size = size;
	c.ways = (unsigned)w;
	c.line = (unsigned)l;
	c.sets = (unsigned)(size / (w * l));

	for (i = 0; i < m->ncaches; i++) {
		const ds_cache_level *o = &m->caches[i];
		bool oi = strcmp(o->type, "Instruction") == 0, ci = strcmp(c.type, "Instruction") == 0;
		if (o->level == c.level && oi == ci) {
			m->caches[i] = c;
			return 0;
		}
		if (o->level > c.level || (o->level == c.level && oi && !ci))
			break;
	}
	if (m->ncaches == 8)
		return ds_err_set(err, DS_EINPUT, "%s: a machine has at most 8 cache levels", name);
	memmove(&m->caches[i + 1], &m->caches[i], (size_t)(m->ncaches - i) * sizeof c);
	m->caches[i] = c;
	m->ncaches++;
	return 0;
}

/* One KEY = VALUE setting, of a model file or an override. */
static int apply_setting(ds_machine *m, const char *key, const char *value, ds_err *err)
{
	uint64_t v;

	if (strcmp(key, "L1D") == 0 || strcmp(key, "L1I") == 0 ||
	    (key[0] == 'L' && key[1] >= '2' && key[1] <= '4' && !key[2]))
		return set_cache(m, key, value, err);
	if (strcmp(key, "PAGE_SIZE") == 0 || strcmp(key, "HUGE_PAGE_SIZE") == 0) {
		if (!parse_size(value, &v) || !v || (v & (v - 1)))
			return ds_err_set(err, DS_EINPUT, "%s = %s: expected a power of two, as in 4096 or 2M",
					  key, value);
		if (key[0] == 'P')
			m->page_size = v;
		else
			m->huge_page_size = v;
		return 0;
	}
	if (!strncmp(key, "LATENCY_", 8)) {
		static const char *const levels[] = {"L1", "L2", "LLC", "HITM", "DRAM"};
		for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
			if (!strcmp(key + 8, levels[i])) {
				if (!parse_size(value, &v) || !v || v > 100000)
					return ds_err_set(err, DS_EINPUT,
							  "%s = %s: expected cycles, from 1 to 100000", key, value);
				m->latency[i] = (unsigned)v;
				return 0;
			}
	}
	if (strcmp(key, "NUMA_NODES") == 0) {
		if (!parse_size(value, &v) || v > 4096)
			return ds_err_set(err, DS_EINPUT, "NUMA_NODES = %s: expected a number of nodes",
					  value);
		m->numa_nodes = (int)v;
		return 0;
	}
	return ds_err_set(err, DS_EINPUT,
			  "unknown setting '%s' (L1D, L1I, L2, L3, L4, PAGE_SIZE, HUGE_PAGE_SIZE, "
			  "NUMA_NODES, LATENCY_L1, LATENCY_L2, LATENCY_LLC, LATENCY_HITM, LATENCY_DRAM, "
			  "or mobj NAME = EXPR)",
			  key);
}

/* Split "KEY = VALUE" (spaces optional) in place; false without '='. */
static bool split_setting(char *s, char **key, char **value)
{
	char *eq = strchr(s, '=');
	if (!eq)
		return false;
	*eq = 0;
	*key = ds_trim(s);
	*value = ds_trim(eq + 1);
	return true;
}

/* "mobj NAME = EXPR": recorded, compiled once the whole file is read
 * (constants may come after the definitions that use them). */
static int model_mobj(ds_machine *m, char *rest, int_vec *lines, int lineno, ds_err *err)
{
	char *name, *text;

	if (!split_setting(rest, &name, &text))
		return ds_err_set(err, DS_EINPUT, "expected mobj NAME = EXPR");
	if (!ds_mobj_name_ok(name))
		return ds_err_set(err, DS_EINPUT,
				  "bad memory-object name '%s' (letters, digits and _, starting with a letter)",
				  name);
	if (!*text)
		return ds_err_set(err, DS_EINPUT, "mobj '%s' has no expression", name);
	add_mobj(m, name, text);
	ds_vec_reserve(lines, m->nmobjs);
	lines->v[m->nmobjs - 1] = lineno;
	lines->n = m->nmobjs;
	return 0;
}

static int load_lines(ds_machine *m, char *text, ds_err *err)
{
	int_vec mobj_lines = {0};
	int lineno = 0, rc = 0;

	for (char *l = text, *next; l && !rc; l = next) {
		char *key, *value;
		next = strchr(l, '\n');
		if (next)
			*next++ = 0;
		lineno++;
		l[strcspn(l, "#")] = 0;
		l = ds_trim(l);
		if (!*l)
			continue;
		if (strncmp(l, "mobj", 4) == 0 && isspace((unsigned char)l[4]))
			rc = model_mobj(m, l + 5, &mobj_lines, lineno, err);
		else if (!split_setting(l, &key, &value))
			rc = ds_err_set(err, DS_EINPUT, "expected KEY = VALUE or mobj NAME = EXPR");
		else
			rc = apply_setting(m, key, value, err);
		if (rc)
			ds_err_prefix(err, "line %d: ", lineno);
	}
	for (size_t i = 0; i < m->nmobjs && !rc; i++) {
		ds_expr *e;
		if ((rc = ds_expr_compile(m->mobj_names[i], m->mobj_exprs[i], m, &e, err)))
			ds_err_prefix(err, "line %d: ", mobj_lines.v[i]);
		ds_expr_free(e);
	}
	ds_vec_free(&mobj_lines);
	return rc;
}

int ds_machine_load(ds_machine *m, const char *path, ds_err *err)
{
	char *text = ds_read_file_err(path, NULL, err);
	int rc;

	memset(m, 0, sizeof *m);
	if (!text)
		return -1; /* the message names the file */
	m->source = ds_xstrdup(path);
	rc = load_lines(m, text, err);
	free(text);
	if (rc) {
		ds_err_prefix(err, "cannot read machine '%s': ", path);
		ds_machine_fini(m);
	}
	return rc;
}

int ds_machine_override(ds_machine *m, const char *spec, ds_err *err)
{
	char *s = ds_xstrdup(spec), *save = NULL;
	int rc = 0;

	for (char *item = strtok_r(s, ",", &save); item && !rc; item = strtok_r(NULL, ",", &save)) {
		char *key, *value;
		if (!split_setting(item, &key, &value))
			rc = ds_err_set(err, DS_EINPUT, "expected KEY=VALUE, as in L1D=32K:8:64");
		else
			rc = apply_setting(m, key, value, err);
	}
	free(s);
	if (rc)
		ds_err_prefix(err, "bad machine override '%s': ", spec);
	return rc;
}
