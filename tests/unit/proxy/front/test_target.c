/*
 * test_target: the request-target table: what is refused with 400, and
 * the routing path of what is accepted.
 */
#include <errno.h>
#include <string.h>

#include "proxy/front/target.h"
#include "check.h"

static void test_refused(void)
{
	static const char *bad[] = {
		"@127.0.0.1:9/x", /* libcurl: user@host */
		"%40127.0.0.1:9/x",
		"127.0.0.1:9/api",		   /* authority form */
		"http://evil.example/api/v1/pods", /* absolute form */
		"*",
		"",
		"/api/v1/pods%00",		    /* NUL in the path */
		"/api/v1/pods?labelSelector=a%00b", /* and in a query value */
		"/api/v1/pods?x%00=1",
		"/api/v1/pods%0a", /* a decoded control byte */
		"/api/v1/pods%7f",
		"/api/v1/pods%zz", /* a broken escape */
		"/api/v1/pods%4",
		"/api/v1/pods#frag",
		"/api/v1/pods\\x",
		"/api/v1/namespaces/../pods", /* dot segments */
		"/api/v1/namespaces/%2e%2e/pods",
		"/api/v1/namespaces/./pods",
		"/api/v1/..",
		"/api/v1/%2E",
		"/api/v1/pods x",
		"/api/v1/\xc3\xa9",
	};
	char route[256], err[160];
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		err[0] = '\0';
		int rc = proxy_target_check(bad[i], route, sizeof(route), err,
					    sizeof(err));
		if (rc != -EINVAL)
			fprintf(stderr, "accepted #%zu: %s\n", i, bad[i]);
		CHECK(rc == -EINVAL);
		CHECK(err[0] != '\0');
	}
	CHECK(proxy_target_check(NULL, route, sizeof(route), err,
				 sizeof(err)) == -EINVAL);
}

static void test_accepted(void)
{
	static const struct {
		const char *raw, *route;
	} good[] = {
		{ "/api/v1/pods", "/api/v1/pods" },
		{ "/api/v1/namespaces/ns-1/pods?labelSelector=app%3Dweb%2Cx%21%3Dy",
		  "/api/v1/namespaces/ns-1/pods" },
		/* an encoded slash stays inside its segment */
		{ "/api/v1/namespaces/a%2Fb/pods",
		  "/api/v1/namespaces/a%2Fb/pods" },
		{ "/api/v1/namespaces/a%2fb/pods",
		  "/api/v1/namespaces/a%2Fb/pods" },
		/* other escapes are decoded for routing */
		{ "/api/v1/namespaces/ns%2D1/pods",
		  "/api/v1/namespaces/ns-1/pods" },
		{ "/api/v1/namespaces/%2e%2e%2e/pods",
		  "/api/v1/namespaces/.../pods" },
		{ "/", "/" },
		{ "/healthz", "/healthz" },
		{ "/api/v1/pods?watch=1&resourceVersion=0", "/api/v1/pods" },
		/* what follows '?' may hold '/' and '@' */
		{ "/api/v1/pods?labelSelector=app.kubernetes.io/name%3Dx&a=@b",
		  "/api/v1/pods" },
	};
	char route[256], err[160];
	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++) {
		int rc = proxy_target_check(good[i].raw, route, sizeof(route),
					    err, sizeof(err));
		if (rc)
			fprintf(stderr, "refused #%zu %s: %s\n", i, good[i].raw,
				err);
		CHECK(rc == 0);
		if (!rc)
			CHECK_STR(route, good[i].route);
	}
	/* a route buffer too small is an error, never a truncation */
	char tiny[8];
	CHECK(proxy_target_check("/api/v1/pods", tiny, sizeof(tiny), err,
				 sizeof(err)) == -ENAMETOOLONG);
}

int main(void)
{
	test_refused();
	test_accepted();
	return check_done("target");
}
