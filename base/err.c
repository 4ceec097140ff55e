/* Error messages and allocation that never returns NULL. */
#include "base/base.h"

#include <stdlib.h>
#include <string.h>

int ds_err_vset(ds_err *e, int kind, const char *fmt, va_list ap)
{
	if (e) {
		e->kind = kind;
		vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	}
	return -1;
}

int ds_err_set(ds_err *e, int kind, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ds_err_vset(e, kind, fmt, ap);
	va_end(ap);
	return -1;
}

int ds_err_prefix(ds_err *e, const char *fmt, ...)
{
	ds_buf b = {0};
	va_list ap;

	if (!e)
		return -1;
	va_start(ap, fmt);
	ds_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	ds_buf_puts(&b, e->msg);
	snprintf(e->msg, sizeof e->msg, "%s", ds_buf_str(&b));
	ds_buf_free(&b);
	return -1;
}

static void oom(size_t n)
{
	fprintf(stderr, "dsprof: out of memory allocating %zu bytes\n", n);
	exit(2);
}

void *ds_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *ds_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom(n * size);
	return p;
}

void *ds_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

char *ds_xstrdup(const char *s)
{
	return ds_xstrndup(s, strlen(s));
}

char *ds_xstrndup(const char *s, size_t n)
{
	char *p = ds_xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *ds_xasprintf(const char *fmt, ...)
{
	ds_buf b = {0};
	va_list ap;
	va_start(ap, fmt);
	ds_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	return ds_buf_steal(&b);
}
