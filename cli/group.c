/* Experiments named on the command line: each is an experiment, or a
 * group standing for its members; several make one view (analyze/merge.c). */
#include "cli/cli.h"

#include "analyze/analyze.h"
#include "experiment/experiment.h"

#include <stdlib.h>
#include <string.h>

int cli_expand(const char *const *inputs, size_t n, cli_exps *out, ds_err *err)
{
	for (size_t i = 0; i < n; i++) {
		ds_group_member *mv;
		size_t nm;
		char *note;
		if (!ds_group_is(inputs[i])) {
			cli_exp e = {ds_xstrdup(inputs[i]), NULL, false};
			ds_vec_push(out, e);
			continue;
		}
		if (ds_group_members(inputs[i], &mv, &nm, &note, err))
			return -1;
		if (note)
			cli_note(note);
		free(note);
		if (!nm) {
			ds_group_members_free(mv, nm);
			return ds_err_set(err, DS_EINPUT, "group '%s' has no complete experiment yet", inputs[i]);
		}
		for (size_t k = 0; k < nm; k++) {
			cli_exp e = {ds_xasprintf("%s/%s", inputs[i], mv[k].name),
				     n > 1 ? ds_xasprintf("%s/%s", inputs[i], mv[k].name) : ds_xstrdup(mv[k].name),
				     strcmp(mv[k].kind, "run") == 0};
			ds_vec_push(out, e);
		}
		ds_group_members_free(mv, nm);
	}
	return 0;
}

void cli_exps_free(cli_exps *v)
{
	for (size_t i = 0; i < v->n; i++) {
		free(v->v[i].path);
		free(v->v[i].label);
	}
	ds_vec_free(v);
}

int cli_parse_merge(const char *cmd, const char *arg, int *how)
{
	if (strcmp(arg, "sum") == 0)
		*how = DS_MERGE_SUM;
	else if (strcmp(arg, "mean") == 0)
		*how = DS_MERGE_MEAN;
	else
		return cli_usage_error(cmd, "bad --merge '%s' (sum or mean)", arg);
	return 0;
}

int cli_merge_how(const cli_exps *e, int given)
{
	bool runs = true;

	if (given >= 0)
		return given;
	for (size_t i = 0; i < e->n; i++)
		runs &= e->v[i].run;
	return runs ? DS_MERGE_MEAN : DS_MERGE_SUM;
}

/* Each note of several experiments once, with who said it. */
struct cli_said {
	ds_hash *index;       /* note -> its entry */
	DS_VEC(struct said_one { const char *first; size_t more; }) v;
};

cli_said *cli_said_new(void)
{
	cli_said *n = ds_xcalloc(1, sizeof *n);
	n->index = ds_hash_new();
	return n;
}

void cli_said_add(cli_said *n, const ds_session *s)
{
	for (size_t i = 0; i < ds_session_nnotes(s); i++) {
		const char *t = ds_session_note(s, i);
		bool added;
		size_t k = ds_hash_intern(n->index, t, strlen(t) + 1, &added);
		if (added) {
			struct said_one one = {ds_xstrdup(ds_session_label(s)), 0};
			ds_vec_push(&n->v, one);
		} else {
			n->v.v[k].more++;
		}
	}
}

void cli_said_print(cli_said *n)
{
	for (size_t k = 0; k < n->v.n; k++) {
		size_t len;
		const char *t = ds_hash_key(n->index, k, &len);
		fputs("dsprof: note: ", stderr);
		cli_puts_safe(stderr, n->v.v[k].first);
		if (n->v.v[k].more)
			fprintf(stderr, " and %zu more", n->v.v[k].more);
		fputs(": ", stderr);
		cli_puts_safe(stderr, t);
		fputc('\n', stderr);
		free((char *)n->v.v[k].first);
	}
	ds_vec_free(&n->v);
	ds_hash_free(n->index);
	free(n);
}

/* The caller's preparation of each session, and the notes kept. */
typedef struct prep_said {
	ds_merge_prepare_fn *prepare;
	void *ctx;
	cli_said *notes;
} prep_said;

static int prep_call(ds_session *s, void *ctx, ds_err *err)
{
	const prep_said *ps = ctx;
	return ps->prepare(s, ps->ctx, err);
}

static void said_done(const ds_session *s, void *ctx)
{
	cli_said_add(((prep_said *)ctx)->notes, s);
}

int cli_merged_view(const cli_exps *e, int how, const ds_session_opts *so, const char *view,
		    const ds_view_opts *vo, ds_merge_prepare_fn *prepare, void *ctx, ds_table **out, ds_err *err)
{
	ds_merge_input *m = ds_xcalloc(e->n + 1, sizeof *m);
	prep_said ps = {prepare, ctx, cli_said_new()};
	int rc;

	for (size_t i = 0; i < e->n; i++)
		m[i] = (ds_merge_input){e->v[i].path, e->v[i].label};
	rc = ds_merged_view(m, e->n, (enum ds_merge_how)how, so, view, vo, prepare ? prep_call : NULL, said_done,
			    &ps, out, err);
	cli_said_print(ps.notes);
	free(m);
	return rc;
}
