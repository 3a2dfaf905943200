/*
 * status: the table of reasons and the Status body (see status.h).
 */
#include "proxy/status.h"

#include <stdio.h>
#include <stdlib.h>
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

/* ---- 406 ---- */

#define TYPES \
	"application/json, application/yaml, application/vnd.kubernetes.protobuf"
#define STREAM_TYPES \
	"application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch"

/* One entry of an Accept header: the media range and its parameters,
 * white space around each trimmed. */
struct accept_entry {
	char range[128];
	char params[256]; /* ";k=v;k=v", as written */
};

/* The next entry from *p (advanced past it); false at the end. */
static bool accept_next(const char **p, struct accept_entry *e)
{
	const char *s = *p;
	if (!*s)
		return false;
	const char *end = strchr(s, ',');
	size_t n = end ? (size_t)(end - s) : strlen(s);
	*p = s + n + (end ? 1 : 0);
	const char *semi = memchr(s, ';', n);
	size_t rn = semi ? (size_t)(semi - s) : n;
	while (rn && (*s == ' ' || *s == '\t'))
		s++, rn--, n--;
	while (rn && (s[rn - 1] == ' ' || s[rn - 1] == '\t'))
		rn--;
	if (rn >= sizeof(e->range)) /* cut, as snprintf() would */
		rn = sizeof(e->range) - 1;
	memcpy(e->range, s, rn);
	e->range[rn] = '\0';
	e->params[0] = '\0';
	if (semi) {
		size_t k = 0;
		for (const char *q = semi;
		     q < s + n && k + 1 < sizeof(e->params); q++)
			if (*q != ' ' && *q != '\t')
				e->params[k++] = *q;
		e->params[k] = '\0';
	}
	return true;
}

/* The value of parameter key in params (";k=v;..."), or NULL. */
static const char *param(const char *params, const char *key, char *v,
			 size_t cap)
{
	size_t kl = strlen(key);
	for (const char *q = params; (q = strchr(q, ';')); q++) {
		if (strncmp(q + 1, key, kl) || q[1 + kl] != '=')
			continue;
		const char *val = q + 2 + kl;
		size_t n = strcspn(val, ";");
		snprintf(v, cap, "%.*s", (int)n, val);
		return v;
	}
	return NULL;
}

static bool produced(const char *range)
{
	return !strcmp(range, "application/json") ||
	       !strcmp(range, "application/yaml") ||
	       !strcmp(range, "application/vnd.kubernetes.protobuf");
}

/* Whether the negotiator would write a Status for this entry: a type it
 * encodes (or a wildcard), no conversion asked (as, g, v), no server
 * version, and a stream only of watch events in a type that streams. */
static bool carries_status(const struct accept_entry *e)
{
	char v[64];
	bool wild =
		!strcmp(e->range, "*/*") || !strcmp(e->range, "application/*");
	if (!wild && !produced(e->range))
		return false;
	if (param(e->params, "as", v, sizeof(v)) ||
	    param(e->params, "g", v, sizeof(v)) ||
	    param(e->params, "v", v, sizeof(v)))
		return false;
	if (param(e->params, "sv", v, sizeof(v)) && v[0])
		return false;
	if (param(e->params, "stream", v, sizeof(v)) && v[0] &&
	    (strcmp(v, "watch") || !strcmp(e->range, "application/yaml")))
		return false;
	return true;
}

bool proxy_status_accept_routed(const char *accept)
{
	struct accept_entry e;
	if (!accept || !*accept)
		return true;
	for (const char *p = accept; accept_next(&p, &e);)
		if (!strcmp(e.range, "*/*") || produced(e.range))
			return true;
	return false;
}

void proxy_status_not_acceptable(struct proxy_status *st, const char *accept,
				 enum proxy_na_route route)
{
	static const char *const router[] = {
		[PROXY_NA_OBJECT] = "406: Not Acceptable\n\nAvailable "
				    "representations: " TYPES,
		[PROXY_NA_COLLECTION] =
			"406: Not Acceptable\n\nAvailable "
			"representations: " TYPES ", " STREAM_TYPES,
		[PROXY_NA_WATCH] = "406: Not Acceptable\n\nAvailable "
				   "representations: " TYPES ", " STREAM_TYPES,
	};
	memset(st, 0, sizeof(*st));
	st->reason = PROXY_NotAcceptable;
	bool routed = proxy_status_accept_routed(accept),
	     carried = !accept || !*accept;
	/* the entry the negotiator picks: the first of the highest q among
	 * those it can write (ties keep the header's order) */
	char winner[128] = "";
	double best = -1;
	struct accept_entry e;
	for (const char *p = accept ? accept : ""; accept_next(&p, &e);) {
		if (!carries_status(&e))
			continue;
		carried = true;
		char qv[32];
		double q = param(e.params, "q", qv, sizeof(qv)) ? atof(qv) : 1;
		if (q > best) {
			best = q;
			snprintf(winner, sizeof(winner), "%s", e.range);
		}
	}
	if (!routed) {
		st->message = router[route];
		st->details = "{}";
	} else if (route == PROXY_NA_WATCH &&
		   !strcmp(winner, "application/yaml")) {
		/* YAML has no stream form: the watch's own negotiation */
		st->message =
			"only the following media types are accepted: " STREAM_TYPES;
	} else {
		st->message =
			"only the following media types are accepted: " TYPES;
	}
	st->indent = !carried;
}
