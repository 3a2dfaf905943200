/*
 * watch: WATCH streams from the event ring.
 *
 * A watch is a cursor into its resource's history plus a filter. Its
 * content reader copies whole event lines into libmicrohttpd's buffer:
 * the shared, once-encoded line when the event goes out as it is, or a
 * line of its own when the filter turns it into ADDED or DELETED (a
 * protobuf watch sends the event's protobuf frame, made once for all its
 * watchers, or a frame of its own: protobuf.h; a metadata-only watch the
 * event's line or frame of PartialObjectMetadata, made once too for v1).
 * With nothing to send it suspends the connection and queues itself on
 * the history, whose writer resumes it; no thread waits on an idle watch.
 * The ticker resumes every waiting watch twice a second so deadlines and
 * bookmarks are kept.
 *
 * Ownership: struct watch belongs to its response; libmicrohttpd calls
 * watch_free() when the connection is done with it. Each holds one of
 * the --max-watchers slots (conns.h) from its start to watch_free().
 */
#include "proxy/watch.h"

#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache/json.h"
#include "cache/parse.h"
#include "cache/shape.h"
#include "config/alloc.h"
#include "config/log.h"
#include "proxy/fanout.h"
#include "proxy/filter.h"
#include "proxy/front/conns.h"
#include "proxy/metrics.h"
#include "proxy/observe.h"
#include "proxy/protobuf.h"
#include "proxy/reply.h"
#include "proxy/rv.h"
#include "proxy/status.h"
#include "proxy/table/table.h"

/* libmicrohttpd allocates this much with every callback response, zeroed,
 * but reads into it only for a body sent without chunked encoding (an
 * HTTP/1.0 client): a chunked watch is read straight into the
 * connection's write buffer, so it gets the small block, which only a
 * libmicrohttpd that chose not to chunk after all would read into. 32
 * KiB here cost an idle watch 7 KiB of RSS for nothing, 512 bytes half
 * a KiB (docs/PERFORMANCE.md, B14). */
#define WATCH_BLOCK 512
#define WATCH_BLOCK_CHUNKED 64
/* A watch with nothing to send polls its socket for a hung-up client at
 * most this often: under the ticker's 500 ms, so every tick that finds
 * it idle still checks, but not after every event it sends (a poll()
 * per delivery was a fifth of the syscalls with 10,000 watchers; a
 * client that hangs up while events flow fails the send anyway). */
#define GONE_CHECK_MS 400
/* The apiserver's watch cache sends a bookmark this long before a watch's
 * deadline (its cacheWatcher's pre-timeout bookmark). */
#define PRE_DEADLINE_MS 2000
/* A fan-out worker sends a watch at most this much in one chunk before
 * it serves the others; a single larger line goes whole. */
#define FAN_BATCH (64 * 1024)

struct watch {
	struct cache_waiter waiter; /* first, for the cast in wake() */
	struct proxy *p;
	struct cache_resource *r;
	struct MHD_Connection *conn;
	struct proxy_filter f;
	uint64_t start_rv;	 /* events at or below it are not sent */
	uint64_t cursor;	 /* next history sequence number */
	uint64_t sent_rv;	 /* the newest RV the client knows of */
	struct cache_snap *snap; /* initial events come from here */
	/* only while initial events are sent: an idle watch is 536 bytes
	 * smaller without it */
	struct cache_iter *it;
	bool initial;	   /* still sending initial events */
	bool end_bookmark; /* then the initial-events-end bookmark */
	bool bookmarks;	   /* allowWatchBookmarks */
	bool done;	   /* end the stream once out is sent */
	struct proxy_table_format fmt; /* JSON, Table or metadata events */
	int pb; /* enum proxy_pb_form: protobuf frames, not JSON lines */
	bool columns_sent; /* a Table watch's first event has them */
	int64_t deadline_ms, bookmark_ms, last_bookmark_ms;
	int64_t pre_deadline_ms; /* the bookmark 2 s before the deadline, 0:
				  * sent or none */
	int64_t gone_check_ms; /* the last proxy_request_client_gone(), 0: never */
	/* The line being sent: a shared event's line or own.p. */
	struct cache_event *ev;
	const char *out;
	size_t out_len, out_off;
	struct buf own;
	struct proxy_observe_watch reg; /* for the lag gauge */
	/* Idle, the stream is written by a fan-out worker (fanned) and
	 * libmicrohttpd keeps the connection suspended; handed back only
	 * to end. chunked: libmicrohttpd frames the body (HTTP/1.1), so
	 * the worker can write whole chunks of its own. */
	struct proxy_fanout_conn fc;
	bool chunked, fanned;
	bool broken; /* the worker left a chunk half sent, or the client
		      * hung up: end with an error */
};

/* Set by dispatch.c for the request this thread is answering. */
static __thread bool request_http11;

void proxy_watch_set_http11(bool http11)
{
	request_http11 = http11;
}


static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void wake(struct cache_waiter *w)
{
	MHD_resume_connection(((struct watch *)w)->conn);
}

static bool suspend(struct cache_waiter *w)
{
	struct watch *wt = (struct watch *)w;
	if (proxy_draining(wt->p))
		return false;
	MHD_suspend_connection(wt->conn);
	return true;
}

static void set_own(struct watch *w)
{
	w->out = w->own.p;
	w->out_len = w->own.len;
	w->out_off = 0;
}

/* An event this protobuf watch cannot encode faithfully: the stream
 * ends (the client watches again), and the resource's next protobuf
 * watches go upstream. */
static void pb_fail(struct watch *w, int e)
{
	if (e != -ENOMEM) {
		__atomic_store_n(&w->r->stats.pb_watch_failed, 1,
				 __ATOMIC_RELAXED);
		proxy_metrics_pb_pass(w->r, e);
	}
	buf_reset(&w->own);
	w->out_len = w->out_off = 0;
	w->done = true;
	w->initial = false; /* no more initial events either */
	cache_store_snap_put(w->snap);
	w->snap = NULL;
}

/* For a protobuf watch, turn the JSON line in own into its frame. */
static void pb_own(struct watch *w)
{
	struct buf f = BUF_INIT;
	int e = proxy_pb_frame_json(&f, w->own.p, w->own.len);
	buf_free(&w->own);
	w->own = f;
	if (e)
		pb_fail(w, e);
	else
		set_own(w);
}

/* {"type":T,"object":PMO}\n, PMO o's PartialObjectMetadata of version v
 * (a metadata-only watch's event line). Returns 0, or -EINVAL when o's
 * JSON does not parse (never: it was validated when it came). */
static int metadata_line(struct buf *b, const struct cache_kind *k,
			 const char *type, struct cache_obj *o, const char *v)
{
	buf_printf(b, "{\"type\":\"%s\",\"object\":", type);
	int r = proxy_table_metadata_render(b, k, o, v);
	buf_adds(b, "}\n");
	return r;
}

/*
 * The metadata-only line of event ev as it is (meta.k8s.io/v1), or for a
 * protobuf watch its frame, made once for all the watchers that send it
 * (on the first ask, kept as ev->meta or ev->meta_pb until ev is freed):
 * the fan-out then copies the same bytes to each, as it does a JSON
 * watch's line. NULL when out of memory, or the object does not parse
 * or encode: the watcher makes its own line, as before, and fails as it
 * did.
 */
static const struct cache_blob *shared_metadata(struct watch *w,
						struct cache_event *ev)
{
	struct cache_blob **slot = w->pb ? &ev->meta_pb : &ev->meta;
	struct cache_blob *b = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	if (b)
		return b;
	struct buf line = BUF_INIT;
	int r = metadata_line(&line, w->r->kind,
			      cache_history_ev_type_name(ev->type), ev->obj,
			      "v1");
	if (!r && w->pb) {
		struct buf f = BUF_INIT;
		r = proxy_pb_frame_json(&f, line.p, line.len);
		buf_free(&line);
		line = f;
	}
	b = !r && buf_ok(&line) ? xmalloc(sizeof(*b) + line.len) : NULL;
	if (b) {
		b->err = 0;
		b->len = line.len;
		memcpy(b->p, line.p, line.len);
		b = cache_blob_publish(slot, b);
	}
	buf_free(&line);
	return b;
}

/* {"type":T,"object":OBJ}\n into own, OBJ in the watch's form: the
 * object, a one-row Table (column definitions on the first event only,
 * as the apiserver sends them) or its PartialObjectMetadata. */
static void own_event(struct watch *w, const char *type, struct cache_obj *o)
{
	buf_reset(&w->own);
	if (w->pb == PROXY_PB_OBJECT) {
		int e = proxy_pb_frame_obj(&w->own, type, o);
		if (e)
			pb_fail(w, e);
		else
			set_own(w);
		return;
	}
	if (w->fmt.form == PROXY_TABLE_FORM_METADATA) {
		metadata_line(&w->own, w->r->kind, type, o, w->fmt.version);
		if (w->pb)
			pb_own(w);
		else
			set_own(w);
		return;
	}
	buf_printf(&w->own, "{\"type\":\"%s\",\"object\":", type);
	switch (w->fmt.form) {
	case PROXY_TABLE_FORM_JSON:
		buf_add(&w->own, o->json, o->len);
		break;
	case PROXY_TABLE_FORM_TABLE: {
		char meta[64];
		proxy_table_object_meta(o, meta, sizeof(meta));
		proxy_table_render(&w->own, w->r->kind, &w->fmt, meta, &o, 1,
				   !w->columns_sent, time(NULL));
		w->columns_sent = true;
		break;
	}
	case PROXY_TABLE_FORM_METADATA: /* above */
		break;
	}
	buf_adds(&w->own, "}\n");
	if (w->pb)
		pb_own(w);
	else
		set_own(w);
}

/*
 * What follows "metadata" in a BOOKMARK's object: the apiserver encodes
 * an empty object of the kind but its RV, so Go's zero values of the
 * kind's other members appear ("spec":{"containers":null} for a Pod).
 * Kinds with none, and kinds not listed, have nothing after metadata.
 */
static const struct {
	const char *api_version, *resource, *tail;
} bookmark_tails[] = {
	{ "v1", "namespaces", ",\"spec\":{},\"status\":{}" },
	{ "v1", "nodes",
	  ",\"spec\":{},\"status\":{\"daemonEndpoints\":{\"kubeletEndpoint\":{\"Port\":0}},\"nodeInfo\":{\"machineID\":\"\",\"systemUUID\":\"\",\"bootID\":\"\",\"kernelVersion\":\"\",\"osImage\":\"\",\"containerRuntimeVersion\":\"\",\"kubeletVersion\":\"\",\"kubeProxyVersion\":\"\",\"operatingSystem\":\"\",\"architecture\":\"\"}}" },
	{ "v1", "pods", ",\"spec\":{\"containers\":null},\"status\":{}" },
	{ "v1", "services", ",\"spec\":{},\"status\":{\"loadBalancer\":{}}" },
	{ "v1", "events",
	  ",\"involvedObject\":{},\"source\":{},\"firstTimestamp\":null,\"lastTimestamp\":null,\"eventTime\":null,\"reportingComponent\":\"\",\"reportingInstance\":\"\"" },
	{ "v1", "persistentvolumes", ",\"spec\":{},\"status\":{}" },
	{ "v1", "persistentvolumeclaims",
	  ",\"spec\":{\"resources\":{}},\"status\":{}" },
	{ "v1", "replicationcontrollers",
	  ",\"spec\":{},\"status\":{\"replicas\":0}" },
	{ "apps/v1", "deployments",
	  ",\"spec\":{\"selector\":null,\"template\":{\"metadata\":{},\"spec\":{\"containers\":null}},\"strategy\":{}},\"status\":{}" },
	{ "apps/v1", "replicasets",
	  ",\"spec\":{\"selector\":null},\"status\":{\"replicas\":0}" },
	{ "apps/v1", "statefulsets",
	  ",\"spec\":{\"selector\":null,\"template\":{\"metadata\":{},\"spec\":{\"containers\":null}},\"serviceName\":\"\",\"updateStrategy\":{}},\"status\":{\"replicas\":0,\"availableReplicas\":0}" },
	{ "apps/v1", "daemonsets",
	  ",\"spec\":{\"selector\":null,\"template\":{\"metadata\":{},\"spec\":{\"containers\":null}},\"updateStrategy\":{}},\"status\":{\"currentNumberScheduled\":0,\"numberMisscheduled\":0,\"desiredNumberScheduled\":0,\"numberReady\":0}" },
	{ "batch/v1", "jobs",
	  ",\"spec\":{\"template\":{\"metadata\":{},\"spec\":{\"containers\":null}}},\"status\":{}" },
	{ "batch/v1", "cronjobs",
	  ",\"spec\":{\"schedule\":\"\",\"jobTemplate\":{\"spec\":{\"template\":{\"metadata\":{},\"spec\":{\"containers\":null}}}}},\"status\":{}" },
	{ "coordination.k8s.io/v1", "leases", ",\"spec\":{}" },
	{ "rbac.authorization.k8s.io/v1", "rolebindings",
	  ",\"roleRef\":{\"apiGroup\":\"\",\"kind\":\"\",\"name\":\"\"}" },
	{ "rbac.authorization.k8s.io/v1", "clusterrolebindings",
	  ",\"roleRef\":{\"apiGroup\":\"\",\"kind\":\"\",\"name\":\"\"}" },
	{ "scheduling.k8s.io/v1", "priorityclasses", ",\"value\":0" },
	{ "networking.k8s.io/v1", "ingressclasses", ",\"spec\":{}" },
	{ "networking.k8s.io/v1", "ingresses",
	  ",\"spec\":{},\"status\":{\"loadBalancer\":{}}" },
	{ "networking.k8s.io/v1", "networkpolicies",
	  ",\"spec\":{\"podSelector\":{}}" },
	{ "storage.k8s.io/v1", "storageclasses", ",\"provisioner\":\"\"" },
	{ "policy/v1", "poddisruptionbudgets",
	  ",\"spec\":{},\"status\":{\"disruptionsAllowed\":0,\"currentHealthy\":0,\"desiredHealthy\":0,\"expectedPods\":0}" },
	{ "discovery.k8s.io/v1", "endpointslices",
	  ",\"addressType\":\"\",\"endpoints\":null,\"ports\":null" },
	{ "autoscaling/v2", "horizontalpodautoscalers",
	  ",\"spec\":{\"scaleTargetRef\":{\"kind\":\"\",\"name\":\"\"},\"maxReplicas\":0},\"status\":{\"desiredReplicas\":0}" },
	{ "events.k8s.io/v1", "events", ",\"eventTime\":null" },
};

static const char *bookmark_tail(const char *apiv, const char *resource)
{
	for (size_t i = 0; i < sizeof(bookmark_tails) / sizeof(*bookmark_tails);
	     i++)
		if (!strcmp(bookmark_tails[i].api_version, apiv) &&
		    !strcmp(bookmark_tails[i].resource, resource))
			return bookmark_tails[i].tail;
	return "";
}

/* Standard base64, padded (Go's base64.StdEncoding), of s onto b. */
static void add_base64(struct buf *b, const char *s, size_t n)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "abcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)u[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)u[i + 1] << 8;
		if (i + 2 < n)
			v |= u[i + 2];
		char q[4] = { tab[v >> 18], tab[(v >> 12) & 63],
			      i + 1 < n ? tab[(v >> 6) & 63] : '=',
			      i + 2 < n ? tab[v & 63] : '=' };
		buf_add(b, q, 4);
	}
}

/*
 * The kubernetes.io/initial-events-list-blueprint annotation's value: the
 * empty list a LIST would have answered, as the apiserver's encoder
 * writes it (a trailing newline included), base64. client-go's typed
 * List() over a watch-list decodes it for the list's kind. A built-in
 * kind's list is the typed one with no items ("items":null, metadata
 * empty); a custom resource's is unstructured, its keys sorted and
 * "items":[]; a metadata-only watch gets a PartialObjectMetadataList.
 */
static void add_blueprint(struct buf *b, const struct watch *w)
{
	const struct cache_kind *k = w->r->kind;
	char apiv[CACHE_KIND_API_VERSION_MAX];
	struct buf l = BUF_INIT;
	cache_kind_api_version(k, apiv, sizeof(apiv));
	if (w->fmt.form == PROXY_TABLE_FORM_METADATA)
		buf_printf(&l,
			   "{\"kind\":\"PartialObjectMetadataList\","
			   "\"apiVersion\":\"meta.k8s.io/%s\",\"metadata\":{},"
			   "\"items\":null}\n",
			   w->fmt.version);
	else if (cache_kind_typed(k))
		buf_printf(&l,
			   "{\"kind\":\"%s\",\"apiVersion\":\"%s\","
			   "\"metadata\":{},\"items\":null}\n",
			   k->list_kind, apiv);
	else
		buf_printf(
			&l,
			"{\"apiVersion\":\"%s\",\"items\":[],\"kind\":\"%s\"}\n",
			apiv, k->list_kind);
	add_base64(b, l.p ? l.p : "", l.len);
	buf_free(&l);
}

static void own_bookmark(struct watch *w, uint64_t rv, bool end)
{
	char apiv[CACHE_KIND_API_VERSION_MAX];
	bool typed = cache_kind_typed(w->r->kind);
	cache_kind_api_version(w->r->kind, apiv, sizeof(apiv));
	buf_reset(&w->own);
	/* an unstructured object has no zero values */
	buf_printf(
		&w->own,
		"{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"%s\",\"apiVersion\":"
		"\"%s\",\"metadata\":{\"resourceVersion\":\"%llu\"%s",
		w->r->kind->kind, apiv, (unsigned long long)rv,
		typed ? ",\"creationTimestamp\":null" : "");
	if (end) {
		/* the keys in Go's order for a map: sorted */
		buf_adds(&w->own,
			 ",\"annotations\":{\"k8s.io/initial-events-end\":"
			 "\"true\",\"kubernetes.io/"
			 "initial-events-list-blueprint\":\"");
		add_blueprint(&w->own, w);
		buf_adds(&w->own, "\"}");
	}
	buf_printf(&w->own, "}%s}}\n",
		   typed ? bookmark_tail(apiv, w->r->kind->resource) : "");
	if (w->pb)
		pb_own(w);
	else
		set_own(w);
	w->sent_rv = rv;
	w->last_bookmark_ms = now_ms();
}

static void own_expired(struct watch *w, uint64_t rv, uint64_t floor)
{
	PROXY_COUNT(watch_expired);
	buf_reset(&w->own);
	buf_printf(
		&w->own,
		"{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":"
		"\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":"
		"\"too old resource version: %llu (%llu)\",\"reason\":\"Expired\","
		"\"code\":410}}\n",
		(unsigned long long)rv, (unsigned long long)floor);
	if (w->pb)
		pb_own(w);
	else
		set_own(w);
	w->done = true;
}

/* Decide what event ev becomes for this watcher, as the apiserver's
 * cacher does: judged by whether the old and the new state match the
 * filter. Sets out, or leaves it empty when the watcher is not to see it.
 * Returns true when the watch keeps the caller's reference to ev (it
 * sends the shared line): one atomic pair fewer on the event per
 * delivery, which every fan-out worker touches. */
static bool take_event(struct watch *w, struct cache_event *ev)
{
	const struct proxy_filter *f = &w->f;
	bool before = ev->prev && proxy_filter_match(f, ev->prev);
	const char *as = NULL; /* a type other than the event's own */
	bool left = false;     /* the object left the filter */
	switch (ev->type) {
	case CACHE_DELETED:
		if (!(ev->prev ? before : proxy_filter_match(f, ev->obj)))
			return false;
		break;
	case CACHE_ADDED:
		if (!proxy_filter_match(f, ev->obj))
			return false;
		break;
	default: {
		bool now = proxy_filter_match(f, ev->obj);
		if (!now && !before)
			return false;
		if (now != before)
			as = now ? "ADDED" : "DELETED";
		left = before && !now;
	}
	}
	w->sent_rv = ev->rv;
	int64_t lag = cache_history_now_ns() - ev->arrived_ns;
	config_histogram_observe(&w->r->delivery_lag, &proxy_observe_lag_bounds,
				 (double)lag / 1e9,
				 (uint64_t)(lag > 0 ? lag : 0));
	/* the event as it is: its shared line, or for a metadata-only
	 * watch (v1) the shared line or frame of its metadata */
	const struct cache_blob *meta = NULL;
	if (!as && !left && w->fmt.form == PROXY_TABLE_FORM_METADATA &&
	    w->fmt.version && !strcmp(w->fmt.version, "v1"))
		meta = shared_metadata(w, ev);
	if (!as && w->fmt.form != PROXY_TABLE_FORM_JSON && !meta)
		as = cache_history_ev_type_name(ev->type);
	if (left) {
		/* the state the watcher last saw, at this event's RV, as the
		 * cacher sends it: the new state is none of its business.
		 * Made once for every watch this event takes out. */
		struct cache_obj *o = cache_history_ev_left(
			ev, cache_shape_object(w->r->shape));
		if (!o) {
			/* end cleanly: the client resumes from the RV
			 * before this event */
			w->done = true;
			return false;
		}
		own_event(w, as, o);
		return false;
	}
	if (as) {
		own_event(w, as, ev->obj);
		return false;
	}
	const unsigned char *frame = NULL;
	size_t flen = 0;
	int e = w->pb && !meta ? proxy_pb_event_frame(ev, &frame, &flen) : 0;
	if (e) {
		pb_fail(w, e);
		return false;
	}
	w->ev = ev; /* the shared line, with the caller's reference */
	w->out = meta  ? (const char *)meta->p :
		 w->pb ? (const char *)frame :
			 ev->line;
	w->out_len = meta ? meta->len : w->pb ? flen : ev->len;
	w->out_off = 0;
	return true;
}

/* Fill out with the next line to send. Returns false when there is
 * nothing to send now. */
static bool next_line(struct watch *w)
{
	if (w->ev) {
		cache_history_event_put(w->ev);
		w->ev = NULL;
	}
	w->out_len = w->out_off = 0;
	while (w->initial) {
		struct cache_obj *o = cache_store_iter_next(w->it);
		if (o && proxy_filter_past(&w->f, o))
			o = NULL; /* the rest is other namespaces' */
		if (!o) {
			w->initial = false;
			free(w->it);
			w->it = NULL;
			cache_store_snap_put(w->snap);
			w->snap = NULL;
			if (w->end_bookmark) {
				own_bookmark(w, w->start_rv, true);
				return true;
			}
			break;
		}
		if (proxy_filter_match(&w->f, o)) {
			own_event(w, "ADDED", o);
			return true;
		}
	}
	if (w->done)
		return false;
	int64_t now = now_ms();
	if (proxy_draining(w->p) || now >= w->deadline_ms ||
	    cache_resource_retired(w->r)) {
		w->done = true; /* a clean end: the client watches again */
		return false;
	}
	for (;;) {
		/* progress first: every event up to it is at a seq < head */
		uint64_t progress = cache_history_progress(w->r->history);
		struct cache_event *ev;
		int rc = cache_history_get(w->r->history, w->cursor, &ev);
		if (rc == -ERANGE) {
			/* Overtaken: this watcher can no longer be given a true
			 * history, so it gets the 410 path and relists. */
			log_v(1, "%s: watch fell behind at seq %llu",
			      w->r->kind->resource,
			      (unsigned long long)w->cursor);
			PROXY_COUNT(watch_slow_expired);
			own_expired(w, w->sent_rv,
				    cache_history_floor(w->r->history));
			return true;
		}
		if (rc == -EAGAIN) {
			/* As the cacher: every bookmark_ms, and once 2 s
			 * before the deadline so the client can resume from
			 * the newest RV; only with an RV above the one the
			 * watch began at, but again with the same RV. */
			bool pre =
				w->pre_deadline_ms && now >= w->pre_deadline_ms;
			bool due = pre ||
				   now - w->last_bookmark_ms >= w->bookmark_ms;
			if (w->bookmarks && due && progress > w->start_rv) {
				if (pre)
					w->pre_deadline_ms = 0;
				own_bookmark(w, progress, false);
				return true;
			}
			return false;
		}
		__atomic_store_n(&w->cursor, w->cursor + 1, __ATOMIC_RELAXED);
		if (ev->rv <= w->start_rv) {
			cache_history_event_put(ev);
			continue;
		}
		if (!take_event(w, ev))
			cache_history_event_put(ev);
		if (w->out_len)
			return true;
		if (w->done)
			return false;
	}
}

/* ---- fan-out: the idle stream written by a worker ---- */

static void fan_wake(struct cache_waiter *wt)
{
	proxy_fanout_wake(&((struct watch *)wt)->fc);
}

/* Give the socket back to libmicrohttpd, which calls watch_read() to end
 * the stream: cleanly when done, with an error when broken. Worker. */
static void fan_back(struct watch *w)
{
	cache_history_unwait(w->r->history, &w->waiter);
	if (!proxy_fanout_remove(&w->fc) || w->fc.gone)
		w->broken = true;
	w->done = true;
	w->fanned = false;
	w->waiter.wake = wake;
	MHD_resume_connection(w->conn);
}

/* A worker's turn: send what is due as one chunk, then wait again. */
static void fan_service(struct proxy_fanout_conn *fc)
{
	struct watch *w =
		(struct watch *)((char *)fc - offsetof(struct watch, fc));
	/* its own waiter is never queued while fanned: the worker's lot
	 * waits for it (fanout.h) */
	if (fc->ending || fc->gone) {
		fan_back(w);
		return;
	}
	if (proxy_fanout_flush(fc)) /* the socket is still full */
		return;
	if (fc->gone) {
		fan_back(w);
		return;
	}
	struct buf *b = proxy_fanout_chunk(fc);
	size_t empty = b->len;
	while (b->len - empty < FAN_BATCH) {
		if (w->out_off < w->out_len) {
			buf_add(b, w->out + w->out_off,
				w->out_len - w->out_off);
			w->out_off = w->out_len;
			continue;
		}
		if (!next_line(w))
			break;
	}
	bool full = b->len - empty >= FAN_BATCH;
	if (b->len > empty) {
		uint64_t head = cache_history_head(w->r->history);
		config_histogram_observe(
			&w->r->watcher_lag, &proxy_observe_queue_bounds,
			(double)(head - w->cursor), head - w->cursor);
		proxy_fanout_chunk_send(fc);
		if (fc->gone) {
			fan_back(w);
			return;
		}
		if (fc->pend_len) /* served again once the socket has room */
			return;
	}
	if (w->done) {
		fan_back(w);
		return;
	}
	if (full) {
		proxy_fanout_wake(fc); /* more now: after the others */
		return;
	}
	if (proxy_fanout_park(fc, w->r->history, w->cursor)) {
		fan_back(w); /* out of memory: a clean end, it watches again */
		return;
	}
}

/* From watch_read() with nothing to send: hand the idle stream to a
 * fan-out worker, the connection suspended meanwhile. */
static bool fan_out(struct watch *w)
{
	if (!w->chunked || !w->p->fanout || proxy_draining(w->p))
		return false;
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
		w->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (!ci)
		return false;
	int fd = ci->connect_fd;
	/* the TLS listener's connections are written through their GnuTLS
	 * session, the plain and unix ones on the socket */
	const union MHD_ConnectionInfo *di =
		MHD_get_connection_info(w->conn, MHD_CONNECTION_INFO_DAEMON);
	const union MHD_ConnectionInfo *ti = MHD_get_connection_info(
		w->conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	void *tls = ti ? ti->tls_session : NULL;
	if (!di || (w->p->tls && di->daemon == w->p->daemon && !tls))
		return false;
	/* nothing is being sent: an idle watch keeps no line buffer */
	buf_free(&w->own);
	w->out = NULL;
	w->out_len = w->out_off = 0;
	MHD_suspend_connection(w->conn);
	w->fanned = true;
	w->waiter.wake = fan_wake;
	w->fc.service = fan_service;
	if (proxy_fanout_add(w->p->fanout, &w->fc, fd, tls)) {
		/* stopping: end here, once resumed */
		w->fanned = false;
		w->waiter.wake = wake;
		w->done = true;
		MHD_resume_connection(w->conn);
	}
	return true;
}

static ssize_t watch_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct watch *w = cls;
	size_t n = 0;
	if (w->broken)
		return MHD_CONTENT_READER_END_WITH_ERROR;
	for (;;) {
		while (n < max) {
			if (w->out_off < w->out_len) {
				size_t k = w->out_len - w->out_off;
				if (k > max - n)
					k = max - n;
				memcpy(buf + n, w->out + w->out_off, k);
				w->out_off += k;
				n += k;
				continue;
			}
			if (!next_line(w))
				break;
		}
		if (n) {
			uint64_t head = cache_history_head(w->r->history);
			config_histogram_observe(
				&w->r->watcher_lag, &proxy_observe_queue_bounds,
				(double)(head - w->cursor), head - w->cursor);
			return (ssize_t)n;
		}
		if (w->done)
			return MHD_CONTENT_READER_END_OF_STREAM;
		int64_t now = now_ms();
		if (now - w->gone_check_ms >= GONE_CHECK_MS) {
			w->gone_check_ms = now;
			if (proxy_request_client_gone(w->conn))
				return MHD_CONTENT_READER_END_WITH_ERROR;
		}
		if (fan_out(w))
			return 0;
		/* Nothing to send: sleep until the next append or tick. The
		 * check is repeated under the waiter lock, so an append that
		 * raced us is never missed. */
		if (cache_history_wait(w->r->history, &w->waiter, w->cursor,
				       suspend))
			return 0;
		if (proxy_draining(w->p))
			w->done = true;
	}
}

static void watch_free(void *cls)
{
	struct watch *w = cls;
	proxy_observe_watch_del(&w->reg);
	__atomic_sub_fetch(&w->r->stats.watchers, 1, __ATOMIC_RELAXED);
	proxy_conns_watch_put(w->p->conns);
	cache_history_unwait(w->r->history, &w->waiter);
	cache_history_event_put(w->ev);
	cache_store_snap_put(w->snap);
	free(w->it);
	buf_free(&w->own);
	proxy_filter_free(&w->f);
	free(w);
	/* this thread's arena held the connection's pool and the watch:
	 * let the ticker's give-back trim its top (config/alloc.h) */
	alloc_anchor();
}

/* The watch itself; *owned set once watch_free() is bound to run (it
 * gives the --max-watchers slot back). */
static enum MHD_Result start_watch(struct proxy *p, struct MHD_Connection *c,
				   struct cache_resource *r,
				   const struct proxy_route *rt, bool *owned)
{
	const char *to_s = NULL;
	struct proxy_rv_watch q;
	enum MHD_Result res;
	char err[512];
	/* the apiserver's router and negotiator answer before its handler
	 * reads any parameter */
	int pb = proxy_reply_protobuf();
	if (!pb && !proxy_reply_accept_routed(c))
		return proxy_reply_not_acceptable(c, PROXY_NA_WATCH);
	if (!proxy_filter_check(c, r->kind, true, &res) ||
	    !proxy_rv_read_watch(c, &q, &res))
		return res;
	uint64_t rv = q.rv;
	struct watch *w = xcalloc(1, sizeof(*w));
	if (!w)
		return MHD_NO;
	/* YAML has no streaming form: a watch that negotiates it is not
	 * acceptable (its Status is YAML still, as for any error) */
	w->pb = pb;
	if (pb == PROXY_PB_METADATA) {
		w->fmt.form = PROXY_TABLE_FORM_METADATA;
		proxy_pb_negotiate(MHD_lookup_connection_value(
					   c, MHD_HEADER_KIND, "Accept"),
				   true, &w->fmt.version);
	} else if (!pb &&
		   (proxy_table_format_negotiate(c, &w->fmt) || w->fmt.yaml)) {
		free(w);
		return proxy_reply_not_acceptable(c, PROXY_NA_WATCH);
	}
	w->p = p;
	w->r = r;
	w->conn = c;
	w->waiter.wake = wake;
	w->chunked = request_http11;
	w->own = (struct buf)BUF_INIT;
	int fr = proxy_filter_parse(&w->f, c, r->kind, rt->ns, rt->name, err,
				    sizeof(err));
	if (fr) {
		free(w);
		return fr == -ENOMEM ? MHD_NO :
				       proxy_reply_error(c, PROXY_BadRequest,
							 "%s", err);
	}
	w->bookmarks = proxy_request_arg_true(c, "allowWatchBookmarks");
	int64_t now = now_ms();
	long timeout = 0;
	if (proxy_request_arg(c, "timeoutSeconds", &to_s) && to_s && *to_s)
		timeout = strtol(to_s, NULL, 10);
	if (timeout <= 0) /* the apiserver's randomized default */
		timeout = 1800 + rand() % 1800;
	if (timeout > INT32_MAX) /* 68 years: ms below stay in range */
		timeout = INT32_MAX;
	w->deadline_ms = now + timeout * 1000;
	w->bookmark_ms = (int64_t)p->cfg->bookmark_interval * 1000;
	w->last_bookmark_ms = now;
	/* none for a watch of 2 s or less, as the cacher */
	if (w->deadline_ms - PRE_DEADLINE_MS > now)
		w->pre_deadline_ms = w->deadline_ms - PRE_DEADLINE_MS;

	if (q.initial) {
		w->snap = cache_store_snap(r->store);
		w->start_rv = w->snap->rv;
		w->initial = true;
		/* 1.32 treats an RV-less (or "0") watch with bookmarks as a
		 * watch-list too: the initial events end with the marked
		 * bookmark when bookmarks were asked for, and has none
		 * without them. */
		w->end_bookmark = w->bookmarks;
		w->it = xmalloc(sizeof(*w->it));
		if (!w->it) {
			cache_store_snap_put(w->snap);
			proxy_filter_free(&w->f);
			free(w);
			return MHD_NO;
		}
		proxy_filter_seek(&w->f, w->it, r->store, w->snap, w->f.ns, "");
	} else {
		w->start_rv = rv ? rv : cache_store_rv(r->store);
	}
	w->sent_rv = w->start_rv;
	uint64_t floor;
	if (cache_history_start(r->history, w->start_rv, &w->cursor, &floor))
		own_expired(w, rv, floor);

	__atomic_add_fetch(&r->stats.watchers, 1, __ATOMIC_RELAXED);
	w->reg.r = r;
	w->reg.cursor = &w->cursor;
	proxy_observe_watch_add(&w->reg);
	*owned = true;
	return proxy_reply_stream(
		c, w->chunked ? WATCH_BLOCK_CHUNKED : WATCH_BLOCK, watch_read,
		w, watch_free);
}

enum MHD_Result proxy_watch_handle(struct proxy *p, struct MHD_Connection *c,
				   struct cache_resource *r,
				   const struct proxy_route *rt)
{
	/* Refused first, as the apiserver's max-in-flight filter refuses
	 * before it looks at the request. */
	if (!proxy_conns_watch_get(p->conns)) {
		PROXY_COUNT(refused_watchers);
		return proxy_conns_refuse(c, "watches", p->cfg->max_watchers);
	}
	bool owned = false;
	enum MHD_Result res = start_watch(p, c, r, rt, &owned);
	if (!owned)
		proxy_conns_watch_put(p->conns);
	return res;
}
