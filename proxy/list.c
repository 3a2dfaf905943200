/*
 * list: LIST and GET served from store snapshots.
 *
 * A LIST takes one snapshot reference and answers with an iovec response
 * that points straight at the cached objects' bytes: nothing is copied
 * or re-encoded, and the snapshot is released when libmicrohttpd is done
 * with the body. Paging binds every page to the first page's snapshot
 * through an opaque continue token {"v","rv","start"} and a pin in the
 * store.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache/json.h"
#include "cache/parse.h"
#include "config/alloc.h"
#include "config/log.h"
#include "proxy/body.h"
#include "proxy/filter.h"
#include "proxy/server.h"
#include "proxy/metrics.h"
#include "proxy/status.h"
#include "proxy/table.h"

#define PIN_TTL 300		/* seconds a paged LIST's snapshot is kept */

/* ---- resourceVersion handling shared by LIST and GET ---- */

struct rv_req {
	bool exact;		/* resourceVersionMatch=Exact */
	bool any;		/* "0": any state will do */
	uint64_t rv;		/* 0 = unset */
};

static enum MHD_Result invalid_match(struct MHD_Connection *c, const char *msg)
{
	struct buf m = BUF_INIT, det = BUF_INIT;
	buf_printf(&m, "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: %s", msg);
	buf_adds(&det, "{\"group\":\"meta.k8s.io\",\"kind\":\"ListOptions\",\"causes\":[{\"reason\":");
	buf_adds(&det, !strncmp(msg, "Forbidden", 9) ? "\"FieldValueForbidden\"" :
						      "\"FieldValueNotSupported\"");
	buf_adds(&det, ",\"message\":");
	buf_add_json_str(&det, msg, strlen(msg));
	buf_adds(&det, ",\"field\":\"resourceVersionMatch\"}]}");
	struct proxy_status st = { .reason = PROXY_Invalid, .message = m.p,
				   .details = det.p };
	enum MHD_Result r = proxy_status_send(c, &st);
	buf_free(&m);
	buf_free(&det);
	return r;
}

/* Read resourceVersion and resourceVersionMatch. Returns true, or false
 * after queueing the error answer in *res. */
static bool parse_rv(struct MHD_Connection *c, struct rv_req *q,
		     enum MHD_Result *res)
{
	const char *rv = NULL, *match = NULL;
	memset(q, 0, sizeof(*q));
	proxy_arg(c, "resourceVersion", &rv);
	proxy_arg(c, "resourceVersionMatch", &match);
	if (rv && *rv) {
		if (!cache_parse_u64(rv, &q->rv)) {
			char msg[512];
			snprintf(msg, sizeof(msg),
				 "resourceVersion: Invalid value: \"%.200s\": "
				 "strconv.ParseUint: parsing \"%.200s\": invalid syntax", rv, rv);
			struct proxy_status st = { .reason = PROXY_InternalError,
						   .message = msg, .no_reason = true };
			*res = proxy_status_send(c, &st);
			return false;
		}
		q->any = q->rv == 0;
	}
	bool has_rv = rv && *rv;
	if (match && *match) {
		if (!strcmp(match, "Exact")) {
			q->exact = true;
		} else if (strcmp(match, "NotOlderThan")) {
			char msg[256];
			snprintf(msg, sizeof(msg),
				 "Unsupported value: \"%.100s\": supported values: "
				 "\"Exact\", \"NotOlderThan\", \"\"", match);
			*res = invalid_match(c, msg);
			return false;
		}
		if (!has_rv) {
			*res = invalid_match(c, "Forbidden: resourceVersionMatch is "
						"forbidden unless resourceVersion is provided");
			return false;
		}
		if (q->exact && q->rv == 0) {
			*res = invalid_match(c, "Forbidden: resourceVersionMatch \"exact\" "
						"is forbidden for resourceVersion \"0\"");
			return false;
		}
	}
	return true;
}

static enum MHD_Result too_large(struct MHD_Connection *c,
				 struct cache_resource *r, uint64_t rv)
{
	char msg[160];
	snprintf(msg, sizeof(msg), "Timeout: Too large resource version: %llu, current: %llu",
		 (unsigned long long)rv,
		 (unsigned long long)cache_store_rv(r->store));
	struct proxy_status st = {
		.reason = PROXY_Timeout, .message = msg, .retry_after = 1,
		.details = "{\"causes\":[{\"reason\":\"ResourceVersionTooLarge\","
			   "\"message\":\"Too large resource version\"}],"
			   "\"retryAfterSeconds\":1}",
	};
	return proxy_status_send(c, &st);
}

/*
 * Make sure the cache is as new as the request needs: for an RV-less
 * request, at least the upstream's RV when the request came (a consistent
 * read); for resourceVersion=N, at least N (see fresh.h). Returns 0 to go
 * on from the cache, or 1 with *res set: suspended (the handler runs
 * again when resumed), answered, or handed to the upstream
 * (req->upstream, for a read the cache cannot prove fresh).
 */
static int await_rv(struct proxy *p, struct MHD_Connection *c,
		    struct cache_resource *r, const struct rv_req *q,
		    bool watch, struct proxy_req *req, enum MHD_Result *res)
{
	if (!req->waited) {
		bool consistent = !q->rv && !q->any;
		if (!consistent && cache_store_rv(r->store) >= q->rv)
			return 0;
		req->waited = true;
		if (consistent)
			PROXY_COUNT(consistent_reads);
		req->wait.conn = c;
		req->wait.r = r;
		req->wait.watch = watch;
		req->wait.need_rv = q->rv;
		if (proxy_fresh_wait(p->fresh, &req->wait, consistent)) {
			*res = MHD_YES;
			return 1;
		}
	}
	switch (req->wait.result) {
	case FRESH_TIMEOUT:
		*res = too_large(c, r, req->wait.need_rv);
		return 1;
	case FRESH_STALE:
		PROXY_COUNT(consistent_stale);
		log_v(1, "%s: read served from the cache at %llu: the upstream "
		      "cannot be asked", r->kind->resource,
		      (unsigned long long)cache_store_rv(r->store));
		return 0;
	case FRESH_UPSTREAM:
		if (watch)
			return 0;	/* starts from the cache; events follow */
		PROXY_COUNT(reads_upstream);
		req->upstream = true;
		*res = MHD_YES;
		return 1;
	default:
		return 0;
	}
}

int proxy_await_rv(struct proxy *p, struct MHD_Connection *c,
		   struct cache_resource *r, uint64_t rv, struct proxy_req *req,
		   enum MHD_Result *res)
{
	struct rv_req q = { .rv = rv };
	return await_rv(p, c, r, &q, true, req, res);
}

/* The snapshot a request asks for, referenced; NULL after queueing the
 * error answer in *res. */
static struct cache_snap *snap_for(struct MHD_Connection *c,
				   struct cache_resource *r,
				   const struct rv_req *q, enum MHD_Result *res)
{
	if (!q->exact)
		return cache_store_snap(r->store);
	struct cache_snap *s = cache_store_pinned(r->store, q->rv);
	if (!s)
		*res = proxy_error(c, PROXY_Expired,
				   "The resourceVersion for the provided list is too old.");
	return s;
}

static enum MHD_Result not_acceptable(struct MHD_Connection *c)
{
	const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
	return proxy_error(c, PROXY_NotAcceptable,
			   "only the following media types are accepted: application/json, "
			   "application/yaml, application/vnd.kubernetes.protobuf (got %.200s)",
			   accept ? accept : "");
}

/* ---- continue tokens ---- */

static void encode_continue(struct buf *out, uint64_t rv,
			    const struct cache_obj *last)
{
	struct buf raw = BUF_INIT, start = BUF_INIT;
	if (last->ns[0])
		buf_printf(&start, "%s/", last->ns);
	buf_printf(&start, "%s", last->name);
	buf_printf(&raw, "{\"v\":\"meta.k8s.io/v1\",\"rv\":%llu,\"start\":",
		   (unsigned long long)rv);
	buf_add_json_str(&raw, start.p, start.len);
	/* the apiserver's start key ends in \u0000: "the next key after" */
	raw.len--;
	buf_adds(&raw, "\\u0000\"}");
	buf_add_base64url(out, raw.p, raw.len);
	buf_free(&raw);
	buf_free(&start);
}

/* Returns 0, or -EINVAL with err set (a 400). */
static int decode_continue(const char *tok, uint64_t *rv, char *ns,
			   size_t nscap, char *name, size_t namecap,
			   char *err, size_t errlen)
{
	struct buf raw = BUF_INIT;
	struct json_doc d = JSON_DOC_INIT;
	char start[600];
	int r = -EINVAL;
	if (buf_base64url_decode(tok, strlen(tok), &raw) || !raw.len ||
	    json_parse(&d, raw.p, raw.len, NULL, 0) ||
	    json_type(&d, 0) != JSMN_OBJECT) {
		snprintf(err, errlen, "invalid continue token: continue key is not valid");
		goto out;
	}
	int v = json_get(&d, 0, "v"), rvt = json_get(&d, 0, "rv"),
	    st = json_get(&d, 0, "start");
	if (v < 0 || !json_str_eq(&d, v, "meta.k8s.io/v1")) {
		snprintf(err, errlen, "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
		goto out;
	}
	if (rvt < 0 || json_u64(&d, rvt, rv) || st < 0 ||
	    json_str(&d, st, start, sizeof(start)) < 1) {
		snprintf(err, errlen, "continue key is not valid: invalid start or resourceVersion");
		goto out;
	}
	size_t n = strlen(start);
	if (n && start[n - 1] == '\0')
		n--;
	/* json_str stops at the NUL: start is "ns/name" or "name" */
	const char *slash = strchr(start, '/');
	const char *nm = slash ? slash + 1 : start;
	size_t nsl = slash ? (size_t)(slash - start) : 0;
	if (nsl >= nscap || strlen(nm) >= namecap || !*nm) {
		snprintf(err, errlen, "continue key is not valid: bad start key");
		goto out;
	}
	memcpy(ns, start, nsl);
	ns[nsl] = '\0';
	memcpy(name, nm, strlen(nm) + 1);	/* fits: checked above */
	r = 0;
out:
	buf_free(&raw);
	json_doc_free(&d);
	return r;
}

/* ---- the LIST response ---- */

/* What a JSON LIST answer's pieces point into: kept until the bytes are
 * sent. */
struct list_body {
	struct cache_snap *snap;	/* keeps the items alive */
	char *head;
};

static void list_body_free(void *cls)
{
	struct list_body *lb = cls;
	cache_snap_put(lb->snap);
	free(lb->head);
	free(lb);
}

/* The LIST answer: for plain JSON an iovec over the cached bytes (items
 * leave out kind and apiVersion, as the apiserver writes them); for a
 * Table or metadata list, a body built here. Takes the snapshot
 * reference. */
static enum MHD_Result send_list(struct MHD_Connection *c,
				 const struct cache_kind *k,
				 const struct proxy_fmt *fmt,
				 struct cache_snap *snap,
				 struct cache_obj *const *items, size_t n,
				 const char *meta)
{
	struct buf head = BUF_INIT;
	char apiv[160];
	if (fmt->form != FORM_JSON) {
		struct buf body = BUF_INIT;
		time_t now = time(NULL);
		if (fmt->form == FORM_TABLE) {
			buf_printf(&body, "{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/%s\","
					  "\"metadata\":%s,", fmt->version, meta);
			proxy_table_head(&body, k, fmt, true);
			buf_adds(&body, ",\"rows\":[");
			for (size_t i = 0; i < n; i++) {
				if (i)
					buf_addc(&body, ',');
				proxy_table_row(&body, k, items[i], fmt, now);
			}
		} else {
			buf_printf(&body, "{\"kind\":\"PartialObjectMetadataList\","
					  "\"apiVersion\":\"meta.k8s.io/%s\",\"metadata\":%s,\"items\":[",
				   fmt->version, meta);
			for (size_t i = 0; i < n; i++) {
				if (i)
					buf_addc(&body, ',');
				proxy_render_metadata(&body, items[i], fmt->version);
			}
		}
		buf_adds(&body, "]}\n");
		cache_snap_put(snap);
		return proxy_send_buf(c, MHD_HTTP_OK, &body);
	}

	struct list_body *lb = xcalloc(1, sizeof(*lb));
	struct proxy_pieces pc = { 0 };
	if (!lb) {
		cache_snap_put(snap);
		return MHD_NO;
	}
	lb->snap = snap;	/* lb owns the snapshot from here on */
	cache_kind_api_version(k, apiv, sizeof(apiv));
	buf_printf(&head, "{\"kind\":\"%s\",\"apiVersion\":\"%s\",\"metadata\":%s,"
			  "\"items\":[", k->list_kind, apiv, meta);
	if (!buf_ok(&head)) {
		buf_free(&head);
		list_body_free(lb);
		return MHD_NO;
	}
	lb->head = buf_steal(&head, NULL);
	proxy_pieces_add(&pc, lb->head, strlen(lb->head));
	for (size_t i = 0; i < n; i++) {
		const struct cache_obj *o = items[i];
		proxy_pieces_add(&pc, i ? ",{" : "{", i ? 2 : 1);
		proxy_pieces_add(&pc, o->json + o->item_off, o->len - o->item_off);
	}
	proxy_pieces_add(&pc, "]}\n", 3);
	return proxy_send_pieces(c, &pc, list_body_free, lb);
}

enum MHD_Result proxy_handle_list(struct proxy *p, struct MHD_Connection *c,
				  struct cache_resource *r,
				  const struct proxy_route *rt,
				  struct proxy_req *req)
{
	enum MHD_Result res = MHD_NO;
	struct rv_req q;
	struct proxy_filter f;
	char err[512];
	const char *limit_s = NULL, *cont = NULL;
	uint64_t limit = 0;
	char start_ns[254] = "", start_name[254] = "";
	uint64_t cont_rv = 0;

	struct proxy_fmt fmt;
	if (proxy_fmt_negotiate(c, &fmt))
		return not_acceptable(c);
	if (!parse_rv(c, &q, &res))
		return res;
	if (proxy_arg(c, "limit", &limit_s) && limit_s && *limit_s &&
	    !cache_parse_u64(limit_s, &limit))
		limit = 0;	/* the apiserver ignores a bad limit */
	if (q.any)
		limit = 0;	/* and any limit at "0": 1.32's watch cache does */
	if (proxy_arg(c, "continue", &cont) && cont && *cont) {
		if (q.rv || q.exact)
			return proxy_error(c, PROXY_BadRequest,
					   "specifying resource version is not allowed when using continue");
		if (decode_continue(cont, &cont_rv, start_ns, sizeof(start_ns),
				    start_name, sizeof(start_name), err, sizeof(err)))
			return proxy_error(c, PROXY_BadRequest, "%s", err);
	} else if (await_rv(p, c, r, &q, false, req, &res)) {
		return res;
	}
	int pr = proxy_filter_parse(&f, c, r->kind, rt->ns, NULL, err, sizeof(err));
	if (pr == -ENOMEM)
		return MHD_NO;
	if (pr)
		return proxy_error(c, PROXY_BadRequest, "%s", err);

	struct cache_snap *snap;
	if (cont_rv) {
		snap = cache_store_pinned(r->store, cont_rv);
		if (!snap) {
			/* Not a page of ours: the first page came from the
			 * upstream (a read the cache could not prove fresh), or
			 * our pin expired. The upstream serves the state at that
			 * RV while its history has it, and answers 410 after,
			 * as it would have without us. */
			proxy_filter_free(&f);
			PROXY_COUNT(reads_upstream);
			req->upstream = true;
			return MHD_YES;
		}
	} else {
		snap = snap_for(c, r, &q, &res);
		if (!snap) {
			proxy_filter_free(&f);
			return res;
		}
	}

	/* Select: from the start key (or the namespace's first key), what
	 * matches, up to limit. Items are borrowed from snap. */
	struct cache_iter it;
	const char *lk = NULL, *lv = f.lsel ? cache_lsel_eq(f.lsel, &lk) : NULL;
	const char *from_ns = cont_rv ? start_ns : f.ns;
	const char *from_name = cont_rv ? start_name : "";
	if (lv)	/* key=value: walk the label index, not every object */
		cache_iter_seek_label(&it, snap, lk, lv, from_ns, from_name);
	else
		cache_iter_seek(&it, snap, from_ns, from_name);
	struct cache_obj *o, **items = NULL;
	size_t n = 0, cap = 0;
	bool more = false;
	while ((o = cache_iter_next(&it))) {
		if (f.ns[0] && strcmp(o->ns, f.ns))
			break;	/* past the namespace's range */
		if (cont_rv && !strcmp(o->ns, start_ns) && !strcmp(o->name, start_name))
			continue;	/* the token names the last item sent */
		if (!proxy_filter_match(&f, o))
			continue;
		if (limit && n == limit) {
			more = true;
			break;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			struct cache_obj **ni = xrealloc(items, cap * sizeof(*ni));
			if (!ni)
				goto fail;
			items = ni;
		}
		items[n++] = o;
	}

	struct buf meta = BUF_INIT;
	buf_printf(&meta, "{\"resourceVersion\":\"%llu\"", (unsigned long long)snap->rv);
	if (more && n) {
		const struct cache_obj *last = items[n - 1];
		buf_adds(&meta, ",\"continue\":\"");
		encode_continue(&meta, snap->rv, last);
		buf_addc(&meta, '"');
		if (proxy_filter_is_ns_only(&f)) {
			size_t end = f.ns[0] ? cache_snap_rank_ns_end(snap, f.ns) :
					       snap->count;
			size_t at = cache_snap_rank(snap, last->ns, last->name) + 1;
			buf_printf(&meta, ",\"remainingItemCount\":%zu", end - at);
		}
		if (cache_store_pin(r->store, snap, PIN_TTL))
			PROXY_COUNT(pins_evicted);
	}
	buf_addc(&meta, '}');
	res = buf_ok(&meta) ? send_list(c, r->kind, &fmt, snap, items, n, meta.p) :
			      MHD_NO;
	snap = NULL;	/* send_list took it */
	buf_free(&meta);
fail:
	cache_snap_put(snap);
	free(items);
	proxy_filter_free(&f);
	return res;
}

/* ---- GET ---- */

static void get_body_free(void *cls)
{
	cache_obj_put(cls);
}

enum MHD_Result proxy_handle_get(struct proxy *p, struct MHD_Connection *c,
				 struct cache_resource *r,
				 const struct proxy_route *rt,
				 struct proxy_req *req)
{
	enum MHD_Result res = MHD_NO;
	struct rv_req q;
	struct proxy_fmt fmt;
	if (proxy_fmt_negotiate(c, &fmt))
		return not_acceptable(c);
	if (!parse_rv(c, &q, &res))
		return res;
	if (await_rv(p, c, r, &q, false, req, &res))
		return res;
	struct cache_obj *o = cache_store_get(r->store, rt->ns, rt->name, NULL);
	if (!o)
		return proxy_not_found(c, r->kind->resource, rt->name);
	if (fmt.form != FORM_JSON) {
		struct buf body = BUF_INIT;
		if (fmt.form == FORM_TABLE) {
			/* a one-row Table at the object's own RV (07-d) */
			buf_printf(&body, "{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/%s\","
					  "\"metadata\":{\"resourceVersion\":\"%llu\"},",
				   fmt.version, (unsigned long long)o->rv);
			proxy_table_head(&body, r->kind, &fmt, true);
			buf_adds(&body, ",\"rows\":[");
			proxy_table_row(&body, r->kind, o, &fmt, time(NULL));
			buf_adds(&body, "]}\n");
		} else {
			proxy_render_metadata(&body, o, fmt.version);
			buf_addc(&body, '\n');
		}
		cache_obj_put(o);
		return proxy_send_buf(c, MHD_HTTP_OK, &body);
	}
	struct proxy_pieces pc = { 0 };
	proxy_pieces_add(&pc, o->json, o->len);
	proxy_pieces_add(&pc, "\n", 1);
	return proxy_send_pieces(c, &pc, get_body_free, o);
}
