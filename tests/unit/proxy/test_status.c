/*
 * test_status: the Status bodies the proxy answers errors with, byte for
 * byte as the apiserver writes them.
 */
#include <string.h>

#include "proxy/status.h"
#include "check.h"

static void test_bodies(void)
{
	struct buf b = BUF_INIT;
	struct proxy_status st = {
		.reason = PROXY_NotFound,
		.message = "pods \"x\" not found",
		.details = "{\"name\":\"x\",\"kind\":\"pods\"}"
	};
	proxy_status_body(&b, &st);
	CHECK_STR(
		b.p,
		"{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
		"\"status\":\"Failure\",\"message\":\"pods \\\"x\\\" not found\","
		"\"reason\":\"NotFound\",\"details\":{\"name\":\"x\",\"kind\":\"pods\"},"
		"\"code\":404}\n");
	buf_reset(&b);

	/* an unparsable resourceVersion: 500 with no reason */
	st = (struct proxy_status){ .reason = PROXY_InternalError,
				    .message = "m",
				    .no_reason = true };
	proxy_status_body(&b, &st);
	CHECK_STR(b.p,
		  "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
		  "\"status\":\"Failure\",\"message\":\"m\",\"code\":500}\n");
	buf_reset(&b);

	/* every reason carries its own code */
	static const struct {
		enum proxy_reason r;
		const char *tail;
	} codes[] = {
		{ PROXY_BadRequest,
		  "\"reason\":\"BadRequest\",\"code\":400}\n" },
		{ PROXY_Expired, "\"reason\":\"Expired\",\"code\":410}\n" },
		{ PROXY_Invalid, "\"reason\":\"Invalid\",\"code\":422}\n" },
		{ PROXY_TooManyRequests,
		  "\"reason\":\"TooManyRequests\",\"code\":429}\n" },
		{ PROXY_Timeout, "\"reason\":\"Timeout\",\"code\":504}\n" },
	};
	for (size_t i = 0; i < sizeof(codes) / sizeof(*codes); i++) {
		st = (struct proxy_status){ .reason = codes[i].r,
					    .message = NULL,
					    .metadata = "{\"x\":1}" };
		buf_reset(&b);
		proxy_status_body(&b, &st);
		size_t n = strlen(codes[i].tail);
		CHECK(b.len > n && !strcmp(b.p + b.len - n, codes[i].tail));
		CHECK(strstr(b.p, "\"metadata\":{\"x\":1},") != NULL);
		CHECK(strstr(b.p, "\"message\":\"\"") != NULL);
	}
	buf_free(&b);
}

int main(void)
{
	test_bodies();
	return check_done("status");
}
