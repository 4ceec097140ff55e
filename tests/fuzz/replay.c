/*
 * A fuzz target without libFuzzer: runs each file given once through
 * LLVMFuzzerTestOneInput, so that `make test` replays the regression
 * corpora (tests/fuzz/regressions/TARGET/) with the compiler and the
 * sanitizers of the build, and without clang's fuzzer runtime.  A finding
 * shows as a crash, a sanitizer's report or a hang of this process.
 *
 *   TARGET-replay FILE...
 */
#include "tests/fuzz/fuzz.h"

#include "base/base.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		ds_err err = {0};
		size_t len;
		char *data = ds_read_file_err(argv[i], &len, &err);
		if (!data) {
			fprintf(stderr, "replay: %s\n", err.msg);
			return 2;
		}
		LLVMFuzzerTestOneInput((const uint8_t *)data, len);
		free(data);
	}
	return 0;
}
