/*
 * conns: connection and watch counts, the 429 refusal and the header
 * deadline reaper (see conns.h).
 *
 * Why a descriptor the reaper shuts down is always the connection's own:
 * libmicrohttpd 0.9.75 calls NOTIFY_CLOSED before it closes the socket
 * (MHD_cleanup_connections, and the failed-start path of
 * new_connection_process_), and NOTIFY_CLOSED takes the connection off
 * the list under the lock the reaper holds while it calls shutdown().
 * So while a struct conn is on the list its fd is open and has not been
 * reused. shutdown() rather than close(): libmicrohttpd still owns the
 * descriptor; it sees the connection end, and closes it itself.
 */
#include "proxy/front/conns.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "config/alloc.h"
#include "config/limits.h"
#include "config/log.h"
#include "proxy/reply.h"
#include "proxy/status.h"

struct conn {
	struct conn *prev, *next; /* on proxy_conns.list, under its lock */
	int fd;			  /* libmicrohttpd's; never closed here */
	int64_t deadline_ms;	  /* atomic; a whole header is due by then,
					 * 0 when none is awaited */
	int64_t body_due_ms;	  /* atomic; a whole request body is due
					 * by then, 0 when none is awaited */
	bool cut;		  /* under the lock: shut down once */
	bool reserve;		  /* taken past --max-connections: fixed at
				   * accept, health probes only, one answer */
};

struct proxy_conns {
	int max;     /* --max-connections in force */
	int reserve; /* above it: probes and refusals */
	int max_watchers;
	int idle_ms, header_ms, body_ms;
	int open;	      /* atomic: connections */
	int watchers;	      /* atomic: local watches */
	pthread_mutex_t lock; /* the list and every conn's cut */
	struct conn list;     /* sentinel of a circular list */
};

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct proxy_conns *proxy_conns_new(const struct config *cfg, long nofile)
{
	struct proxy_conns *cs = xcalloc(1, sizeof(*cs));
	if (!cs)
		return NULL;
	/* Descriptors for clients: what the open-file limit leaves after
	 * those kept for the upstream, logs and listeners (half of a small
	 * limit at most, so that a tiny one still serves someone). */
	long fds = nofile > 0 ? nofile : 2L * 1000000 + LIMIT_FD_RESERVE;
	long keep = LIMIT_FD_RESERVE < fds / 2 ? LIMIT_FD_RESERVE : fds / 2;
	long clients = fds - keep;
	cs->reserve = LIMIT_CONNECTION_RESERVE;
	if (cs->reserve > clients / 4)
		cs->reserve = (int)(clients / 4);
	long room = clients - cs->reserve;
	cs->max = cfg->max_connections;
	if (cs->max > room) {
		cs->max = room > 1 ? (int)room : 1;
		log_warn(
			"--max-connections %d lowered to %d: RLIMIT_NOFILE %ld leaves "
			"descriptors for no more (%ld kept for the upstream and files, "
			"%d for health probes)",
			cfg->max_connections, cs->max, nofile, keep,
			cs->reserve);
	}
	cs->max_watchers = cfg->max_watchers;
	cs->idle_ms = cfg->idle_timeout * 1000;
	cs->header_ms = cfg->header_timeout * 1000;
	cs->body_ms =
		(cfg->request_body_timeout > 0 ? cfg->request_body_timeout :
						 LIMIT_REQUEST_BODY_TIMEOUT_S) *
		1000;
	cs->list.prev = cs->list.next = &cs->list;
	pthread_mutex_init(&cs->lock, NULL);
	log_info(
		"limits: %d connections (and %d for health probes), %d watches, "
		"idle timeout %d s, header timeout %d s",
		cs->max, cs->reserve, cs->max_watchers, cfg->idle_timeout,
		cfg->header_timeout);
	return cs;
}

void proxy_conns_free(struct proxy_conns *cs)
{
	if (!cs)
		return;
	/* the daemons have stopped: NOTIFY_CLOSED emptied the list */
	pthread_mutex_destroy(&cs->lock);
	free(cs);
}

unsigned proxy_conns_limit(const struct proxy_conns *cs)
{
	return (unsigned)cs->max + (unsigned)cs->reserve;
}

int proxy_conns_max(const struct proxy_conns *cs)
{
	return cs->max;
}

static void started(struct proxy_conns *cs, struct MHD_Connection *c,
		    void **socket_context)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct conn *cn = xcalloc(1, sizeof(*cn));
	if (!cn) {
		/* uncounted and unwatched: end it at once */
		if (ci)
			shutdown(ci->connect_fd, SHUT_RDWR);
		return;
	}
	cn->fd = ci ? ci->connect_fd : -1;
	int n = __atomic_add_fetch(&cs->open, 1, __ATOMIC_RELAXED);
	cn->reserve = n > cs->max;
	cn->deadline_ms = now_ms() +
			  (cn->reserve ? LIMIT_RESERVE_HEADER_TIMEOUT_S * 1000 :
					 cs->header_ms);
	pthread_mutex_lock(&cs->lock);
	cn->prev = cs->list.prev;
	cn->next = &cs->list;
	cs->list.prev->next = cn;
	cs->list.prev = cn;
	pthread_mutex_unlock(&cs->lock);
	*socket_context = cn;
}

static void closed(struct proxy_conns *cs, void **socket_context)
{
	struct conn *cn = *socket_context;
	if (!cn)
		return;
	pthread_mutex_lock(&cs->lock);
	cn->prev->next = cn->next;
	cn->next->prev = cn->prev;
	pthread_mutex_unlock(&cs->lock);
	__atomic_sub_fetch(&cs->open, 1, __ATOMIC_RELAXED);
	free(cn);
	*socket_context = NULL;
}

void proxy_conns_notify(void *cls, struct MHD_Connection *c,
			void **socket_context,
			enum MHD_ConnectionNotificationCode code)
{
	if (code == MHD_CONNECTION_NOTIFY_STARTED)
		started(cls, c, socket_context);
	else if (code == MHD_CONNECTION_NOTIFY_CLOSED)
		closed(cls, socket_context);
}

static struct conn *conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return ci ? ci->socket_context : NULL;
}

void proxy_conns_header_done(struct MHD_Connection *c)
{
	struct conn *cn = conn_of(c);
	if (cn)
		__atomic_store_n(&cn->deadline_ms, 0, __ATOMIC_RELAXED);
}

void proxy_conns_body(struct proxy_conns *cs, struct MHD_Connection *c,
		      bool owed)
{
	struct conn *cn = conn_of(c);
	if (cn)
		__atomic_store_n(&cn->body_due_ms,
				 owed ? now_ms() + cs->body_ms : 0,
				 __ATOMIC_RELAXED);
}

bool proxy_conns_reserved(struct MHD_Connection *c)
{
	struct conn *cn = conn_of(c);
	if (!cn || !cn->reserve)
		return false;
	/* The answer says Connection: close: libmicrohttpd reads that off
	 * the request as if the client had asked, and closes after it. */
	MHD_set_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONNECTION,
				 "close");
	return true;
}

void proxy_conns_request_done(struct proxy_conns *cs, struct MHD_Connection *c)
{
	/* As Go's server: a kept-alive connection may wait for the idle
	 * timeout, then has the header timeout for the next header. One
	 * on the reserve gets no idle time: its answer closed it, and
	 * should the close not come, the reaper does. */
	struct conn *cn = conn_of(c);
	if (cn) {
		__atomic_store_n(&cn->body_due_ms, 0, __ATOMIC_RELAXED);
		__atomic_store_n(
			&cn->deadline_ms,
			now_ms() +
				(cn->reserve ?
					 LIMIT_RESERVE_HEADER_TIMEOUT_S * 1000 :
					 cs->idle_ms + cs->header_ms),
			__ATOMIC_RELAXED);
	}
}

bool proxy_conns_over(struct proxy_conns *cs)
{
	return __atomic_load_n(&cs->open, __ATOMIC_RELAXED) > cs->max;
}

bool proxy_conns_watch_get(struct proxy_conns *cs)
{
	if (__atomic_add_fetch(&cs->watchers, 1, __ATOMIC_RELAXED) <=
	    cs->max_watchers)
		return true;
	__atomic_sub_fetch(&cs->watchers, 1, __ATOMIC_RELAXED);
	return false;
}

void proxy_conns_watch_put(struct proxy_conns *cs)
{
	__atomic_sub_fetch(&cs->watchers, 1, __ATOMIC_RELAXED);
}

enum MHD_Result proxy_conns_refuse(struct MHD_Connection *c, const char *what,
				   int limit)
{
	char msg[160], details[48];
	snprintf(msg, sizeof(msg),
		 "Too many requests, please try again later "
		 "(more than %d %s open).",
		 limit, what);
	snprintf(details, sizeof(details), "{\"retryAfterSeconds\":%d}",
		 LIMIT_RETRY_AFTER_S);
	struct proxy_status st = {
		.reason = PROXY_TooManyRequests,
		.message = msg,
		.details = details,
		.retry_after = LIMIT_RETRY_AFTER_S,
		.close = true,
	};
	log_v(2, "refused: more than %d %s open", limit, what);
	return proxy_reply_status(c, &st);
}

int proxy_conns_reap(struct proxy_conns *cs, int *bodies)
{
	int64_t now = now_ms();
	int cut = 0, slow = 0;
	pthread_mutex_lock(&cs->lock);
	for (struct conn *cn = cs->list.next; cn != &cs->list; cn = cn->next) {
		int64_t due =
			__atomic_load_n(&cn->deadline_ms, __ATOMIC_RELAXED);
		int64_t body =
			__atomic_load_n(&cn->body_due_ms, __ATOMIC_RELAXED);
		bool late_header = due && now >= due;
		bool late_body = body && now >= body;
		if ((!late_header && !late_body) || cn->cut || cn->fd < 0)
			continue;
		shutdown(cn->fd, SHUT_RDWR); /* libmicrohttpd closes it */
		cn->cut = true;
		if (late_header)
			cut++;
		else
			slow++;
	}
	pthread_mutex_unlock(&cs->lock);
	if (cut)
		log_v(1,
		      "closed %d connection(s) that sent no whole request header "
		      "in time",
		      cut);
	if (slow)
		log_v(1,
		      "closed %d connection(s) that sent no whole request body "
		      "in time",
		      slow);
	if (bodies)
		*bodies = slow;
	return cut;
}

int proxy_conns_drain(struct proxy_conns *cs)
{
	int busy = 0;
	pthread_mutex_lock(&cs->lock);
	for (struct conn *cn = cs->list.next; cn != &cs->list; cn = cn->next) {
		if (cn->cut || cn->fd < 0)
			continue;
		if (!__atomic_load_n(&cn->deadline_ms, __ATOMIC_RELAXED)) {
			busy++; /* a request in flight */
			continue;
		}
		shutdown(cn->fd, SHUT_RDWR); /* libmicrohttpd closes it */
		cn->cut = true;
	}
	pthread_mutex_unlock(&cs->lock);
	return busy;
}

int proxy_conns_open(struct proxy_conns *cs)
{
	return __atomic_load_n(&cs->open, __ATOMIC_RELAXED);
}

int proxy_conns_watchers(struct proxy_conns *cs)
{
	return __atomic_load_n(&cs->watchers, __ATOMIC_RELAXED);
}
