/*
 * fake_control: the control API, on loopback only.
 *
 *   GET  /fake/stats   {"resources":{"pods":{"list":N,"watch":N,
 *                      "watchOpen":N,"requests":[{"verb":"list",
 *                      "namespace":"a","labelSelector":"x=y",
 *                      "fieldSelector":"..."},...]},...},
 *                      "compactedRV":N,
 *                      "tokenReviews":N,"subjectAccessReviews":N}:
 *                      requests received since start, watch streams
 *                      open now, the last LISTs and WATCHes of each
 *                      resource with their scope (a member is left out
 *                      when the request had none), etcd's compaction
 *                      point (0: none yet)
 *                      and the TokenReviews and SubjectAccessReviews
 *                      answered.
 *   POST /fake/faults  a JSON object of faults (the table below); every
 *                      field is checked before any applies, an unknown
 *                      one is a 400. {} clears the standing faults.
 *   GET  /fake/faults  the standing faults.
 *
 * Faults are a table: a name, a check of the value and an action, so a
 * new fault is one entry.
 */
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config/log.h"
#include "fake_auth.h"
#include "fake_http.h"
#include "fake_res.h"
#include "fake_store.h"

/* Standing faults; atomics, read on every request. */
static struct {
	long fail_count;
	int fail_code;
	int fail_retry; /* -1: no Retry-After */
	long latency_ms;
	long long cut_after; /* -1: none */
	long malformed;
	long watch_delay_ms;
} ft = { 0, 0, -1, 0, -1, 0, 0 };

void fake_faults_reset(void)
{
	__atomic_store_n(&ft.fail_count, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&ft.latency_ms, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&ft.cut_after, -1, __ATOMIC_RELAXED);
	__atomic_store_n(&ft.malformed, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&ft.watch_delay_ms, 0, __ATOMIC_RELAXED);
}

long fake_faults_watch_delay_ms(void)
{
	return __atomic_load_n(&ft.watch_delay_ms, __ATOMIC_RELAXED);
}

/* Take one unit from a counter that is > 0. */
static bool take(long *c)
{
	long v = __atomic_load_n(c, __ATOMIC_RELAXED);
	while (v > 0)
		if (__atomic_compare_exchange_n(c, &v, v - 1, false,
						__ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			return true;
	return false;
}

bool fake_faults_take_malformed(void)
{
	return take(&ft.malformed);
}

long long fake_faults_take_cut(void)
{
	if (__atomic_load_n(&ft.cut_after, __ATOMIC_RELAXED) < 0)
		return -1;
	return __atomic_exchange_n(&ft.cut_after, -1, __ATOMIC_ACQ_REL);
}

static const char *reason_of(int code)
{
	switch (code) {
	case 429:
		return "TooManyRequests";
	case 500:
		return "InternalError";
	case 503:
		return "ServiceUnavailable";
	case 504:
		return "Timeout";
	case 401:
		return "Unauthorized";
	case 403:
		return "Forbidden";
	case 404:
		return "NotFound";
	case 409:
		return "Conflict";
	case 410:
		return "Expired";
	default:
		return code >= 500 ? "InternalError" : "BadRequest";
	}
}

bool fake_faults_intercept(struct MHD_Connection *c, enum MHD_Result *ret)
{
	long ms = __atomic_load_n(&ft.latency_ms, __ATOMIC_RELAXED);
	if (ms > 0) {
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
		nanosleep(&ts, NULL);
	}
	if (!take(&ft.fail_count))
		return false;
	int code = __atomic_load_n(&ft.fail_code, __ATOMIC_RELAXED);
	int retry = __atomic_load_n(&ft.fail_retry, __ATOMIC_RELAXED);
	struct buf b = BUF_INIT, d = BUF_INIT;
	const char *msg =
		code == 429 ? "Too many requests, please try again "
			      "later." :
		code == 503 ? "the server is currently unable to "
			      "handle the request" :
			      "Internal error occurred: injected fault";
	if (retry >= 0)
		buf_printf(&d, "{\"retryAfterSeconds\":%d}", retry);
	fake_status_json(&b, (unsigned)code, reason_of(code),
			 retry >= 0 ? d.p : NULL, msg);
	buf_addc(&b, '\n');
	buf_free(&d);
	*ret = fake_reply_retry(c, (unsigned)code, &b, retry);
	return true;
}

/* --- the fault table -------------------------------------------------- */

static bool check_true(json_t *v)
{
	return json_is_boolean(v);
}

static bool check_count(json_t *v)
{
	return json_is_integer(v) && json_integer_value(v) >= 0;
}

static bool check_fail(json_t *v)
{
	json_t *n = json_object_get(v, "count"),
	       *code = json_object_get(v, "code");
	json_t *ra = json_object_get(v, "retryAfter");
	return json_is_object(v) && check_count(n) &&
	       (!code ||
		(json_is_integer(code) && json_integer_value(code) >= 400 &&
		 json_integer_value(code) <= 599)) &&
	       (!ra || check_count(ra));
}

static void do_drop(json_t *v)
{
	if (json_is_true(v))
		fake_store_drop_watches();
}

static void do_compact(json_t *v)
{
	if (!json_is_true(v))
		return;
	fake_store_wrlock();
	fake_store_compact();
	fake_store_wrunlock();
}

static void do_wipe(json_t *v)
{
	if (!json_is_true(v))
		return;
	fake_store_wrlock();
	fake_store_wipe();
	fake_store_wrunlock();
	fake_store_drop_watches();
}

static void do_fail(json_t *v)
{
	json_t *code = json_object_get(v, "code"),
	       *ra = json_object_get(v, "retryAfter");
	__atomic_store_n(&ft.fail_code,
			 code ? (int)json_integer_value(code) : 500,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&ft.fail_retry, ra ? (int)json_integer_value(ra) : -1,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&ft.fail_count,
			 (long)json_integer_value(json_object_get(v, "count")),
			 __ATOMIC_RELEASE);
}

static void do_latency(json_t *v)
{
	__atomic_store_n(&ft.latency_ms, (long)json_integer_value(v),
			 __ATOMIC_RELAXED);
}

static void do_cut(json_t *v)
{
	__atomic_store_n(&ft.cut_after, (long long)json_integer_value(v),
			 __ATOMIC_RELAXED);
}

static void do_malformed(json_t *v)
{
	__atomic_store_n(&ft.malformed, (long)json_integer_value(v),
			 __ATOMIC_RELAXED);
}

static void do_watch_delay(json_t *v)
{
	__atomic_store_n(&ft.watch_delay_ms, (long)json_integer_value(v),
			 __ATOMIC_RELAXED);
}

static const struct fault {
	const char *name;
	bool (*check)(json_t *v);
	void (*apply)(json_t *v);
	const char *expect; /* for the 400 message */
} faults[] = {
	{ "wipe", check_true, do_wipe, "a boolean" },
	{ "compact", check_true, do_compact, "a boolean" },
	{ "dropWatches", check_true, do_drop, "a boolean" },
	{ "failNext", check_fail, do_fail,
	  "{\"count\": N, \"code\": 400-599, \"retryAfter\": S}" },
	{ "latencyMs", check_count, do_latency, "a non-negative integer" },
	{ "cutAfterBytes", check_count, do_cut, "a non-negative integer" },
	{ "malformedNext", check_count, do_malformed,
	  "a non-negative integer" },
	{ "watchDelayMs", check_count, do_watch_delay,
	  "a non-negative integer" },
};
#define NFAULTS (sizeof(faults) / sizeof(faults[0]))

static const struct fault *fault_find(const char *name)
{
	for (size_t i = 0; i < NFAULTS; i++)
		if (strcmp(faults[i].name, name) == 0)
			return &faults[i];
	return NULL;
}

/* Control replies bypass the standing faults (no cut, no failure). */
static enum MHD_Result reply_plain(struct MHD_Connection *c, unsigned code,
				   struct buf *b)
{
	size_t len = 0;
	char *p = buf_steal(b, &len);
	if (!p)
		return MHD_NO;
	struct MHD_Response *r =
		MHD_create_response_from_buffer(len, p, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(p);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", "application/json");
	enum MHD_Result ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result reply_error(struct MHD_Connection *c, unsigned code,
				   const char *reason, const char *msg)
{
	struct buf b = BUF_INIT;
	fake_status_json(&b, code, reason, NULL, msg);
	buf_addc(&b, '\n');
	return reply_plain(c, code, &b);
}

/* The last LISTs and WATCHes of each resource: what tests check to
 * prove that the proxy asked only for its scope. */
static struct seen {
	bool watch;
	char *ns, *ls, *fs;
} seen[FAKE_RES_MAX][FAKE_SEEN_MAX];
static unsigned seen_n[FAKE_RES_MAX];
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

void fake_control_note(int res, bool watch, const char *ns, const char *ls,
		       const char *fs)
{
	if (res < 0 || res >= FAKE_RES_MAX)
		return;
	pthread_mutex_lock(&seen_lock);
	struct seen *s = &seen[res][seen_n[res]++ % FAKE_SEEN_MAX];
	free(s->ns);
	free(s->ls);
	free(s->fs);
	s->watch = watch;
	s->ns = dup_or_null(ns);
	s->ls = dup_or_null(ls);
	s->fs = dup_or_null(fs);
	pthread_mutex_unlock(&seen_lock);
}

/* ,"requests":[...] of resource res, oldest first. */
static void seen_json(struct buf *b, int res)
{
	json_t *a = json_array();
	pthread_mutex_lock(&seen_lock);
	unsigned n = seen_n[res],
		 first = n > FAKE_SEEN_MAX ? n - FAKE_SEEN_MAX : 0;
	for (unsigned i = first; a && i < n; i++) {
		const struct seen *s = &seen[res][i % FAKE_SEEN_MAX];
		json_t *o =
			json_pack("{s:s}", "verb", s->watch ? "watch" : "list");
		if (o && s->ns)
			json_object_set_new(o, "namespace", json_string(s->ns));
		if (o && s->ls)
			json_object_set_new(o, "labelSelector",
					    json_string(s->ls));
		if (o && s->fs)
			json_object_set_new(o, "fieldSelector",
					    json_string(s->fs));
		json_array_append_new(a, o);
	}
	pthread_mutex_unlock(&seen_lock);
	char *t = a ? json_dumps(a, JSON_COMPACT) : NULL;
	buf_printf(b, ",\"requests\":%s", t ? t : "[]");
	free(t);
	json_decref(a);
}

static enum MHD_Result serve_stats(struct MHD_Connection *c)
{
	struct buf b = BUF_INIT;
	buf_adds(&b, "{\"resources\":{");
	for (int i = 0; i < fake_nres; i++) {
		const struct fake_res_stats *s = &fake_res_stats[i];
		buf_printf(&b,
			   "%s\"%s\":{\"list\":%lu,\"watch\":%lu,"
			   "\"watchOpen\":%ld",
			   i ? "," : "", fake_res_table[i].key,
			   __atomic_load_n(&s->list, __ATOMIC_RELAXED),
			   __atomic_load_n(&s->watch, __ATOMIC_RELAXED),
			   __atomic_load_n(&s->watch_open, __ATOMIC_RELAXED));
		seen_json(&b, i);
		buf_addc(&b, '}');
	}
	/* etcd's compaction point (fake_store.h), 0 before the first;
	 * the reviews answered (fake_review.c) */
	buf_printf(&b,
		   "},\"compactedRV\":%llu,\"tokenReviews\":%lu,"
		   "\"subjectAccessReviews\":%lu}\n",
		   (unsigned long long)fake_store_compacted(),
		   fake_review_token_count(), fake_review_sar_count());
	return reply_plain(c, 200, &b);
}

static enum MHD_Result serve_standing(struct MHD_Connection *c)
{
	struct buf b = BUF_INIT;
	buf_printf(
		&b,
		"{\"failNext\":{\"count\":%ld,\"code\":%d,\"retryAfter\":%d},"
		"\"latencyMs\":%ld,\"cutAfterBytes\":%lld,"
		"\"malformedNext\":%ld,\"watchDelayMs\":%ld}\n",
		__atomic_load_n(&ft.fail_count, __ATOMIC_RELAXED),
		__atomic_load_n(&ft.fail_code, __ATOMIC_RELAXED),
		__atomic_load_n(&ft.fail_retry, __ATOMIC_RELAXED),
		__atomic_load_n(&ft.latency_ms, __ATOMIC_RELAXED),
		__atomic_load_n(&ft.cut_after, __ATOMIC_RELAXED),
		__atomic_load_n(&ft.malformed, __ATOMIC_RELAXED),
		__atomic_load_n(&ft.watch_delay_ms, __ATOMIC_RELAXED));
	return reply_plain(c, 200, &b);
}

static enum MHD_Result serve_faults(struct fake_req *rq)
{
	json_error_t je;
	json_t *j =
		json_loadb(rq->body.p ? rq->body.p : "", rq->body.len, 0, &je);
	const char *k;
	json_t *v;
	char msg[300];

	if (!json_is_object(j)) {
		snprintf(msg, sizeof(msg), "the body must be a JSON object: %s",
			 j ? "not an object" : je.text);
		json_decref(j);
		return reply_error(rq->conn, 400, "BadRequest", msg);
	}
	json_object_foreach(j, k, v)
	{
		const struct fault *f = fault_find(k);
		if (!f || !f->check(v)) {
			snprintf(msg, sizeof(msg),
				 f ? "fault %s: expected %s" :
				     "unknown fault field: %s%s",
				 k, f ? f->expect : "");
			json_decref(j);
			return reply_error(rq->conn, 400, "BadRequest", msg);
		}
	}
	if (json_object_size(j) == 0)
		fake_faults_reset();
	/* in table order: wipe before compact before dropping watches */
	for (size_t i = 0; i < NFAULTS; i++)
		if ((v = json_object_get(j, faults[i].name))) {
			log_info("fault: %s", faults[i].name);
			faults[i].apply(v);
		}
	json_decref(j);
	return serve_standing(rq->conn);
}

enum MHD_Result fake_control_serve(struct fake_req *rq, const char *path)
{
	bool get = strcmp(rq->method, "GET") == 0;
	bool post = strcmp(rq->method, "POST") == 0;

	if (strcmp(path, "/fake/stats") == 0 && get)
		return serve_stats(rq->conn);
	if (strcmp(path, "/fake/faults") == 0 && post)
		return serve_faults(rq);
	if (strcmp(path, "/fake/faults") == 0 && get)
		return serve_standing(rq->conn);
	if (strcmp(path, "/fake/stats") == 0 ||
	    strcmp(path, "/fake/faults") == 0)
		return reply_error(rq->conn, 405, "MethodNotAllowed",
				   "the server does not allow this method on "
				   "the requested resource");
	return reply_error(rq->conn, 404, "NotFound",
			   "the server could not find the requested resource");
}
