/*
 * rv: resourceVersion and resourceVersionMatch (see rv.h).
 */
#include "proxy/rv.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cache/parse.h"
#include "config/buf.h"
#include "proxy/request.h"
#include "proxy/reply.h"
#include "proxy/status.h"

enum proxy_rv_error proxy_rv_parse(const char *rv, const char *match,
				   struct proxy_rv_req *q, char *msg,
				   size_t msglen)
{
	memset(q, 0, sizeof(*q));
	bool has_rv = rv && *rv;
	if (has_rv) {
		if (!cache_parse_u64(rv, &q->rv)) {
			snprintf(
				msg, msglen,
				"resourceVersion: Invalid value: \"%.200s\": "
				"strconv.ParseUint: parsing \"%.200s\": invalid syntax",
				rv, rv);
			return PROXY_RV_SYNTAX;
		}
		q->any = q->rv == 0;
	}
	if (!match || !*match)
		return PROXY_RV_OK;
	if (!strcmp(match, "Exact")) {
		q->exact = true;
	} else if (!strcmp(match, "NotOlderThan")) {
		q->not_older = true;
	} else {
		snprintf(msg, msglen,
			 "Unsupported value: \"%.100s\": supported values: "
			 "\"Exact\", \"NotOlderThan\", \"\"",
			 match);
		return PROXY_RV_MATCH;
	}
	if (!has_rv) {
		snprintf(msg, msglen,
			 "Forbidden: resourceVersionMatch is "
			 "forbidden unless resourceVersion is provided");
		return PROXY_RV_MATCH;
	}
	if (q->exact && q->rv == 0) {
		snprintf(msg, msglen,
			 "Forbidden: resourceVersionMatch \"exact\" "
			 "is forbidden for resourceVersion \"0\"");
		return PROXY_RV_MATCH;
	}
	return PROXY_RV_OK;
}

/* The 422 for a refused resourceVersionMatch, with its field cause. */
static enum MHD_Result invalid_match(struct MHD_Connection *c, const char *msg)
{
	struct buf m = BUF_INIT, det = BUF_INIT;
	buf_printf(
		&m,
		"ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: %s",
		msg);
	buf_adds(
		&det,
		"{\"group\":\"meta.k8s.io\",\"kind\":\"ListOptions\",\"causes\":[{\"reason\":");
	buf_adds(&det, !strncmp(msg, "Forbidden", 9) ?
			       "\"FieldValueForbidden\"" :
			       "\"FieldValueNotSupported\"");
	buf_adds(&det, ",\"message\":");
	buf_add_json_str(&det, msg, strlen(msg));
	buf_adds(&det, ",\"field\":\"resourceVersionMatch\"}]}");
	struct proxy_status st = { .reason = PROXY_Invalid,
				   .message = m.p,
				   .details = det.p };
	enum MHD_Result r = proxy_reply_status(c, &st);
	buf_free(&m);
	buf_free(&det);
	return r;
}

bool proxy_rv_read(struct MHD_Connection *c, struct proxy_rv_req *q,
		   enum MHD_Result *res)
{
	const char *rv = NULL, *match = NULL;
	char msg[512];
	proxy_request_arg(c, "resourceVersion", &rv);
	proxy_request_arg(c, "resourceVersionMatch", &match);
	switch (proxy_rv_parse(rv, match, q, msg, sizeof(msg))) {
	case PROXY_RV_OK:
		return true;
	case PROXY_RV_SYNTAX: {
		struct proxy_status st = { .reason = PROXY_InternalError,
					   .message = msg,
					   .no_reason = true };
		*res = proxy_reply_status(c, &st);
		return false;
	}
	default:
		*res = invalid_match(c, msg);
		return false;
	}
}

/* One refusal of a watch's options: its cause's reason and message. */
struct watch_cause {
	const char *reason;
	char msg[160];
};

/* apimachinery's checks of a watch's resourceVersionMatch and
 * sendInitialEvents (present when not NULL), in its order; the causes
 * into c. Returns how many. */
static int watch_causes(const char *match, const char *sie,
			struct watch_cause c[3])
{
	int n = 0;
	bool has_match = match && *match;
	bool not_older = has_match && !strcmp(match, "NotOlderThan");
	if (sie && !not_older) {
		c[n].reason = "FieldValueForbidden";
		snprintf(c[n++].msg, sizeof(c->msg),
			 "Forbidden: sendInitialEvents requires setting "
			 "resourceVersionMatch to NotOlderThan");
	}
	if (has_match && !sie) {
		c[n].reason = "FieldValueForbidden";
		snprintf(c[n++].msg, sizeof(c->msg),
			 "Forbidden: resourceVersionMatch is forbidden for "
			 "watch unless sendInitialEvents is provided");
	}
	if (has_match && !not_older) {
		c[n].reason = "FieldValueNotSupported";
		snprintf(c[n++].msg, sizeof(c->msg),
			 "Unsupported value: \"%.100s\": supported values: "
			 "\"NotOlderThan\"",
			 match);
	}
	return n;
}

/* The aggregate message of n causes, as field.ErrorList words it. */
static void watch_message(const struct watch_cause *c, int n, char *msg,
			  size_t msglen)
{
	struct buf m = BUF_INIT;
	buf_printf(&m, "ListOptions.meta.k8s.io \"\" is invalid: %s",
		   n > 1 ? "[" : "");
	for (int i = 0; i < n; i++)
		buf_printf(&m, "%sresourceVersionMatch: %s", i ? ", " : "",
			   c[i].msg);
	if (n > 1)
		buf_adds(&m, "]");
	snprintf(msg, msglen, "%s", m.p ? m.p : "");
	buf_free(&m);
}

enum proxy_rv_error proxy_rv_parse_watch(const char *rv, const char *match,
					 const char *sie,
					 struct proxy_rv_watch *w, char *msg,
					 size_t msglen)
{
	memset(w, 0, sizeof(*w));
	w->has_rv = rv && *rv;
	bool bad_rv = w->has_rv && !cache_parse_u64(rv, &w->rv);
	if (bad_rv)
		w->rv = 0;
	w->list = sie && *sie && strcmp(sie, "0") && strcasecmp(sie, "false");
	w->initial = sie ? w->list : w->rv == 0;
	struct watch_cause c[3];
	int n = watch_causes(match, sie, c);
	if (n) {
		watch_message(c, n, msg, msglen);
		return PROXY_RV_MATCH;
	}
	if (bad_rv) {
		snprintf(msg, msglen,
			 "resourceVersion: Invalid value: \"%.200s\"", rv);
		return PROXY_RV_SYNTAX;
	}
	return PROXY_RV_OK;
}

/* The 422 for a watch's refused options, with a cause for each. */
static enum MHD_Result invalid_watch(struct MHD_Connection *c,
				     const char *match, const char *sie)
{
	struct watch_cause wc[3];
	int n = watch_causes(match, sie, wc);
	char msg[640];
	struct buf det = BUF_INIT;
	watch_message(wc, n, msg, sizeof(msg));
	buf_adds(&det, "{\"group\":\"meta.k8s.io\",\"kind\":\"ListOptions\","
		       "\"causes\":[");
	for (int i = 0; i < n; i++) {
		buf_printf(&det,
			   "%s{\"reason\":\"%s\",\"message\":", i ? "," : "",
			   wc[i].reason);
		buf_add_json_str(&det, wc[i].msg, strlen(wc[i].msg));
		buf_adds(&det, ",\"field\":\"resourceVersionMatch\"}");
	}
	buf_adds(&det, "]}");
	struct proxy_status st = { .reason = PROXY_Invalid,
				   .message = msg,
				   .details = det.p };
	enum MHD_Result r = proxy_reply_status(c, &st);
	buf_free(&det);
	return r;
}

bool proxy_rv_read_watch(struct MHD_Connection *c, struct proxy_rv_watch *w,
			 enum MHD_Result *res)
{
	const char *rv = NULL, *match = NULL, *sie = NULL;
	char msg[512];
	proxy_request_arg(c, "resourceVersion", &rv);
	proxy_request_arg(c, "resourceVersionMatch", &match);
	proxy_request_arg(c, "sendInitialEvents", &sie);
	switch (proxy_rv_parse_watch(rv, match, sie, w, msg, sizeof(msg))) {
	case PROXY_RV_OK:
		return true;
	case PROXY_RV_SYNTAX:
		*res = proxy_reply_error(c, PROXY_BadRequest, "%s", msg);
		return false;
	default:
		*res = invalid_watch(c, match, sie);
		return false;
	}
}
