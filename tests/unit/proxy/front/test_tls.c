/*
 * test_tls: the --listen daemon's serving certificate
 * (proxy/front/tls.c). Keys and certificates are made at test time with
 * OpenSSL's C API in a mkdtemp directory, removed at the end.
 *
 * Covered: the daemon options; every load error (missing, unreadable,
 * oversized, not PEM, unsorted chain, encrypted key, key of another
 * certificate) naming the file and never quoting its content; RSA and EC
 * keys in PKCS#8, PKCS#1 and SEC1; one serving certificate per process;
 * a live TLS daemon on 127.0.0.1:0 that a client verifies against the
 * test CA (and rejects with another CA, or when the certificate has
 * expired); rotation on disk picked up within a second, a broken rotation
 * keeping the previous pair with one warning, a half-written one (key
 * not yet matching) waited for silently, a Secret volume's ..data
 * symlink swap followed; allocation failure.
 */
#include <curl/curl.h>
#include <fcntl.h>
#include <limits.h>
#include <microhttpd.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include "config/alloc.h"
#include "proxy/front/tls.h"
#include "certs.h"
#include "check.h"

static char dir[256];
static char pathbuf[8][PATH_MAX];
static int pathi;

/* dir/name, in one of a few rotating buffers. */
static const char *at(const char *name)
{
	char *p = pathbuf[pathi++ % 8];
	snprintf(p, PATH_MAX, "%s/%s", dir, name);
	return p;
}

/* ---- making keys and certificates ---- */

static EVP_PKEY *key_ec(void)
{
	return EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
}

static EVP_PKEY *key_rsa(void)
{
	return EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048);
}

/* A certificate for key, CN cn, signed by (ica, ikey), or self-signed
 * when ica is NULL; valid from nb to na seconds from now; a leaf is for
 * IP 127.0.0.1. */
static X509 *cert_make(EVP_PKEY *key, const char *cn, long serial, X509 *ica,
		       EVP_PKEY *ikey, long nb, long na, bool ca)
{
	return test_cert_make(key, cn, serial, ica, ikey, nb, na,
			      ca ? NULL : "IP:127.0.0.1");
}

static void write_certs(const char *path, X509 *a, X509 *b)
{
	FILE *f = fopen(path, "w");
	PEM_write_X509(f, a);
	if (b)
		PEM_write_X509(f, b);
	fclose(f);
}

enum key_form {
	PKCS8,
	TRADITIONAL,
	ENCRYPTED
};

static void write_key(const char *path, EVP_PKEY *k, enum key_form form)
{
	FILE *f = fopen(path, "w");
	fchmod(fileno(f), 0600);
	BIO *b = BIO_new_fp(f, BIO_NOCLOSE);
	if (form == TRADITIONAL)
		PEM_write_bio_PrivateKey_traditional(b, k, NULL, NULL, 0, NULL,
						     NULL);
	else
		PEM_write_bio_PrivateKey(
			b, k, form == ENCRYPTED ? EVP_aes_128_cbc() : NULL,
			(unsigned char *)"pw", form == ENCRYPTED ? 2 : 0, NULL,
			NULL);
	BIO_free(b);
	fclose(f);
}

static void write_text(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	fputs(s, f);
	fclose(f);
}

/* Replace dst by src in one step, as a rotation should. */
static void swap_in(const char *src, const char *dst)
{
	CHECK(rename(src, dst) == 0);
}

static EVP_PKEY *ca_key, *other_ca_key, *k1, *k2, *k3, *krsa;
static X509 *ca, *other_ca, *impostor_ca, *c1, *c2, *c3, *crsa, *cexpired;

static void make_material(void)
{
	ca_key = key_ec();
	other_ca_key = key_ec();
	k1 = key_ec();
	k2 = key_ec();
	k3 = key_ec();
	krsa = key_rsa();
	ca = cert_make(ca_key, "test-ca", 1, NULL, NULL, -3600, 86400, true);
	other_ca = cert_make(other_ca_key, "other-ca", 1, NULL, NULL, -3600,
			     86400, true);
	impostor_ca = cert_make(other_ca_key, "test-ca", 1, NULL, NULL, -3600,
				86400, true);
	c1 = cert_make(k1, "leaf-1", 0x1001, ca, ca_key, -3600, 86400, false);
	c2 = cert_make(k2, "leaf-2", 0x1002, ca, ca_key, -3600, 86400, false);
	c3 = cert_make(k3, "leaf-3", 0x1003, ca, ca_key, -3600, 86400, false);
	crsa = cert_make(krsa, "leaf-rsa", 0x1004, ca, ca_key, -3600, 86400,
			 false);
	cexpired = cert_make(k1, "leaf-expired", 0x1005, ca, ca_key, -7200,
			     -3600, false);
	write_certs(at("ca.crt"), ca, NULL);
	write_certs(at("other-ca.crt"), other_ca, NULL);
	write_certs(at("1.crt"), c1, ca);
	write_key(at("1.key"), k1, PKCS8);
	write_certs(at("2.crt"), c2, NULL);
	write_key(at("2.key"), k2, TRADITIONAL); /* SEC1 */
	write_certs(at("3.crt"), c3, ca);
	write_key(at("3.key"), k3, PKCS8);
	write_certs(at("rsa.crt"), crsa, ca);
	write_key(at("rsa.key"), krsa, TRADITIONAL); /* PKCS#1 */
	write_key(at("rsa8.key"), krsa, PKCS8);
	write_key(at("enc.key"), k1, ENCRYPTED);
	write_certs(at("unsorted.crt"), ca, c1);
	write_certs(at("expired.crt"), cexpired, ca);
	CHECK(ca && c1 && c2 && c3 && crsa && cexpired);
}

static void free_material(void)
{
	EVP_PKEY *ks[] = { ca_key, other_ca_key, k1, k2, k3, krsa };
	X509 *xs[] = { ca, other_ca, impostor_ca, c1, c2, c3, crsa, cexpired };
	for (size_t i = 0; i < sizeof(ks) / sizeof(*ks); i++)
		EVP_PKEY_free(ks[i]);
	for (size_t i = 0; i < sizeof(xs) / sizeof(*xs); i++)
		X509_free(xs[i]);
}

/* ---- stderr capture, for what is logged ---- */

static int cap_fd = -1, cap_saved = -1;
static char cap_path[PATH_MAX];

static void capture_begin(void)
{
	snprintf(cap_path, sizeof(cap_path), "%s/log-XXXXXX", dir);
	cap_fd = mkstemp(cap_path);
	cap_saved = dup(2);
	fflush(stderr);
	dup2(cap_fd, 2);
}

static void capture_end(char *out, size_t len)
{
	fflush(stderr);
	dup2(cap_saved, 2);
	close(cap_saved);
	ssize_t n = pread(cap_fd, out, len - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	close(cap_fd);
	unlink(cap_path);
}

static int count_of(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* ---- load errors ---- */

static struct proxy_tls *load(const char *cert, const char *key, char *err,
			      size_t len)
{
	err[0] = '\0';
	return proxy_tls_new(cert, key, err, len);
}

static void test_options(void)
{
	struct MHD_OptionItem o[PROXY_TLS_NOPTS];
	memset(o, 0xff, sizeof(o));
	CHECK(proxy_tls_daemon_options(NULL, o) == 0);
	CHECK(o[0].option == MHD_OPTION_END);

	char err[512];
	struct proxy_tls *t = load(at("1.crt"), at("1.key"), err, sizeof(err));
	CHECK(t != NULL);
	memset(o, 0xff, sizeof(o));
	CHECK(proxy_tls_daemon_options(t, o) == MHD_USE_TLS);
	CHECK(o[0].option == MHD_OPTION_HTTPS_CERT_CALLBACK2 && o[0].ptr_value);
	CHECK(o[1].option == MHD_OPTION_END);
	proxy_tls_free(t);
	proxy_tls_free(NULL);
}

static void expect_error(const char *cert, const char *key, const char *want,
			 const char *secret)
{
	char err[1024];
	struct proxy_tls *t = load(cert, key, err, sizeof(err));
	CHECK(t == NULL);
	if (t)
		proxy_tls_free(t);
	if (!strstr(err, want)) {
		CHECK_COUNT(check_failed);
		fprintf(stderr, "%s:%d: error \"%s\" lacks \"%s\"\n", __FILE__,
			__LINE__, err, want);
	} else {
		CHECK_COUNT(check_passed);
	}
	if (secret)
		CHECK(strstr(err, secret) == NULL);
}

static void test_load_errors(void)
{
	char want[PATH_MAX + 256];
	snprintf(want, sizeof(want),
		 "--tls-cert-file %s: cannot read it: No such file "
		 "or directory",
		 at("nope.crt"));
	expect_error(at("nope.crt"), at("1.key"), want, NULL);
	snprintf(want, sizeof(want),
		 "--tls-private-key-file %s: cannot read it: No "
		 "such file or directory",
		 at("nope.key"));
	expect_error(at("1.crt"), at("nope.key"), want, NULL);

	/* not a certificate, and what it holds is never quoted */
	write_text(at("junk.crt"), "SECRET-CERT-MARKER not a certificate\n");
	snprintf(want, sizeof(want),
		 "--tls-cert-file %s: not a PEM certificate chain, "
		 "leaf first",
		 at("junk.crt"));
	expect_error(at("junk.crt"), at("1.key"), want, "SECRET-CERT-MARKER");
	write_text(at("empty.crt"), "");
	expect_error(at("empty.crt"), at("1.key"),
		     "not a PEM certificate chain", NULL);
	/* the key first, then the certificate: still not a chain */
	expect_error(at("1.key"), at("1.key"), "not a PEM certificate chain",
		     "BEGIN PRIVATE KEY");
	/* CA first, leaf second: refused rather than serve the wrong one */
	expect_error(at("unsorted.crt"), at("1.key"),
		     "not a PEM certificate chain, "
		     "leaf first",
		     NULL);

	write_text(at("junk.key"), "-----BEGIN PRIVATE KEY-----\n"
				   "U0VDUkVULUtFWS1NQVJLRVI=SECRET-KEY-MARKER\n"
				   "-----END PRIVATE KEY-----\n");
	snprintf(want, sizeof(want),
		 "--tls-private-key-file %s: not an unencrypted PEM "
		 "private key",
		 at("junk.key"));
	expect_error(at("1.crt"), at("junk.key"), want, "SECRET-KEY-MARKER");
	expect_error(at("1.crt"), at("enc.key"),
		     "not an unencrypted PEM private key", NULL);
	/* a certificate where the key should be */
	expect_error(at("1.crt"), at("1.crt"),
		     "not an unencrypted PEM private key", NULL);

	/* a valid key, of another certificate */
	snprintf(want, sizeof(want),
		 "--tls-private-key-file %s is not the key of the "
		 "first certificate in --tls-cert-file %s",
		 at("2.key"), at("1.crt"));
	expect_error(at("1.crt"), at("2.key"), want, NULL);
	/* the CA's key matches a certificate in the chain, not the leaf */
	write_key(at("ca.key"), ca_key, PKCS8);
	expect_error(at("1.crt"), at("ca.key"),
		     "is not the key of the first "
		     "certificate",
		     NULL);

	/* bigger than 1 MiB: not read whole, whatever it starts with */
	FILE *f = fopen(at("big.crt"), "w");
	PEM_write_X509(f, c1);
	while (ftell(f) <= (1 << 20))
		fputs("# padding padding padding padding padding padding padding pad\n",
		      f);
	fclose(f);
	expect_error(at("big.crt"), at("1.key"),
		     "cannot read it: File too large", NULL);
	/* a directory */
	expect_error(dir, at("1.key"), "--tls-cert-file", NULL);
	/* unreadable (not when running as root, who reads anything) */
	if (geteuid() != 0) {
		write_key(at("locked.key"), k1, PKCS8);
		chmod(at("locked.key"), 0);
		expect_error(at("1.crt"), at("locked.key"),
			     "cannot read it: Permission "
			     "denied",
			     NULL);
	}
}

/* Every key form the header promises; one pair per process. */
static void test_load_forms(void)
{
	char err[1024];
	const char *pairs[][2] = {
		{ "1.crt", "1.key" },	   /* EC, PKCS#8, with its CA */
		{ "2.crt", "2.key" },	   /* EC, SEC1, leaf alone */
		{ "rsa.crt", "rsa.key" },  /* RSA, PKCS#1 */
		{ "rsa.crt", "rsa8.key" }, /* RSA, PKCS#8 */
		{ "expired.crt",
		  "1.key" }, /* expired: served; clients refuse it */
	};
	for (size_t i = 0; i < sizeof(pairs) / sizeof(*pairs); i++) {
		struct proxy_tls *t = load(at(pairs[i][0]), at(pairs[i][1]),
					   err, sizeof(err));
		CHECK(t != NULL);
		if (!t)
			fprintf(stderr, "  %s %s: %s\n", pairs[i][0],
				pairs[i][1], err);
		proxy_tls_free(t);
	}

	struct proxy_tls *t = load(at("1.crt"), at("1.key"), err, sizeof(err));
	CHECK(t != NULL);
	struct proxy_tls *t2 = load(at("2.crt"), at("2.key"), err, sizeof(err));
	CHECK(t2 == NULL);
	CHECK_STR(err, "TLS: only one serving certificate per process");
	proxy_tls_free(t2);
	proxy_tls_free(t);
	/* once freed, another may be made */
	t2 = load(at("2.crt"), at("2.key"), err, sizeof(err));
	CHECK(t2 != NULL);
	proxy_tls_free(t2);
}

/* ---- a live daemon ---- */

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **state)
{
	static const char body[] = "ok";
	struct MHD_Response *r = MHD_create_response_from_buffer(
		2, (void *)body, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret = MHD_queue_response(c, 200, r);
	MHD_destroy_response(r);
	return ret;
}

static int port;

static struct MHD_Daemon *daemon_start(struct proxy_tls *t)
{
	struct MHD_OptionItem o[PROXY_TLS_NOPTS];
	unsigned flags = proxy_tls_daemon_options(t, o);
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct MHD_Daemon *d = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | flags, 0, NULL, NULL,
		on_request, NULL, MHD_OPTION_SOCK_ADDR, &a, MHD_OPTION_ARRAY, o,
		MHD_OPTION_END);
	const union MHD_DaemonInfo *i =
		d ? MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT) : NULL;
	port = i ? i->port : 0;
	return d;
}

/* A fresh TLS connection verified against cafile: curl's result, and the
 * served leaf's subject in subject. */
static CURLcode fetch(const char *cafile, char *subject, size_t len)
{
	CURL *h = curl_easy_init();
	char url[64];
	snprintf(url, sizeof(url), "https://127.0.0.1:%d/", port);
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_CAINFO, cafile);
	curl_easy_setopt(h, CURLOPT_CERTINFO, 1L);
	curl_easy_setopt(h, CURLOPT_FORBID_REUSE, 1L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, 10L);
	FILE *null = fopen("/dev/null", "w");
	curl_easy_setopt(h, CURLOPT_WRITEDATA, null);
	CURLcode rc = curl_easy_perform(h);
	subject[0] = '\0';
	struct curl_certinfo *ci = NULL;
	if (rc == CURLE_OK && !curl_easy_getinfo(h, CURLINFO_CERTINFO, &ci) &&
	    ci && ci->num_of_certs > 0)
		for (struct curl_slist *s = ci->certinfo[0]; s; s = s->next)
			if (!strncmp(s->data, "Subject:", 8))
				snprintf(subject, len, "%s", s->data + 8);
	long code = 0;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	if (rc == CURLE_OK && code != 200)
		rc = CURLE_HTTP_RETURNED_ERROR;
	fclose(null);
	curl_easy_cleanup(h);
	return rc;
}

static bool serves(const char *cn)
{
	char subject[256];
	CURLcode rc = fetch(at("ca.crt"), subject, sizeof(subject));
	bool ok = rc == CURLE_OK && strstr(subject, cn);
	if (!ok)
		fprintf(stderr, "  wanted %s: curl %d, subject \"%s\"\n", cn,
			rc, subject);
	return ok;
}

static void wait_check(void)
{
	usleep(1150 * 1000); /* past CHECK_MS */
}

static void test_serve_and_rotate(void)
{
	char err[1024], log[16384];
	/* the served files: copies, so that the originals stay for later */
	write_certs(at("live.crt"), c1, ca);
	write_key(at("live.key"), k1, PKCS8);
	struct proxy_tls *t =
		load(at("live.crt"), at("live.key"), err, sizeof(err));
	CHECK(t != NULL);
	if (!t)
		return;
	struct MHD_Daemon *d = daemon_start(t);
	CHECK(d != NULL && port > 0);
	if (!d) {
		proxy_tls_free(t);
		return;
	}
	char subject[256];
	CHECK(serves("leaf-1"));
	/* a client that trusts another CA refuses it */
	CURLcode rc = fetch(at("other-ca.crt"), subject, sizeof(subject));
	CHECK(rc == CURLE_PEER_FAILED_VERIFICATION);
	if (rc != CURLE_PEER_FAILED_VERIFICATION)
		fprintf(stderr, "  other CA: curl %d\n", rc);
	/* nor one whose CA has the same name and another key */
	write_certs(at("impostor-ca.crt"), impostor_ca, NULL);
	CHECK(fetch(at("impostor-ca.crt"), subject, sizeof(subject)) !=
	      CURLE_OK);
	CHECK(subject[0] == '\0');

	/* rotation: the new pair from the next handshake after a check */
	write_certs(at("new.crt"), c2, ca);
	write_key(at("new.key"), k2, PKCS8);
	capture_begin();
	swap_in(at("new.key"), at("live.key"));
	swap_in(at("new.crt"), at("live.crt"));
	wait_check();
	bool rotated = serves("leaf-2");
	capture_end(log, sizeof(log));
	CHECK(rotated);
	CHECK(strstr(log, "TLS: reloaded the serving certificate from") !=
	      NULL);
	CHECK(strstr(log, "serial 1002") != NULL);

	/* a broken certificate: the previous pair stays, one warning that
	 * names the file and does not quote it */
	capture_begin();
	write_text(at("new.crt"), "SECRET-ROTATION-MARKER\n");
	swap_in(at("new.crt"), at("live.crt"));
	wait_check();
	bool kept = serves("leaf-2");
	wait_check();
	kept = kept && serves("leaf-2");
	capture_end(log, sizeof(log));
	CHECK(kept);
	CHECK(count_of(log, "not a PEM certificate chain") == 1);
	CHECK(strstr(log, "still serving the previous certificate") != NULL);
	CHECK(strstr(log, "SECRET-ROTATION-MARKER") == NULL);

	/* half a rotation: a new certificate, its key not written yet.
	 * Silent while fresh; the old pair served; then the key lands. */
	capture_begin();
	write_certs(at("new.crt"), c3, ca);
	swap_in(at("new.crt"), at("live.crt"));
	wait_check();
	kept = serves("leaf-2");
	write_key(at("new.key"), k3, PKCS8);
	swap_in(at("new.key"), at("live.key"));
	wait_check();
	rotated = serves("leaf-3");
	capture_end(log, sizeof(log));
	CHECK(kept);
	CHECK(rotated);
	CHECK(strstr(log, "is not the key of") == NULL);
	CHECK(strstr(log, "warning") == NULL);

	/* rotated to an expired certificate: served as it is on disk, and a
	 * verifying client refuses it */
	write_certs(at("new.crt"), cexpired, ca);
	write_key(at("new.key"), k1, PKCS8);
	swap_in(at("new.key"), at("live.key"));
	swap_in(at("new.crt"), at("live.crt"));
	wait_check();
	CHECK(fetch(at("ca.crt"), subject, sizeof(subject)) ==
	      CURLE_PEER_FAILED_VERIFICATION);

	/* the files gone: the previous pair goes on */
	unlink(at("live.crt"));
	wait_check();
	CHECK(fetch(at("ca.crt"), subject, sizeof(subject)) ==
	      CURLE_PEER_FAILED_VERIFICATION); /* still the expired one */

	MHD_stop_daemon(d);
	proxy_tls_free(t);
}

/* A Kubernetes Secret volume: tls.crt -> ..data/tls.crt, ..data -> a
 * timestamped directory, and an update swaps the ..data link. The files
 * the flags name never change themselves; what they resolve to does. */
static void test_secret_volume(void)
{
	char err[1024];
	mkdir(at("vol"), 0700);
	mkdir(at("vol/..2026_a"), 0700);
	mkdir(at("vol/..2026_b"), 0700);
	write_certs(at("vol/..2026_a/tls.crt"), c1, ca);
	write_key(at("vol/..2026_a/tls.key"), k1, PKCS8);
	write_certs(at("vol/..2026_b/tls.crt"), c3, ca);
	write_key(at("vol/..2026_b/tls.key"), k3, PKCS8);
	CHECK(symlink("..2026_a", at("vol/..data")) == 0);
	CHECK(symlink("..data/tls.crt", at("vol/tls.crt")) == 0);
	CHECK(symlink("..data/tls.key", at("vol/tls.key")) == 0);
	struct proxy_tls *t =
		load(at("vol/tls.crt"), at("vol/tls.key"), err, sizeof(err));
	CHECK(t != NULL);
	struct MHD_Daemon *d = t ? daemon_start(t) : NULL;
	CHECK(d != NULL);
	if (!d) {
		proxy_tls_free(t);
		return;
	}
	CHECK(serves("leaf-1"));
	/* the kubelet's swap: a new link renamed over ..data */
	CHECK(symlink("..2026_b", at("vol/..data_tmp")) == 0);
	CHECK(rename(at("vol/..data_tmp"), at("vol/..data")) == 0);
	wait_check();
	CHECK(serves("leaf-3"));
	MHD_stop_daemon(d);
	proxy_tls_free(t);
}

/* Out of memory anywhere in proxy_tls_new: NULL, an error, no leak. */
static void test_alloc(void)
{
	char err[1024];
	struct proxy_tls *t = NULL;
	int fails = 0;
	for (long n = 1; n < 40 && !t; n++) {
		alloc_fail_after(n);
		t = load(at("1.crt"), at("1.key"), err, sizeof(err));
		alloc_fail_after(0);
		if (!t) {
			fails++;
			CHECK(err[0] != '\0');
		}
	}
	CHECK(t != NULL);
	CHECK(fails >= 6);
	proxy_tls_free(t);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "%s/tls-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	make_material();
	test_options();
	test_load_errors();
	test_load_forms();
	test_serve_and_rotate();
	test_secret_volume();
	test_alloc();
	free_material();
	curl_global_cleanup();
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return check_done("tls");
}
