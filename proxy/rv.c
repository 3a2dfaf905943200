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

/* strconv.ParseUint's error for a resourceVersion that is not a
 * uint64, as storage's ParseResourceVersion words it. */
static void syntax_msg(const char *rv, char *msg, size_t msglen)
{
	bool digits = strspn(rv, "0123456789") == strlen(rv);
	snprintf(msg, msglen,
		 "resourceVersion: Invalid value: \"%.200s\": "
		 "strconv.ParseUint: parsing \"%.200s\": %s",
		 rv, rv, digits ? "value out of range" : "invalid syntax");
}

/* Append one field error to msg, after a newline when there is one. */
static void add_error(char *msg, size_t msglen, const char *err)
{
	size_t n = strlen(msg);
	snprintf(msg + n, msglen - n, "%s%s", n ? "\n" : "", err);
}

enum proxy_rv_error proxy_rv_parse(const char *rv, const char *match,
				   struct proxy_rv_req *q, char *msg,
				   size_t msglen)
{
	memset(q, 0, sizeof(*q));
	bool has_rv = rv && *rv;
	bool bad_rv = has_rv && !cache_parse_u64(rv, &q->rv);
	q->any = has_rv && !bad_rv && q->rv == 0;
	/* the apiserver validates the options before its storage parses
	 * the resourceVersion, and reports every field error at once */
	msg[0] = '\0';
	if (match && *match) {
		q->exact = !strcmp(match, "Exact");
		q->not_older = !strcmp(match, "NotOlderThan");
		if (!has_rv)
			add_error(
				msg, msglen,
				"Forbidden: resourceVersionMatch is "
				"forbidden unless resourceVersion is provided");
		if (!q->exact && !q->not_older) {
			char e[200];
			snprintf(e, sizeof(e),
				 "Unsupported value: \"%.100s\": supported "
				 "values: \"Exact\", \"NotOlderThan\", \"\"",
				 match);
			add_error(msg, msglen, e);
		}
		if (q->exact && has_rv && !bad_rv && q->rv == 0)
			add_error(msg, msglen,
				  "Forbidden: resourceVersionMatch \"exact\" "
				  "is forbidden for resourceVersion \"0\"");
	}
	if (msg[0])
		return PROXY_RV_MATCH;
	if (bad_rv) {
		q->rv = 0;
		syntax_msg(rv, msg, msglen);
		return PROXY_RV_SYNTAX;
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

/* The 422 for refused ListOptions: errs holds one "FIELD: DETAIL" a line.
 * The message is the apiserver's, 'ListOptions.meta.k8s.io "" is
 * invalid: ' then the one error, or all of them as "[a, b]"; details
 * carry one cause a field error. */
static enum MHD_Result invalid_options(struct MHD_Connection *c,
				       const char *errs)
{
	struct buf m = BUF_INIT, det = BUF_INIT;
	bool many = strchr(errs, '\n') != NULL;
	buf_printf(&m, LIST_OPTIONS_INVALID "%s", many ? "[" : "");
	buf_adds(&det, "{\"group\":\"meta.k8s.io\",\"kind\":\"ListOptions\","
		       "\"causes\":[");
	for (const char *e = errs; *e;) {
		size_t n = strcspn(e, "\n");
		const char *sep = memchr(e, ':', n);
		size_t fl = sep && sep + 1 < e + n && sep[1] == ' ' ?
				    (size_t)(sep - e) :
				    0;
		const char *detail = fl ? sep + 2 : e;
		size_t dl = n - (size_t)(detail - e);
		if (e != errs) {
			buf_adds(&m, ", ");
			buf_addc(&det, ',');
		}
		buf_add(&m, e, n);
		char dtext[600];
		snprintf(dtext, sizeof(dtext), "%.*s", (int)dl, detail);
		buf_printf(&det, "{\"reason\":\"%s\",\"message\":",
			   cause_reason(dtext));
		buf_add_json_str(&det, detail, dl);
		buf_adds(&det, ",\"field\":");
		buf_add_json_str(&det, e, fl);
		buf_addc(&det, '}');
		e += n + (e[n] == '\n');
	}
	buf_adds(&m, many ? "]" : "");
	buf_adds(&det, "]}");
	struct proxy_status st = { .reason = PROXY_Invalid,
				   .message = m.p,
				   .details = det.p };
	enum MHD_Result r = buf_ok(&m) && buf_ok(&det) ?
				    proxy_reply_status(c, &st) :
				    MHD_NO;
	buf_free(&m);
	buf_free(&det);
	return r;
}

/* The 422 for a refused resourceVersionMatch (msg: its field errors, one
 * a line, without the field's name). */
static enum MHD_Result invalid_match(struct MHD_Connection *c, const char *msg)
{
	struct buf errs = BUF_INIT;
	for (const char *e = msg; *e;) {
		size_t n = strcspn(e, "\n");
		buf_printf(&errs, "%sresourceVersionMatch: %.*s",
			   e == msg ? "" : "\n", (int)n, e);
		e += n + (e[n] == '\n');
	}
	enum MHD_Result r = buf_ok(&errs) ? invalid_options(c, errs.p) : MHD_NO;
	buf_free(&errs);
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
		/* the cacher parses it as storage does: the same 500 as a
		 * LIST's */
		syntax_msg(rv, msg, msglen);
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
	case PROXY_RV_SYNTAX: {
		struct proxy_status st = { .reason = PROXY_InternalError,
					   .message = msg,
					   .no_reason = true };
		*res = proxy_reply_status(c, &st);
		return false;
	}
	default:
		*res = invalid_watch(c, match, sie);
		return false;
	}
}
