/*
 * test_pretty: when an answer is indented, and the indentation itself
 * (Go's json.Indent with two spaces, as the apiserver writes it).
 */
#include <string.h>

#include "proxy/pretty.h"
#include "check.h"

static void test_indent(void)
{
	const char *in = "{\"kind\":\"Status\",\"metadata\":{},\"list\":[],"
			 "\"a\":[1,{\"b\":\"x,y:{z}\\\"\"}],\"c\":null}\n";
	const char *want = "{\n"
			   "  \"kind\": \"Status\",\n"
			   "  \"metadata\": {},\n"
			   "  \"list\": [],\n"
			   "  \"a\": [\n"
			   "    1,\n"
			   "    {\n"
			   "      \"b\": \"x,y:{z}\\\"\"\n"
			   "    }\n"
			   "  ],\n"
			   "  \"c\": null\n"
			   "}";
	struct buf out = BUF_INIT;
	size_t n = strlen(in) - 1; /* without the newline */
	CHECK(proxy_pretty_indent(in, n, &out) == 0);
	CHECK_STR(out.p, want);
	buf_free(&out);
}

static void test_asked(void)
{
	/* ?pretty wins over the User-Agent, either way */
	CHECK(proxy_pretty_asked("true", NULL));
	CHECK(proxy_pretty_asked("TRUE", "kubectl/v1.32"));
	CHECK(proxy_pretty_asked("1", NULL));
	CHECK(proxy_pretty_asked("t", NULL));
	CHECK(!proxy_pretty_asked("false", "curl/8.5.0"));
	CHECK(!proxy_pretty_asked("0", "Mozilla/5.0 (X11)"));
	CHECK(!proxy_pretty_asked("yes", NULL));
	/* absent or empty: people's clients get it, programs do not */
	CHECK(proxy_pretty_asked(NULL, "curl/8.5.0"));
	CHECK(proxy_pretty_asked("", "Wget/1.21"));
	CHECK(proxy_pretty_asked(NULL, "Mozilla/5.0 (X11; Linux x86_64)"));
	CHECK(!proxy_pretty_asked(NULL, "kubectl/v1.32.0 (linux/amd64)"));
	CHECK(!proxy_pretty_asked(NULL, "python-requests/2.31"));
	CHECK(!proxy_pretty_asked(NULL, "Mozilla/4.0"));
	CHECK(!proxy_pretty_asked(NULL, NULL));
}

static void test_body(void)
{
	struct buf b = BUF_INIT;
	buf_adds(&b, "{\"a\":[]}\n\n");
	proxy_pretty_body(&b);
	CHECK_STR(b.p, "{\n  \"a\": []\n}"); /* no trailing newline */
	buf_free(&b);
	/* an unterminated string is copied to the end, not overrun */
	struct buf out = BUF_INIT;
	CHECK(proxy_pretty_indent("{\"a\":\"x", 7, &out) == 0);
	CHECK_STR(out.p, "{\n  \"a\": \"x");
	buf_free(&out);
}

int main(void)
{
	test_indent();
	test_asked();
	test_body();
	return check_done("pretty");
}
