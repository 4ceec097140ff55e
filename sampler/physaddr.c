/* Physical addresses from /proc/PID/pagemap for samples the kernel left
 * without one (sampler/physaddr.h). */
#include "sampler/physaddr.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Drain interval while translating: a short-lived mapping still exists. */
#define PHYS_DRAIN_MS 20
/* pagemap files kept open at once (one per sampled process). */
#define MAX_OPEN 64

#define PM_PRESENT (1ull << 63)
#define PM_PFN_MASK ((1ull << 55) - 1)

/* The fields before ADDR that every event here samples, and what must
 * follow PHYS_ADDR for it to be the sample's last field. */
#define LEAD (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)
#define AFTER_PHYS (~((uint64_t)PERF_SAMPLE_PHYS_ADDR * 2 - 1))

struct ds_physaddr {
	ds_hash *ids;             /* event ids whose samples end in PHYS_ADDR */
	ds_hash *pids;            /* pid -> slot in fds */
	DS_VEC(int) fds;          /* -1: that process's pagemap cannot be read */
	uint64_t page;
};

/* Whether frame numbers can be read here: pagemap shows them to
 * CAP_SYS_ADMIN only, as zeros to everyone else. */
static bool frames_visible(uint64_t page)
{
	static const volatile char probe = 1;
	uint64_t e = 0;
	int fd = ds_open_regular("/proc/self/pagemap", NULL);
	bool ok;

	if (fd < 0)
		return false;
	ok = pread(fd, &e, sizeof e, (off_t)((uintptr_t)&probe / page * sizeof e)) == sizeof e &&
	     (e & PM_PRESENT) && (e & PM_PFN_MASK);
	close(fd);
	return ok;
}

ds_physaddr *ds_physaddr_new(const ds_event *events, size_t n)
{
	ds_physaddr *p;
	long page = sysconf(_SC_PAGESIZE);
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		uint64_t t = events[i].attr.sample_type;
		any |= (t & PERF_SAMPLE_PHYS_ADDR) && (t & PERF_SAMPLE_ADDR) && (t & LEAD) == LEAD &&
		       !(t & AFTER_PHYS);
	}
	if (!any || page <= 0 || !frames_visible((uint64_t)page))
		return NULL;
	p = ds_xcalloc(1, sizeof *p);
	p->page = (uint64_t)page;
	p->ids = ds_hash_new();
	p->pids = ds_hash_new();
	for (size_t i = 0; i < n; i++) {
		uint64_t t = events[i].attr.sample_type;
		if (!(t & PERF_SAMPLE_PHYS_ADDR) || !(t & PERF_SAMPLE_ADDR) || (t & LEAD) != LEAD ||
		    (t & AFTER_PHYS))
			continue;
		for (size_t k = 0; k < events[i].nids; k++)
			ds_hash_intern(p->ids, &events[i].ids[k], sizeof events[i].ids[k], NULL);
	}
	return p;
}

static void close_all(ds_physaddr *p)
{
	for (size_t i = 0; i < p->fds.n; i++)
		if (p->fds.v[i] >= 0)
			close(p->fds.v[i]);
	p->fds.n = 0;
	ds_hash_free(p->pids);
	p->pids = ds_hash_new();
}

void ds_physaddr_free(ds_physaddr *p)
{
	if (!p)
		return;
	close_all(p);
	ds_vec_free(&p->fds);
	ds_hash_free(p->pids);
	ds_hash_free(p->ids);
	free(p);
}

static int pagemap_of(ds_physaddr *p, uint32_t pid)
{
	bool added;
	size_t i;
	char path[48];

	if (ds_hash_find(p->pids, &pid, sizeof pid) < 0 && p->fds.n == MAX_OPEN)
		close_all(p); /* many processes: start over with the ones sampled now */
	i = ds_hash_intern(p->pids, &pid, sizeof pid, &added);
	if (added) {
		snprintf(path, sizeof path, "/proc/%u/pagemap", pid);
		ds_vec_push(&p->fds, ds_open_regular(path, NULL));
	}
	return p->fds.v[i];
}

/* The physical address of addr in process pid now, 0 when unknown. */
static uint64_t translate(ds_physaddr *p, uint32_t pid, uint64_t addr)
{
	int fd = pagemap_of(p, pid);
	uint64_t e;

	if (fd < 0 || pread(fd, &e, sizeof e, (off_t)(addr / p->page * sizeof e)) != sizeof e ||
	    !(e & PM_PRESENT) || !(e & PM_PFN_MASK))
		return 0;
	return (e & PM_PFN_MASK) * p->page + addr % p->page;
}

void ds_physaddr_fill(ds_physaddr *p, unsigned char *recs, size_t len)
{
	for (size_t pos = 0; pos + sizeof(struct perf_event_header) <= len;) {
		struct perf_event_header h;
		uint64_t id, addr, phys;
		uint32_t pid;

		memcpy(&h, recs + pos, sizeof h);
		if (h.size < sizeof h || pos + h.size > len)
			break;
		/* header, IDENTIFIER, IP, PID/TID, TIME, ADDR ... PHYS_ADDR last */
		if (h.type == PERF_RECORD_SAMPLE && h.size >= 56) {
			memcpy(&id, recs + pos + 8, 8);
			memcpy(&phys, recs + pos + h.size - 8, 8);
			if (!phys && ds_hash_find(p->ids, &id, sizeof id) >= 0) {
				memcpy(&pid, recs + pos + 24, 4);
				memcpy(&addr, recs + pos + 40, 8);
				if (addr && (phys = translate(p, pid, addr)) != 0)
					memcpy(recs + pos + h.size - 8, &phys, 8);
			}
		}
		pos += h.size;
	}
}

int ds_physaddr_drain_ms(void)
{
	return PHYS_DRAIN_MS;
}
