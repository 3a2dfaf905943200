/*
 * conns: what client connections may cost, all together. It counts the
 * open connections (libmicrohttpd's connection notifications) and the
 * open local watches, says when a request is past --max-connections or a
 * watch past --max-watchers (the caller answers 429 with
 * proxy_conns_refuse), and cuts off a connection that has not delivered
 * a whole request header within --header-timeout of its accept, or a
 * whole request body within --request-body-timeout of its header: a
 * slowloris, which libmicrohttpd has no option against.
 *
 * The limits in force are fixed by proxy_conns_new() from the flags and
 * RLIMIT_NOFILE and never change after. libmicrohttpd is given
 * proxy_conns_limit() (the maximum plus a reserve): connections on the
 * reserve are answered 429, except the health probes, and must send
 * their header within LIMIT_RESERVE_HEADER_TIMEOUT_S, so that a
 * slowloris cannot hold the reserve either. A connection is on the
 * reserve from its accept to its close, whatever others do meanwhile,
 * and is never kept alive: its one answer says Connection: close, so
 * that kept-alive probes cannot hold the reserve.
 *
 * Threads: made and freed by main (proxy_server_start(), proxy_server_stop()); the
 * limits are read-only after that, the counts atomic, and the list of
 * connections under one mutex held for a list walk, so every call below
 * may come from any thread; each says who calls it. No call suspends or
 * resumes a connection.
 *
 * Ownership: struct proxy_conns belongs to struct proxy; it is made
 * before the daemons start and freed after they stopped. Each open
 * connection has a struct conn (its socket context), made at
 * NOTIFY_STARTED and freed at NOTIFY_CLOSED.
 */
#ifndef PROXY_CONNS_H
#define PROXY_CONNS_H

#include <microhttpd.h>
#include <stdbool.h>

#include "config/flags.h"

struct proxy_conns;

/* The limits for cfg under an open-file limit of nofile descriptors
 * (<= 0: unknown, no bound). Logs the limits in force, and a warning
 * when nofile lowers --max-connections. Main thread. NULL when out of
 * memory; else free with proxy_conns_free(). cfg is read now only. */
struct proxy_conns *proxy_conns_new(const struct config *cfg, long nofile);
/* Main thread, after every daemon using cs has stopped. NULL is fine. */
void proxy_conns_free(struct proxy_conns *cs);

/* For MHD_OPTION_CONNECTION_LIMIT: the maximum plus the reserve. Any
 * thread, as proxy_conns_max(). */
unsigned proxy_conns_limit(const struct proxy_conns *cs);
/* --max-connections as in force (perhaps lowered). */
int proxy_conns_max(const struct proxy_conns *cs);

/* MHD_OPTION_NOTIFY_CONNECTION's callback; cls is the struct proxy_conns.
 * Called by libmicrohttpd on the connection's thread: makes the
 * connection's struct conn at NOTIFY_STARTED, frees it at NOTIFY_CLOSED. */
void proxy_conns_notify(void *cls, struct MHD_Connection *c,
			void **socket_context,
			enum MHD_ConnectionNotificationCode code);
/* A whole request header has come on c: the first call of the access
 * handler for a request, on c's request thread. */
void proxy_conns_header_done(struct MHD_Connection *c);
/* Whether c's request owes its body (owed: its header is in and
 * announces one; the whole body is due --request-body-timeout from now)
 * or not (it has all come). c's request thread, from its access handler. */
void proxy_conns_body(struct proxy_conns *cs, struct MHD_Connection *c,
		      bool owed);
/* True when c was accepted past --max-connections: the caller answers
 * only a health probe on it (anything else gets proxy_conns_refuse). It
 * also makes the answer, whichever it is, close c (Connection: close).
 * c's request thread, from its access handler, before the answer is
 * queued. */
bool proxy_conns_reserved(struct MHD_Connection *c);
/* c's request is over (the request-completed callback, on c's
 * thread); the next one on the same connection, if any, is awaited for
 * --idle-timeout and then --header-timeout. */
void proxy_conns_request_done(struct proxy_conns *cs, struct MHD_Connection *c);

/* True when more connections are open than --max-connections. Request
 * threads. */
bool proxy_conns_over(struct proxy_conns *cs);
/* Take a watch slot: false (nothing taken) past --max-watchers. The
 * watch's request thread takes it; whoever ends the watch puts it back,
 * once. */
bool proxy_conns_watch_get(struct proxy_conns *cs);
void proxy_conns_watch_put(struct proxy_conns *cs);
/* Queue the 429 TooManyRequests Status with Retry-After, and the
 * connection closed after it; what says which limit ("connections",
 * "watches"). c's request thread, from its access handler. */
enum MHD_Result proxy_conns_refuse(struct MHD_Connection *c, const char *what,
				   int limit);

/* Shut down every connection past its header or body deadline
 * (shutdown(): libmicrohttpd still closes the socket, and ends the
 * request, its upstream transfer included). From the ticker, a few times
 * a second. Returns how many were cut for want of a header, and in
 * *bodies (NULL is fine) for want of a body, for the caller to count:
 * this module counts nothing itself, so /metrics may read it. */
int proxy_conns_reap(struct proxy_conns *cs, int *bodies);

/* For a graceful stop: shut down every connection that waits for a
 * request header (idle between requests, or yet to send one) and return
 * how many have a request in flight. Main thread (proxy_server_drain()), again
 * until that is 0. */
int proxy_conns_drain(struct proxy_conns *cs);

/* For /metrics (a request thread) and the log. Any thread. */
int proxy_conns_open(struct proxy_conns *cs);
int proxy_conns_watchers(struct proxy_conns *cs);

#endif
