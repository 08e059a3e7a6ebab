/*
** export/output.c: how -o and --every create their files.
*/
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "export/output.h"

static char dir[64];

static void setup(void)
{
	strcpy(dir, "/tmp/luatop-output-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

static const char *at(const char *name)
{
	static char path[2][128];
	static int k;

	k ^= 1;
	snprintf(path[k], sizeof(path[k]), "%s/%s", dir, name);
	return path[k];
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

static char *get(const char *path)
{
	static char buf[64];
	FILE *f = fopen(path, "r");
	size_t n;

	cr_assert_not_null(f, "%s", path);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

TestSuite(output, .init = setup, .fini = teardown);

Test(output, new_file_appears_only_at_commit)
{
	struct output_file o;
	char err[256];

	cr_assert_eq(output__open(at("a.folded"), &o, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(access(at("a.folded"), F_OK), -1);	/* not before the end */
	fputs("x 1\n", o.f);
	cr_assert_eq(output__commit(&o, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(get(at("a.folded")), "x 1\n");
}

Test(output, symlink_refused_and_untouched)
{
	struct output_file o;
	char err[256];

	put(at("target"), "secret");
	cr_assert_eq(symlink(at("target"), at("link")), 0);
	cr_assert_eq(output__open(at("link"), &o, err, sizeof(err)), -ELOOP);
	cr_assert(strstr(err, "symbolic link"), "%s", err);
	cr_assert_str_eq(get(at("target")), "secret");
}

Test(output, own_file_replaced_whole_with_its_mode)
{
	struct output_file o;
	struct stat st;
	char err[256];

	put(at("own"), "old contents that are longer");
	cr_assert_eq(chmod(at("own"), 0600), 0);
	cr_assert_eq(output__open(at("own"), &o, err, sizeof(err)), 0, "%s", err);
	fputs("new", o.f);
	cr_assert_eq(output__commit(&o, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(get(at("own")), "new");
	cr_assert_eq(stat(at("own"), &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600);
}

Test(output, discard_leaves_nothing)
{
	struct output_file o;
	char err[256], cmd[128];

	cr_assert_eq(output__open(at("gone"), &o, err, sizeof(err)), 0, "%s", err);
	fputs("partial", o.f);
	output__discard(&o);
	output__discard(&o);	/* twice is fine */
	snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A '%s')\"", dir);
	cr_assert_eq(system(cmd), 0, "files left in %s", dir);
}

Test(output, new_only_never_replaces)
{
	struct output_file o, p;
	char err[256];

	put(at("taken"), "first");
	cr_assert_eq(output__open_new(at("taken"), &o, err, sizeof(err)), -EEXIST);
	/* A file that appears while the profile is written is not replaced either. */
	cr_assert_eq(output__open_new(at("late"), &p, err, sizeof(err)), 0, "%s", err);
	put(at("late"), "theirs");
	fputs("ours", p.f);
	cr_assert_neq(output__commit(&p, err, sizeof(err)), 0);
	cr_assert_str_eq(get(at("late")), "theirs");
}

Test(output, write_error_reported)
{
	struct output_file o;
	char err[256];

	if (access("/dev/full", W_OK))
		cr_skip_test("no /dev/full");
	cr_assert_eq(output__open("/dev/full", &o, err, sizeof(err)), 0, "%s", err);
	fputs("x 1\n", o.f);
	cr_assert_eq(output__commit(&o, err, sizeof(err)), -ENOSPC);
	cr_assert(strstr(err, "No space left"), "%s", err);
}
