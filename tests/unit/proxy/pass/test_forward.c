/*
 * test_forward: the one rule set (proxy/pass/forward.c) by which passthrough
 * and upgrade requests decide which client headers go upstream.
 *
 * Covered: identity headers dropped only from a client without
 * credentials, in any case; hop-by-hop headers, Host and Expect never
 * forwarded; Upgrade forwarded only on an upgrade; the hop-by-hop test
 * on a name that is not NUL-terminated, as libcurl hands it over. Who
 * the upstream sees (proxy_forward_who) is covered through both users in
 * test_pass.c and tests/e2e/test_upgrade.py, test_security.py.
 */
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "proxy/pass/forward.h"
#include "check.h"

static const char *const identity[] = {
	"Impersonate-User",    "impersonate-group",
	"Impersonate-Uid",     "Impersonate-Extra-Scopes",
	"X-Remote-User",       "x-remote-group",
	"X-Remote-Extra-Foo",  "Authorization",
	"Proxy-Authorization", "COOKIE",
};

static const char *const never[] = {
	"Connection",
	"Keep-Alive",
	"Transfer-Encoding",
	"TE",
	"Trailer",
	"Proxy-Authenticate",
	"Proxy-Authorization",
	"Content-Length",
	"Host",
	"expect",
};

static const char *const always[] = {
	"Accept",
	"User-Agent",
	"Content-Type",
	"X-Stream-Protocol-Version",
	"Sec-WebSocket-Protocol",
	"Sec-WebSocket-Key",
	"Accept-Encoding",
};

static void test_identity(void)
{
	for (size_t i = 0; i < sizeof(identity) / sizeof(*identity); i++)
		for (int upg = 0; upg < 2; upg++) {
			CHECK(!proxy_forward_header(identity[i], true, upg));
			/* a client with credentials keeps its own, bar the
			 * proxy's hop */
			bool hop =
				!strcasecmp(identity[i], "Proxy-Authorization");
			CHECK(proxy_forward_header(identity[i], false, upg) ==
			      !hop);
		}
}

static void test_hops(void)
{
	for (size_t i = 0; i < sizeof(never) / sizeof(*never); i++)
		for (int strip = 0; strip < 2; strip++)
			for (int upg = 0; upg < 2; upg++)
				CHECK(!proxy_forward_header(never[i], strip,
							    upg));
	for (size_t i = 0; i < sizeof(always) / sizeof(*always); i++)
		for (int strip = 0; strip < 2; strip++)
			for (int upg = 0; upg < 2; upg++)
				CHECK(proxy_forward_header(always[i], strip,
							   upg));
	/* Upgrade is what an upgrade request is about, and nothing else's */
	CHECK(proxy_forward_header("Upgrade", true, true));
	CHECK(proxy_forward_header("upgrade", false, true));
	CHECK(!proxy_forward_header("Upgrade", false, false));
	/* a prefix or an extension of a hop-by-hop name is not one */
	CHECK(proxy_forward_header("Connections", false, false));
	CHECK(proxy_forward_header("Hosts", false, false));
}

static void test_hop_by_hop(void)
{
	const char line[] = "Transfer-Encoding: chunked\r\n";
	CHECK(proxy_forward_hop_by_hop(line, strcspn(line, ":")));
	CHECK(!proxy_forward_hop_by_hop(line, 8)); /* "Transfer" */
	CHECK(proxy_forward_hop_by_hop("upgrade", 7));
	CHECK(proxy_forward_hop_by_hop("Content-Length: 3", 14));
	CHECK(!proxy_forward_hop_by_hop("Content-Type", 12));
	CHECK(!proxy_forward_hop_by_hop("", 0));
	/* an answer's headers: CORS stays behind as well */
	CHECK(proxy_forward_answer_kept("Audit-Id", 8));
	CHECK(!proxy_forward_answer_kept("Connection", 10));
	CHECK(!proxy_forward_answer_kept("Access-Control-Allow-Origin", 27));
	CHECK(!proxy_forward_answer_kept("ACCESS-CONTROL-MAX-AGE", 22));
	CHECK(proxy_forward_answer_kept("Access-Control", 14));
}

/* Header names must be tokens: white space before the colon (which
 * libmicrohttpd keeps in the name), separators and empty names are not. */
static void test_token(void)
{
	CHECK(proxy_forward_token("Content-Length"));
	CHECK(proxy_forward_token("X-Foo_bar.1!#$%&'*+^`|~"));
	CHECK(!proxy_forward_token("Content-Length "));
	CHECK(!proxy_forward_token("X Foo"));
	CHECK(!proxy_forward_token("X-Foo\t"));
	CHECK(!proxy_forward_token("X:Foo"));
	CHECK(!proxy_forward_token("X(Foo)"));
	CHECK(!proxy_forward_token("X\"Foo"));
	CHECK(!proxy_forward_token("X\x80"
				   "Foo"));
	CHECK(!proxy_forward_token(""));
	CHECK(!proxy_forward_token(NULL));
}

int main(void)
{
	test_identity();
	test_hops();
	test_hop_by_hop();
	test_token();
	return check_done("forward");
}
