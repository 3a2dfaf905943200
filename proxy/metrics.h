/*
 * metrics: process-wide counters and the /metrics page (Prometheus text
 * format 0.0.4).
 *
 * Counters are one table (PROXY_COUNTERS): each line makes a struct
 * field, its name, labels and help text, so a new counter is one line.
 * Per-resource figures (objects, RV, sync state, staleness, upstream
 * requests, watchers) are read from the caches when the page is made.
 *
 * Threads: PROXY_COUNT from any thread (relaxed atomic adds);
 * proxy_metrics_handle() and proxy_metrics_scope_count() on the
 * libmicrohttpd pool thread serving the request, never suspending it.
 * The page is built into a buffer the queued response owns.
 */
#ifndef PROXY_METRICS_H
#define PROXY_METRICS_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stdint.h>

struct proxy;
struct cache_resource;

/* X(field, metric name, labels, help) */
#define PROXY_COUNTERS(X)                                                       \
	X(req_list, "informer_proxy_requests_total", "handler=\"list\"",        \
	  "Requests answered, by handler.")                                     \
	X(req_get, "informer_proxy_requests_total", "handler=\"get\"", NULL)    \
	X(req_watch, "informer_proxy_requests_total", "handler=\"watch\"",      \
	  NULL)                                                                 \
	X(req_passthrough, "informer_proxy_requests_total",                     \
	  "handler=\"passthrough\"", NULL)                                      \
	X(req_discovery, "informer_proxy_requests_total",                       \
	  "handler=\"discovery\"", NULL)                                        \
	X(req_not_synced, "informer_proxy_requests_total",                      \
	  "handler=\"not_synced\"", NULL)                                       \
	X(watch_expired, "informer_proxy_watch_expired_total", "",              \
	  "Local watches ended with 410 Expired (fell behind, or the upstream " \
	  "was wiped).")                                                        \
	X(watch_slow_expired, "informer_proxy_slow_watchers_expired_total",     \
	  "",                                                                   \
	  "Local watches that fell further behind than --history and were "     \
	  "ended with 410 Expired.")                                            \
	X(consistent_reads, "informer_proxy_consistent_reads_total", "",        \
	  "Requests without resourceVersion (consistent reads and watches).")   \
	X(reads_upstream, "informer_proxy_reads_sent_upstream_total", "",       \
	  "LISTs and GETs answered by the upstream because the cache could "    \
	  "not prove within milliseconds that it was new enough.")              \
	X(reads_upstream_unprobed,                                              \
	  "informer_proxy_reads_sent_upstream_unprobed_total", "",              \
	  "Of those, reads without resourceVersion sent without a probe: the "  \
	  "last probe, under 2 s before, found the cache behind and nothing "   \
	  "reached the cache since.")                                           \
	X(fresh_probes, "informer_proxy_freshness_probes_total",                \
	  "kind=\"resourceVersion\"",                                           \
	  "Upstream requests sent to prove reads without resourceVersion "      \
	  "fresh, by kind: a limit=1 LIST for the upstream's RV; for a "        \
	  "resource known behind, a GET of the object GETs ask for, or a "      \
	  "LIST of a small collection to compare with the cache.")              \
	X(fresh_object_probes, "informer_proxy_freshness_probes_total",         \
	  "kind=\"object\"", NULL)                                              \
	X(fresh_list_probes, "informer_proxy_freshness_probes_total",           \
	  "kind=\"list\"", NULL)                                                \
	X(pins_evicted, "informer_proxy_continue_pins_evicted_total", "",       \
	  "Paged LIST snapshots dropped before five minutes because the pin "   \
	  "table was full; their next page goes upstream.")                     \
	X(authn_allowed, "informer_proxy_authn_decisions_total",                \
	  "decision=\"allowed\"",                                               \
	  "Delegated auth decisions (--client-auth=delegated), by outcome.")    \
	X(authn_forbidden, "informer_proxy_authn_decisions_total",              \
	  "decision=\"forbidden\"", NULL)                                       \
	X(authn_unauthenticated, "informer_proxy_authn_decisions_total",        \
	  "decision=\"unauthenticated\"", NULL)                                 \
	X(authn_token_reviews, "informer_proxy_authn_reviews_total",            \
	  "kind=\"TokenReview\"",                                               \
	  "Reviews sent upstream for delegated auth (cache misses).")           \
	X(authn_access_reviews, "informer_proxy_authn_reviews_total",           \
	  "kind=\"SubjectAccessReview\"", NULL)                                 \
	X(authn_token_hits, "informer_proxy_authn_cache_hits_total",            \
	  "kind=\"TokenReview\"",                                               \
	  "Delegated auth decisions answered from the decision cache.")         \
	X(authn_access_hits, "informer_proxy_authn_cache_hits_total",           \
	  "kind=\"SubjectAccessReview\"", NULL)                                 \
	X(authn_forgotten, "informer_proxy_authn_cache_flushes_total", "",      \
	  "Times delegated auth's cached decisions were dropped because an "    \
	  "RBAC object or ServiceAccount changed upstream.")                    \
	X(consistent_stale, "informer_proxy_consistent_reads_stale_total", "",  \
	  "Reads served from the cache without proof because the upstream "     \
	  "could not be asked.")                                                \
	X(pass_retries, "informer_proxy_passthrough_retries_total", "",         \
	  "Forwarded requests sent again on a fresh connection after theirs "   \
	  "failed under them (a GOAWAY, a close).")                             \
	X(pass_own_conns, "informer_proxy_passthrough_unpooled_total", "",      \
	  "Forwarded requests that went on an upstream connection of their "    \
	  "own, every credential's pool being in use.")                         \
	X(refused_connections, "informer_proxy_refusals_total",                 \
	  "reason=\"max_connections\"",                                         \
	  "Requests answered 429 TooManyRequests by a limit, by limit.")        \
	X(refused_watchers, "informer_proxy_refusals_total",                    \
	  "reason=\"max_watchers\"", NULL)                                      \
	X(authn_throttled, "informer_proxy_refusals_total",                     \
	  "reason=\"authn_reviews\"", NULL)                                     \
	X(header_timeouts, "informer_proxy_connections_cut_total",              \
	  "reason=\"header_timeout\"",                                          \
	  "Client connections the proxy closed, by why.")                       \
	X(body_timeouts, "informer_proxy_connections_cut_total",                \
	  "reason=\"body_timeout\"", NULL)                                      \
	X(reloads_ok, "informer_proxy_config_reloads_total",                    \
	  "result=\"success\"",                                                 \
	  "Configuration reloads (SIGHUP, --watch-config), by result.")         \
	X(reloads_failed, "informer_proxy_config_reloads_total",                \
	  "result=\"failure\"", NULL)

struct proxy_counters {
#define X(field, name, labels, help) uint64_t field;
	PROXY_COUNTERS(X)
#undef X
};

extern struct proxy_counters proxy_metrics_counters;
/* Unix time of the last successful reload; 0: none (atomic). */
extern int64_t proxy_metrics_last_reload;

#define PROXY_COUNT(field) \
	__atomic_add_fetch(&proxy_metrics_counters.field, 1, __ATOMIC_RELAXED)

/* Count a configuration reload that worked (ok) or was refused. */
void proxy_metrics_reload_count(bool ok);

/* Count a request of r's kind answered from r's scoped cache (served),
 * or passed through because it reaches outside the scope. */
void proxy_metrics_scope_count(struct cache_resource *r, bool served);
/* Count a protobuf read of r passed through because its objects cannot
 * be encoded: err is cache_obj_pb()'s (the reason label). */
void proxy_metrics_pb_pass(struct cache_resource *r, int err);

enum MHD_Result proxy_metrics_handle(struct proxy *p, struct MHD_Connection *c);

#endif
