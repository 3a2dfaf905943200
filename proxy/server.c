/*
 * server: the local HTTP side's daemons and their life (see server.h).
 */
#include "proxy/server.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "config/alloc.h"
#include "config/limits.h"
#include "config/log.h"
#include "proxy/discovery.h"
#include "proxy/dispatch.h"
#include "proxy/fanout.h"
#include "proxy/ahead.h"
#include "proxy/encode.h"
#include "proxy/fresh.h"
#include "proxy/front/authn.h"
#include "proxy/front/conns.h"
#include "proxy/front/listen.h"
#include "proxy/front/origin.h"
#include "proxy/front/revoke.h"
#include "proxy/front/tls.h"
#include "proxy/health.h"
#include "proxy/metrics.h"
#include "proxy/observe.h"
#include "proxy/pass/pass.h"
#include "proxy/pass/upgrade.h"
#include "proxy/reply.h"
#include "proxy/status.h"

#define TICK_MS 500
#define GIVE_BACK_S 10 /* how often expired pins go, and freed memory back */

static void *ticker(void *arg)
{
	struct proxy *p = arg;
	unsigned long ticks = 0;
	pthread_mutex_lock(&p->tick_lock);
	while (!proxy_stopping(p)) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += TICK_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&p->tick_cond, &p->tick_lock, &ts);
		for (int i = 0, n = proxy_nres(p); i < n; i++)
			cache_history_wake_all(p->res[i]->history);
		proxy_fresh_tick(p->fresh);
		int slow = 0;
		for (int cut = proxy_conns_reap(p->conns, &slow); cut > 0;
		     cut--)
			PROXY_COUNT(header_timeouts);
		for (; slow > 0; slow--)
			PROXY_COUNT(body_timeouts);
		if (++ticks % (GIVE_BACK_S * 1000 / TICK_MS) == 0) {
			/* expired pins first: what they held is then free */
			for (int i = 0, n = proxy_nres(p); i < n; i++)
				cache_store_expire_pins(p->res[i]->store);
			alloc_give_back();
		}
	}
	pthread_mutex_unlock(&p->tick_lock);
	return NULL;
}

static void on_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	size_t n = strlen(msg);
	while (n && msg[n - 1] == '\n')
		msg[--n] = '\0';
	log_v(1, "libmicrohttpd: %s", msg);
}

/* One libmicrohttpd daemon over addr, or over the listening socket fd;
 * HTTPS when tls is not NULL. Both daemons count their connections in
 * p->conns together. libmicrohttpd's idle timeout is --idle-timeout: a
 * watch with nothing to send is suspended and resumed by the ticker
 * twice a second, which restarts it, so only a watch whose client has
 * stopped reading is idle; so is a passthrough one (resumed every
 * second). */
static struct MHD_Daemon *start_daemon(struct proxy *p, struct sockaddr *addr,
				       int fd, unsigned threads, unsigned flags,
				       struct proxy_tls *tls)
{
	struct MHD_OptionItem tls_opts[PROXY_TLS_NOPTS];
	flags |= proxy_tls_daemon_options(tls, tls_opts);
	return MHD_start_daemon(
		MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME |
			(proxy_upgrade_supported() ? MHD_ALLOW_UPGRADE : 0) |
			MHD_USE_ERROR_LOG | flags,
		0, NULL, NULL, proxy_dispatch_request, p,
		MHD_OPTION_EXTERNAL_LOGGER, on_log, NULL,
		addr ? MHD_OPTION_SOCK_ADDR : MHD_OPTION_LISTEN_SOCKET,
		addr ? (intptr_t)addr : (intptr_t)fd,
		MHD_OPTION_THREAD_POOL_SIZE, threads,
		MHD_OPTION_CONNECTION_LIMIT, proxy_conns_limit(p->conns),
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)p->cfg->idle_timeout,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT,
		(size_t)(p->cfg->connection_memory > 0 ?
				 p->cfg->connection_memory :
				 LIMIT_CONNECTION_MEMORY_KIB) *
			1024,
		MHD_OPTION_NOTIFY_CONNECTION, proxy_conns_notify, p->conns,
		MHD_OPTION_UNESCAPE_CALLBACK, proxy_dispatch_unescape, NULL,
		MHD_OPTION_NOTIFY_COMPLETED, proxy_dispatch_completed, p,
		MHD_OPTION_URI_LOG_CALLBACK, proxy_dispatch_uri, NULL,
		MHD_OPTION_ARRAY, tls_opts, MHD_OPTION_END);
}

/* Daemon i's stand-in for its listening socket (front/listen.h), made
 * before the daemon starts: 0, or -errno with err set. */
static int stand_in(struct proxy *p, int i, char *err, size_t errlen)
{
	p->stand_in[i] = proxy_listen_stand_in();
	if (p->stand_in[i] >= 0)
		return 0;
	snprintf(err, errlen, "cannot make a descriptor: %s",
		 strerror(-p->stand_in[i]));
	return p->stand_in[i];
}

/* Both daemons stop taking connections: each listening socket closed
 * and its stand-in put in its place, once; never MHD_quiesce_daemon()
 * (front/listen.h says why). */
static void stop_accepting(struct proxy *p)
{
	struct MHD_Daemon *ds[2] = { p->daemon, p->udaemon };
	for (int i = 0; i < 2; i++) {
		if (!ds[i] || p->stand_in[i] < 0)
			continue;
		const union MHD_DaemonInfo *info =
			MHD_get_daemon_info(ds[i], MHD_DAEMON_INFO_LISTEN_FD);
		if (info && info->listen_fd != MHD_INVALID_SOCKET)
			proxy_listen_take_away(info->listen_fd, p->stand_in[i]);
		else
			close(p->stand_in[i]);
		p->stand_in[i] = -1;
	}
}

/*
 * --metrics-listen: /metrics and the probes, nothing else. No request
 * reaches the upstream or the cache's API from here, and none carries
 * an identity (no credentials are read or forwarded), so it may listen
 * where a scraper reaches it (a pod IP). Its connections are its own
 * (MHD's limit, not --max-connections): a saturated API port leaves
 * scraping and probing alone. A request is answered on its last call,
 * once any body has been read and dropped.
 */
static enum MHD_Result on_metrics_request(void *cls, struct MHD_Connection *c,
					  const char *url, const char *method,
					  const char *version,
					  const char *upload,
					  size_t *upload_size, void **state)
{
	static int seen;
	struct proxy *p = cls;
	if (!*state) {
		*state = &seen;
		return MHD_YES;
	}
	if (*upload_size) {
		*upload_size = 0;
		return MHD_YES;
	}
	bool known = !strcmp(url, "/metrics") || proxy_health_path(url);
	if (!known)
		return proxy_reply_error(c, PROXY_NotFound,
					 "the server could not find the "
					 "requested resource");
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return proxy_reply_error(c, PROXY_MethodNotAllowed,
					 "the server does not allow this "
					 "method on the requested resource");
	if (!strcmp(url, "/metrics"))
		return proxy_metrics_handle(p, c);
	return proxy_health_handle(p, c, url);
}

/* The --metrics-listen daemon on its own thread; 0, or -errno with err
 * set. */
static int start_metrics(struct proxy *p, char *err, size_t errlen)
{
	const char *v = p->cfg->metrics_listen;
	char *host = NULL;
	int port;
	struct sockaddr_storage ss;
	int rc = config_flags_hostport("metrics-listen", v, &host, &port, err,
				       errlen);
	if (rc)
		return rc;
	char why[256];
	rc = proxy_listen_addr(host, port, &ss, why, sizeof(why));
	free(host);
	if (rc) { /* its messages name --listen */
		const char *w = why;
		if (!strncmp(w, "--listen: ", 10))
			w += 10;
		snprintf(err, errlen, "--metrics-listen: %s", w);
		return rc;
	}
	p->mdaemon = MHD_start_daemon(
		MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG |
			(ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
		0, NULL, NULL, on_metrics_request, p,
		MHD_OPTION_EXTERNAL_LOGGER, on_log, NULL, MHD_OPTION_SOCK_ADDR,
		(struct sockaddr *)&ss, MHD_OPTION_CONNECTION_LIMIT,
		(unsigned)LIMIT_METRICS_CONNECTIONS,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)LIMIT_METRICS_IDLE_S,
		MHD_OPTION_UNESCAPE_CALLBACK, proxy_dispatch_unescape, NULL,
		MHD_OPTION_END);
	if (!p->mdaemon) {
		int e = errno;
		snprintf(err, errlen, "--metrics-listen %s: cannot listen: %s",
			 v, strerror(e));
		return -EADDRINUSE;
	}
	const union MHD_DaemonInfo *info =
		MHD_get_daemon_info(p->mdaemon, MHD_DAEMON_INFO_BIND_PORT);
	p->metrics_port = info ? info->port : port;
	char numeric[64];
	proxy_listen_numeric(&ss, numeric, sizeof(numeric));
	/* worded apart from "listening on", which names the API port */
	log_info("metrics and probes (no API) served on http://%s:%d", numeric,
		 p->metrics_port);
	return 0;
}

int proxy_server_start(struct proxy *p, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	const char *host = p->cfg->listen_host;
	int rc = proxy_listen_addr(host, p->cfg->listen_port, &ss, err, errlen);
	if (rc)
		return rc;
	bool v6 = ss.ss_family == AF_INET6;
	rc = proxy_listen_check_exposure(p->cfg, err, errlen);
	if (rc)
		return rc;
	if (proxy_observe_init(p)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	unsigned threads = p->cfg->threads > 0 ?
				   (unsigned)p->cfg->threads :
				   (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	pthread_mutex_init(&p->tick_lock, NULL);
	pthread_cond_init(&p->tick_cond, NULL);
	p->inited = true;
	p->conns = proxy_conns_new(p->cfg, p->nofile);
	if (!p->conns) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* one fan-out worker per core, as libmicrohttpd's pool; a stuck
	 * client is dropped after the idle timeout, as libmicrohttpd would */
	p->fanout = proxy_fanout_new(threads, (unsigned)p->cfg->idle_timeout);
	/* a reflector writes the few streams its events wake itself */
	if (p->fanout)
		proxy_fanout_set_inline_max(p->fanout,
					    (unsigned)p->cfg->watch_inline_max);
	cache_history_set_wake_hooks(proxy_fanout_wake_begin,
				     proxy_fanout_wake_end);
	p->disc = proxy_discovery_new(p->up, p->cfg->discovery_refresh);
	p->fresh = proxy_fresh_new(p->up, p->res, p->nres);
	p->encode = proxy_encode_new();	   /* NULL: encoded inline, as before */
	p->ahead = proxy_ahead_pool_new(); /* NULL: indented by the sender */
	p->pass = proxy_pass_pool_new(p->up,
				      p->cfg->client_auth == CLIENT_AUTH_NONE,
				      p->cfg->passthrough_timeout);
	if (p->pass && p->cfg->max_request_body > 0)
		proxy_pass_pool_set_max_body(p->pass, p->cfg->max_request_body);
	p->upgrade = proxy_upgrade_pool_new(
		p->up, p->cfg->client_auth == CLIENT_AUTH_NONE,
		p->cfg->passthrough_timeout, 0, err, errlen);
	if (!p->upgrade)
		return -EINVAL;
	if (p->cfg->client_auth == CLIENT_AUTH_DELEGATED) {
		p->authn = proxy_authn_new(p->up, p->cfg->authn_allow_ttl,
					   p->cfg->authn_deny_ttl,
					   p->cfg->authn_source_reviews);
		if (!p->authn) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		/* NULL is survivable: the TTLs still bound every decision */
		p->revoke = proxy_revoke_start(p->up, p->authn);
	}
	if (!p->disc || !p->fresh || !p->pass || !p->fanout) {
		snprintf(err, errlen, "cannot start the proxy's threads");
		return -ENOMEM;
	}
	if (proxy_tls_configure(NULL, p->cfg->tls_min_version,
				p->cfg->tls_cipher_suites, err, errlen))
		return -EINVAL;
	if (p->cfg->tls_cert_file) {
		p->tls = proxy_tls_new(p->cfg->tls_cert_file,
				       p->cfg->tls_key_file, err, errlen);
		if (!p->tls ||
		    proxy_tls_configure(p->tls, p->cfg->tls_min_version,
					p->cfg->tls_cipher_suites, err, errlen))
			return -EINVAL;
	}
	if (p->cfg->client_auth == CLIENT_AUTH_NONE) {
		p->origin = proxy_origin_new(p->cfg->accept_hosts,
					     p->cfg->accept_origins, host, err,
					     errlen);
		if (!p->origin)
			return -EINVAL;
	}
	rc = stand_in(p, 0, err, errlen);
	if (rc)
		return rc;
	p->daemon = start_daemon(p, (struct sockaddr *)&ss, -1, threads,
				 v6 ? MHD_USE_IPv6 : 0, p->tls);
	if (!p->daemon) {
		int e = errno;
		close(p->stand_in[0]);
		p->stand_in[0] = -1;
		snprintf(err, errlen, "cannot listen on %s:%d: %s%s", host,
			 p->cfg->listen_port, strerror(e),
			 e == EADDRINUSE ? " (another process has the port)" :
					   "");
		return -EADDRINUSE;
	}
	const union MHD_DaemonInfo *info =
		MHD_get_daemon_info(p->daemon, MHD_DAEMON_INFO_BIND_PORT);
	p->port = info ? info->port : p->cfg->listen_port;
	if (p->cfg->unix_socket) {
		int fd = proxy_listen_unix(
			p->cfg->unix_socket, p->cfg->unix_socket_mode,
			&p->socket_dev, &p->socket_ino, err, errlen);
		if (fd < 0)
			return fd;
		p->made_socket = true;
		rc = stand_in(p, 1, err, errlen);
		if (rc) {
			close(fd);
			return rc;
		}
		p->udaemon = start_daemon(p, NULL, fd, 1, 0, NULL);
		if (!p->udaemon) {
			close(fd);
			close(p->stand_in[1]);
			p->stand_in[1] = -1;
			snprintf(err, errlen, "cannot serve on %s",
				 p->cfg->unix_socket);
			return -EIO;
		}
	}
	int e = pthread_create(&p->ticker, NULL, ticker, p);
	if (e) {
		snprintf(err, errlen, "cannot start the ticker thread");
		return -e;
	}
	p->ticking = true;
	char numeric[64];
	proxy_listen_numeric(&ss, numeric, sizeof(numeric));
	log_info("listening on %s://%s:%d", p->tls ? "https" : "http", numeric,
		 p->port);
	if (p->cfg->unix_socket)
		log_info("listening on unix:%s", p->cfg->unix_socket);
	if (p->cfg->metrics_listen)
		return start_metrics(p, err, errlen);
	return 0;
}

void proxy_server_drain(struct proxy *p, int grace_seconds)
{
	if (!p->inited || proxy_draining(p))
		return;
	__atomic_store_n(&p->draining, true, __ATOMIC_RELEASE);
	stop_accepting(p);
	if (p->made_socket) { /* ours: never a path that was there before */
		proxy_listen_unix_remove(p->cfg->unix_socket, p->socket_dev,
					 p->socket_ino);
		p->made_socket = false;
	}
	for (int i = 0; i < p->nres; i++)
		cache_history_wake_all(p->res[i]->history);
	proxy_pass_pool_end_watches(p->pass);
	log_info("draining: listeners closed, watches ending; up to %ds "
		 "for %d open connection(s)",
		 grace_seconds, proxy_conns_open(p->conns));
	struct timespec t0, now, ts = { 0, 50 * 1000000L };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int busy;
	for (;;) {
		busy = proxy_conns_drain(p->conns);
		clock_gettime(CLOCK_MONOTONIC, &now);
		long long ms = (now.tv_sec - t0.tv_sec) * 1000LL +
			       (now.tv_nsec - t0.tv_nsec) / 1000000;
		if (!busy || ms >= grace_seconds * 1000LL)
			break;
		nanosleep(&ts, NULL);
	}
	if (busy)
		log_warn("draining: %d request(s) still open after "
			 "--shutdown-grace %ds; closing them",
			 busy, grace_seconds);
	else
		log_info("drained: no request in flight");
}

void proxy_server_stop(struct proxy *p)
{
	if (!p->inited)
		return;
	/* Every watch must be resumed before the daemon stops: set the flag
	 * (suspend() refuses from now on), then wake all sleepers, which
	 * end their streams. */
	__atomic_store_n(&p->stopping, true, __ATOMIC_RELEASE);
	pthread_mutex_lock(&p->tick_lock);
	pthread_cond_signal(&p->tick_cond);
	pthread_mutex_unlock(&p->tick_lock);
	if (p->ticking)
		pthread_join(p->ticker, NULL);
	for (int i = 0, n = proxy_nres(p); i < n; i++)
		cache_history_wake_all(p->res[i]->history);
	/* every idle stream back in libmicrohttpd's hands, to end */
	proxy_fanout_stop(p->fanout);
	proxy_pass_pool_stop(p->pass);
	proxy_upgrade_pool_stop(p->upgrade);
	proxy_fresh_stop(p->fresh);
	proxy_encode_stop(p->encode); /* resumes what waits on encodings */
	proxy_revoke_stop(p->revoke);
	proxy_authn_stop(p->authn); /* resumes what waits on a review */
	if (p->mdaemon) /* it reads p->conns and the caches: stopped first */
		MHD_stop_daemon(p->mdaemon);
	p->mdaemon = NULL;
	stop_accepting(p); /* when no drain did */
	/* Give resumed watches a moment to send their last bytes (with no
	 * connection open there are none, and the exit need not wait). */
	struct timespec ts = { 0, 100 * 1000000L };
	if (proxy_conns_open(p->conns))
		nanosleep(&ts, NULL);
	struct MHD_Daemon *ds[2] = { p->daemon, p->udaemon };
	for (int i = 0; i < 2; i++)
		if (ds[i]) /* it closes the stand-in */
			MHD_stop_daemon(ds[i]);
	p->daemon = p->udaemon = NULL;
	/* after the daemons: a body they freed may have waited on it */
	proxy_ahead_pool_stop(p->ahead);
	proxy_fanout_free(p->fanout); /* every stream was handed back */
	p->fanout = NULL;
	proxy_conns_free(p->conns); /* every connection has closed */
	p->conns = NULL;
	proxy_tls_free(p->tls); /* no handshake can need it now */
	p->tls = NULL;
	proxy_origin_free(p->origin);
	p->origin = NULL;
	if (p->made_socket) /* ours: never a path that was there before */
		proxy_listen_unix_remove(p->cfg->unix_socket, p->socket_dev,
					 p->socket_ino);
	proxy_pass_pool_free(p->pass);
	p->pass = NULL;
	proxy_upgrade_pool_free(p->upgrade);
	p->upgrade = NULL;
	proxy_discovery_free(p->disc);
	p->disc = NULL;
	proxy_encode_free(p->encode);
	p->encode = NULL;
	proxy_ahead_pool_free(p->ahead);
	p->ahead = NULL;
	proxy_revoke_free(p->revoke);
	p->revoke = NULL;
	proxy_authn_free(p->authn);
	p->authn = NULL;
	pthread_cond_destroy(&p->tick_cond);
	pthread_mutex_destroy(&p->tick_lock);
	p->inited = false;
}

void proxy_server_release(struct proxy *p)
{
	proxy_fresh_free(p->fresh);
	p->fresh = NULL;
	proxy_observe_free(p);
}
