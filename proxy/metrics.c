/*
 * metrics: the /metrics page (see metrics.h).
 */
#include "proxy/metrics.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config/buf.h"
#include "config/version.h"
#include "proxy/front/conns.h"
#include "proxy/observe.h"
#include "proxy/reply.h"
#include "proxy/request.h"
#include "proxy/pass/upgrade.h"

struct proxy_counters proxy_metrics_counters;

static time_t started;

__attribute__((constructor)) static void note_start(void)
{
	started = time(NULL);
}

static uint64_t load(const uint64_t *v)
{
	return __atomic_load_n(v, __ATOMIC_RELAXED);
}

static uint64_t stat_at(struct cache_resource *r, size_t off)
{
	return load((const uint64_t *)((const char *)&r->stats + off));
}

static double objects(struct cache_resource *r)
{
	struct cache_snap *s = cache_store_snap(r->store);
	double n = (double)s->count;
	cache_store_snap_put(s);
	return n;
}

static double rv(struct cache_resource *r)
{
	return (double)cache_store_rv(r->store);
}
static double synced(struct cache_resource *r)
{
	return cache_resource_synced(r);
}

static double sends_bookmarks(struct cache_resource *r)
{
	return __atomic_load_n(&r->bookmarks_seen, __ATOMIC_RELAXED);
}

static double staleness(struct cache_resource *r)
{
	int64_t last = __atomic_load_n(&r->last_contact, __ATOMIC_RELAXED);
	return last ? (double)(time(NULL) - last) : -1;
}

static double list_seconds(struct cache_resource *r)
{
	const struct cache_resource_stats *st = &r->stats;
	uint64_t from = load(&st->list_started_ms);
	uint64_t to = load(&st->list_active) ?
			      (uint64_t)cache_rvclock_now_ms() :
			      load(&st->list_ended_ms);
	return from && to > from ? (double)(to - from) / 1e3 : 0;
}

static double list_bytes_per_second(struct cache_resource *r)
{
	double s = list_seconds(r);
	return s > 0 ? (double)load(&r->stats.list_bytes) / s : 0;
}

static double list_eta(struct cache_resource *r)
{
	const struct cache_resource_stats *st = &r->stats;
	uint64_t got = load(&st->list_objects), want = load(&st->list_expected);
	if (!load(&st->list_active) || !got || want <= got)
		return 0;
	return (double)(want - got) * list_seconds(r) / (double)got;
}

/*
 * The per-resource families, in page order. A row reads its sample with
 * value(), or else from the counter at stat in struct cache_resource_stats;
 * with nreasons, stat is an array and each reason is a sample of its own
 * (labelled by reason_name).
 */
struct res_metric {
	const char *name, *type, *help;
	double (*value)(struct cache_resource *r);
	size_t stat;
	int nreasons;
	const char *(*reason_name)(int why);
};

#define STAT(f) .stat = offsetof(struct cache_resource_stats, f)

static const struct res_metric res_metrics[] = {
	{ "informer_proxy_cache_objects", "gauge", "Objects in the cache.",
	  .value = objects },
	{ "informer_proxy_cache_resource_version", "gauge",
	  "resourceVersion of the cache's current snapshot.", .value = rv },
	{ "informer_proxy_cache_synced", "gauge",
	  "1 once the resource's first LIST has been applied.",
	  .value = synced },
	{ "informer_proxy_upstream_last_contact_seconds", "gauge",
	  "Seconds since bytes last arrived from the upstream for the "
	  "resource (-1: never).",
	  .value = staleness },
	{ "informer_proxy_upstream_lists_total", "counter",
	  "Full LISTs made upstream (each may take several pages).",
	  STAT(lists) },
	{ "informer_proxy_upstream_watches_total", "counter",
	  "WATCH requests made upstream.", STAT(watches) },
	{ "informer_proxy_upstream_events_total", "counter",
	  "Watch events applied to the cache.", STAT(events) },
	{ "informer_proxy_relists_total", "counter",
	  "Relists after 410 Expired, bad bytes or an ERROR event.",
	  STAT(relists) },
	/* expired (410 on resume), broken (bad bytes or events that did
	 * not fit), backwards (the upstream's RV fell) */
	{ "informer_proxy_relists_by_reason_total", "counter",
	  "Relists, by why.", STAT(relists_by),
	  .nreasons = REFL_RELIST_NREASONS,
	  .reason_name = cache_resource_relist_reason_name },
	/* list items and watch objects: invalid, name, too_large */
	{ "informer_proxy_upstream_items_rejected_total", "counter",
	  "Upstream objects skipped as ones the cache cannot take, by why.",
	  STAT(rejected_by), .nreasons = CACHE_REJECT_NREASONS,
	  .reason_name = cache_obj_reject_name },
	{ "informer_proxy_upstream_sends_bookmarks", "gauge",
	  "1 once the upstream sent the resource's watch a BOOKMARK: from then "
	  "on a silent watch counts as stalled after --upstream-stall-timeout.",
	  .value = sends_bookmarks },
	{ "informer_proxy_quiet_resumes_total", "counter",
	  "Watch renewals of a quiet resource moved to a newer resourceVersion "
	  "seen upstream, so that they resume instead of relisting.",
	  STAT(fast_forwards) },
	{ "informer_proxy_upstream_errors_total", "counter",
	  "Failed upstream LISTs and WATCHes.", STAT(errors) },
	{ "informer_proxy_upstream_malformed_total", "counter",
	  "Upstream answers that were not valid JSON or not the expected shape.",
	  STAT(malformed) },
	{ "informer_proxy_watchers", "gauge", "Local watch streams open now.",
	  STAT(watchers) },
	/* the progress of a full LIST (the first sync, or a relist) */
	{ "informer_proxy_list_in_progress", "gauge",
	  "1 while a full upstream LIST of the resource is under way.",
	  STAT(list_active) },
	{ "informer_proxy_list_objects", "gauge",
	  "Objects received so far by the full LIST under way, or by the last "
	  "one.",
	  STAT(list_objects) },
	{ "informer_proxy_list_expected_objects", "gauge",
	  "The full LIST's total as the upstream announced it (objects so far "
	  "plus remainingItemCount); 0 when it did not say.",
	  STAT(list_expected) },
	{ "informer_proxy_list_received_bytes", "gauge",
	  "Bytes received so far by the full LIST under way, or by the last one.",
	  STAT(list_bytes) },
	{ "informer_proxy_list_duration_seconds", "gauge",
	  "How long the full LIST under way has run, or the last one took.",
	  .value = list_seconds },
	{ "informer_proxy_list_receive_bytes_per_second", "gauge",
	  "Bytes per second of the full LIST under way, or of the last one.",
	  .value = list_bytes_per_second },
	{ "informer_proxy_list_eta_seconds", "gauge",
	  "Seconds left in the full LIST under way at its rate so far, from "
	  "the expected total; 0 when none runs or the total is unknown.",
	  .value = list_eta },
	{ "informer_proxy_scope_served_total", "counter",
	  "Requests answered from a scoped cache (a namespace or selectors "
	  "in --config) because they lie inside its scope.",
	  STAT(scope_served) },
	{ "informer_proxy_scope_passthrough_total", "counter",
	  "Requests of a cached resource passed through because they reach "
	  "outside its cache's scope (another namespace, all of them, or a "
	  "selector the scope does not imply).",
	  STAT(scope_passthrough) },
};

static void res_family(struct buf *b, struct proxy *p,
		       const struct res_metric *m)
{
	proxy_observe_family(b, m->name, m->type, m->help);
	for (int i = 0, n = proxy_nres(p); i < n; i++) {
		struct cache_resource *r = p->res[i];
		char lab[400];
		if (cache_resource_retired(r))
			continue; /* removed by a reload; its successor has
				   * the same labels */
		proxy_observe_res_labels(r, lab, sizeof(lab));
		if (!m->nreasons) {
			double v = m->value ? m->value(r) :
					      (double)stat_at(r, m->stat);
			buf_printf(b, "%s{%s} %.17g\n", m->name, lab, v);
			continue;
		}
		for (int why = 0; why < m->nreasons; why++)
			buf_printf(
				b, "%s{%s,reason=\"%s\"} %llu\n", m->name, lab,
				m->reason_name(why),
				(unsigned long long)stat_at(
					r, m->stat + why * sizeof(uint64_t)));
	}
}

void proxy_metrics_scope_count(struct cache_resource *r, bool served)
{
	__atomic_add_fetch(served ? &r->stats.scope_served :
				    &r->stats.scope_passthrough,
			   1, __ATOMIC_RELAXED);
}

static long long rss_bytes(struct proxy *p)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long pages = 0, rss = 0;
	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
			rss = 0;
		fclose(f);
	}
	return (long long)rss * sysconf(_SC_PAGESIZE);
}

static long long open_connections(struct proxy *p)
{
	return proxy_conns_open(p->conns);
}
static long long max_connections(struct proxy *p)
{
	return proxy_conns_max(p->conns);
}
static long long open_watchers(struct proxy *p)
{
	return proxy_conns_watchers(p->conns);
}
static long long upgrade_streams(struct proxy *p)
{
	return p->upgrade ? proxy_upgrade_pool_active(p->upgrade) : 0;
}
static long long start_time(struct proxy *p)
{
	return (long long)started;
}

/* The process-wide gauges, one sample each. */
static const struct {
	const char *name, *help;
	long long (*value)(struct proxy *p);
} gauges[] = {
	{ "informer_proxy_open_connections", "Client connections open now.",
	  open_connections },
	{ "informer_proxy_max_connections",
	  "--max-connections in force "
	  "(perhaps lowered to fit RLIMIT_NOFILE).",
	  max_connections },
	{ "informer_proxy_open_watchers",
	  "Local watch streams open now, "
	  "all resources together (--max-watchers).",
	  open_watchers },
	{ "informer_proxy_upgrade_streams",
	  "Upgraded streams (exec, attach, port-forward) open now, "
	  "their upstream handshakes included.",
	  upgrade_streams },
	{ "process_resident_memory_bytes", "Resident memory size in bytes.",
	  rss_bytes },
	{ "process_start_time_seconds",
	  "Start time of the process since unix epoch in seconds.",
	  start_time },
};

enum MHD_Result proxy_metrics_handle(struct proxy *p, struct MHD_Connection *c)
{
	struct buf b = BUF_INIT;
	const char *last = "";
#define X(field, name, labels, help)                                          \
	if (strcmp(last, name)) {                                             \
		proxy_observe_family(&b, name, "counter", help);              \
		last = name;                                                  \
	}                                                                     \
	buf_printf(&b, "%s%s%s%s %llu\n", name, labels[0] ? "{" : "", labels, \
		   labels[0] ? "}" : "",                                      \
		   (unsigned long long)load(&proxy_metrics_counters.field));
	PROXY_COUNTERS(X)
#undef X
	for (size_t i = 0; i < sizeof(res_metrics) / sizeof(res_metrics[0]);
	     i++)
		res_family(&b, p, &res_metrics[i]);
	proxy_observe_write(&b, p);
	cache_upstream_metrics(&b);
	for (size_t i = 0; i < sizeof(gauges) / sizeof(gauges[0]); i++) {
		proxy_observe_family(&b, gauges[i].name, "gauge",
				     gauges[i].help);
		buf_printf(&b, "%s %lld\n", gauges[i].name, gauges[i].value(p));
	}
	proxy_observe_family(
		&b, "informer_proxy_build_info", "gauge",
		"Always 1; the labels say which build is running.");
	buf_printf(
		&b,
		"informer_proxy_build_info{version=\"%s\",commit=\"%s\"} 1\n",
		config_version_release(), config_version_commit());
	struct MHD_Response *resp = proxy_reply_from_buf(&b);
	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, "Content-Type",
				"text/plain; version=0.0.4; charset=utf-8");
	return proxy_reply_queue(c, MHD_HTTP_OK, resp);
}
