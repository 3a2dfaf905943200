/*
 * override: command-line overrides and SIGHUP reloads of the upstream's
 * credentials (see override.h).
 *
 * The running threads read live->token, live->token_file and the token
 * cache under live->lock (config/creds.c); those are the only fields a
 * reload writes, under that lock. The rest of the struct is read without
 * a lock by every transfer, so a reload only compares it.
 */
#include "config/override.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/alloc.h"
#include "config/creds.h"
#include "config/error.h"

static void wipe_free(char *s)
{
	if (!s)
		return;
	explicit_bzero(s, strlen(s));
	free(s);
}

/* An absolute path for a file that can be read now, or NULL with err. */
static char *readable(const char *flag, const char *path, char *err,
		      size_t errlen)
{
	char abs[PATH_MAX];
	if (!realpath(path, abs) || access(abs, R_OK)) {
		config_error_format(err, errlen, "--%s %s: %s", flag, path,
				    strerror(errno));
		return NULL;
	}
	char *r = xstrdup(abs);
	if (!r)
		config_error_format(err, errlen, "out of memory");
	return r;
}

/* ", what" (or "what" first) onto the description in d. */
static void note(char *d, size_t dlen, const char *what)
{
	size_t n = strlen(d);
	/* a description cut short is still a fine log line */
	if (n + 1 < dlen &&
	    snprintf(d + n, dlen - n, "%s%s", n ? ", " : "", what) < 0)
		d[n] = '\0';
}

int config_override_apply(struct config_upstream *up, const char *ca_file,
			  bool insecure, const char *token_file, char *err,
			  size_t errlen)
{
	char desc[128] = "";
	if (ca_file && insecure) {
		config_error_format(
			err, errlen,
			"--certificate-authority and "
			"--insecure-skip-tls-verify exclude each other: "
			"verify with the CA, or do not verify at all");
		return -EINVAL;
	}
	if (ca_file) {
		char *path =
			readable("certificate-authority", ca_file, err, errlen);
		if (!path)
			return -ENOENT;
		free(up->ca.path);
		free(up->ca.data);
		up->ca = (struct config_pem){ .path = path };
		up->insecure_skip_tls_verify = false;
		note(desc, sizeof(desc), "CA from --certificate-authority");
	}
	if (insecure) {
		free(up->ca.path);
		free(up->ca.data);
		up->ca = (struct config_pem){ 0 };
		up->insecure_skip_tls_verify = true;
		note(desc, sizeof(desc), "--insecure-skip-tls-verify");
	}
	if (token_file) {
		char *path = readable("token-file", token_file, err, errlen);
		if (!path)
			return -ENOENT;
		pthread_mutex_lock(&up->lock);
		wipe_free(up->token);
		up->token = NULL;
		free(up->token_file);
		up->token_file = path;
		pthread_mutex_unlock(&up->lock);
		int rc = config_creds_token_reread(up);
		if (rc) {
			config_creds_token_explain(up, err, errlen);
			return rc;
		}
		note(desc, sizeof(desc), "token from --token-file");
	}
	if (desc[0]) {
		size_t n = (up->source ? strlen(up->source) : 0) +
			   strlen(desc) + 3;
		char *s = xmalloc(n);
		if (!s) {
			config_error_format(err, errlen, "out of memory");
			return -ENOMEM;
		}
		snprintf(s, n, "%s%s%s", up->source ? up->source : "",
			 up->source ? ", " : "", desc);
		free(up->source);
		up->source = s;
	}
	return 0;
}

static bool str_differ(const char *a, const char *b)
{
	return (!a != !b) || (a && strcmp(a, b));
}

static bool pem_differ(const struct config_pem *a, const struct config_pem *b)
{
	return str_differ(a->path, b->path) || a->len != b->len ||
	       (!a->data != !b->data) ||
	       (a->data && memcmp(a->data, b->data, a->len));
}

/* Publish the string at *with as live's field *at, under live->lock,
 * where the running threads read it (config/creds.c); the string it
 * replaces goes back to *with, whose owner frees it. */
static void swap_locked(struct config_upstream *live, char **at, char **with)
{
	pthread_mutex_lock(&live->lock);
	char *old = *at;
	__atomic_store_n(at, *with, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&live->lock);
	*with = old;
}

int config_override_reload(struct config_upstream *live,
			   struct config_upstream *fresh, char *msg,
			   size_t msglen)
{
	char kept[256] = "", done[256] = "";
	int rc = 0;
	if (str_differ(live->server, fresh->server))
		note(kept, sizeof(kept), "server");
	if (str_differ(live->tls_server_name, fresh->tls_server_name))
		note(kept, sizeof(kept), "tls-server-name");
	if (live->insecure_skip_tls_verify != fresh->insecure_skip_tls_verify)
		note(kept, sizeof(kept), "insecure-skip-tls-verify");
	/* Files named here are read per connection, so a new file at the
	 * same path is in use already; only another path or inline data
	 * needs the restart. */
	if (pem_differ(&live->ca, &fresh->ca))
		note(kept, sizeof(kept), "certificate-authority");
	if (pem_differ(&live->cert, &fresh->cert) ||
	    pem_differ(&live->key, &fresh->key))
		note(kept, sizeof(kept), "client certificate");
	if (!live->token != !fresh->token ||
	    !live->token_file != !fresh->token_file) {
		note(kept, sizeof(kept), "kind of credential");
	} else if (fresh->token) {
		if (strcmp(live->token, fresh->token)) {
			/* the old one is wiped with fresh below */
			swap_locked(live, &live->token, &fresh->token);
			note(done, sizeof(done), "new token");
		} else {
			note(done, sizeof(done), "token unchanged");
		}
	} else if (fresh->token_file) {
		if (strcmp(live->token_file, fresh->token_file)) {
			swap_locked(live, &live->token_file,
				    &fresh->token_file);
		}
		rc = config_creds_token_reread(live);
		if (rc) {
			char why[256];
			config_creds_token_explain(live, why, sizeof(why));
			note(done, sizeof(done), why);
		} else {
			char what[PATH_MAX + 32];
			snprintf(what, sizeof(what), "token file %s re-read",
				 live->token_file);
			note(done, sizeof(done), what);
		}
	} else {
		note(done, sizeof(done), "no token");
	}
	snprintf(msg, msglen, "%s%s%s%s", done,
		 kept[0] ? "; changed but not applied (restart to apply): " :
			   "",
		 kept, "");
	config_upstream_free(fresh);
	return rc;
}
