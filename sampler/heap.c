/*
 * Heap tracking for a recording (record --heap): the interposer to preload
 * (sampler/preload/heap.c, built as libdsprof-heap.so) and the environment
 * that tells it where the experiment's heap folder is.  A program that
 * cannot load it (statically linked) is said so before it starts.
 */
#include "sampler/backend.h"
#include "experiment/heapfile.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* $DSPROF_HEAP_LIB, else the build tree's lib/ next to the dsprof
 * binary, else the installed lib/dsprof/. */
static char *heap_lib(ds_err *err)
{
	const char *env = getenv("DSPROF_HEAP_LIB");
	char exe[4096], *slash, *cand[2] = {NULL, NULL}, *found = NULL;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

	exe[n > 0 ? n : 0] = 0;
	if ((slash = strrchr(exe, '/')))
		*slash = 0;
	if (env && *env) {
		cand[0] = ds_xstrdup(env);
	} else {
		cand[0] = ds_xasprintf("%s/lib/%s", exe, DS_HEAP_LIB);
		cand[1] = ds_xasprintf("%s/../lib/dsprof/%s", exe, DS_HEAP_LIB);
	}
	for (int i = 0; i < 2 && cand[i] && !found; i++)
		if (access(cand[i], R_OK) == 0)
			found = realpath(cand[i], NULL);
	if (!found)
		ds_err_set(err, DS_EENV, "--heap needs the heap tracker, which is not built: no %s; run 'make'",
			   cand[0]);
	free(cand[0]);
	free(cand[1]);
	return found;
}

/* Whether the ELF file at path is linked statically: no program
 * interpreter to preload a library.  A file that is no ELF (a script)
 * runs an interpreter that is: false. */
static bool static_elf(const char *path)
{
	Elf64_Ehdr eh;
	bool stat_elf = false;
	int fd = ds_open_regular(path, NULL);

	if (fd < 0)
		return false;
	if (pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr) && eh.e_phnum < 4096) {
		stat_elf = true;
		for (unsigned i = 0; i < eh.e_phnum && stat_elf; i++) {
			Elf64_Phdr ph;
			if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + i * sizeof ph)) != (ssize_t)sizeof ph)
				stat_elf = false;
			else if (ph.p_type == PT_INTERP)
				stat_elf = false;
		}
	}
	close(fd);
	return stat_elf;
}

int ds_heap_env(ds_wdir *outdir, char *const *argv, bool sim, ds_wdir **heap, char ***env, char **note,
		ds_err *err)
{
	char *lib = NULL, *dir, *cmd = argv ? ds_find_command(argv[0]) : NULL;
	const char *preload = getenv("LD_PRELOAD");
	char **e;

	*env = NULL;
	*note = NULL;
	*heap = NULL;
	if (cmd && static_elf(cmd)) {
		*note = ds_xasprintf("'%s' is statically linked: %s; recording without heap data", cmd,
				     sim ? "the simulator cannot replace its allocator"
					 : "the heap tracker cannot be preloaded into it");
		free(cmd);
		return 0;
	}
	free(cmd);
	if (!sim && !(lib = heap_lib(err)))
		return -1;
	if (!(*heap = ds_wdir_sub(outdir, "heap", true, err))) {
		free(lib);
		return -1;
	}
	/* the folder through this process's descriptor of it: absolute (the
	 * command may change its directory), and the folder dsprof made
	 * whatever happens to the experiment's path meanwhile */
	dir = ds_xasprintf("/proc/%d/fd/%d", (int)getpid(), ds_wdir_fd(*heap));
	e = ds_xcalloc(3, sizeof *e);
	if (sim) {
		e[0] = ds_xasprintf("DSPROF_SIM_HEAP=%s", dir);
	} else {
		/* the tracker first: its malloc is the one the program's calls find */
		e[0] = preload && *preload ? ds_xasprintf("LD_PRELOAD=%s:%s", lib, preload)
					   : ds_xasprintf("LD_PRELOAD=%s", lib);
		e[1] = ds_xasprintf("DSPROF_HEAP=%s", dir);
	}
	*env = e;
	free(dir);
	free(lib);
	return 0;
}

void ds_heap_env_free(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}
