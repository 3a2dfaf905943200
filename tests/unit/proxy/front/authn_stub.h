/*
 * authn_stub: what the delegated-auth unit tests share (test_authn.c,
 * test_authn_faults.c): a minimal libmicrohttpd daemon on 127.0.0.1:0
 * that drives proxy_authn_cached/start/finish on cur the way dispatch.c
 * does (answering the verdict's status with "message|details"), a
 * libcurl client for it (ask, ask_to, client_run), the scripted upstream
 * (http_stub.h) that answers TokenReviews and SubjectAccessReviews
 * (setup, teardown, req_line, req_body, and the canned answers below),
 * and authn_stub_start/authn_stub_stop around a binary's tests.
 *
 * Threads: the daemon answers on its own thread; cur, cur_at and
 * source_rate are set by the test between requests only. One test
 * binary includes this once.
 */
#ifndef TESTS_AUTHN_STUB_H
#define TESTS_AUTHN_STUB_H

#include <curl/curl.h>
#include <microhttpd.h>
#include <openssl/evp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include "mhd_stub.h"
#include "cache/upstream.h"
#include "proxy/front/authn.h"
#include "check.h"
#include "http_stub.h"

#define HDRS "Content-Type: application/json\r\nConnection: close\r\n\r\n"
#define R201(body) "HTTP/1.1 201 Created\r\n" HDRS body
#define TR_ALICE                                                             \
	R201("{\"kind\":\"TokenReview\",\"status\":{\"authenticated\":true," \
	     "\"user\":{\"username\":\"alice\",\"uid\":\"u1\",\"groups\":[\"dev\"]}}}")
#define TR_FORGED                                                             \
	R201("{\"kind\":\"TokenReview\",\"status\":{\"authenticated\":false," \
	     "\"error\":\"invalid bearer token\"}}")
#define TR_ROBOT                                                             \
	R201("{\"kind\":\"TokenReview\",\"status\":{\"authenticated\":true," \
	     "\"user\":{\"username\":\"system:serviceaccount:ns:robot\","    \
	     "\"groups\":[\"system:serviceaccounts\"]}}}")
#define SAR_ALLOW R201("{\"status\":{\"allowed\":true}}")
#define SAR_DENY \
	R201("{\"status\":{\"allowed\":false,\"reason\":\"no RBAC policy matched\"}}")
#define R500 "HTTP/1.1 500 Internal Server Error\r\n" HDRS "{}"

static struct proxy_authn *cur;		       /* what the daemon asks */
static const struct proxy_authn_attrs *cur_at; /* NULL: authentication only */
static struct http_stub stub;
static struct cache_upstream up;
static char up_url[64];
static int mhd_port;
static int source_rate = 1000; /* --authn-source-reviews for setup() */

/* ---- the daemon: dispatch.c's delegated gate, reduced ---- */

struct rq {
	struct proxy_authn_job *job;
	bool seen;
};

static inline unsigned code_of(enum proxy_authn_verdict v)
{
	switch (v) {
	case PROXY_AUTHN_ALLOWED:
		return 200;
	case PROXY_AUTHN_UNAUTHENTICATED:
		return 401;
	case PROXY_AUTHN_FORBIDDEN:
		return 403;
	case PROXY_AUTHN_UNAVAILABLE:
		return 503;
	default:
		return 500;
	}
}


static inline enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
					 const char *url, const char *method,
					 const char *version,
					 const char *upload,
					 size_t *upload_size, void **state)
{
	struct rq *r = *state;
	if (!r) {
		r = calloc(1, sizeof(*r));
		*state = r;
		return r ? MHD_YES : MHD_NO;
	}
	if (*upload_size) {
		*upload_size = 0;
		return MHD_YES;
	}
	char msg[1024], det[768], out[2048];
	enum proxy_authn_verdict v;
	if (r->job) {
		v = proxy_authn_finish(cur, r->job, msg, sizeof(msg), det,
				       sizeof(det));
		r->job = NULL;
	} else {
		const char *authz = MHD_lookup_connection_value(
			c, MHD_HEADER_KIND, "Authorization");
		v = proxy_authn_cached(cur, authz, cur_at, msg, sizeof(msg),
				       det, sizeof(det));
		if (v == PROXY_AUTHN_MISS) {
			r->job = proxy_authn_start(cur, c, authz, cur_at);
			return r->job ? MHD_YES :
					mhd_stub_reply(c, 429, "busy");
		}
	}
	snprintf(out, sizeof(out), "%s|%s", msg, det);
	return mhd_stub_reply(c, code_of(v), out);
}

static inline void on_completed(void *cls, struct MHD_Connection *c,
				void **state,
				enum MHD_RequestTerminationCode toe)
{
	struct rq *r = *state;
	if (!r)
		return;
	if (r->job)
		proxy_authn_abandon(cur, r->job);
	free(r);
	*state = NULL;
}

static inline struct MHD_Daemon *daemon_start(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct MHD_Daemon *d = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_ALLOW_SUSPEND_RESUME, 0,
		NULL, NULL, on_request, NULL, MHD_OPTION_SOCK_ADDR, &a,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
		MHD_OPTION_END);
	if (!d)
		return NULL;
	const union MHD_DaemonInfo *i =
		MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	mhd_port = i ? i->port : 0;
	return d;
}

/* ---- the client ---- */

struct sink {
	char p[2048];
	size_t n;
};

static inline size_t sink_write(char *p, size_t size, size_t n, void *cls)
{
	struct sink *s = cls;
	size_t len = size * n;
	size_t room = sizeof(s->p) - 1 - s->n;
	memcpy(s->p + s->n, p, len < room ? len : room);
	s->n += len < room ? len : room;
	s->p[s->n] = '\0';
	return len;
}

/* GET / from the daemon with authz as the Authorization header (NULL:
 * none); the status (-1: no answer within timeout_ms), the body in out. */
static inline long ask_to(const char *authz, char *out, size_t outlen,
			  long timeout_ms)
{
	CURL *h = curl_easy_init();
	struct curl_slist *hdrs = NULL;
	char url[64], hdr[10000];
	struct sink s = { .n = 0 };
	s.p[0] = '\0';
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", mhd_port);
	if (authz) {
		snprintf(hdr, sizeof(hdr), "Authorization: %s", authz);
		hdrs = curl_slist_append(hdrs, hdr);
	}
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink_write);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
	long code = -1;
	if (curl_easy_perform(h) == CURLE_OK)
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(h);
	if (out)
		snprintf(out, outlen, "%s", s.p);
	return code;
}

static inline long ask(const char *authz, char *out, size_t outlen)
{
	return ask_to(authz, out, outlen, 10000);
}

/* A verdict from the caches alone, its message and details in msg, det. */
static char msg[1024], det[768];
static inline enum proxy_authn_verdict
cached(const char *authz, const struct proxy_authn_attrs *at)
{
	return proxy_authn_cached(cur, authz, at, msg, sizeof(msg), det,
				  sizeof(det));
}

static inline void setup(struct http_stub_route *routes, int n, int allow_s,
			 int deny_s)
{
	CHECK(http_stub_start(&stub, routes, n) == 0);
	snprintf(up_url, sizeof(up_url), "http://127.0.0.1:%d", stub.port);
	up = (struct cache_upstream){ .server = up_url };
	cur = proxy_authn_new(&up, allow_s, deny_s, source_rate);
	CHECK(cur != NULL);
	cur_at = NULL;
}

static inline void teardown(void)
{
	proxy_authn_free(cur);
	cur = NULL;
	http_stub_stop(&stub);
}

static inline const char *req_line(int i)
{
	return stub.req[i];
}

static inline const char *req_body(int i)
{
	return stub.body[i];
}

static const struct proxy_authn_attrs list_pods = {
	.resource = true,
	.verb = "list",
	.group = "",
	.version = "v1",
	.res = "pods",
	.sub = "",
	.ns = "team-a",
	.name = "",
	.path = "",
};

/* ---- helpers of single tests ---- */

/* Read what fd 2 got while fn ran. */
static inline void capture_stderr(void (*fn)(void), char *out, size_t len)
{
	char path[] = "/tmp/test_authn_log_XXXXXX";
	int fd = mkstemp(path);
	int saved = dup(2);
	fflush(stderr);
	dup2(fd, 2);
	fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	ssize_t n = pread(fd, out, len - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(path);
}

struct client {
	pthread_t th;
	char authz[32];
	long code;
};

static inline void *client_run(void *arg)
{
	struct client *c = arg;
	c->code = ask(c->authz, NULL, 0);
	return NULL;
}

/* The users table's slot of a token, as authn.c picks it (the first
 * four bytes of its SHA-256, modulo its 1024 slots). */
static inline unsigned users_slot(const char *tok)
{
	uint8_t h[32];
	unsigned n = sizeof(h);
	uint32_t v;
	EVP_Digest(tok, strlen(tok), h, &n, EVP_sha256(), NULL);
	memcpy(&v, h, sizeof(v));
	return v % 1024;
}

/* ---- the binary's setup and teardown ---- */

static struct MHD_Daemon *authn_daemon;

/* libcurl and the daemon: false (and a failed check) when the daemon
 * cannot start. */
static inline bool authn_stub_start(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
	authn_daemon = daemon_start();
	CHECK(authn_daemon != NULL && mhd_port > 0);
	return authn_daemon != NULL;
}

static inline void authn_stub_stop(void)
{
	MHD_stop_daemon(authn_daemon);
	curl_global_cleanup();
}

#endif
