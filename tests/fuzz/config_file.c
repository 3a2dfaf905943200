/*
 * fuzz config_file: config_file_load() on a --config file's text.
 *
 * The input is written to a private temporary file, loaded, and checked.
 *
 * Invariants beyond "no crash" (and no leak, under ASan):
 *   - a failure names the file (FILE:L:C or "--config FILE") or says
 *     "out of memory", and leaves the struct empty;
 *   - a success has a non-empty resource in every entry, namespace lists
 *     of DNS labels without duplicates, stripFields that split into
 *     segments, and label keys (without metadata.labels.) for indexes;
 *   - a copy of each entry equals it, and freeing twice is safe.
 */
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include "config/file.h"
#include "tests/fuzz/fuzz.h"

static char path[PATH_MAX];

static void cleanup(void)
{
	unlink(path);
}

static bool dns_label(const char *s)
{
	size_t n = strlen(s);
	if (!n || n > 63 || s[0] == '-' || s[n - 1] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!path[0]) {
		const char *tmp = getenv("TMPDIR");
		snprintf(path, sizeof(path), "%s/fuzz-config-%d.yaml",
			 tmp && *tmp ? tmp : "/tmp", (int)getpid());
		atexit(cleanup);
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	FUZZ_CHECK(fd >= 0);
	FUZZ_CHECK(write(fd, data, size) == (ssize_t)size);
	close(fd);

	struct config_file f;
	char err[512] = "";
	int rc = config_file_load(path, &f, err, sizeof(err));
	if (rc) {
		FUZZ_CHECK(rc == -EINVAL || rc == -ENOMEM);
		FUZZ_CHECK(!strncmp(err, path, strlen(path)) ||
			   !strncmp(err, "--config ", 9) ||
			   !strcmp(err, "out of memory"));
		FUZZ_CHECK(!f.res && !f.nres && !f.globals && !f.nglobals);
		return 0;
	}
	for (int i = 0; i < f.nres; i++) {
		struct config_scope *s = &f.res[i];
		FUZZ_CHECK(s->resource && *s->resource && s->where);
		for (int k = 0; k < s->nnamespaces; k++) {
			FUZZ_CHECK(dns_label(s->namespaces[k]));
			for (int j = 0; j < k; j++)
				FUZZ_CHECK(strcmp(s->namespaces[j],
						  s->namespaces[k]));
		}
		FUZZ_CHECK(!s->nnamespaces || !s->namespaces[s->nnamespaces]);
		char seg[8][256];
		for (int k = 0; k < s->nstrip; k++)
			FUZZ_CHECK(config_file_path_split(s->strip[k], seg, 8) >
				   0);
		for (int k = 0; k < s->nindexes; k++) /* the key alone */
			FUZZ_CHECK(*s->indexes[k] &&
				   !strchr(s->indexes[k], ' '));
		FUZZ_CHECK(!s->label_selector || s->label_where);
		FUZZ_CHECK(!s->field_selector || s->field_where);
		struct config_scope c;
		if (!config_file_scope_copy(&c, s)) {
			FUZZ_CHECK(config_file_scope_equal(&c, s));
			config_file_scope_free(&c);
			config_file_scope_free(&c);
		}
	}
	for (int i = 0; i < f.nglobals; i++)
		FUZZ_CHECK(f.globals[i].key && f.globals[i].value &&
			   f.globals[i].where);
	config_file_free(&f);
	config_file_free(&f);
	return 0;
}
