/*
** The target model: one entry and one open per file identity, shared by every
** process and mapping; the vDSO read once per process; parts set once; load
** biases of PIE mappings; fds closed once every part is there; a process's
** root directory held past its exit.
*/
#include <criterion/criterion.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc/files.h"
#include "proc/mapfile.h"
#include "proc/model.h"

/* Resolve every mapping of pid twice; returns how many had a file. */
static unsigned resolve_all(struct tmodel *m, int pid)
{
	struct tproc *p = tmodel__proc(m, pid);
	unsigned n = 0;

	cr_assert_not_null(p);
	for (int round = 0; round < 2; round++) {
		const struct procmaps *pm = tproc__maps(p);

		for (size_t i = 0; i < pm->n; i++)
			n += round == 0 && tproc__file(p, i) != NULL;
	}
	return n;
}

static pid_t child(void)
{
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		pause();
		_exit(0);
	}
	return pid;
}

Test(target, one_open_per_identity_across_processes)
{
	struct tmodel *m = tmodel__new();
	pid_t kid = child();
	const struct tfiles_stats *st;
	uint64_t files_self, opens_self;

	cr_assert_not_null(m);
	cr_assert_gt(resolve_all(m, getpid()), 2);
	st = tfiles__stats(tmodel__files(m));
	files_self = st->files;
	opens_self = st->opens;
	cr_assert_eq(st->opens, st->files, "each identity opened once: %lu opens, %lu files",
		     (unsigned long)st->opens, (unsigned long)st->files);
	/* A forked child maps the same files: no new identity, no new open. */
	resolve_all(m, kid);
	cr_assert_eq(st->files, files_self);
	cr_assert_eq(st->opens, opens_self);
	cr_assert_eq(st->reopens, 0);
	/* The vDSO: one read per process, one image for both. */
	cr_assert_eq(tmodel__stats(m)->vdso_reads, 2);
	cr_assert_eq(st->images, 1);
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	tmodel__delete(m);
}

/* The same file mapped by two processes is one entry; parts are set once. */
Test(target, same_entry_and_parts)
{
	struct tmodel *m = tmodel__new();
	pid_t kid = child();
	struct tproc *a = tmodel__proc(m, getpid()), *b = tmodel__proc(m, kid);
	uint64_t addr = (uint64_t)(uintptr_t)&resolve_all;	/* our own text */
	ssize_t ia = tproc__find(a, addr), ib = tproc__find(b, addr);
	struct tfile *fa, *fb;
	static int dropped;
	uint64_t bias;

	cr_assert_geq(ia, 0);
	cr_assert_geq(ib, 0);
	fa = tproc__file(a, (size_t)ia);
	fb = tproc__file(b, (size_t)ib);
	cr_assert_not_null(fa);
	cr_assert_eq(fa, fb);
	cr_assert_geq(tfile__fd(fa), 0);
	cr_assert_not(tfile__has(fa, TF_SYMBOLS));
	tfile__set(fa, TF_SYMBOLS, &dropped, NULL);
	tfile__set(fa, TF_SYMBOLS, NULL, NULL);		/* ignored: set once */
	cr_assert_eq(tfile__part(fa, TF_SYMBOLS), &dropped);
	/* Our own text: vaddr = pc - bias lies inside the file's PT_LOADs. */
	cr_assert_eq(tproc__bias(a, (size_t)ia, &bias), 0);
	cr_assert_gt(tfile__loads(fa)->n, 0);
	tfile__set(fa, TF_UNWIND, NULL, NULL);
	tfile__set(fa, TF_LUAJIT, NULL, NULL);
	tfile__set(fa, TF_FUNCS, NULL, NULL);
	cr_assert_eq(tfiles__stats(tmodel__files(m))->reopens, 0);
	/* Every part there: the fd is closed; asking again reopens it (counted). */
	cr_assert_geq(tfile__fd(fa), 0);
	cr_assert_eq(tfiles__stats(tmodel__files(m))->reopens, 1);
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	tmodel__delete(m);
}

/* Equal images are one entry; the buffer of a duplicate is taken and freed. */
Test(target, images_by_content)
{
	struct tfiles *c = tfiles__new();
	char *a = strdup("not an ELF image"), *b = strdup("not an ELF image");
	char *d = strdup("another image");
	struct tfile *fa = tfiles__of_image(c, a, strlen(a));
	struct tfile *fb = tfiles__of_image(c, b, strlen(b));
	struct tfile *fd = tfiles__of_image(c, d, strlen(d));
	size_t len;

	cr_assert_eq(fa, fb);
	cr_assert_neq(fa, fd);
	cr_assert_eq(tfiles__stats(c)->images, 2);
	cr_assert_eq(tfile__loads(fa)->n, 0);
	cr_assert_not_null(tfile__image(fa, &len));
	cr_assert_eq(len, strlen("not an ELF image"));
	cr_assert_eq(tfile__fd(fa), -1);
	tfiles__delete(c);
}

/* A process that is gone keeps its last maps. */
Test(target, exited_process_keeps_maps)
{
	struct tmodel *m = tmodel__new();
	pid_t kid = child();
	struct tproc *p = tmodel__proc(m, kid);
	size_t n = tproc__maps(p)->n;

	cr_assert_gt(n, 0);
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	cr_assert_lt(tproc__refresh(p, 0), 0);
	cr_assert_eq(tproc__maps(p)->n, n);
	tmodel__delete(m);
}

/* Its root directory stays open in the model after it exits: files of its
** mount namespace (debug files, perf maps) are still found after the PID is gone. */
Test(target, exited_process_keeps_its_root)
{
	char path[] = "/tmp/luatop-root-XXXXXX";
	struct tmodel *m = tmodel__new();
	pid_t kid = child();
	struct tproc *p = tmodel__proc(m, kid);
	struct stat want, got;
	int tmp = mkstemp(path), fd;

	cr_assert_geq(tmp, 0);
	cr_assert_eq(fstat(tmp, &want), 0);
	cr_assert_gt(tproc__maps(p)->n, 0);
	cr_assert_geq(tproc__root(p), 0, "no root directory held after a read of the maps");
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	cr_assert_lt(tproc__refresh(p, 0), 0);
	cr_assert_lt(mapfile__open_in_root(kid, path), 0, "/proc/PID/root outlived the process");
	fd = mapfile__open_at_root(tproc__root(p), path);
	cr_assert_geq(fd, 0, "%s not found in the exited process's root", path);
	cr_assert_eq(fstat(fd, &got), 0);
	cr_assert(got.st_dev == want.st_dev && got.st_ino == want.st_ino);
	close(fd);
	close(tmp);
	unlink(path);
	tmodel__delete(m);
}
