/*
 * Memory objects from page faults: touches a fresh buffer once per page,
 * page i at its cache line i % (page / line), so that every touch has
 * its own page and line, and prints what the touches' memory objects
 * must be:
 *
 *   touch VADDR vpage VPAGE line LINE [ppage PPAGE]
 *
 * (PPAGE from /proc/self/pagemap, when it gives frame numbers: as root.)
 * The pages stay mapped for HOLD_MS more milliseconds, so that a
 * recorder translating addresses while the program runs still finds them.
 *
 *   mobjbuf [PAGES [LINE_SIZE [HOLD_MS]]]   (256 pages, the L1D line, 300 ms)
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) static void touch_pages(volatile char *buf, size_t pages, size_t ps,
						  size_t line)
{
	for (size_t i = 0; i < pages; i++)
		buf[i * ps + (i % (ps / line)) * line + 8] = (char)i;
}

/* The physical page of a virtual one, 0 when pagemap does not say. */
static uint64_t phys_page(int fd, uintptr_t va, size_t ps)
{
	uint64_t e;
	if (fd < 0 || pread(fd, &e, sizeof e, (off_t)(va / ps * sizeof e)) != sizeof e)
		return 0;
	if (!(e >> 63 & 1) || !(e & ((1ull << 55) - 1)))
		return 0;
	return (e & ((1ull << 55) - 1)) * ps;
}

int main(int argc, char **argv)
{
	size_t pages = argc > 1 ? (size_t)atol(argv[1]) : 256;
	long l1 = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
	size_t line = argc > 2 ? (size_t)atol(argv[2]) : l1 > 0 ? (size_t)l1 : 64;
	long hold = argc > 3 ? atol(argv[3]) : 300;
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	struct timespec ts = {hold / 1000, hold % 1000 * 1000000};
	char *buf;
	int fd;

	if (!pages || !line || line > ps || ps % line) {
		fprintf(stderr, "usage: mobjbuf [PAGES [LINE_SIZE [HOLD_MS]]]\n");
		return 2;
	}
	buf = mmap(NULL, pages * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	/* one fault per base page: no transparent huge pages */
	madvise(buf, pages * ps, MADV_NOHUGEPAGE);
	touch_pages(buf, pages, ps, line);
	fd = open("/proc/self/pagemap", O_RDONLY);
	for (size_t i = 0; i < pages; i++) {
		uintptr_t va = (uintptr_t)buf + i * ps + (i % (ps / line)) * line + 8;
		uint64_t pp = phys_page(fd, va, ps);
		printf("touch 0x%lx vpage 0x%lx line 0x%lx", (unsigned long)va,
		       (unsigned long)(va / ps * ps), (unsigned long)(va / line * line));
		if (pp)
			printf(" ppage 0x%llx", (unsigned long long)pp);
		putchar('\n');
	}
	if (fd >= 0)
		close(fd);
	fflush(stdout);
	nanosleep(&ts, NULL);
	return 0;
}
