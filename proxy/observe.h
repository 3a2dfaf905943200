/*
 * observe: the latency and lag histograms of /metrics.
 *
 * - informer_proxy_request_duration_seconds{verb,resource,code}: every
 *   request the proxy answered or passed through, from its first byte to
 *   its completion (a watch lasts as long as its stream);
 * - informer_proxy_event_delivery_seconds{resource}: from an upstream
 *   event's arrival to its copy into a local watch's stream;
 * - informer_proxy_watcher_lag_events{resource}: how far behind the
 *   history's head a watch was when it sent, and the
 *   informer_proxy_watcher_lag_events_max gauge over the open watches.
 *
 * Observations are relaxed atomic adds (config/histogram.h): no lock on any
 * request or event path. A proxy's request table (p->obs) is sized once,
 * in proxy_observe_init(), before its daemon starts, and freed after it
 * stopped.
 *
 * Threads: proxy_observe_init()/_free() on main's thread around the
 * daemon's life; _request from libmicrohttpd's completion callback
 * (any of its threads); _watch_add/_del from the thread serving the
 * watch; _write, _lag_max and the text helpers while /metrics is built.
 * The caller owns every buffer and registration passed in.
 */
#ifndef PROXY_OBSERVE_H
#define PROXY_OBSERVE_H

#include <stdint.h>

#include "config/buf.h"
#include "config/histogram.h"
#include "proxy/request.h"

extern const struct config_histogram_bounds proxy_observe_lag_bounds;
extern const struct config_histogram_bounds proxy_observe_queue_bounds;

/* One resource label per cached kind, plus "other" (a resource path
 * the cache does not hold) and "none" (not a resource path). Returns 0
 * or -ENOMEM. */
int proxy_observe_init(struct proxy *p);
void proxy_observe_free(struct proxy *p);
/* The resource slot of a request, from its route (proxy_route_parse();
 * NULL: not a resource path). */
struct proxy_route;
int proxy_observe_slot(struct proxy *p, const struct proxy_route *rt);
/* One request: verb (CONFIG_VERB_*), slot, HTTP status, duration. */
void proxy_observe_request(struct proxy *p, int verb, int slot, long code,
			   int64_t ns);
/* An open watch as the lag gauge sees it: its resource and its cursor
 * (read with a relaxed atomic load). Added when the watch starts and
 * removed when it ends, under a lock taken for nothing else but the
 * gauge's scrape. */
struct proxy_observe_watch {
	struct cache_resource *r;
	const uint64_t *cursor;
	struct proxy_observe_watch *prev, *next;
};
void proxy_observe_watch_add(struct proxy_observe_watch *w);
void proxy_observe_watch_del(struct proxy_observe_watch *w);
/* Events the furthest-behind open watch of r is behind its head now. */
uint64_t proxy_observe_lag_max(struct cache_resource *r);

/* The families above, for /metrics. */
void proxy_observe_write(struct buf *b, struct proxy *p);

/* The text of /metrics, shared with metrics.c. The "# HELP" and "# TYPE"
 * lines that open a family (help may be NULL). */
void proxy_observe_family(struct buf *b, const char *name, const char *type,
			  const char *help);
/* Sizes that hold a resource's name with its group (a plural of up to
 * 127 bytes, a group of up to 253) and a series' labels with it and a
 * namespace, whole: a label cut short would leave its quote open and
 * make the whole page unreadable to Prometheus. */
#define PROXY_OBSERVE_RES_MAX 512
#define PROXY_OBSERVE_LABELS_MAX 1024
/* resource="pods", and ,namespace="NS" for a reflector of one namespace
 * (--config namespaces), so that each series is its own; len
 * PROXY_OBSERVE_LABELS_MAX holds them whole. */
void proxy_observe_res_labels(const struct cache_resource *r, char *out,
			      size_t len);

#endif
