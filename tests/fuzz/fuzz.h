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
/* The value of p's first line "KEY=VALUE" (an options part), malloc'd;
 * NULL when p is absent or has no such line. */
char *fz_opt(const fz_part *p, const char *key);

/* Write the parts named PREFIX + PATH (PATH relative, no "." or ".."
 * component) as DIR/PATH, DIR relative to fz_dir(); the others are left
 * out.  The number written. */
size_t fz_write_parts(const fz_part *parts, size_t n, const char *prefix, const char *dir);

/* A folder of fz_dir() deep enough that a path leaving a folder in it by
 * eight ".." stays in fz_dir(), where fz_tree sees what it wrote. */
#define FZ_DEEP "deep/1/2/3/4/5/6/7"

/* What fz_dir() holds, as text (each entry's path, type, inode, size and
 * modification time), but for what is under keep[] (folders relative to
 * fz_dir(), NULL-terminated): where a writer may write.  Two of them,
 * before and after it ran, differ when it wrote anywhere else.  Malloc'd. */
char *fz_tree(const char *const *keep);
/* Abort, saying what `who` wrote or removed, when fz_tree(keep) is no
 * longer `before` (which it frees). */
void fz_same_tree(char *before, const char *const *keep, const char *who);

/* Run a subcommand (cmd_diff, cmd_import...) with argv (NULL-terminated,
 * argv[0] its name), what it writes on standard output kept: malloc'd,
 * NUL-terminated, its length in *len; its exit status in *status, which
 * must be 0, 1 (usage, input) or 2 (environment): else abort. */
char *fz_command(int (*cmd)(int, char **), char **argv, int *status, size_t *len);

/* Text a JSON renderer wrote must parse: abort, naming `what`, when not. */
void fz_check_json(const char *p, size_t len, const char *what);

/* The experiment that targets over a fixed experiment (the TUI) read:
 * $DSPROF_FUZZ_EXPERIMENT, which tests/fuzz/run.sh and the regression
 * replay record.  Exits with a message when it is not set. */
const char *fz_experiment(void);

#endif
