/*
 * fake_watch: WATCH streams.
 *
 * Each watch is a cursor (the last RV it has passed) into the store's
 * history plus a filter. Its connection has its own thread, so the
 * content-reader callback simply blocks until there is something to
 * send: new events, a bookmark, the deadline, dropWatches or shutdown.
 * While idle it wakes twice a second to notice a client that hung up.
 *
 * What is sent follows the apiserver (v1.32):
 * one compact JSON event per line; RV unset or 0 starts with synthetic
 * ADDED events for the current state; RV N resumes after N or, when the
 * history no longer reaches N, sends one 410 ERROR event and closes.
 * As in the cacher, a MODIFIED event that moves an object into or out of
 * the filter becomes ADDED or DELETED. In 1.32 (WatchList on), a watch
 * with RV unset or 0 and no sendInitialEvents/resourceVersionMatch is
 * defaulted to sendInitialEvents=true, so with allowWatchBookmarks it
 * ends its initial events with the k8s.io/initial-events-end BOOKMARK,
 * which carries the kubernetes.io/initial-events-list-blueprint (the
 * empty list, for client-go's List over a watch-list).
 *
 * BOOKMARKs, to a watch that asked (allowWatchBookmarks=true), as the
 * watch cache sends them: every
 * --bookmark-interval s (60), plus one 2 s before the deadline (none
 * for a watch of 2 s or less). Each carries the watch's
 * cursor, which passes every resource's events (a healthy etcd with
 * progress notifications), and is only sent when that RV is above the
 * RV the watch started from: a watch on a cluster where nothing moved
 * gets no bytes at all.
 *
 * Deadlines: timeoutSeconds, or else a random 30-60 minutes, as the
 * apiserver spreads its minRequestTimeout.
 *
 * A resource in --uncached-resources (events by default) is served
 * "from etcd": its watches get no bookmarks at all (the WatchList
 * initial-events-end one excepted), and a resume from RV r gets the 410
 * ERROR event once etcd is compacted past r + 1, the revision the watch
 * would start at, with the message of the apiserver's etcd watcher.
 * Cached resources resume from the watch cache's own history (the
 * --history ring), whatever etcd compacted.
 */
#include "fake_watch.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "config/alloc.h"
#include "config/log.h"
#include "fake_http.h"
#include "fake_json.h"
#include "fake_pbout.h"
#include "fake_query.h"
#include "fake_res.h"
#include "fake_table.h"
#include "fake_tls.h"

#define BATCH_BYTES (256u << 10) /* per lock hold */
#define IDLE_CHECK_MS 500

static int64_t bookmark_ms = 60000;

void fake_watch_set_bookmark_interval(unsigned seconds)
{
	bookmark_ms = (int64_t)seconds * 1000;
	if (bookmark_ms <= 0)
		bookmark_ms = 1000;
}

struct watch {
	struct MHD_Connection *conn;
	int fd;
	int res;
	char *ns, *name; /* owned; f points here */
	struct fake_filter f;
	uint64_t cursor;   /* every event <= cursor is handled */
	uint64_t start_rv; /* bookmarks only with an RV above it */
	unsigned gen;
	int64_t deadline;
	int64_t next_bookmark; /* 0: bookmarks off */
	int64_t pre_timeout;   /* the bookmark before the deadline, 0: none */
	bool ended;	       /* close once out is drained */
	bool cut_now;	       /* cutAfterBytes reached */
	long long cut_left;    /* bytes before the cut, -1: none */
	struct fake_obj **initial; /* synthetic ADDED still to send */
	size_t ninitial, iinitial;
	bool end_bookmark;  /* initial-events-end after them */
	struct fake_as as;  /* Table or PartialObjectMetadata events */
	bool cols_sent;	    /* a Table event carried the columns */
	bool pb, pb_framed; /* protobuf frames; out is framed already */
	struct buf out;
	size_t off;
};

static void add_event(struct buf *b, const char *type, const char *json,
		      size_t len)
{
	if (fake_faults_take_malformed()) {
		/* a line cut in the middle of the object */
		buf_printf(b, "{\"type\":\"%s\",\"object\":", type);
		buf_add(b, json, len / 2);
		buf_addc(b, '\n');
		return;
	}
	buf_printf(b, "{\"type\":\"%s\",\"object\":", type);
	buf_add(b, json, len);
	buf_adds(b, "}\n");
}

/* An object event in the watch's output form: as a Table only the first
 * one carries columnDefinitions (later ones have null), as the apiserver. */
static void watch_event(struct watch *w, const char *type, const char *json,
			size_t len)
{
	if (w->as.kind == FAKE_AS_OBJECT) {
		add_event(&w->out, type, json, len);
		return;
	}
	struct buf t = BUF_INIT;
	fake_table_event(&t, &w->as, w->res, json, len, !w->cols_sent);
	w->cols_sent = true;
	add_event(&w->out, type, t.p ? t.p : "{}", t.p ? t.len : 2);
	buf_free(&t);
}

static void add_base64(struct buf *b, const char *s, size_t n)
{
	static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrs"
				 "tuvwxyz0123456789+/";
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		buf_addc(b, al[(v >> 18) & 63]);
		buf_addc(b, al[(v >> 12) & 63]);
		buf_addc(b, i + 1 < n ? al[(v >> 6) & 63] : '=');
		buf_addc(b, i + 2 < n ? al[v & 63] : '=');
	}
}

/* The initial-events-list-blueprint: the empty list of the watch's form,
 * as the apiserver's JSON encoder writes it (newline included), base64.
 * The handler converts the storage's new, empty list: a typed list has
 * "items":null and empty metadata; a custom resource's is unstructured,
 * a map whose keys encoding/json sorts, with "items":[]. */
static void add_blueprint(struct watch *w)
{
	const struct fake_res *r = &fake_res_table[w->res];
	struct buf l = BUF_INIT;
	if (w->as.kind == FAKE_AS_META)
		buf_printf(&l,
			   "{\"kind\":\"PartialObjectMetadataList\","
			   "\"apiVersion\":\"meta.k8s.io/%s\",\"metadata\":{},"
			   "\"items\":null}\n",
			   w->as.version);
	else if (r->custom)
		buf_printf(
			&l,
			"{\"apiVersion\":\"%s\",\"items\":[],\"kind\":\"%s\"}\n",
			r->api_version, r->list_kind);
	else
		buf_printf(&l,
			   "{\"kind\":\"%s\",\"apiVersion\":\"%s\","
			   "\"metadata\":{},\"items\":null}\n",
			   r->list_kind, r->api_version);
	add_base64(&w->out, l.p ? l.p : "", l.len);
	buf_free(&l);
}

static void add_bookmark(struct watch *w, bool initial_end)
{
	const struct fake_res *r = &fake_res_table[w->res];
	/* a custom resource's bookmark is unstructured: no zero values */
	buf_printf(&w->out,
		   "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"%s\","
		   "\"apiVersion\":\"%s\",\"metadata\":{\"resourceVersion\":"
		   "\"%llu\"%s",
		   r->kind, r->api_version, (unsigned long long)w->cursor,
		   r->custom ? "" : ",\"creationTimestamp\":null");
	if (initial_end) {
		/* map keys sorted, as encoding/json writes them */
		buf_adds(&w->out,
			 ",\"annotations\":{\"k8s.io/initial-events-end\":"
			 "\"true\",\"kubernetes.io/initial-events-list-"
			 "blueprint\":\"");
		add_blueprint(w);
		buf_adds(&w->out, "\"}");
	}
	buf_printf(&w->out, "}%s}}\n", r->bookmark_tail);
}

static void add_error(struct buf *b, unsigned code, const char *reason,
		      const char *details, const char *msg)
{
	buf_adds(b, "{\"type\":\"ERROR\",\"object\":");
	fake_status_json(b, code, reason, details, msg);
	buf_adds(b, "}\n");
}

/* An uncached resource's resume from an RV etcd compacted away: the
 * apiserver's etcd watcher turns ErrCompacted into this Status. */
static void add_compacted(struct watch *w)
{
	add_error(&w->out, 410, "Expired", NULL,
		  "The resourceVersion for the provided watch is too old.");
	w->ended = true;
}

static void add_too_old(struct watch *w, uint64_t rv, uint64_t floor)
{
	char msg[96];
	snprintf(msg, sizeof(msg), "too old resource version: %llu (%llu)",
		 (unsigned long long)rv, (unsigned long long)floor);
	add_error(&w->out, 410, "Expired", NULL, msg);
	w->ended = true;
}

/* Append the events after the cursor that the filter passes. Read lock
 * held. */
static void fill_events(struct watch *w)
{
	const struct fake_event *e = NULL;
	bool expired = false;

	while (w->out.len < BATCH_BYTES &&
	       (e = fake_store_event_after(w->cursor, &expired))) {
		w->cursor = e->rv;
		if (e->res != w->res)
			continue;
		bool now = e->type != FAKE_DELETED &&
			   fake_filter_match(&w->f, e->obj);
		bool before = e->prev && fake_filter_match(&w->f, e->prev);
		if (e->type == FAKE_DELETED) {
			if (before)
				watch_event(w, "DELETED", e->obj->json,
					    e->obj->len);
		} else if (now) {
			watch_event(w, before ? "MODIFIED" : "ADDED",
				    e->obj->json, e->obj->len);
		} else if (before) {
			/* left the filter: its old state at this RV */
			size_t n;
			char *j = fake_json_set_rv(e->prev->json, e->prev->len,
						   e->rv, &n);
			if (j)
				watch_event(w, "DELETED", j, n);
			free(j);
		}
	}
	if (!e && expired)
		add_too_old(w, w->cursor, fake_store_floor());
}

static void fill_initial(struct watch *w)
{
	while (w->iinitial < w->ninitial && w->out.len < BATCH_BYTES) {
		struct fake_obj *o = w->initial[w->iinitial++];
		watch_event(w, "ADDED", o->json, o->len);
		fake_obj_put(o);
	}
	if (w->iinitial == w->ninitial) {
		free(w->initial);
		w->initial = NULL;
		w->ninitial = w->iinitial = 0;
		if (w->end_bookmark)
			add_bookmark(w, true);
		w->end_bookmark = false;
	}
}

static bool peer_closed(const struct watch *w)
{
	struct pollfd p = { w->fd, POLLIN | POLLRDHUP, 0 };
	char c;

	if (w->fd < 0 || poll(&p, 1, 0) <= 0)
		return false;
	if (p.revents & (POLLHUP | POLLERR | POLLRDHUP))
		return true;
	/* Over TLS a client that hangs up first sends close_notify: bytes,
	 * not EOF. A watch client sends nothing else, so any bytes end it. */
	if ((p.revents & POLLIN) && fake_tls_on())
		return true;
	return (p.revents & POLLIN) &&
	       recv(w->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

static void schedule_bookmark(struct watch *w, int64_t now)
{
	int64_t next = now + bookmark_ms;
	if (w->pre_timeout && w->pre_timeout > now && w->pre_timeout < next)
		next = w->pre_timeout;
	w->next_bookmark = next;
}

static ssize_t watch_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct watch *w = cls;

	for (;;) {
		if (w->off < w->out.len && w->pb && !w->pb_framed) {
			if (fake_pb_frames(&w->out))
				return MHD_CONTENT_READER_END_WITH_ERROR;
			w->pb_framed = true;
		}
		if (w->off < w->out.len) {
			size_t n = w->out.len - w->off;
			if (n > max)
				n = max;
			if (w->cut_left >= 0 && (long long)n >= w->cut_left) {
				n = (size_t)w->cut_left;
				w->cut_now = true;
			}
			if (w->cut_left >= 0)
				w->cut_left -= (long long)n;
			memcpy(buf, w->out.p + w->off, n);
			w->off += n;
			if (n)
				return (ssize_t)n;
		}
		if (w->cut_now)
			return MHD_CONTENT_READER_END_WITH_ERROR;
		buf_reset(&w->out);
		w->off = 0;
		w->pb_framed = false;
		if (w->ended || fake_store_stopping() ||
		    fake_store_gen() != w->gen)
			return MHD_CONTENT_READER_END_OF_STREAM;
		int64_t now = fake_now_ms();
		if (now >= w->deadline)
			return MHD_CONTENT_READER_END_OF_STREAM;
		if (w->initial || w->end_bookmark) {
			fill_initial(w);
			continue;
		}
		/* watchDelayMs: events go out that much after they were
		 * written, as from a watch that lags */
		long delay = fake_faults_watch_delay_ms();
		if (delay > 0 && fake_store_rv() > w->cursor) {
			struct timespec ts = { delay / 1000,
					       (delay % 1000) * 1000000L };
			nanosleep(&ts, NULL);
		}
		fake_store_rdlock();
		fill_events(w);
		fake_store_rdunlock();
		if (w->out.len)
			continue;
		if (w->next_bookmark && now >= w->next_bookmark) {
			if (w->cursor > w->start_rv)
				add_bookmark(w, false);
			schedule_bookmark(w, now);
			continue;
		}
		int64_t until = now + IDLE_CHECK_MS;
		if (w->deadline < until)
			until = w->deadline;
		if (w->next_bookmark && w->next_bookmark < until)
			until = w->next_bookmark;
		fake_store_wait(w->cursor, w->gen, until);
		if (peer_closed(w))
			return MHD_CONTENT_READER_END_WITH_ERROR;
	}
}

static void watch_free(void *cls)
{
	struct watch *w = cls;

	__atomic_sub_fetch(&fake_res_stats[w->res].watch_open, 1,
			   __ATOMIC_RELAXED);
	for (size_t i = w->iinitial; i < w->ninitial; i++)
		fake_obj_put(w->initial[i]);
	free(w->initial);
	fake_filter_free(&w->f);
	buf_free(&w->out);
	free(w->ns);
	free(w->name);
	free(w);
}

struct collect {
	const struct fake_filter *f;
	struct fake_obj **v;
	size_t n, cap;
	bool oom;
};

static bool collect_one(void *ctx, struct fake_obj *o)
{
	struct collect *c = ctx;
	if (!fake_filter_match(c->f, o))
		return true;
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		struct fake_obj **v = xrealloc(c->v, cap * sizeof(*v));
		if (!v) {
			c->oom = true;
			return false;
		}
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = fake_obj_get(o);
	return true;
}

/* Decide where the stream starts; under the read lock so the initial
 * state and the cursor agree. */
static void start_cursor(struct watch *w, bool initial, uint64_t rv)
{
	fake_store_rdlock();
	if (initial) {
		struct collect c = { &w->f, NULL, 0, 0, false };
		w->cursor = fake_store_rv();
		fake_store_scan(w->res, w->cursor, w->ns, NULL, NULL,
				collect_one, &c);
		w->initial = c.v;
		w->ninitial = c.n;
	} else if (rv == 0) {
		w->cursor = fake_store_rv();
	} else {
		w->cursor = rv;
		if (fake_res_table[w->res].uncached &&
		    rv + 1 < fake_store_compacted())
			add_compacted(w);
		else if (rv < fake_store_floor())
			add_too_old(w, rv, fake_store_floor());
	}
	w->start_rv = w->cursor;
	fake_store_rdunlock();
}

static struct watch *watch_new(struct fake_req *rq)
{
	struct watch *w = xcalloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->conn = rq->conn;
	w->res = rq->res;
	w->ns = rq->ns ? xstrdup(rq->ns) : NULL;
	w->name = rq->name ? xstrdup(rq->name) : NULL;
	w->cut_left = fake_faults_take_cut();
	w->gen = fake_store_gen();
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
		rq->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	w->fd = ci ? ci->connect_fd : -1;
	return w;
}

enum MHD_Result fake_watch_serve(struct fake_req *rq)
{
	struct MHD_Connection *c = rq->conn;
	struct fake_listopts o;
	struct fake_filter f;
	enum MHD_Result ret;
	uint64_t rv;
	struct watch *w;

	fake_res_count(&fake_res_stats[rq->res].watch);
	fake_control_note(rq->res, true, rq->ns,
			  fake_query(rq->conn, "labelSelector"),
			  fake_query(rq->conn, "fieldSelector"));
	if (!fake_listopts_parse(rq, &o, &f, &ret))
		return ret;
	if (!fake_rv_parse(c, o.rv, &rv, &ret)) {
		fake_filter_free(&f);
		return ret;
	}
	bool legacy0 = !o.rv || !*o.rv || strcmp(o.rv, "0") == 0;
	if (o.send_initial < 0 && !*o.rv_match && legacy0)
		o.send_initial = 1; /* 1.32's WatchList defaulting */

	if (!(w = watch_new(rq))) {
		fake_filter_free(&f);
		return MHD_NO;
	}
	fake_as_negotiate(c, true, true, &w->as);
	enum fake_pb pb;
	if (!fake_pb_negotiate(rq, true, true, &w->as, &pb, &ret)) {
		__atomic_add_fetch(&fake_res_stats[rq->res].watch_open, 1,
				   __ATOMIC_RELAXED);
		watch_free(w);
		fake_filter_free(&f);
		return ret;
	}
	w->pb = pb == FAKE_PB_PROTO;
	w->f = f;
	w->f.ns = w->ns;
	w->f.name = w->name;

	int64_t now = fake_now_ms();
	if (o.timeout > 0)
		w->deadline = now + o.timeout * 1000;
	else /* the apiserver's 30-60 min spread */
		w->deadline = now + (1800 + random() % 1800) * 1000LL;
	/* the cacher's pre-timeout bookmark; none for a watch of 2 s or less */
	w->pre_timeout = w->deadline - 2000 > now ? w->deadline - 2000 : 0;
	/* the watch cache's bookmarks; an uncached resource gets none */
	if (o.bookmarks && !fake_res_table[rq->res].uncached)
		schedule_bookmark(w, now);

	if (o.send_initial == 1) {
		uint64_t cur = fake_store_rv();
		if (rv > cur) {
			int64_t until = now + 3000;
			while ((cur = fake_store_rv()) < rv &&
			       fake_now_ms() < until && !fake_store_stopping())
				fake_store_wait(rv - 1, fake_store_gen(),
						until);
		}
		if (cur < rv) {
			char msg[128];
			snprintf(msg, sizeof(msg),
				 "Timeout: Too large resource "
				 "version: %llu, current: %llu",
				 (unsigned long long)rv,
				 (unsigned long long)cur);
			add_error(
				&w->out, 504, "Timeout",
				"{\"causes\":[{\"reason\":"
				"\"ResourceVersionTooLarge\","
				"\"message\":\"Too large resource version\"}],"
				"\"retryAfterSeconds\":1}",
				msg);
			w->ended = true;
		} else {
			w->end_bookmark = o.bookmarks;
			start_cursor(w, true, 0);
		}
	} else {
		start_cursor(w, legacy0 && o.send_initial < 0, rv);
	}

	struct MHD_Response *r = MHD_create_response_from_callback(
		MHD_SIZE_UNKNOWN, 64 * 1024, watch_read, w, watch_free);
	if (!r) {
		__atomic_add_fetch(&fake_res_stats[rq->res].watch_open, 1,
				   __ATOMIC_RELAXED);
		watch_free(w);
		return MHD_NO;
	}
	__atomic_add_fetch(&fake_res_stats[rq->res].watch_open, 1,
			   __ATOMIC_RELAXED);
	MHD_add_response_header(r, "Cache-Control", "no-cache, private");
	MHD_add_response_header(r, "Content-Type",
				w->pb ? FAKE_PB_STREAM : "application/json");
	ret = MHD_queue_response(c, 200, r);
	MHD_destroy_response(r);
	log_v(1, "watch %s from %llu", fake_res_table[rq->res].resource,
	      (unsigned long long)w->cursor);
	return ret;
}
