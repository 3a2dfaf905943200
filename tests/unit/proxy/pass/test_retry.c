/*
 * test_retry: the rule for sending a forwarded request again after its
 * connection failed under it (proxy/pass/retry.c).
 *
 * Covered: an idempotent request (GET, HEAD, OPTIONS, TRACE, or one with
 * an Idempotency-Key) is sent again once, a POST, PUT, PATCH or DELETE
 * only when none of it was written; never a second time, never after
 * some of the answer came, never after its body began to go, never for
 * a fresh connection's failure, never for a timeout, a refused connect,
 * TLS or the proxy's own abort. What the client then gets (the upstream's
 * answer, or a clear 503 after a retry that failed too) is
 * tests/e2e/test_isolation.py's and test_pass.c's.
 */
#include <curl/curl.h>
#include <stdbool.h>

#include "proxy/pass/retry.h"
#include "check.h"

/* A GET on a reused connection that went away before any answer. */
static struct proxy_retry_case base(const char *method)
{
	return (struct proxy_retry_case){
		.method = method,
		.reused = true,
		.sent = true,
		.curl_code = CURLE_HTTP2_STREAM,
	};
}

static void test_idempotent(void)
{
	static const char *const yes[] = { "GET", "HEAD", "OPTIONS", "TRACE" };
	static const char *const no[] = { "POST",   "PUT", "PATCH",
					  "DELETE", "get", "" };
	for (size_t i = 0; i < sizeof(yes) / sizeof(*yes); i++) {
		struct proxy_retry_case r = base(yes[i]);
		CHECK(proxy_retry_idempotent(yes[i]));
		CHECK(proxy_retry_ok(&r));
		r.retried = true; /* once */
		CHECK(!proxy_retry_ok(&r));
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(*no); i++) {
		struct proxy_retry_case r = base(no[i]);
		CHECK(!proxy_retry_idempotent(no[i]));
		CHECK(!proxy_retry_ok(&r)); /* written: it may have acted */
		r.idempotency_key = true; /* the client says it may go twice */
		CHECK(proxy_retry_ok(&r));
		r.idempotency_key = false;
		r.sent = false; /* nothing of it went: safe */
		CHECK(proxy_retry_ok(&r));
		r.body_read = true; /* but its body is not kept */
		CHECK(!proxy_retry_ok(&r));
	}
	CHECK(!proxy_retry_idempotent(NULL));
}

static void test_when(void)
{
	struct proxy_retry_case r = base("GET");
	r.answered = true; /* the upstream answered: its answer stands */
	CHECK(!proxy_retry_ok(&r));
	r = base("GET");
	r.reused = false; /* a fresh connection failing is the upstream's */
	CHECK(!proxy_retry_ok(&r));
	r = base("PUT");
	r.idempotency_key = true;
	r.body_read = true;
	CHECK(!proxy_retry_ok(&r));
	static const int conn[] = {
		CURLE_SEND_ERROR, CURLE_RECV_ERROR,   CURLE_GOT_NOTHING,
		CURLE_HTTP2,	  CURLE_HTTP2_STREAM, CURLE_SEND_FAIL_REWIND
	};
	for (size_t i = 0; i < sizeof(conn) / sizeof(*conn); i++) {
		r = base("GET");
		r.curl_code = conn[i];
		CHECK(proxy_retry_ok(&r));
	}
	static const int other[] = {
		CURLE_OK,
		CURLE_OPERATION_TIMEDOUT,
		CURLE_COULDNT_CONNECT,
		CURLE_COULDNT_RESOLVE_HOST,
		CURLE_PEER_FAILED_VERIFICATION,
		CURLE_SSL_CONNECT_ERROR,
		CURLE_ABORTED_BY_CALLBACK,
		CURLE_WRITE_ERROR,
		CURLE_PARTIAL_FILE,
		CURLE_OUT_OF_MEMORY,
	};
	for (size_t i = 0; i < sizeof(other) / sizeof(*other); i++) {
		r = base("GET");
		r.curl_code = other[i];
		CHECK(!proxy_retry_ok(&r));
	}
}

int main(void)
{
	test_idempotent();
	test_when();
	printf("%d passed, %d failed\n", check_passed, check_failed);
	return check_failed ? 1 : 0;
}
