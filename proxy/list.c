/*
 * list: LIST and GET served from store snapshots.
 *
 * A LIST takes one snapshot reference and answers with an iovec response
 * that points straight at the cached objects' bytes: nothing is copied
 * or re-encoded, and the snapshot is released when libmicrohttpd is done
 * with the body. In protobuf the pieces are the objects' kept encodings
 * (cache_obj_pb, made on the first protobuf read of each) inside the
 * List framing of protobuf.h; an object that cannot be encoded sends the
 * read upstream. Paging binds every page to the first page's snapshot
 * through an opaque continue token {"v","rv","start"} and a pin in the
 * store.
 */
#include "proxy/list.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache/json.h"
#include "cache/rvclock.h"
#include "cache/scope.h"
#include "config/alloc.h"
#include "config/log.h"
#include "proxy/reply.h"
#include "proxy/continue.h"
#include "proxy/encode.h"
#include "proxy/filter.h"
#include "proxy/metrics.h"
#include "proxy/protobuf.h"
#include "proxy/rv.h"
#include "proxy/status.h"
#include "proxy/table/table.h"
#include "proxy/yaml.h"

#define PIN_TTL 300 /* seconds a paged LIST's snapshot is kept */
/* An exact read at an RV seen longer ago than the apiserver's etcd
 * compaction interval goes upstream. */
#define EXACT_MAX_AGE_MS (300 * 1000)

/*
 * Which state a LIST reads, by the apiserver's rules (1.32: its watch
 * cache hands a LIST with a limit and resourceVersion N > 0, and any
 * resourceVersionMatch=Exact, to etcd):
 * - Exact N, or a limit with N and no resourceVersionMatch: the state at
 *   exactly N;
 * - a limit with N and NotOlderThan: etcd's current state, so a
 *   consistent read (N must have been reached: below it, the upstream
 *   answers);
 * - "0": the cache as it is, limit ignored; unset: a consistent read.
 * Adjusts q to say which; returns false when the upstream must answer.
 */
static bool list_rules(struct cache_resource *r, struct proxy_rv_req *q,
		       uint64_t limit)
{
	if (!limit || !q->rv || q->exact)
		return true;
	if (!q->not_older) {
		q->exact = true;
		return true;
	}
	if (cache_store_rv(r->store) < q->rv)
		return false;
	q->rv = 0; /* consistent */
	q->not_older = false;
	return true;
}

/* The snapshot a request asks for, referenced; NULL when the cache does
 * not hold that state (an exact RV older than the store's window of
 * recent versions, or one it cannot tell): then the upstream answers,
 * from etcd's history or with its 410. */
static struct cache_snap *snap_for(struct cache_resource *r,
				   const struct proxy_rv_req *q)
{
	if (!q->exact)
		return cache_store_snap(r->store);
	/* An RV its storage domain showed before the apiserver's compaction
	 * interval may be compacted away: the upstream says 200 or 410. */
	uint64_t old;
	if (cache_rvclock_seen_by(r->clock,
				  cache_rvclock_now_ms() - EXACT_MAX_AGE_MS,
				  &old) &&
	    q->rv <= old)
		return NULL;
	return cache_store_at(r->store, q->rv);
}

/* ---- the LIST response ---- */

/* What a JSON LIST answer's pieces point into: kept until the bytes are
 * sent. */
struct list_body {
	struct cache_snap *snap; /* keeps the items alive */
	char *head;
};

static void list_body_free(void *cls)
{
	struct list_body *lb = cls;
	cache_store_snap_put(lb->snap);
	free(lb->head);
	free(lb);
}

/* One page of a LIST: items borrowed from the snapshot. */
struct page {
	struct cache_obj **items;
	size_t n, cap;
	bool more; /* limit cut it short */
};

/* What a rendered LIST's body reads while it is sent (a Table or a
 * metadata list, made a part at a time): kept until the last byte. */
struct render_body {
	struct cache_snap *snap; /* keeps the items alive */
	struct cache_obj **items;
	struct proxy_table_list *tl;
};

static bool render_fill(void *cls, struct buf *b, size_t want)
{
	struct render_body *rb = cls;
	return proxy_table_list_next(rb->tl, b, want);
}

static void render_body_free(void *cls)
{
	struct render_body *rb = cls;
	proxy_table_list_free(rb->tl);
	free(rb->items);
	cache_store_snap_put(rb->snap);
	free(rb);
}

/* What a YAML LIST's body reads while it is sent, an item at a time. */
struct yaml_body {
	struct cache_snap *snap; /* keeps the items alive */
	struct cache_obj **items;
	struct proxy_yaml_list *yl;
};

static bool yaml_fill(void *cls, struct buf *b, size_t want)
{
	struct yaml_body *yb = cls;
	return proxy_yaml_list_next(yb->yl, b, want);
}

static void yaml_body_free(void *cls)
{
	struct yaml_body *yb = cls;
	proxy_yaml_list_free(yb->yl);
	free(yb->items);
	cache_store_snap_put(yb->snap);
	free(yb);
}

/* A LIST as YAML. The plain form is made an item at a time as it is
 * sent, as the JSON one streams; a Table or metadata list is rendered
 * whole as JSON first, since its YAML sorts the whole document's keys.
 * Takes the snapshot reference and the page's items. */
static enum MHD_Result send_list_yaml(struct MHD_Connection *c,
				      const struct cache_kind *k,
				      const struct proxy_table_format *fmt,
				      struct cache_snap *snap, struct page *pg,
				      const char *meta)
{
	if (fmt->form != PROXY_TABLE_FORM_JSON) {
		struct buf json = BUF_INIT;
		struct proxy_table_list *tl = proxy_table_list_new(
			k, fmt, meta, pg->items, pg->n, time(NULL));
		while (tl && proxy_table_list_next(tl, &json, 1 << 20))
			;
		if (!tl)
			buf_free(&json);
		proxy_table_list_free(tl);
		cache_store_snap_put(snap);
		if (!tl)
			return MHD_NO;
		return proxy_reply_yaml(c, MHD_HTTP_OK, &json);
	}
	char apiv[CACHE_KIND_API_VERSION_MAX];
	struct yaml_body *yb = xcalloc(1, sizeof(*yb));
	if (!yb) {
		cache_store_snap_put(snap);
		return MHD_NO;
	}
	yb->snap = snap; /* yb owns both from here on */
	yb->items = pg->items;
	pg->items = NULL;
	cache_kind_api_version(k, apiv, sizeof(apiv));
	yb->yl =
		proxy_yaml_list_new(apiv, k->list_kind, meta, yb->items, pg->n);
	if (!yb->yl) {
		yaml_body_free(yb);
		return MHD_NO;
	}
	return proxy_reply_render_yaml(c, yaml_fill, yb, yaml_body_free);
}

/* ---- protobuf ---- */

/* The meta.k8s.io version of a metadata-only protobuf read. */
static const char *pb_meta_version(struct MHD_Connection *c,
				   const struct cache_resource *r)
{
	const char *v;
	proxy_pb_negotiate(
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept"),
		cache_kind_typed(r->kind), &v);
	return v;
}

/* What a protobuf LIST's pieces point into: kept until the bytes are
 * sent. */
struct pb_body {
	struct cache_snap *snap; /* keeps the items and their encodings */
	struct cache_obj *obj;	 /* a GET's object */
	char *head;
	unsigned char *prefixes;
};

static void pb_body_free(void *cls)
{
	struct pb_body *pb = cls;
	cache_store_snap_put(pb->snap);
	cache_obj_put(pb->obj);
	free(pb->head);
	free(pb->prefixes);
	free(pb);
}

/* How many items of pg have no protobuf encoding kept yet, up to
 * PROXY_ENCODE_MIN. */
static size_t encodings_missing(const struct page *pg)
{
	size_t n = 0;
	for (size_t i = 0; i < pg->n && n < PROXY_ENCODE_MIN; i++)
		n += !proxy_encode_kept(pg->items[i]);
	return n;
}

/* Make sure every item of pg has its kept protobuf encoding (made now
 * for those asked for the first time). Returns 0, or the first item's
 * error (cache_obj_pb), after which the read goes upstream. */
static int pb_encode_items(const struct page *pg)
{
	for (size_t i = 0; i < pg->n; i++) {
		const unsigned char *raw;
		size_t len;
		char err[160];
		int r = cache_obj_pb(pg->items[i], &raw, &len, err,
				     sizeof(err));
		if (r) {
			if (r != -ENOMEM)
				log_v(2, "%s %s/%s: not in protobuf: %s",
				      pg->items[i]->kind->resource,
				      pg->items[i]->ns, pg->items[i]->name,
				      err);
			return r;
		}
	}
	return 0;
}

/* The metadata-only protobuf answer (a PartialObjectMetadata, or a List
 * of them for a LIST), made whole: these are made per request from the
 * objects' metadata, not kept. */
static enum MHD_Result send_pb_metadata(struct MHD_Connection *c,
					const struct cache_kind *k,
					const char *version,
					struct cache_obj *const *items,
					size_t n, const char *meta)
{
	struct buf body = BUF_INIT, js = BUF_INIT, raws = BUF_INIT,
		   lm = BUF_INIT;
	int r = 0;
	for (size_t i = 0; !r && i < n; i++) {
		struct buf one = BUF_INIT;
		buf_reset(&js);
		r = proxy_table_metadata_render(&js, k, items[i], version);
		if (!r && meta)
			r = proxy_pb_metadata(&one, js.p, js.len, true);
		else if (!r)
			r = proxy_pb_metadata(&body, js.p, js.len, false);
		if (!r && meta) {
			unsigned char pre[PROXY_PB_PREFIX_MAX];
			size_t pl = proxy_pb_item_prefix(pre, one.len);
			buf_add(&raws, pre, pl);
			buf_add(&raws, one.p ? one.p : "", one.len);
		}
		buf_free(&one);
	}
	if (!r && meta) {
		char apiv[64];
		snprintf(apiv, sizeof(apiv), "meta.k8s.io/%s", version);
		r = proxy_pb_listmeta(&lm, meta, strlen(meta));
		if (!r)
			r = proxy_pb_list_head(
				&body, apiv, "PartialObjectMetadataList",
				lm.p ? lm.p : "", lm.len, raws.len);
		buf_add(&body, raws.p ? raws.p : "", raws.len);
		buf_add(&body, PROXY_PB_TAIL, PROXY_PB_TAIL_LEN);
	}
	buf_free(&js);
	buf_free(&raws);
	buf_free(&lm);
	if (r || !buf_ok(&body)) {
		buf_free(&body);
		return r == -ENOMEM || r == 0 ?
			       MHD_NO :
			       proxy_reply_error(c, PROXY_InternalError,
						 "cannot encode the metadata");
	}
	return proxy_reply_buf(c, MHD_HTTP_OK, &body);
}

/* The LIST in protobuf: an iovec over the items' kept encodings (made by
 * pb_encode_items()), framed by a head whose lengths are summed first.
 * Takes the snapshot reference. */
static enum MHD_Result send_list_pb(struct MHD_Connection *c,
				    const struct cache_kind *k,
				    struct cache_snap *snap,
				    const struct page *pg, const char *meta)
{
	struct buf head = BUF_INIT, lm = BUF_INIT;
	struct proxy_reply_pieces pc = { 0 };
	char apiv[CACHE_KIND_API_VERSION_MAX];
	struct pb_body *pb = xcalloc(1, sizeof(*pb));
	if (!pb) {
		cache_store_snap_put(snap);
		return MHD_NO;
	}
	pb->snap = snap; /* pb owns the snapshot from here on */
	pb->prefixes = xmalloc(pg->n * PROXY_PB_PREFIX_MAX + 1);
	size_t items_len = 0;
	for (size_t i = 0; i < pg->n; i++) {
		const unsigned char *raw;
		size_t len;
		if (cache_obj_pb(pg->items[i], &raw, &len, NULL, 0))
			goto fail; /* kept by pb_encode_items(): cannot */
		items_len += proxy_pb_item_len(len);
	}
	cache_kind_api_version(k, apiv, sizeof(apiv));
	if (!pb->prefixes || proxy_pb_listmeta(&lm, meta, strlen(meta)) ||
	    proxy_pb_list_head(&head, apiv, k->list_kind, lm.p ? lm.p : "",
			       lm.len, items_len) ||
	    !buf_ok(&head))
		goto fail;
	size_t hl = head.len;
	pb->head = buf_steal(&head, NULL);
	proxy_reply_pieces_add(&pc, pb->head, hl);
	unsigned char *at = pb->prefixes;
	for (size_t i = 0; i < pg->n; i++) {
		const unsigned char *raw;
		size_t len;
		cache_obj_pb(pg->items[i], &raw, &len, NULL, 0);
		size_t pl = proxy_pb_item_prefix(at, len);
		proxy_reply_pieces_add(&pc, at, pl);
		proxy_reply_pieces_add(&pc, raw, len);
		at += pl;
	}
	proxy_reply_pieces_add(&pc, PROXY_PB_TAIL, PROXY_PB_TAIL_LEN);
	buf_free(&lm);
	return proxy_reply_pieces(c, &pc, pb_body_free, pb);
fail:
	buf_free(&head);
	buf_free(&lm);
	pb_body_free(pb);
	return MHD_NO;
}

/* The LIST answer: for plain JSON an iovec over the cached bytes (items
 * leave out kind and apiVersion, as the apiserver writes them); for a
 * Table or metadata list, a body made as it is sent, a few rows at a
 * time (never whole: a client that stops reading holds one part).
 * Takes the snapshot reference, and the page's items for the latter. */
static enum MHD_Result send_list(struct MHD_Connection *c,
				 const struct cache_kind *k,
				 const struct proxy_table_format *fmt,
				 struct cache_snap *snap, struct page *pg,
				 const char *meta)
{
	struct buf head = BUF_INIT;
	char apiv[CACHE_KIND_API_VERSION_MAX];
	struct cache_obj *const *items = pg->items;
	size_t n = pg->n;
	if (fmt->yaml)
		return send_list_yaml(c, k, fmt, snap, pg, meta);
	if (fmt->form != PROXY_TABLE_FORM_JSON) {
		struct render_body *rb = xcalloc(1, sizeof(*rb));
		if (!rb) {
			cache_store_snap_put(snap);
			return MHD_NO;
		}
		rb->snap = snap; /* rb owns both from here on */
		rb->items = pg->items;
		pg->items = NULL;
		rb->tl = proxy_table_list_new(k, fmt, meta, rb->items, n,
					      time(NULL));
		if (!rb->tl) {
			render_body_free(rb);
			return MHD_NO;
		}
		return proxy_reply_render(c, render_fill, rb, render_body_free);
	}

	struct list_body *lb = xcalloc(1, sizeof(*lb));
	struct proxy_reply_pieces pc = { 0 };
	if (!lb) {
		cache_store_snap_put(snap);
		return MHD_NO;
	}
	lb->snap = snap; /* lb owns the snapshot from here on */
	cache_kind_api_version(k, apiv, sizeof(apiv));
	buf_printf(&head,
		   "{\"kind\":\"%s\",\"apiVersion\":\"%s\",\"metadata\":%s,"
		   "\"items\":[",
		   k->list_kind, apiv, meta);
	if (!buf_ok(&head)) {
		buf_free(&head);
		list_body_free(lb);
		return MHD_NO;
	}
	lb->head = buf_steal(&head, NULL);
	proxy_reply_pieces_add(&pc, lb->head, strlen(lb->head));
	for (size_t i = 0; i < n; i++) {
		const struct cache_obj *o = items[i];
		proxy_reply_pieces_add(&pc, i ? ",{" : "{", i ? 2 : 1);
		/* its indented length kept in the object (a field for
		 * the proxy's use: cast from the snapshot's const) */
		proxy_reply_pieces_add_item(&pc, o->json + o->item_off,
					    o->len - o->item_off,
					    (uint32_t *)&o->pretty_len);
	}
	proxy_reply_pieces_add(&pc, "]}\n", 3);
	return proxy_reply_pieces(c, &pc, list_body_free, lb);
}

/* Select into pg what matches f, from the first key of f's namespace, or
 * after start_ns/start_name (a continue token's start key) when start_ns
 * is not NULL, up to limit (0: all). Returns 0 or -ENOMEM. */
static int select_page(const struct cache_store *st, struct cache_snap *snap,
		       const struct proxy_filter *f, const char *start_ns,
		       const char *start_name, uint64_t limit, struct page *pg)
{
	struct cache_iter it;
	proxy_filter_seek(f, &it, st, snap, start_ns ? start_ns : f->ns,
			  start_ns ? start_name : "");
	struct cache_obj *o;
	while ((o = cache_store_iter_next(&it))) {
		if (proxy_filter_past(f, o))
			break; /* past the namespace's range */
		if (start_ns && !strcmp(o->ns, start_ns) &&
		    !strcmp(o->name, start_name))
			continue; /* the token names the last item sent */
		if (!proxy_filter_match(f, o))
			continue;
		if (limit && pg->n == limit) {
			pg->more = true;
			break;
		}
		if (pg->n == pg->cap) {
			size_t cap = pg->cap ? pg->cap * 2 : 64;
			struct cache_obj **ni =
				xrealloc(pg->items, cap * sizeof(*ni));
			if (!ni)
				return -ENOMEM;
			pg->items = ni;
			pg->cap = cap;
		}
		pg->items[pg->n++] = o;
	}
	return 0;
}

/* The LIST's ListMeta: its RV and, for a page cut short, the continue
 * token (the snapshot pinned for the next pages) and, when only the
 * namespace narrows it, remainingItemCount. */
static void list_meta(struct buf *meta, struct cache_resource *r,
		      struct cache_snap *snap, const struct proxy_filter *f,
		      const struct page *pg)
{
	buf_printf(meta, "{\"resourceVersion\":\"%llu\"",
		   (unsigned long long)snap->rv);
	if (pg->more && pg->n) {
		const struct cache_obj *last = pg->items[pg->n - 1];
		buf_adds(meta, ",\"continue\":\"");
		proxy_continue_encode(meta, snap->rv, last->ns, last->name);
		buf_addc(meta, '"');
		if (proxy_filter_is_ns_only(f)) {
			size_t end = f->ns[0] ? cache_store_snap_rank_ns_end(
							snap, f->ns) :
						snap->count;
			size_t at = cache_store_snap_rank(snap, last->ns,
							  last->name) +
				    1;
			buf_printf(meta, ",\"remainingItemCount\":%zu",
				   end - at);
		}
		if (cache_store_pin(r->store, snap, PIN_TTL))
			PROXY_COUNT(pins_evicted);
	}
	buf_addc(meta, '}');
}

enum MHD_Result proxy_list_handle(struct proxy *p, struct MHD_Connection *c,
				  struct cache_resource *r,
				  const struct proxy_route *rt,
				  struct proxy_fresh_req *req)
{
	enum MHD_Result res = MHD_NO;
	struct proxy_rv_req q;
	struct proxy_filter f;
	char err[512];
	const char *limit_s = NULL, *cont = NULL;
	uint64_t limit = 0;
	char start_ns[254] = "", start_name[254] = "";
	uint64_t cont_rv = 0;

	struct proxy_table_format fmt = { 0 };
	int pbf = proxy_reply_protobuf(); /* the JSON path's form aside */
	if (!pbf && (!proxy_reply_accept_routed(c) ||
		     proxy_table_format_negotiate(c, &fmt)))
		return proxy_reply_not_acceptable(c, PROXY_NA_COLLECTION);
	if (!proxy_filter_check(c, r->kind, false, &res) ||
	    !proxy_rv_read(c, &q, &res))
		return res;
	if (proxy_request_arg(c, "limit", &limit_s) && limit_s) {
		/* checked by the router (proxy_request_check_ints); the
		 * apiserver pages for a limit above 0 only */
		long long l = strtoll(limit_s, NULL, 10);
		limit = l > 0 ? (uint64_t)l : 0;
	}
	if (q.any)
		limit = 0; /* and any limit at "0": 1.32's watch cache does */
	bool has_cont =
		proxy_request_arg(c, "continue", &cont) && cont && *cont;
	if (!has_cont && !list_rules(r, &q, limit)) {
		PROXY_COUNT(reads_upstream);
		req->upstream = true;
		return MHD_YES;
	}
	if (has_cont) {
		if (q.rv || q.exact)
			return proxy_reply_error(
				c, PROXY_BadRequest,
				"specifying resource version is not allowed when using continue");
		if (proxy_continue_decode(cont, &cont_rv, start_ns,
					  sizeof(start_ns), start_name,
					  sizeof(start_name), err, sizeof(err)))
			return proxy_reply_error(c, PROXY_BadRequest, "%s",
						 err);
	} else {
		/* a LIST of all the cache holds, no bigger than a list probe,
		 * may be proven by one (fresh.h) */
		const char *ls = NULL, *fs = NULL;
		proxy_request_arg(c, "labelSelector", &ls);
		proxy_request_arg(c, "fieldSelector", &fs);
		req->wait.whole =
			(!rt->ns[0] ||
			 (r->scope.ns && !strcmp(rt->ns, r->scope.ns))) &&
			!(ls && *ls) && !(fs && *fs);
		if (proxy_fresh_await(p->fresh, c, r, &q, false, req, &res))
			return res;
	}
	int pr = proxy_filter_parse(&f, c, r->kind, rt->ns, NULL, err,
				    sizeof(err));
	if (pr == -ENOMEM)
		return MHD_NO;
	if (pr)
		return proxy_reply_error(c, PROXY_BadRequest, "%s", err);

	struct cache_snap *snap;
	if (cont_rv) {
		snap = cache_store_at(r->store, cont_rv);
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
		snap = snap_for(r, &q);
		if (!snap) {
			proxy_filter_free(&f);
			PROXY_COUNT(reads_upstream);
			req->upstream = true;
			return MHD_YES;
		}
	}

	struct page pg = { 0 };
	if (select_page(r->store, snap, &f, cont_rv ? start_ns : NULL,
			start_name, limit, &pg))
		goto fail;
	if (pbf == PROXY_PB_OBJECT && !req->encoded && p->encode &&
	    encodings_missing(&pg) >= PROXY_ENCODE_MIN) {
		/* resumed when they are made: this runs again */
		req->encoded = true;
		if (!proxy_encode_submit(p->encode, c, snap, pg.items, pg.n)) {
			proxy_filter_free(&f);
			return MHD_YES;
		}
	}
	if (pbf == PROXY_PB_OBJECT) {
		int e = pb_encode_items(&pg);
		if (e == -ENOMEM)
			goto fail;
		if (e) { /* never with a field dropped: the upstream's */
			proxy_metrics_pb_pass(r, e);
			PROXY_COUNT(reads_upstream);
			req->upstream = true;
			res = MHD_YES;
			goto fail;
		}
	}
	struct buf meta = BUF_INIT;
	list_meta(&meta, r, snap, &f, &pg);
	res = MHD_NO;
	if (buf_ok(&meta) && pbf == PROXY_PB_METADATA) {
		res = send_pb_metadata(c, r->kind, pb_meta_version(c, r),
				       pg.items, pg.n, meta.p);
	} else if (buf_ok(&meta) && pbf) {
		res = send_list_pb(c, r->kind, snap, &pg, meta.p);
		snap = NULL; /* send_list_pb took it */
	} else if (buf_ok(&meta)) {
		res = send_list(c, r->kind, &fmt, snap, &pg, meta.p);
		snap = NULL; /* send_list took it */
	} /* else the reference is still ours: put below, not leaked */
	buf_free(&meta);
fail:
	cache_store_snap_put(snap);
	free(pg.items);
	proxy_filter_free(&f);
	return res;
}

/* ---- GET ---- */

/* A GET in protobuf: the envelope's head, the object's kept encoding
 * raw[0, len), the tail. Takes the object reference. */
static enum MHD_Result send_get_pb(struct MHD_Connection *c,
				   const struct cache_kind *k,
				   struct cache_obj *o,
				   const unsigned char *raw, size_t len)
{
	struct buf head = BUF_INIT;
	struct proxy_reply_pieces pc = { 0 };
	char apiv[CACHE_KIND_API_VERSION_MAX];
	struct pb_body *pb = xcalloc(1, sizeof(*pb));
	if (!pb) {
		cache_obj_put(o);
		return MHD_NO;
	}
	pb->obj = o; /* pb owns the reference from here on */
	cache_kind_api_version(k, apiv, sizeof(apiv));
	if (proxy_pb_object_head(&head, apiv, k->kind, len) || !buf_ok(&head)) {
		buf_free(&head);
		pb_body_free(pb);
		return MHD_NO;
	}
	size_t hl = head.len;
	pb->head = buf_steal(&head, NULL);
	proxy_reply_pieces_add(&pc, pb->head, hl);
	proxy_reply_pieces_add(&pc, raw, len);
	proxy_reply_pieces_add(&pc, PROXY_PB_TAIL, PROXY_PB_TAIL_LEN);
	return proxy_reply_pieces(c, &pc, pb_body_free, pb);
}

static void get_body_free(void *cls)
{
	cache_obj_put(cls);
}

enum MHD_Result proxy_list_get(struct proxy *p, struct MHD_Connection *c,
			       struct cache_resource *r,
			       const struct proxy_route *rt,
			       struct proxy_fresh_req *req)
{
	enum MHD_Result res = MHD_NO;
	struct proxy_rv_req q;
	struct proxy_table_format fmt = { 0 };
	int pbf = proxy_reply_protobuf();
	if (!pbf && (!proxy_reply_accept_routed(c) ||
		     proxy_table_format_negotiate(c, &fmt)))
		return proxy_reply_not_acceptable(c, PROXY_NA_OBJECT);
	if (!proxy_rv_read(c, &q, &res))
		return res;
	/* an RV-less GET may be proven by a GET of its object alone */
	req->wait.ns = rt->ns;
	req->wait.name = rt->name;
	if (proxy_fresh_await(p->fresh, c, r, &q, false, req, &res))
		return res;
	struct cache_obj *o = cache_store_get(r->store, rt->ns, rt->name, NULL);
	if (!o && !cache_scope_unselected(&r->scope)) {
		/* outside the scope's selectors, perhaps: not ours to deny */
		proxy_metrics_scope_count(r, false);
		req->upstream = true;
		return MHD_YES;
	}
	if (!o)
		return proxy_reply_not_found(c, r->kind->resource, rt->name);
	if (pbf && (r->scope.ns || !cache_scope_unselected(&r->scope)))
		proxy_metrics_scope_count(r, true);
	if (pbf == PROXY_PB_METADATA) {
		enum MHD_Result sr = send_pb_metadata(
			c, r->kind, pb_meta_version(c, r), &o, 1, NULL);
		cache_obj_put(o);
		return sr;
	}
	if (pbf) {
		const unsigned char *raw;
		size_t len;
		char err[160];
		int e = cache_obj_pb(o, &raw, &len, err, sizeof(err));
		if (e) {
			cache_obj_put(o);
			if (e == -ENOMEM)
				return MHD_NO;
			/* never with a field dropped: the upstream's */
			log_v(2, "%s %s/%s: not in protobuf: %s",
			      r->kind->resource, rt->ns, rt->name, err);
			proxy_metrics_pb_pass(r, e);
			PROXY_COUNT(reads_upstream);
			req->upstream = true;
			return MHD_YES;
		}
		return send_get_pb(c, r->kind, o, raw, len);
	}
	if (r->scope.ns || !cache_scope_unselected(&r->scope))
		proxy_metrics_scope_count(r, true);
	if (fmt.form != PROXY_TABLE_FORM_JSON) {
		struct buf body = BUF_INIT;
		if (fmt.form == PROXY_TABLE_FORM_TABLE) {
			/* a one-row Table at the object's own RV, as the
			 * apiserver answers a GET */
			char meta[64];
			proxy_table_object_meta(o, meta, sizeof(meta));
			proxy_table_render(&body, r->kind, &fmt, meta, &o, 1,
					   true, time(NULL));
		} else {
			proxy_table_metadata_render(&body, r->kind, o,
						    fmt.version);
		}
		cache_obj_put(o);
		if (fmt.yaml)
			return proxy_reply_yaml(c, MHD_HTTP_OK, &body);
		buf_addc(&body, '\n');
		return proxy_reply_buf(c, MHD_HTTP_OK, &body);
	}
	if (fmt.yaml) {
		struct buf body = BUF_INIT;
		buf_add(&body, o->json, o->len);
		cache_obj_put(o);
		return proxy_reply_yaml(c, MHD_HTTP_OK, &body);
	}
	struct proxy_reply_pieces pc = { 0 };
	proxy_reply_pieces_add(&pc, o->json, o->len);
	proxy_reply_pieces_add(&pc, "\n", 1);
	return proxy_reply_pieces(c, &pc, get_body_free, o);
}
