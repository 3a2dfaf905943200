/*
 * server: the local HTTP side's daemons and their life. libmicrohttpd
 * daemons (epoll, a small thread pool, suspend/resume for watches) on
 * every API listener, whose requests dispatch.c routes; the
 * --metrics-listen daemon; the ticker; a graceful drain and the stop.
 *
 * Threads: proxy_server_start(), proxy_server_drain(), proxy_server_stop() and
 * proxy_server_release() on main's thread, in that order. proxy_server_start() starts
 * libmicrohttpd's threads (the request pool) and the ticker (twice a
 * second: wakes watches and freshness waits, reaps slow headers, expires
 * paging pins); the access handler then calls each handler on the pool
 * thread serving the connection. A suspended connection is resumed by
 * whoever it waits on (watch.h, fresh.h); proxy_server_stop() resumes all.
 */
#ifndef PROXY_SERVER_H
#define PROXY_SERVER_H

#include "proxy/request.h"

/* Start listening; logs "listening on http://HOST:PORT" (https:// with
 * --tls-cert-file; the unix socket stays plain HTTP). Returns 0 or
 * -errno with err set. */
int proxy_server_start(struct proxy *p, char *err, size_t errlen);
/* A graceful stop's first half (SIGTERM): stop accepting on every
 * listener, remove the unix socket, end every local watch the way a
 * timeoutSeconds ends it, close idle connections, and wait up to
 * grace_seconds for the requests in flight. Logs what it did. Then
 * proxy_server_stop() as always. */
void proxy_server_drain(struct proxy *p, int grace_seconds);
/* End every watch, stop the daemon and the ticker. Reflectors are the
 * caller's. */
void proxy_server_stop(struct proxy *p);
/* Free what the reflectors may still call into; after they stopped. */
void proxy_server_release(struct proxy *p);

#endif
