/*
 * Running the interface: on the terminal, or replaying keys into text
 * screens (scripted mode), and the timings benchmarks read.
 */
#include "tui/tui_int.h"

#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Timings: from the start to the first screen with a table, to every
 * sample read and attributed, and for each key after that until its
 * screen showed with nothing left to wait for. */
typedef struct stats {
	double start, first, loaded;
	bool first_partial;
	ds_vec_u64 key_us;
} stats;

static int stats_write(const stats *st, const char *path, ds_err *err)
{
	FILE *f;
	uint64_t max = 0, sum = 0;
	if (!path)
		return 0;
	if (!(f = ds_fcreate_output(path, err)))
		return -1;
	for (size_t i = 0; i < st->key_us.n; i++) {
		sum += st->key_us.v[i];
		if (st->key_us.v[i] > max)
			max = st->key_us.v[i];
	}
	fprintf(f, "first_screen_s %.3f\n", st->first > 0 ? st->first - st->start : -1.0);
	fprintf(f, "first_screen_partial %s\n", st->first_partial ? "yes" : "no");
	fprintf(f, "loaded_s %.3f\n", st->loaded > 0 ? st->loaded - st->start : -1.0);
	fprintf(f, "keys %zu\n", st->key_us.n);
	fprintf(f, "key_max_ms %.2f\n", (double)max / 1000);
	fprintf(f, "key_avg_ms %.2f\n", st->key_us.n ? (double)sum / 1000 / (double)st->key_us.n : 0.0);
	fputs("key_ms", f);
	for (size_t i = 0; i < st->key_us.n; i++)
		fprintf(f, " %.1f", (double)st->key_us.v[i] / 1000);
	fputc('\n', f);
	if (fclose(f) != 0)
		return ds_err_set(err, DS_EENV, "cannot write the timings to '%s'", path);
	return 0;
}

static void stats_screen(stats *st, const tui_app *a)
{
	const tab_state *ts = &a->tabs[a->tab];
	if (st->first == 0 && ts->t && (ts->t->nrows || !ts->partial)) {
		st->first = ds_now();
		st->first_partial = ts->partial;
	}
	if (st->loaded == 0 && a->st.loaded && a->st.ready && !a->st.busy)
		st->loaded = ds_now();
}

static bool utf8_locale(void)
{
	const char *cs = nl_langinfo(CODESET);
	return cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
}

static int run_scripted(const tui_opts *o, const tui_keys *keys, stats *st, ds_err *err)
{
	FILE *out = strcmp(o->dump, "-") == 0 ? stdout : ds_fcreate_output(o->dump, err);
	tui_worker *w;
	tui_app a;
	tui_status s;
	ds_buf b = {0};
	char name[64];
	int rc = 0;

	if (!out)
		return -1;
	w = worker_new(o, false);
	worker_status(w, &s);
	if (s.error[0]) {
		ds_err_set(err, DS_EINPUT, "%s", s.error);
		worker_free(w);
		if (out != stdout)
			fclose(out);
		return -1;
	}
	app_init(&a, o, w, o->width, o->height);
	draw(&a);
	stats_screen(st, &a);
	ds_buf_printf(&b, "--- screen 0: start (%dx%d)\n", a.scr.w, a.scr.h);
	grid_dump(&a.scr, &b);
	for (size_t i = 0; i < keys->n && !a.quit; i++) {
		double t0 = ds_now();
		app_key(&a, &keys->v[i]);
		app_poll(&a);
		draw(&a);
		stats_screen(st, &a);
		ds_vec_push(&st->key_us, (uint64_t)((ds_now() - t0) * 1e6));
		key_label(keys->v[i].code, name, sizeof name);
		if (keys->v[i].code == K_RESIZE)
			snprintf(name, sizeof name, "<Resize:%dx%d>", keys->v[i].w, keys->v[i].h);
		ds_buf_printf(&b, "--- screen %zu: %s (%dx%d)\n", i + 1, name, a.scr.w, a.scr.h);
		grid_dump(&a.scr, &b);
	}
	if (fwrite(b.p, 1, b.len, out) != b.len || fflush(out) != 0)
		rc = ds_err_set(err, DS_EENV, "cannot write the screens to '%s'", o->dump);
	if (out != stdout)
		fclose(out);
	ds_buf_free(&b);
	app_fini(&a);
	worker_free(w);
	return rc;
}

static int run_terminal(const tui_opts *o, stats *st, ds_err *err)
{
	tui_term *t = NULL;
	tui_worker *w;
	tui_app a;
	int width, height, rc = 0;
	double key_start = 0;

	if (term_open(&t, o->ascii, o->color, err))
		return -1;
	term_size(t, &width, &height);
	w = worker_new(o, true);
	app_init(&a, o, w, width, height);
	while (!a.quit) {
		tui_key k;
		app_poll(&a);
		if (a.st.error[0])
			break;
		if (a.dirty) {
			draw(&a);
			term_show(t, &a.scr);
			stats_screen(st, &a);
			if (key_start > 0 && !app_waiting(&a) && !a.st.busy) {
				ds_vec_push(&st->key_us, (uint64_t)((ds_now() - key_start) * 1e6));
				key_start = 0;
			}
		}
		/* wake up for the worker's news; redraw the progress now and then */
		k = term_key(t, a.st.loaded && a.st.ready ? -1 : 250, worker_wake_fd(w));
		if (k.code == K_NONE) {
			a.dirty |= !a.st.loaded || a.st.busy;
			continue;
		}
		if (k.code == K_RESIZE)
			term_size(t, &k.w, &k.h);
		if (st->loaded > 0 && key_start == 0)
			key_start = ds_now();
		app_key(&a, &k);
	}
	term_close(t);
	if (a.st.error[0])
		rc = ds_err_set(err, DS_EINPUT, "%s", a.st.error);
	app_fini(&a);
	worker_free(w);
	return rc;
}

int tui_run(const tui_opts *o_in, ds_err *err)
{
	tui_opts o = *o_in;
	stats st = {0};
	tui_keys keys = {0};
	int rc;

	st.start = ds_now();
	setlocale(LC_ALL, "");
	if (o.keys) {
		if (keys_parse(o.keys, &keys, err)) {
			ds_vec_free(&keys);
			return -1;
		}
		/* scripted screens are UTF-8 whatever the locale, for the same widths everywhere */
		if (!o.ascii && !utf8_locale() && !setlocale(LC_CTYPE, "C.UTF-8"))
			o.ascii = true;
		if (o.width < 80 || o.height < 24 || o.width > 1000 || o.height > 1000) {
			ds_vec_free(&keys);
			return ds_err_set(err, DS_EINPUT, "the scripted screen must be 80x24 to 1000x1000, not %dx%d",
					  o.width, o.height);
		}
		rc = run_scripted(&o, &keys, &st, err);
	} else {
		/* a terminal that cannot show UTF-8 gets ASCII */
		if (!utf8_locale())
			o.ascii = true;
		rc = run_terminal(&o, &st, err);
	}
	ds_vec_free(&keys);
	if (rc == 0)
		rc = stats_write(&st, o.stats, err);
	ds_vec_free(&st.key_us);
	return rc;
}
