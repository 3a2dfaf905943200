/*
 * test_metrics: the /metrics page in the Prometheus text format 0.0.4:
 * every line a well-formed HELP, TYPE or sample, each family declared
 * once and before its samples, no sample repeated; the counters, the
 * per-resource rows (labelled resource="pods", "deployments.apps", with
 * reasons) and the process gauges at the values they hold; one series
 * per fact (relists and watchers by label only); upstream errors by
 * reason and code; reloads; last contact as a Unix time, 0 for never.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <urcu-bp.h>

#include "cache/kind.h"
#include "cache/resource_int.h"
#include "proxy/front/conns.h"
#include "proxy/metrics.h"
#include "proxy/request.h"
#include "mhd_stub.h"
#include "names.h"
#include "check.h"

static enum MHD_Result answer(void *arg, struct MHD_Connection *c,
			      const char *url, const char *method)
{
	return proxy_metrics_handle(arg, c);
}

static char *page(int port)
{
	struct mhd_reply r;
	char v[128];
	CHECK(mhd_stub_get(port, "/metrics", &r) == 0);
	CHECK(r.status == 200);
	CHECK(mhd_reply_header(&r, "Content-Type", v, sizeof(v)));
	CHECK_STR(v, "text/plain; version=0.0.4; charset=utf-8");
	return r.body;
}

/* The value of the sample whose name and labels are exactly series
 * ("name{labels}" or "name"); NAN-ish -12345 when absent. */
static double sample(const char *body, const char *series)
{
	size_t n = strlen(series);
	for (const char *l = body; l && *l;
	     l = strchr(l, '\n'), l = l ? l + 1 : l)
		if (!strncmp(l, series, n) && l[n] == ' ')
			return strtod(l + n + 1, NULL);
	return -12345;
}

static size_t metric_name(const char *s)
{
	size_t i = 0;
	if (!(isalpha((unsigned char)s[0]) || s[0] == '_' || s[0] == ':'))
		return 0;
	while (isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == ':')
		i++;
	return i;
}

/* Check the whole page's grammar; returns how many samples. */
static int check_format(const char *body)
{
	char typed[128][96] = { { 0 } }, seen[256][160] = { { 0 } };
	int ntyped = 0, nseen = 0, samples = 0, bad = 0;
	bool histogram = false; /* the last family typed is one */
	const char *help_for = NULL;
	size_t help_len = 0;
	CHECK(body[0] && body[strlen(body) - 1] == '\n');
	for (const char *l = body; *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);
		char line[512];
		snprintf(line, sizeof(line), "%.*s", (int)len, l);
		if (!strncmp(line, "# HELP ", 7)) {
			size_t n = metric_name(line + 7);
			bad += !n || line[7 + n] != ' ';
			help_for = l + 7;
			help_len = n;
		} else if (!strncmp(line, "# TYPE ", 7)) {
			size_t n = metric_name(line + 7);
			const char *t = line + 7 + n;
			/* HELP just before, same family */
			bad += !n || !help_for || help_len != n ||
			       strncmp(help_for, line + 7, n);
			bad += strcmp(t, " counter") && strcmp(t, " gauge") &&
			       strcmp(t, " histogram");
			histogram = !strcmp(t, " histogram");
			for (int i = 0; i < ntyped; i++) /* declared once */
				bad += (int)(strlen(typed[i]) == n &&
					     !strncmp(typed[i], line + 7, n));
			if (ntyped < 128)
				snprintf(typed[ntyped++], sizeof(typed[0]),
					 "%.*s", (int)n, line + 7);
			help_for = NULL;
		} else {
			size_t n = metric_name(line);
			const char *p = line + n;
			bad += !n;
			if (*p == '{') { /* k="v" pairs */
				p++;
				while (*p != '}') {
					size_t k = metric_name(p);
					if (!k || p[k] != '=' ||
					    p[k + 1] != '"') {
						bad++;
						break;
					}
					p += k + 2;
					p += strcspn(p, "\"\\\n");
					if (*p != '"') {
						bad++;
						break;
					}
					p++;
					if (*p == ',')
						p++;
				}
				if (*p == '}')
					p++;
			}
			size_t series = (size_t)(p - line);
			char *end;
			bad += *p != ' ';
			strtod(p + 1, &end);
			bad += end == p + 1 || *end;
			/* its family was declared: the last one typed (with
			 * _bucket, _sum or _count for a histogram) */
			size_t fn = ntyped ? strlen(typed[ntyped - 1]) : 0;
			bool named = ntyped && fn <= n &&
				     !strncmp(typed[ntyped - 1], line, fn);
			bad += !named ||
			       (fn != n &&
				(!histogram ||
				 (strncmp(line + fn, "_bucket", n - fn) &&
				  strncmp(line + fn, "_sum", n - fn) &&
				  strncmp(line + fn, "_count", n - fn)) ||
				 (n - fn != 7 && n - fn != 4 && n - fn != 6)));
			for (int i = 0; i < nseen; i++) /* no series twice */
				bad += (int)(strlen(seen[i]) == series &&
					     !strncmp(seen[i], line, series));
			if (nseen < 256)
				snprintf(seen[nseen++], sizeof(seen[0]), "%.*s",
					 (int)series, line);
			samples++;
		}
		if (bad) {
			fprintf(stderr, "bad metrics line: %s\n", line);
			break;
		}
		l += len + (e ? 1 : 0);
	}
	CHECK(bad == 0);
	return samples;
}

static void test_page(int port, struct proxy *p)
{
	struct cache_resource *pods = p->res[0], *deps = p->res[1];
	char *b = page(port);
	int samples = check_format(b);
	/* the long group's resource and namespace, whole */
	char want[1024];
	snprintf(want, sizeof(want),
		 "informer_proxy_cache_objects{resource=\"widgets.%s\","
		 "namespace=\"%s\"} 0\n",
		 p->res[2]->kind->group, p->res[2]->scope.ns);
	CHECK(strstr(b, want) != NULL);
	CHECK(samples > 60);
	CHECK(strstr(b,
		     "# HELP informer_proxy_requests_total Requests answered, by "
		     "handler.\n# TYPE informer_proxy_requests_total counter\n"
		     "informer_proxy_requests_total{handler=\"list\"} 0\n"
		     "informer_proxy_requests_total{handler=\"get\"} 0\n") !=
	      NULL);
	CHECK(sample(b, "informer_proxy_watch_expired_total") == 0);
	CHECK(sample(b, "informer_proxy_cache_objects{resource=\"pods\"}") ==
	      0);
	CHECK(sample(b,
		     "informer_proxy_cache_objects{resource=\"deployments.apps\"}") ==
	      0);
	CHECK(sample(b, "informer_proxy_cache_synced{resource=\"pods\"}") == 0);
	/* never heard from: 0, no sentinel */
	CHECK(sample(b,
		     "informer_proxy_upstream_last_contact_timestamp_seconds{"
		     "resource=\"pods\"}") == 0);
	CHECK(sample(b,
		     "informer_proxy_upstream_last_contact_seconds{resource=\"pods\"}") ==
	      -12345);
	/* one series per fact: the relists and watchers by label only */
	CHECK(sample(b, "informer_proxy_relists_total{resource=\"pods\","
			"reason=\"expired\"}") == 0);
	CHECK(sample(b,
		     "informer_proxy_relists_total{resource=\"deployments.apps\","
		     "reason=\"backwards\"}") == 0);
	CHECK(sample(b, "informer_proxy_relists_total{resource=\"pods\"}") ==
	      -12345);
	CHECK(!strstr(b, "relists_by_reason"));
	CHECK(sample(b, "informer_proxy_watchers{resource=\"pods\"}") == 0);
	CHECK(!strstr(b, "informer_proxy_open_watchers"));
	/* the upstream errors: each reason's usual code, at 0 */
	CHECK(sample(b,
		     "informer_proxy_upstream_errors_total{resource=\"pods\","
		     "reason=\"timeout\",code=\"error\"}") == 0);
	CHECK(sample(b,
		     "informer_proxy_upstream_errors_total{resource=\"pods\","
		     "reason=\"tls\",code=\"error\"}") == 0);
	CHECK(sample(b,
		     "informer_proxy_upstream_errors_total{resource=\"pods\","
		     "reason=\"invalid\",code=\"200\"}") == 0);
	CHECK(sample(b,
		     "informer_proxy_upstream_errors_total{resource=\"pods\"}") ==
	      -12345);
	CHECK(!strstr(b, "reason=\"http\""));
	CHECK(sample(b, "informer_proxy_max_connections") == 40);
	/* the process families as client libraries name them */
	time_t now = time(NULL);
	CHECK(sample(b, "process_resident_memory_bytes") > 0);
	CHECK(sample(b, "process_virtual_memory_bytes") >=
	      sample(b, "process_resident_memory_bytes"));
	CHECK(sample(b, "process_open_fds") >= 3);
	CHECK(sample(b, "process_max_fds") >= sample(b, "process_open_fds"));
	CHECK(sample(b, "process_cpu_seconds_total") >= 0);
	CHECK(strstr(b, "# TYPE process_cpu_seconds_total counter\n") != NULL);
	double start = sample(b, "process_start_time_seconds");
	CHECK(start > (double)now - 3600 && start <= (double)now + 1);
	/* no reload yet: the configuration is the start's */
	CHECK(sample(b,
		     "informer_proxy_config_reloads_total{result=\"success\"}") ==
	      0);
	CHECK(sample(b,
		     "informer_proxy_config_reloads_total{result=\"failure\"}") ==
	      0);
	double loaded = sample(
		b,
		"informer_proxy_config_last_reload_success_timestamp_seconds");
	CHECK(loaded > (double)now - 3600 && loaded <= (double)now);
	CHECK(sample(b, "informer_proxy_nope") ==
	      -12345); /* the helper can fail */
	free(b);

	/* what moves shows */
	PROXY_COUNT(req_list);
	PROXY_COUNT(req_list);
	PROXY_COUNT(refused_watchers);
	struct cache_txn t;
	cache_store_txn_begin(pods->store, &t);
	const char js[] = "{\"metadata\":{\"name\":\"x\",\"namespace\":\"a\","
			  "\"resourceVersion\":\"42\"}}";
	struct cache_obj *o =
		cache_obj_parse(pods->kind, js, strlen(js), false, NULL, 0);
	CHECK(o && cache_store_txn_put(&t, o, NULL) == 0);
	cache_obj_put(o);
	CHECK(cache_store_txn_commit(&t, 42) == 0);
	__atomic_store_n(&pods->synced, true, __ATOMIC_RELEASE);
	__atomic_add_fetch(&deps->stats.relists_by[REFL_RELIST_BROKEN], 3,
			   __ATOMIC_RELAXED);
	__atomic_add_fetch(&deps->stats.events, 7, __ATOMIC_RELAXED);
	__atomic_store_n(&pods->last_contact, (int64_t)time(NULL) - 2,
			 __ATOMIC_RELAXED);
	__atomic_add_fetch(&pods->stats.watchers, 1, __ATOMIC_RELAXED);
	/* a refused connection, two 503s and a 200 with a broken body */
	__atomic_store_n(&pods->last_curl_error, CURLE_COULDNT_CONNECT,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&pods->last_http_status, 0L, __ATOMIC_RELAXED);
	cache_resource_count_error(pods);
	__atomic_store_n(&pods->last_curl_error, CURLE_OK, __ATOMIC_RELAXED);
	__atomic_store_n(&pods->last_http_status, 503L, __ATOMIC_RELAXED);
	cache_resource_count_error(pods);
	cache_resource_count_error(pods);
	__atomic_store_n(&pods->last_http_status, 200L, __ATOMIC_RELAXED);
	cache_resource_count_error(pods);
	proxy_metrics_reload_count(false);
	proxy_metrics_reload_count(false);
	proxy_metrics_reload_count(true);
	b = page(port);
	check_format(b);
	CHECK(sample(b, "informer_proxy_requests_total{handler=\"list\"}") ==
	      2);
	CHECK(sample(b,
		     "informer_proxy_refusals_total{reason=\"max_watchers\"}") ==
	      1);
	CHECK(sample(b, "informer_proxy_cache_objects{resource=\"pods\"}") ==
	      1);
	CHECK(sample(b,
		     "informer_proxy_cache_resource_version{resource=\"pods\"}") ==
	      42);
	CHECK(sample(b, "informer_proxy_cache_synced{resource=\"pods\"}") == 1);
	CHECK(sample(b,
		     "informer_proxy_cache_synced{resource=\"deployments.apps\"}") ==
	      0);
	CHECK(sample(b,
		     "informer_proxy_relists_total{resource=\"deployments.apps\","
		     "reason=\"broken\"}") == 3);
	CHECK(sample(b,
		     "informer_proxy_upstream_events_total{resource=\"deployments.apps\"}") ==
	      7);
	CHECK(sample(b,
		     "informer_proxy_upstream_last_contact_timestamp_seconds{"
		     "resource=\"pods\"}") ==
	      (double)__atomic_load_n(&pods->last_contact, __ATOMIC_RELAXED));
	CHECK(sample(b, "informer_proxy_watchers{resource=\"pods\"}") == 1);
	CHECK(sample(b,
		     "informer_proxy_upstream_errors_total{resource=\"pods\","
		     "reason=\"connect\",code=\"error\"}") == 1);
	CHECK(sample(b,
		     "informer_proxy_upstream_errors_total{resource=\"pods\","
		     "reason=\"http\",code=\"503\"}") == 2);
	CHECK(sample(b,
		     "informer_proxy_upstream_errors_total{resource=\"pods\","
		     "reason=\"invalid\",code=\"200\"}") == 1);
	CHECK(sample(b,
		     "informer_proxy_upstream_errors_total{resource=\"deployments.apps\","
		     "reason=\"connect\",code=\"error\"}") == 0);
	CHECK(sample(b,
		     "informer_proxy_config_reloads_total{result=\"success\"}") ==
	      1);
	CHECK(sample(b,
		     "informer_proxy_config_reloads_total{result=\"failure\"}") ==
	      2);
	CHECK(sample(b,
		     "informer_proxy_config_last_reload_success_timestamp_seconds") >=
	      (double)now);
	/* one version: nothing kept beyond it */
	CHECK(sample(b,
		     "informer_proxy_cache_window_bytes{resource=\"pods\"}") ==
	      0);
	free(b);
	/* x replaced: the window keeps the old x for exact reads at 42 */
	cache_store_txn_begin(pods->store, &t);
	const char js2[] = "{\"metadata\":{\"name\":\"x\",\"namespace\":\"a\","
			   "\"resourceVersion\":\"43\"}}";
	o = cache_obj_parse(pods->kind, js2, strlen(js2), false, NULL, 0);
	CHECK(o && cache_store_txn_put(&t, o, NULL) == 0);
	cache_obj_put(o);
	CHECK(cache_store_txn_commit(&t, 43) == 0);
	b = page(port);
	CHECK(sample(b,
		     "informer_proxy_cache_window_bytes{resource=\"pods\"}") >=
	      (double)sizeof(js));
	free(b);
	__atomic_sub_fetch(&pods->stats.watchers, 1, __ATOMIC_RELAXED);
}

/* How a transfer's end maps to the errors metric's reason. */
static void test_error_reasons(void)
{
	CHECK(cache_resource_error_reason(CURLE_OPERATION_TIMEDOUT, 0) ==
	      CACHE_ERROR_TIMEOUT);
	CHECK(cache_resource_error_reason(CURLE_COULDNT_RESOLVE_HOST, 0) ==
	      CACHE_ERROR_CONNECT);
	CHECK(cache_resource_error_reason(CURLE_RECV_ERROR, 0) ==
	      CACHE_ERROR_CONNECT);
	CHECK(cache_resource_error_reason(CURLE_PEER_FAILED_VERIFICATION, 0) ==
	      CACHE_ERROR_TLS);
	CHECK(cache_resource_error_reason(CURLE_SSL_CONNECT_ERROR, 0) ==
	      CACHE_ERROR_TLS);
	CHECK(cache_resource_error_reason(CURLE_OK, 403) == CACHE_ERROR_HTTP);
	CHECK(cache_resource_error_reason(CURLE_OK, 200) ==
	      CACHE_ERROR_INVALID);
	CHECK(cache_resource_error_reason(CURLE_OUT_OF_MEMORY, 0) ==
	      CACHE_ERROR_OTHER);
	CHECK_STR(cache_resource_error_name(CACHE_ERROR_TLS), "tls");
	CHECK_STR(cache_resource_error_name(CACHE_ERROR_NREASONS), "other");
}

int main(void)
{
	struct mhd_stub s;
	struct config cfg = { .max_connections = 40,
			      .max_watchers = 5,
			      .idle_timeout = 120,
			      .header_timeout = 32 };
	struct cache_upstream up = { .server = "http://127.0.0.1:1" };
	/* a custom resource whose group is a 253-byte DNS name, cached for
	 * one namespace of 63 bytes: its series' labels are whole */
	static char group[254], ns[64];
	names_group(group);
	names_label(ns, 'n', 'n');
	static struct cache_kind widgets = { .version = "v1",
					     .resource = "widgets",
					     .kind = "Widget",
					     .list_kind = "WidgetList",
					     .namespaced = true };
	widgets.group = group;
	struct cache_resource *res[3] = {
		cache_resource_new(cache_kind_lookup("pods"), &up, 16),
		cache_resource_new(cache_kind_lookup("deployments.apps"), &up,
				   16),
		cache_resource_new(&widgets, &up, 16),
	};
	if (res[2])
		res[2]->scope.ns = ns; /* not owned: put back before the free */
	struct proxy p = { .cfg = &cfg,
			   .res = res,
			   .nres = 3,
			   .conns = proxy_conns_new(&cfg, -1) };
	curl_global_init(CURL_GLOBAL_DEFAULT);
	test_error_reasons();
	CHECK(res[0] && res[1] && res[2] && p.conns);
	CHECK(mhd_stub_start(&s, answer, &p) == 0);
	test_page(s.port, &p);
	mhd_stub_stop(&s);
	proxy_conns_free(p.conns);
	cache_resource_free(res[0]);
	cache_resource_free(res[1]);
	if (res[2])
		res[2]->scope.ns = NULL;
	cache_resource_free(res[2]);
	rcu_barrier();
	curl_global_cleanup();
	return check_done("metrics");
}
