/*
 * reflector: LIST then WATCH one resource into its store and history
 * (see reflector.h).
 *
 * Everything here runs on the resource's own thread, except
 * cache_refl_new/start/stop/free, which the main thread calls. Full
 * LISTs are lister.c's.
 */
#include "cache/reflector.h"

#include <curl/curl.h>
#include <malloc.h>
#include <errno.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <urcu-bp.h>

#include "cache/json.h"
#include "cache/probe.h"
#include "cache/reflector_int.h"
#include "cache/relist.h"
#include "cache/shape.h"
#include "cache/url.h"
#include "config/alloc.h"
#include "config/buf.h"
#include "config/histogram.h"
#include "config/limits.h"
#include "config/log.h"

#define BACKOFF_MIN_MS 5
#define HEALTHY_S 10 /* a watch this long resets the backoff */

static void tell_progress(struct cache_resource *r)
{
	void *ctx = __atomic_load_n(&r->on_progress_ctx, __ATOMIC_ACQUIRE);
	if (ctx)
		r->on_progress(ctx, r);
}

/* Whether the upstream answers: cleared by any 200, set (once) by a
 * failed request; /readyz reads it. */
static void mark_healthy(struct cache_resource *r)
{
	__atomic_store_n(&r->failing_since, (int64_t)0, __ATOMIC_RELAXED);
}

void cache_refl_mark_failing(struct cache_resource *r)
{
	int64_t zero = 0;
	__atomic_compare_exchange_n(&r->failing_since, &zero,
				    (int64_t)time(NULL), false,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

void cache_refl_stat_inc(uint64_t *s)
{
	__atomic_add_fetch(s, 1, __ATOMIC_RELAXED);
}

size_t cache_refl_page_max(const struct cache_resource *r)
{
	return r->up.page_max ? r->up.page_max : LIMIT_UPSTREAM_PAGE_BYTES;
}

size_t cache_refl_line_max(const struct cache_resource *r)
{
	return r->up.line_max ? r->up.line_max : LIMIT_UPSTREAM_LINE_BYTES;
}

size_t cache_refl_list_max(const struct cache_resource *r)
{
	return r->up.list_max ? r->up.list_max : LIMIT_UPSTREAM_LIST_BYTES;
}

bool cache_refl_stopping(struct cache_resource *r)
{
	return __atomic_load_n(&r->stop, __ATOMIC_ACQUIRE);
}

static void touch(struct cache_resource *r)
{
	__atomic_store_n(&r->last_contact, (int64_t)time(NULL),
			 __ATOMIC_RELAXED);
}

/* ---- HTTP plumbing ---- */


/* Called by libcurl about once a second, and on every chunk. A watch
 * whose upstream sends BOOKMARKs and that has been silent past the stall
 * timeout is dead (a silent partition); any other silence is normal. The
 * rule is looked up each time, so it holds from a resource's first
 * BOOKMARK on, in the watch that brought it. */
static int on_progress(void *p, curl_off_t dt, curl_off_t dn, curl_off_t ut,
		       curl_off_t un)
{
	struct xfer *x = p;
	struct cache_resource *r = x->r;
	if (cache_refl_stopping(r) ||
	    __atomic_load_n(&x->cancel, __ATOMIC_ACQUIRE))
		return 1; /* a dropped page may be waiting for its first byte */
	if (!x->watch || !__atomic_load_n(&r->bookmarks_seen, __ATOMIC_RELAXED))
		return 0;
	int64_t last = x->last_byte_ms ? x->last_byte_ms : x->opened_ms;
	long stall = r->up.stall_seconds > 0 ? r->up.stall_seconds : 90;
	if (last && cache_rvclock_now_ms() - last > stall * 1000L) {
		x->stalled = true;
		return 1;
	}
	return 0;
}

static size_t on_watch_data(char *data, size_t size, size_t n, void *p);
static size_t on_watch_lines(struct xfer *x, char *data, size_t len);

static size_t on_header(char *p, size_t size, size_t n, void *cls)
{
	struct xfer *x = cls;
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
		if (code == 200)
			mark_healthy(x->r);
	}
	return len;
}

/* A body that is not a 200's (a Status): kept for the log. */
static bool error_body(struct xfer *x, char *data, size_t len)
{
	long code = 0;
	curl_easy_getinfo(x->c, CURLINFO_RESPONSE_CODE, &code);
	if (code == 200)
		return false;
	if (x->body.len < 64 * 1024)
		buf_add(&x->body, data, len);
	return true;
}

static size_t on_list_data(char *data, size_t size, size_t n, void *p)
{
	struct xfer *x = p;
	if (__atomic_load_n(&x->cancel, __ATOMIC_ACQUIRE))
		return 0; /* a page fetched ahead that is not wanted */
	touch(x->r);
	if (x->body_max && x->body.len + size * n > x->body_max) {
		/* keep what fits: its metadata may still tell the next page */
		size_t room = x->body_max - x->body.len;
		buf_add(&x->body, data, room);
		x->body_over = true;
		return 0; /* ends the transfer: bounded memory */
	}
	if (buf_add(&x->body, data, size * n))
		return 0;
	if (x->on_head && !x->head_done)
		x->on_head(x);
	return size * n;
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

void cache_refl_reject(struct cache_resource *r, const char *what,
		       const struct json_doc *d, int root, int why,
		       const char *err, unsigned *logged)
{
	cache_refl_stat_inc(&r->stats.rejected_by[why]);
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

/* GET url; returns the HTTP status, or -1 on a transport error. The
 * headers are built for each request, so a rotated token is used. */
long cache_refl_http_get(struct cache_resource *r, CURL *c, const char *url,
			 struct xfer *x)
{
	char err[256];
	struct curl_slist *hdrs = NULL;
	x->c = c;
	x->retry_after = 0;
	/* One LIST costs one token: its pages follow one another at the
	 * upstream's pace (at most one fetched ahead), and metering each
	 * held a 100k-object LIST's 200 pages to --upstream-qps (50/s, 4 s
	 * past the burst). The bucket is against storms of requests, so a
	 * page after a small one pays (REFL_FREE_PAGE_MIN). */
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
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION,
			 x->watch ? on_watch_data : on_list_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, x);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, x);
	CURLcode rc = curl_easy_perform(c);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, NULL);
	curl_slist_free_all(hdrs);
	if (__atomic_load_n(&x->cancel, __ATOMIC_ACQUIRE))
		return -1; /* dropped by its pager: nothing to tell */
	long code = 0;
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	if (!x->watch) {
		double took = 0;
		curl_easy_getinfo(c, CURLINFO_TOTAL_TIME, &took);
		cache_upstream_observe(CONFIG_VERB_LIST,
				       rc == CURLE_OK ? code : -1, took);
	}
	/* what main reads to explain a resource that never syncs */
	__atomic_store_n(&r->last_curl_error, (int)rc, __ATOMIC_RELAXED);
	__atomic_store_n(&r->last_http_status, code, __ATOMIC_RELAXED);
	if (rc == CURLE_OK) {
		if (code == 200)
			mark_healthy(r);
		return code;
	}
	if (x->stalled)
		log_warn(
			"%s: watch: no byte for %d s from an upstream that sends "
			"BOOKMARKs: reconnecting",
			r->kind->resource,
			r->up.stall_seconds > 0 ? r->up.stall_seconds : 90);
	else if (!cache_refl_stopping(r) && !(x->watch && x->result != REFL_OK))
		log_warn("%s: %s: %s", r->kind->resource,
			 x->watch ? "watch" : "list", curl_easy_strerror(rc));
	return -1;
}

/* Log the message of an upstream Status body, if there is one. */
void cache_refl_log_status(struct cache_resource *r, const char *what,
			   long code, const struct buf *body)
{
	struct json_doc d = JSON_DOC_INIT;
	char msg[256] = "";
	if (body->len && !json_parse(&d, body->p, body->len, NULL, 0)) {
		int m = json_get(&d, 0, "message");
		if (m > 0)
			json_str(&d, m, msg, sizeof(msg));
	}
	json_doc_free(&d);
	log_warn("%s: %s: upstream answered %ld%s%s", r->kind->resource, what,
		 code, msg[0] ? ": " : "", msg);
}

/* ---- LIST ---- */

/* Make the store equal to l. The first time this is a plain load; later
 * (a relist) the differences become synthetic events at l->rv, so local
 * watchers stay on a true stream without being closed. */
static int apply_listing(struct cache_resource *r, struct listing *l)
{
	l->n = cache_store_sort(l->objs, l->n);
	struct cache_snap *old = cache_store_snap(r->store);
	bool first = !cache_refl_synced(r);
	struct cache_txn t;
	cache_store_txn_begin_empty(r->store, &t);
	if (cache_store_txn_load(&t, l->objs, l->n) ||
	    cache_store_txn_commit(&t, l->rv)) {
		cache_store_snap_put(old);
		return -ENOMEM;
	}
	if (first) {
		cache_history_reset(r->history, l->rv);
	} else {
		struct cache_relist rl;
		int rc = cache_relist_diff(old, r->rv, l->objs, l->n, l->rv,
					   &rl);
		if (rc == -ERANGE) {
			/* The upstream's RVs are not comparable with ours any
			 * more (a wiped or restored cluster): no true stream
			 * leads there, so every watcher gets 410 and relists. */
			log_warn(
				"%s: upstream resourceVersion went from %llu to %llu: "
				"ending every local watch with 410 Expired",
				r->kind->resource, (unsigned long long)r->rv,
				(unsigned long long)l->rv);
			cache_rvclock_reset(r->clock);
			cache_history_reset(r->history, l->rv);
		} else if (rc) {
			log_error(
				"%s: out of memory diffing a relist; ending local watches",
				r->kind->resource);
			cache_history_reset(r->history, l->rv);
		} else {
			for (size_t i = 0; i < rl.n; i++)
				cache_history_append(r->history, rl.ev[i].type,
						     rl.ev[i].rv, rl.ev[i].obj,
						     rl.ev[i].prev);
			log_info(
				"%s: relisted at %llu: %zu change(s) sent to local watchers",
				r->kind->resource, (unsigned long long)l->rv,
				rl.n);
			cache_relist_free(&rl);
		}
	}
	cache_store_snap_put(old);
	r->rv = l->rv;
	cache_rvclock_note(r->clock, l->rv, cache_rvclock_now_ms());
	cache_history_set_progress(r->history, l->rv);
	__atomic_store_n(&r->synced, true, __ATOMIC_RELEASE);
	tell_progress(r);
	return 0;
}

/* ---- WATCH ---- */

struct pending {
	int type;
	uint64_t rv;
	struct cache_obj *obj, *prev;
};

/*
 * A BOOKMARK moves the cache's RV without an event to check it against:
 * one at 2^64-1 would make the cache skip every later event as old. So a
 * BOOKMARK above every RV the storage domain has shown is checked first
 * against the upstream's current RV (a limit=1 LIST, a quorum read); the
 * answer goes into the domain's clock, so the other resources' BOOKMARKs
 * below it need no check. Returns REFL_OK, REFL_BACKWARDS for a BOOKMARK past
 * the upstream's RV, or REFL_RETRY when the check could not be made (the
 * BOOKMARK is not applied, the watch resumes from the RV before it).
 */
static int bookmark_plausible(struct cache_resource *r, uint64_t rv)
{
	uint64_t seen = 0, now = 0;
	char err[256];
	if (cache_rvclock_seen_by(r->clock, cache_rvclock_now_ms(), &seen) &&
	    rv <= seen)
		return REFL_OK;
	if (cache_probe_upstream_rv(&r->up, r->kind, r->scope.ns, &r->stop,
				    &now, err, sizeof(err))) {
		log_warn("%s: watch: cannot check a BOOKMARK at %llu: %s",
			 r->kind->resource, (unsigned long long)rv, err);
		return REFL_RETRY;
	}
	cache_rvclock_note(r->clock, now, cache_rvclock_now_ms());
	if (rv > now) {
		log_warn(
			"%s: watch: BOOKMARK at resourceVersion %llu, past the "
			"upstream's %llu: relisting",
			r->kind->resource, (unsigned long long)rv,
			(unsigned long long)now);
		cache_refl_stat_inc(&r->stats.malformed);
		return REFL_BACKWARDS;
	}
	return REFL_OK;
}

/* Whether the cache (in t) holds an object under the key of the refused
 * object at root. A refused name or namespace is never held. */
static bool holds_key(struct cache_txn *t, const struct json_doc *d, int root,
		      int why)
{
	if (why == CACHE_REJECT_NAME)
		return false;
	int meta = json_get(d, root, "metadata");
	int nt = meta >= 0 ? json_get(d, meta, "name") : -1;
	int st = meta >= 0 ? json_get(d, meta, "namespace") : -1;
	if (nt < 0 || json_type(d, nt) != JSMN_STRING)
		return false; /* no key: nothing to hold under it */
	if (st >= 0 && json_type(d, st) != JSMN_STRING)
		st = -1;
	size_t nn = json_str_len(d, nt) + 1,
	       sn = st >= 0 ? json_str_len(d, st) + 1 : 1;
	char *name = xmalloc(nn), *ns = xmalloc(sn);
	bool held = true; /* when unsure, relist */
	if (name && ns) {
		json_str(d, nt, name, nn);
		ns[0] = '\0';
		if (st >= 0)
			json_str(d, st, ns, sn);
		held = cache_store_txn_find(t, ns, name) != NULL;
	}
	free(name);
	free(ns);
	return held;
}

int cache_refl_event_decode(struct json_doc *d, const char *line, size_t len,
			    const struct json_shape *shape,
			    struct cache_refl_event *ev, char *err,
			    size_t errlen)
{
	char jerr[128];
	memset(ev, 0, sizeof(*ev));
	if (json_parse_shaped(d, line, len, shape, jerr, sizeof(jerr))) {
		snprintf(err, errlen, "malformed event: %s", jerr);
		return -EINVAL;
	}
	int type = json_get(d, 0, "type");
	ev->obj = json_get(d, 0, "object");
	if (type < 0 || ev->obj < 0 || json_type(d, ev->obj) != JSMN_OBJECT) {
		snprintf(err, errlen, "event without type or object");
		return -EINVAL;
	}
	if (json_str_eq(d, type, "ERROR")) {
		int code = json_get(d, ev->obj, "code");
		int msg = json_get(d, ev->obj, "message");
		ev->type = REFL_EV_ERROR;
		if (msg > 0)
			json_str(d, msg, ev->msg, sizeof(ev->msg));
		if (code > 0)
			json_i64(d, code, &ev->code);
		return 0;
	}
	int rvt = json_path(d, ev->obj, "metadata.resourceVersion");
	if (rvt < 0 || json_u64(d, rvt, &ev->rv)) {
		snprintf(err, errlen, "event without resourceVersion");
		return -EINVAL;
	}
	if (json_str_eq(d, type, "BOOKMARK"))
		ev->type = REFL_EV_BOOKMARK;
	else if (json_str_eq(d, type, "ADDED"))
		ev->type = REFL_EV_ADDED;
	else if (json_str_eq(d, type, "MODIFIED"))
		ev->type = REFL_EV_MODIFIED;
	else if (json_str_eq(d, type, "DELETED"))
		ev->type = REFL_EV_DELETED;
	else {
		snprintf(err, errlen, "unknown event type");
		return -EINVAL;
	}
	return 0;
}

/* Apply one event line. Returns REFL_OK, or why the stream must end. */
static int watch_line(struct xfer *x, const char *line, size_t len,
		      struct cache_txn *t, bool *open, struct pending *pend,
		      size_t *npend)
{
	struct cache_resource *r = x->r;
	char err[160];
	struct cache_refl_event ev;
	if (cache_refl_event_decode(&x->doc, line, len,
				    cache_shape_event(r->shape), &ev, err,
				    sizeof(err))) {
		log_warn("%s: watch: %s", r->kind->resource, err);
		cache_refl_stat_inc(&r->stats.malformed);
		return REFL_ERROR;
	}
	struct json_doc *d = &x->doc;
	if (ev.type == REFL_EV_ERROR) {
		if (ev.code == 410) {
			int64_t last = __atomic_load_n(&r->last_change_ms,
						       __ATOMIC_RELAXED);
			int64_t quiet = (cache_rvclock_now_ms() -
					 (last ? last : x->opened_ms)) /
					1000;
			bool bm = __atomic_load_n(&r->bookmarks_seen,
						  __ATOMIC_RELAXED);
			log_info(
				"%s: watch expired: the upstream no longer has "
				"resourceVersion %llu (%s); %s%lld s since this "
				"resource last changed%s; relisting",
				r->kind->resource, (unsigned long long)r->rv,
				ev.msg,
				quiet >= 60 ?
					"a quiet resource, compacted past: " :
					"",
				(long long)quiet,
				quiet < 60 ? "" :
				bm ? ", and its BOOKMARKs did not keep up" :
				     ", and the upstream sends it no BOOKMARKs");
			return REFL_EXPIRED;
		}
		log_warn("%s: watch: ERROR event %lld: %s", r->kind->resource,
			 (long long)ev.code, ev.msg);
		return REFL_ERROR;
	}
	uint64_t rv = ev.rv;
	/* One stream's RVs never go down: a BOOKMARK at or above every
	 * event before it, each event above everything before it. An
	 * upstream that breaks this is faulty (or hostile): what it sent
	 * before, or now, is wrong, so end the watch and relist. */
	bool bookmark = ev.type == REFL_EV_BOOKMARK;
	if (x->stream_rv &&
	    (bookmark ? rv < x->stream_rv : rv <= x->stream_rv)) {
		log_warn(
			"%s: watch: %s at resourceVersion %llu after %llu on the "
			"same stream: the upstream went backwards; relisting",
			r->kind->resource, bookmark ? "BOOKMARK" : "event",
			(unsigned long long)rv,
			(unsigned long long)x->stream_rv);
		cache_refl_stat_inc(&r->stats.malformed);
		return REFL_BACKWARDS;
	}
	if (bookmark) {
		__atomic_store_n(&r->bookmarks_seen, true, __ATOMIC_RELAXED);
		if (rv > r->rv) {
			int rc = bookmark_plausible(r, rv);
			if (rc != REFL_OK)
				return rc;
			r->rv = rv; /* published at the end of the chunk */
		}
		if (rv > x->stream_rv)
			x->stream_rv = rv;
		return REFL_OK;
	}
	bool del = ev.type == REFL_EV_DELETED;
	if (rv <= r->rv) {
		log_v(2, "%s: watch: skipping event at %llu <= %llu",
		      r->kind->resource, (unsigned long long)rv,
		      (unsigned long long)r->rv);
		return REFL_OK;
	}
	int why;
	struct cache_obj *o = cache_obj_from_doc_why(r->kind, d, ev.obj,
						     r->up.strip_managed_fields,
						     err, sizeof(err), &why);
	if (!*open) {
		cache_store_txn_begin(r->store, t);
		*open = true;
	}
	if (!o && why < 0) {
		log_error("%s: watch: out of memory", r->kind->resource);
		return REFL_ERROR;
	}
	if (!o) {
		/*
		 * An object the cache cannot take. A LIST skips it, so the
		 * state to reach is the upstream's without it. When the cache
		 * holds nothing under its key (a bad name never entered it),
		 * that state is the present one: skip the event, counted.
		 * When it holds the key, the object it has is now wrong and
		 * no event here can say so truthfully (a DELETED the
		 * upstream never sent would be invented): relist, and the
		 * relist's difference tells watchers.
		 */
		if (!holds_key(t, d, ev.obj, why)) {
			cache_refl_reject(r, "watch", d, ev.obj, why, err,
					  NULL);
			r->rv = rv;
			x->stream_rv = rv;
			return REFL_OK;
		}
		log_warn("%s: watch: bad object the cache holds: %s; relisting",
			 r->kind->resource, err);
		cache_refl_stat_inc(&r->stats.malformed);
		return REFL_ERROR;
	}
	if (!(o = cache_scope_strip(&r->scope, o))) {
		log_error("%s: watch: out of memory", r->kind->resource);
		return REFL_ERROR;
	}
	/* The upstream's stream must fit our state: no delete or change of
	 * what we do not have, no second object under one name. If it does
	 * not, our state is wrong somewhere: relist (nothing is applied). */
	const struct cache_obj *cur = cache_store_txn_find(t, o->ns, o->name);
	bool added = ev.type == REFL_EV_ADDED;
	if ((!added && !cur) || (added && cur && strcmp(cur->uid, o->uid))) {
		log_warn(
			"%s: watch: %s of %s/%s does not fit the cache; relisting",
			r->kind->resource,
			del   ? "DELETED" :
			added ? "ADDED" :
				"MODIFIED",
			o->ns, o->name);
		cache_obj_put(o);
		return REFL_ERROR;
	}
	struct cache_obj *prev = NULL;
	int rc = del ? cache_store_txn_del(t, o->ns, o->name, &prev) :
		       cache_store_txn_put(t, o, &prev);
	if (rc) {
		cache_obj_put(o);
		return REFL_ERROR;
	}
	r->rv = rv;
	x->stream_rv = rv;
	pend[*npend].type = del	 ? CACHE_DELETED :
			    prev ? CACHE_MODIFIED :
				   CACHE_ADDED;
	pend[*npend].rv = rv;
	pend[*npend].obj = o;
	pend[*npend].prev = prev;
	(*npend)++;
	return REFL_OK;
}

#define PEND_MAX 256

/* Publish what a chunk of lines changed: store first, then history, so a
 * watcher that sees an event can LIST and find it. */
static void flush(struct cache_resource *r, struct cache_txn *t, bool *open,
		  struct pending *pend, size_t *npend, uint64_t progress_rv)
{
	if (!*open && progress_rv > cache_store_rv(r->store)) {
		cache_store_txn_begin(r->store,
				      t); /* a bookmark: RV moves on */
		*open = true;
	}
	if (*open) {
		if (cache_store_txn_commit(t, r->rv))
			log_error("%s: out of memory applying events",
				  r->kind->resource);
		*open = false;
	}
	for (size_t i = 0; i < *npend; i++) {
		cache_history_append(r->history, pend[i].type, pend[i].rv,
				     pend[i].obj, pend[i].prev);
		cache_obj_put(pend[i].obj);
		cache_obj_put(pend[i].prev);
	}
	__atomic_add_fetch(&r->stats.events, *npend, __ATOMIC_RELAXED);
	int64_t now = cache_rvclock_now_ms();
	if (*npend)
		__atomic_store_n(&r->last_change_ms, now, __ATOMIC_RELAXED);
	cache_rvclock_note(r->clock, r->rv, now);
	*npend = 0;
	cache_history_set_progress(r->history, r->rv);
	tell_progress(r);
}

static size_t on_watch_data(char *data, size_t size, size_t n, void *p)
{
	struct xfer *x = p;
	struct cache_resource *r = x->r;
	size_t len = size * n;
	touch(r);
	x->last_byte_ms = cache_rvclock_now_ms();
	if (error_body(x, data, len))
		return len;
	/* the events of this chunk arrived now, whenever they are applied */
	cache_history_stamp(r->history, cache_history_now_ns());
	size_t took = on_watch_lines(x, data, len);
	cache_history_stamp(r->history, 0);
	return took;
}

static size_t on_watch_lines(struct xfer *x, char *data, size_t len)
{
	struct cache_resource *r = x->r;
	mark_healthy(r);
	/* The carried-over bytes hold no newline (every complete line was
	 * consumed last time), so only the new bytes are scanned: each byte
	 * once, however long the line. */
	size_t scanned = x->line.len;
	if (buf_add(&x->line, data, len))
		return 0;
	struct cache_txn t;
	bool open = false;
	struct pending pend[PEND_MAX];
	size_t npend = 0, start = 0;
	uint64_t rv0 = r->rv;
	size_t max = cache_refl_line_max(r);
	while (x->result == REFL_OK) {
		char *nl = memchr(x->line.p + scanned, '\n',
				  x->line.len - scanned);
		size_t end = nl ? (size_t)(nl - x->line.p) : x->line.len;
		if (end - start > max) {
			/* Not buffered further: the watch ends and a relist
			 * (after backoff) reads the object, if it is one, as a
			 * list item, which is skipped alone. */
			log_warn(
				"%s: watch: event longer than %zu bytes "
				"(--upstream-line-max-mib): ending the watch; relisting",
				r->kind->resource, max);
			cache_refl_stat_inc(&r->stats.malformed);
			x->result = REFL_ERROR;
			break;
		}
		if (!nl)
			break;
		if (end > start)
			x->result =
				watch_line(x, x->line.p + start, end - start,
					   &t, &open, pend, &npend);
		start = scanned = end + 1;
		x->events++;
		if (npend == PEND_MAX)
			flush(r, &t, &open, pend, &npend, r->rv);
	}
	if (npend || open || r->rv > rv0)
		flush(r, &t, &open, pend, &npend, r->rv);
	if (x->result != REFL_OK)
		return 0;
	memmove(x->line.p, x->line.p + start, x->line.len - start);
	x->line.len -= start;
	return len;
}

/* How a watch went, for what follows it. */
struct watch_end {
	int64_t opened_ms; /* when the answer began, 0: never */
	bool at_deadline;  /* the upstream ended it at timeoutSeconds */
};

/*
 * How a dead stream is noticed. Where the upstream sends BOOKMARKs,
 * silence past the stall timeout is a stall (on_progress). Where it sends
 * none (a resource it serves without its watch cache, such as events),
 * silence is normal for as long as nothing changes: only TCP keepalive
 * (see upstream.c) and the watch's own deadline, with a margin, end it.
 */
static void set_stall_rules(struct cache_resource *r, CURL *c, int timeout)
{
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 0L);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 0L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS,
			 (timeout + 30L + timeout / 10) * 1000L);
}

/* Lists keep the stall timeout and have no deadline. */
void cache_refl_list_rules(struct cache_resource *r, CURL *c)
{
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(
		c, CURLOPT_LOW_SPEED_TIME,
		(long)(r->up.stall_seconds > 0 ? r->up.stall_seconds : 90));
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 0L);
}

/* One WATCH from r->rv until the stream ends. */
static int watch_once(struct cache_resource *r, CURL *c, struct watch_end *end)
{
	int timeout =
		r->up.watch_timeout ? r->up.watch_timeout : 300 + rand() % 300;
	set_stall_rules(r, c, timeout);
	struct buf url = BUF_INIT;
	cache_url_watch(&url, r->up.server, r->kind, r->scope.ns, r->rv,
			timeout);
	cache_scope_query(&r->scope, &url);
	struct xfer x = { .r = r,
			  .body = BUF_INIT,
			  .watch = true,
			  .line = BUF_INIT,
			  .doc = JSON_DOC_INIT };
	cache_refl_stat_inc(&r->stats.watches);
	long code = buf_ok(&url) ? cache_refl_http_get(r, c, url.p, &x) : -1;
	cache_refl_list_rules(r, c);
	end->opened_ms = code == 200 ? x.opened_ms : 0;
	/* a second early still counts: the upstream's clock is not ours */
	end->at_deadline = end->opened_ms &&
			   cache_rvclock_now_ms() >=
				   end->opened_ms + timeout * 1000L - 1000;
	int result = x.result;
	if (cache_refl_stopping(r))
		result = REFL_STOP;
	else if (result == REFL_OK && code == 410)
		result = REFL_EXPIRED;
	else if (result == REFL_OK && code < 0)
		result = REFL_RETRY;
	else if (result == REFL_OK && code != 200) {
		if (code > 0)
			cache_refl_log_status(r, "watch", code, &x.body);
		/* the upstream refused this watch; it may take the next one
		 * (a 429 or 5xx), so keep the cache and retry the watch */
		result = code == 429 || code >= 500 ? REFL_REFUSED : REFL_ERROR;
		r->retry_after = x.retry_after;
	} else if (result == REFL_OK && x.line.len) {
		log_warn("%s: watch: stream ended inside an event",
			 r->kind->resource);
		cache_refl_stat_inc(&r->stats.malformed);
		result = REFL_ERROR;
	}
	log_v(1, "%s: watch ended after %llu lines at rv %llu (%d)",
	      r->kind->resource, (unsigned long long)x.events,
	      (unsigned long long)r->rv, result);
	buf_free(&url);
	buf_free(&x.body);
	buf_free(&x.line);
	json_doc_free(&x.doc);
	return result;
}

/* ---- quiet resources ---- */

const char *cache_refl_relist_reason_name(int reason)
{
	static const char *const names[REFL_RELIST_NREASONS] = {
		[REFL_RELIST_EXPIRED] = "expired",
		[REFL_RELIST_BROKEN] = "broken",
		[REFL_RELIST_BACKWARDS] = "backwards",
	};
	return reason >= 0 && reason < REFL_RELIST_NREASONS ? names[reason] :
							      "";
}

/*
 * After a watch that ended cleanly, move a quiet resource up to the
 * newest RV its storage domain showed at least the settle time ago, when
 * the watch was open before then too: every write up to that RV was
 * committed before it was seen, so the watch has delivered the ones of
 * this resource (rvclock.h has the argument). Its next watch resumes
 * from a recent RV the upstream still has, not from its last change,
 * which compaction removes within minutes.
 */
static void fast_forward(struct cache_resource *r, const struct watch_end *end)
{
	int64_t settle =
		(r->up.settle_seconds > 0 ? r->up.settle_seconds : 30) * 1000L;
	int64_t by = cache_rvclock_now_ms() - settle;
	uint64_t rv;
	if (!end->opened_ms || end->opened_ms > by ||
	    !cache_rvclock_seen_by(r->clock, by, &rv) || rv <= r->rv)
		return;
	log_v(1, "%s: no change upstream from %llu to %llu: resuming from %llu",
	      r->kind->resource, (unsigned long long)r->rv,
	      (unsigned long long)rv, (unsigned long long)rv);
	struct cache_txn t;
	cache_store_txn_begin(r->store, &t);
	if (cache_store_txn_commit(&t, rv)) {
		log_error("%s: out of memory moving to %llu", r->kind->resource,
			  (unsigned long long)rv);
		return;
	}
	r->rv = rv;
	cache_history_set_progress(r->history, rv);
	cache_refl_stat_inc(&r->stats.fast_forwards);
	tell_progress(r);
}

/*
 * A watch that ended, by the server or by going silent, may be the sign
 * of an upstream that lost its state: a wiped cluster at the same address
 * closes its watches, then accepts a watch from an RV it has not reached
 * and stays silent. Compare RVs before watching again (one limit=1 LIST),
 * unless the watch simply reached its deadline while the upstream kept
 * showing RVs in this domain (events, BOOKMARKs, other resources): then
 * the renewal is the only request. Returns rc, or REFL_BACKWARDS.
 */
static int check_upstream_rv(struct cache_resource *r, int rc,
			     const struct watch_end *end)
{
	char err[256];
	uint64_t now = 0;
	if (rc != REFL_OK && rc != REFL_RETRY)
		return rc;
	if (rc == REFL_OK && end->at_deadline &&
	    cache_rvclock_heard_since(r->clock, end->opened_ms))
		return rc;
	if (cache_probe_upstream_rv(&r->up, r->kind, r->scope.ns, &r->stop,
				    &now, err, sizeof(err)))
		return rc;
	if (now < r->rv) {
		log_warn(
			"%s: the upstream is at resourceVersion %llu, below ours "
			"(%llu): relisting",
			r->kind->resource, (unsigned long long)now,
			(unsigned long long)r->rv);
		cache_rvclock_reset(r->clock);
		return REFL_BACKWARDS;
	}
	cache_rvclock_note(r->clock, now, cache_rvclock_now_ms());
	return rc;
}

/* ---- the thread ---- */

/* Exponential backoff from 5 ms to the configured cap, with jitter in
 * [d/2, d]; an upstream's Retry-After of S seconds, when longer, wins,
 * spread over [S, 1.5 S]: the children of a restarted parent proxy all
 * hear "Retry-After: 1" within the same moment, and must not all come
 * back within the same millisecond. */
static void backoff_sleep(struct cache_resource *r, int *attempt)
{
	long cap = r->up.backoff_max_ms > 0 ? r->up.backoff_max_ms : 5000;
	long ms = BACKOFF_MIN_MS;
	for (int i = 0; i < *attempt && ms < cap; i++)
		ms *= 2;
	if (ms > cap)
		ms = cap;
	ms = ms / 2 + rand() % (ms / 2 + 1); /* jitter: [ms/2, ms] */
	if (r->retry_after > 0) {
		long ra = r->retry_after * 1000L;
		ra += rand() % (ra / 2 + 1); /* jitter: [S, 1.5 S] */
		if (ra > ms)
			ms = ra;
	}
	r->retry_after = 0;
	(*attempt)++;
	while (ms > 0 && !cache_refl_stopping(r)) {
		long step = ms < 50 ? ms : 50;
		struct timespec ts = { 0, step * 1000000L };
		nanosleep(&ts, NULL);
		ms -= step;
	}
}

static void *run(void *arg)
{
	struct cache_resource *r = arg;
	char err[256];
	CURL *c = cache_upstream_easy(&r->up, err, sizeof(err));
	if (!c) {
		log_error("%s: %s", r->kind->resource, err);
		return NULL;
	}
	int attempt = 0;
	bool need_list = true;
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	cache_refl_list_rules(r, c);
	while (!cache_refl_stopping(r)) {
		if (need_list) {
			struct listing l = { 0 };
			int rc = cache_refl_list_all(r, c, &l);
			if (rc == REFL_STOP)
				break;
			log_v(2, "%s: listed %zu objects", r->kind->resource,
			      l.n);
			if (rc != REFL_OK || apply_listing(r, &l)) {
				cache_refl_stat_inc(&r->stats.errors);
				cache_refl_listing_free(&l);
				backoff_sleep(r, &attempt);
				continue;
			}
			log_info(
				"%s: synced %zu objects at resourceVersion %llu",
				r->kind->resource, l.n,
				(unsigned long long)l.rv);
			cache_refl_listing_free(&l);
			/* A full LIST leaves page buffers, token arrays and index
			 * scratch freed in several threads' heaps; give those
			 * pages back rather than keep them as resident memory. */
			malloc_trim(0);
			need_list = false;
			/* no reset of the backoff here: a LIST that works
			 * followed by a watch that fails at once (a rejected
			 * event) must not become a relist loop */
		}
		time_t began = time(NULL);
		struct watch_end end = { 0 };
		int rc = watch_once(r, c, &end);
		if (rc == REFL_STOP)
			break;
		if (rc == REFL_OK)
			fast_forward(r, &end);
		rc = check_upstream_rv(r, rc, &end);
		bool backwards = rc == REFL_BACKWARDS;
		if (rc == REFL_EXPIRED || rc == REFL_ERROR ||
		    rc == REFL_BACKWARDS) {
			cache_refl_stat_inc(&r->stats.relists);
			cache_refl_stat_inc(
				&r->stats.relists_by
					 [rc == REFL_EXPIRED ?
						  REFL_RELIST_EXPIRED :
					  rc == REFL_ERROR ?
						  REFL_RELIST_BROKEN :
						  REFL_RELIST_BACKWARDS]);
			need_list = true;
			if (rc == REFL_BACKWARDS)
				rc = REFL_EXPIRED;
		}
		/* Back off after errors, after RVs that went backwards on the
		 * stream or against the upstream (a fault, or a wiped cluster,
		 * which a first short backoff hardly delays), and after a
		 * watch that ended at once (no hot loop against an upstream
		 * that closes every watch); a watch that lived resumes
		 * straight away. */
		if (rc == REFL_ERROR || rc == REFL_RETRY ||
		    rc == REFL_REFUSED || backwards || time(NULL) - began < 1) {
			if (rc != REFL_OK && rc != REFL_EXPIRED)
				cache_refl_stat_inc(&r->stats.errors);
			if (rc == REFL_RETRY || rc == REFL_REFUSED)
				cache_refl_mark_failing(r);
			backoff_sleep(r, &attempt);
		} else if (time(NULL) - began >= HEALTHY_S) {
			attempt = 0; /* healthy for a while: start afresh */
		}
	}
	curl_easy_cleanup(c);
	return NULL;
}

struct cache_resource *cache_refl_new(const struct cache_kind *kind,
				      const struct cache_upstream *up,
				      size_t history)
{
	struct cache_resource *r = xcalloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->kind = kind;
	r->up = *up;
	r->clock = cache_rvclock_for_group(kind->group);
	r->store = cache_store_new();
	r->history = cache_history_new(history, 0);
	r->shape = cache_shape_new(kind);
	if (!r->store || !r->history || !r->shape) {
		cache_refl_free(r);
		return NULL;
	}
	return r;
}

void cache_refl_set_scope(struct cache_resource *r, struct cache_scope *s)
{
	cache_scope_free(&r->scope);
	r->scope = *s;
	memset(s, 0, sizeof(*s));
	if (r->scope.strip_managed)
		r->up.strip_managed_fields = true;
}

int cache_refl_start(struct cache_resource *r)
{
	int e = pthread_create(&r->thread, NULL, run, r);
	if (e)
		return -e;
	r->started = true;
	return 0;
}

void cache_refl_stop(struct cache_resource *r)
{
	if (!r || !r->started)
		return;
	__atomic_store_n(&r->stop, true, __ATOMIC_RELEASE);
	pthread_join(r->thread, NULL);
	r->started = false;
}

void cache_refl_ask_stop(struct cache_resource *r)
{
	if (r && r->started)
		__atomic_store_n(&r->stop, true, __ATOMIC_RELEASE);
}

void cache_refl_free(struct cache_resource *r)
{
	if (!r)
		return;
	cache_store_free(r->store);
	cache_history_free(r->history);
	cache_scope_free(&r->scope);
	cache_shape_free(r->shape);
	free(r);
}
