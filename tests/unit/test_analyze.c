/* analyze/'s experiment merge and the run-to-run statistics of a diff,
 * on tables made by hand: the numbers are known exactly. */
#include "unit.h"

#include "analyze/analyze.h"

static const ds_col cols[] = {{"module", DS_COL_STR, true}, {"bytes", DS_COL_U64, true}};

/* A table of view `view` with one event and rows "name:count" (samples =
 * count, module "m", bytes = count); a row "a/b" is b under a (depth 1). */
static ds_table *make(const char *view, const char *event, const char *const *rows, size_t n)
{
	ds_table *t = ds_xcalloc(1, sizeof *t);
	uint64_t total = 0;

	t->view = ds_xstrdup(view);
	t->has_metrics = true;
	t->nevents = 1;
	t->events = ds_xcalloc(1, sizeof *t->events);
	t->events[0].name = ds_xstrdup(event);
	t->events[0].period = 1;
	t->ncols = 2;
	t->cols = ds_xcalloc(2, sizeof *t->cols);
	memcpy(t->cols, cols, sizeof cols);
	t->rows = ds_xcalloc(n + 1, sizeof *t->rows);
	t->nrows = t->total_rows = n;
	for (size_t i = 0; i < n; i++) {
		ds_row *r = &t->rows[i];
		const char *colon = strchr(rows[i], ':'), *slash = memchr(rows[i], '/', (size_t)(colon - rows[i]));
		uint64_t c = strtoull(colon + 1, NULL, 10);
		r->name = slash ? ds_xstrndup(slash + 1, (size_t)(colon - slash - 1))
				: ds_xstrndup(rows[i], (size_t)(colon - rows[i]));
		r->depth = slash ? 1 : 0;
		t->tree = t->tree || slash;
		r->cells = ds_xcalloc(2, sizeof *r->cells);
		r->cells[0] = (ds_cell){.s = ds_xstrdup("m"), .set = true};
		r->cells[1] = (ds_cell){.u = c, .set = true};
		r->samples = ds_xcalloc(1, sizeof *r->samples);
		r->count = ds_xcalloc(1, sizeof *r->count);
		r->samples[0] = r->count[0] = c;
		if (!slash)
			total += c;
	}
	t->events[0].samples = t->events[0].count = total;
	return t;
}

static const ds_row *find(const ds_table *t, const char *name, unsigned depth)
{
	for (size_t i = 0; i < t->nrows; i++)
		if (strcmp(t->rows[i].name, name) == 0 && t->rows[i].depth == depth)
			return &t->rows[i];
	return NULL;
}

static ds_table *merged(enum ds_merge_how how, ds_table *const *t, size_t n)
{
	ds_merger *m = ds_merger_new(how);
	ds_table *out = NULL;
	ds_err err = {0};

	for (size_t i = 0; i < n; i++)
		CHECK(ds_merger_add(m, t[i], &err) == 0);
	CHECK(ds_merger_finish(m, NULL, &out, &err) == 0);
	ds_merger_free(m);
	return out;
}

TEST(merge_sum_and_mean)
{
	const char *a[] = {"f:10", "g:4"}, *b[] = {"f:20", "h:6"};
	ds_table *t[2] = {make("functions", "E", a, 2), make("functions", "E", b, 2)};
	ds_table *s = merged(DS_MERGE_SUM, t, 2), *m = merged(DS_MERGE_MEAN, t, 2);

	CHECK_EQ_U64(s->nrows, 3);
	CHECK_EQ_U64(find(s, "f", 0)->samples[0], 30);
	CHECK_EQ_U64(find(s, "f", 0)->cells[1].u, 30); /* bytes add up */
	CHECK_EQ_U64(s->rows[0].samples[0], 30);       /* sorted: the hottest first */
	CHECK_EQ_U64(s->events[0].count, 40);
	CHECK_EQ_U64(m->events[0].count, 20);
	CHECK_EQ_U64(find(m, "f", 0)->samples[0], 15);
	CHECK_EQ_U64(find(m, "g", 0)->samples[0], 2); /* a run without it counts 0 */
	/* each run's count, for a diff's interval */
	CHECK_EQ_U64(s->nruns, 2);
	CHECK_EQ_U64(find(s, "h", 0)->runs[0], 0);
	CHECK_EQ_U64(find(s, "h", 0)->runs[1], 6);
	for (int i = 0; i < 2; i++)
		ds_table_free(t[i]);
	ds_table_free(s);
	ds_table_free(m);
}

TEST(merge_events_apart)
{
	const char *a[] = {"f:10"}, *b[] = {"f:7"};
	ds_table *t[2] = {make("functions", "loads", a, 1), make("functions", "stores", b, 1)};
	ds_table *m = merged(DS_MERGE_MEAN, t, 2);

	/* an event's mean is over the experiments that recorded it */
	CHECK_EQ_U64(m->nevents, 2);
	CHECK_STR(m->events[1].name, "stores");
	CHECK_EQ_U64(find(m, "f", 0)->samples[0], 10);
	CHECK_EQ_U64(find(m, "f", 0)->samples[1], 7);
	CHECK_EQ_U64(m->events[1].runs, 1);
	for (int i = 0; i < 2; i++)
		ds_table_free(t[i]);
	ds_table_free(m);
}

TEST(merge_trees_by_place)
{
	const char *a[] = {"x:5", "x/y:5", "z:1", "z/y:1"}, *b[] = {"z:3", "z/y:3"};
	ds_table *t[2] = {make("calltree", "E", a, 4), make("calltree", "E", b, 2)};
	ds_table *s = merged(DS_MERGE_SUM, t, 2);

	/* y under x and y under z stay two rows */
	CHECK_EQ_U64(s->nrows, 4);
	CHECK(strcmp(s->rows[0].name, "x") == 0 && strcmp(s->rows[1].name, "y") == 0 && s->rows[1].samples[0] == 5);
	CHECK(strcmp(s->rows[2].name, "z") == 0 && s->rows[3].depth == 1 && s->rows[3].samples[0] == 4);
	for (int i = 0; i < 2; i++)
		ds_table_free(t[i]);
	ds_table_free(s);
}

TEST(merge_refuses_what_does_not_merge)
{
	ds_err err = {0};
	CHECK(ds_merge_check_view("samples", &err) < 0);
	CHECK(strstr(err.msg, "each sample of one experiment") != NULL);
	CHECK(ds_merge_check_view("timeline", &err) < 0);
	CHECK(ds_merge_check_view("functions", &err) == 0);
}

/* Welch's interval on known numbers: runs 10 12 14 16 18 against 20 22 24
 * 26 28: the means differ by 10, each side's variance is 10, so the
 * standard error is 2 and the degrees of freedom 8: t = 2.306, the
 * interval 10 -+ 4.612 = 5.388 .. 14.612, kept as 5 .. 15. */
TEST(diff_interval_across_runs)
{
	ds_table *b[5], *a[5], *mb, *ma;
	ds_diff *d = NULL;
	ds_err err = {0};
	const ds_row *r = NULL;
	size_t lo = SIZE_MAX, hi = SIZE_MAX;

	for (int i = 0; i < 5; i++) {
		char x[16], y[16];
		const char *rb[] = {x}, *ra[] = {y};
		snprintf(x, sizeof x, "f:%d", 10 + 2 * i);
		snprintf(y, sizeof y, "f:%d", 20 + 2 * i);
		b[i] = make("functions", "E", rb, 1);
		a[i] = make("functions", "E", ra, 1);
	}
	mb = merged(DS_MERGE_MEAN, b, 5);
	ma = merged(DS_MERGE_MEAN, a, 5);
	CHECK(ds_diff_tables(mb, ma, NULL, &d, &err) == 0);
	for (size_t c = 0; d && c < d->table->ncols; c++) {
		if (strcmp(d->table->cols[c].name, "ci_low:E") == 0)
			lo = c;
		if (strcmp(d->table->cols[c].name, "ci_high:E") == 0)
			hi = c;
	}
	CHECK(lo != SIZE_MAX && hi != SIZE_MAX);
	if (d && lo != SIZE_MAX && hi != SIZE_MAX) {
		r = find(d->table, "f", 0);
		CHECK(r != NULL);
		CHECK_EQ_U64(r->cells[lo].u, 5);
		CHECK_EQ_U64(r->cells[hi].u, 15);
		CHECK(strstr(d->verdict[0].text, "significant (95% interval +5..+15 over 5 and 5 runs)") != NULL);
		CHECK(!d->verdict[0].noise);
	}
	ds_diff_free(d);
	/* one run a side: the verdict says it cannot tell */
	CHECK(ds_diff_tables(b[0], a[0], NULL, &d, &err) == 0);
	CHECK(d && strcmp(d->verdict[d->nverdict - 1].kind, "runs") == 0);
	ds_diff_free(d);
	for (int i = 0; i < 5; i++) {
		ds_table_free(b[i]);
		ds_table_free(a[i]);
	}
	ds_table_free(mb);
	ds_table_free(ma);
}

/* Sizes and durations: text for people, CSV and JSON the number. */
TEST(cell_text_units)
{
	static const struct {
		enum ds_col_kind kind;
		uint64_t v;
		const char *text, *csv;
	} cases[] = {
		{DS_COL_BYTES, 48, "48 B", "48"},
		{DS_COL_BYTES, 1536, "1.5 KB", "1536"},
		{DS_COL_BYTES, 8u << 20, "8 MB", "8388608"},
		{DS_COL_BYTES, 14852096, "14.2 MB", "14852096"},
		{DS_COL_BYTES, 1048575, "1.0 MB", "1048575"},
		{DS_COL_NS, 850, "850ns", "850"},
		{DS_COL_NS, 3845, "3.8us", "3845"},
		{DS_COL_NS, 148067084, "148.1ms", "148067084"},
		{DS_COL_NS, 999960, "1.0ms", "999960"},
		{DS_COL_NS, 1250000000, "1.25s", "1250000000"},
		{DS_COL_U64, 148067084, "148067084", "148067084"},
	};
	char buf[64];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ds_col c = {"x", cases[i].kind, true};
		ds_cell v = {.u = cases[i].v, .set = true};
		CHECK_STR(ds_cell_text(buf, sizeof buf, &c, &v, true), cases[i].text);
		CHECK_STR(ds_cell_text(buf, sizeof buf, &c, &v, false), cases[i].csv);
	}
}

int main(void)
{
	RUN(merge_sum_and_mean);
	RUN(merge_events_apart);
	RUN(merge_trees_by_place);
	RUN(merge_refuses_what_does_not_merge);
	RUN(diff_interval_across_runs);
	RUN(cell_text_units);
	return unit_done();
}
