/*
 * watcher: one WATCH, its events applied as they arrive (see
 * watcher.h).
 *
 * Lines are applied a chunk at a time (what one body callback brought,
 * or PEND_MAX events): one store transaction, then the history.
 */
#include "cache/watcher.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/probe.h"
#include "cache/shape.h"
#include "cache/url.h"
#include "cache/watcher_test.h"
#include "config/alloc.h"
#include "config/log.h"

/* One WATCH under way: the transfer and what its stream told so far. */
struct watch {
	struct cache_xfer x;
	struct buf line;    /* an incomplete line carried over; it holds
			     * no newline between callbacks */
	uint64_t stream_rv; /* highest RV this stream has carried (event
			     * or BOOKMARK), 0: none yet */
	struct json_doc doc;
	int result; /* REFL_* once the stream must end */
	uint64_t events;
};

/* A change applied to the store's open transaction, for the history
 * once the transaction is published. */
struct pending {
	int type;
	uint64_t rv;
	struct cache_obj *obj, *prev;
};

/* The store transaction of one chunk of lines and its changes. */
struct chunk {
	struct cache_txn t;
	bool open;
	struct pending *pend;
	size_t npend;
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
		cache_resource_stat_inc(&r->stats.malformed);
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

int cache_watcher_event_decode(struct json_doc *d, const char *line, size_t len,
			       const struct json_shape *shape,
			       struct cache_watcher_event *ev, char *err,
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

/* An ERROR event: 410 (the RV is compacted away) or another. */
static int error_event(struct watch *w, const struct cache_watcher_event *ev)
{
	struct cache_resource *r = w->x.r;
	if (ev->code != 410) {
		log_warn("%s: watch: ERROR event %lld: %s", r->kind->resource,
			 (long long)ev->code, ev->msg);
		return REFL_ERROR;
	}
	int64_t last = __atomic_load_n(&r->last_change_ms, __ATOMIC_RELAXED);
	int64_t quiet =
		(cache_rvclock_now_ms() - (last ? last : w->x.opened_ms)) /
		1000;
	bool bm = __atomic_load_n(&r->bookmarks_seen, __ATOMIC_RELAXED);
	log_info("%s: watch expired: the upstream no longer has "
		 "resourceVersion %llu (%s); %s%lld s since this "
		 "resource last changed%s; relisting",
		 r->kind->resource, (unsigned long long)r->rv, ev->msg,
		 quiet >= 60 ? "a quiet resource, compacted past: " : "",
		 (long long)quiet,
		 quiet < 60 ? "" :
		 bm	    ? ", and its BOOKMARKs did not keep up" :
			      ", and the upstream sends it no BOOKMARKs");
	return REFL_EXPIRED;
}

/* A BOOKMARK at rv: the RV moves on (published at the end of the chunk)
 * once it is plausible. */
static int bookmark(struct watch *w, uint64_t rv)
{
	struct cache_resource *r = w->x.r;
	__atomic_store_n(&r->bookmarks_seen, true, __ATOMIC_RELAXED);
	if (rv > r->rv) {
		int rc = bookmark_plausible(r, rv);
		if (rc != REFL_OK)
			return rc;
		r->rv = rv;
	}
	if (rv > w->stream_rv)
		w->stream_rv = rv;
	return REFL_OK;
}

/*
 * An object the cache cannot take, at rv. A LIST skips it, so the state
 * to reach is the upstream's without it. When the cache holds nothing
 * under its key (a bad name never entered it), that state is the present
 * one: skip the event, counted. When it holds the key, the object it has
 * is now wrong and no event here can say so truthfully (a DELETED the
 * upstream never sent would be invented): relist, and the relist's
 * difference tells watchers.
 */
static int refused_object(struct watch *w, struct chunk *ch, int obj,
			  uint64_t rv, int why, const char *err)
{
	struct cache_resource *r = w->x.r;
	if (!holds_key(&ch->t, &w->doc, obj, why)) {
		cache_resource_reject(r, "watch", &w->doc, obj, why, err, NULL);
		r->rv = rv;
		w->stream_rv = rv;
		return REFL_OK;
	}
	log_warn("%s: watch: bad object the cache holds: %s; relisting",
		 r->kind->resource, err);
	cache_resource_stat_inc(&r->stats.malformed);
	return REFL_ERROR;
}

/* Put o (a reference this takes) into the chunk's transaction for an
 * ADDED, MODIFIED or DELETED event at rv. */
static int put_object(struct watch *w, struct chunk *ch, int type,
		      struct cache_obj *o, uint64_t rv)
{
	struct cache_resource *r = w->x.r;
	bool del = type == REFL_EV_DELETED, added = type == REFL_EV_ADDED;
	/* The upstream's stream must fit our state: no delete or change of
	 * what we do not have, no second object under one name. If it does
	 * not, our state is wrong somewhere: relist (nothing is applied). */
	const struct cache_obj *cur =
		cache_store_txn_find(&ch->t, o->ns, o->name);
	if ((!added && !cur) || (added && cur && strcmp(cur->uid, o->uid))) {
		log_warn("%s: watch: %s of %s/%s does not fit the cache; "
			 "relisting",
			 r->kind->resource,
			 del   ? "DELETED" :
			 added ? "ADDED" :
				 "MODIFIED",
			 o->ns, o->name);
		cache_obj_put(o);
		return REFL_ERROR;
	}
	struct cache_obj *prev = NULL;
	int rc = del ? cache_store_txn_del(&ch->t, o->ns, o->name, &prev) :
		       cache_store_txn_put(&ch->t, o, &prev);
	if (rc) {
		cache_obj_put(o);
		return REFL_ERROR;
	}
	r->rv = rv;
	w->stream_rv = rv;
	struct pending *pd = &ch->pend[ch->npend++];
	pd->type = del ? CACHE_DELETED : prev ? CACHE_MODIFIED : CACHE_ADDED;
	pd->rv = rv;
	pd->obj = o;
	pd->prev = prev;
	return REFL_OK;
}

/* An ADDED, MODIFIED or DELETED event newer than the cache. */
static int object_event(struct watch *w, struct chunk *ch,
			const struct cache_watcher_event *ev)
{
	struct cache_resource *r = w->x.r;
	char err[160];
	int why;
	struct cache_obj *o = cache_obj_from_doc_why(r->kind, &w->doc, ev->obj,
						     r->up.strip_managed_fields,
						     err, sizeof(err), &why);
	if (!ch->open) {
		cache_store_txn_begin(r->store, &ch->t);
		ch->open = true;
	}
	if (!o && why < 0) {
		log_error("%s: watch: out of memory", r->kind->resource);
		return REFL_ERROR;
	}
	if (!o)
		return refused_object(w, ch, ev->obj, ev->rv, why, err);
	if (!(o = cache_scope_strip(&r->scope, o))) {
		log_error("%s: watch: out of memory", r->kind->resource);
		return REFL_ERROR;
	}
	return put_object(w, ch, ev->type, o, ev->rv);
}

/* Apply one event line. Returns REFL_OK, or why the stream must end. */
static int watch_line(struct watch *w, const char *line, size_t len,
		      struct chunk *ch)
{
	struct cache_resource *r = w->x.r;
	char err[160];
	struct cache_watcher_event ev;
	if (cache_watcher_event_decode(&w->doc, line, len,
				       cache_shape_event(r->shape), &ev, err,
				       sizeof(err))) {
		log_warn("%s: watch: %s", r->kind->resource, err);
		cache_resource_stat_inc(&r->stats.malformed);
		return REFL_ERROR;
	}
	if (ev.type == REFL_EV_ERROR)
		return error_event(w, &ev);
	/* One stream's RVs never go down: a BOOKMARK at or above every
	 * event before it, each event above everything before it. An
	 * upstream that breaks this is faulty (or hostile): what it sent
	 * before, or now, is wrong, so end the watch and relist. */
	bool is_bookmark = ev.type == REFL_EV_BOOKMARK;
	if (w->stream_rv &&
	    (is_bookmark ? ev.rv < w->stream_rv : ev.rv <= w->stream_rv)) {
		log_warn("%s: watch: %s at resourceVersion %llu after %llu on "
			 "the same stream: the upstream went backwards; "
			 "relisting",
			 r->kind->resource, is_bookmark ? "BOOKMARK" : "event",
			 (unsigned long long)ev.rv,
			 (unsigned long long)w->stream_rv);
		cache_resource_stat_inc(&r->stats.malformed);
		return REFL_BACKWARDS;
	}
	if (is_bookmark)
		return bookmark(w, ev.rv);
	if (ev.rv <= r->rv) {
		log_v(2, "%s: watch: skipping event at %llu <= %llu",
		      r->kind->resource, (unsigned long long)ev.rv,
		      (unsigned long long)r->rv);
		return REFL_OK;
	}
	return object_event(w, ch, &ev);
}

#define PEND_MAX 256

/* Publish what a chunk of lines changed: store first, then history, so a
 * watcher that sees an event can LIST and find it. */
static void flush(struct cache_resource *r, struct chunk *ch,
		  uint64_t progress_rv)
{
	if (!ch->open && progress_rv > cache_store_rv(r->store)) {
		cache_store_txn_begin(r->store, &ch->t); /* a bookmark: RV
							    moves on */
		cache_store_txn_since(&ch->t, r->rv);	 /* with no change */
		ch->open = true;
	}
	if (ch->open) {
		if (ch->npend) /* its changes are at these RVs, no lower */
			cache_store_txn_since(&ch->t, ch->pend[0].rv);
		if (cache_store_txn_commit(&ch->t, r->rv))
			log_error("%s: out of memory applying events",
				  r->kind->resource);
		ch->open = false;
	}
	/* every event of the chunk first, then one wake: a watcher resumed
	 * once sends the whole chunk in one write, where a wake per event
	 * cost each of them a resume (a lock and a write to libmicrohttpd's
	 * event fd) per event, on the path every later event waits behind */
	for (size_t i = 0; i < ch->npend; i++) {
		struct pending *pd = &ch->pend[i];
		cache_history_add(r->history, pd->type, pd->rv, pd->obj,
				  pd->prev);
		cache_obj_put(pd->obj);
		cache_obj_put(pd->prev);
	}
	__atomic_add_fetch(&r->stats.events, ch->npend, __ATOMIC_RELAXED);
	int64_t now = cache_rvclock_now_ms();
	if (ch->npend)
		__atomic_store_n(&r->last_change_ms, now, __ATOMIC_RELAXED);
	cache_rvclock_note(r->clock, r->rv, now);
	cache_history_set_progress(r->history, r->rv);
	if (ch->npend)
		cache_history_wake_all(r->history);
	ch->npend = 0;
	cache_resource_tell_progress(r);
}

/* Apply the complete lines in w->line from scanned on; keep the rest. */
static size_t apply_lines(struct watch *w, size_t scanned, size_t len)
{
	struct cache_resource *r = w->x.r;
	struct pending pend[PEND_MAX];
	struct chunk ch = { .pend = pend };
	size_t start = 0;
	uint64_t rv0 = r->rv;
	size_t max = cache_resource_line_max(r);
	while (w->result == REFL_OK) {
		char *nl = memchr(w->line.p + scanned, '\n',
				  w->line.len - scanned);
		size_t end = nl ? (size_t)(nl - w->line.p) : w->line.len;
		if (end - start > max) {
			/* Not buffered further: the watch ends and a relist
			 * (after backoff) reads the object, if it is one, as a
			 * list item, which is skipped alone. */
			log_warn(
				"%s: watch: event longer than %zu bytes "
				"(--upstream-line-max-mib): ending the watch; relisting",
				r->kind->resource, max);
			cache_resource_stat_inc(&r->stats.malformed);
			w->result = REFL_ERROR;
			break;
		}
		if (!nl)
			break;
		if (end > start)
			w->result = watch_line(w, w->line.p + start,
					       end - start, &ch);
		start = scanned = end + 1;
		w->events++;
		if (ch.npend == PEND_MAX)
			flush(r, &ch, r->rv);
	}
	if (ch.npend || ch.open || r->rv > rv0)
		flush(r, &ch, r->rv);
	if (w->result != REFL_OK) {
		w->x.ended = true; /* said why */
		return 0;
	}
	memmove(w->line.p, w->line.p + start, w->line.len - start);
	w->line.len -= start;
	return len;
}

/* A 200's bytes, in the reflector thread. */
static size_t on_watch_data(struct cache_xfer *x, char *data, size_t len)
{
	struct watch *w = x->ctx;
	struct cache_resource *r = x->r;
	cache_resource_mark_healthy(r);
	/* The carried-over bytes hold no newline (every complete line was
	 * consumed last time), so only the new bytes are scanned: each byte
	 * once, however long the line. */
	size_t scanned = w->line.len;
	if (buf_add(&w->line, data, len))
		return 0;
	/* the events of this chunk arrived now, whenever they are applied */
	cache_history_stamp(r->history, cache_history_now_ns());
	size_t took = apply_lines(w, scanned, len);
	cache_history_stamp(r->history, 0);
	return took;
}

/*
 * How a dead stream is noticed. Where the upstream sends BOOKMARKs,
 * silence past the stall timeout is a stall (xfer.c). Where it sends
 * none (a resource it serves without its watch cache, such as events),
 * silence is normal for as long as nothing changes: only TCP keepalive
 * (see upstream.c) and the watch's own deadline, with a margin, end it.
 */
static void set_stall_rules(struct cache_xfer_conn *conn, int timeout)
{
	curl_easy_setopt(conn->easy, CURLOPT_LOW_SPEED_LIMIT, 0L);
	curl_easy_setopt(conn->easy, CURLOPT_LOW_SPEED_TIME, 0L);
	curl_easy_setopt(conn->easy, CURLOPT_TIMEOUT_MS,
			 (timeout + 30L + timeout / 10) * 1000L);
}

/* What a watch's answer means for the reflector (the REFL_* verdict). */
static int verdict(struct watch *w, long code)
{
	struct cache_resource *r = w->x.r;
	int result = w->result;
	if (cache_resource_stopping(r))
		return REFL_STOP;
	if (result != REFL_OK)
		return result;
	if (code == 410)
		return REFL_EXPIRED;
	if (code < 0)
		return REFL_RETRY;
	if (code != 200) {
		if (code > 0)
			cache_resource_log_status(r, "watch", code, &w->x.body);
		/* the upstream refused this watch; it may take the next one
		 * (a 429 or 5xx), so keep the cache and retry the watch */
		r->retry_after = w->x.retry_after;
		return code == 429 || code >= 500 ? REFL_REFUSED : REFL_ERROR;
	}
	if (w->line.len) {
		log_warn("%s: watch: stream ended inside an event",
			 r->kind->resource);
		cache_resource_stat_inc(&r->stats.malformed);
		return REFL_ERROR;
	}
	return REFL_OK;
}

int cache_watcher_watch(struct cache_resource *r, struct cache_xfer_conn *conn,
			struct cache_watcher_end *end)
{
	int timeout =
		r->up.watch_timeout ? r->up.watch_timeout : 300 + rand() % 300;
	set_stall_rules(conn, timeout);
	struct buf url = BUF_INIT;
	cache_url_watch(&url, r->up.server, r->kind, r->scope.ns, r->rv,
			timeout);
	cache_scope_query(&r->scope, &url);
	struct watch w = { .x = { .r = r,
				  .on_data = on_watch_data,
				  .watch = true,
				  .body = BUF_INIT },
			   .line = BUF_INIT,
			   .doc = JSON_DOC_INIT };
	w.x.ctx = &w;
	cache_resource_stat_inc(&r->stats.watches);
	long code = buf_ok(&url) ? cache_xfer_get(&w.x, conn, url.p) : -1;
	cache_xfer_conn_list_rules(conn, r);
	end->opened_ms = code == 200 ? w.x.opened_ms : 0;
	/* a second early still counts: the upstream's clock is not ours */
	end->at_deadline = end->opened_ms &&
			   cache_rvclock_now_ms() >=
				   end->opened_ms + timeout * 1000L - 1000;
	int result = verdict(&w, code);
	log_v(1, "%s: watch ended after %llu lines at rv %llu (%d)",
	      r->kind->resource, (unsigned long long)w.events,
	      (unsigned long long)r->rv, result);
	buf_free(&url);
	buf_free(&w.x.body);
	buf_free(&w.line);
	json_doc_free(&w.doc);
	return result;
}
