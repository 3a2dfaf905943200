/*
 * test_continue: continue tokens round-trip, match the apiserver's bytes,
 * and malformed ones are refused with its messages.
 */
#include <errno.h>
#include <string.h>

#include "proxy/continue.h"
#include "check.h"

static void test_roundtrip(void)
{
	struct buf b = BUF_INIT;
	uint64_t rv = 0;
	char ns[64], name[64], err[160];
	proxy_continue_encode(&b, 1234, "default", "web-1");
	CHECK(buf_ok(&b));
	CHECK(proxy_continue_decode(b.p, &rv, ns, sizeof(ns), name,
				    sizeof(name), err, sizeof(err)) == 0);
	CHECK(rv == 1234);
	CHECK_STR(ns, "default");
	CHECK_STR(name, "web-1");
	buf_free(&b);

	/* cluster scope: no namespace part */
	proxy_continue_encode(&b, 7, "", "node-a");
	CHECK(proxy_continue_decode(b.p, &rv, ns, sizeof(ns), name,
				    sizeof(name), err, sizeof(err)) == 0);
	CHECK(rv == 7);
	CHECK_STR(ns, "");
	CHECK_STR(name, "node-a");
	buf_free(&b);
}

/* The apiserver's own token for {"v":"meta.k8s.io/v1","rv":5,
 * "start":"a/b\u0000"}, so that a client may hand ours to it. */
static void test_apiserver_bytes(void)
{
	struct buf b = BUF_INIT;
	proxy_continue_encode(&b, 5, "a", "b");
	CHECK_STR(
		b.p,
		"eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NSwic3RhcnQiOiJhL2JcdTAwMDAifQ");
	buf_free(&b);
}

static void test_malformed(void)
{
	static const struct {
		const char *tok, *err;
	} bad[] = {
		{ "bogus-token",
		  "invalid continue token: continue key is not valid" },
		{ "!!!", "invalid continue token: continue key is not valid" },
		{ "", "invalid continue token: continue key is not valid" },
		/* [1] */
		{ "WzFd", "invalid continue token: continue key is not valid" },
		/* {"v":"v2","rv":1,"start":"a"} */
		{ "eyJ2IjoidjIiLCJydiI6MSwic3RhcnQiOiJhIn0",
		  "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)" },
		/* {"v":"meta.k8s.io/v1","start":"a"} */
		{ "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJzdGFydCI6ImEifQ",
		  "continue key is not valid: invalid start or resourceVersion" },
		/* {"v":"meta.k8s.io/v1","rv":1,"start":"ns/"} */
		{ "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJucy8ifQ",
		  "continue key is not valid: bad start key" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		uint64_t rv = 0;
		char ns[64], name[64], err[160] = "";
		CHECK(proxy_continue_decode(bad[i].tok, &rv, ns, sizeof(ns),
					    name, sizeof(name), err,
					    sizeof(err)) == -EINVAL);
		CHECK_STR(err, bad[i].err);
	}
	/* a name longer than the caller's room is refused, not cut */
	struct buf b = BUF_INIT;
	uint64_t rv;
	char ns[8], name[4], err[160];
	proxy_continue_encode(&b, 1, "default", "longname");
	CHECK(proxy_continue_decode(b.p, &rv, ns, sizeof(ns), name,
				    sizeof(name), err, sizeof(err)) == -EINVAL);
	buf_free(&b);
}

int main(void)
{
	test_roundtrip();
	test_apiserver_bytes();
	test_malformed();
	return check_done("continue");
}
