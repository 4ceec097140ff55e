/*
 * Touches a fresh buffer one page at a time, so that every page faults
 * once, and prints the address of each page: the page-fault samples must
 * carry exactly these data addresses.
 *
 *   pagefault [PAGES]    prints "page 0x..." per page
 *   pagefault refault N  N faults, printing nothing: a 4 MiB buffer touched
 *                        page by page and given back, over and over (as
 *                        many samples as wanted, in little memory)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

__attribute__((noinline)) static void touch_pages(volatile char *buf, size_t pages, size_t ps)
{
	for (size_t i = 0; i < pages; i++)
		buf[i * ps] = (char)i;
}

static int refault(size_t n, size_t ps)
{
	const size_t pages = 1024;
	char *buf = mmap(NULL, pages * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (buf == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	madvise(buf, pages * ps, MADV_NOHUGEPAGE);
	while (n) {
		size_t k = n < pages ? n : pages;
		touch_pages(buf, k, ps);
		madvise(buf, pages * ps, MADV_DONTNEED);
		n -= k;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "refault") == 0)
		return refault((size_t)atol(argv[2]), (size_t)sysconf(_SC_PAGESIZE));
	size_t pages = argc > 1 ? (size_t)atol(argv[1]) : 512;
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	char *buf = mmap(NULL, pages * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (buf == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	/* one fault per base page: no transparent huge pages */
	madvise(buf, pages * ps, MADV_NOHUGEPAGE);
	touch_pages(buf, pages, ps);
	for (size_t i = 0; i < pages; i++)
		printf("page %p\n", (void *)(buf + i * ps));
	return 0;
}
