/*
 * test_access: the access log's path. Query values of the parameters
 * the Kubernetes API defines are kept; any other parameter, name and
 * value, is REDACTED, so a token in a query never reaches the log; odd bytes are escaped so a
 * line cannot be forged; a long target is cut, still terminated.
 */
#include <string.h>

#include "proxy/front/access.h"
#include "check.h"

static const char *redact(const char *t)
{
	static char out[512];
	proxy_access_redact(t, out, sizeof(out));
	return out;
}

int main(void)
{
	CHECK_STR(redact("/api/v1/pods"), "/api/v1/pods");
	CHECK_STR(
		redact("/api/v1/pods?limit=5&labelSelector=app%3Dweb&watch=1"),
		"/api/v1/pods?limit=5&labelSelector=app%3Dweb&watch=1");
	CHECK_STR(redact("/api/v1/pods?access_token=s3cr3t&limit=1"),
		  "/api/v1/pods?REDACTED&limit=1");
	CHECK_STR(redact("/x?token=abc&password=p&key"),
		  "/x?REDACTED&REDACTED&REDACTED");
	/* a bare key is redacted too; a known bare key is kept */
	CHECK_STR(redact("/x?s3cr3t&pretty&watch"), "/x?REDACTED&pretty&watch");
	CHECK_STR(redact("/x?eyJhbGciOiJSUzI1NiIsImtpZCI6IjEyMyJ9=1&a%3Db=2"),
		  "/x?REDACTED&REDACTED");
	CHECK_STR(redact("/x?=v&limit=1"), "/x?REDACTED&limit=1");
	/* exec's command line may hold a password */
	CHECK_STR(redact("/x?command=sh&command=pw&stdout=1"),
		  "/x?REDACTED&REDACTED&stdout=1");
	/* a known name only as a whole key */
	CHECK_STR(redact("/x?limitToken=abc&watchx=1"), "/x?REDACTED&REDACTED");
	CHECK_STR(redact("/x?&&limit=1&"), "/x?&&limit=1&");
	/* no control byte, space or quote gets through as such */
	CHECK_STR(redact("/a b\"\n?watch=\x01"), "/a%20b%22%0A?watch=%01");
	char small[16];
	proxy_access_redact("/api/v1/namespaces/default/pods", small,
			    sizeof(small));
	CHECK(strlen(small) < sizeof(small));
	CHECK(strncmp(small, "/api/v1/", 8) == 0);
	return check_done("access");
}
