/*
 * upstream: the life of a struct config_upstream (see upstream.h), and
 * the rules for its server URL: which URLs are accepted, how a bare
 * host:port is read, and the URL and connect-to pair that tls-server-name
 * makes. Key and token bytes are wiped before they are freed.
 */
#include "config/upstream.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/alloc.h"
#include "config/error.h"

static void wipe_free(void *p, size_t n)
{
	if (!p)
		return;
	explicit_bzero(p, n);
	free(p);
}

static void wipe_str(char *s)
{
	if (s)
		wipe_free(s, strlen(s));
}

static void pem_free(struct config_pem *pem, bool secret)
{
	free(pem->path);
	if (secret)
		wipe_free(pem->data, pem->len);
	else
		free(pem->data);
	*pem = (struct config_pem){ 0 };
}

void config_upstream_init(struct config_upstream *up)
{
	*up = (struct config_upstream){ 0 };
	pthread_mutex_init(&up->lock, NULL);
	up->lock_ready = true;
}

void config_upstream_free(struct config_upstream *up)
{
	if (!up)
		return;
	free(up->server);
	free(up->tls_server_name);
	free(up->url_base);
	pem_free(&up->ca, false);
	pem_free(&up->cert, false);
	pem_free(&up->key, true);
	wipe_str(up->token);
	free(up->token_file);
	free(up->source);
	free(up->connect_to);
	wipe_str(up->cached_token);
	if (up->lock_ready)
		pthread_mutex_destroy(&up->lock);
	explicit_bzero(up->tok_err, sizeof(up->tok_err));
	*up = (struct config_upstream){ 0 };
}

/* ---- the server URL ---------------------------------------------------- */

int config_upstream_set_server(struct config_upstream *up, const char *url,
			       const char *what, char *err, size_t errlen)
{
	const char *sep = strstr(url, "://");
	size_t n = strlen(url);
	char *s;
	if (sep && strncmp(url, "https://", 8) != 0 &&
	    strncmp(url, "http://", 7) != 0) {
		config_error_format(
			err, errlen,
			"%s: server \"%s\": only http:// and https:// "
			"are supported",
			what, url);
		return -EINVAL;
	}
	while (n && url[n - 1] == '/')
		n--;
	size_t hostoff = sep ? (size_t)(sep - url) + 3 : 0;
	if (n <= hostoff || url[hostoff] == '/' || url[hostoff] == ':') {
		config_error_format(err, errlen,
				    "%s: server \"%s\" has no host", what, url);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		if ((unsigned char)url[i] <= ' ' || url[i] == 0x7f) {
			config_error_format(err, errlen,
					    "%s: server URL contains spaces or "
					    "control characters",
					    what);
			return -EINVAL;
		}
	}
	if (sep) {
		s = xstrndup(url, n);
	} else {
		s = xmalloc(n + 9);
		if (s)
			snprintf(s, n + 9, "https://%.*s", (int)n, url);
	}
	if (!s)
		return -ENOMEM;
	free(up->server);
	up->server = s;
	return 0;
}

int config_upstream_set_url_base(struct config_upstream *up)
{
	free(up->url_base);
	up->url_base = NULL;
	free(up->connect_to);
	up->connect_to = NULL;
	bool https = strncmp(up->server, "https://", 8) == 0;
	if (!up->tls_server_name || !https) {
		up->url_base = xstrdup(up->server);
		return up->url_base ? 0 : -ENOMEM;
	}
	/* https://HOST[:PORT][/path] with HOST possibly [v6] */
	const char *host = up->server + 8, *hend, *port = "443", *path;
	size_t portlen = 3;
	if (*host == '[') {
		hend = strchr(host, ']');
		hend = hend ? hend + 1 : host + strlen(host);
	} else {
		hend = host + strcspn(host, ":/");
	}
	path = hend + strcspn(hend, "/");
	if (*hend == ':') {
		port = hend + 1;
		portlen = (size_t)(path - port);
	}
	size_t n = strlen(up->tls_server_name) + portlen + strlen(path) + 16;
	char *base = xmalloc(n);
	size_t cn = strlen(up->tls_server_name) + 2 * portlen +
		    (size_t)(hend - host) + 4;
	char *ct = xmalloc(cn);
	int rc = -ENOMEM;
	if (!base || !ct)
		goto out;
	snprintf(base, n, "https://%s:%.*s%s", up->tls_server_name,
		 (int)portlen, port, path);
	snprintf(ct, cn, "%s:%.*s:%.*s:%.*s", up->tls_server_name, (int)portlen,
		 port, (int)(hend - host), host, (int)portlen, port);
	up->connect_to = ct;
	ct = NULL; /* up owns it now */
	up->url_base = base;
	base = NULL;
	rc = 0;
out:
	free(base);
	free(ct);
	return rc;
}
