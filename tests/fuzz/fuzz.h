/*
 * What the fuzz targets share (tests/fuzz/fuzz.c): inputs made into files
 * for readers that take a path, inputs that hold several files, and the
 * fixed experiment some targets run over.
 *
 * A target is built twice: with libFuzzer (make fuzz), and with replay.c's
 * main, which runs each file given once (make test replays the regression
 * corpora that way, without clang's fuzzer runtime).
 */
#ifndef DSPROF_FUZZ_H
#define DSPROF_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* data[0..size) as a regular file in the scratch directory (fz_dir: in
 * memory where /dev/shm is), for readers that take a path.  Each slot
 * (0..7) is one file, rewritten by each call. */
const char *fz_memfile(int slot, const void *data, size_t size);

/* This process's own scratch directory (in /dev/shm when there is one),
 * made on the first call and removed with what it holds at exit.  It
 * holds the user's memory-object file too ($DSPROF_MOBJ is set to
 * DIR/user-mobj): no target reads or writes the real one. */
const char *fz_dir(void);
/* Empty the scratch directory. */
void fz_clear(void);
/* Write DIR/NAME (fz_dir's), making the folders NAME names; false when
 * it cannot (a name the input made up may be a folder). */
bool fz_write(const char *name, const void *data, size_t size);

/* An input that holds several files: each starts with a line
 * "--- NAME" (at the start of the input or after a newline, which is the
 * marker's, not the data's) and runs to the next such line.  Bytes before
 * the first marker are a part named "". */
typedef struct fz_part {
	char name[64];
	const uint8_t *data;
	size_t size;
} fz_part;

#define FZ_MAX_PARTS 16
/* The parts of data (at most FZ_MAX_PARTS; the rest is ignored). */
size_t fz_split(const uint8_t *data, size_t size, fz_part *parts);
/* The part named name, or NULL. */
const fz_part *fz_find(const fz_part *parts, size_t n, const char *name);
/* A part's bytes as a malloc'd NUL-terminated string ("" when absent). */
char *fz_text(const fz_part *p);

/* The experiment that targets over a fixed experiment (the TUI) read:
 * $DSPROF_FUZZ_EXPERIMENT, which tests/fuzz/run.sh and the regression
 * replay record.  Exits with a message when it is not set. */
const char *fz_experiment(void);

#endif
