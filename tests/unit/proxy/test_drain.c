/*
 * test_drain: the proxy's daemons stop taking connections, at a drain or
 * at a stop, while new connections keep arriving, and the process lives.
 *
 * libmicrohttpd 0.9.75's MHD_quiesce_daemon() aborts the process when a
 * worker, woken by a connection, takes the listening socket out of its
 * epoll set before the quiescing thread does (proxy/front/listen.h). The
 * window is a few instructions wide; here every epoll_ctl() removal the
 * stopping thread makes waits 2 ms first, so that eight workers woken by a
 * stream of new connections win it every time: with the quiesce, the
 * first round aborts. After the stop a connect is refused, and the
 * requests that were answered were answered whole.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <urcu-bp.h>

#include "cache/kind.h"
#include "proxy/server.h"
#include "check.h"

#define ROUNDS 6
#define CHURNERS 2

/* The thread whose removals from an epoll set are slowed (0: none). */
static pthread_t slowed;
static bool slowing;

/* Interposed over libc's for the whole process, libmicrohttpd included. */
int epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev)
{
	if (op == EPOLL_CTL_DEL &&
	    __atomic_load_n(&slowing, __ATOMIC_ACQUIRE) &&
	    pthread_equal(pthread_self(), slowed))
		usleep(2000);
	return (int)syscall(SYS_epoll_ctl, epfd, op, fd, ev);
}

struct churn {
	int port;
	bool stop;   /* atomic */
	long whole;  /* answers read whole: 200 and the body */
	long broken; /* answers cut short or wrong */
	pthread_t t;
};

/* A TCP connection to 127.0.0.1:port, once the port has no listener, can
 * pick port itself as its local port and connect to itself (a
 * simultaneous open): that is no daemon answering. */
static bool self_connected(int s, int port)
{
	struct sockaddr_in l;
	socklen_t n = sizeof(l);
	return !getsockname(s, (struct sockaddr *)&l, &n) &&
	       ntohs(l.sin_port) == port;
}

/* A socket connected to 127.0.0.1:port, or -1 with errno set (ECONNREFUSED
 * when nothing listens there, EAGAIN for a connection to itself). */
static int dial(int port)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	if (connect(s, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    !self_connected(s, port))
		return s;
	int e = errno;
	if (e == 0 || self_connected(s, port))
		e = EAGAIN;
	close(s);
	errno = e;
	return -1;
}

/* One connection: a health probe, read to the server's close. Returns 1
 * for a whole answer, 0 for a connect refused or reset before any byte
 * (the listener going away), -1 for an answer cut short. */
static int probe(int port)
{
	char req[128], buf[4096];
	int n = snprintf(req, sizeof(req),
			 "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
			 "Connection: close\r\n\r\n",
			 port);
	size_t got = 0;
	int rc = 0;
	int s = dial(port);
	if (s < 0)
		return 0;
	if (write(s, req, (size_t)n) != n)
		goto out;
	for (ssize_t k; got < sizeof(buf) - 1 &&
			(k = read(s, buf + got, sizeof(buf) - 1 - got)) > 0;)
		got += (size_t)k;
	buf[got] = '\0';
	if (!got)
		goto out; /* accepted by the kernel, never by the daemon */
	rc = strncmp(buf, "HTTP/1.1 200 ", 13) == 0 &&
			     strstr(buf, "\r\n\r\nok") ?
		     1 :
		     -1;
out:
	close(s);
	return rc;
}

static void *churn(void *arg)
{
	struct churn *c = arg;
	while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
		int rc = probe(c->port);
		if (rc > 0)
			__atomic_add_fetch(&c->whole, 1, __ATOMIC_RELAXED);
		else if (rc < 0)
			__atomic_add_fetch(&c->broken, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* Nothing listens on port: a connect is refused. One that the kernel
 * could not make (a connection to itself, no local port free under the
 * churn) is tried again, up to five times; one that a listener took is
 * the failure, said with what happened. */
static bool refused(int port)
{
	for (int i = 0; i < 5; i++) {
		int s = dial(port);
		if (s >= 0) {
			fprintf(stderr,
				"port %d: a listener took the connect\n", port);
			close(s);
			return false;
		}
		if (errno == ECONNREFUSED)
			return true;
		fprintf(stderr, "port %d: connect: %s\n", port,
			strerror(errno));
		usleep(10000);
	}
	return false;
}

/* One round: a proxy of eight workers, connections arriving from
 * CHURNERS threads, then a drain (and a stop) or a stop alone. */
static void round_(struct config *cfg, struct cache_upstream *up,
		   struct cache_resource **res, bool drain)
{
	struct proxy p = {
		.cfg = cfg, .up = up, .nofile = -1, .res = res, .nres = 1
	};
	char err[256] = "";
	int rc = proxy_server_start(&p, err, sizeof(err));
	CHECK(rc == 0);
	if (rc) {
		fprintf(stderr, "proxy_server_start: %s\n", err);
		proxy_server_stop(&p);
		proxy_server_release(&p);
		return;
	}
	struct churn c[CHURNERS];
	for (int i = 0; i < CHURNERS; i++) {
		c[i] = (struct churn){ .port = p.port };
		CHECK(pthread_create(&c[i].t, NULL, churn, &c[i]) == 0);
	}
	long whole = 0;
	for (int i = 0; i < 5000 && whole < 50; i++) {
		usleep(1000);
		whole = 0;
		for (int k = 0; k < CHURNERS; k++)
			whole += __atomic_load_n(&c[k].whole, __ATOMIC_RELAXED);
	}
	CHECK(whole >= 50); /* the daemon was taking connections */
	slowed = pthread_self();
	__atomic_store_n(&slowing, true, __ATOMIC_RELEASE);
	if (drain)
		proxy_server_drain(&p, 1);
	else
		proxy_server_stop(&p);
	__atomic_store_n(&slowing, false, __ATOMIC_RELEASE);
	CHECK(refused(p.port));
	for (int i = 0; i < CHURNERS; i++) {
		__atomic_store_n(&c[i].stop, true, __ATOMIC_RELEASE);
		pthread_join(c[i].t, NULL);
		CHECK(c[i].broken == 0);
	}
	proxy_server_stop(&p);
	CHECK(p.daemon == NULL && p.conns == NULL);
	proxy_server_release(&p);
}

int main(void)
{
	struct cache_upstream up = { .server = "http://127.0.0.1:9" };
	struct config cfg = {
		.listen_host = "127.0.0.1",
		.listen_port = 0,
		.threads = 8,
		.history = 16,
		.bookmark_interval = 60,
		.discovery_refresh = 600,
		.grace_seconds = 1,
		.passthrough_timeout = 10,
		.max_connections = 256,
		.max_watchers = 8,
		.idle_timeout = 30,
		.header_timeout = 10,
	};
	struct cache_resource *res[1] = {
		cache_resource_new(cache_kind_lookup("pods"), &up, 16),
	};
	CHECK(res[0] != NULL);
	for (int r = 0; r < ROUNDS; r++)
		round_(&cfg, &up, res, r % 2 == 0);
	rcu_barrier();
	cache_resource_free(res[0]);
	rcu_barrier();
	return check_done("drain");
}
