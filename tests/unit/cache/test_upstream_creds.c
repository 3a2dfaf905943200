/*
 * test_upstream_creds: plain credential data applied to a libcurl
 * handle: the Authorization and Host headers, the CONNECT_TO list kept
 * for the process, credentials left off for a client's own request, and
 * the errors a token file gives.
 */
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cache/upstream_creds.h"
#include "config/kubeconfig.h"
#include "check.h"

static bool has_header(struct curl_slist *l, const char *h)
{
	for (; l; l = l->next)
		if (!strcmp(l->data, h))
			return true;
	return false;
}

static int count(struct curl_slist *l)
{
	int n = 0;
	for (; l; l = l->next)
		n++;
	return n;
}

int main(void)
{
	static unsigned char ca[] = "-----BEGIN CERTIFICATE-----\n";
	struct config_upstream up = {
		.server = "https://10.1.2.3:6443/base",
		.tls_server_name = "api.internal",
		.url_base = "https://api.internal:6443/base",
		.connect_to = "api.internal:6443:10.1.2.3:6443",
		.ca = { .data = ca, .len = sizeof(ca) - 1 },
		.token = "tok-1",
	};
	char err[256];
	CURL *h = curl_easy_init();
	struct curl_slist *hdrs = NULL;
	CHECK(h != NULL);

	CHECK(cache_upstream_creds_apply(&up, h, &hdrs, true, err,
					 sizeof(err)) == 0);
	CHECK(has_header(hdrs, "Authorization: Bearer tok-1"));
	CHECK(has_header(hdrs, "Host: 10.1.2.3:6443"));
	CHECK(count(hdrs) == 2);
	/* a second request: the same headers again, nothing kept between */
	curl_slist_free_all(hdrs);
	hdrs = NULL;
	CHECK(cache_upstream_creds_apply(&up, h, &hdrs, true, err,
					 sizeof(err)) == 0);
	CHECK(count(hdrs) == 2);
	curl_slist_free_all(hdrs);
	hdrs = NULL;

	/* a client's own request: no Authorization, still the Host */
	CHECK(cache_upstream_creds_apply(&up, h, &hdrs, false, err,
					 sizeof(err)) == 0);
	CHECK(count(hdrs) == 1 && has_header(hdrs, "Host: 10.1.2.3:6443"));
	curl_slist_free_all(hdrs);
	hdrs = NULL;

	/* no tls-server-name, no token: nothing appended */
	struct config_upstream plain = { .server = "http://127.0.0.1:1",
					 .url_base = "http://127.0.0.1:1" };
	CHECK(cache_upstream_creds_apply(&plain, h, &hdrs, true, err,
					 sizeof(err)) == 0);
	CHECK(hdrs == NULL);

	/* an unreadable token file: its error, and no headers left behind */
	struct config_upstream tf = { .server = "http://127.0.0.1:1",
				      .url_base = "http://127.0.0.1:1",
				      .token_file = "/nonexistent/token" };
	pthread_mutex_init(&tf.lock, NULL);
	tf.lock_ready = true;
	int rc = cache_upstream_creds_apply(&tf, h, &hdrs, true, err,
					    sizeof(err));
	CHECK(rc == -ENOENT && hdrs == NULL);
	CHECK(strstr(err, "token file /nonexistent/token: cannot read") !=
	      NULL);
	pthread_mutex_destroy(&tf.lock);

	/* a CA file that libcurl accepts as an option (read per connection) */
	struct config_upstream cafile = {
		.server = "https://h",
		.url_base = "https://h",
		.ca = { .path = "/nonexistent/ca.crt" },
		.insecure_skip_tls_verify = false
	};
	CHECK(cache_upstream_creds_apply(&cafile, h, &hdrs, true, err,
					 sizeof(err)) == 0);
	curl_easy_cleanup(h);
	return check_done("upstream_creds");
}
