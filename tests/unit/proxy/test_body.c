/*
 * test_body: which Accept-Encoding takes gzip, and that a gzip response
 * is built from pieces, small and large.
 */
#include <string.h>

#include "proxy/body.h"
#include "check.h"

static void test_accepted(void)
{
	CHECK(proxy_gzip_accepted("gzip"));
	CHECK(proxy_gzip_accepted("gzip, deflate, br"));
	CHECK(proxy_gzip_accepted("br, GZIP"));
	CHECK(proxy_gzip_accepted("deflate,gzip;q=0.5"));
	CHECK(proxy_gzip_accepted("*"));
	CHECK(proxy_gzip_accepted("identity, *;q=0.1"));
	CHECK(!proxy_gzip_accepted(NULL));
	CHECK(!proxy_gzip_accepted(""));
	CHECK(!proxy_gzip_accepted("identity"));
	CHECK(!proxy_gzip_accepted("deflate, br"));
	CHECK(!proxy_gzip_accepted("gzip;q=0"));
	CHECK(!proxy_gzip_accepted("gzip;q=0.0, br"));
	CHECK(!proxy_gzip_accepted("gzipx"));
	CHECK(!proxy_gzip_accepted("x-gzip"));
}

static void test_gzip_response(void)
{
	static char big[300 * 1024];
	memset(big, 'a', sizeof(big));
	struct MHD_IoVec v[3] = { { "{\"a\":", 5 },
				  { big, sizeof(big) },
				  { "}", 1 } };
	struct MHD_Response *r = proxy_gzip_response(v, 3, 6 + sizeof(big));
	CHECK(r != NULL);
	if (r)
		MHD_destroy_response(r);
	struct MHD_IoVec one = { "x", 1 };
	r = proxy_gzip_response(&one, 1, 1);
	CHECK(r != NULL);
	if (r)
		MHD_destroy_response(r);
}

int main(void)
{
	test_accepted();
	test_gzip_response();
	return check_done("body");
}
