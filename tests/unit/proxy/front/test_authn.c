/*
 * test_authn: the verdicts of delegated authentication and authorization
 * (proxy/front/authn.c), through authn_stub.h's daemon, which drives
 * proxy_authn_cached/start/finish the way dispatch.c does, against a
 * scripted upstream answering TokenReviews and SubjectAccessReviews.
 *
 * Covered, as an attacker would try it: no, non-Bearer, empty and
 * oversized credentials refused without asking the upstream; a forged
 * token (authenticated:false), a review without a user name, a review that
 * is not JSON; a token's decision never reused for another token or other
 * attributes; allowed-and-denied SARs refused; the apiserver's 403
 * wording; JSON injection through the token, the attributes or a
 * reviewed user name; the token never sent in a SubjectAccessReview;
 * TTLs of zero; the caches forgotten on a change of what decides access.
 * A failing upstream, stopping, limits and allocation failure are
 * test_authn_faults.c's.
 */
#include <stdio.h>
#include <string.h>

#include "proxy/front/authn.h"
#include "authn_stub.h"
#include "names.h"
#include "check.h"
#include "http_stub.h"

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

/* The longest group and version the apiserver takes (253 and 63 bytes)
 * are asked about whole (they once made the review fail). */
static void test_long_group(void)
{
	struct http_stub_route routes[] = {
		{ .match = "tokenreviews", .response = TR_ALICE },
		{ .match = "subjectaccessreviews", .response = SAR_ALLOW }
	};
	static char group[254], version[64], want[512];
	names_group(group);
	names_label(version, 'v', '1');
	struct proxy_authn_attrs at = list_pods;
	at.group = group;
	at.version = version;
	at.res = "widgets";
	setup(routes, 2, 60, 60);
	cur_at = &at;
	CHECK(ask("Bearer sekrit-tok", NULL, 0) == 200);
	CHECK(http_stub_count(&stub) == 2);
	snprintf(want, sizeof(want),
		 "\"group\":\"%s\",\"version\":\"%s\",\"resource\":"
		 "\"widgets\"",
		 group, version);
	const char *b = req_body(1);
	CHECK(b && strstr(b, want) != NULL);
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

int main(void)
{
	if (!authn_stub_start())
		return check_done("authn");
	test_token_spellings();
	test_no_credentials();
	test_authenticate();
	test_forged();
	test_weak_reviews();
	test_authorize();
	test_long_group();
	test_forget();
	test_forbidden();
	test_injection();
	authn_stub_stop();
	return check_done("authn");
}
