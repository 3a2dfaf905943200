/*
 * upstream: libcurl handle setup shared by every upstream request.
 */
#include "cache/upstream.h"

#include <stdio.h>
#include <string.h>

#include "cache/upstream_creds.h"
#include "config/histogram.h"
#include "config/log.h"

CURL *cache_upstream_easy(const struct cache_upstream *up, char *err,
			  size_t errlen)
{
	CURL *c = curl_easy_init();
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
	/* A dead peer on a silent watch is found by keepalive probes:
	 * silence alone is normal (a quiet resource). */
	curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(c, CURLOPT_TCP_KEEPIDLE, 30L);
	curl_easy_setopt(c, CURLOPT_TCP_KEEPINTVL, 10L);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "informer-proxy/0.1");
	/* Verification stays on: only the credentials' explicit insecure
	 * field turns it off. */
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
	return c;
}

int cache_upstream_prepare(const struct cache_upstream *up, CURL *c,
			   bool with_auth, struct curl_slist **hdrs, char *err,
			   size_t errlen)
{
	if (!up->creds)
		return 0;
	return cache_upstream_creds_apply(up->creds, c, hdrs, with_auth, err,
					  errlen);
}

struct sink {
	struct buf *body;
	struct buf *ctype;
	const bool *stop;
};

static int on_progress(void *cls, curl_off_t dt, curl_off_t dn, curl_off_t ut,
		       curl_off_t un)
{
	const struct sink *s = cls;
	return s->stop && __atomic_load_n(s->stop, __ATOMIC_ACQUIRE) ? 1 : 0;
}

static size_t on_body(char *p, size_t size, size_t n, void *cls)
{
	struct sink *s = cls;
	return buf_add(s->body, p, size * n) ? 0 : size * n;
}

static size_t on_header(char *p, size_t size, size_t n, void *cls)
{
	struct sink *s = cls;
	size_t len = size * n;
	if (s->ctype && len > 13 && !strncasecmp(p, "content-type:", 13)) {
		const char *v = p + 13;
		while (*v == ' ')
			v++;
		size_t vl = len - (size_t)(v - p);
		while (vl && (v[vl - 1] == '\r' || v[vl - 1] == '\n'))
			vl--;
		buf_reset(s->ctype);
		buf_add(s->ctype, v, vl);
	}
	return len;
}

long cache_upstream_get(const struct cache_upstream *up, const char *path,
			const char *accept, const bool *stop, struct buf *body,
			struct buf *content_type, char *err, size_t errlen)
{
	return cache_upstream_request(up, "GET", path, NULL, 0, accept, stop,
				      body, content_type, err, errlen);
}

static struct config_histogram up_hist[CONFIG_NVERBS][CONFIG_HISTOGRAM_NCODES];
static const struct config_histogram_bounds up_bounds = {
	.n = 14,
	.le = { .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120 },
	.unit = 1e-9,
};

void cache_upstream_observe(int verb, long code, double seconds)
{
	if (verb < 0 || verb >= CONFIG_NVERBS || verb == CONFIG_VERB_WATCH)
		return;
	config_histogram_observe(
		&up_hist[verb][config_histogram_code_slot(code)], &up_bounds,
		seconds, (uint64_t)(seconds * 1e9));
}

void cache_upstream_metrics(struct buf *out)
{
	const char *name = "informer_proxy_upstream_request_duration_seconds";
	buf_printf(out,
		   "# HELP %s Requests the proxy made or forwarded to the "
		   "upstream, by verb and HTTP code (error: no answer), "
		   "watches excepted.\n# TYPE %s histogram\n",
		   name, name);
	for (int v = 0; v < CONFIG_NVERBS; v++)
		for (int k = 0; k < CONFIG_HISTOGRAM_NCODES; k++) {
			if (!config_histogram_count(&up_hist[v][k], &up_bounds))
				continue;
			char labels[64];
			snprintf(labels, sizeof(labels),
				 "verb=\"%s\",code=\"%s\"",
				 config_histogram_verb_name(v),
				 config_histogram_code_name(k));
			config_histogram_write(out, name, labels,
					       &up_hist[v][k], &up_bounds);
		}
}

long cache_upstream_request(const struct cache_upstream *up, const char *method,
			    const char *path, const char *req_body,
			    size_t req_len, const char *accept,
			    const bool *stop, struct buf *body,
			    struct buf *content_type, char *err, size_t errlen)
{
	struct curl_slist *hdrs = NULL;
	if (!cache_ratelimit_take(up->limit, stop)) {
		snprintf(err, errlen, "stopped");
		return -1;
	}
	CURL *c = cache_upstream_easy(up, err, errlen);
	if (!c)
		return -1;
	if (cache_upstream_prepare(up, c, true, &hdrs, err, errlen)) {
		curl_slist_free_all(hdrs);
		curl_easy_cleanup(c);
		return -1;
	}
	struct buf url = BUF_INIT, acc = BUF_INIT;
	buf_printf(&url, "%s%s", up->server, path);
	buf_printf(&acc, "Accept: %s", accept ? accept : "application/json");
	hdrs = curl_slist_append(hdrs, acc.p);
	struct sink s = { body, content_type, stop };
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, &s);
	curl_easy_setopt(c, CURLOPT_URL, url.p);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, &s);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
	if (req_body) {
		struct curl_slist *l = curl_slist_append(
			hdrs, "Content-Type: application/json");
		if (l)
			hdrs = l;
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, req_body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)req_len);
	}
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST,
			 strcmp(method, "GET") ? method : NULL);
	CURLcode rc = curl_easy_perform(c);
	long code = -1;
	double took = 0;
	if (rc == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	else
		snprintf(err, errlen, "GET %s: %s", path,
			 curl_easy_strerror(rc));
	/* a GET with limit= is a LIST (the RV probes); others name one */
	curl_easy_getinfo(c, CURLINFO_TOTAL_TIME, &took);
	cache_upstream_observe(config_histogram_verb_slot(
				       method, !strstr(path, "limit="), false),
			       code, took);
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(c);
	buf_free(&url);
	buf_free(&acc);
	return code;
}
