/*
 * upstream_creds: struct config_upstream applied to a libcurl handle (see
 * upstream_creds.h). The only libcurl code that handles credentials.
 */
#include "cache/upstream_creds.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/alloc.h"
#include "config/creds.h"

/*
 * The CONNECT_TO list for spec. libcurl keeps no copy of it and reads it
 * for as long as a transfer runs, while handles outlive any one request,
 * so each distinct spec is built once and kept for the life of the
 * process (a process has one upstream; tests load a few). NULL on
 * allocation failure.
 */
static struct curl_slist *connect_to_list(const char *spec)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static struct interned {
		struct interned *next;
		struct curl_slist *list;
	} * all;
	struct curl_slist *found = NULL;

	pthread_mutex_lock(&lock);
	for (struct interned *i = all; i && !found; i = i->next)
		if (!strcmp(i->list->data, spec))
			found = i->list;
	if (!found) {
		struct interned *i = xmalloc(sizeof(*i));
		if (i)
			i->list = curl_slist_append(NULL, spec);
		if (i && i->list) {
			i->next = all;
			all = i;
			found = i->list;
		} else {
			free(i);
		}
	}
	pthread_mutex_unlock(&lock);
	return found;
}

static int pem_curl(CURL *h, const struct config_pem *p, CURLoption file,
		    CURLoption blob)
{
	if (p->data) {
		struct curl_blob b = { p->data, p->len, CURL_BLOB_COPY };
		return curl_easy_setopt(h, blob, &b);
	}
	if (p->path)
		return curl_easy_setopt(h, file, p->path);
	return CURLE_OK;
}

int cache_upstream_creds_apply(const struct config_upstream *cup, CURL *h,
			       struct curl_slist **headers, bool with_token,
			       char *err, size_t errlen)
{
	/* Only the mutex-guarded token cache is written. */
	struct config_upstream *up = (struct config_upstream *)cup;
	CURLcode c = CURLE_OK;
	char hdr[CONFIG_TOKEN_MAX_BYTES + 32];
	const char *step = "";
	int rc;

	if (up->ca.path || up->ca.data) {
		/* Trust only this CA, as client-go does, not the system's. */
		step = "CA";
		c = curl_easy_setopt(h, CURLOPT_CAPATH, NULL);
		if (!c)
			c = curl_easy_setopt(h, CURLOPT_CAINFO, NULL);
		if (!c)
			c = pem_curl(h, &up->ca, CURLOPT_CAINFO,
				     CURLOPT_CAINFO_BLOB);
	}
	if (!c) {
		step = "TLS verification";
		long v = !up->insecure_skip_tls_verify;
		c = curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, v);
		if (!c)
			c = curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST,
					     v ? 2L : 0L);
	}
	/* The client certificate is the proxy's identity as much as its
	 * token: a request forwarded with a client's own credentials gets
	 * neither. */
	if (!c && with_token && (up->cert.path || up->cert.data)) {
		step = "client certificate";
		c = curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
		if (!c)
			c = pem_curl(h, &up->cert, CURLOPT_SSLCERT,
				     CURLOPT_SSLCERT_BLOB);
		if (!c)
			c = curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
		if (!c)
			c = pem_curl(h, &up->key, CURLOPT_SSLKEY,
				     CURLOPT_SSLKEY_BLOB);
	}
	if (!c && up->connect_to) {
		step = "tls-server-name";
		struct curl_slist *ct = connect_to_list(up->connect_to);
		if (!ct) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		c = curl_easy_setopt(h, CURLOPT_CONNECT_TO, ct);
		if (!c) {
			/* The Host header names the real server, as Go does. */
			const char *a =
				up->server + strcspn(up->server, ":") + 3;
			snprintf(hdr, sizeof(hdr), "Host: %.*s",
				 (int)strcspn(a, "/"), a);
			struct curl_slist *l = curl_slist_append(*headers, hdr);
			if (!l) {
				snprintf(err, errlen, "out of memory");
				return -ENOMEM;
			}
			*headers = l;
		}
	}
	if (c) {
		snprintf(err, errlen,
			 "libcurl refused the upstream %s settings: %s", step,
			 curl_easy_strerror(c));
		return c == CURLE_OUT_OF_MEMORY ? -ENOMEM : -ENOTSUP;
	}
	if (!with_token || !config_creds_has_token(up))
		return 0;
	memcpy(hdr, "Authorization: Bearer ", 22);
	rc = config_creds_token_get(up, hdr + 22, sizeof(hdr) - 22);
	if (rc) {
		if (rc == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		else
			config_creds_token_explain(up, err, errlen);
		return rc;
	}
	struct curl_slist *l = curl_slist_append(*headers, hdr);
	explicit_bzero(hdr, strlen(hdr));
	if (!l) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	*headers = l;
	return 0;
}
