/* A JSON writer for reports and meta.json, and a small reader for meta.json. */
#include "base/base.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- writer ---- */

void ds_jw_init(ds_jw *w, ds_buf *out, bool pretty)
{
	memset(w, 0, sizeof *w);
	w->out = out;
	w->pretty = pretty;
}

static void indent(ds_jw *w)
{
	if (!w->pretty)
		return;
	ds_buf_putc(w->out, '\n');
	for (int i = 0; i < w->depth; i++)
		ds_buf_puts(w->out, "  ");
}

/* Before any value: a comma between siblings, nothing after a key. */
static void pre_value(ds_jw *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->depth > 0) {
		if (w->need_comma[w->depth])
			ds_buf_putc(w->out, ',');
		indent(w);
	}
	w->need_comma[w->depth] = true;
}

void ds_jw_key(ds_jw *w, const char *key)
{
	pre_value(w);
	ds_json_escape(w->out, key);
	ds_buf_puts(w->out, w->pretty ? ": " : ":");
	w->after_key = true;
}

static void open_(ds_jw *w, char c)
{
	pre_value(w);
	ds_buf_putc(w->out, c);
	if (w->depth < 63)
		w->depth++;
	w->need_comma[w->depth] = false;
}

static void close_(ds_jw *w, char c)
{
	bool had = w->need_comma[w->depth];
	if (w->depth > 0)
		w->depth--;
	if (had)
		indent(w);
	ds_buf_putc(w->out, c);
}

void ds_jw_obj_begin(ds_jw *w) { open_(w, '{'); }
void ds_jw_obj_end(ds_jw *w) { close_(w, '}'); }
void ds_jw_arr_begin(ds_jw *w) { open_(w, '['); }
void ds_jw_arr_end(ds_jw *w) { close_(w, ']'); }

void ds_jw_str(ds_jw *w, const char *s)
{
	pre_value(w);
	if (s)
		ds_json_escape(w->out, s);
	else
		ds_buf_puts(w->out, "null");
}

void ds_jw_u64(ds_jw *w, uint64_t v)
{
	pre_value(w);
	ds_buf_printf(w->out, "%llu", (unsigned long long)v);
}

void ds_jw_i64(ds_jw *w, int64_t v)
{
	pre_value(w);
	ds_buf_printf(w->out, "%lld", (long long)v);
}

void ds_jw_double(ds_jw *w, double v)
{
	pre_value(w);
	if (isfinite(v))
		ds_buf_printf(w->out, "%.17g", v);
	else
		ds_buf_puts(w->out, "null");
}

void ds_jw_bool(ds_jw *w, bool v)
{
	pre_value(w);
	ds_buf_puts(w->out, v ? "true" : "false");
}

void ds_jw_null(ds_jw *w)
{
	pre_value(w);
	ds_buf_puts(w->out, "null");
}

void ds_jw_number_text(ds_jw *w, const char *text)
{
	pre_value(w);
	ds_buf_puts(w->out, text);
}

void ds_json_escape(ds_buf *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	ds_buf_putc(out, '"');
	while (*p) {
		unsigned c = *p;
		if (c == '"' || c == '\\') {
			ds_buf_putc(out, '\\');
			ds_buf_putc(out, (char)c);
			p++;
		} else if (c < 0x20 || c == 0x7f) {
			switch (c) {
			case '\n': ds_buf_puts(out, "\\n"); break;
			case '\t': ds_buf_puts(out, "\\t"); break;
			case '\r': ds_buf_puts(out, "\\r"); break;
			default: ds_buf_printf(out, "\\u%04x", c); break;
			}
			p++;
		} else if (c < 0x80) {
			ds_buf_putc(out, (char)c);
			p++;
		} else {
			size_t n = ds_utf8_len((const char *)p);
			if (n) {
				ds_buf_append(out, p, n);
				p += n;
			} else {
				ds_buf_puts(out, "\\ufffd");
				p++;
			}
		}
	}
	ds_buf_putc(out, '"');
}

/* ---- reader ---- */

typedef struct jp {
	const char *s;
	size_t len, pos;
	const char *what;
	ds_err *err;
	int depth;
} jp;

static int jp_fail(jp *p, const char *msg)
{
	return ds_err_set(p->err, DS_EINPUT, "cannot parse '%s': %s at byte %zu", p->what, msg, p->pos);
}

static void skip_ws(jp *p)
{
	while (p->pos < p->len && isspace((unsigned char)p->s[p->pos]))
		p->pos++;
}

static ds_json *jnew(enum ds_json_type t)
{
	ds_json *j = ds_xcalloc(1, sizeof *j);
	j->type = t;
	return j;
}

static void put_utf8(ds_buf *b, unsigned cp)
{
	char o[4];
	if (cp < 0x80) {
		ds_buf_putc(b, (char)cp);
	} else if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		ds_buf_append(b, o, 2);
	} else if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		ds_buf_append(b, o, 3);
	} else {
		o[0] = (char)(0xf0 | (cp >> 18));
		o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[3] = (char)(0x80 | (cp & 0x3f));
		ds_buf_append(b, o, 4);
	}
}

static int hex4(jp *p, unsigned *out)
{
	unsigned v = 0;
	if (p->pos + 4 > p->len)
		return jp_fail(p, "truncated \\u escape");
	for (int i = 0; i < 4; i++) {
		char c = p->s[p->pos++];
		v <<= 4;
		if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
		else return jp_fail(p, "bad \\u escape");
	}
	*out = v;
	return 0;
}

static char *parse_string(jp *p)
{
	ds_buf b = {0};
	p->pos++; /* opening quote */
	while (p->pos < p->len) {
		char c = p->s[p->pos++];
		if (c == '"')
			return ds_buf_steal(&b);
		if ((unsigned char)c < 0x20) {
			jp_fail(p, "control character in string");
			goto fail;
		}
		if (c != '\\') {
			ds_buf_putc(&b, c);
			continue;
		}
		if (p->pos >= p->len)
			break;
		c = p->s[p->pos++];
		switch (c) {
		case '"': case '\\': case '/': ds_buf_putc(&b, c); break;
		case 'b': ds_buf_putc(&b, '\b'); break;
		case 'f': ds_buf_putc(&b, '\f'); break;
		case 'n': ds_buf_putc(&b, '\n'); break;
		case 'r': ds_buf_putc(&b, '\r'); break;
		case 't': ds_buf_putc(&b, '\t'); break;
		case 'u': {
			unsigned cp, lo;
			if (hex4(p, &cp))
				goto fail;
			if (cp >= 0xd800 && cp < 0xdc00 && p->pos + 6 <= p->len &&
			    p->s[p->pos] == '\\' && p->s[p->pos + 1] == 'u') {
				p->pos += 2;
				if (hex4(p, &lo))
					goto fail;
				if (lo >= 0xdc00 && lo < 0xe000)
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				else
					cp = 0xfffd;
			} else if (cp >= 0xd800 && cp < 0xe000) {
				cp = 0xfffd;
			}
			put_utf8(&b, cp);
			break;
		}
		default:
			jp_fail(p, "bad escape");
			goto fail;
		}
	}
	jp_fail(p, "unterminated string");
fail:
	ds_buf_free(&b);
	return NULL;
}

static ds_json *parse_value(jp *p);

static ds_json *parse_container(jp *p, bool obj)
{
	ds_json *j = jnew(obj ? DS_JOBJ : DS_JARR);
	DS_VEC(ds_json *) items = {0};
	char close = obj ? '}' : ']';

	if (++p->depth > 200) {
		jp_fail(p, "nesting too deep");
		goto fail;
	}
	p->pos++;
	skip_ws(p);
	if (p->pos < p->len && p->s[p->pos] == close) {
		p->pos++;
		goto done;
	}
	for (;;) {
		char *key = NULL;
		ds_json *v;
		skip_ws(p);
		if (obj) {
			if (p->pos >= p->len || p->s[p->pos] != '"') {
				jp_fail(p, "expected a member name");
				goto fail;
			}
			key = parse_string(p);
			if (!key)
				goto fail;
			skip_ws(p);
			if (p->pos >= p->len || p->s[p->pos] != ':') {
				free(key);
				jp_fail(p, "expected ':'");
				goto fail;
			}
			p->pos++;
		}
		v = parse_value(p);
		if (!v) {
			free(key);
			goto fail;
		}
		v->key = key;
		ds_vec_push(&items, v);
		skip_ws(p);
		if (p->pos < p->len && p->s[p->pos] == ',') {
			p->pos++;
			continue;
		}
		if (p->pos < p->len && p->s[p->pos] == close) {
			p->pos++;
			break;
		}
		jp_fail(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
		goto fail;
	}
done:
	p->depth--;
	j->items = items.v;
	j->n = items.n;
	return j;
fail:
	for (size_t i = 0; i < items.n; i++)
		ds_json_free(items.v[i]);
	ds_vec_free(&items);
	free(j);
	return NULL;
}

static ds_json *parse_number(jp *p)
{
	const char *start = p->s + p->pos;
	size_t n = 0;
	char tmp[64];
	char *end;
	ds_json *j;
	bool integral = true;

	while (p->pos + n < p->len && strchr("+-0123456789.eE", p->s[p->pos + n])) {
		if (strchr(".eE", p->s[p->pos + n]))
			integral = false;
		n++;
	}
	if (n == 0 || n >= sizeof tmp) {
		jp_fail(p, "bad number");
		return NULL;
	}
	memcpy(tmp, start, n);
	tmp[n] = 0;
	j = jnew(DS_JNUM);
	errno = 0;
	j->num = strtod(tmp, &end);
	if (*end) {
		free(j);
		jp_fail(p, "bad number");
		return NULL;
	}
	if (integral) {
		errno = 0;
		if (tmp[0] == '-') {
			long long v = strtoll(tmp, &end, 10);
			if (!errno && !*end) {
				j->is_int = true;
				j->i64 = v;
				j->u64 = (uint64_t)v;
			}
		} else {
			unsigned long long v = strtoull(tmp, &end, 10);
			if (!errno && !*end) {
				j->is_int = true;
				j->u64 = v;
				j->i64 = (int64_t)v;
			}
		}
	}
	p->pos += n;
	return j;
}

static ds_json *parse_value(jp *p)
{
	skip_ws(p);
	if (p->pos >= p->len) {
		jp_fail(p, "unexpected end");
		return NULL;
	}
	switch (p->s[p->pos]) {
	case '{': return parse_container(p, true);
	case '[': return parse_container(p, false);
	case '"': {
		char *s = parse_string(p);
		ds_json *j;
		if (!s)
			return NULL;
		j = jnew(DS_JSTR);
		j->str = s;
		return j;
	}
	case 't':
	case 'f':
	case 'n': {
		static const char *lit[] = {"true", "false", "null"};
		for (int i = 0; i < 3; i++) {
			size_t l = strlen(lit[i]);
			if (p->len - p->pos >= l && memcmp(p->s + p->pos, lit[i], l) == 0) {
				ds_json *j = jnew(i == 2 ? DS_JNULL : DS_JBOOL);
				j->b = i == 0;
				p->pos += l;
				return j;
			}
		}
		jp_fail(p, "bad literal");
		return NULL;
	}
	default:
		return parse_number(p);
	}
}

ds_json *ds_json_parse(const char *text, size_t len, const char *what, ds_err *err)
{
	jp p = {text, len, 0, what, err, 0};
	ds_json *j = parse_value(&p);
	if (!j)
		return NULL;
	skip_ws(&p);
	if (p.pos != p.len) {
		ds_json_free(j);
		jp_fail(&p, "trailing data");
		return NULL;
	}
	return j;
}

void ds_json_free(ds_json *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->n; i++)
		ds_json_free(j->items[i]);
	free(j->items);
	free(j->str);
	free(j->key);
	free(j);
}

const ds_json *ds_json_get(const ds_json *obj, const char *key)
{
	if (!obj || obj->type != DS_JOBJ)
		return NULL;
	for (size_t i = 0; i < obj->n; i++)
		if (obj->items[i]->key && strcmp(obj->items[i]->key, key) == 0)
			return obj->items[i];
	return NULL;
}

const char *ds_json_get_str(const ds_json *obj, const char *key)
{
	const ds_json *j = ds_json_get(obj, key);
	return j && j->type == DS_JSTR ? j->str : NULL;
}

bool ds_json_get_u64(const ds_json *obj, const char *key, uint64_t *out)
{
	const ds_json *j = ds_json_get(obj, key);
	if (!j || j->type != DS_JNUM || !j->is_int || j->num < 0)
		return false;
	*out = j->u64;
	return true;
}

bool ds_json_get_i64(const ds_json *obj, const char *key, int64_t *out)
{
	const ds_json *j = ds_json_get(obj, key);
	if (!j || j->type != DS_JNUM || !j->is_int)
		return false;
	*out = j->i64;
	return true;
}

bool ds_json_get_double(const ds_json *obj, const char *key, double *out)
{
	const ds_json *j = ds_json_get(obj, key);
	if (!j || j->type != DS_JNUM)
		return false;
	*out = j->num;
	return true;
}
