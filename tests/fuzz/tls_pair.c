/*
 * fuzz tls_pair: the serving certificate and key of --listen's HTTPS
 * (proxy_tls_new(): --tls-cert-file and --tls-private-key-file read,
 * parsed by GnuTLS, checked to belong together and prepared for a
 * handshake; a reload loads a changed pair the same way).
 *
 * The input: the certificate file, a NUL byte, the key file; without a
 * NUL byte both files hold the whole input (a PEM file of both is a
 * valid pair). The two files are written to a private directory, on
 * tmpfs when there is one, removed at exit. Logging is off.
 *
 * Invariants beyond "no crash" (and no leak, under ASan):
 *   - a failure says why in one line that names the flag of the file at
 *     fault and quotes nothing of the files (no PEM line, no byte of the
 *     key's base64);
 *   - a success can be freed, and a second pair loads after it (the one
 *     per process is released).
 */
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include "config/log.h"
#include "proxy/front/tls.h"
#include "tests/fuzz/fuzz.h"

static char dir[PATH_MAX - 64], cert[PATH_MAX], key[PATH_MAX];

static void put(const char *p, const void *data, size_t n)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || (n && write(fd, data, n) != (ssize_t)n)) {
		perror(p);
		abort();
	}
	close(fd);
}

static void cleanup(void)
{
	unlink(cert);
	unlink(key);
	rmdir(dir);
}

static void setup(void)
{
	const char *base = access("/dev/shm", W_OK) ? NULL : "/dev/shm";
	if (!base)
		base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(dir, sizeof(dir), "%s/fuzz-tls-XXXXXX", base);
	if (!mkdtemp(dir)) {
		perror(dir);
		abort();
	}
	snprintf(cert, sizeof(cert), "%s/tls.crt", dir);
	snprintf(key, sizeof(key), "%s/tls.key", dir);
	log_setup(LOG_TEXT, -1, "fuzz"); /* no line per input */
	atexit(cleanup);
}

/* Whether err quotes a PEM boundary, or 12 bytes of a base64 run of
 * f[0..n) that hold a digit, '+' or '/' (so not a word of a message). */
static bool quotes(const char *err, const uint8_t *f, size_t n)
{
	if (strstr(err, "-----"))
		return true;
	size_t run = 0, odd = 0; /* the run; since its last digit, + or / */
	for (size_t i = 0; i < n; i++) {
		bool b64 = (f[i] >= 'A' && f[i] <= 'Z') ||
			   (f[i] >= 'a' && f[i] <= 'z') ||
			   (f[i] >= '0' && f[i] <= '9') || f[i] == '+' ||
			   f[i] == '/';
		bool letter =
			b64 && ((f[i] | 0x20) >= 'a' && (f[i] | 0x20) <= 'z');
		run = b64 ? run + 1 : 0;
		odd = b64 && !letter ? 0 : odd + 1;
		if (run >= 12 && odd < 12 &&
		    memmem(err, strlen(err), f + i - 11, 12))
			return true;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dir[0])
		setup();
	const uint8_t *nul = memchr(data, '\0', size);
	const uint8_t *k = nul ? nul + 1 : data;
	size_t cn = nul ? (size_t)(nul - data) : size;
	size_t kn = nul ? size - cn - 1 : size;
	put(cert, data, cn);
	put(key, k, kn);

	char err[1024] = "";
	struct proxy_tls *t = proxy_tls_new(cert, key, err, sizeof(err));
	if (!t) {
		FUZZ_CHECK(err[0] && !strchr(err, '\n'));
		FUZZ_CHECK(strstr(err, "--tls-cert-file") ||
			   strstr(err, "--tls-private-key-file"));
		FUZZ_CHECK(!quotes(err, k, kn));
		FUZZ_CHECK(!quotes(err, data, cn));
		return 0;
	}
	proxy_tls_free(t);
	/* the slot is free again: the same pair loads a second time */
	t = proxy_tls_new(cert, key, err, sizeof(err));
	FUZZ_CHECK(t);
	proxy_tls_free(t);
	return 0;
}
