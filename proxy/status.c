/*
 * status: Status bodies and the shared JSON response headers.
 */
#include "proxy/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cache/json.h"
#include "proxy/pretty.h"
#include "proxy/request.h"

static const struct {
	int code;
	const char *reason;
} reasons[] = {
#define X(code, reason) { code, #reason },
	PROXY_REASONS(X)
#undef X
};

void proxy_status_body(struct buf *b, const struct proxy_status *st)
{
	const char *msg = st->message ? st->message : "";
	buf_printf(b,
		   "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":%s,"
		   "\"status\":\"Failure\",\"message\":",
		   st->metadata ? st->metadata : "{}");
	buf_add_json_str(b, msg, strlen(msg));
	if (!st->no_reason)
		buf_printf(b, ",\"reason\":\"%s\"", reasons[st->reason].reason);
	if (st->details)
		buf_printf(b, ",\"details\":%s", st->details);
	buf_printf(b, ",\"code\":%d}\n", reasons[st->reason].code);
}

void proxy_json_headers(struct MHD_Response *resp)
{
	MHD_add_response_header(resp, "Content-Type", "application/json");
	MHD_add_response_header(resp, "Cache-Control", "no-cache, private");
}

static struct MHD_Response *status_response(const struct proxy_status *st,
					    bool pretty)
{
	struct buf b = BUF_INIT;
	proxy_status_body(&b, st);
	if (pretty && buf_ok(&b))
		proxy_pretty_body(&b);
	struct MHD_Response *resp = proxy_request_from_buf(&b);
	if (!resp)
		return NULL;
	proxy_json_headers(resp);
	if (st->retry_after > 0) {
		char ra[16];
		snprintf(ra, sizeof(ra), "%d", st->retry_after);
		MHD_add_response_header(resp, "Retry-After", ra);
	}
	if (st->close)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION,
					"close");
	return resp;
}

enum MHD_Result proxy_status_send(struct MHD_Connection *conn,
				  const struct proxy_status *st)
{
	struct MHD_Response *resp =
		status_response(st, proxy_pretty_wanted(conn));
	if (!resp)
		return MHD_NO;
	return proxy_request_queue(conn, reasons[st->reason].code, resp);
}

enum MHD_Result proxy_error(struct MHD_Connection *conn,
			    enum proxy_reason reason, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	struct proxy_status st = { .reason = reason, .message = msg };
	return proxy_status_send(conn, &st);
}

enum MHD_Result proxy_too_many(struct MHD_Connection *conn, const char *fmt,
			       ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	struct proxy_status st = {
		.reason = PROXY_TooManyRequests,
		.message = msg,
		.retry_after = 1,
		.details = "{\"retryAfterSeconds\":1}",
	};
	return proxy_status_send(conn, &st);
}

enum MHD_Result proxy_not_found(struct MHD_Connection *conn,
				const char *resource, const char *name)
{
	struct buf msg = BUF_INIT, det = BUF_INIT;
	buf_printf(&msg, "%s \"%s\" not found", resource, name);
	buf_adds(&det, "{\"name\":");
	buf_add_json_str(&det, name, strlen(name));
	buf_adds(&det, ",\"kind\":");
	buf_add_json_str(&det, resource, strlen(resource));
	buf_addc(&det, '}');
	struct proxy_status st = { .reason = PROXY_NotFound,
				   .message = msg.p,
				   .details = det.p };
	enum MHD_Result r = buf_ok(&msg) && buf_ok(&det) ?
				    proxy_status_send(conn, &st) :
				    MHD_NO;
	buf_free(&msg);
	buf_free(&det);
	return r;
}
