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

#define BAD "invalid continue token: continue key is not valid: "

static void test_malformed(void)
{
	static const struct {
		const char *tok, *err;
	} bad[] = {
		/* Go's base64 and encoding/json words, as the apiserver
		 * quotes them */
		{ "bogus-token", BAD
		  "invalid character '\\u0088' in literal null (expecting 'u')" },
		{ "!!!", BAD "illegal base64 data at input byte 0" },
		{ "abc!", BAD "illegal base64 data at input byte 3" },
		{ "abcde", BAD "illegal base64 data at input byte 4" },
		{ "", BAD "unexpected end of JSON input" },
		/* x */
		{ "eA",
		  BAD "invalid character 'x' looking for beginning of value" },
		/* \xe9 (é) */
		{ "6Q", BAD
		  "invalid character '\xc3\xa9' looking for beginning of value" },
		/* {"v":1} */
		{ "eyJ2IjoxfQ", BAD
		  "json: cannot unmarshal number into Go struct field continueToken.v of type string" },
		/* {"v":"meta.k8s.io/v1","rv":"5","start":"a"} */
		{ "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6IjUiLCJzdGFydCI6ImEifQ",
		  BAD
		  "json: cannot unmarshal string into Go struct field continueToken.rv of type int64" },
		/* {"v":"meta.k8s.io/v1","rv":1.5,"start":"a"} */
		{ "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MS41LCJzdGFydCI6ImEifQ",
		  BAD
		  "json: cannot unmarshal number 1.5 into Go struct field continueToken.rv of type int64" },
		/* [1] */
		{ "WzFd", BAD
		  "json: cannot unmarshal array into Go value of type storage.continueToken" },
		/* null */
		{ "bnVsbA",
		  BAD "server does not recognize this encoded version \"\"" },
		/* {"a":1 */
		{ "eyJhIjox", BAD "unexpected end of JSON input" },
		/* {"a" 1} */
		{ "eyJhIiAxfQ", BAD "invalid character '1' after object key" },
		/* {"a":1 "b"} */
		{ "eyJhIjoxICJiIn0",
		  BAD "invalid character '\"' after object key:value pair" },
		/* [1 2] */
		{ "WzEgMl0", BAD "invalid character '2' after array element" },
		/* "\x01" */
		{ "IgEi", BAD "invalid character '\\x01' in string literal" },
		/* tru */
		{ "dHJ1", BAD "unexpected end of JSON input" },
		/* 1. */
		{ "MS4", BAD "unexpected end of JSON input" },
		/* -x */
		{ "LXg", BAD "invalid character 'x' in numeric literal" },
		/* {"\q"} */
		{ "eyJccSJ9",
		  BAD "invalid character 'q' in string escape code" },
		/* "\u12g4" */
		{ "Ilx1MTJnNCI", BAD
		  "invalid character 'g' in \\u hexadecimal character escape" },
		/* {} x */
		{ "e30geA", BAD "invalid character 'x' after top-level value" },
		/* {1} */
		{ "ezF9", BAD
		  "invalid character '1' looking for beginning of object key string" },
		/* {"v":"v2","rv":1,"start":"a"} */
		{ "eyJ2IjoidjIiLCJydiI6MSwic3RhcnQiOiJhIn0",
		  BAD "server does not recognize this encoded version \"v2\"" },
		/* {"v":"meta.k8s.io/v1","start":"a"} */
		{ "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJzdGFydCI6ImEifQ", BAD
		  "incorrect encoded start resourceVersion (version meta.k8s.io/v1)" },
		/* {"v":"meta.k8s.io/v1","rv":0,"start":"a"} */
		{ "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MCwic3RhcnQiOiJhIn0", BAD
		  "incorrect encoded start resourceVersion (version meta.k8s.io/v1)" },
		/* {"v":"meta.k8s.io/v1","rv":1} */
		{ "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MX0",
		  BAD "encoded start key empty (version meta.k8s.io/v1)" },
		/* {"v":"meta.k8s.io/v1","rv":1,"start":"ns/"} */
		{ "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJucy8ifQ",
		  BAD "ns/" },
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
