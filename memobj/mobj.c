/* Memory objects: the predefined ones of a machine, the machine's own, the
 * user's file of definitions, and --mobj. */
#include "memobj/memobj.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Lines are virtual: the same bytes whichever address names them, and the
 * virtual one is what data objects live at.  L1D is virtually indexed (its
 * index bits lie within the page on every current CPU), L2 and L3 are
 * physically indexed, and so are their sets.  "%s" is the huge page size. */
static const struct {
	const char *name, *text;
} predefined[] = {
	{"L1D_line", "VADDR / L1D_LINE * L1D_LINE"},
	{"L1D_set", "VADDR / L1D_LINE % L1D_SETS"},
	{"L2_line", "VADDR / L2_LINE * L2_LINE"},
	{"L2_set", "PADDR / L2_LINE % L2_SETS"},
	{"L3_line", "VADDR / L3_LINE * L3_LINE"},
	{"L3_set", "PADDR / L3_LINE % L3_SETS"},
	{"vpage", "VADDR / PAGE_SIZE * PAGE_SIZE"},
	{"ppage", "PADDR / PAGE_SIZE * PAGE_SIZE"},
	{"vpage_%s", "VADDR / HUGE_PAGE_SIZE * HUGE_PAGE_SIZE"},
	{"ppage_%s", "PADDR / HUGE_PAGE_SIZE * HUGE_PAGE_SIZE"},
};

#define NAME_RULE "letters, digits and _, starting with a letter"

bool ds_mobj_name_ok(const char *name)
{
	size_t n = strlen(name);

	if (!n || n > 64 || !isalpha((unsigned char)name[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '_')
			return false;
	return true;
}

bool ds_mobj_predefined_name(const char *name)
{
	const char *s;

	for (size_t i = 0; i < sizeof predefined / sizeof predefined[0]; i++)
		if (!strchr(predefined[i].name, '%') && strcmp(name, predefined[i].name) == 0)
			return true;
	if (strcmp(name, "numa_node") == 0)
		return true;
	/* vpage_2M, ppage_1G, ...: named after the machine's huge page size */
	if (strncmp(name, "vpage_", 6) != 0 && strncmp(name, "ppage_", 6) != 0)
		return false;
	for (s = name + 6; isdigit((unsigned char)*s); s++)
		;
	return s > name + 6 && (*s == 'K' || *s == 'M' || *s == 'G') && !s[1];
}

/* "2M", "1G", "64K": how huge page sizes are named. */
static void size_name(uint64_t v, char *buf, size_t len)
{
	if (v % (1ull << 30) == 0)
		snprintf(buf, len, "%" PRIu64 "G", v >> 30);
	else if (v % (1ull << 20) == 0)
		snprintf(buf, len, "%" PRIu64 "M", v >> 20);
	else
		snprintf(buf, len, "%" PRIu64 "K", v >> 10);
}

static void mobj_clear(ds_mobj *o)
{
	free(o->name);
	free(o->text);
	free(o->error);
	ds_expr_free(o->code);
}

/* Put an object in the set, replacing one of the same name in place. */
static void put(ds_mobjs *s, ds_mobj o)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i].name, o.name) == 0) {
			mobj_clear(&s->v[i]);
			s->v[i] = o;
			return;
		}
	s->v = ds_xrealloc(s->v, (s->n + 1) * sizeof *s->v);
	s->v[s->n++] = o;
}

static ds_mobj make(const char *name, const char *text, enum ds_mobj_origin origin, ds_expr *code)
{
	return (ds_mobj){
		.name = ds_xstrdup(name),
		.text = ds_xstrdup(text),
		.origin = origin,
		.code = code,
		.hex = code && ds_expr_is_address(code),
		.needs_paddr = code && (ds_expr_uses(code) & (1u << DS_PADDR)),
	};
}

void ds_mobjs_init(ds_mobjs *s, const ds_machine *m)
{
	ds_err err;

	memset(s, 0, sizeof *s);
	s->machine = m;
	for (size_t i = 0; i < sizeof predefined / sizeof predefined[0]; i++) {
		char name[48], size[24];
		ds_expr *code;

		size_name(m->huge_page_size, size, sizeof size);
		snprintf(name, sizeof name, predefined[i].name, size);
		/* the machine has the object when it has the constants */
		if (ds_expr_compile(name, predefined[i].text, m, &code, &err) == 0)
			put(s, make(name, predefined[i].text, DS_MOBJ_PREDEFINED, code));
	}
	for (size_t i = 0; i < m->nmobjs; i++)
		ds_mobjs_add(s, m->mobj_names[i], m->mobj_exprs[i], DS_MOBJ_MACHINE, &err);
}

void ds_mobjs_fini(ds_mobjs *s)
{
	for (size_t i = 0; i < s->n; i++)
		mobj_clear(&s->v[i]);
	free(s->v);
	memset(s, 0, sizeof *s);
}

int ds_mobjs_add(ds_mobjs *s, const char *name, const char *text, enum ds_mobj_origin origin,
		 ds_err *err)
{
	ds_expr *code;
	ds_err why;
	ds_mobj o;

	if (!ds_mobj_name_ok(name))
		return ds_err_set(err, DS_EINPUT, "bad memory-object name '%s' (" NAME_RULE ")", name);
	if (origin >= DS_MOBJ_USER && ds_mobj_predefined_name(name))
		return ds_err_set(err, DS_EINPUT, "'%s' is a predefined memory object; choose another name",
				  name);
	if (ds_expr_compile(name, text, s->machine, &code, &why) == 0) {
		put(s, make(name, text, origin, code));
		return 0;
	}
	if (origin == DS_MOBJ_OPTION)
		return ds_err_set(err, DS_EINPUT, "%s", why.msg);
	/* a definition for other machines stays, and says why it cannot be
	 * used here when it is asked for */
	if (ds_expr_compile(name, text, NULL, &code, err))
		return -1;
	ds_expr_free(code);
	o = make(name, text, origin, NULL);
	o.error = ds_xstrdup(why.msg);
	put(s, o);
	return 0;
}

int ds_mobj_parse_option(const char *arg, char **name, char **text, ds_err *err)
{
	const char *eq = strchr(arg, '=');
	char *n, *t;

	*name = *text = NULL;
	if (!eq)
		return ds_err_set(err, DS_EINPUT, "--mobj '%s': expected NAME=EXPR", arg);
	n = ds_xstrndup(arg, (size_t)(eq - arg));
	t = ds_xstrdup(eq + 1);
	ds_trim(n);
	ds_trim(t);
	if (!ds_mobj_name_ok(n) || !*t) {
		ds_err_set(err, DS_EINPUT, "--mobj '%s': %s", arg,
			   *t ? "bad name (" NAME_RULE ")" : "expected NAME=EXPR");
		free(n);
		free(t);
		return -1;
	}
	*name = n;
	*text = t;
	return 0;
}

int ds_mobjs_add_option(ds_mobjs *s, const char *arg, ds_err *err)
{
	char *name, *text;
	int rc = ds_mobj_parse_option(arg, &name, &text, err);

	if (rc == 0)
		rc = ds_mobjs_add(s, name, text, DS_MOBJ_OPTION, err);
	free(name);
	free(text);
	return rc;
}

int ds_mobjs_add_user(ds_mobjs *s, const char *path, ds_err *err)
{
	char *own = NULL;
	ds_mobj_def *defs = NULL;
	size_t n = 0;
	int rc;

	if (!path && ds_mobj_user_path(&own, err))
		return -1;
	if (!path)
		path = own;
	rc = ds_mobj_file_read(path, &defs, &n, err);
	for (size_t i = 0; i < n && !rc; i++)
		if ((rc = ds_mobjs_add(s, defs[i].name, defs[i].text, DS_MOBJ_USER, err)))
			ds_err_prefix(err, "memory objects of '%s': line %d: ", path, defs[i].line);
	ds_mobj_defs_free(defs, n);
	free(own);
	return rc;
}

const ds_mobj *ds_mobjs_find(const ds_mobjs *s, const char *name, ds_err *err)
{
	for (size_t i = 0; i < s->n; i++) {
		const ds_mobj *o = &s->v[i];
		if (strcmp(o->name, name) != 0)
			continue;
		if (!o->code) {
			ds_err_set(err, DS_EINPUT, "%s", o->error);
			return NULL;
		}
		return o;
	}
	/* a predefined object this machine lacks: say which constant is missing */
	for (size_t i = 0; i < sizeof predefined / sizeof predefined[0]; i++) {
		ds_expr *code;
		if (strcmp(predefined[i].name, name) != 0)
			continue;
		if (ds_expr_compile(name, predefined[i].text, s->machine, &code, err))
			return NULL;
		ds_expr_free(code);
	}
	ds_err_set(err, DS_EINPUT, "unknown memory object '%s' (see 'dsprof mobj list')", name);
	return NULL;
}

void ds_mobj_format(const ds_mobj *o, int64_t index, char *buf, size_t len)
{
	if (index == -1)
		snprintf(buf, len, "<unknown>");
	else if (o->hex)
		snprintf(buf, len, "0x%" PRIx64, (uint64_t)index);
	else
		snprintf(buf, len, "%" PRId64, index);
}

/* ---- the user's file ---- */

int ds_mobj_user_path(char **out, ds_err *err)
{
	const char *env = getenv("DSPROF_MOBJ"), *home = getenv("HOME");
	struct passwd *pw;

	if (env && *env) {
		*out = ds_xstrdup(env);
		return 0;
	}
	if ((!home || !*home) && (pw = getpwuid(getuid())))
		home = pw->pw_dir;
	if (!home || !*home)
		return ds_err_set(err, DS_EENV,
				  "no home directory for ~/.config/dsprof/mobj: set DSPROF_MOBJ to the file "
				  "of memory-object definitions");
	*out = ds_xasprintf("%s/.config/dsprof/mobj", home);
	return 0;
}

void ds_mobj_defs_free(ds_mobj_def *defs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(defs[i].name);
		free(defs[i].text);
	}
	free(defs);
}

/* The file's text; a missing file is empty. */
static int read_text(const char *path, char **text, ds_err *err)
{
	*text = ds_read_file_err(path, NULL, err);
	if (*text)
		return 0;
	if (errno == ENOENT) {
		*text = ds_xstrdup("");
		return 0;
	}
	return -1;
}

/* The definitions of text, checked: well-formed lines, valid names, no
 * name twice. */
static int parse_defs(const char *path, const char *text, ds_mobj_def **defs, size_t *n, ds_err *err)
{
	DS_VEC(ds_mobj_def) v = {0};
	int lineno = 0, rc = 0;
	char *copy = ds_xstrdup(text);

	for (char *l = copy, *next; l && *l && !rc; l = next) {
		char *eq, *name, *expr;
		next = strchr(l, '\n');
		if (next)
			*next++ = 0;
		lineno++;
		l = ds_trim(l);
		if (!*l || *l == '#')
			continue;
		if (!(eq = strchr(l, '='))) {
			rc = ds_err_set(err, DS_EINPUT, "expected NAME = EXPR");
			break;
		}
		*eq = 0;
		name = ds_trim(l);
		expr = ds_trim(eq + 1);
		if (!ds_mobj_name_ok(name)) {
			rc = ds_err_set(err, DS_EINPUT, "bad memory-object name '%s' (" NAME_RULE ")", name);
			break;
		}
		if (!*expr) {
			rc = ds_err_set(err, DS_EINPUT, "'%s' has no expression", name);
			break;
		}
		for (size_t i = 0; i < v.n && !rc; i++)
			if (strcmp(v.v[i].name, name) == 0)
				rc = ds_err_set(err, DS_EINPUT, "'%s' is defined twice (first on line %d)", name,
						v.v[i].line);
		if (!rc)
			ds_vec_push(&v, ((ds_mobj_def){ds_xstrdup(name), ds_xstrdup(expr), lineno}));
	}
	free(copy);
	if (rc) {
		ds_err_prefix(err, "memory objects of '%s': line %d: ", path, lineno);
		ds_mobj_defs_free(v.v, v.n);
		return -1;
	}
	*defs = v.v;
	*n = v.n;
	return 0;
}

int ds_mobj_file_read(const char *path, ds_mobj_def **defs, size_t *n, ds_err *err)
{
	char *text;
	int rc;

	*defs = NULL;
	*n = 0;
	if (read_text(path, &text, err))
		return -1;
	rc = parse_defs(path, text, defs, n, err);
	free(text);
	return rc;
}

/* The directory dir, to write in (base.h, ds_wdir_open), made with the
 * folders above it when absent (~/.config/dsprof). */
static ds_wdir *own_dir(const char *dir, ds_err *err)
{
	ds_wdir *d = ds_wdir_open(dir, err), *up;
	char *slash, *parent, *name;

	if (d || errno != ENOENT || !(slash = strrchr(dir, '/')) || slash == dir)
		return d;
	parent = ds_xstrndup(dir, (size_t)(slash - dir));
	name = ds_xstrdup(slash + 1);
	if ((up = own_dir(parent, err)))
		d = ds_wdir_sub(up, name, true, err);
	ds_wdir_close(up);
	free(parent);
	free(name);
	return d;
}

/* Replace path's contents all at once: a reader sees the old file or the
 * new one, and a crash leaves one of them.  A symbolic link (dotfiles kept
 * elsewhere) is written through when it is the user's own, into a
 * directory of the user's (base.h, "writing files"). */
static int write_atomic(const char *path, const char *data, size_t len, ds_err *err)
{
	struct stat st;
	char *target = NULL, *slash;
	ds_wdir *d;
	int rc;

	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		if (st.st_uid != geteuid())
			return ds_err_set(err, DS_EINPUT, "cannot write '%s': it is a symbolic link of user %u, which "
					  "dsprof (user %u) does not write through", path, (unsigned)st.st_uid,
					  (unsigned)geteuid());
		if (!(target = realpath(path, NULL)))
			return ds_err_set(err, DS_EINPUT, "cannot write '%s': it is a symbolic link to nothing (%s)",
					  path, strerror(errno));
	}
	if (!target)
		target = ds_xstrdup(path);
	slash = strrchr(target, '/');
	d = !slash ? ds_wdir_open(".", err) : slash == target ? ds_wdir_open("/", err) : NULL;
	if (slash && slash != target) {
		*slash = 0;
		d = own_dir(target, err);
		*slash = '/';
	}
	rc = d ? ds_wdir_write_file(d, slash ? slash + 1 : target, data, len, err) : -1;
	ds_wdir_close(d);
	free(target);
	return rc;
}

/* text without its line `skip` (1-based), with `replace` in its place when
 * not NULL; lines are kept byte for byte. */
static char *edit_line(const char *text, int skip, const char *replace)
{
	ds_buf b = {0};
	int lineno = 0;

	for (const char *l = text, *next; *l; l = next) {
		next = strchr(l, '\n');
		next = next ? next + 1 : l + strlen(l);
		if (++lineno != skip)
			ds_buf_append(&b, l, (size_t)(next - l));
		else if (replace)
			ds_buf_printf(&b, "%s\n", replace);
	}
	return ds_buf_steal(&b);
}

static int rewrite(const char *path, const char *name, const char *line, bool force, ds_err *err)
{
	ds_mobj_def *defs;
	char *text, *out;
	size_t n;
	int at = 0, rc;

	if (read_text(path, &text, err))
		return -1;
	if (parse_defs(path, text, &defs, &n, err)) {
		free(text);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (strcmp(defs[i].name, name) == 0)
			at = defs[i].line;
	ds_mobj_defs_free(defs, n);
	if (at && line && !force)
		rc = ds_err_set(err, DS_EINPUT,
				"'%s' is already defined in '%s' (line %d): redefine it with --force", name,
				path, at);
	else if (!at && !line)
		rc = ds_err_set(err, DS_EINPUT, "'%s' is not defined in '%s'", name, path);
	else {
		if (at) {
			out = edit_line(text, at, line);
		} else {
			size_t len = strlen(text);
			out = ds_xasprintf("%s%s%s\n", text, len && text[len - 1] != '\n' ? "\n" : "", line);
		}
		rc = write_atomic(path, out, strlen(out), err);
		free(out);
	}
	free(text);
	return rc;
}

int ds_mobj_file_define(const char *path, const char *name, const char *text, bool force,
			ds_err *err)
{
	ds_expr *code;
	char *line;
	int rc;

	if (!ds_mobj_name_ok(name))
		return ds_err_set(err, DS_EINPUT, "bad memory-object name '%s' (" NAME_RULE ")", name);
	if (ds_mobj_predefined_name(name))
		return ds_err_set(err, DS_EINPUT, "'%s' is a predefined memory object; choose another name",
				  name);
	if (strchr(text, '\n'))
		return ds_err_set(err, DS_EINPUT, "mobj '%s': the expression must be one line", name);
	if (ds_expr_compile(name, text, NULL, &code, err))
		return -1;
	ds_expr_free(code);
	line = ds_xasprintf("%s = %s", name, text);
	ds_trim(line);
	rc = rewrite(path, name, line, force, err);
	free(line);
	return rc;
}

int ds_mobj_file_undefine(const char *path, const char *name, ds_err *err)
{
	return rewrite(path, name, NULL, false, err);
}
