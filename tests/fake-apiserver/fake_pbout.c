/*
 * fake_pbout: protobuf answers and their negotiation (see fake_pbout.h).
 *
 * The rules are the apiserver's, as its answers show them: its
 * negotiator sorts Accept entries by q (stable, so ties keep the
 * header's order; q=0 is a low preference, not a refusal) and takes the
 * first it can serve; the router before it answers 406 when no entry
 * names a type it produces at all. A Status error is negotiated again on
 * its own: protobuf when the first entry that can carry a Status is
 * protobuf without as=.
 */
#include "fake_pbout.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cache/pb_encode.h"
#include "config/log.h"
#include "fake_res.h"

#define TYPES \
	"application/json, application/yaml, application/vnd.kubernetes.protobuf"
#define STREAM_TYPES \
	"application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch"

/* One entry of Accept. */
struct entry {
	char type[96];
	char as[48], g[48], v[16];
	double q;
};

#define MAX_ENTRIES 32

/* The value of parameter key in [p, end) into out ("" when absent). */
static void param(const char *p, const char *end, const char *key, char *out,
		  size_t cap)
{
	size_t kl = strlen(key);
	*out = '\0';
	while ((p = memchr(p, ';', (size_t)(end - p)))) {
		p++;
		while (p < end && *p == ' ')
			p++;
		if ((size_t)(end - p) > kl && !strncasecmp(p, key, kl) &&
		    p[kl] == '=') {
			const char *v = p + kl + 1;
			size_t n = 0;
			while (v + n < end && v[n] != ';')
				n++;
			while (n && v[n - 1] == ' ')
				n--;
			snprintf(out, cap, "%.*s", (int)n, v);
			return;
		}
	}
}

/* The entries of Accept, sorted by q, stably. */
static size_t entries(struct MHD_Connection *c, struct entry *e, bool *given)
{
	const char *p =
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
	size_t n = 0;

	*given = p && *p;
	while (p && *p && n < MAX_ENTRIES) {
		const char *end = p + strcspn(p, ",");
		const char *t = p;
		while (t < end && *t == ' ')
			t++;
		size_t tl = strcspn(t, ";,");
		if (t + tl > end)
			tl = (size_t)(end - t);
		while (tl && t[tl - 1] == ' ')
			tl--;
		if (tl) {
			char q[16];
			struct entry *x = &e[n++];
			snprintf(x->type, sizeof(x->type), "%.*s", (int)tl, t);
			param(t, end, "as", x->as, sizeof(x->as));
			param(t, end, "g", x->g, sizeof(x->g));
			param(t, end, "v", x->v, sizeof(x->v));
			param(t, end, "q", q, sizeof(q));
			x->q = *q ? atof(q) : 1.0;
		}
		p = *end ? end + 1 : end;
	}
	for (size_t i = 1; i < n; i++) /* insertion sort: stable */
		for (size_t j = i; j > 0 && e[j].q > e[j - 1].q; j--) {
			struct entry t = e[j];
			e[j] = e[j - 1];
			e[j - 1] = t;
		}
	return n;
}

static bool is_type(const struct entry *e, const char *t)
{
	return !strcasecmp(e->type, t);
}

static bool is_json(const struct entry *e)
{
	return is_type(e, "application/json") || is_type(e, "*/*");
}

static bool is_pb(const struct entry *e)
{
	return is_type(e, FAKE_PB_MEDIA);
}

/* The router: some entry names a type the apiserver produces. */
static bool routed(const struct entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (is_json(&e[i]) || is_pb(&e[i]) ||
		    is_type(&e[i], "application/yaml"))
			return true;
	return false;
}

/* Whether a Status goes out in protobuf for this Accept. */
static bool status_pb(struct MHD_Connection *c)
{
	struct entry e[MAX_ENTRIES];
	bool given;
	size_t n = entries(c, e, &given);

	for (size_t i = 0; i < n; i++) {
		if (is_json(&e[i]) || is_type(&e[i], "application/*"))
			return false;
		if (is_pb(&e[i]) && !e[i].as[0])
			return true;
	}
	return false;
}

/* Whether some entry takes JSON. */
static bool json_accepted(struct MHD_Connection *c)
{
	struct entry e[MAX_ENTRIES];
	bool given;
	size_t n = entries(c, e, &given);

	for (size_t i = 0; i < n; i++)
		if (is_json(&e[i]) && !e[i].as[0])
			return true;
	return !given;
}

/* The router's 406 (details {}) or the negotiator's (none), msg its
 * message. */
static enum MHD_Result status_406(struct MHD_Connection *c, bool router,
				  const char *msg)
{
	struct buf b = BUF_INIT;
	fake_status_json(&b, 406, "NotAcceptable", router ? "{}" : NULL, msg);
	return fake_reply(c, 406, &b);
}

static enum MHD_Result reply_406(struct MHD_Connection *c, bool router,
				 bool list)
{
	const char *msg = !router ? "only the following media types are "
				    "accepted: " TYPES :
			  list	  ? "406: Not Acceptable\n\nAvailable "
				    "representations: " TYPES ", " STREAM_TYPES :
				    "406: Not Acceptable\n\nAvailable "
				    "representations: " TYPES;
	return status_406(c, router, msg);
}

bool fake_pb_negotiate(struct fake_req *rq, bool list, bool watch,
		       struct fake_as *as, enum fake_pb *pb,
		       enum MHD_Result *ret)
{
	const struct fake_res *r = &fake_res_table[rq->res];
	struct entry e[MAX_ENTRIES];
	struct pb_list l;
	bool given;
	size_t n = entries(rq->conn, e, &given);
	bool has_pb = !r->custom &&
		      pb_encode_find(r->api_version, r->kind, &l) != NULL;

	*pb = FAKE_PB_JSON;
	if (!given)
		return true;
	if (!routed(e, n)) {
		*ret = reply_406(rq->conn, true, list || watch);
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		if (is_json(&e[i]))
			return true; /* as: fake_as_negotiate's choice */
		if (!is_pb(&e[i]))
			continue; /* YAML: the fake has none */
		if (!e[i].as[0]) {
			if (!has_pb)
				continue;
			*pb = FAKE_PB_PROTO;
			as->kind = FAKE_AS_OBJECT;
			return true;
		}
		bool meta_list = !strcmp(e[i].as, "PartialObjectMetadataList"),
		     meta = !strcmp(e[i].as, "PartialObjectMetadata");
		if (strcmp(e[i].g, "meta.k8s.io") || strcmp(e[i].v, "v1") ||
		    !((list && meta_list) || ((!list || watch) && meta)))
			continue; /* a Table, or a form of another kind */
		*pb = FAKE_PB_PROTO;
		as->kind = FAKE_AS_META;
		as->version = "v1";
		return true;
	}
	*ret = reply_406(rq->conn, false, list || watch);
	return false;
}

enum fake_pb fake_pb_discovery(struct MHD_Connection *c)
{
	struct entry e[MAX_ENTRIES];
	bool given;
	size_t n = entries(c, e, &given);

	for (size_t i = 0; i < n; i++) {
		if (is_json(&e[i]))
			return FAKE_PB_JSON;
		if (is_pb(&e[i]) && !e[i].as[0])
			return FAKE_PB_PROTO;
	}
	return FAKE_PB_JSON;
}

bool fake_pb_json_only(struct MHD_Connection *c, enum MHD_Result *ret)
{
	struct entry e[MAX_ENTRIES];
	bool given;
	size_t n = entries(c, e, &given);

	if (!given)
		return true;
	for (size_t i = 0; i < n; i++)
		if (is_json(&e[i]) || is_type(&e[i], "application/*"))
			return true;
	*ret = status_406(c, true,
			  "406: Not Acceptable\n\nAvailable representations: "
			  "application/json");
	return false;
}

bool fake_pb_is(const struct buf *body)
{
	return body->len >= PB_MAGIC_LEN &&
	       !memcmp(body->p, PB_MAGIC, PB_MAGIC_LEN);
}

enum MHD_Result fake_pb_reply(struct MHD_Connection *c, unsigned code,
			      struct buf *body, enum fake_pb pb)
{
	struct buf out = BUF_INIT;
	char err[256];
	int rc;

	if (pb == FAKE_PB_JSON || !buf_ok(body))
		return fake_reply(c, code, body);
	rc = pb_encode_doc(body->p, body->len, &out, err, sizeof(err));
	if (rc) {
		/* The schema lacks a member the fake's object holds (the
		 * apiserver would have dropped it at create): JSON when the
		 * client takes it, as every client-go client does, which
		 * reads the answer by its Content-Type. */
		buf_free(&out);
		log_v(1, "protobuf encoding: %s", err);
		if (json_accepted(c))
			return fake_reply(c, code, body);
		buf_free(body);
		return fake_reply_status(c, 500, "InternalError", NULL,
					 "protobuf encoding: %s", err);
	}
	buf_free(body);
	return fake_reply(c, code, &out);
}

void fake_pb_status(struct MHD_Connection *c, struct buf *body)
{
	static const char head[] = "{\"kind\":\"Status\",";
	struct buf out = BUF_INIT;
	char err[256];

	if (!buf_ok(body) || body->len < sizeof(head) - 1 ||
	    memcmp(body->p, head, sizeof(head) - 1) || !status_pb(c))
		return;
	if (pb_encode_doc(body->p, body->len, &out, err, sizeof(err)) == 0) {
		buf_free(body);
		*body = out;
	} else {
		buf_free(&out);
	}
}

/* One frame for the JSON line [p, p + n): the event's object encoded,
 * or, when it cannot be, an ERROR with a 500 Status; a line that is not
 * an event at all (the malformed-line fault) goes out as a frame whose
 * object is its bytes, which no client decodes. */
static int frame(const char *p, size_t n, struct buf *out)
{
	static const char pre[] = "{\"type\":\"";
	static const char mid[] = "\",\"object\":";
	struct buf body = BUF_INIT;
	char type[32], err[256];
	int rc;

	const char *t = p + sizeof(pre) - 1;
	const char *q =
		n > sizeof(pre) ? memchr(t, '"', n - (sizeof(pre) - 1)) : NULL;
	const char *obj = q ? q + sizeof(mid) - 1 : NULL;
	if (!q || memcmp(p, pre, sizeof(pre) - 1) ||
	    (size_t)(q - t) >= sizeof(type) ||
	    (size_t)(p + n - q) < sizeof(mid) ||
	    memcmp(q, mid, sizeof(mid) - 1) || p[n - 1] != '}')
		return pb_encode_watch_frame("ERROR", p, n, out);
	snprintf(type, sizeof(type), "%.*s", (int)(q - t), t);
	rc = pb_encode_doc(obj, (size_t)(p + n - 1 - obj), &body, err,
			   sizeof(err));
	if (rc == -ENOMEM) {
		buf_free(&body);
		return rc;
	}
	if (rc) {
		struct buf st = BUF_INIT;
		char msg[300];
		snprintf(msg, sizeof(msg), "protobuf encoding: %s", err);
		buf_reset(&body);
		fake_status_json(&st, 500, "InternalError", NULL, msg);
		rc = buf_ok(&st) ? pb_encode_doc(st.p, st.len, &body, err,
						 sizeof(err)) :
				   -ENOMEM;
		buf_free(&st);
		snprintf(type, sizeof(type), "ERROR");
	}
	if (!rc)
		rc = pb_encode_watch_frame(type, body.p, body.len, out);
	buf_free(&body);
	return rc;
}

int fake_pb_frames(struct buf *out)
{
	struct buf pb = BUF_INIT;
	const char *p = out->p, *end = out->p + out->len;
	int rc = 0;

	while (p < end && !rc) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (n)
			rc = frame(p, n, &pb);
		p += n + 1;
	}
	if (rc || !buf_ok(&pb)) {
		buf_free(&pb);
		return -ENOMEM;
	}
	buf_free(out);
	*out = pb;
	return 0;
}
