/*
 * retry: the rule for sending a failed forwarded request again (see
 * retry.h).
 */
#include "proxy/pass/retry.h"

#include <curl/curl.h>
#include <string.h>

bool proxy_retry_idempotent(const char *method)
{
	return method &&
	       (!strcmp(method, "GET") || !strcmp(method, "HEAD") ||
		!strcmp(method, "OPTIONS") || !strcmp(method, "TRACE"));
}

/* The connection went away under the request. */
static bool connection_failure(int rc)
{
	switch (rc) {
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
	case CURLE_SEND_FAIL_REWIND:
		return true;
	default:
		return false;
	}
}

bool proxy_retry_ok(const struct proxy_retry_case *r)
{
	if (r->retried || r->answered || !r->reused || r->body_read ||
	    !connection_failure(r->curl_code))
		return false;
	if (proxy_retry_idempotent(r->method) || r->idempotency_key)
		return true;
	return !r->sent;
}
