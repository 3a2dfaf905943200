/*
 * resource: one cached resource's state, its counters and its stop
 * signal (see resource.h and resource_int.h).
 */
#include "cache/resource.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "cache/resource_int.h"
#include "cache/shape.h"
#include "config/alloc.h"
#include "config/limits.h"
#include "config/log.h"

const char *cache_resource_relist_reason_name(int reason)
{
	static const char *const names[REFL_RELIST_NREASONS] = {
		[REFL_RELIST_EXPIRED] = "expired",
		[REFL_RELIST_BROKEN] = "broken",
		[REFL_RELIST_BACKWARDS] = "backwards",
	};
	return reason >= 0 && reason < REFL_RELIST_NREASONS ? names[reason] :
							      "";
}

const char *cache_resource_error_name(int reason)
{
	static const char *const names[CACHE_ERROR_NREASONS] = {
		[CACHE_ERROR_TIMEOUT] = "timeout",
		[CACHE_ERROR_CONNECT] = "connect",
		[CACHE_ERROR_TLS] = "tls",
		[CACHE_ERROR_HTTP] = "http",
		[CACHE_ERROR_INVALID] = "invalid",
		[CACHE_ERROR_OTHER] = "other",
	};
	return reason >= 0 && reason < CACHE_ERROR_NREASONS ? names[reason] :
							      "other";
}

int cache_resource_error_reason(int curl_rc, long code)
{
	switch ((CURLcode)curl_rc) {
	case CURLE_OK:
		return code == 200 ? CACHE_ERROR_INVALID : CACHE_ERROR_HTTP;
	case CURLE_OPERATION_TIMEDOUT:
		return CACHE_ERROR_TIMEOUT;
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_CONNECT:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_WEIRD_SERVER_REPLY:
		return CACHE_ERROR_CONNECT;
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_ENGINE_NOTFOUND:
	case CURLE_SSL_ENGINE_SETFAILED:
	case CURLE_SSL_SHUTDOWN_FAILED:
	case CURLE_SSL_CRL_BADFILE:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_SSL_INVALIDCERTSTATUS:
	case CURLE_USE_SSL_FAILED:
		return CACHE_ERROR_TLS;
	default:
		return CACHE_ERROR_OTHER;
	}
}

void cache_resource_count_error(struct cache_resource *r)
{
	int rc = __atomic_load_n(&r->last_curl_error, __ATOMIC_RELAXED);
	long code = __atomic_load_n(&r->last_http_status, __ATOMIC_RELAXED);
	int why = cache_resource_error_reason(rc, code);
	cache_resource_stat_inc(&r->stats.errors);
	cache_resource_stat_inc(
		&r->stats.errors_by[why][config_histogram_code_slot(code)]);
}

struct cache_resource *cache_resource_new(const struct cache_kind *kind,
					  const struct cache_upstream *up,
					  size_t history)
{
	struct cache_resource *r = xcalloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->kind = kind;
	r->up = *up;
	r->wake[0] = r->wake[1] = -1;
	r->clock = cache_rvclock_for_group(kind->group);
	r->store = cache_store_new();
	r->history = cache_history_new(history, 0);
	r->shape = cache_shape_new(kind);
	if (!r->store || !r->history || !r->shape ||
	    pipe2(r->wake, O_CLOEXEC | O_NONBLOCK)) {
		cache_resource_free(r);
		return NULL;
	}
	return r;
}

void cache_resource_set_scope(struct cache_resource *r, struct cache_scope *s)
{
	cache_scope_free(&r->scope);
	r->scope = *s;
	memset(s, 0, sizeof(*s));
	if (r->scope.strip_managed)
		r->up.strip_managed_fields = true;
}

void cache_resource_ask_stop(struct cache_resource *r)
{
	if (!r || __atomic_exchange_n(&r->stop, true, __ATOMIC_ACQ_REL))
		return;
	/* one byte, never read: wake[0] stays readable for every poll */
	ssize_t n = write(r->wake[1], "", 1);
	(void)n; /* a full pipe is readable already */
}

bool cache_resource_sleep(struct cache_resource *r, long ms)
{
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!cache_resource_stopping(r)) {
		struct timespec t;
		clock_gettime(CLOCK_MONOTONIC, &t);
		long left = ms - ((t.tv_sec - t0.tv_sec) * 1000L +
				  (t.tv_nsec - t0.tv_nsec) / 1000000L);
		if (left <= 0)
			return true;
		struct pollfd p = { .fd = r->wake[0], .events = POLLIN };
		if (poll(&p, 1, (int)(left < 60000 ? left : 60000)) < 0 &&
		    errno != EINTR)
			return !cache_resource_stopping(r);
	}
	return false;
}

void cache_resource_free(struct cache_resource *r)
{
	if (!r)
		return;
	cache_store_free(r->store);
	cache_history_free(r->history);
	cache_scope_free(&r->scope);
	cache_shape_free(r->shape);
	for (int i = 0; i < 2; i++)
		if (r->wake[i] >= 0)
			close(r->wake[i]);
	free(r);
}

size_t cache_resource_page_max(const struct cache_resource *r)
{
	return r->up.page_max ? r->up.page_max : LIMIT_UPSTREAM_PAGE_BYTES;
}

size_t cache_resource_line_max(const struct cache_resource *r)
{
	return r->up.line_max ? r->up.line_max : LIMIT_UPSTREAM_LINE_BYTES;
}

size_t cache_resource_list_max(const struct cache_resource *r)
{
	return r->up.list_max ? r->up.list_max : LIMIT_UPSTREAM_LIST_BYTES;
}

void cache_resource_stat_inc(uint64_t *s)
{
	__atomic_add_fetch(s, 1, __ATOMIC_RELAXED);
}

void cache_resource_mark_healthy(struct cache_resource *r)
{
	__atomic_store_n(&r->failing_since, (int64_t)0, __ATOMIC_RELAXED);
}

void cache_resource_mark_failing(struct cache_resource *r)
{
	int64_t zero = 0;
	__atomic_compare_exchange_n(&r->failing_since, &zero,
				    (int64_t)time(NULL), false,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

void cache_resource_touch(struct cache_resource *r)
{
	__atomic_store_n(&r->last_contact, (int64_t)time(NULL),
			 __ATOMIC_RELAXED);
}

void cache_resource_tell_progress(struct cache_resource *r)
{
	void *ctx = __atomic_load_n(&r->on_progress_ctx, __ATOMIC_ACQUIRE);
	if (ctx)
		r->on_progress(ctx, r);
}

/* Printable text of string token i (or "?"), at most cap - 1 bytes: a
 * hostile name must not forge or flood a log line. */
static void printable(const struct json_doc *d, int i, char *out, size_t cap)
{
	size_t n, w = 0;
	if (i < 0 || json_type(d, i) != JSMN_STRING) {
		snprintf(out, cap, "?");
		return;
	}
	const char *s = json_raw(d, i, &n);
	for (size_t k = 0; k < n && w + 1 < cap; k++)
		out[w++] = s[k] >= 0x20 && s[k] < 0x7f ? s[k] : '?';
	if (w + 1 == cap && n > w)
		out[w - 1] = '~'; /* cut */
	out[w] = '\0';
}

void cache_resource_reject(struct cache_resource *r, const char *what,
			   const struct json_doc *d, int root, int why,
			   const char *err, unsigned *logged)
{
	cache_resource_stat_inc(&r->stats.rejected_by[why]);
	if (logged && __atomic_fetch_add(logged, 1, __ATOMIC_RELAXED) >= 10)
		return;
	char ns[96], name[160];
	int meta = json_type(d, root) == JSMN_OBJECT ?
			   json_get(d, root, "metadata") :
			   -1;
	printable(d, meta >= 0 ? json_get(d, meta, "namespace") : -1, ns,
		  sizeof(ns));
	printable(d, meta >= 0 ? json_get(d, meta, "name") : -1, name,
		  sizeof(name));
	log_warn("%s: %s: skipping object %s/%s (%s): %s", r->kind->resource,
		 what, ns, name, cache_obj_reject_name(why), err);
}

/* The fold key of r's retry warnings about why into key; why "" gives
 * the prefix of them all. */
static void retry_key(const struct cache_resource *r, const char *why,
		      char *key, size_t len)
{
	snprintf(key, len, "upstream %p %s", (const void *)r, why);
}

void cache_resource_retry_log(struct cache_resource *r, const char *why,
			      const struct log_field *fields, const char *msg)
{
	char key[160];
	int v = r->quiet_start && !cache_resource_synced(r) ? 1 : 0;
	retry_key(r, why, key, sizeof(key));
	if (!v)
		__atomic_store_n(&r->warned, true, __ATOMIC_RELAXED);
	log_kv(v, v ? "debug" : "warning", v ? NULL : key, fields, "%s", msg);
}

void cache_resource_retry_over(struct cache_resource *r)
{
	char key[64];
	if (!__atomic_exchange_n(&r->warned, false, __ATOMIC_RELAXED))
		return;
	retry_key(r, "", key, sizeof(key));
	log_fold_close(key);
}

void cache_resource_log_status(struct cache_resource *r, const char *what,
			       long code, const struct buf *body)
{
	struct json_doc d = JSON_DOC_INIT;
	char msg[256] = "", reason[64] = "";
	if (body->len && !json_parse(&d, body->p, body->len, NULL, 0)) {
		int m = json_get(&d, 0, "message");
		if (m > 0)
			json_str(&d, m, msg, sizeof(msg));
		m = json_get(&d, 0, "reason");
		if (m > 0)
			json_str(&d, m, reason, sizeof(reason));
	}
	json_doc_free(&d);
	char why[48], line[512];
	snprintf(why, sizeof(why), "%s %ld", what, code);
	snprintf(line, sizeof(line), "%s: %s: upstream answered %ld%s%s",
		 r->kind->resource, what, code, msg[0] ? ": " : "", msg);
	cache_resource_retry_log(
		r, why,
		LOG_FIELDS(
			LOG_STR("resource", r->kind->resource),
			LOG_STR("verb", what), LOG_INT("code", code),
			LOG_STR("reason", reason[0] ? reason : NULL),
			LOG_INT("attempt",
				__atomic_load_n(&r->attempt, __ATOMIC_RELAXED) +
					1),
			LOG_STR("error", msg[0] ? msg : NULL)),
		line);
}
