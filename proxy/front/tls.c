/*
 * tls: the serving certificate of the --listen daemon, loaded from
 * PEM files and reloaded when they change (see tls.h).
 *
 * libmicrohttpd is built with GnuTLS. Rather than hand it the PEM bytes
 * once (MHD_OPTION_HTTPS_MEM_CERT/KEY, fixed for the daemon's life), we
 * give it a certificate callback (MHD_OPTION_HTTPS_CERT_CALLBACK2, a
 * gnutls_certificate_retrieve_function3) that GnuTLS calls in every
 * handshake. The callback
 *   - at most once a second, stats both files and, when either changed,
 *     loads the new pair and publishes it (one thread at a time: the
 *     others go on with the current pair rather than wait);
 *   - under an RCU read-side section, copies the current pair (DER bytes
 *     re-imported) into objects the session owns, returned with
 *     GNUTLS_CERT_RETR_DEINIT_ALL so that GnuTLS frees them with the
 *     session. The published pair is therefore only read for the copy,
 *     and can be freed after a grace period whatever connections remain.
 * A copy costs one parse of the chain and the key per full handshake,
 * which is small beside the handshake's own public-key operations.
 */
#include "proxy/front/tls.h"

#include <errno.h>
#include <gnutls/abstract.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cache/rcu.h"
#include "config/alloc.h"
#include "config/log.h"

#define CHECK_MS 1000	  /* the files are stat'ed at most this often */
#define SETTLE_S 3	  /* a mismatched pair this new may be half-written */
#define MAX_PEM (1 << 20) /* bigger files are not a certificate or a key */

/* A loaded pair, immutable once published. Freed after a grace period. */
struct pair {
	struct rcu_head rcu;
	unsigned ncerts;
	gnutls_datum_t *certs; /* DER, leaf first */
	gnutls_datum_t key;    /* PKCS#8 DER; wiped before it is freed */
};

/* What identifies a file's content without reading it. */
struct file_sig {
	int err; /* stat's errno, or 0 */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtim, ctim;
};

struct files_sig {
	struct file_sig cert, key;
};

struct proxy_tls {
	char *cert_file, *key_file;
	char *priorities; /* GnuTLS priority string, or NULL: its default */
	unsigned nsuites; /* the TLS 1.0-1.2 suites allowed */
	unsigned char suites[32];
	struct pair *cur;	     /* published: cache_rcu_load() */
	int64_t next_check_ms;	     /* atomic; CLOCK_MONOTONIC */
	pthread_mutex_t reload_lock; /* held by the one thread checking */
	/* guarded by reload_lock */
	struct files_sig loaded; /* the files when cur was loaded */
	struct files_sig failed; /* the last pair that failed to load */
	bool have_failed;	 /* (it was warned about once) */
};

/* The callback has no closure: the one struct proxy_tls of the process. */
static struct proxy_tls *active;

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sig_read(const char *path, struct file_sig *s)
{
	struct stat st;
	memset(s, 0, sizeof(*s));
	if (stat(path, &st)) {
		s->err = errno;
		return;
	}
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	s->size = st.st_size;
	s->mtim = st.st_mtim;
	s->ctim = st.st_ctim;
}

static bool file_sig_eq(const struct file_sig *a, const struct file_sig *b)
{
	return a->err == b->err && a->dev == b->dev && a->ino == b->ino &&
	       a->size == b->size && a->mtim.tv_sec == b->mtim.tv_sec &&
	       a->mtim.tv_nsec == b->mtim.tv_nsec &&
	       a->ctim.tv_sec == b->ctim.tv_sec &&
	       a->ctim.tv_nsec == b->ctim.tv_nsec;
}

static bool sig_eq(const struct files_sig *a, const struct files_sig *b)
{
	return file_sig_eq(&a->cert, &b->cert) && file_sig_eq(&a->key, &b->key);
}

static void files_sig_read(const struct proxy_tls *t, struct files_sig *s)
{
	sig_read(t->cert_file, &s->cert);
	sig_read(t->key_file, &s->key);
}

/* True when either file was written in the last SETTLE_S seconds. */
static bool recently_written(const struct files_sig *s)
{
	time_t now = time(NULL);
	return now - s->cert.mtim.tv_sec < SETTLE_S ||
	       now - s->key.mtim.tv_sec < SETTLE_S;
}

static void pair_free(struct pair *pr)
{
	if (!pr)
		return;
	for (unsigned i = 0; i < pr->ncerts; i++)
		gnutls_free(pr->certs[i].data);
	free(pr->certs);
	if (pr->key.data) {
		explicit_bzero(pr->key.data, pr->key.size);
		gnutls_free(pr->key.data);
	}
	free(pr);
}

static void pair_free_rcu(struct rcu_head *head)
{
	cache_rcu_callback();
	pair_free(caa_container_of(head, struct pair, rcu));
}

/* Copy pr into objects a TLS session owns: *certs from gnutls_malloc, as
 * GNUTLS_CERT_RETR_DEINIT_ALL requires. Only reads pr. Returns 0 or -1. */
static int pair_copy(const struct pair *pr, gnutls_pcert_st **certs,
		     unsigned *ncerts, gnutls_privkey_t *key)
{
	gnutls_pcert_st *pc = gnutls_malloc(pr->ncerts * sizeof(*pc));
	gnutls_privkey_t k = NULL;
	unsigned n = 0;
	if (!pc)
		return -1;
	for (; n < pr->ncerts; n++)
		if (gnutls_pcert_import_x509_raw(&pc[n], &pr->certs[n],
						 GNUTLS_X509_FMT_DER, 0) < 0)
			goto out_free;
	if (gnutls_privkey_init(&k) < 0)
		goto out_free;
	if (gnutls_privkey_import_x509_raw(k, &pr->key, GNUTLS_X509_FMT_DER,
					   NULL, 0) < 0)
		goto out_free;
	*certs = pc;
	*ncerts = n;
	*key = k;
	return 0;
out_free:
	if (k)
		gnutls_privkey_deinit(k);
	while (n)
		gnutls_pcert_deinit(&pc[--n]);
	gnutls_free(pc);
	return -1;
}

/* The whole of a small file, NUL-terminated, or -errno. */
static int slurp(const char *path, gnutls_datum_t *out)
{
	FILE *f = fopen(path, "rbe");
	if (!f)
		return -errno;
	unsigned char *buf = xmalloc(MAX_PEM + 1);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	size_t n = fread(buf, 1, MAX_PEM + 1, f);
	int rc = ferror(f) ? -EIO : n > MAX_PEM ? -EFBIG : 0;
	fclose(f);
	if (rc) {
		explicit_bzero(buf, n);
		free(buf);
		return rc;
	}
	buf[n] = '\0';
	out->data = buf;
	out->size = (unsigned)n;
	return 0;
}

static void wipe(gnutls_datum_t *d)
{
	if (d->data) {
		explicit_bzero(d->data, d->size);
		free(d->data);
	}
	d->data = NULL;
}

/* The leaf's serial (hex) and notAfter, for the log. */
static void describe(gnutls_x509_crt_t leaf, char *out, size_t len)
{
	unsigned char serial[64];
	size_t sn = sizeof(serial);
	char hex[2 * sizeof(serial) + 1] = "?";
	if (gnutls_x509_crt_get_serial(leaf, serial, &sn) == 0)
		for (size_t i = 0; i < sn; i++)
			sprintf(hex + 2 * i, "%02X", serial[i]);
	time_t exp = gnutls_x509_crt_get_expiration_time(leaf);
	struct tm tm;
	char when[32] = "?";
	if (exp != (time_t)-1 && gmtime_r(&exp, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(out, len, "serial %s, expires %s", hex, when);
}

/*
 * Load and check the pair: the chain parses, in order, the key parses
 * and is the leaf's. Returns the pair, or NULL with err set to one line
 * that names the file at fault (and never quotes it) and *mismatch true
 * when both parsed but do not belong together.
 */
static struct pair *pair_load(const char *cert_file, const char *key_file,
			      bool *mismatch, char *desc, size_t desclen,
			      char *err, size_t errlen)
{
	gnutls_datum_t pem = { NULL, 0 }, kpem = { NULL, 0 };
	gnutls_x509_crt_t *crts = NULL;
	unsigned ncrts = 0;
	gnutls_x509_privkey_t xkey = NULL;
	struct pair *pr = NULL, *ret = NULL;
	int rc;
	*mismatch = false;

	rc = slurp(cert_file, &pem);
	if (rc) {
		snprintf(err, errlen, "--tls-cert-file %s: cannot read it: %s",
			 cert_file, strerror(-rc));
		goto out;
	}
	rc = gnutls_x509_crt_list_import2(
		&crts, &ncrts, &pem, GNUTLS_X509_FMT_PEM,
		GNUTLS_X509_CRT_LIST_FAIL_IF_UNSORTED);
	if (rc < 0 || !ncrts) {
		snprintf(err, errlen,
			 "--tls-cert-file %s: not a PEM certificate "
			 "chain, leaf first (%s)",
			 cert_file,
			 rc < 0 ? gnutls_strerror(rc) : "no certificate in it");
		ncrts = 0;
		goto out;
	}
	rc = slurp(key_file, &kpem);
	if (rc) {
		snprintf(err, errlen,
			 "--tls-private-key-file %s: cannot read it: %s",
			 key_file, strerror(-rc));
		goto out;
	}
	if (gnutls_x509_privkey_init(&xkey) < 0 ||
	    (rc = gnutls_x509_privkey_import2(xkey, &kpem, GNUTLS_X509_FMT_PEM,
					      NULL, 0)) < 0) {
		snprintf(err, errlen,
			 "--tls-private-key-file %s: not an unencrypted "
			 "PEM private key (%s)",
			 key_file, gnutls_strerror(rc));
		goto out;
	}
	unsigned char cid[64], kid[64];
	size_t cn = sizeof(cid), kn = sizeof(kid);
	if (gnutls_x509_crt_get_key_id(crts[0], 0, cid, &cn) < 0 ||
	    gnutls_x509_privkey_get_key_id(xkey, 0, kid, &kn) < 0 || cn != kn ||
	    memcmp(cid, kid, cn)) {
		*mismatch = true;
		snprintf(err, errlen,
			 "--tls-private-key-file %s is not the key of the "
			 "first certificate in --tls-cert-file %s",
			 key_file, cert_file);
		goto out;
	}

	pr = xcalloc(1, sizeof(*pr));
	if (!pr || !(pr->certs = xcalloc(ncrts, sizeof(*pr->certs))))
		goto out_prepare;
	for (; pr->ncerts < ncrts; pr->ncerts++)
		if (gnutls_x509_crt_export2(crts[pr->ncerts],
					    GNUTLS_X509_FMT_DER,
					    &pr->certs[pr->ncerts]) < 0)
			goto out_prepare;
	/* PKCS#8, the DER form gnutls_privkey_import_x509_raw() reads back
	 * for every key type (an EC key's own DER form it does not). */
	if (gnutls_x509_privkey_export2_pkcs8(xkey, GNUTLS_X509_FMT_DER, NULL,
					      GNUTLS_PKCS_PLAIN, &pr->key) < 0)
		goto out_prepare;
	/* What every handshake will do, once now: a pair that cannot be
	 * copied fails here, not in front of a client. */
	gnutls_pcert_st *pc;
	unsigned npc;
	gnutls_privkey_t k;
	if (pair_copy(pr, &pc, &npc, &k))
		goto out_prepare;
	while (npc)
		gnutls_pcert_deinit(&pc[--npc]);
	gnutls_free(pc);
	gnutls_privkey_deinit(k);
	describe(crts[0], desc, desclen);
	ret = pr;
	pr = NULL; /* the caller owns it now */
	goto out;
out_prepare:
	snprintf(err, errlen,
		 "--tls-cert-file %s: cannot prepare the pair for "
		 "TLS (out of memory, or a key type GnuTLS cannot use)",
		 cert_file);
out:
	pair_free(pr);
	if (xkey)
		gnutls_x509_privkey_deinit(xkey);
	for (unsigned i = 0; i < ncrts; i++)
		gnutls_x509_crt_deinit(crts[i]);
	gnutls_free(crts);
	wipe(&kpem);
	wipe(&pem);
	return ret;
}

/* Reload the pair if the files changed since it was loaded. Call with
 * reload_lock held. */
static void check(struct proxy_tls *t)
{
	struct files_sig now;
	files_sig_read(t, &now);
	if (sig_eq(&now, &t->loaded) ||
	    (t->have_failed && sig_eq(&now, &t->failed)))
		return;
	char err[1024], desc[256];
	bool mismatch;
	struct pair *np = pair_load(t->cert_file, t->key_file, &mismatch, desc,
				    sizeof(desc), err, sizeof(err));
	if (!np) {
		/* A rotation that writes one file, then the other: look
		 * again at the next check rather than warn. */
		if (mismatch && recently_written(&now))
			return;
		t->failed = now;
		t->have_failed = true;
		log_warn("%s; still serving the previous certificate", err);
		return;
	}
	struct pair *old = cache_rcu_xchg(&t->cur, np);
	call_rcu(&old->rcu, pair_free_rcu);
	t->loaded = now;
	t->have_failed = false;
	log_info("TLS: reloaded the serving certificate from %s (%s)",
		 t->cert_file, desc);
}

static void maybe_reload(struct proxy_tls *t)
{
	int64_t now = now_ms();
	if (now < __atomic_load_n(&t->next_check_ms, __ATOMIC_RELAXED))
		return;
	if (pthread_mutex_trylock(&t->reload_lock))
		return; /* another handshake is checking */
	if (now >= __atomic_load_n(&t->next_check_ms, __ATOMIC_RELAXED)) {
		__atomic_store_n(&t->next_check_ms, now + CHECK_MS,
				 __ATOMIC_RELAXED);
		check(t);
	}
	pthread_mutex_unlock(&t->reload_lock);
}

/* GnuTLS, in a handshake, on a libmicrohttpd thread: the session's own
 * copy of the current pair. */
static int retrieve(gnutls_session_t session,
		    const struct gnutls_cert_retr_st *info,
		    gnutls_pcert_st **certs, unsigned *ncerts,
		    gnutls_ocsp_data_st **ocsp, unsigned *nocsp,
		    gnutls_privkey_t *key, unsigned *flags)
{
	struct proxy_tls *t = __atomic_load_n(&active, __ATOMIC_ACQUIRE);
	*ocsp = NULL;
	*nocsp = 0;
	*flags = GNUTLS_CERT_RETR_DEINIT_ALL;
	if (!t)
		return -1;
	maybe_reload(t);
	cache_rcu_lock();
	const struct pair *pr = cache_rcu_load(&t->cur);
	int rc = pr ? pair_copy(pr, certs, ncerts, key) : -1;
	cache_rcu_unlock();
	return rc;
}

struct proxy_tls *proxy_tls_new(const char *cert_file, const char *key_file,
				char *err, size_t errlen)
{
	struct proxy_tls *t = xcalloc(1, sizeof(*t));
	if (!t) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&t->reload_lock, NULL);
	t->cert_file = xstrdup(cert_file);
	t->key_file = xstrdup(key_file);
	if (!t->cert_file || !t->key_file) {
		snprintf(err, errlen, "out of memory");
		goto out_free;
	}
	/* stat before reading: a change in between is seen by the next check */
	files_sig_read(t, &t->loaded);
	char desc[256];
	bool mismatch;
	t->cur = pair_load(cert_file, key_file, &mismatch, desc, sizeof(desc),
			   err, errlen);
	if (!t->cur)
		goto out_free;
	struct proxy_tls *none = NULL;
	if (!__atomic_compare_exchange_n(&active, &none, t, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		snprintf(err, errlen,
			 "TLS: only one serving certificate per process");
		goto out_free;
	}
	t->next_check_ms = now_ms() + CHECK_MS;
	log_info("TLS: serving the certificate from %s (%s)", cert_file, desc);
	return t;
out_free:
	pair_free(t->cur);
	free(t->cert_file);
	free(t->key_file);
	pthread_mutex_destroy(&t->reload_lock);
	free(t);
	return NULL;
}

/* The apiserver's (Go's) names of the TLS 1.0-1.2 suites GnuTLS has. */
static const struct suite {
	const char *name;
	gnutls_kx_algorithm_t kx;
	gnutls_cipher_algorithm_t cipher;
	gnutls_mac_algorithm_t mac;
	const char *kx_s, *cipher_s, *mac_s; /* priority string tokens */
	bool dflt;			     /* Go's default */
} suites[] = {
#define S(n, k, c, m, ks, cs, ms, d)                                         \
	{                                                                    \
		n, GNUTLS_KX_##k, GNUTLS_CIPHER_##c, GNUTLS_MAC_##m, ks, cs, \
			ms, d                                                \
	}
	S("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", ECDHE_ECDSA, AES_128_GCM,
	  AEAD, "ECDHE-ECDSA", "AES-128-GCM", "AEAD", true),
	S("TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", ECDHE_ECDSA, AES_256_GCM,
	  AEAD, "ECDHE-ECDSA", "AES-256-GCM", "AEAD", true),
	S("TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", ECDHE_ECDSA,
	  CHACHA20_POLY1305, AEAD, "ECDHE-ECDSA", "CHACHA20-POLY1305", "AEAD",
	  true),
	S("TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305", ECDHE_ECDSA,
	  CHACHA20_POLY1305, AEAD, "ECDHE-ECDSA", "CHACHA20-POLY1305", "AEAD",
	  false),
	S("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", ECDHE_RSA, AES_128_GCM, AEAD,
	  "ECDHE-RSA", "AES-128-GCM", "AEAD", true),
	S("TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", ECDHE_RSA, AES_256_GCM, AEAD,
	  "ECDHE-RSA", "AES-256-GCM", "AEAD", true),
	S("TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", ECDHE_RSA,
	  CHACHA20_POLY1305, AEAD, "ECDHE-RSA", "CHACHA20-POLY1305", "AEAD",
	  true),
	S("TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305", ECDHE_RSA, CHACHA20_POLY1305,
	  AEAD, "ECDHE-RSA", "CHACHA20-POLY1305", "AEAD", false),
	S("TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", ECDHE_ECDSA, AES_128_CBC,
	  SHA1, "ECDHE-ECDSA", "AES-128-CBC", "SHA1", true),
	S("TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", ECDHE_ECDSA, AES_256_CBC,
	  SHA1, "ECDHE-ECDSA", "AES-256-CBC", "SHA1", true),
	S("TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", ECDHE_RSA, AES_128_CBC, SHA1,
	  "ECDHE-RSA", "AES-128-CBC", "SHA1", true),
	S("TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", ECDHE_RSA, AES_256_CBC, SHA1,
	  "ECDHE-RSA", "AES-256-CBC", "SHA1", true),
	S("TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", ECDHE_ECDSA, AES_128_CBC,
	  SHA256, "ECDHE-ECDSA", "AES-128-CBC", "SHA256", false),
	S("TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", ECDHE_RSA, AES_128_CBC,
	  SHA256, "ECDHE-RSA", "AES-128-CBC", "SHA256", false),
	S("TLS_RSA_WITH_AES_128_GCM_SHA256", RSA, AES_128_GCM, AEAD, "RSA",
	  "AES-128-GCM", "AEAD", false),
	S("TLS_RSA_WITH_AES_256_GCM_SHA384", RSA, AES_256_GCM, AEAD, "RSA",
	  "AES-256-GCM", "AEAD", false),
	S("TLS_RSA_WITH_AES_128_CBC_SHA", RSA, AES_128_CBC, SHA1, "RSA",
	  "AES-128-CBC", "SHA1", false),
	S("TLS_RSA_WITH_AES_256_CBC_SHA", RSA, AES_256_CBC, SHA1, "RSA",
	  "AES-256-CBC", "SHA1", false),
	S("TLS_RSA_WITH_AES_128_CBC_SHA256", RSA, AES_128_CBC, SHA256, "RSA",
	  "AES-128-CBC", "SHA256", false),
#undef S
};
#define NSUITES (sizeof(suites) / sizeof(suites[0]))

/* TLS 1.3's, which Go does not let one configure either: accepted and
 * ignored, as the apiserver does. */
static const char *const tls13_names[] = {
	"TLS_AES_128_GCM_SHA256",
	"TLS_AES_256_GCM_SHA384",
	"TLS_CHACHA20_POLY1305_SHA256",
};

/* Add tok to the priority list out (":+tok") unless it is there. */
static void add_token(char *out, size_t outlen, const char *tok)
{
	char want[64];
	snprintf(want, sizeof(want), ":+%s:", tok);
	size_t n = strlen(out);
	if (n + 1 < outlen) { /* look for it with a ':' after */
		out[n] = ':';
		out[n + 1] = '\0';
		bool have = strstr(out, want) != NULL;
		out[n] = '\0';
		if (have)
			return;
	}
	snprintf(out + n, outlen - n, ":+%s", tok);
}

int proxy_tls_configure(struct proxy_tls *t, const char *min_version,
			const char *cipher_suites, char *err, size_t errlen)
{
	static const struct {
		const char *name, *vers;
	} versions[] = {
		{ "VersionTLS10",
		  "+VERS-TLS1.3:+VERS-TLS1.2:+VERS-TLS1.1:+VERS-TLS1.0" },
		{ "VersionTLS11", "+VERS-TLS1.3:+VERS-TLS1.2:+VERS-TLS1.1" },
		{ "VersionTLS12", "+VERS-TLS1.3:+VERS-TLS1.2" },
		{ "VersionTLS13", "+VERS-TLS1.3" },
	};
	const char *vers = NULL;
	const char *mv =
		min_version && *min_version ? min_version : "VersionTLS12";
	for (size_t i = 0; i < sizeof(versions) / sizeof(*versions); i++)
		if (!strcmp(mv, versions[i].name))
			vers = versions[i].vers;
	if (!vers) {
		snprintf(err, errlen,
			 "--tls-min-version: want VersionTLS10, VersionTLS11, "
			 "VersionTLS12 or VersionTLS13, got \"%s\"",
			 mv);
		return -EINVAL;
	}
	unsigned char pick[NSUITES];
	unsigned npick = 0;
	if (!cipher_suites || !*cipher_suites) {
		for (unsigned i = 0; i < NSUITES; i++)
			if (suites[i].dflt)
				pick[npick++] = (unsigned char)i;
	}
	for (const char *p = cipher_suites ? cipher_suites : ""; *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		bool known = false;
		for (unsigned i = 0; i < NSUITES && !known; i++)
			if (strlen(suites[i].name) == len &&
			    !strncmp(suites[i].name, p, len)) {
				known = true;
				bool dup = false;
				for (unsigned k = 0; k < npick; k++)
					dup |= pick[k] == i;
				if (!dup)
					pick[npick++] = (unsigned char)i;
			}
		for (size_t i = 0; !known && i < 3; i++)
			known = strlen(tls13_names[i]) == len &&
				!strncmp(tls13_names[i], p, len);
		if (!known && len) {
			snprintf(err, errlen,
				 "--tls-cipher-suites: unknown or unsupported "
				 "suite \"%.*s\" (want IANA names such as "
				 "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256; "
				 "3DES and RC4 are not offered)",
				 (int)(len > 80 ? 80 : len), p);
			return -EINVAL;
		}
		p += len + (comma ? 1 : 0);
	}
	if (!npick) {
		snprintf(err, errlen,
			 "--tls-cipher-suites: no TLS 1.0-1.2 suite given");
		return -EINVAL;
	}
	if (!t)
		return 0;
	/* GnuTLS enables ciphers, MACs and key exchanges, not suites: the
	 * union of the parts of the suites (and TLS 1.3's AEAD ciphers) is
	 * enabled, and proxy_tls_suite_ok() refuses a TLS 1.2 session whose
	 * suite is not one of the list. */
	char prio[1024];
	snprintf(prio, sizeof(prio),
		 "NORMAL:%%SERVER_PRECEDENCE:-VERS-ALL:%s:-CIPHER-ALL:-MAC-ALL:"
		 "-KX-ALL",
		 vers);
	for (unsigned k = 0; k < npick; k++) {
		add_token(prio, sizeof(prio), suites[pick[k]].cipher_s);
		add_token(prio, sizeof(prio), suites[pick[k]].mac_s);
		add_token(prio, sizeof(prio), suites[pick[k]].kx_s);
	}
	add_token(prio, sizeof(prio), "AES-128-GCM");
	add_token(prio, sizeof(prio), "AES-256-GCM");
	add_token(prio, sizeof(prio), "CHACHA20-POLY1305");
	add_token(prio, sizeof(prio), "AEAD");
	gnutls_priority_t check;
	const char *where = NULL;
	if (gnutls_priority_init(&check, prio, &where) < 0) {
		snprintf(err, errlen, "TLS: GnuTLS refuses the priorities %s",
			 prio);
		return -EINVAL;
	}
	gnutls_priority_deinit(check);
	char *copy = xstrdup(prio);
	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	free(t->priorities);
	t->priorities = copy;
	memcpy(t->suites, pick, npick);
	t->nsuites = npick;
	return 0;
}

bool proxy_tls_suite_ok(const struct proxy_tls *t, void *session)
{
	gnutls_session_t s = session;
	if (!t || !s || gnutls_protocol_get_version(s) == GNUTLS_TLS1_3)
		return true;
	gnutls_kx_algorithm_t kx = gnutls_kx_get(s);
	gnutls_cipher_algorithm_t c = gnutls_cipher_get(s);
	gnutls_mac_algorithm_t m = gnutls_mac_get(s);
	for (unsigned i = 0; i < t->nsuites; i++) {
		const struct suite *su = &suites[t->suites[i]];
		if (su->kx == kx && su->cipher == c && su->mac == m)
			return true;
	}
	return false;
}

unsigned proxy_tls_daemon_options(struct proxy_tls *t,
				  struct MHD_OptionItem opts[PROXY_TLS_NOPTS])
{
	opts[0] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	if (!t)
		return 0;
	opts[0] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_CERT_CALLBACK2, 0,
					   (void *)&retrieve };
	opts[1] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	if (t->priorities) {
		opts[1] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_PRIORITIES,
						   0, t->priorities };
		opts[2] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	}
	return MHD_USE_TLS;
}

void proxy_tls_free(struct proxy_tls *t)
{
	if (!t)
		return;
	struct proxy_tls *self = t;
	__atomic_compare_exchange_n(&active, &self, NULL, false,
				    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
	struct pair *pr = cache_rcu_xchg(&t->cur, NULL);
	synchronize_rcu(); /* a late handshake may still be copying it */
	pair_free(pr);
	free(t->cert_file);
	free(t->key_file);
	free(t->priorities);
	pthread_mutex_destroy(&t->reload_lock);
	free(t);
}
