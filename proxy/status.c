/*
 * status: the table of reasons and the Status body (see status.h).
 */
#include "proxy/status.h"

#include <string.h>

#include "cache/json.h"

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

int proxy_status_code(enum proxy_reason reason)
{
	return reasons[reason].code;
}
