/*
 * upstream: libcurl handle setup shared by every upstream request.
 */
#include "cache/upstream.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cache/upstream_creds.h"
#include "config/upstream.h"
#include "config/histogram.h"
#include "config/limits.h"
#include "config/log.h"

/* The process-wide options, on a new handle or one just reset. */
static void setup(CURL *c)
{
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
}

CURL *cache_upstream_easy(const struct cache_upstream *up, char *err,
			  size_t errlen)
{
	CURL *c = curl_easy_init();
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	setup(c);
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
	size_t max;	/* bytes of the body */
	bool too_large; /* the body passed max: the transfer was cut */
};

/* What the bounded answers are for: the metric's labels. */
static const char *const whats[] = { CACHE_UPSTREAM_PROBE,
				     CACHE_UPSTREAM_DISCOVERY,
				     CACHE_UPSTREAM_TOKENREVIEW,
				     CACHE_UPSTREAM_ACCESSREVIEW, "other" };
#define NWHATS (sizeof(whats) / sizeof(whats[0]))
static unsigned long too_large[NWHATS];	 /* atomic */
static int64_t too_large_logged[NWHATS]; /* atomic, CLOCK_MONOTONIC s */

static size_t what_slot(const char *what)
{
	for (size_t i = 0; what && i < NWHATS - 1; i++)
		if (!strcmp(what, whats[i]))
			return i;
	return NWHATS - 1;
}

unsigned long cache_upstream_too_large(const char *what)
{
	return __atomic_load_n(&too_large[what_slot(what)], __ATOMIC_RELAXED);
}

/* Count an answer cut at max, and say so at most every 10 s per what. */
static void note_too_large(const char *what, const char *method,
			   const char *path, size_t max)
{
	size_t i = what_slot(what);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	__atomic_add_fetch(&too_large[i], 1, __ATOMIC_RELAXED);
	int64_t last = __atomic_load_n(&too_large_logged[i], __ATOMIC_RELAXED);
	if (last && ts.tv_sec - last < 10)
		return;
	if (!__atomic_compare_exchange_n(&too_large_logged[i], &last,
					 (int64_t)ts.tv_sec, false,
					 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return;
	log_warn("the upstream's answer to %s %s (%s) is larger than "
		 "--upstream-answer-max-mib (%zu MiB): cut, and the request "
		 "failed",
		 method, path, whats[i], max >> 20);
}

static int on_progress(void *cls, curl_off_t dt, curl_off_t dn, curl_off_t ut,
		       curl_off_t un)
{
	const struct sink *s = cls;
	return s->stop && __atomic_load_n(s->stop, __ATOMIC_ACQUIRE) ? 1 : 0;
}

static size_t on_body(char *p, size_t size, size_t n, void *cls)
{
	struct sink *s = cls;
	if (size * n > s->max - s->body->len) {
		s->too_large = true;
		return 0; /* libcurl ends the transfer: CURLE_WRITE_ERROR */
	}
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

long cache_upstream_get(const struct cache_upstream *up, const char *what,
			const char *path, const char *accept, const bool *stop,
			struct buf *body, struct buf *content_type, char *err,
			size_t errlen)
{
	struct cache_upstream_ask q = {
		.what = what, .path = path, .accept = accept, .stop = stop
	};
	return cache_upstream_ask(up, &q, body, content_type, err, errlen);
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
	const char *tl = "informer_proxy_upstream_answer_too_large_total";
	buf_printf(out,
		   "# HELP %s Upstream answers the proxy reads whole for "
		   "itself cut at --upstream-answer-max-mib, by what was "
		   "asked.\n# TYPE %s counter\n",
		   tl, tl);
	for (size_t i = 0; i < NWHATS; i++)
		buf_printf(out, "%s{what=\"%s\"} %lu\n", tl, whats[i],
			   __atomic_load_n(&too_large[i], __ATOMIC_RELAXED));
}

long cache_upstream_ask(const struct cache_upstream *up,
			const struct cache_upstream_ask *q, struct buf *body,
			struct buf *content_type, char *err, size_t errlen)
{
	struct curl_slist *hdrs = NULL;
	const char *method = q->method ? q->method : "GET";
	if (!cache_ratelimit_take(up->limit, q->stop)) {
		snprintf(err, errlen, "stopped");
		return -1;
	}
	CURL *c = q->keep ? *q->keep : NULL;
	if (c) {
		/* options back to none; the connection and TLS session stay */
		curl_easy_reset(c);
		setup(c);
	} else if (!(c = cache_upstream_easy(up, err, errlen))) {
		return -1;
	} else if (q->keep) {
		*q->keep = c;
	}
	if (cache_upstream_prepare(up, c, true, &hdrs, err, errlen)) {
		curl_slist_free_all(hdrs);
		if (!q->keep)
			curl_easy_cleanup(c);
		return -1;
	}
	struct buf url = BUF_INIT, acc = BUF_INIT;
	buf_printf(&url, "%s%s", up->server, q->path);
	buf_printf(&acc, "Accept: %s",
		   q->accept ? q->accept : "application/json");
	hdrs = curl_slist_append(hdrs, acc.p);
	struct sink s = { .body = body,
			  .ctype = content_type,
			  .stop = q->stop,
			  .max = up->answer_max ? up->answer_max :
						  LIMIT_UPSTREAM_ANSWER_BYTES };
	if (s.max < body->len)
		s.max = body->len;
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, &s);
	curl_easy_setopt(c, CURLOPT_URL, url.p);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, &s);
	curl_easy_setopt(c, CURLOPT_TIMEOUT,
			 (long)LIMIT_UPSTREAM_ANSWER_TIMEOUT_S);
	if (q->body) {
		struct curl_slist *l = curl_slist_append(
			hdrs, "Content-Type: application/json");
		if (l)
			hdrs = l;
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, q->body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)q->body_len);
	}
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST,
			 strcmp(method, "GET") ? method : NULL);
	CURLcode rc = curl_easy_perform(c);
	long code = -1;
	if (q->curl_code)
		*q->curl_code = (int)rc;
	double took = 0;
	if (rc == CURLE_OK) {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	} else if (s.too_large) {
		note_too_large(q->what, method, q->path, s.max);
		snprintf(err, errlen,
			 "%s %s: the answer is larger than "
			 "--upstream-answer-max-mib (%zu MiB)",
			 method, q->path, s.max >> 20);
	} else {
		snprintf(err, errlen, "%s %s: %s", method, q->path,
			 curl_easy_strerror(rc));
	}
	/* a GET with limit= is a LIST (the RV probes); others name one */
	curl_easy_getinfo(c, CURLINFO_TOTAL_TIME, &took);
	cache_upstream_observe(
		config_histogram_verb_slot(method, !strstr(q->path, "limit="),
					   false),
		code, took);
	curl_slist_free_all(hdrs);
	/* a kept handle must not hold the request's headers or body */
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, NULL);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, NULL);
	if (!q->keep)
		curl_easy_cleanup(c);
	buf_free(&url);
	buf_free(&acc);
	return code;
}

bool cache_upstream_tls_failure(int rc)
{
	return rc == CURLE_PEER_FAILED_VERIFICATION ||
	       rc == CURLE_SSL_CACERT_BADFILE ||
	       rc == CURLE_SSL_CONNECT_ERROR || rc == CURLE_SSL_CERTPROBLEM;
}

/* The host of URL u ("https://h:1/p" -> "h", "https://[::1]:1" -> "::1")
 * into out. */
static void url_host(const char *u, char *out, size_t len)
{
	const char *h = strstr(u, "://");
	h = h ? h + 3 : u;
	size_t n = *h == '[' ? strcspn(++h, "]") : strcspn(h, ":/");
	snprintf(out, len, "%.*s", (int)n, h);
}

/* The value of field name ("Subject", "X509v3 Subject Alternative Name")
 * of the leaf certificate in ci, or NULL. libcurl gives "Name:value". */
static const char *cert_field(const struct curl_certinfo *ci, const char *name)
{
	size_t n = strlen(name);
	if (!ci || ci->num_of_certs < 1)
		return NULL;
	for (struct curl_slist *f = ci->certinfo[0]; f; f = f->next)
		if (!strncmp(f->data, name, n) && f->data[n] == ':')
			return f->data + n + 1;
	return NULL;
}

void cache_upstream_tls_explain(const struct cache_upstream *up, int first,
				char *msg, size_t len)
{
	char why[CURL_ERROR_SIZE] = "", err[256], host[256];
	struct curl_slist *hdrs = NULL;
	const char *sni = up->creds ? up->creds->tls_server_name : NULL;
	url_host(up->server, host, sizeof(host));
	CURL *c = cache_upstream_easy(up, err, sizeof(err));
	CURLcode rc = CURLE_FAILED_INIT;
	if (c &&
	    !cache_upstream_prepare(up, c, false, &hdrs, err, sizeof(err))) {
		/* the CA's verdict alone: the name is checked below */
		curl_easy_setopt(c, CURLOPT_URL, up->server);
		curl_easy_setopt(c, CURLOPT_CONNECT_ONLY, 1L);
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
		curl_easy_setopt(c, CURLOPT_CERTINFO, 1L);
		curl_easy_setopt(c, CURLOPT_ERRORBUFFER, why);
		curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
		rc = curl_easy_perform(c);
	}
	struct curl_certinfo *ci = NULL;
	if (rc == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_CERTINFO, &ci);
	const char *san = cert_field(ci, "X509v3 Subject Alternative Name");
	const char *subj = cert_field(ci, "Subject");
	const char *detail = why;
	if (!c)
		detail = err;
	else if (!cache_upstream_tls_failure(rc)) /* no second look */
		detail = curl_easy_strerror((CURLcode)first);
	else if (!why[0])
		detail = curl_easy_strerror(rc);
	if (rc == CURLE_OK && (san || subj)) {
		snprintf(msg, len,
			 "host name mismatch: the upstream's certificate is "
			 "for %s%s, not for \"%s\"%s: use a server URL with a "
			 "name the certificate holds, or tls-server-name in "
			 "the kubeconfig",
			 san ? "" : "the subject ", san ? san : subj,
			 sni ? sni : host,
			 sni ? " (the kubeconfig's tls-server-name)" : "");
	} else if (rc == CURLE_OK) {
		snprintf(msg, len,
			 "host name mismatch: the upstream's certificate does "
			 "not name \"%s\": use a server URL with a name the "
			 "certificate holds, or tls-server-name in the "
			 "kubeconfig",
			 sni ? sni : host);
	} else {
		snprintf(msg, len,
			 "cannot verify the upstream %s over TLS (%s): set "
			 "certificate-authority or certificate-authority-data "
			 "in the kubeconfig to the CA that signed its "
			 "certificate",
			 up->server, detail);
	}
	curl_slist_free_all(hdrs);
	if (c)
		curl_easy_cleanup(c);
}
