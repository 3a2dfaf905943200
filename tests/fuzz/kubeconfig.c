/*
 * fuzz kubeconfig: config_kubeconfig_load() on a kubeconfig file.
 *
 * The input is the file's text. It is written to a private temporary
 * directory that also holds the files a kubeconfig may name by relative
 * path (ca.crt, client.crt, client.key, token), so that loads can
 * succeed; the directory is removed at exit. Current context only.
 *
 * Invariants beyond "no crash" (and no leak, under ASan):
 *   - a failure says what is wrong and leaves the struct empty;
 *   - a success has an http(s) server URL without a trailing '/', a URL
 *     base, a source, a client certificate and key both or neither, and
 *     no PEM item given both as a path and as bytes;
 *   - what the token and key files hold never reaches a message;
 *   - freeing twice is safe, as the header promises.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <unistd.h>

#include "config/kubeconfig.h"
#include "tests/fuzz/fuzz.h"

#define FILE_TOKEN "FiLeSeCrEtToKeN"
#define FILE_KEY "FILEKEYSECRET"

static char dir[PATH_MAX - 64];
static const char *const files[][2] = {
	{ "ca.crt",
	  "-----BEGIN CERTIFICATE-----\nQ0E=\n-----END CERTIFICATE-----\n" },
	{ "client.crt", "-----BEGIN CERTIFICATE-----\nQ0VSVA==\n-----END "
			"CERTIFICATE-----\n" },
	{ "client.key", "-----BEGIN PRIVATE KEY-----\n" FILE_KEY
			"\n-----END PRIVATE KEY-----\n" },
	{ "token", FILE_TOKEN "\n" },
};

static void put(const char *name, const void *data, size_t n)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, data, n) != (ssize_t)n) {
		perror(p);
		abort();
	}
	close(fd);
}

static void cleanup(void)
{
	char p[PATH_MAX];
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, files[i][0]);
		unlink(p);
	}
	snprintf(p, sizeof(p), "%s/config", dir);
	unlink(p);
	rmdir(dir);
}

static void setup(void)
{
	/* tmpfs when there is one: a write per input */
	const char *base = access("/dev/shm", W_OK) ? NULL : "/dev/shm";
	if (!base)
		base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(dir, sizeof(dir), "%s/fuzz-kubeconfig-XXXXXX", base);
	if (!mkdtemp(dir)) {
		perror(dir);
		abort();
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		put(files[i][0], files[i][1], strlen(files[i][1]));
	atexit(cleanup);
}

static bool pem_set(const struct config_pem *p)
{
	FUZZ_CHECK(!(p->path && p->data));
	return p->path || p->data;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dir[0])
		setup();
	put("config", data, size);
	char path[PATH_MAX], err[1024] = "";
	snprintf(path, sizeof(path), "%s/config", dir);
	struct config_upstream up;
	int rc =
		config_kubeconfig_load(path, NULL, true, &up, err, sizeof(err));
	FUZZ_CHECK(rc <= 0);
	/* (unless the input itself holds those bytes, to be echoed back) */
	if (!memmem(data, size, FILE_TOKEN, strlen(FILE_TOKEN)) &&
	    !memmem(data, size, FILE_KEY, strlen(FILE_KEY)))
		FUZZ_CHECK(!strstr(err, FILE_TOKEN) && !strstr(err, FILE_KEY));
	if (rc) {
		FUZZ_CHECK(err[0]);
		FUZZ_CHECK(!up.server && !up.token && !up.token_file &&
			   !up.source);
		FUZZ_CHECK(!pem_set(&up.ca) && !pem_set(&up.cert) &&
			   !pem_set(&up.key));
	} else {
		FUZZ_CHECK(up.server && up.url_base && up.source);
		FUZZ_CHECK(!strncmp(up.server, "https://", 8) ||
			   !strncmp(up.server, "http://", 7));
		size_t n = strlen(up.server);
		FUZZ_CHECK(n && up.server[n - 1] != '/');
		FUZZ_CHECK(pem_set(&up.cert) == pem_set(&up.key));
		(void)pem_set(&up.ca);
	}
	config_upstream_free(&up);
	config_upstream_free(&up);
	return 0;
}
