/*
 * test_authn: delegated authentication and authorization (proxy/front/authn.c)
 * against a scripted upstream (http_stub.h) answering TokenReviews and
 * SubjectAccessReviews, with a minimal libmicrohttpd daemon on
 * 127.0.0.1:0 that drives proxy_authn_cached/start/finish the way
 * dispatch.c does.
 *
 * Covered, as an attacker would try it: no, non-Bearer, empty and
 * oversized credentials refused without asking the upstream; a forged
 * token (authenticated:false), a review without a user name, a review that
 * is not JSON, a failing upstream (fail closed, 503, nothing cached); a
 * token's decision never reused for another token or other attributes;
 * allowed-and-denied SARs refused; the apiserver's 403 wording; JSON
 * injection through the token, the attributes or a reviewed user name;
 * the token never logged and never sent in a SubjectAccessReview; TTLs
 * of zero; stop, abandon, stop with reviews in flight and queued (every
 * client 503), the queue refusing after stop; attributes too long for a
 * job; allocation failure; a denied token never evicting an accepted one
 * from its slot; a client address's budget of reviews for unknown tokens,
 * which known tokens do not share.
 */
#include <curl/curl.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <pthread.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cache/upstream.h"
#include "config/alloc.h"
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

static unsigned code_of(enum proxy_authn_verdict v)
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

static enum MHD_Result reply(struct MHD_Connection *c, unsigned code,
			     const char *body)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
		strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	enum MHD_Result ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
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
			return r->job ? MHD_YES : reply(c, 429, "busy");
		}
	}
	snprintf(out, sizeof(out), "%s|%s", msg, det);
	return reply(c, code_of(v), out);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **state,
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

static struct MHD_Daemon *daemon_start(void)
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

static size_t sink_write(char *p, size_t size, size_t n, void *cls)
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
static long ask_to(const char *authz, char *out, size_t outlen, long timeout_ms)
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

static long ask(const char *authz, char *out, size_t outlen)
{
	return ask_to(authz, out, outlen, 10000);
}

/* A verdict from the caches alone, its message and details in msg, det. */
static char msg[1024], det[768];
static enum proxy_authn_verdict cached(const char *authz,
				       const struct proxy_authn_attrs *at)
{
	return proxy_authn_cached(cur, authz, at, msg, sizeof(msg), det,
				  sizeof(det));
}

static void setup(struct http_stub_route *routes, int n, int allow_s,
		  int deny_s)
{
	CHECK(http_stub_start(&stub, routes, n) == 0);
	snprintf(up_url, sizeof(up_url), "http://127.0.0.1:%d", stub.port);
	up = (struct cache_upstream){ .server = up_url };
	cur = proxy_authn_new(&up, allow_s, deny_s, source_rate);
	CHECK(cur != NULL);
	cur_at = NULL;
}

static void teardown(void)
{
	proxy_authn_free(cur);
	cur = NULL;
	http_stub_stop(&stub);
}

static const char *req_line(int i)
{
	return stub.req[i];
}

static const char *req_body(int i)
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

/* ---- tests ---- */

/* Nothing that is not a usable bearer token reaches the upstream. */
static void test_no_credentials(void)
{
	struct http_stub_route routes[] = { { .match = "tokenreviews",
					      .response = TR_ALICE } };
	setup(routes, 1, 60, 60);
	static char big[8200 + 8];
	memcpy(big, "Bearer ", 7);
	memset(big + 7, 'a', 8193); /* TOKEN_MAX + 1 */
	big[7 + 8193] = '\0';
	const char *bad[] = { NULL,	     "",	   "Basic YWxpY2U6cHc=",
			      "Bearer",	     "Bearer ",	   "Bearer     ",
			      "Bearertoken", "Token abc",  big,
			      "Bearer  abc", "Bearer\tabc" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		CHECK(cached(bad[i], NULL) == PROXY_AUTHN_UNAUTHENTICATED);
		CHECK(cached(bad[i], &list_pods) ==
		      PROXY_AUTHN_UNAUTHENTICATED);
		CHECK(msg[0] == '\0' && det[0] == '\0');
	}
	CHECK(ask(NULL, NULL, 0) == 401);
	CHECK(ask("Basic YWxpY2U6cHc=", NULL, 0) == 401);
	CHECK(ask(big, NULL, 0) == 401);
	CHECK(http_stub_count(&stub) == 0);
	/* exactly TOKEN_MAX is still asked about */
	big[7 + 8192] = '\0';
	CHECK(cached(big, NULL) == PROXY_AUTHN_MISS);
	teardown();
}

/* Authorization values spelled every which way, against what the
 * apiserver's bearer-token authenticator takes from them (NULL: no
 * token, so anonymous there, 401 here). */
static void test_token_spellings(void)
{
	static const struct {
		const char *authz, *token;
	} rows[] = {
		{ "Bearer abc", "abc" },
		{ "bearer abc", "abc" },
		{ "BEARER abc", "abc" },
		{ "BeArEr abc", "abc" },
		{ "Bearer abc ", "abc" },
		{ "Bearer abc   ", "abc" },
		{ "  Bearer abc", "abc" },
		{ "\tBearer abc\t", "abc" },
		{ "Bearer abc\r\n", "abc" },
		{ "Bearer abc def", "abc" },
		{ "Bearer a\tb", "a\tb" },
		{ "Bearer  abc", NULL },     /* two spaces */
		{ "Bearer   abc", NULL },    /* three */
		{ "Bearer\tabc", NULL },     /* a tab */
		{ "Bearer \tabc", "\tabc" }, /* a space, then a tab */
		{ "Bearer", NULL },
		{ "Bearer ", NULL },
		{ "Bearer    ", NULL },
		{ "", NULL },
		{ "   ", NULL },
		{ "Bearerabc", NULL },
		{ "Bearer:abc", NULL },
		{ "Basic YWxpY2U6cHc=", NULL },
		{ "Token abc", NULL },
		{ "Bearer\nabc", NULL },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const char *tok = NULL;
		size_t n = 0;
		bool has = proxy_authn_token_of(rows[i].authz, &tok, &n);
		bool ok = rows[i].token ?
				  has && n == strlen(rows[i].token) &&
					  !memcmp(tok, rows[i].token, n) :
				  !has;
		if (!ok)
			fprintf(stderr, "row %zu: \"%s\": got %s%.*s\n", i,
				rows[i].authz, has ? "token " : "none",
				has ? (int)n : 0, has ? tok : "");
		CHECK(ok);
	}
	const char *tok;
	size_t n;
	CHECK(!proxy_authn_token_of(NULL, &tok, &n));
}

/* A change upstream of what decides access (revoke.c) makes every
 * cached decision a miss, allowed or denied, however long its TTL: the
 * next request is reviewed again and a revoked grant refused. A
 * ServiceAccount's change also forgets the token reviews of service
 * accounts, and only theirs. */
static void test_forget(void)
{
	struct http_stub_route routes[] = {
		{ .match = "tokenreviews", .response = TR_ALICE },
		{ .match = "subjectaccessreviews",
		  .response = SAR_ALLOW,
		  .once = true },
		{ .match = "subjectaccessreviews", .response = SAR_DENY },
	};
	setup(routes, 3, 300, 300);
	cur_at = &list_pods;
	CHECK(ask("Bearer tok-a", NULL, 0) == 200);
	CHECK(cached("Bearer tok-a", &list_pods) == PROXY_AUTHN_ALLOWED);
	CHECK(cached("Bearer tok-a", &list_pods) == PROXY_AUTHN_ALLOWED);
	proxy_authn_forget(cur, false);
	CHECK(cached("Bearer tok-a", &list_pods) == PROXY_AUTHN_MISS);
	/* alice is no service account: her token review stands */
	CHECK(cached("Bearer tok-a", NULL) == PROXY_AUTHN_ALLOWED);
	CHECK(ask("Bearer tok-a", NULL, 0) == 403);
	CHECK(http_stub_count(&stub) == 3);
	/* the denial took the stale allowance's slot, and is cached */
	CHECK(cached("Bearer tok-a", &list_pods) == PROXY_AUTHN_FORBIDDEN);
	proxy_authn_forget(cur, false);
	CHECK(cached("Bearer tok-a", &list_pods) == PROXY_AUTHN_MISS);
	proxy_authn_forget(NULL, true); /* nothing to forget */
	teardown();

	struct http_stub_route sa[] = {
		{ .match = "tokenreviews", .response = TR_ROBOT },
		{ .match = "subjectaccessreviews", .response = SAR_ALLOW },
	};
	setup(sa, 2, 300, 300);
	cur_at = &list_pods;
	CHECK(ask("Bearer robot-tok", NULL, 0) == 200);
	proxy_authn_forget(cur, false); /* a Role changed */
	CHECK(cached("Bearer robot-tok", NULL) == PROXY_AUTHN_ALLOWED);
	CHECK(ask("Bearer robot-tok", NULL, 0) == 200);
	CHECK(http_stub_count(&stub) == 3); /* one SubjectAccessReview more */
	proxy_authn_forget(cur, true);	    /* a ServiceAccount changed */
	CHECK(cached("Bearer robot-tok", NULL) == PROXY_AUTHN_MISS);
	CHECK(cached("Bearer robot-tok", &list_pods) == PROXY_AUTHN_MISS);
	CHECK(ask("Bearer robot-tok", NULL, 0) == 200);
	CHECK(http_stub_count(&stub) == 5); /* both reviews again */
	teardown();
}

/* A good token: one TokenReview, then the cache answers, for that token
 * only. */
static void test_authenticate(void)
{
	struct http_stub_route routes[] = { { .match = "tokenreviews",
					      .response = TR_ALICE } };
	setup(routes, 1, 60, 60);
	CHECK(cached("Bearer good-token", NULL) == PROXY_AUTHN_MISS);
	CHECK(http_stub_count(&stub) == 0); /* cached() never asks */
	CHECK(ask("Bearer good-token", NULL, 0) == 200);
	CHECK(http_stub_count(&stub) == 1);
	CHECK_STR(req_line(0),
		  "POST /apis/authentication.k8s.io/v1/tokenreviews HTTP/1.1");
	CHECK(strstr(req_body(0), "\"kind\":\"TokenReview\"") != NULL);
	CHECK(strstr(req_body(0), "\"spec\":{\"token\":\"good-token\"}") !=
	      NULL);

	CHECK(cached("Bearer good-token", NULL) == PROXY_AUTHN_ALLOWED);
	/* the scheme in any case, white space around the value, anything
	 * after a space past the token: the same token, as the apiserver
	 * reads it */
	CHECK(cached("bearer good-token", NULL) == PROXY_AUTHN_ALLOWED);
	CHECK(cached(" Bearer good-token \t", NULL) == PROXY_AUTHN_ALLOWED);
	CHECK(cached("Bearer good-token more", NULL) == PROXY_AUTHN_ALLOWED);
	/* but two spaces before it: no token at all, anonymous there */
	CHECK(cached("Bearer   good-token  ", NULL) ==
	      PROXY_AUTHN_UNAUTHENTICATED);
	CHECK(cached("Bearer  good-token", NULL) ==
	      PROXY_AUTHN_UNAUTHENTICATED);
	CHECK(ask("Bearer good-token", NULL, 0) == 200);
	CHECK(http_stub_count(&stub) == 1);
	/* any other token, a prefix or an extension of it included, is new */
	CHECK(cached("Bearer good-toke", NULL) == PROXY_AUTHN_MISS);
	CHECK(cached("Bearer good-token2", NULL) == PROXY_AUTHN_MISS);
	CHECK(cached("Bearer GOOD-TOKEN", NULL) == PROXY_AUTHN_MISS);
	/* authenticated is not authorized: a resource request still needs a
	 * SubjectAccessReview */
	CHECK(cached("Bearer good-token", &list_pods) == PROXY_AUTHN_MISS);
	/* attributes too long to key a decision: refused, never allowed */
	static char longpath[9000];
	memset(longpath, 'p', sizeof(longpath) - 1);
	struct proxy_authn_attrs huge = list_pods;
	huge.path = longpath;
	CHECK(cached("Bearer good-token", &huge) == PROXY_AUTHN_UNAVAILABLE);
	teardown();
}

/* A forged token: 401, remembered for the deny TTL. */
static void test_forged(void)
{
	struct http_stub_route routes[] = { { .match = "tokenreviews",
					      .response = TR_FORGED } };
	setup(routes, 1, 60, 60);
	CHECK(ask("Bearer forged", NULL, 0) == 401);
	CHECK(http_stub_count(&stub) == 1);
	CHECK(cached("Bearer forged", NULL) == PROXY_AUTHN_UNAUTHENTICATED);
	CHECK(cached("Bearer forged", &list_pods) ==
	      PROXY_AUTHN_UNAUTHENTICATED);
	CHECK(ask("Bearer forged", NULL, 0) == 401);
	CHECK(http_stub_count(&stub) == 1); /* no SAR either */
	teardown();

	/* --authn-deny-ttl=0: never cached, asked every time */
	setup(routes, 1, 60, 0);
	CHECK(ask("Bearer forged", NULL, 0) == 401);
	CHECK(cached("Bearer forged", NULL) == PROXY_AUTHN_MISS);
	CHECK(ask("Bearer forged", NULL, 0) == 401);
	CHECK(http_stub_count(&stub) == 2);
	teardown();
}

/* Reviews that do not say plainly "authenticated, as this user". */
static void test_weak_reviews(void)
{
	struct http_stub_route noname[] = {
		{ .match = "tokenreviews",
		  .response = R201(
			  "{\"status\":{\"authenticated\":true,\"user\":{}}}") },
	};
	setup(noname, 1, 60, 60);
	CHECK(ask("Bearer t", NULL, 0) == 401);
	teardown();

	struct http_stub_route str[] = {
		/* "true", a string, is not true */
		{ .match = "tokenreviews",
		  .response = R201("{\"status\":{\"authenticated\":\"true\","
				   "\"user\":{\"username\":\"alice\"}}}") },
	};
	setup(str, 1, 60, 60);
	CHECK(ask("Bearer t", NULL, 0) == 401);
	teardown();

	struct http_stub_route nostatus[] = {
		/* the spec echoed, no status */
		{ .match = "tokenreviews",
		  .response = R201("{\"spec\":{\"authenticated\":true}}") },
	};
	setup(nostatus, 1, 60, 60);
	CHECK(ask("Bearer t", NULL, 0) == 503);
	teardown();

	struct http_stub_route garbage[] = {
		{ .match = "tokenreviews",
		  .response = R201("<html>not json</html>") },
	};
	setup(garbage, 1, 60, 60);
	CHECK(ask("Bearer t", NULL, 0) == 503);
	CHECK(cached("Bearer t", NULL) == PROXY_AUTHN_MISS); /* nothing kept */
	teardown();

	/* 200 with a good body from something that is not the review API
	 * answering: only 200 and 201 count, so a 202 is refused */
	struct http_stub_route accepted[] = {
		{ .match = "tokenreviews",
		  .response =
			  "HTTP/1.1 202 Accepted\r\n" HDRS
			  "{\"status\":{\"authenticated\":true,\"user\":{\"username\":\"a\"}}}" },
	};
	setup(accepted, 1, 60, 60);
	CHECK(ask("Bearer t", NULL, 0) == 503);
	teardown();
}

/* Authorization: one SAR per (token, attributes), with the user the
 * TokenReview named and never the token. */
static void test_authorize(void)
{
	struct http_stub_route routes[] = {
		{ .match = "tokenreviews", .response = TR_ALICE },
		{ .match = "subjectaccessreviews", .response = SAR_ALLOW }
	};
	setup(routes, 2, 60, 60);
	cur_at = &list_pods;
	CHECK(ask("Bearer sekrit-tok", NULL, 0) == 200);
	CHECK(http_stub_count(&stub) == 2);
	CHECK_STR(
		req_line(1),
		"POST /apis/authorization.k8s.io/v1/subjectaccessreviews HTTP/1.1");
	const char *b = req_body(1);
	CHECK(strstr(b,
		     "\"spec\":{\"user\":\"alice\",\"uid\":\"u1\",\"groups\":[\"dev\"]") !=
	      NULL);
	CHECK(strstr(b,
		     "\"resourceAttributes\":{\"namespace\":\"team-a\",\"verb\":\"list\","
		     "\"group\":\"\",\"version\":\"v1\",\"resource\":\"pods\"") !=
	      NULL);
	CHECK(strstr(b, "sekrit") == NULL);

	CHECK(cached("Bearer sekrit-tok", &list_pods) == PROXY_AUTHN_ALLOWED);
	CHECK(ask("Bearer sekrit-tok", NULL, 0) == 200);
	CHECK(http_stub_count(&stub) == 2);
	/* another namespace, verb or subresource is another question */
	struct proxy_authn_attrs other = list_pods;
	other.ns = "kube-system";
	CHECK(cached("Bearer sekrit-tok", &other) == PROXY_AUTHN_MISS);
	other = list_pods;
	other.verb = "watch";
	CHECK(cached("Bearer sekrit-tok", &other) == PROXY_AUTHN_MISS);
	other = list_pods;
	other.ns = ""; /* cluster-wide needs a cluster-wide grant */
	CHECK(cached("Bearer sekrit-tok", &other) == PROXY_AUTHN_MISS);
	/* fields shifted between attributes do not collide */
	other = list_pods;
	other.ns = "";
	other.name = "team-a";
	CHECK(cached("Bearer sekrit-tok", &other) == PROXY_AUTHN_MISS);
	/* another token with the same attributes is asked about */
	CHECK(cached("Bearer other-tok", &list_pods) == PROXY_AUTHN_MISS);
	/* and the token alone is known */
	CHECK(cached("Bearer sekrit-tok", NULL) == PROXY_AUTHN_ALLOWED);
	teardown();

	/* --authn-allow-ttl=0: nothing kept, reviews every time */
	setup(routes, 2, 0, 60);
	cur_at = &list_pods;
	CHECK(ask("Bearer t", NULL, 0) == 200);
	CHECK(cached("Bearer t", &list_pods) == PROXY_AUTHN_MISS);
	CHECK(cached("Bearer t", NULL) == PROXY_AUTHN_MISS);
	CHECK(ask("Bearer t", NULL, 0) == 200);
	CHECK(http_stub_count(&stub) == 4);
	teardown();
}

/* Denied: 403 with the apiserver's own wording, from the cache too. */
static void test_forbidden(void)
{
	struct http_stub_route routes[] = {
		{ .match = "tokenreviews", .response = TR_ALICE },
		{ .match = "subjectaccessreviews", .response = SAR_DENY }
	};
	char out[2048];
	setup(routes, 2, 60, 60);
	cur_at = &list_pods;
	const char *want =
		"pods is forbidden: User \"alice\" cannot list resource "
		"\"pods\" in API group \"\" in the namespace \"team-a\": "
		"no RBAC policy matched|{\"kind\":\"pods\"}";
	CHECK(ask("Bearer t", out, sizeof(out)) == 403);
	CHECK_STR(out, want);
	CHECK(cached("Bearer t", &list_pods) == PROXY_AUTHN_FORBIDDEN);
	CHECK_STR(msg,
		  "pods is forbidden: User \"alice\" cannot list resource "
		  "\"pods\" in API group \"\" in the namespace \"team-a\": "
		  "no RBAC policy matched");
	CHECK(http_stub_count(&stub) == 2);

	struct proxy_authn_attrs dep = {
		.resource = true,
		.verb = "get",
		.group = "apps",
		.version = "v1",
		.res = "deployments",
		.sub = "scale",
		.ns = "",
		.name = "web",
		.path = "",
	};
	cur_at = &dep;
	CHECK(ask("Bearer t", out, sizeof(out)) == 403);
	CHECK_STR(
		out,
		"deployments.apps \"web\" is forbidden: User \"alice\" cannot "
		"get resource \"deployments/scale\" in API group \"apps\" at "
		"the cluster scope: no RBAC policy matched|"
		"{\"name\":\"web\",\"group\":\"apps\",\"kind\":\"deployments\"}");

	struct proxy_authn_attrs metrics = {
		.resource = false,
		.verb = "get",
		.group = "",
		.version = "",
		.res = "",
		.sub = "",
		.ns = "",
		.name = "",
		.path = "/metrics",
	};
	cur_at = &metrics;
	CHECK(ask("Bearer t", out, sizeof(out)) == 403);
	CHECK_STR(out,
		  "forbidden: User \"alice\" cannot get path \"/metrics\": "
		  "no RBAC policy matched|{}");
	CHECK(strstr(req_body(3),
		     "\"nonResourceAttributes\":{\"path\":\"/metrics\","
		     "\"verb\":\"get\"}") != NULL);
	teardown();

	/* allowed and denied at once (a deny-list authorizer): denied */
	struct http_stub_route both[] = {
		{ .match = "tokenreviews", .response = TR_ALICE },
		{ .match = "subjectaccessreviews",
		  .response = R201(
			  "{\"status\":{\"allowed\":true,\"denied\":true}}") },
	};
	setup(both, 2, 60, 60);
	cur_at = &list_pods;
	CHECK(ask("Bearer t", out, sizeof(out)) == 403);
	CHECK(strstr(out, "pods is forbidden: User \"alice\"") == out);
	teardown();

	/* the proxy may not create SARs: 503, never an allow */
	struct http_stub_route nosar[] = {
		{ .match = "tokenreviews", .response = TR_ALICE },
		{ .match = "subjectaccessreviews",
		  .response = "HTTP/1.1 403 Forbidden\r\n" HDRS
			      "{\"status\":{\"allowed\":true}}" },
	};
	setup(nosar, 2, 60, 60);
	cur_at = &list_pods;
	CHECK(ask("Bearer t", NULL, 0) == 503);
	CHECK(cached("Bearer t", &list_pods) == PROXY_AUTHN_MISS);
	teardown();
}

/* The token and attributes are JSON-escaped in the reviews. */
static void test_injection(void)
{
	struct http_stub_route routes[] = { { .match = "tokenreviews",
					      .response = TR_FORGED } };
	setup(routes, 1, 60, 60);
	CHECK(ask("Bearer x\",\"authenticated\":true,\"a\":\"", NULL, 0) ==
	      401);
	CHECK(strstr(req_body(0),
		     "{\"token\":\"x\\\",\\\"authenticated\\\":true,"
		     "\\\"a\\\":\\\"\"}") != NULL);
	teardown();

	struct http_stub_route r2[] = {
		{ .match = "tokenreviews", .response = TR_ALICE },
		{ .match = "subjectaccessreviews", .response = SAR_DENY }
	};
	setup(r2, 2, 60, 60);
	struct proxy_authn_attrs evil = list_pods;
	evil.ns = "a\",\"verb\":\"*";
	cur_at = &evil;
	CHECK(ask("Bearer t", NULL, 0) == 403);
	CHECK(strstr(req_body(1),
		     "\"namespace\":\"a\\\",\\\"verb\\\":\\\"*\",\"verb\":\"list\"") !=
	      NULL);
	teardown();

	/* a user name the upstream returned with quotes in it (a webhook
	 * authenticator's, say) cannot add groups to the SAR */
	struct http_stub_route r3[] = {
		{ .match = "tokenreviews",
		  .response = R201(
			  "{\"status\":{\"authenticated\":true,"
			  "\"user\":{\"username\":\"eve\\\",\\\"groups\\\":[\\\"system:masters\\\"],"
			  "\\\"x\\\":\\\"\"}}}") },
		{ .match = "subjectaccessreviews", .response = SAR_DENY },
	};
	setup(r3, 2, 60, 60);
	cur_at = &list_pods;
	char out[2048];
	CHECK(ask("Bearer t", out, sizeof(out)) == 403);
	CHECK(strstr(req_body(1),
		     "\"spec\":{\"user\":\"eve\\\",\\\"groups\\\":[\\\"system:masters"
		     "\\\"],\\\"x\\\":\\\"\",\"uid\":\"\",\"groups\":[]") !=
	      NULL);
	CHECK(strstr(out,
		     "User \"eve\",\"groups\":[\"system:masters\"],\"x\":\"\" cannot list") !=
	      NULL);
	teardown();
}

/* Read what fd 2 got while fn ran. */
static void capture_stderr(void (*fn)(void), char *out, size_t len)
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

static long outage_codes[3];

static void outage_requests(void)
{
	outage_codes[0] = ask("Bearer tok-in-the-log?", NULL, 0);
	outage_codes[1] = ask("Bearer tok-in-the-log?", NULL, 0);
	outage_codes[2] = ask("Bearer tok-in-the-log?", NULL, 0);
}

/* An upstream that fails: 503, nothing cached, one warning without the
 * token, and a note when it answers again. */
static void test_upstream_failing(void)
{
	struct http_stub_route routes[] = {
		{ .match = "tokenreviews", .response = R500, .once = true },
		{ .match = "tokenreviews", .response = R500, .once = true },
		{ .match = "tokenreviews", .response = TR_ALICE }
	};
	char log[8192];
	setup(routes, 3, 60, 60);
	capture_stderr(outage_requests, log, sizeof(log));
	CHECK(outage_codes[0] == 503 && outage_codes[1] == 503 &&
	      outage_codes[2] == 200);
	CHECK(http_stub_count(&stub) == 3);
	CHECK(strstr(log, "delegated auth: POST /apis/authentication.k8s.io/v1/"
			  "tokenreviews") != NULL);
	/* warned once for the outage, not per request */
	const char *w = strstr(log, "delegated auth: POST");
	CHECK(w && !strstr(w + 1, "delegated auth: POST"));
	CHECK(strstr(log, "answers reviews again") != NULL);
	CHECK(strstr(log, "tok-in-the-log") == NULL);
	teardown();

	/* nobody listening at all */
	struct http_stub_route none[] = { { .match = "x", .response = R500 } };
	setup(none, 1, 60, 60);
	teardown(); /* the port is closed now */
	up = (struct cache_upstream){ .server = up_url };
	cur = proxy_authn_new(&up, 60, 60, 1000);
	CHECK(cur != NULL);
	cur_at = NULL;
	capture_stderr(outage_requests, log, sizeof(log));
	CHECK(outage_codes[0] == 503 && outage_codes[2] == 503);
	CHECK(strstr(log, "tok-in-the-log") == NULL);
	CHECK(cached("Bearer tok-in-the-log?", NULL) == PROXY_AUTHN_MISS);
	proxy_authn_free(cur);
	cur = NULL;
}

/* A client that gives up while its review hangs: the job is abandoned,
 * and stop() ends the hung review promptly (ASan checks nothing leaks). */
static void test_abandon_and_stop(void)
{
	struct http_stub_route routes[] = {
		{ .match = "tokenreviews",
		  .response =
			  "HTTP/1.1 201 Created\r\nContent-Length: 100\r\n\r\n{",
		  .hold = true },
	};
	setup(routes, 1, 60, 60);
	CHECK(ask_to("Bearer slow", NULL, 0, 300) == -1); /* timed out */
	CHECK(http_stub_count(&stub) == 1);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	proxy_authn_stop(cur);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK(t1.tv_sec - t0.tv_sec < 5);
	/* stopped: no more reviews start, the client is told to come back */
	CHECK(ask("Bearer another", NULL, 0) == 429);
	CHECK(http_stub_count(&stub) == 1);
	/* the caches still answer, and free after stop is fine */
	CHECK(cached(NULL, NULL) == PROXY_AUTHN_UNAUTHENTICATED);
	teardown();
}

struct client {
	pthread_t th;
	char authz[32];
	long code;
};

static void *client_run(void *arg)
{
	struct client *c = arg;
	c->code = ask(c->authz, NULL, 0);
	return NULL;
}

/* Stopping with reviews in flight and more queued behind them (four
 * reviewers, six clients, an upstream that never answers): every client
 * is resumed with a 503, none left hanging, none let through. */
static void test_stop_in_flight(void)
{
	struct http_stub_route routes[] = {
		{ .match = "tokenreviews",
		  .response = "HTTP/1.1 201 Created\r\n"
			      "Content-Length: 100\r\n\r\n{",
		  .hold = true },
	};
	struct client cl[6];
	setup(routes, 1, 60, 60);
	for (int i = 0; i < 6; i++) {
		snprintf(cl[i].authz, sizeof(cl[i].authz), "Bearer waiting-%d",
			 i);
		cl[i].code = 0;
		pthread_create(&cl[i].th, NULL, client_run, &cl[i]);
	}
	for (int i = 0; i < 100 && http_stub_count(&stub) < 1; i++)
		usleep(20 * 1000);
	usleep(200 * 1000); /* the others reach their reviewer or the queue */
	CHECK(http_stub_count(&stub) == 1);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	proxy_authn_stop(cur);
	for (int i = 0; i < 6; i++)
		pthread_join(cl[i].th, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK(t1.tv_sec - t0.tv_sec < 5);
	int n503 = 0;
	for (int i = 0; i < 6; i++)
		n503 += cl[i].code == 503;
	CHECK(n503 == 6);
	/* nothing was decided, so nothing is cached */
	CHECK(cached("Bearer waiting-0", NULL) == PROXY_AUTHN_MISS);
	teardown();
}

/* Attributes longer than a job holds: no review, the client told to come
 * back (429), nothing asked upstream. */
static void test_long_attributes(void)
{
	struct http_stub_route routes[] = { { .match = "tokenreviews",
					      .response = TR_ALICE } };
	static char name[300];
	memset(name, 'n', sizeof(name) - 1);
	struct proxy_authn_attrs at = list_pods;
	at.name = name;
	setup(routes, 1, 60, 60);
	cur_at = &at;
	CHECK(ask("Bearer t", NULL, 0) == 429);
	CHECK(http_stub_count(&stub) == 0);
	teardown();
}

/* Out of memory: NULL and nothing leaked; a job that cannot be made is a
 * 429, the connection not left suspended. */
static void test_alloc(void)
{
	struct cache_upstream u = { .server = "http://127.0.0.1:1" };
	int fails = 0;
	struct proxy_authn *a = NULL;
	for (long n = 1; n < 20 && !a; n++) {
		alloc_fail_after(n);
		a = proxy_authn_new(&u, 60, 60, 1000);
		fails += !a;
		alloc_fail_after(0);
	}
	CHECK(fails == 5); /* the struct, users, denials, sources, decisions */
	CHECK(a != NULL);
	proxy_authn_free(a);

	struct http_stub_route routes[] = { { .match = "tokenreviews",
					      .response = TR_ALICE } };
	setup(routes, 1, 60, 60);
	alloc_fail_after(1);
	CHECK(ask("Bearer t", NULL, 0) == 429);
	CHECK(alloc_failures() == 1);
	alloc_fail_after(0);
	CHECK(http_stub_count(&stub) == 0);
	CHECK(ask("Bearer t", NULL, 0) == 200);
	teardown();
}

/* The users table's slot of a token, as authn.c picks it (the first
 * four bytes of its SHA-256, modulo its 1024 slots). */
static unsigned users_slot(const char *tok)
{
	uint8_t h[32];
	unsigned n = sizeof(h);
	uint32_t v;
	EVP_Digest(tok, strlen(tok), h, &n, EVP_sha256(), NULL);
	memcpy(&v, h, sizeof(v));
	return v % 1024;
}

/* Denied tokens that fall in an accepted token's slot: each is 401 and
 * cached as a denial, and the accepted one stays cached (no review). */
static void test_denial_keeps_allowed(void)
{
	struct http_stub_route routes[] = {
		{ .match = "tokenreviews", .response = TR_ALICE, .once = true },
		{ .match = "tokenreviews", .response = TR_FORGED },
	};
	setup(routes, 2, 60, 60);
	CHECK(ask("Bearer good", NULL, 0) == 200);
	char bad[32];
	int found = 0;
	for (int i = 0; i < 200000 && found < 3; i++) {
		snprintf(bad, sizeof(bad), "junk-%d", i);
		if (users_slot(bad) != users_slot("good"))
			continue;
		found++;
		char authz[48];
		snprintf(authz, sizeof(authz), "Bearer %s", bad);
		CHECK(ask(authz, NULL, 0) == 401);
		/* the denial itself is cached: no second review */
		CHECK(cached(authz, NULL) == PROXY_AUTHN_UNAUTHENTICATED);
		CHECK(ask(authz, NULL, 0) == 401);
	}
	CHECK(found == 3);
	CHECK(http_stub_count(&stub) == 4);
	CHECK(cached("Bearer good", NULL) == PROXY_AUTHN_ALLOWED);
	teardown();
}

/* One address may start source_rate reviews of unknown tokens a second
 * (twice that at once); past it 429, without asking the upstream. A token
 * accepted before is not held to it. */
static void test_source_budget(void)
{
	struct http_stub_route routes[] = {
		{ .match = "tokenreviews", .response = TR_ALICE, .once = true },
		{ .match = "tokenreviews", .response = TR_FORGED },
		{ .match = "subjectaccessreviews", .response = SAR_ALLOW },
	};
	source_rate = 1;
	setup(routes, 3, 60, 60);
	CHECK(ask("Bearer good", NULL, 0) == 200); /* one of a burst of 2 */
	CHECK(ask("Bearer stranger-1", NULL, 0) == 401);
	CHECK(ask("Bearer stranger-2", NULL, 0) == 429);
	CHECK(ask("Bearer stranger-3", NULL, 0) == 429);
	CHECK(http_stub_count(&stub) == 2);
	/* the known token's access review goes through all the same */
	cur_at = &list_pods;
	CHECK(ask("Bearer good", NULL, 0) == 200);
	CHECK(http_stub_count(&stub) == 3);
	cur_at = NULL;
	teardown();
	source_rate = 1000;
}

int main(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
	struct MHD_Daemon *d = daemon_start();
	CHECK(d != NULL && mhd_port > 0);
	if (!d)
		return check_done("authn");
	test_token_spellings();
	test_no_credentials();
	test_authenticate();
	test_forged();
	test_weak_reviews();
	test_authorize();
	test_forget();
	test_forbidden();
	test_injection();
	test_upstream_failing();
	test_abandon_and_stop();
	test_stop_in_flight();
	test_long_attributes();
	test_alloc();
	test_denial_keeps_allowed();
	test_source_budget();
	MHD_stop_daemon(d);
	curl_global_cleanup();
	return check_done("authn");
}
