/*
 * creds: the run-time side of struct config_upstream (see creds.h):
 * the token file cache and its rotation, and the startup description.
 * Applying them to a transfer is cache/upstream_creds.c.
 *
 * A token file is re-read when stat() says it changed, and at least once
 * a minute, under up->lock; a failed read forgets the old token, so a
 * revoked one is never sent again. Token bytes are wiped before they are
 * freed, and no message or description ever carries them.
 */
#include "config/creds.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config/alloc.h"
#include "config/error.h"
#include "config/read.h"

#define TOKEN_RECHECK_SECONDS 60

static void wipe_str(char *s)
{
	if (!s)
		return;
	explicit_bzero(s, strlen(s));
	free(s);
}

/* ---- token --------------------------------------------------------------- */

bool config_creds_token_valid(const char *s)
{
	for (; *s; s++)
		if (*s <= ' ' || *s == 0x7f)
			return false;
	return true;
}

bool config_creds_has_token(const struct config_upstream *up)
{
	/* atomic: a SIGHUP reload may swap either pointer (override.c) */
	return __atomic_load_n(&up->token, __ATOMIC_ACQUIRE) ||
	       __atomic_load_n(&up->token_file, __ATOMIC_ACQUIRE);
}

static int copy_token(const char *t, char *out, size_t outlen)
{
	size_t n = strlen(t);
	if (n >= outlen)
		return -ERANGE;
	memcpy(out, t, n + 1);
	return 0;
}

static time_t now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

/* Re-read the token file if it changed. Call with up->lock held. */
static int token_refresh(struct config_upstream *up)
{
	struct stat st;
	char *text = NULL;
	size_t len = 0;
	int rc;

	if (stat(up->token_file, &st) == 0 && up->cached_token &&
	    st.st_dev == up->tok_dev && st.st_ino == up->tok_ino &&
	    st.st_size == up->tok_size &&
	    st.st_mtim.tv_sec == up->tok_mtime.tv_sec &&
	    st.st_mtim.tv_nsec == up->tok_mtime.tv_nsec &&
	    now_seconds() - up->tok_read_at < TOKEN_RECHECK_SECONDS)
		return 0;
	/* Whatever happens next, the old token is not handed out again. */
	wipe_str(up->cached_token);
	up->cached_token = NULL;
	rc = config_read_file(up->token_file, CONFIG_TOKEN_MAX_BYTES, &text,
			      &len, &st);
	if (rc) {
		if (rc == -EFBIG)
			snprintf(up->tok_err, sizeof(up->tok_err),
				 "token file %s: larger than %d KiB",
				 up->token_file, CONFIG_TOKEN_MAX_BYTES >> 10);
		else
			snprintf(up->tok_err, sizeof(up->tok_err),
				 "token file %s: cannot read: %s",
				 up->token_file, strerror(-rc));
		return rc;
	}
	size_t b = 0, e = len;
	while (b < e && isspace((unsigned char)text[b]))
		b++;
	while (e > b && isspace((unsigned char)text[e - 1]))
		e--;
	text[e] = '\0';
	if (b == e) {
		rc = -EINVAL;
		snprintf(up->tok_err, sizeof(up->tok_err),
			 "token file %s is empty", up->token_file);
	} else if (!config_creds_token_valid(text + b)) {
		rc = -EINVAL;
		snprintf(up->tok_err, sizeof(up->tok_err),
			 "token file %s: the token contains spaces or control "
			 "characters",
			 up->token_file);
	} else if (!(up->cached_token = xstrdup(text + b))) {
		rc = -ENOMEM;
		snprintf(up->tok_err, sizeof(up->tok_err), "out of memory");
	} else {
		up->tok_dev = st.st_dev;
		up->tok_ino = st.st_ino;
		up->tok_size = st.st_size;
		up->tok_mtime = st.st_mtim;
		up->tok_read_at = now_seconds();
		up->tok_err[0] = '\0';
	}
	explicit_bzero(text, len);
	free(text);
	return rc;
}

int config_creds_token_get(struct config_upstream *up, char *out, size_t outlen)
{
	int rc;
	if (outlen)
		out[0] = '\0';
	/* Under the lock even for a literal token: a reload may swap it. */
	pthread_mutex_lock(&up->lock);
	if (up->token) {
		rc = copy_token(up->token, out, outlen);
	} else if (!up->token_file) {
		rc = -ENOENT;
	} else {
		rc = token_refresh(up);
		if (!rc)
			rc = copy_token(up->cached_token, out, outlen);
	}
	pthread_mutex_unlock(&up->lock);
	return rc;
}

int config_creds_token_reread(struct config_upstream *up)
{
	int rc = -ENOENT;
	pthread_mutex_lock(&up->lock);
	if (up->token_file) {
		up->tok_read_at = now_seconds() - TOKEN_RECHECK_SECONDS - 1;
		rc = token_refresh(up);
	}
	pthread_mutex_unlock(&up->lock);
	return rc;
}

void config_creds_token_explain(struct config_upstream *up, char *out,
				size_t outlen)
{
	if (!outlen)
		return;
	if (!up->token_file) {
		out[0] = '\0';
		return;
	}
	pthread_mutex_lock(&up->lock);
	snprintf(out, outlen, "%s", up->tok_err);
	pthread_mutex_unlock(&up->lock);
}

int config_creds_token_check(struct config_upstream *up, const char *prefix,
			     char *err, size_t errlen)
{
	char tok[1];
	if (!up->token_file || up->token)
		return 0;
	int rc = config_creds_token_get(up, tok, 0);
	if (rc == -ERANGE || rc == 0)
		return 0;
	if (rc == -ENOMEM)
		config_error_format(err, errlen, "out of memory");
	else
		config_error_format(err, errlen, "%s%s", prefix, up->tok_err);
	return rc;
}

/* ---- describe ---------------------------------------------------------- */

static const char *pem_desc(const struct config_pem *p, char *tmp,
			    size_t tmplen, const char *none)
{
	if (p->path)
		snprintf(tmp, tmplen, "file %s", p->path);
	else if (p->data)
		snprintf(tmp, tmplen, "data from kubeconfig (%zu bytes)",
			 p->len);
	else
		snprintf(tmp, tmplen, "%s", none);
	return tmp;
}

void config_creds_describe(const struct config_upstream *up, char *out,
			   size_t outlen)
{
	char ca[PATH_MAX + 32], auth[PATH_MAX + 64], tls[300] = "";
	bool https = up->server && strncmp(up->server, "https://", 8) == 0;

	if (up->tls_server_name)
		snprintf(tls, sizeof(tls), ", tls-server-name %s",
			 up->tls_server_name);
	if (!https)
		snprintf(ca, sizeof(ca), "none (plain http)");
	else if (up->insecure_skip_tls_verify)
		snprintf(ca, sizeof(ca), "not verified");
	else
		pem_desc(&up->ca, ca, sizeof(ca), "system roots");
	size_t used = 0;
	auth[0] = '\0';
	if (up->token)
		used += (size_t)snprintf(auth, sizeof(auth), "bearer token");
	else if (up->token_file)
		used += (size_t)snprintf(auth, sizeof(auth),
					 "bearer token from file %s",
					 up->token_file);
	if (up->cert.path || up->cert.data)
		snprintf(auth + used, sizeof(auth) - used,
			 "%sclient certificate %s", used ? " + " : "",
			 up->cert.path ? up->cert.path : "(data)");
	else if (!used)
		snprintf(auth, sizeof(auth), "none");
	snprintf(out, outlen, "upstream %s (%s)%s, CA: %s, auth: %s%s%s",
		 up->server ? up->server : "(none)",
		 up->source ? up->source : "?", tls, ca, auth,
		 https && up->insecure_skip_tls_verify ?
			 "; WARNING: insecure-skip-tls-verify, the server's "
			 "certificate is not checked" :
			 "",
		 !https && config_creds_has_token(up) ?
			 "; WARNING: the token is sent over plain http" :
			 "");
}
