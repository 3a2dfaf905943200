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
	} else if (strcmp(match, "NotOlderThan")) {
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

#define LIST_OPTIONS_INVALID "ListOptions.meta.k8s.io \"\" is invalid: "

/* The cause reason of a field error, from the words it begins with. */
static const char *cause_reason(const char *detail)
{
	if (!strncmp(detail, "Forbidden", 9))
		return "FieldValueForbidden";
	if (!strncmp(detail, "Unsupported value", 17))
		return "FieldValueNotSupported";
	if (!strncmp(detail, "Required value", 14))
		return "FieldValueRequired";
	return "FieldValueInvalid";
}

/* The 422 for refused ListOptions; msg is the whole message,
 * 'ListOptions.meta.k8s.io "" is invalid: FIELD: DETAIL', and the Status
 * carries its one field cause in details, as the apiserver's does. */
static enum MHD_Result invalid_options(struct MHD_Connection *c,
				       const char *msg)
{
	struct buf det = BUF_INIT;
	const char *field = msg + strlen(LIST_OPTIONS_INVALID);
	const char *sep = strstr(field, ": ");
	buf_adds(&det, "{\"group\":\"meta.k8s.io\",\"kind\":\"ListOptions\"");
	if (sep) {
		const char *detail = sep + 2;
		buf_printf(&det, ",\"causes\":[{\"reason\":\"%s\",\"message\":",
			   cause_reason(detail));
		buf_add_json_str(&det, detail, strlen(detail));
		buf_adds(&det, ",\"field\":");
		buf_add_json_str(&det, field, (size_t)(sep - field));
		buf_adds(&det, "}]");
	}
	buf_adds(&det, "}");
	struct proxy_status st = { .reason = PROXY_Invalid,
				   .message = msg,
				   .details = det.p };
	enum MHD_Result r = proxy_reply_status(c, &st);
	buf_free(&det);
	return r;
}

/* The 422 for a refused resourceVersionMatch (msg: the field error). */
static enum MHD_Result invalid_match(struct MHD_Connection *c, const char *msg)
{
	struct buf m = BUF_INIT;
	buf_printf(&m, LIST_OPTIONS_INVALID "resourceVersionMatch: %s", msg);
	enum MHD_Result r = invalid_options(c, m.p ? m.p : "");
	buf_free(&m);
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

enum proxy_rv_error proxy_rv_parse_watch(const char *rv, const char *match,
					 const char *sie,
					 struct proxy_rv_watch *w, char *msg,
					 size_t msglen)
{
	bool has_sie = sie && *sie;
	memset(w, 0, sizeof(*w));
	w->has_rv = rv && *rv;
	bool bad_rv = w->has_rv && !cache_parse_u64(rv, &w->rv);
	if (bad_rv)
		w->rv = 0;
	w->list = has_sie && !strcasecmp(sie, "true");
	w->initial = has_sie ? w->list : w->rv == 0;
	if (match && *match && !has_sie) {
		snprintf(
			msg, msglen,
			"ListOptions.meta.k8s.io \"\" is invalid: "
			"resourceVersionMatch: Forbidden: resourceVersionMatch "
			"is forbidden for watch unless sendInitialEvents is provided");
		return PROXY_RV_MATCH;
	}
	if (bad_rv) {
		/* the cacher parses it as storage does: the same 500 as a
		 * LIST's */
		snprintf(msg, msglen,
			 "resourceVersion: Invalid value: \"%.200s\": "
			 "strconv.ParseUint: parsing \"%.200s\": invalid syntax",
			 rv, rv);
		return PROXY_RV_SYNTAX;
	}
	return PROXY_RV_OK;
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
	case PROXY_RV_SYNTAX: {
		struct proxy_status st = { .reason = PROXY_InternalError,
					   .message = msg,
					   .no_reason = true };
		*res = proxy_reply_status(c, &st);
		return false;
	}
	default:
		*res = strncmp(msg, LIST_OPTIONS_INVALID,
			       strlen(LIST_OPTIONS_INVALID)) ?
			       proxy_reply_error(c, PROXY_Invalid, "%s", msg) :
			       invalid_options(c, msg);
		return false;
	}
}
