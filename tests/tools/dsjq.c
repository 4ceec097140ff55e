/*
 * dsjq: print values from a JSON document, for shell tests (no jq needed).
 *
 *   dsjq PATH [FILE]     PATH like .rows[0].name, .events[].name, .total["cpu-clock"]
 *                        "[]" visits every element; strings print raw, other values as JSON.
 *   dsjq -c [FILE]       only check that the document parses (exit 1 if not)
 */
#include "base/base.h"

#include <stdlib.h>
#include <string.h>

static void print_value(const ds_json *j)
{
	switch (j->type) {
	case DS_JNULL: puts("null"); break;
	case DS_JBOOL: puts(j->b ? "true" : "false"); break;
	case DS_JNUM:
		if (j->is_int && j->i64 < 0)
			printf("%lld\n", (long long)j->i64);
		else if (j->is_int)
			printf("%llu\n", (unsigned long long)j->u64);
		else
			printf("%.17g\n", j->num);
		break;
	case DS_JSTR: puts(j->str); break;
	case DS_JARR: printf("[array of %zu]\n", j->n); break;
	case DS_JOBJ: printf("{object of %zu}\n", j->n); break;
	}
}

static void walk(const ds_json *j, const char *p)
{
	if (!j)
		return;
	if (!*p) {
		print_value(j);
		return;
	}
	if (*p == '.' && p[1] != '[') {
		char key[256];
		size_t n = strcspn(p + 1, ".[");
		snprintf(key, sizeof key, "%.*s", (int)n, p + 1);
		walk(ds_json_get(j, key), p + 1 + n);
	} else if (*p == '.') {
		walk(j, p + 1);
	} else if (p[0] == '[' && p[1] == ']') {
		for (size_t i = 0; j->type == DS_JARR && i < j->n; i++)
			walk(j->items[i], p + 2);
	} else if (p[0] == '[' && p[1] == '"') {
		char key[256];
		const char *end = strchr(p + 2, '"');
		if (!end)
			return;
		snprintf(key, sizeof key, "%.*s", (int)(end - p - 2), p + 2);
		walk(ds_json_get(j, key), end + 2);
	} else if (p[0] == '[') {
		char *end;
		unsigned long i = strtoul(p + 1, &end, 10);
		if (*end == ']' && j->type == DS_JARR && i < j->n)
			walk(j->items[i], end + 1);
	}
}

int main(int argc, char **argv)
{
	bool check = argc > 1 && strcmp(argv[1], "-c") == 0;
	const char *path = check ? NULL : argc > 1 ? argv[1] : NULL;
	const char *file = argc > 2 ? argv[2] : NULL;
	FILE *f = file ? fopen(file, "r") : stdin;
	ds_buf b = {0};
	char tmp[65536];
	size_t n;
	ds_err err = {0};
	ds_json *j;

	if (!f || (!check && !path)) {
		fprintf(stderr, "usage: dsjq PATH [FILE] | dsjq -c [FILE]\n");
		return 2;
	}
	while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
		ds_buf_append(&b, tmp, n);
	j = ds_json_parse(ds_buf_str(&b), b.len, file ? file : "stdin", &err);
	ds_buf_free(&b);
	if (!j) {
		fprintf(stderr, "dsjq: %s\n", err.msg);
		return 1;
	}
	if (!check)
		walk(j, path);
	ds_json_free(j);
	return 0;
}
