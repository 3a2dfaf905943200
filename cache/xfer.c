/*
 * xfer: one upstream GET of a reflector (see xfer.h).
 */
#include "cache/xfer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cache/ratelimit.h"
#include "config/log.h"

#define STALL_DEFAULT_S 90
#define TICK_MS 1000
/* What one read from the socket may bring, and so one body callback: a
 * watch that fell behind (its upstream sent several events while this
 * thread waited for a core) applies them as one chunk, one store commit
 * and one wake of the local watchers, instead of one per 16 KiB,
 * libcurl's default. Set once, before the first transfer. */
#define RECV_BUFFER (64 * 1024)

static long stall_seconds(const struct cache_resource *r)
{
	return r->up.stall_seconds > 0 ? r->up.stall_seconds : STALL_DEFAULT_S;
}

int cache_xfer_conn_open(struct cache_xfer_conn *conn, struct cache_resource *r,
			 char *err, size_t errlen)
{
	conn->multi = NULL;
	conn->easy = cache_upstream_easy(&r->up, err, errlen);
	if (!conn->easy)
		return -ENOMEM;
	conn->multi = curl_multi_init();
	if (!conn->multi) {
		snprintf(err, errlen, "out of memory");
		cache_xfer_conn_close(conn);
		return -ENOMEM;
	}
	curl_easy_setopt(conn->easy, CURLOPT_BUFFERSIZE, (long)RECV_BUFFER);
	cache_xfer_conn_list_rules(conn, r);
	return 0;
}

void cache_xfer_conn_close(struct cache_xfer_conn *conn)
{
	if (conn->multi)
		curl_multi_cleanup(conn->multi);
	if (conn->easy)
		curl_easy_cleanup(conn->easy);
	conn->multi = NULL;
	conn->easy = NULL;
}

void cache_xfer_conn_wake(struct cache_xfer_conn *conn)
{
	if (conn && conn->multi)
		curl_multi_wakeup(conn->multi);
}

void cache_xfer_conn_list_rules(struct cache_xfer_conn *conn,
				struct cache_resource *r)
{
	curl_easy_setopt(conn->easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(conn->easy, CURLOPT_LOW_SPEED_TIME, stall_seconds(r));
	curl_easy_setopt(conn->easy, CURLOPT_TIMEOUT_MS, 0L);
}

/* Whether x must end now: its resource stops, its caller cancelled it,
 * or it is a watch whose upstream sends BOOKMARKs and that has been
 * silent past the stall timeout (a silent partition; any other silence
 * is normal). The stall rule is looked up each time, so it holds from a
 * resource's first BOOKMARK on, in the watch that brought it. */
static bool must_end(struct cache_xfer *x)
{
	struct cache_resource *r = x->r;
	if (cache_resource_stopping(r) ||
	    __atomic_load_n(&x->cancel, __ATOMIC_ACQUIRE))
		return true; /* a dropped page may wait for its first byte */
	if (!x->watch || !__atomic_load_n(&r->bookmarks_seen, __ATOMIC_RELAXED))
		return false;
	int64_t last = x->last_byte_ms ? x->last_byte_ms : x->opened_ms;
	if (last && cache_rvclock_now_ms() - last > stall_seconds(r) * 1000L) {
		x->stalled = true;
		return true;
	}
	return false;
}

static size_t on_header(char *p, size_t size, size_t n, void *cls)
{
	struct cache_xfer *x = cls;
	size_t len = size * n;
	if (len > 12 && !strncasecmp(p, "retry-after:", 12))
		x->retry_after = atoi(p + 12);
	else if (len > 5 && !strncmp(p, "HTTP/", 5))
		x->opened_ms = cache_rvclock_now_ms();
	else if (len <= 2 && x->watch) {
		/* The end of the headers: a watch the upstream accepted is an
		 * upstream that answers, even if no event comes for minutes. */
		long code = 0;
		curl_easy_getinfo(x->c, CURLINFO_RESPONSE_CODE, &code);
		if (code == 200) {
			cache_resource_mark_healthy(x->r);
			cache_resource_retry_over(x->r);
		}
	}
	return len;
}

static size_t on_body(char *data, size_t size, size_t n, void *p)
{
	struct cache_xfer *x = p;
	size_t len = size * n;
	cache_resource_touch(x->r);
	x->last_byte_ms = cache_rvclock_now_ms();
	long code = 0;
	curl_easy_getinfo(x->c, CURLINFO_RESPONSE_CODE, &code);
	if (code == 200)
		return x->on_data(x, data, len);
	/* a Status, kept for the log */
	if (x->body.len < 64 * 1024)
		buf_add(&x->body, data, len);
	return len;
}

/*
 * Run the transfer on conn's multi handle until it ends. The wait polls
 * the resource's stop pipe too, and curl_multi_wakeup (a cancel) ends it
 * early, so a stop or a cancel ends the transfer at once, not at
 * libcurl's next once-a-second tick. A transfer ended this way reports
 * CURLE_ABORTED_BY_CALLBACK; its connection is closed, not reused.
 */
static CURLcode perform(struct cache_xfer *x, struct cache_xfer_conn *conn)
{
	CURLM *m = conn->multi;
	CURLcode rc = CURLE_ABORTED_BY_CALLBACK;
	if (curl_multi_add_handle(m, conn->easy))
		return CURLE_OUT_OF_MEMORY;
	for (;;) {
		int running = 0, left;
		if (must_end(x))
			break;
		if (curl_multi_perform(m, &running)) {
			rc = CURLE_OUT_OF_MEMORY;
			break;
		}
		CURLMsg *msg = curl_multi_info_read(m, &left);
		if (msg && msg->msg == CURLMSG_DONE) {
			rc = msg->data.result;
			break;
		}
		if (!running) {
			rc = CURLE_RECV_ERROR; /* ended without a verdict */
			break;
		}
		/* the tick bounds how late a stall is seen (in seconds) */
		struct curl_waitfd stop = { .fd = x->r->wake[0],
					    .events = CURL_WAIT_POLLIN };
		if (curl_multi_poll(m, &stop, 1, TICK_MS, NULL)) {
			rc = CURLE_OUT_OF_MEMORY;
			break;
		}
	}
	curl_multi_remove_handle(m, conn->easy);
	return rc;
}

/* A request that failed for the transport: with its URL and how many
 * tries failed before, folded per resource, verb and error, so that an
 * upstream down for a minute is one line a minute, not one a retry. */
static void warn_failed(struct cache_xfer *x, CURLcode rc)
{
	struct cache_resource *r = x->r;
	const char *verb = x->watch ? "watch" : "list";
	const char *url = NULL;
	char safe[1024] = "", why[48], line[256];
	curl_easy_getinfo(x->c, CURLINFO_EFFECTIVE_URL, &url);
	if (url)
		log_redact_url(url, safe, sizeof(safe));
	snprintf(why, sizeof(why), "%s curl %d", verb, (int)rc);
	snprintf(line, sizeof(line), "%s: %s: %s", r->kind->resource, verb,
		 curl_easy_strerror(rc));
	cache_resource_retry_log(
		r, why,
		LOG_FIELDS(
			LOG_STR("resource", r->kind->resource),
			LOG_STR("verb", verb),
			LOG_STR("url", url ? safe : NULL),
			LOG_INT("attempt",
				__atomic_load_n(&r->attempt, __ATOMIC_RELAXED) +
					1),
			LOG_STR("error", curl_easy_strerror(rc))),
		line);
}

/* Record and log how a transfer that reached the upstream ended. */
static long finish(struct cache_xfer *x, CURLcode rc)
{
	struct cache_resource *r = x->r;
	long code = 0;
	curl_easy_getinfo(x->c, CURLINFO_RESPONSE_CODE, &code);
	if (!x->watch) {
		double took = 0;
		curl_easy_getinfo(x->c, CURLINFO_TOTAL_TIME, &took);
		cache_upstream_observe(CONFIG_VERB_LIST,
				       rc == CURLE_OK ? code : -1, took);
	}
	/* what main reads to explain a resource that never syncs, and the
	 * errors metric's reason: a stalled watch timed out */
	__atomic_store_n(&r->last_curl_error,
			 (int)(x->stalled ? CURLE_OPERATION_TIMEDOUT : rc),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&r->last_http_status, code, __ATOMIC_RELAXED);
	if (rc == CURLE_OK) {
		if (code == 200) {
			cache_resource_mark_healthy(r);
			cache_resource_retry_over(r);
		}
		return code;
	}
	if (x->stalled)
		log_warn("%s: watch: no byte for %ld s from an upstream that "
			 "sends BOOKMARKs: reconnecting",
			 r->kind->resource, stall_seconds(r));
	else if (!cache_resource_stopping(r) && !x->ended)
		warn_failed(x, rc);
	return -1;
}

long cache_xfer_get(struct cache_xfer *x, struct cache_xfer_conn *conn,
		    const char *url)
{
	struct cache_resource *r = x->r;
	CURL *c = conn->easy;
	char err[256];
	struct curl_slist *hdrs = NULL;
	x->c = c;
	x->retry_after = 0;
	/* One LIST costs one token: its pages follow one another at the
	 * upstream's pace (at most one fetched ahead), and metering each
	 * held a 100k-object LIST's 200 pages to --upstream-qps (50/s, 4 s
	 * past the burst). The bucket is against storms of requests, so a
	 * page after a small one pays (lister.h). */
	if (!x->continued && !cache_ratelimit_take(r->up.limit, &r->stop))
		return -1;
	if (cache_upstream_prepare(&r->up, c, true, &hdrs, err, sizeof(err))) {
		log_error("%s: %s", r->kind->resource, err);
		curl_slist_free_all(hdrs);
		return -1;
	}
	struct curl_slist *h =
		curl_slist_append(hdrs, "Accept: application/json");
	if (!h) {
		curl_slist_free_all(hdrs);
		return -1;
	}
	hdrs = h;
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, x);
	CURLcode rc = perform(x, conn);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, NULL);
	curl_slist_free_all(hdrs);
	if (__atomic_load_n(&x->cancel, __ATOMIC_ACQUIRE))
		return -1; /* dropped by its caller: nothing to tell */
	return finish(x, rc);
}
