/*
 * fake_tls: HTTPS material, bearer tokens and client certificates (see
 * fake_tls.h).
 *
 * libmicrohttpd does the TLS with GnuTLS. Given a trust list
 * (MHD_OPTION_HTTPS_MEM_TRUST) it asks for a client certificate but does
 * not check it, so the check is done here with
 * gnutls_certificate_verify_peers2() on the connection's session. That
 * one function is looked up at run time in the GnuTLS that
 * libmicrohttpd itself loaded, so the fake needs no link flag of its own
 * for it.
 *
 * Token comparison is constant time; tokens are never logged.
 */
#include "fake_tls.h"

#include <gnutls/gnutls.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config/alloc.h"
#include "config/buf.h"
#include "config/log.h"

#define MAX_TOKENS 8
#define MAX_TOKEN_LEN 4096

typedef int (*verify_fn)(gnutls_session_t session, unsigned *status);

static struct {
	char *cert, *key, *ca; /* PEM text */
	char *token;	       /* --token */
	const char *token_file;
	bool auth; /* any credential required */
	verify_fn verify;
	/* the token file's tokens, reloaded when its stat changes */
	pthread_mutex_t mu;
	struct stat seen;
	char *file_tokens[MAX_TOKENS];
	int nfile;
} tls = { .mu = PTHREAD_MUTEX_INITIALIZER };

static char *read_file(const char *path, const char *flag, char *err,
		       size_t errlen)
{
	FILE *f = fopen(path, "r");
	struct buf b = BUF_INIT;
	char chunk[4096];
	size_t n;

	if (!f) {
		snprintf(err, errlen, "%s %s: %s", flag, path, strerror(errno));
		return NULL;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&b, chunk, n);
	fclose(f);
	buf_addc(&b, '\0');
	if (!buf_ok(&b) || b.len < 2) {
		snprintf(err, errlen, "%s %s: empty or unreadable", flag, path);
		buf_free(&b);
		return NULL;
	}
	return buf_steal(&b, &n);
}

static void free_file_tokens(void)
{
	for (int i = 0; i < tls.nfile; i++)
		free(tls.file_tokens[i]);
	tls.nfile = 0;
}

/* Re-read the token file when its inode, size or mtime changed. A file
 * that cannot be read keeps the last tokens. Call with tls.mu held. */
static void reload_tokens(void)
{
	struct stat st;
	char err[256];

	if (stat(tls.token_file, &st) != 0)
		return;
	if (tls.nfile && st.st_ino == tls.seen.st_ino &&
	    st.st_size == tls.seen.st_size &&
	    st.st_mtim.tv_sec == tls.seen.st_mtim.tv_sec &&
	    st.st_mtim.tv_nsec == tls.seen.st_mtim.tv_nsec)
		return;
	char *text =
		read_file(tls.token_file, "--token-file", err, sizeof(err));
	if (!text)
		return;
	free_file_tokens();
	for (char *p = text, *line; (line = strsep(&p, "\n"));) {
		size_t n = strlen(line);
		while (n && (line[n - 1] == '\r' || line[n - 1] == ' '))
			line[--n] = '\0';
		while (*line == ' ')
			line++;
		if (*line && tls.nfile < MAX_TOKENS)
			tls.file_tokens[tls.nfile++] = xstrdup(line);
	}
	free(text);
	tls.seen = st;
	log_v(1, "token file reloaded: %d token(s)", tls.nfile);
}

int fake_tls_setup(const struct fake_tls_opts *o, char *err, size_t errlen)
{
	if (!o->cert_file != !o->key_file) {
		snprintf(err, errlen, "--tls-cert and --tls-key go together");
		return -EINVAL;
	}
	if (o->client_ca_file && !o->cert_file) {
		snprintf(err, errlen, "--client-ca needs --tls-cert/--tls-key");
		return -EINVAL;
	}
	if (o->cert_file) {
		if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
			snprintf(err, errlen,
				 "this libmicrohttpd has no TLS "
				 "support; cannot serve --tls-cert");
			return -ENOTSUP;
		}
		if (!(tls.cert = read_file(o->cert_file, "--tls-cert", err,
					   errlen)) ||
		    !(tls.key =
			      read_file(o->key_file, "--tls-key", err, errlen)))
			goto fail;
	}
	if (o->client_ca_file) {
		if (!(tls.ca = read_file(o->client_ca_file, "--client-ca", err,
					 errlen)))
			goto fail;
		tls.verify = gnutls_certificate_verify_peers2;
		if (!tls.verify) {
			snprintf(err, errlen,
				 "--client-ca: GnuTLS's "
				 "gnutls_certificate_verify_peers2 not found");
			goto fail;
		}
	}
	if (o->token && !(tls.token = xstrdup(o->token)))
		goto fail;
	if (o->token_file) {
		tls.token_file = o->token_file;
		pthread_mutex_lock(&tls.mu);
		reload_tokens();
		pthread_mutex_unlock(&tls.mu);
		if (!tls.nfile) {
			snprintf(err, errlen, "--token-file %s: no token in it",
				 o->token_file);
			goto fail;
		}
	}
	tls.auth = o->token || o->token_file || o->client_ca_file;
	return 0;
fail:
	fake_tls_free();
	return -EINVAL;
}

void fake_tls_free(void)
{
	free(tls.cert);
	free(tls.key);
	free(tls.ca);
	free(tls.token);
	free_file_tokens();
	tls.cert = tls.key = tls.ca = tls.token = NULL;
	tls.auth = false;
}

bool fake_tls_on(void)
{
	return tls.cert != NULL;
}

unsigned fake_tls_mhd_flags(void)
{
	return tls.cert ? MHD_USE_TLS : 0;
}

void fake_tls_mhd_options(struct MHD_OptionItem *items, int *n)
{
	if (!tls.cert)
		return;
	items[(*n)++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0,
						 tls.cert };
	items[(*n)++] =
		(struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0, tls.key };
	if (tls.ca)
		items[(*n)++] =
			(struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_TRUST, 0,
						 tls.ca };
}

static bool same(const char *a, const char *b, size_t blen)
{
	size_t alen = strlen(a);
	unsigned char d = alen != blen;
	for (size_t i = 0; i < blen; i++)
		d |= (unsigned char)(a[i % (alen ? alen : 1)] ^ b[i]);
	return d == 0;
}

bool fake_tls_token_ok(const char *t, size_t n)
{
	if (!n || n >= MAX_TOKEN_LEN)
		return false;
	bool ok = tls.token && same(tls.token, t, n);
	if (!ok && tls.token_file) {
		pthread_mutex_lock(&tls.mu);
		reload_tokens();
		for (int i = 0; i < tls.nfile; i++)
			ok |= same(tls.file_tokens[i], t, n);
		pthread_mutex_unlock(&tls.mu);
	}
	return ok;
}

bool fake_tls_client_cert_ok(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci;
	unsigned status = ~0u;

	if (!tls.ca || !tls.verify)
		return false;
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (!ci || !ci->tls_session)
		return false;
	/* fails with no certificate; status 0 means it chains to the CA and
	 * is in its validity period */
	return tls.verify(ci->tls_session, &status) == 0 && status == 0;
}

bool fake_tls_auth_required(void)
{
	return tls.auth;
}
