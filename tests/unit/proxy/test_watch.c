/*
 * test_watch: WATCH streams from the store and the event history, as the
 * apiserver's watch cache sends them: initial ADDED events for an RV-less
 * or "0" watch, then the events after the snapshot; events after a given
 * resourceVersion only; a MODIFIED that leaves a selector sent as DELETED;
 * one named object; the initial-events-end bookmark of a watch-list and a
 * periodic BOOKMARK; 410 Expired as an ERROR event for an RV the history
 * no longer has; timeoutSeconds ending the stream, and out-of-range
 * values (overflow, negative, not a number) not ending it early; the
 * 400/406/422 refusals of a bad query and 429 past --max-watchers, with
 * every slot given back.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <urcu-bp.h>

#include "cache/history.h"
#include "cache/kind.h"
#include "cache/obj.h"
#include "config/buf.h"
#include "proxy/front/conns.h"
#include "proxy/metrics.h"
#include "proxy/reply.h"
#include "proxy/table/table.h"
#include "proxy/watch.h"
#include "mhd_stub.h"
#include "check.h"

static struct cache_resource *pods;
static struct config cfg = { .max_connections = 40,
			     .max_watchers = 2,
			     .idle_timeout = 120,
			     .header_timeout = 32,
			     .bookmark_interval = 60 };
static struct proxy prx;
static struct mhd_stub srv;
static bool waking; /* atomic */

static struct cache_obj *pod_on(const char *ns, const char *name,
				const char *app, unsigned rv, const char *node)
{
	char js[512];
	snprintf(js, sizeof(js),
		 "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"%s\","
		 "\"resourceVersion\":\"%u\",\"labels\":{\"app\":\"%s\"}},"
		 "\"spec\":{\"nodeName\":\"%s\"}}",
		 name, ns, rv, app, node);
	struct cache_obj *o =
		cache_obj_parse(pods->kind, js, strlen(js), false, NULL, 0);
	CHECK(o != NULL);
	return o;
}

static struct cache_obj *pod(const char *ns, const char *name, const char *app,
			     unsigned rv)
{
	return pod_on(ns, name, app, rv, "n1");
}

/* The store at 10: a/p1 (web), a/p2 (db), b/q1 (web); the history from
 * 10: 11 p1 web -> db, 12 a/p4 (web) added. */
static void load(void)
{
	struct cache_txn t;
	struct cache_obj *p1 = pod("a", "p1", "web", 5);
	cache_store_txn_begin(pods->store, &t);
	struct cache_obj *objs[3] = { p1, pod("a", "p2", "db", 6),
				      pod("b", "q1", "web", 7) };
	for (int i = 0; i < 3; i++)
		CHECK(cache_store_txn_put(&t, objs[i], NULL) == 0);
	CHECK(cache_store_txn_commit(&t, 10) == 0);
	cache_history_reset(pods->history, 10);
	struct cache_obj *p1db = pod("a", "p1", "db", 11),
			 *p4 = pod("a", "p4", "web", 12);
	CHECK(cache_history_append(pods->history, CACHE_MODIFIED, 11, p1db,
				   p1) == 0);
	CHECK(cache_history_append(pods->history, CACHE_ADDED, 12, p4, NULL) ==
	      0);
	cache_obj_put(p1db);
	cache_obj_put(p4);
	for (int i = 0; i < 3; i++)
		cache_obj_put(objs[i]);
}

/* The ticker's part: wake sleeping watches so deadlines are kept. */
static void *waker(void *arg)
{
	while (__atomic_load_n(&waking, __ATOMIC_ACQUIRE)) {
		cache_history_wake_all(pods->history);
		usleep(50 * 1000);
	}
	return NULL;
}

static enum MHD_Result answer(void *arg, struct MHD_Connection *c,
			      const char *url, const char *method)
{
	struct proxy_route rt;
	if (proxy_route_parse(url, &rt))
		return proxy_reply_text(c, 598, "text/plain", "bad route");
	return proxy_watch_handle(&prx, c, pods, &rt);
}

/* The stream's events, one word each: "ADDED a/p1", "BOOKMARK 10 end",
 * "ERROR 410", comma-separated. */
static void events(const char *body, char *out, size_t n)
{
	out[0] = '\0';
	for (const char *l = body; l && *l;
	     l = strchr(l, '\n'), l = l ? l + 1 : l) {
		char one[128] = "?";
		if (strncmp(l, "{\"type\":\"", 9))
			break;
		const char *t = l + 9;
		int tl = (int)strcspn(t, "\"");
		const char *rv = strstr(l, "\"resourceVersion\":\""),
			   *nm = strstr(l, "\"name\":\""),
			   *ns = strstr(l, "\"namespace\":\""),
			   *code = strstr(l, "\"code\":"),
			   *nl = strchr(l, '\n');
		if (!strncmp(t, "BOOKMARK", 8) && rv)
			snprintf(one, sizeof(one), "BOOKMARK %.*s%s",
				 (int)strcspn(rv + 19, "\""), rv + 19,
				 strstr(l, "initial-events-end") &&
						 strstr(l,
							"initial-events-end") <
							 nl ?
					 " end" :
					 "");
		else if (!strncmp(t, "ERROR", 5) && code)
			snprintf(one, sizeof(one), "ERROR %.3s", code + 7);
		else if (nm && ns)
			snprintf(one, sizeof(one), "%.*s %.*s/%.*s", tl, t,
				 (int)strcspn(ns + 13, "\""), ns + 13,
				 (int)strcspn(nm + 8, "\""), nm + 8);
		snprintf(out + strlen(out), n - strlen(out), "%s%s",
			 out[0] ? "," : "", one);
		if (!nl)
			break;
	}
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Watch target to its end (or timeout_ms); the events in out; returns
 * the HTTP status, and how long it took in *ms. */
static long watch(const char *target, const char *const *hdrs, long timeout_ms,
		  char *out, size_t n, int64_t *ms, int *rc)
{
	struct mhd_reply r;
	int64_t t0 = now_ms();
	*rc = mhd_stub_ask(srv.port, "GET", target, hdrs, timeout_ms, &r);
	if (ms)
		*ms = now_ms() - t0;
	events(r.body, out, n);
	long st = r.status;
	mhd_reply_free(&r);
	return st;
}

/* Every slot and count back to none (the watch's free runs after the
 * response is sent, so wait for it a little). */
static void check_released(void)
{
	for (int i = 0; i < 100 && (proxy_conns_watchers(prx.conns) ||
				    __atomic_load_n(&pods->stats.watchers,
						    __ATOMIC_RELAXED));
	     i++)
		usleep(20 * 1000);
	CHECK(proxy_conns_watchers(prx.conns) == 0);
	CHECK(__atomic_load_n(&pods->stats.watchers, __ATOMIC_RELAXED) == 0);
}

static void test_initial(void)
{
	char ev[512];
	int64_t ms;
	int rc;
	/* no resourceVersion: the store as ADDED, then the events after it */
	CHECK(watch("/api/v1/pods?watch=1&timeoutSeconds=1", NULL, 0, ev,
		    sizeof(ev), &ms, &rc) == 200);
	CHECK(rc == 0);
	CHECK_STR(ev,
		  "ADDED a/p1,ADDED a/p2,ADDED b/q1,MODIFIED a/p1,ADDED a/p4");
	CHECK(ms >= 900 && ms < 5000); /* timeoutSeconds ended it */
	/* "0": the same; one namespace */
	CHECK(watch("/api/v1/namespaces/a/pods?resourceVersion=0&timeoutSeconds=1",
		    NULL, 0, ev, sizeof(ev), NULL, &rc) == 200);
	CHECK_STR(ev, "ADDED a/p1,ADDED a/p2,MODIFIED a/p1,ADDED a/p4");
	/* a selector: p1 leaving app=web is DELETED for this watcher */
	CHECK(watch("/api/v1/pods?timeoutSeconds=1&labelSelector=app%3Dweb",
		    NULL, 0, ev, sizeof(ev), NULL, &rc) == 200);
	CHECK_STR(ev, "ADDED a/p1,ADDED b/q1,DELETED a/p1,ADDED a/p4");
	/* the initial events of a namespace and a key=value walk only its
	 * objects with that label (the label index), and stop at its end;
	 * other selectors walk the namespace */
	static const struct {
		const char *q, *want;
	} sel[] = {
		{ "/api/v1/namespaces/a/pods?timeoutSeconds=1"
		  "&labelSelector=app%3Dweb",
		  "ADDED a/p1,DELETED a/p1,ADDED a/p4" },
		{ "/api/v1/namespaces/b/pods?timeoutSeconds=1"
		  "&labelSelector=app%3Dweb",
		  "ADDED b/q1" },
		{ "/api/v1/namespaces/a/pods?timeoutSeconds=1"
		  "&labelSelector=app%3Ddb",
		  "ADDED a/p2,ADDED a/p1" },
		{ "/api/v1/namespaces/a/pods?timeoutSeconds=1"
		  "&labelSelector=app%21%3Dweb",
		  "ADDED a/p2,ADDED a/p1" },
		{ "/api/v1/namespaces/c/pods?timeoutSeconds=1"
		  "&labelSelector=app%3Dweb",
		  "" },
		{ "/api/v1/pods?timeoutSeconds=1&labelSelector=app%3Ddb",
		  "ADDED a/p2,ADDED a/p1" },
	};
	for (size_t i = 0; i < sizeof(sel) / sizeof(*sel); i++) {
		CHECK(watch(sel[i].q, NULL, 0, ev, sizeof(ev), NULL, &rc) ==
		      200);
		CHECK_STR(ev, sel[i].want);
	}
	/* ... carrying the state that matched (app=web), at the RV of the
	 * change, as the cacher sends it; not the new state (app=db) */
	struct mhd_reply r;
	CHECK(mhd_stub_get(srv.port,
			   "/api/v1/pods?resourceVersion=10&timeoutSeconds=1"
			   "&labelSelector=app%3Dweb",
			   &r) == 0);
	CHECK_STR(r.body,
		  "{\"type\":\"DELETED\",\"object\":{\"kind\":\"Pod\","
		  "\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"p1\","
		  "\"namespace\":\"a\",\"resourceVersion\":\"11\",\"labels\":"
		  "{\"app\":\"web\"}},\"spec\":{\"nodeName\":\"n1\"}}}\n"
		  "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\","
		  "\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"p4\","
		  "\"namespace\":\"a\",\"resourceVersion\":\"12\",\"labels\":"
		  "{\"app\":\"web\"}},\"spec\":{\"nodeName\":\"n1\"}}}\n");
	mhd_reply_free(&r);
	/* one object by name */
	CHECK(watch("/api/v1/namespaces/a/pods/p1?timeoutSeconds=1", NULL, 0,
		    ev, sizeof(ev), NULL, &rc) == 200);
	CHECK_STR(ev, "ADDED a/p1,MODIFIED a/p1");
	/* a watch-list with bookmarks ends its initial events with the
	 * marked bookmark at the snapshot's RV, which carries the empty
	 * list client-go's List() decodes; a 1 s watch gets no other */
	CHECK(mhd_stub_get(srv.port,
			   "/api/v1/namespaces/b/pods?timeoutSeconds=1"
			   "&sendInitialEvents=true&resourceVersionMatch="
			   "NotOlderThan&allowWatchBookmarks=true",
			   &r) == 0);
	events(r.body, ev, sizeof(ev));
	CHECK_STR(ev, "ADDED b/q1,BOOKMARK 10 end");
	CHECK(strstr(r.body,
		     "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\","
		     "\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":"
		     "\"10\",\"creationTimestamp\":null,\"annotations\":{"
		     "\"k8s.io/initial-events-end\":\"true\",\"kubernetes.io/"
		     "initial-events-list-blueprint\":\"eyJraW5kIjoiUG9kTGlzdCIsImFw"
		     "aVZlcnNpb24iOiJ2MSIsIm1ldGFkYXRhIjp7fSwiaXRlbXMiOm51bGx9Cg==\""
		     "}},\"spec\":{\"containers\":null},\"status\":{}}}\n") !=
	      NULL);
	mhd_reply_free(&r);
	check_released();
}

static void test_from_rv(void)
{
	char ev[512];
	int rc;
	CHECK(watch("/api/v1/pods?resourceVersion=10&timeoutSeconds=1", NULL, 0,
		    ev, sizeof(ev), NULL, &rc) == 200);
	CHECK_STR(ev, "MODIFIED a/p1,ADDED a/p4");
	CHECK(watch("/api/v1/pods?resourceVersion=11&timeoutSeconds=1", NULL, 0,
		    ev, sizeof(ev), NULL, &rc) == 200);
	CHECK_STR(ev, "ADDED a/p4");
	/* below the history's floor: 200, then a 410 ERROR event, at once */
	uint64_t expired = __atomic_load_n(
		&proxy_metrics_counters.watch_expired, __ATOMIC_RELAXED);
	struct mhd_reply r;
	CHECK(mhd_stub_get(srv.port, "/api/v1/pods?resourceVersion=5", &r) ==
	      0);
	CHECK(r.status == 200);
	CHECK_STR(
		r.body,
		"{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":"
		"\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":"
		"\"too old resource version: 5 (10)\",\"reason\":\"Expired\","
		"\"code\":410}}\n");
	mhd_reply_free(&r);
	CHECK(__atomic_load_n(&proxy_metrics_counters.watch_expired,
			      __ATOMIC_RELAXED) == expired + 1);
	/* a periodic bookmark once the upstream's progress passes ours (an
	 * interval of 1 s: a 2 s watch, too short for the pre-deadline one,
	 * sees one) */
	cache_history_set_progress(pods->history, 13);
	cfg.bookmark_interval = 1;
	CHECK(watch("/api/v1/pods?resourceVersion=12&timeoutSeconds=2&allowWatchBookmarks=1",
		    NULL, 0, ev, sizeof(ev), NULL, &rc) == 200);
	CHECK_STR(ev, "BOOKMARK 13");
	/* 2 s apart in a 5 s watch: the periodic one at 2 s, then, with the
	 * same RV again, the one 2 s before the deadline (the next periodic
	 * one would be due at the deadline) */
	cfg.bookmark_interval = 2;
	CHECK(watch("/api/v1/pods?resourceVersion=12&timeoutSeconds=5&allowWatchBookmarks=1",
		    NULL, 0, ev, sizeof(ev), NULL, &rc) == 200);
	CHECK_STR(ev, "BOOKMARK 13,BOOKMARK 13");
	cfg.bookmark_interval = 60;
	/* a minute apart, one bookmark still comes 2 s before the deadline,
	 * so the client resumes from the newest RV */
	int64_t ms;
	CHECK(watch("/api/v1/pods?resourceVersion=12&timeoutSeconds=4&allowWatchBookmarks=1",
		    NULL, 0, ev, sizeof(ev), &ms, &rc) == 200);
	CHECK_STR(ev, "BOOKMARK 13");
	CHECK(ms >= 3900);
	/* none when the RV never passed the watch's start */
	CHECK(watch("/api/v1/pods?resourceVersion=13&timeoutSeconds=3&allowWatchBookmarks=1",
		    NULL, 0, ev, sizeof(ev), NULL, &rc) == 200);
	CHECK_STR(ev, "");
	/* none without allowWatchBookmarks, though one is due in a watch's
	 * last second */
	CHECK(watch("/api/v1/pods?resourceVersion=12&timeoutSeconds=1", NULL, 0,
		    ev, sizeof(ev), NULL, &rc) == 200);
	CHECK_STR(ev, "");
	check_released();
}

/* timeoutSeconds past any range, negative or not a number: the default
 * (half an hour or more), so still open when the client gives up. */
static void test_timeouts(void)
{
	static const char *const odd[] = {
		"9223372036854775807",
		"99999999999999999999",
		"-9223372036854775808",
		"-1",
		"0",
		"abc",
		"",
	};
	char ev[512], path[200];
	int rc;
	for (size_t i = 0; i < sizeof(odd) / sizeof(*odd); i++) {
		snprintf(path, sizeof(path),
			 "/api/v1/namespaces/b/pods?timeoutSeconds=%s", odd[i]);
		int64_t ms;
		CHECK(watch(path, NULL, 300, ev, sizeof(ev), &ms, &rc) == 200);
		CHECK(rc == CURLE_OPERATION_TIMEDOUT);
		CHECK_STR(ev, "ADDED b/q1");
		CHECK(ms >= 250);
	}
	check_released();
}

static void test_refused(void)
{
	char ev[512];
	int rc;
	struct mhd_reply r;
	CHECK(mhd_stub_get(srv.port, "/api/v1/pods?resourceVersion=abc", &r) ==
	      0);
	/* the cacher parses it as a LIST does: 500 with no reason */
	CHECK(r.status == 500);
	CHECK_STR(r.body,
		  "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
		  "\"status\":\"Failure\",\"message\":\"resourceVersion: "
		  "Invalid value: \\\"abc\\\": strconv.ParseUint: parsing "
		  "\\\"abc\\\": invalid syntax\",\"code\":500}\n");
	mhd_reply_free(&r);
	CHECK(mhd_stub_get(
		      srv.port,
		      "/api/v1/pods?resourceVersion=10&resourceVersionMatch="
		      "NotOlderThan",
		      &r) == 0);
	CHECK(r.status == 422);
	CHECK(strstr(r.body, "\"reason\":\"Invalid\"") != NULL);
	mhd_reply_free(&r);
	/* sendInitialEvents without resourceVersionMatch=NotOlderThan: the
	 * apiserver's 422, a cause for each refusal, never a stream */
	CHECK(mhd_stub_get(srv.port, "/api/v1/pods?sendInitialEvents=true",
			   &r) == 0);
	CHECK(r.status == 422);
	CHECK_STR(
		r.body,
		"{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
		"\"status\":\"Failure\",\"message\":\"ListOptions.meta.k8s.io "
		"\\\"\\\" is invalid: resourceVersionMatch: Forbidden: "
		"sendInitialEvents requires setting resourceVersionMatch to "
		"NotOlderThan\",\"reason\":\"Invalid\",\"details\":{\"group\":"
		"\"meta.k8s.io\",\"kind\":\"ListOptions\",\"causes\":[{\"reason\":"
		"\"FieldValueForbidden\",\"message\":\"Forbidden: "
		"sendInitialEvents requires setting resourceVersionMatch to "
		"NotOlderThan\",\"field\":\"resourceVersionMatch\"}]},"
		"\"code\":422}\n");
	mhd_reply_free(&r);
	CHECK(mhd_stub_get(srv.port,
			   "/api/v1/pods?sendInitialEvents=false&"
			   "resourceVersionMatch=Exact&resourceVersion=10",
			   &r) == 0);
	CHECK(r.status == 422);
	CHECK(strstr(r.body,
		     "\"causes\":[{\"reason\":\"FieldValueForbidden\",") !=
	      NULL);
	CHECK(strstr(r.body,
		     "{\"reason\":\"FieldValueNotSupported\",\"message\":"
		     "\"Unsupported value: \\\"Exact\\\": supported values: "
		     "\\\"NotOlderThan\\\"\",\"field\":\"resourceVersionMatch\"}]") !=
	      NULL);
	mhd_reply_free(&r);
	CHECK(mhd_stub_get(srv.port, "/api/v1/pods?labelSelector=a%20in%20(",
			   &r) == 0);
	CHECK(r.status == 400);
	CHECK(strstr(r.body, "\"reason\":\"BadRequest\"") != NULL);
	mhd_reply_free(&r);
	const char *const xml[] = { "Accept: application/xml", NULL };
	CHECK(watch("/api/v1/pods", xml, 0, ev, sizeof(ev), NULL, &rc) == 406);
	check_released(); /* each refusal gave its slot back */

	/* past --max-watchers (2): 429 before anything else is looked at */
	uint64_t refused = __atomic_load_n(
		&proxy_metrics_counters.refused_watchers, __ATOMIC_RELAXED);
	CHECK(proxy_conns_watch_get(prx.conns) &&
	      proxy_conns_watch_get(prx.conns));
	CHECK(mhd_stub_get(srv.port, "/api/v1/pods?resourceVersion=abc", &r) ==
	      0);
	CHECK(r.status == 429);
	CHECK(strstr(r.body, "(more than 2 watches open).") != NULL);
	CHECK(strstr(r.body, "\"reason\":\"TooManyRequests\"") != NULL);
	char v[32];
	CHECK(mhd_reply_header(&r, "Retry-After", v, sizeof(v)));
	mhd_reply_free(&r);
	CHECK(__atomic_load_n(&proxy_metrics_counters.refused_watchers,
			      __ATOMIC_RELAXED) == refused + 1);
	CHECK(proxy_conns_watchers(prx.conns) == 2); /* the refusal took none */
	proxy_conns_watch_put(prx.conns);
	proxy_conns_watch_put(prx.conns);
	check_released();
}

/* A field selector follows the same rule: 14 moves a/p2 from node n1 to
 * n2; a watch of n1 sees it leave (its n1 state at 14), one of n2 sees
 * it come (its new state). */
static void test_field_selector(void)
{
	struct cache_obj *p2 = pod("a", "p2", "db", 6),
			 *p2n2 = pod_on("a", "p2", "db", 14, "n2");
	CHECK(cache_history_append(pods->history, CACHE_MODIFIED, 14, p2n2,
				   p2) == 0);
	cache_obj_put(p2);
	cache_obj_put(p2n2);
	struct mhd_reply r;
	CHECK(mhd_stub_get(srv.port,
			   "/api/v1/pods?resourceVersion=13&timeoutSeconds=1"
			   "&fieldSelector=spec.nodeName%3Dn1",
			   &r) == 0);
	CHECK_STR(r.body,
		  "{\"type\":\"DELETED\",\"object\":{\"kind\":\"Pod\","
		  "\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"p2\","
		  "\"namespace\":\"a\",\"resourceVersion\":\"14\",\"labels\":"
		  "{\"app\":\"db\"}},\"spec\":{\"nodeName\":\"n1\"}}}\n");
	mhd_reply_free(&r);
	CHECK(mhd_stub_get(srv.port,
			   "/api/v1/pods?resourceVersion=13&timeoutSeconds=1"
			   "&fieldSelector=spec.nodeName%3Dn2",
			   &r) == 0);
	CHECK_STR(r.body,
		  "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\","
		  "\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"p2\","
		  "\"namespace\":\"a\",\"resourceVersion\":\"14\",\"labels\":"
		  "{\"app\":\"db\"}},\"spec\":{\"nodeName\":\"n2\"}}}\n");
	mhd_reply_free(&r);
	check_released();
}

/* The history's event with RV rv, with a reference; NULL when none. */
static struct cache_event *event_at(uint64_t rv)
{
	uint64_t seq, floor;
	struct cache_event *ev = NULL;
	if (cache_history_start(pods->history, rv - 1, &seq, &floor) ||
	    cache_history_get(pods->history, seq, &ev))
		return NULL;
	if (ev->rv != rv) {
		cache_history_event_put(ev);
		return NULL;
	}
	return ev;
}

/* {"type":T,"object":PMO}\n of o at version v, as the apiserver's
 * metadata-only watch writes it (PMO from proxy_table_metadata_render(),
 * which test_table checks against the apiserver's). */
static void pmo_line(struct buf *b, const char *type, struct cache_obj *o,
		     const char *v)
{
	buf_printf(b, "{\"type\":\"%s\",\"object\":", type);
	CHECK(proxy_table_metadata_render(b, pods->kind, o, v) == 0);
	buf_adds(b, "}\n");
}

/*
 * A watch that an event takes out of its filter gets DELETED with the
 * state it last saw, at the event's RV (as the cacher sends it). That
 * copy is made once for every such watch and kept on the event: the same
 * bytes as made alone from the whole object.
 */
static void test_left_shared(void)
{
	struct cache_event *e11 = event_at(11);
	CHECK(e11 && e11->prev);
	if (!e11 || !e11->prev)
		return;
	struct cache_obj *alone = cache_obj_with_rv(e11->prev, 11, NULL);
	CHECK(alone && alone->rv == 11);
	if (!alone) {
		cache_history_event_put(e11);
		return;
	}
	struct buf want = BUF_INIT;
	buf_printf(&want, "{\"type\":\"DELETED\",\"object\":%.*s}\n",
		   (int)alone->len, alone->json);
	buf_addc(&want, '\0');
	/* hand-written too: a wrong copy in both would show */
	CHECK(want.p && strstr(want.p, "\"name\":\"p1\",\"namespace\":\"a\","
				       "\"resourceVersion\":\"11\",\"labels\":"
				       "{\"app\":\"web\"}"));
	const struct cache_obj *kept = NULL;
	for (int i = 0; i < 3; i++) {
		struct mhd_reply r;
		CHECK(mhd_stub_get(srv.port,
				   "/api/v1/pods?resourceVersion=10"
				   "&timeoutSeconds=1&labelSelector=app%3Dweb",
				   &r) == 0);
		CHECK(r.status == 200);
		/* p1 leaves at 11, then p4 comes */
		CHECK(r.body && want.p &&
		      !strncmp(r.body, want.p, strlen(want.p)) &&
		      strstr(r.body, "\"type\":\"ADDED\""));
		mhd_reply_free(&r);
		const struct cache_obj *now =
			__atomic_load_n(&e11->left, __ATOMIC_ACQUIRE);
		CHECK(now != NULL);
		if (!i)
			kept = now;
		CHECK(now == kept); /* made once, then read */
	}
	CHECK(kept && kept->rv == 11 && kept->len == alone->len &&
	      !memcmp(kept->json, alone->json, alone->len));
	buf_free(&want);
	cache_obj_put(alone);
	cache_history_event_put(e11);
	check_released();
}

/*
 * Metadata-only watches: an event that goes out as it is goes as its
 * line of PartialObjectMetadata made once (kept on the event) and copied
 * to each watcher; a line the filter turns into ADDED or DELETED, or of
 * v1beta1, is the watcher's own. Every line is the same bytes either way.
 */
static void test_metadata(void)
{
	static const char *const v1[] = {
		"Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
		NULL
	};
	static const char *const v1beta1[] = {
		"Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1",
		NULL
	};
	struct cache_event *e11 = event_at(11), *e12 = event_at(12),
			   *e14 = event_at(14);
	CHECK(e11 && e12 && e14);
	if (!e11 || !e12 || !e14)
		return;
	CHECK(!e11->meta && !e12->meta && !e14->meta);
	struct buf want = BUF_INIT;
	pmo_line(&want, "MODIFIED", e11->obj, "v1");
	pmo_line(&want, "ADDED", e12->obj, "v1");
	pmo_line(&want, "MODIFIED", e14->obj, "v1");
	buf_addc(&want, '\0');
	/* a hand-written line, so that a wrong renderer shows too */
	CHECK(want.p &&
	      strstr(want.p,
		     "{\"type\":\"ADDED\",\"object\":{\"kind\":"
		     "\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/v1\","
		     "\"metadata\":{\"name\":\"p4\",\"namespace\":\"a\","
		     "\"resourceVersion\":\"12\",\"labels\":{\"app\":\"web\"}}}}\n"));
	for (int i = 0; i < 2; i++) { /* the second from the kept lines */
		struct mhd_reply r;
		CHECK(mhd_stub_ask(
			      srv.port, "GET",
			      "/api/v1/pods?resourceVersion=10&timeoutSeconds=1",
			      v1, 0, &r) == 0);
		CHECK(r.status == 200);
		CHECK_STR(r.body, want.p);
		mhd_reply_free(&r);
		CHECK(e11->meta && e12->meta && e14->meta);
	}
	/* what is kept is the event's line */
	struct buf added = BUF_INIT;
	pmo_line(&added, "ADDED", e12->obj, "v1");
	CHECK(e12->meta && buf_ok(&added) && e12->meta->len == added.len &&
	      !memcmp(e12->meta->p, added.p, added.len));
	buf_free(&added);
	/* app=web: p1 leaves it at 11 (DELETED, its state before, at 11:
	 * the watcher's own line), p4 comes as it is (the kept line) */
	struct buf sel = BUF_INIT;
	struct cache_obj *gone = cache_obj_with_rv(e11->prev, 11, NULL);
	CHECK(gone != NULL);
	if (gone) {
		pmo_line(&sel, "DELETED", gone, "v1");
		cache_obj_put(gone);
	}
	pmo_line(&sel, "ADDED", e12->obj, "v1");
	buf_addc(&sel, '\0');
	struct mhd_reply r;
	CHECK(mhd_stub_ask(srv.port, "GET",
			   "/api/v1/pods?resourceVersion=10&timeoutSeconds=1"
			   "&labelSelector=app%3Dweb",
			   v1, 0, &r) == 0);
	CHECK_STR(r.body, sel.p);
	mhd_reply_free(&r);
	/* v1beta1: the watcher's own lines, of that version */
	struct buf beta = BUF_INIT;
	pmo_line(&beta, "MODIFIED", e11->obj, "v1beta1");
	pmo_line(&beta, "ADDED", e12->obj, "v1beta1");
	pmo_line(&beta, "MODIFIED", e14->obj, "v1beta1");
	buf_addc(&beta, '\0');
	CHECK(mhd_stub_ask(srv.port, "GET",
			   "/api/v1/pods?resourceVersion=10&timeoutSeconds=1",
			   v1beta1, 0, &r) == 0);
	CHECK_STR(r.body, beta.p);
	CHECK(strstr(r.body, "meta.k8s.io/v1beta1") != NULL);
	mhd_reply_free(&r);
	buf_free(&want);
	buf_free(&sel);
	buf_free(&beta);
	cache_history_event_put(e11);
	cache_history_event_put(e12);
	cache_history_event_put(e14);
	check_released();
}

int main(void)
{
	struct cache_upstream up = { .server = "http://127.0.0.1:1" };
	pthread_t th;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	pods = cache_resource_new(cache_kind_lookup("pods"), &up, 16);
	prx = (struct proxy){ .cfg = &cfg,
			      .res = &pods,
			      .nres = 1,
			      .conns = proxy_conns_new(&cfg, -1) };
	CHECK(pods && prx.conns);
	load();
	__atomic_store_n(&waking, true, __ATOMIC_RELEASE);
	CHECK(pthread_create(&th, NULL, waker, NULL) == 0);
	CHECK(mhd_stub_start(&srv, answer, NULL) == 0);
	test_initial();
	test_from_rv();
	test_timeouts();
	test_refused();
	test_field_selector();
	test_left_shared();
	test_metadata();
	__atomic_store_n(&prx.stopping, true, __ATOMIC_RELEASE);
	mhd_stub_stop(&srv);
	__atomic_store_n(&waking, false, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	proxy_conns_free(prx.conns);
	rcu_barrier();
	cache_resource_free(pods);
	rcu_barrier();
	curl_global_cleanup();
	return check_done("watch");
}
