/*
 * A file's data mapped and read beside a heap block read the same way
 * (tests/e2e/heap.sh): main writes 4 MiB of doubles to FILE, maps them
 * (PROT_READ, MAP_PRIVATE: as LevelDB maps its tables) and copies them
 * into a malloc'd block; sum_file adds up the mapping and sum_block the
 * block, N rounds each.  The mapping's loads are in no heap block, and
 * not for want of tracking: they are no heap's.
 *
 *     filemap FILE [N]    N rounds (default 600)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define COUNT (512 * 1024)

static volatile double sink;

__attribute__((noipa)) static double sum_file(const double *p, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += p[i];
	return s;
}

__attribute__((noipa)) static double sum_block(const double *p, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += p[i];
	return s;
}

int main(int argc, char **argv)
{
	long rounds = argc > 2 ? atol(argv[2]) : 600;
	double *data, *block;
	int fd;

	if (argc < 2) {
		fprintf(stderr, "usage: filemap FILE [N]\n");
		return 1;
	}
	data = malloc(COUNT * sizeof *data);
	if (!data)
		return 1;
	for (size_t i = 0; i < COUNT; i++)
		data[i] = (double)i;
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, data, COUNT * sizeof *data) != (ssize_t)(COUNT * sizeof *data)) {
		perror(argv[1]);
		return 1;
	}
	free(data);
	data = mmap(NULL, COUNT * sizeof *data, PROT_READ, MAP_PRIVATE, fd, 0);
	block = malloc(COUNT * sizeof *block);
	if (data == MAP_FAILED || !block)
		return 1;
	memcpy(block, data, COUNT * sizeof *block);
	for (long r = 0; r < rounds; r++)
		sink += sum_file(data, COUNT) + sum_block(block, COUNT);
	free(block);
	munmap(data, COUNT * sizeof *data);
	close(fd);
	return 0;
}
