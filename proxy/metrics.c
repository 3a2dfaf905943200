/*
 * metrics: the /metrics page (see metrics.h).
 */
#include "proxy/metrics.h"

#include <dirent.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "config/buf.h"
#include "config/version.h"
#include "proxy/fanout.h"
#include "proxy/front/conns.h"
#include "proxy/observe.h"
#include "proxy/protobuf.h"
#include "proxy/reply.h"
#include "proxy/request.h"
#include "proxy/pass/upgrade.h"

struct proxy_counters proxy_metrics_counters;
int64_t proxy_metrics_last_reload;

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

static double window_bytes(struct cache_resource *r)
{
	size_t n, bytes;
	cache_store_window(r->store, &n, &bytes);
	return (double)bytes;
}

static double sends_bookmarks(struct cache_resource *r)
{
	return __atomic_load_n(&r->bookmarks_seen, __ATOMIC_RELAXED);
}

static double last_contact(struct cache_resource *r)
{
	return (double)__atomic_load_n(&r->last_contact, __ATOMIC_RELAXED);
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

/* A failed LIST or WATCH is counted by reason and by the HTTP code of
 * the last answer ("error": none). The combinations each reason has
 * when it stands alone are always there, at 0 before the first; any
 * other appears once it is counted (an "http" one with its code). */
static void errors_samples(struct buf *b, const char *name, const char *lab,
			   struct cache_resource *r)
{
	int none = config_histogram_code_slot(0),
	    ok = config_histogram_code_slot(200);
	for (int why = 0; why < CACHE_ERROR_NREASONS; why++)
		for (int slot = 0; slot < CONFIG_HISTOGRAM_NCODES; slot++) {
			uint64_t n = load(&r->stats.errors_by[why][slot]);
			bool usual =
				why == CACHE_ERROR_INVALID ?
					slot == ok :
					why != CACHE_ERROR_HTTP && slot == none;
			if (!n && !usual)
				continue;
			buf_printf(b, "%s{%s,reason=\"%s\",code=\"%s\"} %llu\n",
				   name, lab, cache_resource_error_name(why),
				   config_histogram_code_name(slot),
				   (unsigned long long)n);
		}
}

/*
 * The per-resource families, in page order. A row reads its sample with
 * value(), or else from the counter at stat in struct cache_resource_stats;
 * with nreasons, stat is an array and each reason is a sample of its own
 * (labelled by reason_name); samples() writes a family's samples itself.
 */
struct res_metric {
	const char *name, *type, *help;
	double (*value)(struct cache_resource *r);
	size_t stat;
	int nreasons;
	const char *(*reason_name)(int why);
	void (*samples)(struct buf *b, const char *name, const char *lab,
			struct cache_resource *r);
};

#define STAT(f) .stat = offsetof(struct cache_resource_stats, f)

static const struct res_metric res_metrics[] = {
	{ "informer_proxy_cache_objects", "gauge", "Objects in the cache.",
	  .value = objects },
	{ "informer_proxy_cache_resource_version", "gauge",
	  "resourceVersion of the cache's current snapshot.", .value = rv },
	{ "informer_proxy_cache_window_bytes", "gauge",
	  "Bytes the store's recent versions (for exact reads) keep alive "
	  "beyond the current state, as estimated against "
	  "LIMIT_STORE_WINDOW_BYTES.",
	  .value = window_bytes },
	{ "informer_proxy_cache_synced", "gauge",
	  "1 once the resource's first LIST has been applied.",
	  .value = synced },
	{ "informer_proxy_upstream_last_contact_timestamp_seconds", "gauge",
	  "Unix time bytes last arrived from the upstream for the resource "
	  "(0: never yet).",
	  .value = last_contact },
	{ "informer_proxy_upstream_lists_total", "counter",
	  "Full LISTs made upstream (each may take several pages).",
	  STAT(lists) },
	{ "informer_proxy_upstream_watches_total", "counter",
	  "WATCH requests made upstream.", STAT(watches) },
	{ "informer_proxy_upstream_events_total", "counter",
	  "Watch events applied to the cache.", STAT(events) },
	/* expired (410 on resume), broken (bad bytes or events that did
	 * not fit), backwards (the upstream's RV fell) */
	{ "informer_proxy_relists_total", "counter",
	  "Relists (full LISTs after the first), by why.", STAT(relists_by),
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
	  "Failed upstream LISTs and WATCHes, by why and the HTTP code of the "
	  "answer (error: none).",
	  .samples = errors_samples },
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
	{ "informer_proxy_protobuf_passthrough_total", "counter",
	  "Protobuf reads of a cached resource passed to the upstream because "
	  "the cache cannot encode them faithfully, by reason: unknown_field "
	  "(an object holds a field the protobuf schema lacks), no_schema (no "
	  "schema for the kind), invalid (a value of the wrong type).",
	  STAT(pb_passthrough_by), .nreasons = PROXY_PB_PASS_NREASONS,
	  .reason_name = proxy_pb_pass_reason_name },
};

static void res_family(struct buf *b, struct proxy *p,
		       const struct res_metric *m)
{
	proxy_observe_family(b, m->name, m->type, m->help);
	for (int i = 0, n = proxy_nres(p); i < n; i++) {
		struct cache_resource *r = p->res[i];
		char lab[PROXY_OBSERVE_LABELS_MAX];
		if (cache_resource_retired(r))
			continue; /* removed by a reload; its successor has
				   * the same labels */
		proxy_observe_res_labels(r, lab, sizeof(lab));
		if (m->samples) {
			m->samples(b, m->name, lab, r);
			continue;
		}
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

void proxy_metrics_reload_count(bool ok)
{
	if (ok) {
		PROXY_COUNT(reloads_ok);
		__atomic_store_n(&proxy_metrics_last_reload,
				 (int64_t)time(NULL), __ATOMIC_RELAXED);
	} else {
		PROXY_COUNT(reloads_failed);
	}
}

void proxy_metrics_scope_count(struct cache_resource *r, bool served)
{
	__atomic_add_fetch(served ? &r->stats.scope_served :
				    &r->stats.scope_passthrough,
			   1, __ATOMIC_RELAXED);
}

void proxy_metrics_pb_pass(struct cache_resource *r, int err)
{
	__atomic_add_fetch(
		&r->stats.pb_passthrough_by[proxy_pb_pass_reason(err)], 1,
		__ATOMIC_RELAXED);
}

static long long open_connections(struct proxy *p)
{
	return proxy_conns_open(p->conns);
}
static long long max_connections(struct proxy *p)
{
	return proxy_conns_max(p->conns);
}
static long long fanout_streams(struct proxy *p)
{
	return proxy_fanout_count(p->fanout);
}
static long long upgrade_streams(struct proxy *p)
{
	return p->upgrade ? proxy_upgrade_pool_active(p->upgrade) : 0;
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
	{ "informer_proxy_upgrade_streams",
	  "Upgraded streams (exec, attach, port-forward) open now, "
	  "their upstream handshakes included.",
	  upgrade_streams },
	{ "informer_proxy_watch_fanout_streams",
	  "Idle watch streams written by the fan-out workers now "
	  "(the rest of the open watches are sending on libmicrohttpd's "
	  "threads: initial events, HTTP/1.0).",
	  fanout_streams },
};

/* The process_* families as Prometheus client libraries write them,
 * from /proc/self; a figure that cannot be read is left out. */
static void process_families(struct buf *b)
{
	char line[1024];
	FILE *f = fopen("/proc/self/stat", "r");
	bool stat_ok = false;
	unsigned long long utime = 0, stime = 0, start = 0, vsize = 0;
	long long rss = 0;
	if (f) {
		char *close = fgets(line, sizeof(line), f) ?
				      strrchr(line, ')') :
				      NULL; /* the name may hold anything */
		/* from field 3 (state): utime is 14, stime 15, starttime
		 * 22, vsize 23, rss 24 */
		stat_ok = close &&
			  sscanf(close + 1,
				 " %*c %*d %*d %*d %*d %*d %*u %*u "
				 "%*u %*u %*u %llu %llu %*d %*d %*d "
				 "%*d %*d %*d %llu %llu %lld",
				 &utime, &stime, &start, &vsize, &rss) == 5;
		fclose(f);
	}
	long long btime = 0;
	if ((f = fopen("/proc/stat", "r"))) {
		while (fgets(line, sizeof(line), f) &&
		       sscanf(line, "btime %lld", &btime) != 1)
			;
		fclose(f);
	}
	double tck = (double)sysconf(_SC_CLK_TCK);
	if (stat_ok && tck > 0) {
		proxy_observe_family(b, "process_cpu_seconds_total", "counter",
				     "Total user and system CPU time spent in "
				     "seconds.");
		buf_printf(b, "process_cpu_seconds_total %.17g\n",
			   (double)(utime + stime) / tck);
	}
	int fds = 0;
	DIR *d = opendir("/proc/self/fd");
	if (d) {
		for (struct dirent *e; (e = readdir(d));)
			fds += e->d_name[0] != '.';
		closedir(d);
		proxy_observe_family(b, "process_open_fds", "gauge",
				     "Number of open file descriptors.");
		buf_printf(b, "process_open_fds %d\n", fds);
	}
	struct rlimit rl;
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		proxy_observe_family(
			b, "process_max_fds", "gauge",
			"Maximum number of open file descriptors.");
		buf_printf(b, "process_max_fds %.17g\n",
			   rl.rlim_cur == RLIM_INFINITY ? -1 :
							  (double)rl.rlim_cur);
	}
	if (stat_ok) {
		proxy_observe_family(b, "process_virtual_memory_bytes", "gauge",
				     "Virtual memory size in bytes.");
		buf_printf(b, "process_virtual_memory_bytes %llu\n", vsize);
		proxy_observe_family(b, "process_resident_memory_bytes",
				     "gauge", "Resident memory size in bytes.");
		buf_printf(b, "process_resident_memory_bytes %lld\n",
			   rss * (long long)sysconf(_SC_PAGESIZE));
	}
	proxy_observe_family(b, "process_start_time_seconds", "gauge",
			     "Start time of the process since unix epoch in "
			     "seconds.");
	buf_printf(b, "process_start_time_seconds %.17g\n",
		   stat_ok && btime && tck > 0 ?
			   (double)btime + (double)start / tck :
			   (double)started);
}

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
	proxy_observe_family(&b,
			     "informer_proxy_config_last_reload_success_"
			     "timestamp_seconds",
			     "gauge",
			     "Unix time the configuration in force was loaded: "
			     "the last successful reload, else the start.");
	int64_t reloaded =
		__atomic_load_n(&proxy_metrics_last_reload, __ATOMIC_RELAXED);
	buf_printf(&b,
		   "informer_proxy_config_last_reload_success_timestamp_"
		   "seconds %lld\n",
		   (long long)(reloaded ? reloaded : started));
	process_families(&b);
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
