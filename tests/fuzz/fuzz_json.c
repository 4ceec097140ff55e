/* libFuzzer target: the JSON reader (meta.json) must reject bad input
 * with an error, never crash. */
#include "base/base.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ds_err err = {0};
	ds_json *j = ds_json_parse((const char *)data, size, "fuzz", &err);
	ds_json_free(j);
	return 0;
}
