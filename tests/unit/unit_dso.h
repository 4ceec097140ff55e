/* Test fixtures of the dwarfmap unit tests (after tests/unit/unit.h). */
#ifndef DSPROF_UNIT_DSO_H
#define DSPROF_UNIT_DSO_H

#include "dwarfmap/dwarfmap.h"

/* Open NAME in the scratch directory with no system debug files around
 * (err: NULL when the test does not look at the error). */
static inline ds_dso *unit_open_dso(const char *name, ds_err *err)
{
	char *p = unit_tpath(name), *root = unit_tpath("noroot");
	ds_dso_opts o = {.debug_root = root};
	ds_err ignored;
	ds_dso *d = ds_dso_open(p, &o, err ? err : &ignored);

	free(p);
	free(root);
	return d;
}

#endif
