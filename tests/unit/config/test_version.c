/*
 * test_version: the release and commit the Makefile compiles into
 * config/version.c: the release is the VERSION file's line, the commit a
 * full git hash (or empty outside a git checkout), and neither is the
 * fallback a build without them would show.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "config/version.h"
#include "check.h"

/* VERSION's first line, from the repository root the tests run in. */
static const char *version_file(void)
{
	static char line[64];
	FILE *f = fopen("VERSION", "r");
	line[0] = '\0';
	if (!f)
		return NULL;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	line[strcspn(line, "\r\n")] = '\0';
	return line;
}

static void test_release(void)
{
	const char *v = config_version_release(), *want = version_file();
	CHECK(v != NULL && v[0] != '\0');
	CHECK(strcmp(v, "unknown") != 0);
	CHECK(want != NULL);
	if (want)
		CHECK_STR(v, want);
	/* a static string: the same pointer every time */
	CHECK(config_version_release() == v);
}

static void test_commit(void)
{
	const char *c = config_version_commit();
	size_t n = c ? strlen(c) : 0, hex = 0;
	CHECK(c != NULL);
	for (size_t i = 0; i < n; i++)
		hex += isxdigit((unsigned char)c[i]) &&
		       !isupper((unsigned char)c[i]);
	/* "" outside a git checkout, else SHA-1's (or SHA-256's) hex */
	CHECK(n == 0 || ((n == 40 || n == 64) && hex == n));
	CHECK(config_version_commit() == c);
}

int main(void)
{
	test_release();
	test_commit();
	return check_done("version");
}
