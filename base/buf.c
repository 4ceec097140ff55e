/* Growable byte buffer, hash table with byte keys, 64-bit map, sorting. */
#include "base/base.h"

#include <stdlib.h>
#include <string.h>

void ds_buf_reserve(ds_buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;
	if (need > b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 64;
		while (nc < need)
			nc *= 2;
		b->p = ds_xrealloc(b->p, nc);
		b->cap = nc;
		b->p[b->len] = 0;
	}
}

void ds_buf_append(ds_buf *b, const void *data, size_t n)
{
	ds_buf_reserve(b, n);
	if (n)
		memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = 0;
}

void ds_buf_puts(ds_buf *b, const char *s)
{
	ds_buf_append(b, s, strlen(s));
}

void ds_buf_putc(ds_buf *b, char c)
{
	ds_buf_append(b, &c, 1);
}

void ds_buf_vprintf(ds_buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;

	va_copy(ap2, ap);
	ds_buf_reserve(b, 64);
	n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	if (n >= 0 && (size_t)n >= b->cap - b->len) {
		ds_buf_reserve(b, (size_t)n);
		vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap2);
	}
	va_end(ap2);
	if (n > 0)
		b->len += (size_t)n;
}

void ds_buf_printf(ds_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ds_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void ds_buf_reset(ds_buf *b)
{
	b->len = 0;
	if (b->p)
		b->p[0] = 0;
}

void ds_buf_free(ds_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

const char *ds_buf_str(ds_buf *b)
{
	return b->p ? b->p : "";
}

char *ds_buf_steal(ds_buf *b)
{
	char *p = b->p ? b->p : ds_xstrdup("");
	b->p = NULL;
	b->len = b->cap = 0;
	return p;
}

/* ---- hash table ----
 * Open addressing over a power-of-two slot array; a slot holds index+1 (0 is
 * empty) in its low half and the key's hash's high half in its high half,
 * so a probe that is no match costs no look at the key or its hash: in a
 * large table each would be a cache miss.  Keys live back to back in one arena so interning millions of
 * short keys costs one allocation per doubling, not one per key. */
struct ds_hash {
	uint64_t *slots;
	DS_VEC(uint64_t) hashes; /* per index */
	size_t nslots;
	DS_VEC(size_t) koff; /* per index: offset of key in arena */
	DS_VEC(uint32_t) klen;
	ds_buf arena;
};
#define SLOT_TAG(x) ((x) & 0xffffffff00000000ull)

uint64_t ds_hash_bytes(const void *p, size_t n)
{
	/* FNV-1a over 8-byte words with a final avalanche: fast on the short
	 * integer tuples most callers use, good enough spread for open addressing. */
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ull;
	while (n >= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = (h ^ w) * 0x100000001b3ull;
		h ^= h >> 29;
		s += 8;
		n -= 8;
	}
	while (n--) {
		h = (h ^ *s++) * 0x100000001b3ull;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

ds_hash *ds_hash_new(void)
{
	ds_hash *h = ds_xcalloc(1, sizeof *h);
	h->nslots = 64;
	h->slots = ds_xcalloc(h->nslots, sizeof *h->slots);
	return h;
}

void ds_hash_free(ds_hash *h)
{
	if (!h)
		return;
	free(h->slots);
	ds_vec_free(&h->hashes);
	ds_vec_free(&h->koff);
	ds_vec_free(&h->klen);
	ds_buf_free(&h->arena);
	free(h);
}

size_t ds_hash_count(const ds_hash *h)
{
	return h->koff.n;
}

const void *ds_hash_key(const ds_hash *h, size_t i, size_t *len)
{
	if (len)
		*len = h->klen.v[i];
	return h->arena.p + h->koff.v[i];
}

static bool key_eq(const ds_hash *h, uint32_t idx, const void *key, size_t len)
{
	return h->klen.v[idx] == len && memcmp(h->arena.p + h->koff.v[idx], key, len) == 0;
}

int64_t ds_hash_find(const ds_hash *h, const void *key, size_t len)
{
	uint64_t hv = ds_hash_bytes(key, len);
	size_t mask = h->nslots - 1;
	for (size_t i = hv & mask;; i = (i + 1) & mask) {
		uint64_t s = h->slots[i];
		uint32_t idx = (uint32_t)s - 1;
		if (!s)
			return -1;
		if (SLOT_TAG(s) == SLOT_TAG(hv) && h->hashes.v[idx] == hv && key_eq(h, idx, key, len))
			return idx;
	}
}

static void grow(ds_hash *h)
{
	size_t ns = h->nslots * 2, mask = ns - 1;
	uint64_t *slots = ds_xcalloc(ns, sizeof *slots);
	for (size_t idx = 0; idx < h->koff.n; idx++) {
		size_t i = h->hashes.v[idx] & mask;
		while (slots[i])
			i = (i + 1) & mask;
		slots[i] = SLOT_TAG(h->hashes.v[idx]) | (idx + 1);
	}
	free(h->slots);
	h->slots = slots;
	h->nslots = ns;
}

size_t ds_hash_intern(ds_hash *h, const void *key, size_t len, bool *added)
{
	uint64_t hv = ds_hash_bytes(key, len);
	size_t mask = h->nslots - 1, i;
	size_t idx;

	for (i = hv & mask;; i = (i + 1) & mask) {
		uint64_t s = h->slots[i];
		uint32_t k = (uint32_t)s - 1;
		if (!s)
			break;
		if (SLOT_TAG(s) == SLOT_TAG(hv) && h->hashes.v[k] == hv && key_eq(h, k, key, len)) {
			if (added)
				*added = false;
			return k;
		}
	}
	idx = h->koff.n;
	if (idx >= UINT32_MAX - 1) {
		fprintf(stderr, "dsprof: hash table overflow (more than 4 billion keys)\n");
		exit(2);
	}
	ds_vec_push(&h->koff, h->arena.len);
	ds_vec_push(&h->klen, (uint32_t)len);
	/* keep keys 8-aligned so callers may read integer tuples in place */
	ds_buf_append(&h->arena, key, len);
	while (h->arena.len % 8)
		ds_buf_putc(&h->arena, 0);
	ds_vec_push(&h->hashes, hv);
	h->slots[i] = SLOT_TAG(hv) | (idx + 1);
	if (added)
		*added = true;
	if ((idx + 1) * 4 >= h->nslots * 3)
		grow(h);
	return idx;
}

/* ---- a map on 64-bit keys ---- */

static size_t u64map_slot(uint64_t key, size_t cap)
{
	/* Fibonacci hashing: the top bits of the product mix every key bit,
	 * also of line addresses, whose low six are zero */
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> (64 - __builtin_ctzll(cap)));
}

uint32_t ds_u64map_get(const ds_u64map *m, uint64_t key)
{
	if (!m->cap)
		return DS_U64MAP_NONE;
	for (size_t i = u64map_slot(key, m->cap);; i = (i + 1) & (m->cap - 1))
		if (m->slot[i].val == DS_U64MAP_NONE || m->slot[i].key == key)
			return m->slot[i].val;
}

uint32_t ds_u64map_put(ds_u64map *m, uint64_t key, uint32_t val, bool *added)
{
	size_t i;

	/* at most half full: probes stay short */
	if (2 * (m->n + 1) > m->cap) {
		ds_u64map old = *m;
		m->cap = old.cap ? 2 * old.cap : 64;
		m->slot = ds_xmalloc(m->cap * sizeof *m->slot);
		for (i = 0; i < m->cap; i++)
			m->slot[i].val = DS_U64MAP_NONE;
		for (size_t k = 0; k < old.cap; k++) {
			if (old.slot[k].val == DS_U64MAP_NONE)
				continue;
			for (i = u64map_slot(old.slot[k].key, m->cap); m->slot[i].val != DS_U64MAP_NONE;
			     i = (i + 1) & (m->cap - 1))
				;
			m->slot[i] = old.slot[k];
		}
		free(old.slot);
	}
	for (i = u64map_slot(key, m->cap); m->slot[i].val != DS_U64MAP_NONE; i = (i + 1) & (m->cap - 1))
		if (m->slot[i].key == key) {
			if (added)
				*added = false;
			return m->slot[i].val;
		}
	m->slot[i].key = key;
	m->slot[i].val = val;
	m->n++;
	if (added)
		*added = true;
	return val;
}

void ds_u64map_set(ds_u64map *m, uint64_t key, uint32_t val)
{
	bool added;
	uint32_t at = ds_u64map_put(m, key, val, &added);
	size_t i;

	if (added || at == val)
		return;
	for (i = u64map_slot(key, m->cap); m->slot[i].key != key || m->slot[i].val == DS_U64MAP_NONE;
	     i = (i + 1) & (m->cap - 1))
		;
	m->slot[i].val = val;
}

bool ds_u64map_del(ds_u64map *m, uint64_t key)
{
	size_t i, j, mask = m->cap - 1;

	if (!m->cap)
		return false;
	for (i = u64map_slot(key, m->cap); m->slot[i].key != key || m->slot[i].val == DS_U64MAP_NONE;
	     i = (i + 1) & mask)
		if (m->slot[i].val == DS_U64MAP_NONE)
			return false;
	/* backward shift: each later entry of the run that may sit in the hole
	 * moves into it, so that no lookup stops short of its key */
	for (j = (i + 1) & mask; m->slot[j].val != DS_U64MAP_NONE; j = (j + 1) & mask) {
		size_t home = u64map_slot(m->slot[j].key, m->cap);
		/* the entry at j may move to i when its home is not in (i, j] */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			m->slot[i] = m->slot[j];
			i = j;
		}
	}
	m->slot[i].val = DS_U64MAP_NONE;
	m->n--;
	return true;
}

void ds_u64map_free(ds_u64map *m)
{
	free(m->slot);
	memset(m, 0, sizeof *m);
}

void ds_sort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(v, n, size, cmp);
}

void ds_sort_r(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *, void *),
	       void *arg)
{
	if (n > 1)
		qsort_r(v, n, size, cmp, arg);
}
