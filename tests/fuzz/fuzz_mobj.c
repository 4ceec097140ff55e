/* libFuzzer target: the memory-object and filter compilers must reject bad
 * input with an error, never crash, and what they accept must evaluate. */
#include "memobj/memobj.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Operands of both kinds, as analyze/ gives its dimensions. */
static const ds_filter_operand ops[] = {
	{"function", "FUNC", true}, {"dataobject", "DOBJ", true}, {"field", "FIELD", true}, {"thread", NULL, false}};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static ds_machine m;
	static ds_mobjs objs;
	static bool ready;
	static const int64_t values[][DS_NOPERANDS] = {
		{0x7f3a12345678, 0x1234567890, 4242, 3, 0x401234, 123456789},
		{-1, -1, -1, -1, -1, -1},
		{0, 0, 0, 0, 0, 0},
		{INT64_MIN, INT64_MAX, 1, -2, 64, 4096},
	};
	char *text;
	ds_expr *e;
	ds_err err;

	if (!ready) {
		ds_machine_override(&m, "L1D=48K:12:64,L2=1M:16:64,L3=32M:16:64,PAGE_SIZE=4096,"
					"HUGE_PAGE_SIZE=2M", &err);
		ds_mobjs_init(&objs, &m);
		ready = true;
	}
	if (size < 1)
		return 0;
	/* the first byte picks the compiler; the rest is the expression */
	text = malloc(size);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = 0;
	if (data[0] & 1 ? ds_filter_compile(text, &m, &objs, ops, sizeof ops / sizeof ops[0], &e, &err) == 0
			: ds_expr_compile("fuzz", text, data[0] & 2 ? NULL : &m, &e, &err) == 0) {
		for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
			int64_t op[] = {0, -1, (int64_t)i, (int64_t)i * 7 - 1};
			int32_t alias[] = {-1, 0, -1, -1};
			ds_access a = {.op = op, .alias = alias};
			memcpy(a.v, values[i], sizeof a.v);
			if (data[0] & 1)
				ds_filter_match(e, &a);
			else
				ds_expr_eval(e, &a);
		}
		ds_expr_free(e);
	}
	free(text);
	return 0;
}
