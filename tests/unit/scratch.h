/*
 * scratch: a test binary's scratch directory and the files it writes
 * there. scratch_make() once at the start of main, scratch_remove() at
 * the end; a failure to make either is the test's failure (exit 2), not
 * a check.
 */
#ifndef TESTS_UNIT_SCRATCH_H
#define TESTS_UNIT_SCRATCH_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char scratch_dir[PATH_MAX - 64];

/* A fresh directory NAME-XXXXXX under $TMPDIR, or /tmp. */
static inline void scratch_make(const char *name)
{
	const char *t = getenv("TMPDIR");
	snprintf(scratch_dir, sizeof(scratch_dir), "%s/%s-XXXXXX",
		 t && *t ? t : "/tmp", name);
	if (!mkdtemp(scratch_dir)) {
		perror("mkdtemp");
		exit(2);
	}
}

/* The path of NAME in the directory; the last four stay valid. */
static inline const char *scratch_at(const char *name)
{
	static char p[4][PATH_MAX];
	static int i;
	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s", scratch_dir, name);
	return p[i];
}

/* Write n bytes of text to NAME, replacing it. */
static inline void scratch_put_n(const char *name, const void *text, size_t n)
{
	const char *p = scratch_at(name);
	FILE *f = fopen(p, "w");
	if (!f || fwrite(text, 1, n, f) != n) {
		perror(p);
		exit(2);
	}
	fclose(f);
}

static inline void scratch_put(const char *name, const char *text)
{
	scratch_put_n(name, text, strlen(text));
}

/* The directory and all in it. */
static inline void scratch_remove(void)
{
	char cmd[sizeof(scratch_dir) + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", scratch_dir);
}

#endif
