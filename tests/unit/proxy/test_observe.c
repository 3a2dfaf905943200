/*
 * test_observe: the request histograms' resource slots (one per cached
 * kind, however many reflectors it has; "other" for a resource path the
 * cache lacks; "none" for the rest), an observation landing in its own
 * verb/resource/code series and nowhere else, out-of-range observations
 * ignored, retired reflectors left out of the per-resource families, the
 * lag gauge over registered watches, and -ENOMEM from init.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cache/history.h"
#include "cache/kind.h"
#include "cache/obj.h"
#include "cache/resource.h"
#include "cache/scope.h"
#include "config/alloc.h"
#include "config/histogram.h"
#include "proxy/observe.h"
#include "proxy/route.h"
#include "names.h"
#include "check.h"

static const struct cache_upstream up = { .server = "http://127.0.0.1:1" };
static struct cache_resource *res[3];
static struct proxy p;

/* pods twice (namespaces a and b), configmaps cluster-wide */
static void setup(void)
{
	static const char *ns[] = { "a", "b", NULL };
	memset(&p, 0, sizeof(p));
	for (int i = 0; i < 3; i++) {
		res[i] = cache_resource_new(
			cache_kind_lookup(i < 2 ? "pods" : "configmaps"), &up,
			16);
		CHECK(res[i] != NULL);
		if (i < 2) {
			struct cache_scope s;
			CHECK(cache_scope_init(&s, ns[i], NULL, NULL, NULL,
					       0) == 0);
			cache_resource_set_scope(res[i], &s);
		}
	}
	p.res = res;
	p.nres = 3;
}

static void teardown(void)
{
	proxy_observe_free(&p);
	for (int i = 0; i < 3; i++)
		cache_resource_free(res[i]);
}

static char *metrics(void)
{
	static char out[1 << 16];
	struct buf b = BUF_INIT;
	proxy_observe_write(&b, &p);
	buf_addc(&b, '\0');
	snprintf(out, sizeof(out), "%s", b.p ? b.p : "");
	buf_free(&b);
	return out;
}

static int count_of(const char *text, const char *s)
{
	int n = 0;
	for (const char *at = text; (at = strstr(at, s)); at++)
		n++;
	return n;
}

/* The slot of a request path, routed as the dispatcher routes it. */
static int slot(const char *path)
{
	struct proxy_route rt;
	return proxy_observe_slot(&p,
				  proxy_route_parse(path, &rt) ? NULL : &rt);
}

static void test_slots(void)
{
	setup();
	/* before init: every path is "none", nothing is counted */
	CHECK(slot("/api/v1/pods") == 0);
	proxy_observe_request(&p, CONFIG_VERB_LIST, 2, 200, 1000);
	CHECK(proxy_observe_init(&p) == 0);
	int pods = slot("/api/v1/pods");
	int cms = slot("/api/v1/namespaces/a/configmaps/x");
	CHECK(pods >= 2 && cms >= 2 && pods != cms);
	/* both pods reflectors share the kind's slot */
	CHECK(slot("/api/v1/namespaces/b/pods") == pods);
	CHECK(slot("/apis/apps/v1/deployments") == 1);
	CHECK(slot("/api/v1/nodes/n1") == 1);
	CHECK(slot("/healthz") == 0);
	CHECK(slot("/version") == 0);
	teardown();
}

static void test_requests(void)
{
	setup();
	CHECK(proxy_observe_init(&p) == 0);
	const char *m = metrics();
	/* nothing observed: the family's header only */
	CHECK(strstr(m, "# TYPE informer_proxy_request_duration_seconds "
			"histogram\n") != NULL);
	CHECK(!strstr(m, "informer_proxy_request_duration_seconds_bucket"));

	int pods = slot("/api/v1/pods");
	proxy_observe_request(&p, CONFIG_VERB_LIST, pods, 200, 3000000);
	proxy_observe_request(&p, CONFIG_VERB_LIST, pods, 200, 20000000);
	proxy_observe_request(&p, CONFIG_VERB_WATCH, 1, 410, 1000);
	/* out of range: ignored, not written anywhere */
	proxy_observe_request(&p, CONFIG_VERB_GET, 99, 200, 1000);
	proxy_observe_request(&p, CONFIG_VERB_GET, -1, 200, 1000);
	proxy_observe_request(&p, CONFIG_NVERBS, pods, 200, 1000);
	proxy_observe_request(&p, -1, pods, 200, 1000);
	m = metrics();
	CHECK(strstr(m, "informer_proxy_request_duration_seconds_bucket{"
			"verb=\"list\",resource=\"pods\",code=\"200\","
			"le=\"0.0025\"} 0\n") != NULL);
	CHECK(strstr(m, "informer_proxy_request_duration_seconds_bucket{"
			"verb=\"list\",resource=\"pods\",code=\"200\","
			"le=\"0.005\"} 1\n") != NULL);
	CHECK(strstr(m, "informer_proxy_request_duration_seconds_bucket{"
			"verb=\"list\",resource=\"pods\",code=\"200\","
			"le=\"0.025\"} 2\n") != NULL);
	CHECK(strstr(m, "informer_proxy_request_duration_seconds_count{"
			"verb=\"list\",resource=\"pods\",code=\"200\"} 2\n") !=
	      NULL);
	CHECK(strstr(m,
		     "informer_proxy_request_duration_seconds_count{"
		     "verb=\"watch\",resource=\"other\",code=\"410\"} 1\n") !=
	      NULL);
	/* two series, no more */
	CHECK(count_of(m, "informer_proxy_request_duration_seconds_count{") ==
	      2);
	teardown();
}

/* The per-resource families: one series per live reflector, with its
 * namespace; a retired one is left out. */
static void test_resources(void)
{
	setup();
	CHECK(proxy_observe_init(&p) == 0);
	const char *m = metrics();
	CHECK(strstr(m, "informer_proxy_watcher_lag_events_max{resource="
			"\"pods\",namespace=\"a\"} 0\n") != NULL);
	CHECK(strstr(m, "informer_proxy_watcher_lag_events_max{resource="
			"\"configmaps\"} 0\n") != NULL);
	CHECK(count_of(m, "informer_proxy_event_delivery_seconds_count{") == 3);
	__atomic_store_n(&res[1]->retired, true, __ATOMIC_RELEASE);
	m = metrics();
	CHECK(!strstr(m, "namespace=\"b\""));
	CHECK(strstr(m, "namespace=\"a\"") != NULL);
	CHECK(count_of(m, "informer_proxy_event_delivery_seconds_count{") == 2);
	CHECK(count_of(m, "informer_proxy_watcher_lag_events_count{") == 2);
	teardown();
}

static void test_lag(void)
{
	setup();
	struct cache_history *h = res[0]->history;
	static const char pod[] =
		"{\"metadata\":{\"name\":\"x\",\"namespace\":\"a\","
		"\"resourceVersion\":\"%d\"}}";
	for (int i = 1; i <= 5; i++) {
		char js[256];
		snprintf(js, sizeof(js), pod, i);
		struct cache_obj *o =
			cache_obj_parse(cache_kind_lookup("pods"), js,
					strlen(js), false, NULL, 0);
		CHECK(o && cache_history_append(h, CACHE_ADDED, (uint64_t)i, o,
						NULL) == 0);
		cache_obj_put(o);
	}
	uint64_t head = cache_history_head(h);
	CHECK(head >= 5);
	uint64_t c1 = head - 3, c2 = head - 1, c3 = 0, c4 = head + 2;
	struct proxy_observe_watch w1 = { .r = res[0], .cursor = &c1 };
	struct proxy_observe_watch w2 = { .r = res[0], .cursor = &c2 };
	struct proxy_observe_watch w3 = { .r = res[2], .cursor = &c3 };
	struct proxy_observe_watch w4 = { .r = res[0], .cursor = &c4 };
	CHECK(proxy_observe_lag_max(res[0]) == 0);
	proxy_observe_watch_add(&w1);
	proxy_observe_watch_add(&w2);
	proxy_observe_watch_add(&w3);
	proxy_observe_watch_add(&w4);
	CHECK(proxy_observe_lag_max(res[0]) == 3);
	/* another resource's watch, however far behind, is not counted;
	 * its own head is 0 */
	CHECK(proxy_observe_lag_max(res[2]) == 0);
	CHECK(proxy_observe_lag_max(res[1]) == 0);
	/* the cursor is read as it moves */
	c1 = head - 2;
	CHECK(proxy_observe_lag_max(res[0]) == 2);
	proxy_observe_watch_del(&w1); /* the first added, now the tail */
	CHECK(proxy_observe_lag_max(res[0]) == 1);
	proxy_observe_watch_del(&w4); /* the head of the list */
	CHECK(proxy_observe_lag_max(res[0]) == 1);
	proxy_observe_watch_del(&w2);
	CHECK(proxy_observe_lag_max(res[0]) == 0);
	proxy_observe_watch_del(&w3);
	/* removed twice: harmless */
	proxy_observe_watch_del(&w3);
	CHECK(proxy_observe_lag_max(res[0]) == 0);
	teardown();
}

static void test_alloc_failure(void)
{
	int rc = -ENOMEM, failed = 0;
	setup();
	for (int n = 1; n < 20 && rc; n++) {
		alloc_fail_after(n);
		rc = proxy_observe_init(&p);
		alloc_fail_after(0);
		if (rc) {
			failed++;
			CHECK(rc == -ENOMEM && p.obs == NULL);
		}
	}
	CHECK(failed == 3 && rc == 0); /* the table, its kinds, the series */
	CHECK(slot("/api/v1/configmaps") >= 2);
	teardown();
}

/*
 * The longest names a series can carry: a custom resource of a 63-byte
 * plural in a 253-byte group, cached for a 63-byte namespace. Its
 * labels are whole (a label cut short leaves its quote open, and
 * Prometheus then reads none of the page).
 */
static void test_long_names(void)
{
	static char plural[64], group[254], ns[64];
	names_label(plural, 'w', 'w');
	names_group(group);
	names_label(ns, 'n', 'n');
	static struct cache_kind k = { .version = "v1",
				       .kind = "Widget",
				       .list_kind = "WidgetList",
				       .namespaced = true };
	k.resource = plural;
	k.group = group;
	struct cache_resource *r = cache_resource_new(&k, &up, 16);
	CHECK(r != NULL);
	if (!r)
		return;
	struct cache_scope s;
	CHECK(cache_scope_init(&s, ns, NULL, NULL, NULL, 0) == 0);
	cache_resource_set_scope(r, &s);
	struct proxy q = { .res = &r, .nres = 1 };
	CHECK(proxy_observe_init(&q) == 0);
	proxy_observe_request(&q, CONFIG_VERB_LIST, 2, 200, 3000000);
	struct buf b = BUF_INIT;
	proxy_observe_write(&b, &q);
	buf_addc(&b, '\0');
	char want[1024];
	snprintf(want, sizeof(want),
		 "informer_proxy_request_duration_seconds_count{verb=\"list\","
		 "resource=\"%s.%s\",code=\"200\"} 1\n",
		 plural, group);
	CHECK(b.p && strstr(b.p, want));
	snprintf(
		want, sizeof(want),
		"informer_proxy_event_delivery_seconds_count{resource=\"%s.%s\","
		"namespace=\"%s\"} 0\n",
		plural, group, ns);
	CHECK(b.p && strstr(b.p, want));
	buf_free(&b);
	proxy_observe_free(&q);
	cache_resource_free(r);
}

int main(void)
{
	test_long_names();
	test_slots();
	test_requests();
	test_resources();
	test_lag();
	test_alloc_failure();
	return check_done("observe");
}
