/*
 * metrics: the /metrics page (see metrics.h).
 */
#include "proxy/metrics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config/buf.h"
#include "proxy/conns.h"
#include "proxy/server.h"

struct proxy_counters proxy_counters;

static time_t started;

__attribute__((constructor)) static void note_start(void)
{
	started = time(NULL);
}

static uint64_t load(const uint64_t *v)
{
	return __atomic_load_n(v, __ATOMIC_RELAXED);
}

/* One gauge or counter with a sample per resource. */
static void per_resource(struct buf *b, struct proxy *p, const char *name,
			 const char *type, const char *help,
			 double (*value)(struct cache_resource *r))
{
	buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
	for (int i = 0; i < p->nres; i++) {
		const struct cache_kind *k = p->res[i]->kind;
		buf_printf(b, "%s{resource=\"%s%s%s\"} %.17g\n", name, k->resource,
			   k->group[0] ? "." : "", k->group, value(p->res[i]));
	}
}

static double objects(struct cache_resource *r)
{
	struct cache_snap *s = cache_store_snap(r->store);
	double n = (double)s->count;
	cache_snap_put(s);
	return n;
}

static double rv(struct cache_resource *r) { return (double)cache_store_rv(r->store); }
static double synced(struct cache_resource *r) { return cache_refl_synced(r); }
static double lists(struct cache_resource *r) { return (double)load(&r->stats.lists); }
static double watches(struct cache_resource *r) { return (double)load(&r->stats.watches); }
static double events(struct cache_resource *r) { return (double)load(&r->stats.events); }
static double relists(struct cache_resource *r) { return (double)load(&r->stats.relists); }
static double errors(struct cache_resource *r) { return (double)load(&r->stats.errors); }
static double malformed(struct cache_resource *r) { return (double)load(&r->stats.malformed); }
static double watchers(struct cache_resource *r) { return (double)load(&r->stats.watchers); }

static double sends_bookmarks(struct cache_resource *r)
{
	return __atomic_load_n(&r->bookmarks_seen, __ATOMIC_RELAXED);
}

static double fast_forwards(struct cache_resource *r)
{
	return (double)load(&r->stats.fast_forwards);
}

/* Relists by resource and reason: expired (410 on resume), broken (bad
 * bytes or events that did not fit), backwards (the upstream's RV fell). */
static void relists_by_reason(struct buf *b, struct proxy *p)
{
	const char *name = "informer_proxy_relists_by_reason_total";
	buf_printf(b, "# HELP %s Relists, by why.\n# TYPE %s counter\n", name, name);
	for (int i = 0; i < p->nres; i++) {
		const struct cache_kind *k = p->res[i]->kind;
		for (int why = 0; why < REFL_RELIST_NREASONS; why++)
			buf_printf(b, "%s{resource=\"%s%s%s\",reason=\"%s\"} %llu\n",
				   name, k->resource, k->group[0] ? "." : "",
				   k->group, cache_refl_relist_reason_name(why),
				   (unsigned long long)load(&p->res[i]->stats.relists_by[why]));
	}
}

/* Upstream objects skipped (list items, watch objects), by resource and
 * reason: invalid, name, too_large (enum cache_reject). */
static void rejected_by_reason(struct buf *b, struct proxy *p)
{
	const char *name = "informer_proxy_upstream_items_rejected_total";
	buf_printf(b, "# HELP %s Upstream objects skipped as ones the cache cannot "
		   "take, by why.\n# TYPE %s counter\n", name, name);
	for (int i = 0; i < p->nres; i++) {
		const struct cache_kind *k = p->res[i]->kind;
		for (int why = 0; why < CACHE_REJECT_NREASONS; why++)
			buf_printf(b, "%s{resource=\"%s%s%s\",reason=\"%s\"} %llu\n",
				   name, k->resource, k->group[0] ? "." : "",
				   k->group, cache_reject_name(why),
				   (unsigned long long)load(&p->res[i]->stats.rejected_by[why]));
	}
}

static double staleness(struct cache_resource *r)
{
	int64_t last = __atomic_load_n(&r->last_contact, __ATOMIC_RELAXED);
	return last ? (double)(time(NULL) - last) : -1;
}

static long rss_bytes(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long pages = 0, rss = 0;
	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
			rss = 0;
		fclose(f);
	}
	return rss * sysconf(_SC_PAGESIZE);
}

enum MHD_Result proxy_handle_metrics(struct proxy *p, struct MHD_Connection *c)
{
	struct buf b = BUF_INIT;
	const char *last = "";
#define X(field, name, labels, help)                                           \
	if (strcmp(last, name)) {                                              \
		buf_printf(&b, "# HELP %s %s\n# TYPE %s counter\n", name,      \
			   help ? help : "", name);                           \
		last = name;                                                   \
	}                                                                      \
	buf_printf(&b, "%s%s%s%s %llu\n", name, labels[0] ? "{" : "", labels,  \
		   labels[0] ? "}" : "",                                       \
		   (unsigned long long)load(&proxy_counters.field));
	PROXY_COUNTERS(X)
#undef X
	per_resource(&b, p, "informer_proxy_cache_objects", "gauge",
		     "Objects in the cache.", objects);
	per_resource(&b, p, "informer_proxy_cache_resource_version", "gauge",
		     "resourceVersion of the cache's current snapshot.", rv);
	per_resource(&b, p, "informer_proxy_cache_synced", "gauge",
		     "1 once the resource's first LIST has been applied.", synced);
	per_resource(&b, p, "informer_proxy_upstream_last_contact_seconds", "gauge",
		     "Seconds since bytes last arrived from the upstream for the "
		     "resource (-1: never).", staleness);
	per_resource(&b, p, "informer_proxy_upstream_lists_total", "counter",
		     "Full LISTs made upstream (each may take several pages).", lists);
	per_resource(&b, p, "informer_proxy_upstream_watches_total", "counter",
		     "WATCH requests made upstream.", watches);
	per_resource(&b, p, "informer_proxy_upstream_events_total", "counter",
		     "Watch events applied to the cache.", events);
	per_resource(&b, p, "informer_proxy_relists_total", "counter",
		     "Relists after 410 Expired, bad bytes or an ERROR event.", relists);
	relists_by_reason(&b, p);
	rejected_by_reason(&b, p);
	per_resource(&b, p, "informer_proxy_upstream_sends_bookmarks", "gauge",
		     "1 once the upstream sent the resource's watch a BOOKMARK: from then "
		     "on a silent watch counts as stalled after --upstream-stall-timeout.",
		     sends_bookmarks);
	per_resource(&b, p, "informer_proxy_quiet_resumes_total", "counter",
		     "Watch renewals of a quiet resource moved to a newer resourceVersion "
		     "seen upstream, so that they resume instead of relisting.",
		     fast_forwards);
	per_resource(&b, p, "informer_proxy_upstream_errors_total", "counter",
		     "Failed upstream LISTs and WATCHes.", errors);
	per_resource(&b, p, "informer_proxy_upstream_malformed_total", "counter",
		     "Upstream answers that were not valid JSON or not the expected shape.",
		     malformed);
	per_resource(&b, p, "informer_proxy_watchers", "gauge",
		     "Local watch streams open now.", watchers);
	buf_printf(&b, "# HELP informer_proxy_open_connections Client connections open now.\n"
		       "# TYPE informer_proxy_open_connections gauge\n"
		       "informer_proxy_open_connections %d\n"
		       "# HELP informer_proxy_max_connections --max-connections in force "
		       "(perhaps lowered to fit RLIMIT_NOFILE).\n"
		       "# TYPE informer_proxy_max_connections gauge\n"
		       "informer_proxy_max_connections %d\n"
		       "# HELP informer_proxy_open_watchers Local watch streams open now, "
		       "all resources together (--max-watchers).\n"
		       "# TYPE informer_proxy_open_watchers gauge\n"
		       "informer_proxy_open_watchers %d\n",
		   proxy_conns_open(p->conns), proxy_conns_max(p->conns),
		   proxy_conns_watchers(p->conns));
	buf_printf(&b, "# HELP process_resident_memory_bytes Resident memory size in bytes.\n"
		       "# TYPE process_resident_memory_bytes gauge\n"
		       "process_resident_memory_bytes %ld\n"
		       "# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.\n"
		       "# TYPE process_start_time_seconds gauge\n"
		       "process_start_time_seconds %lld\n",
		   rss_bytes(), (long long)started);
	if (!buf_ok(&b)) {
		buf_free(&b);
		return MHD_NO;
	}
	size_t len;
	char *body = buf_steal(&b, &len);
	struct MHD_Response *resp =
		MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, "Content-Type", "text/plain; version=0.0.4; charset=utf-8");
	enum MHD_Result r = MHD_queue_response(c, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	return r;
}
