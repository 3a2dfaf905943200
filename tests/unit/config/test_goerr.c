/*
 * test_goerr: Go's error texts, byte for byte as Go's encoding/base64 and
 * encoding/json write them for the same input.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/goerr.h"
#include "check.h"

static void test_base64(void)
{
	CHECK(goerr_base64url_offset("") == -1);
	CHECK(goerr_base64url_offset("bogus-token") == -1);
	CHECK(goerr_base64url_offset("ab_-") == -1);
	CHECK(goerr_base64url_offset("ab\r\ncd") == -1); /* skipped */
	CHECK(goerr_base64url_offset("!!!") == 0);
	CHECK(goerr_base64url_offset("abc=") == 3); /* no padding in Raw */
	CHECK(goerr_base64url_offset("ab+/") == 2); /* not the URL alphabet */
	/* a lone last character of a quantum */
	CHECK(goerr_base64url_offset("abcde") == 4);
	CHECK(goerr_base64url_offset("a") == 0);
}

static void test_quote(void)
{
	static const struct {
		unsigned char c;
		const char *q;
	} cases[] = {
		{ 'x', "'x'" },	       { '\'', "'\\''" },
		{ '"', "'\"'" },       { '\n', "'\\n'" },
		{ 0x01, "'\\x01'" },   { 0x7f, "'\\x7f'" },
		{ 0x88, "'\\u0088'" }, { 0xa0, "'\\u00a0'" },
		{ 0xad, "'\\u00ad'" }, { 0xe9, "'\xc3\xa9'" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char q[16];
		goerr_quote_char(cases[i].c, q, sizeof(q));
		CHECK_STR(q, cases[i].q);
	}
}

static void check_json(const char *in, const char *msg)
{
	char got[160] = "";
	int r = goerr_json_syntax((const unsigned char *)in, strlen(in), got,
				  sizeof(got));
	if (!msg) {
		CHECK(r == 0);
		return;
	}
	CHECK(r == -EINVAL);
	CHECK_STR(got, msg);
}

static void test_json(void)
{
	check_json("{\"a\":[1,-2.5e+3,true,false,null,\"\\u00e9\\n\"]}", NULL);
	check_json(" 0 ", NULL);
	check_json("", "unexpected end of JSON input");
	check_json("  ", "unexpected end of JSON input");
	check_json("{\"a\":", "unexpected end of JSON input");
	check_json("nul", "unexpected end of JSON input");
	check_json("-", "unexpected end of JSON input");
	check_json("x", "invalid character 'x' looking for beginning of value");
	check_json(
		"n\x88",
		"invalid character '\\u0088' in literal null (expecting 'u')");
	check_json("fals0",
		   "invalid character '0' in literal false (expecting 'e')");
	check_json("tRue",
		   "invalid character 'R' in literal true (expecting 'r')");
	check_json("{1}", "invalid character '1' looking for beginning of "
			  "object key string");
	check_json("{\"a\" 1}", "invalid character '1' after object key");
	check_json("{\"a\":1 2}",
		   "invalid character '2' after object key:value pair");
	check_json("[1 2]", "invalid character '2' after array element");
	check_json("[1,]",
		   "invalid character ']' looking for beginning of value");
	check_json("{} {}", "invalid character '{' after top-level value");
	check_json("\"\t\"", "invalid character '\\t' in string literal");
	check_json("\"\\x\"", "invalid character 'x' in string escape code");
	check_json("\"\\u12z4\"",
		   "invalid character 'z' in \\u hexadecimal character escape");
	check_json("-a", "invalid character 'a' in numeric literal");
	check_json("1.e", "invalid character 'e' after decimal point in "
			  "numeric literal");
	check_json("1e+x", "invalid character 'x' in exponent of numeric "
			   "literal");
	check_json("01", "invalid character '1' after top-level value");

	/* Go's nesting limit, 10000 levels */
	char *deep = malloc(20003);
	CHECK(deep != NULL);
	if (!deep)
		return;
	memset(deep, '[', 10000);
	memset(deep + 10000, ']', 10000);
	deep[20000] = '\0';
	check_json(deep, NULL);
	memset(deep, '[', 10001);
	memset(deep + 10001, ']', 10001);
	deep[20002] = '\0';
	check_json(deep, "invalid character '[' exceeded max depth");
	free(deep);
}

int main(void)
{
	test_base64();
	test_quote();
	test_json();
	return check_done("goerr");
}
