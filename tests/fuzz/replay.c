/*
 * replay: run a fuzz target over files, without libFuzzer.
 *
 *   fuzz_NAME              every file of tests/fuzz/corpus/NAME (the
 *                          directory is compiled in, relative to the
 *                          repository root, where tests/run.sh runs)
 *   fuzz_NAME PATH...      these files, or every file of these directories
 *                          (a crash artifact, say)
 *
 * Each input that comes back counts as passed; a crash or a broken
 * invariant aborts the program, so the file it names on stderr is the
 * one to look at. Ends with the unit tests' "N passed, N failed" line.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/fuzz/fuzz.h"

#ifndef FUZZ_NAME
#error "build with -DFUZZ_NAME=\"name\""
#endif

static int passed;

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	uint8_t *data = NULL;
	size_t len = 0, cap = 0, n;
	do {
		if (len == cap) {
			cap = cap ? cap * 2 : 4096;
			uint8_t *p = realloc(data, cap);
			if (!p) {
				fclose(f);
				free(data);
				return -1;
			}
			data = p;
		}
		n = fread(data + len, 1, cap - len, f);
		len += n;
	} while (n);
	fclose(f);
	/* Tell which input is running, so that a crash names it. */
	fprintf(stderr, "%s\n", path);
	/* A copy of exactly len bytes, so that ASan sees a read past it. */
	uint8_t *exact = malloc(len ? len : 1);
	if (!exact) {
		free(data);
		return -1;
	}
	memcpy(exact, data, len);
	free(data);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	passed++;
	return 0;
}

static int filter(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

static int run_path(const char *path)
{
	struct stat st;
	if (stat(path, &st)) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path);
	struct dirent **ents;
	int n = scandir(path, &ents, filter, alphasort);
	if (n < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	int rc = 0;
	for (int i = 0; i < n; i++) {
		char p[4096];
		snprintf(p, sizeof(p), "%s/%s", path, ents[i]->d_name);
		if (run_path(p))
			rc = -1;
		free(ents[i]);
	}
	free(ents);
	return rc;
}

int main(int argc, char **argv)
{
	int failed = 0;
	if (argc < 2) {
		if (run_path("tests/fuzz/corpus/" FUZZ_NAME))
			failed++;
	}
	for (int i = 1; i < argc; i++)
		if (run_path(argv[i]))
			failed++;
	if (passed == 0)
		failed++; /* an empty corpus tests nothing */
	printf("fuzz_%s: %d passed, %d failed\n", FUZZ_NAME, passed, failed);
	return failed ? 1 : 0;
}
