/*
 * pass: passthrough, the request side (see pass.h): on the libmicrohttpd
 * thread of each forwarded request, what to forward (the target, the
 * headers forward.h keeps, whose credentials), the request body taken in
 * as libcurl can send it, and the answer queued once the passthrough
 * thread (pass_pool.c) has its status and headers, then read from the
 * transfer's buffer as the client drains it.
 */
#include "proxy/pass/pass_int.h"
#include "proxy/reply.h"
#include "proxy/front/reqinfo.h"
#include "proxy/route.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/alloc.h"
#include "config/histogram.h"
#include "config/log.h"
#include "proxy/pass/forward.h"
#include "proxy/request.h"
#include "proxy/status.h"

void proxy_pass_put(struct proxy_pass *pass)
{
	pthread_mutex_lock(&pass->lock);
	int left = --pass->refs;
	pthread_mutex_unlock(&pass->lock);
	if (left)
		return;
	if (pass->easy)
		curl_easy_cleanup(pass->easy);
	curl_slist_free_all(pass->hdrs);
	free(pass->method);
	buf_free(&pass->url);
	buf_free(&pass->up);
	if (pass->reserved)
		__atomic_sub_fetch(&pass->pool->held, UPLOAD_BUF,
				   __ATOMIC_RELAXED);
	buf_free(&pass->resp_hdrs);
	buf_free(&pass->data);
	cache_scope_free(&pass->scope);
	pthread_mutex_destroy(&pass->lock);
	free(pass);
}

/* How a watch stream's events end, so that the drain can end it between
 * two: each JSON event with a newline; each protobuf frame after its
 * 4-byte big-endian length and that many bytes; a compressed stream
 * nowhere known (it ends only where nothing was sent). The tracker is
 * moved over the n bytes at p about to be sent, or, with stop, only up
 * to the end of the event under way: how many bytes that is. Called
 * with pass->lock held. */
static size_t frame_walk(struct proxy_pass *pass, const char *p, size_t n,
			 bool stop)
{
	if (!n)
		return 0;
	if (pass->encoded) {
		pass->mid_event = true;
		return n;
	}
	if (!pass->proto) {
		const char *nl = stop ? memchr(p, '\n', n) : NULL;
		if (nl) {
			pass->mid_event = false;
			return (size_t)(nl - p) + 1;
		}
		pass->mid_event = p[n - 1] != '\n';
		return n;
	}
	size_t i = 0;
	while (i < n) {
		if (pass->frame_left) {
			size_t k = n - i;
			if (k > pass->frame_left)
				k = (size_t)pass->frame_left;
			i += k;
			pass->frame_left -= k;
		} else {
			pass->frame_len =
				pass->frame_len << 8 | (unsigned char)p[i++];
			if (++pass->frame_hdr < 4)
				continue;
			pass->frame_left = pass->frame_len;
			pass->frame_hdr = 0;
			pass->frame_len = 0;
		}
		if (stop && !pass->frame_left && !pass->frame_hdr)
			break;
	}
	pass->mid_event = pass->frame_left || pass->frame_hdr;
	return i;
}

static ssize_t pass_read(void *cls, uint64_t pos, char *out, size_t max)
{
	struct proxy_pass *pass = cls;
	ssize_t n;
	pthread_mutex_lock(&pass->lock);
	size_t avail = pass->data.len - pass->data_off;
	/* Draining: a watch ends, as the cache's own do, at the end of the
	 * event under way (its bytes still due are sent first). */
	bool ending = pass->watch &&
		      __atomic_load_n(&pass->pool->ending, __ATOMIC_ACQUIRE);
	if (ending && !pass->mid_event) {
		n = MHD_CONTENT_READER_END_OF_STREAM;
	} else if (avail) {
		n = (ssize_t)frame_walk(pass, pass->data.p + pass->data_off,
					avail < max ? avail : max, ending);
		memcpy(out, pass->data.p + pass->data_off, (size_t)n);
		pass->data_off += (size_t)n;
		if (pass->paused &&
		    pass->data.len - pass->data_off < LOW_WATER &&
		    !pass->want_unpause) {
			pass->want_unpause = true;
			wake_pool(pass->pool);
		}
	} else if (pass->state == PASS_DONE) {
		n = MHD_CONTENT_READER_END_OF_STREAM;
	} else if (pass->state == PASS_FAILED ||
		   proxy_request_client_gone(pass->conn)) {
		n = MHD_CONTENT_READER_END_WITH_ERROR;
	} else {
		pass->suspended = true;
		MHD_suspend_connection(pass->conn);
		n = 0;
	}
	pthread_mutex_unlock(&pass->lock);
	return n;
}

static void pass_response_free(void *cls)
{
	struct proxy_pass *pass = cls;
	pthread_mutex_lock(&pass->lock);
	pass->gone = pass->state < PASS_DONE;
	pthread_mutex_unlock(&pass->lock);
	wake_pool(pass->pool);
	proxy_pass_put(pass);
}

static enum MHD_Result add_header(void *cls, enum MHD_ValueKind kind,
				  const char *key, const char *value)
{
	struct proxy_pass *pass = cls;
	if (value && !proxy_forward_header(key, pass->strip_identity, false))
		return MHD_YES;
	struct buf h = BUF_INIT;
	/* "Name:" with nothing after it tells libcurl to send no such header */
	buf_printf(&h, "%s:%s%s", key, value ? " " : "", value ? value : "");
	if (buf_ok(&h)) {
		struct curl_slist *l = curl_slist_append(pass->hdrs, h.p);
		if (l)
			pass->hdrs = l;
	}
	buf_free(&h);
	return MHD_YES;
}

/* The apiserver's long-running requests, which its request timeout
 * spares: watches (?watch or /watch/), ?follow logs, and the exec,
 * attach, portforward and proxy subresources. */
static bool long_running(struct MHD_Connection *c, const char *target)
{
	const char *w =
		MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "watch");
	const char *f =
		MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "follow");
	if (proxy_reqinfo_watch_value(w) ||
	    (f && (!strcasecmp(f, "true") || !strcmp(f, "1"))))
		return true;
	size_t n = strcspn(target, "?");
	static const char *const subs[] = { "/exec", "/attach", "/portforward",
					    "/proxy" };
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		size_t l = strlen(subs[i]);
		if (n >= l && !strncmp(target + n - l, subs[i], l))
			return true;
	}
	return strstr(target, "/watch/") || strstr(target, "/proxy/");
}

int proxy_pass_verb(const char *target, const char *method,
		    struct MHD_Connection *c)
{
	char path[1024];
	size_t n = strcspn(target, "?");
	if (n >= sizeof(path))
		n = sizeof(path) - 1;
	memcpy(path, target, n);
	path[n] = '\0';
	struct proxy_route rt;
	return proxy_pass_verb_of(proxy_route_parse(path, &rt) ? NULL : &rt,
				  method, c);
}

int proxy_pass_verb_of(const struct proxy_route *rt, const char *method,
		       struct MHD_Connection *c)
{
	const char *w = c && rt ? MHD_lookup_connection_value(
					  c, MHD_GET_ARGUMENT_KIND, "watch") :
				  NULL;
	bool watch =
		rt && ((w && proxy_reqinfo_watch_value(w)) || rt->watch_prefix);
	return config_histogram_verb_slot(method, !rt || rt->name[0], watch);
}

/* The body the client announces: its Content-Length, -1 when chunked
 * (libmicrohttpd has checked that the two are not both there). */
static int64_t body_length(struct MHD_Connection *c)
{
	const char *te = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						     "Transfer-Encoding");
	if (te && strcasestr(te, "chunked"))
		return -1;
	const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						     "Content-Length");
	long long n = cl ? strtoll(cl, NULL, 10) : 0;
	return n > 0 ? n : 0;
}

static struct proxy_pass *pass_new(struct proxy_pass_pool *pool,
				   struct MHD_Connection *c, const char *target,
				   const char *method)
{
	struct proxy_pass *pass = xcalloc(1, sizeof(*pass));
	if (!pass)
		return NULL;
	pthread_mutex_init(&pass->lock, NULL);
	pass->pool = pool;
	pass->conn = c;
	pass->refs = 1; /* the request's */
	pass->length = -1;
	pass->method = xstrdup(method);
	pass->verb = proxy_pass_verb(target, method, c);
	pass->body_length = body_length(c);
	pass->has_body = pass->body_length != 0;
	pass->watch = pass->verb == CONFIG_VERB_WATCH;
	char err[256];
	/* Who the upstream sees: forward.h's rules, upgrade.c's too */
	struct proxy_forward_who who =
		proxy_forward_who(c, pool->lend_identity);
	pass->strip_identity = who.strip_identity;
	const char *authz = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							"Authorization");
	if (proxy_credpool_key(&pass->key,
			       who.client_creds ? PROXY_CREDPOOL_CLIENT :
			       who.as_proxy	? PROXY_CREDPOOL_PROXY :
						  PROXY_CREDPOOL_ANON,
			       authz)) {
		proxy_pass_put(pass);
		return NULL;
	}
	pass->idempotency_key =
		MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					    "Idempotency-Key") ||
		MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					    "X-Idempotency-Key");
	pass->hold = !long_running(c, target);
	pass->easy = cache_upstream_easy(pool->up, err, sizeof(err));
	if (pass->easy &&
	    cache_upstream_prepare(pool->up, pass->easy, who.as_proxy,
				   &pass->hdrs, err, sizeof(err))) {
		log_warn("passthrough: %s", err);
		curl_easy_cleanup(pass->easy);
		pass->easy = NULL;
	}
	/* The target as the client sent it, checked by target.c: an
	 * origin-form path whose encoding libcurl must keep as it is. */
	buf_printf(&pass->url, "%s%s", pool->up->server, target);
	if (pass->easy)
		curl_easy_setopt(pass->easy, CURLOPT_PATH_AS_IS, 1L);
	/* A request the apiserver itself would time out (every one but a
	 * watch, a followed log, exec, attach, port-forward or proxy) gets
	 * the same bound here, so a silent upstream cannot hold clients and
	 * their upstream connections for ever. */
	if (pass->easy && pool->timeout_s > 0 && !long_running(c, target))
		curl_easy_setopt(pass->easy, CURLOPT_TIMEOUT,
				 (long)pool->timeout_s);
	MHD_get_connection_values(c, MHD_HEADER_KIND, add_header, pass);
	/* Pass the request on as it came: no Content-Type libcurl would add
	 * for a body the client sent without one, no Expect: 100-continue. */
	if (!MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type"))
		add_header(pass, MHD_HEADER_KIND, "Content-Type", NULL);
	add_header(pass, MHD_HEADER_KIND, "Expect", NULL);
	if (!pass->method || !pass->easy || !buf_ok(&pass->url)) {
		proxy_pass_put(pass);
		return NULL;
	}
	return pass;
}

/* The body of an answer sent without one: never asked for. */
static ssize_t no_read(void *cls, uint64_t pos, char *out, size_t max)
{
	(void)cls;
	(void)pos;
	(void)out;
	(void)max;
	return MHD_CONTENT_READER_END_OF_STREAM;
}

/* HTTP's answers without a body (RFC 9110 6.4.1): to a HEAD, 1xx, 204
 * and 304. They carry no Transfer-Encoding either. */
static bool no_body(const char *method, long status)
{
	return !strcmp(method, "HEAD") || status < 200 || status == 204 ||
	       status == 304;
}

/* The answer to a read given the cache's shape, read whole: a JSON 200
 * loses the strip paths in each object; anything else (an error Status,
 * another type) goes as it came. A failed or oversized transfer is
 * answered with a Status, never half an answer. */
static enum MHD_Result respond_shaped(struct proxy_pass *pass,
				      struct MHD_Connection *c,
				      enum pass_state st, long status)
{
	pthread_mutex_lock(&pass->lock);
	bool over = pass->over;
	pthread_mutex_unlock(&pass->lock);
	if (st != PASS_DONE) {
		char msg[160];
		snprintf(
			msg, sizeof(msg),
			over ? "the upstream's answer is larger than %zu bytes, "
			       "the most informer-proxy reads whole" :
			       "the upstream's answer ended early",
			shape_max(pass->pool));
		struct proxy_status s = {
			.reason = over ? PROXY_InternalError :
					 PROXY_ServiceUnavailable,
			.message = msg,
			.retry_after = over ? 0 : 1,
		};
		return proxy_reply_status(c, &s);
	}
	/* the transfer has ended: its fields are this thread's now */
	const char *type = NULL;
	for (size_t i = 0; i < pass->resp_hdrs.len;) {
		const char *k = pass->resp_hdrs.p + i;
		const char *v = k + strlen(k) + 1;
		if (!strcasecmp(k, "Content-Type"))
			type = v;
		i = (size_t)(v - pass->resp_hdrs.p) + strlen(v) + 1;
	}
	struct buf out = BUF_INIT;
	struct buf *body = &pass->data;
	if (status == 200 && !pass->encoded && type &&
	    strstr(type, "application/json")) {
		int rc = cache_scope_strip_answer(
			&pass->scope, pass->strip_managed, pass->data.p,
			pass->data.len, &out);
		if (rc == -ENOMEM) {
			buf_free(&out);
			return MHD_NO;
		}
		if (!rc)
			body = &out;
	}
	struct MHD_Response *resp = MHD_create_response_from_buffer(
		body->len, body->p ? body->p : (void *)"",
		MHD_RESPMEM_MUST_COPY);
	buf_free(&out);
	if (!resp)
		return MHD_NO;
	for (size_t i = 0; i < pass->resp_hdrs.len;) {
		const char *k = pass->resp_hdrs.p + i;
		const char *v = k + strlen(k) + 1;
		MHD_add_response_header(resp, k, v);
		i = (size_t)(v - pass->resp_hdrs.p) + strlen(v) + 1;
	}
	return proxy_reply_queue(c, (unsigned)status, resp);
}

static enum MHD_Result respond(struct proxy_pass *pass,
			       struct MHD_Connection *c)
{
	pthread_mutex_lock(&pass->lock);
	enum pass_state st = pass->state;
	long status = pass->status;
	int64_t length = pass->length;
	pthread_mutex_unlock(&pass->lock);
	if (st == PASS_FAILED && status == 0) {
		struct proxy_status s = {
			.reason = PROXY_ServiceUnavailable,
			.message =
				"the upstream apiserver could not be reached",
			.retry_after = 1,
		};
		return proxy_reply_status(c, &s);
	}
	if (st == PASS_FAILED && !pass->shape) {
		/* it failed before any of its answer was sent: a clear
		 * Status, never a body cut short that might pass for whole */
		struct proxy_status s = {
			.reason = PROXY_ServiceUnavailable,
			.message = "the upstream's answer ended early",
			.retry_after = 1,
		};
		return proxy_reply_status(c, &s);
	}
	struct MHD_Response *resp;
	bool empty = no_body(pass->method, status);
	if (pass->shape && !empty)
		return respond_shaped(pass, c, st, status);
	if (empty) {
		/* Nothing to frame: a callback of unknown size would be sent
		 * chunked, its last chunk a stray body on a kept-alive
		 * connection. The transfer has ended (proxy_pass_handle
		 * waited for it), so the answer needs nothing of pass. */
		if (length >= 0 && status >= 200 && status != 204)
			/* a HEAD answer keeps the GET's Content-Length, a 304
			 * that of the answer it stands for, as HTTP allows:
			 * libmicrohttpd sends the size, never the body */
			resp = MHD_create_response_from_callback(
				(uint64_t)length, 1024, no_read, NULL, NULL);
		else
			resp = MHD_create_response_from_buffer(
				0, (void *)"", MHD_RESPMEM_PERSISTENT);
	} else {
		resp = MHD_create_response_from_callback(
			length >= 0 ? (uint64_t)length : MHD_SIZE_UNKNOWN,
			32 * 1024, pass_read, pass, pass_response_free);
	}
	if (!resp)
		return MHD_NO;
	pthread_mutex_lock(&pass->lock);
	if (!empty)
		pass->refs++; /* the response's */
	for (size_t i = 0; i < pass->resp_hdrs.len;) {
		const char *k = pass->resp_hdrs.p + i;
		const char *v = k + strlen(k) + 1;
		MHD_add_response_header(resp, k, v);
		i = (size_t)(v - pass->resp_hdrs.p) + strlen(v) + 1;
	}
	pthread_mutex_unlock(&pass->lock);
	return proxy_reply_queue(c, (unsigned)status, resp);
}

/* Hand pass to the curl thread; suspend: the client's connection waits
 * for the upstream's headers. The request thread, pass->lock held.
 * False when the pool is stopping (nothing done). */
static bool hand_over(struct proxy_pass_pool *pool, struct proxy_pass *pass,
		      struct MHD_Connection *c, bool suspend)
{
	pthread_mutex_lock(&pool->lock);
	bool stop = pool->stop;
	if (!stop) {
		pass->state = PASS_STARTED;
		pass->refs++; /* the transfer's */
		if (suspend) {
			pass->suspended = true;
			MHD_suspend_connection(c);
		}
		pass->next = pool->incoming;
		pool->incoming = pass;
	}
	pthread_mutex_unlock(&pool->lock);
	return !stop;
}

static enum MHD_Result too_large(struct MHD_Connection *c, int64_t max)
{
	/* the apiserver's answer; the rest of the body is not read */
	char msg[96];
	snprintf(msg, sizeof(msg), "Request entity too large: limit is %lld",
		 (long long)max);
	struct proxy_status st = {
		.reason = PROXY_RequestEntityTooLarge,
		.message = msg,
		.close = true,
	};
	return proxy_reply_status(c, &st);
}

/* The first call: refuse a body too large or past the pool's budget,
 * else make *state, and start a request with a body at once, so that
 * its bytes go up as they come. */
static enum MHD_Result first_call(struct proxy_pass_pool *pool,
				  struct MHD_Connection *c, const char *target,
				  const char *method, struct proxy_pass **state)
{
	int64_t len = body_length(c);
	if (len > pool->max_body) {
		/* Answered at its header and closed, a client still sending
		 * may lose the answer to the reset that unread bytes cause.
		 * A body up to twice the limit (a mistaken apply, not an
		 * attack) is read and dropped first, within its deadline,
		 * and then answered, as a chunked one past the limit is; a
		 * larger one is answered at once. */
		if (len > 2 * pool->max_body)
			return too_large(c, pool->max_body);
		struct proxy_pass *drop = pass_new(pool, c, target, method);
		if (!drop)
			return too_large(c, pool->max_body);
		drop->too_large = true;
		drop->gone = true; /* never handed to the curl thread */
		*state = drop;
		return MHD_YES;
	}
	bool reserved = false;
	if (len) {
		size_t held = __atomic_add_fetch(&pool->held, UPLOAD_BUF,
						 __ATOMIC_RELAXED);
		reserved = true;
		if (held > LIMIT_REQUEST_BODIES_BYTES) {
			__atomic_sub_fetch(&pool->held, UPLOAD_BUF,
					   __ATOMIC_RELAXED);
			char details[48];
			snprintf(details, sizeof(details),
				 "{\"retryAfterSeconds\":%d}",
				 LIMIT_RETRY_AFTER_S);
			struct proxy_status st = {
				.reason = PROXY_TooManyRequests,
				.message =
					"too many request bodies are on their way "
					"upstream, please try again later",
				.details = details,
				.retry_after = LIMIT_RETRY_AFTER_S,
				.close = true,
			};
			return proxy_reply_status(c, &st);
		}
	}
	struct proxy_pass *pass = pass_new(pool, c, target, method);
	if (!pass) { /* out of memory, or credentials that cannot be used */
		if (reserved)
			__atomic_sub_fetch(&pool->held, UPLOAD_BUF,
					   __ATOMIC_RELAXED);
		return proxy_reply_error(
			c, PROXY_ServiceUnavailable,
			"informer-proxy cannot forward this request to the "
			"upstream now (see its log)");
	}
	pass->reserved = reserved;
	*state = pass;
	if (!pass->has_body)
		return MHD_YES;
	pthread_mutex_lock(&pass->lock);
	bool ok = hand_over(pool, pass, c, false);
	pthread_mutex_unlock(&pass->lock);
	if (!ok)
		return proxy_reply_error(c, PROXY_ServiceUnavailable,
					 "informer-proxy is shutting down");
	wake_pool(pool);
	return MHD_YES;
}

/* Body bytes from libmicrohttpd: into pass->up as far as it has room;
 * the connection is suspended with the rest left in *upload_size until
 * libcurl has read some. Bytes of a transfer that has ended (an
 * upstream that answered before reading the body) are dropped. */
static enum MHD_Result take_body(struct proxy_pass *pass,
				 struct MHD_Connection *c, const char *upload,
				 size_t *upload_size)
{
	struct proxy_pass_pool *pool = pass->pool;
	pthread_mutex_lock(&pass->lock);
	bool over = pass->body_seen + (int64_t)*upload_size > pool->max_body;
	if (over && !pass->too_large) {
		/* chunked: past the limit only now. The transfer ends; the
		 * rest is read and dropped (libmicrohttpd cannot answer
		 * before the body's end), within the body's deadline. */
		pass->too_large = true;
		pass->gone = true;
		wake_pool(pool);
	}
	if (pass->state >= PASS_DONE || pass->gone) {
		pass->body_seen += (int64_t)*upload_size;
		*upload_size = 0;
		pthread_mutex_unlock(&pass->lock);
		return MHD_YES;
	}
	size_t held = pass->up.len - pass->up_off;
	size_t take = UPLOAD_BUF - held;
	if (take > *upload_size)
		take = *upload_size;
	if (take && pass->up_off && pass->up.len + take > UPLOAD_BUF) {
		memmove(pass->up.p, pass->up.p + pass->up_off, held);
		pass->up.len = held;
		pass->up_off = 0;
	}
	if (take && buf_add(&pass->up, upload, take)) {
		pthread_mutex_unlock(&pass->lock);
		return MHD_NO;
	}
	pass->body_seen += (int64_t)take;
	*upload_size -= take;
	bool wake = take && pass->up_paused && !pass->want_up_unpause;
	if (wake)
		pass->want_up_unpause = true;
	enum MHD_Result ret = MHD_YES;
	if (*upload_size) {
		if (proxy_request_client_gone(c)) {
			ret = MHD_NO;
		} else { /* full: wait for libcurl to read */
			pass->suspended = true;
			MHD_suspend_connection(c);
		}
	}
	pthread_mutex_unlock(&pass->lock);
	if (wake)
		wake_pool(pool);
	return ret;
}

enum MHD_Result proxy_pass_handle(struct proxy_pass_pool *pool,
				  struct MHD_Connection *c, const char *target,
				  const char *method, const char *upload,
				  size_t *upload_size,
				  struct proxy_pass **state)
{
	struct proxy_pass *pass = *state;
	if (!pass)
		return first_call(pool, c, target, method, state);
	if (*upload_size) {
		if (!pass->has_body) { /* a body it did not announce */
			*upload_size = 0;
			return MHD_YES;
		}
		return take_body(pass, c, upload, upload_size);
	}
	if (pass->too_large)
		return too_large(c, pool->max_body);
	pthread_mutex_lock(&pass->lock);
	if (!pass->up_done) { /* the whole body is in */
		pass->up_done = true;
		if (pass->up_paused && !pass->want_up_unpause) {
			pass->want_up_unpause = true;
			wake_pool(pool);
		}
	}
	enum pass_state st = pass->state;
	if (st == PASS_NEW) {
		/* Hand it to the curl thread, unless that is shutting down:
		 * a connection left suspended would outlive the daemon. */
		bool ok = hand_over(pool, pass, c, true);
		pthread_mutex_unlock(&pass->lock);
		if (!ok)
			return proxy_reply_error(
				c, PROXY_ServiceUnavailable,
				"informer-proxy is shutting down");
		wake_pool(pool);
		return MHD_YES;
	}
	/* An answer without a body, or one to shape, is queued once its
	 * transfer has ended: it then owes pass nothing, and the upstream's
	 * answer is observed whole (finish() resumes the connection). */
	bool wait = st == PASS_STARTED ||
		    (st == PASS_HEADERS &&
		     (pass->shape || no_body(pass->method, pass->status) ||
		      (pass->hold &&
		       pass->data.len - pass->data_off < HOLD_BYTES)));
	if (wait) { /* resumed early; wait on */
		if (proxy_request_client_gone(c)) {
			/* poked by poke_idle(): the client left, close it;
			 * proxy_pass_done() then ends the upstream transfer */
			pthread_mutex_unlock(&pass->lock);
			return MHD_NO;
		}
		pass->suspended = true;
		MHD_suspend_connection(c);
		pthread_mutex_unlock(&pass->lock);
		return MHD_YES;
	}
	pthread_mutex_unlock(&pass->lock);
	return respond(pass, c);
}

int proxy_pass_shape(struct proxy_pass *pass, const struct cache_scope *s,
		     bool managed)
{
	if (!pass || pass->state != PASS_NEW || pass->has_body ||
	    strcmp(pass->method, "GET") || (!s->nstrip && !managed))
		return 0;
	if (cache_scope_init(&pass->scope, NULL, NULL, NULL, s->strip,
			     s->nstrip))
		return -ENOMEM;
	pass->strip_managed = managed;
	/* the answer is read as it is, never compressed: ask for none */
	struct curl_slist *kept = NULL;
	for (struct curl_slist *l = pass->hdrs; l; l = l->next) {
		if (!strncasecmp(l->data, "Accept-Encoding:", 16))
			continue;
		struct curl_slist *k = curl_slist_append(kept, l->data);
		if (!k) {
			curl_slist_free_all(kept);
			cache_scope_free(&pass->scope);
			return -ENOMEM;
		}
		kept = k;
	}
	curl_slist_free_all(pass->hdrs);
	pass->hdrs = kept;
	pass->shape = true;
	return 0;
}

void proxy_pass_done(struct proxy_pass *pass)
{
	if (!pass)
		return;
	pthread_mutex_lock(&pass->lock);
	if (pass->state < PASS_DONE)
		pass->gone = true;
	pthread_mutex_unlock(&pass->lock);
	wake_pool(pass->pool);
	proxy_pass_put(pass);
}
