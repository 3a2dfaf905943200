/*
 * test_credpool: passthrough's upstream connection pools, one per
 * credential (proxy/pass/credpool.c).
 *
 * Covered: the key of a credential (one token, one key; two tokens, the
 * proxy's identity and none, four keys); a pool per key, shared by the
 * transfers of one credential; the bound on pools (the least recently
 * used idle pool closed for a new credential, none given when every pool
 * is in use); the idle close (a pool unused for the idle time, never one
 * in use). And on real connections, through a libcurl multi handle as
 * pass.c drives it, to a keep-alive HTTP/1.1 upstream on 127.0.0.1:0
 * that numbers its connections: two credentials never share a
 * connection, one credential reuses its own, a closed pool's connections
 * are closed, a pool keeps at most the multi handle's MAXCONNECTS idle
 * connections, and a request without a pool gets a connection of its
 * own that nobody reuses.
 */
#include <curl/curl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include "proxy/pass/credpool.h"
#include "check.h"

static struct proxy_credpool_key key_of(const char *token)
{
	struct proxy_credpool_key k;
	CHECK(!proxy_credpool_key(&k, PROXY_CREDPOOL_CLIENT, token));
	return k;
}

static void test_key(void)
{
	struct proxy_credpool_key a = key_of("Bearer a"),
				  a2 = key_of("Bearer a");
	struct proxy_credpool_key b = key_of("Bearer b"), p, n, n2;
	CHECK(!proxy_credpool_key(&p, PROXY_CREDPOOL_PROXY, NULL));
	CHECK(!proxy_credpool_key(&n, PROXY_CREDPOOL_ANON, NULL));
	/* only a client's credential is part of its key */
	CHECK(!proxy_credpool_key(&n2, PROXY_CREDPOOL_ANON, "Bearer a"));
	CHECK(!memcmp(&a, &a2, sizeof(a)));
	CHECK(!memcmp(&n, &n2, sizeof(n)));
	CHECK(memcmp(&a, &b, sizeof(a)));
	CHECK(memcmp(&a, &p, sizeof(a)));
	CHECK(memcmp(&a, &n, sizeof(a)));
	CHECK(memcmp(&p, &n, sizeof(p)));
	/* the digest, not the token: nothing of it is kept */
	CHECK(!memmem(a.d, sizeof(a.d), "Bearer", 6));
}

static void test_bounds(void)
{
	struct proxy_credpool_key a = key_of("Bearer a"),
				  b = key_of("Bearer b");
	struct proxy_credpool_key c = key_of("Bearer c");
	struct proxy_credpool *cp = proxy_credpool_new(2, 1000);
	CURLSH *sa = proxy_credpool_take(cp, &a, 0);
	CURLSH *sa2 = proxy_credpool_take(cp, &a, 1);
	CURLSH *sb = proxy_credpool_take(cp, &b, 2);
	CHECK(sa && sa == sa2); /* one credential, one pool */
	CHECK(sb && sb != sa);	/* two, two */
	CHECK(proxy_credpool_open(cp) == 2);
	/* full, every pool in use: no pool for a third credential */
	CHECK(!proxy_credpool_take(cp, &c, 3));
	proxy_credpool_put(cp, sa, 4);
	CHECK(!proxy_credpool_take(cp, &c, 5)); /* a is still used once */
	proxy_credpool_put(cp, sa2, 6);
	proxy_credpool_put(cp, sb, 7);
	/* c takes the least recently used pool, a's */
	CURLSH *sc = proxy_credpool_take(cp, &c, 8);
	CHECK(sc);
	CHECK(proxy_credpool_evicted(cp) == 1);
	CHECK(proxy_credpool_open(cp) == 2);
	CURLSH *sb2 = proxy_credpool_take(cp, &b, 9); /* b's is still there */
	CHECK(sb2 == sb);
	/* a again: a new pool, for which b's or c's must go: both are in
	 * use */
	CHECK(!proxy_credpool_take(cp, &a, 10));
	proxy_credpool_put(cp, sb2, 11);
	CURLSH *sa3 = proxy_credpool_take(cp, &a, 12); /* b's goes */
	CHECK(sa3);
	CHECK(proxy_credpool_evicted(cp) == 2);
	CHECK(proxy_credpool_take(cp, &b, 13) == NULL); /* a, c in use */
	proxy_credpool_put(cp, sa3, 14);
	proxy_credpool_put(cp, sc, 15);
	/* a put of a share it does not know, or NULL, does nothing */
	proxy_credpool_put(cp, NULL, 16);
	proxy_credpool_free(cp);

	/* a bound of 0 is taken as 1 */
	cp = proxy_credpool_new(0, 1000);
	sa = proxy_credpool_take(cp, &a, 0);
	CHECK(sa && !proxy_credpool_take(cp, &b, 0));
	proxy_credpool_put(cp, sa, 0);
	proxy_credpool_free(cp);
}

static void test_idle(void)
{
	struct proxy_credpool_key a = key_of("Bearer a"),
				  b = key_of("Bearer b");
	struct proxy_credpool *cp = proxy_credpool_new(4, 1000);
	CURLSH *sa = proxy_credpool_take(cp, &a, 0);
	CURLSH *sb = proxy_credpool_take(cp, &b, 0);
	proxy_credpool_put(cp, sa, 100);
	CHECK(proxy_credpool_sweep(cp, 1099) == 0); /* not idle long enough */
	CHECK(proxy_credpool_sweep(cp, 1100) == 1); /* a's, not b's: in use */
	CHECK(proxy_credpool_open(cp) == 1);
	CHECK(proxy_credpool_sweep(cp, 100000) == 0);
	proxy_credpool_put(cp, sb, 100000);
	CHECK(proxy_credpool_sweep(cp, 101000) == 1);
	CHECK(proxy_credpool_open(cp) == 0);
	CHECK(proxy_credpool_evicted(cp) == 0); /* idle closes are not that */
	proxy_credpool_free(cp);
	proxy_credpool_free(NULL);
}

/* ---- on real connections ---- */

#define MAXCONN 64
#define HOLD_N 7 /* requests for /hold wait until this many are in */

/* A keep-alive HTTP/1.1 upstream: it answers each request with the
 * number of the connection it came on, and notes when one is closed. A
 * request for /hold is answered only once HOLD_N of them are in, so that
 * they are on HOLD_N connections at once. */
static struct {
	int fd, port;
	pthread_t thread;
	bool stop;	      /* atomic */
	int conns;	      /* atomic: connections accepted */
	bool closed[MAXCONN]; /* atomic: that connection was closed */
} up;

static void *up_run(void *arg)
{
	(void)arg;
	struct pollfd p[MAXCONN + 1];
	char buf[MAXCONN][4096];
	size_t have[MAXCONN] = { 0 };
	bool held[MAXCONN] = { false };
	int n = 0, nheld = 0;
	p[0] = (struct pollfd){ up.fd, POLLIN, 0 };
	while (!__atomic_load_n(&up.stop, __ATOMIC_ACQUIRE)) {
		if (poll(p, (nfds_t)n + 1, 50) <= 0)
			continue;
		if ((p[0].revents & POLLIN) && n < MAXCONN) {
			int c = accept(up.fd, NULL, NULL);
			if (c >= 0) {
				p[++n] = (struct pollfd){ c, POLLIN, 0 };
				__atomic_store_n(&up.conns, n,
						 __ATOMIC_RELEASE);
			}
		}
		for (int i = 1; i <= n; i++) {
			if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP)))
				continue;
			size_t *h = &have[i - 1];
			ssize_t r = read(p[i].fd, buf[i - 1] + *h,
					 sizeof(buf[0]) - 1 - *h);
			if (r <= 0) {
				close(p[i].fd);
				p[i].fd = -1;
				__atomic_store_n(&up.closed[i - 1], true,
						 __ATOMIC_RELEASE);
				continue;
			}
			*h += (size_t)r;
			buf[i - 1][*h] = '\0';
			char *end;
			while ((end = strstr(buf[i - 1], "\r\n\r\n"))) {
				if (!strncmp(buf[i - 1], "GET /hold ", 10) &&
				    !held[i - 1]) {
					held[i - 1] = true; /* answered below */
					nheld++;
				}
				if (held[i - 1] && nheld < HOLD_N)
					break;
				char out[128];
				int len = snprintf(out, sizeof(out),
						   "HTTP/1.1 200 OK\r\n"
						   "Content-Length: %d\r\n\r\n"
						   "%d",
						   i < 10 ? 1 : 2, i);
				if (write(p[i].fd, out, (size_t)len) != len)
					break;
				size_t used = (size_t)(end + 4 - buf[i - 1]);
				memmove(buf[i - 1], end + 4, *h - used + 1);
				*h -= used;
				held[i - 1] = false;
			}
		}
		/* the last of the held requests is in: answer the others */
		if (nheld >= HOLD_N) {
			for (int i = 1; i <= n; i++) {
				if (!held[i - 1])
					continue;
				char *end = strstr(buf[i - 1], "\r\n\r\n");
				char out[128];
				int len = snprintf(out, sizeof(out),
						   "HTTP/1.1 200 OK\r\n"
						   "Content-Length: %d\r\n\r\n"
						   "%d",
						   i < 10 ? 1 : 2, i);
				if (write(p[i].fd, out, (size_t)len) != len)
					continue;
				size_t used = (size_t)(end + 4 - buf[i - 1]);
				memmove(buf[i - 1], end + 4,
					have[i - 1] - used + 1);
				have[i - 1] -= used;
				held[i - 1] = false;
			}
			nheld = 0;
		}
	}
	for (int i = 1; i <= n; i++)
		if (p[i].fd >= 0)
			close(p[i].fd);
	return NULL;
}

static int up_start(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	up.fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (up.fd < 0 || bind(up.fd, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(up.fd, 16) || getsockname(up.fd, (struct sockaddr *)&a, &al))
		return -1;
	up.port = ntohs(a.sin_port);
	return pthread_create(&up.thread, NULL, up_run, NULL) ? -1 : 0;
}

static size_t on_body(char *p, size_t size, size_t n, void *cls)
{
	char *out = cls;
	size_t len = size * n, have = strlen(out);
	if (have + len < 16) {
		memcpy(out + have, p, len);
		out[have + len] = '\0';
	}
	return len;
}

/* One GET on multi as pass.c makes it, with share (NULL: a connection
 * of its own); the number of the upstream connection it went on. */
static int get(CURLM *multi, CURLSH *share, const char *authz)
{
	char url[64], hdr[64], body[16] = "";
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/x", up.port);
	snprintf(hdr, sizeof(hdr), "Authorization: %s", authz);
	struct curl_slist *h = curl_slist_append(NULL, hdr);
	CURL *e = curl_easy_init();
	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, body);
	if (share) {
		curl_easy_setopt(e, CURLOPT_SHARE, share);
	} else {
		curl_easy_setopt(e, CURLOPT_FRESH_CONNECT, 1L);
		curl_easy_setopt(e, CURLOPT_FORBID_REUSE, 1L);
	}
	curl_multi_add_handle(multi, e);
	int running = 1;
	while (running) {
		curl_multi_perform(multi, &running);
		if (running)
			curl_multi_poll(multi, NULL, 0, 100, NULL);
	}
	CURLMsg *m;
	int left;
	CURLcode rc = CURLE_FAILED_INIT;
	while ((m = curl_multi_info_read(multi, &left)))
		if (m->msg == CURLMSG_DONE)
			rc = m->data.result;
	curl_multi_remove_handle(multi, e);
	curl_easy_setopt(e, CURLOPT_SHARE, NULL);
	curl_easy_cleanup(e);
	curl_slist_free_all(h);
	CHECK(rc == CURLE_OK);
	return atoi(body);
}

/* n GETs of /hold at once on multi with share, each on a connection of
 * the pool's (HTTP/1.1: one transfer a connection). */
static void get_many(CURLM *multi, CURLSH *share, int n)
{
	char url[64];
	CURL *e[8];
	static char sink[8][16];
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/hold", up.port);
	for (int i = 0; i < n; i++) {
		e[i] = curl_easy_init();
		curl_easy_setopt(e[i], CURLOPT_URL, url);
		curl_easy_setopt(e[i], CURLOPT_SHARE, share);
		curl_easy_setopt(e[i], CURLOPT_WRITEFUNCTION, on_body);
		sink[i][0] = '\0';
		curl_easy_setopt(e[i], CURLOPT_WRITEDATA, (void *)sink[i]);
		curl_multi_add_handle(multi, e[i]);
	}
	int running = 1;
	while (running) {
		curl_multi_perform(multi, &running);
		if (running)
			curl_multi_poll(multi, NULL, 0, 100, NULL);
	}
	CURLMsg *m;
	int left;
	while ((m = curl_multi_info_read(multi, &left)))
		CHECK(m->msg == CURLMSG_DONE && m->data.result == CURLE_OK);
	for (int i = 0; i < n; i++) {
		curl_multi_remove_handle(multi, e[i]);
		curl_easy_setopt(e[i], CURLOPT_SHARE, NULL);
		curl_easy_cleanup(e[i]);
	}
}

static int closed_count(void)
{
	int n = 0, conns = __atomic_load_n(&up.conns, __ATOMIC_ACQUIRE);
	for (int i = 0; i < conns; i++)
		n += __atomic_load_n(&up.closed[i], __ATOMIC_ACQUIRE);
	return n;
}

static bool wait_closed(int conn)
{
	for (int i = 0; i < 200; i++) {
		if (__atomic_load_n(&up.closed[conn - 1], __ATOMIC_ACQUIRE))
			return true;
		usleep(10 * 1000);
	}
	return false;
}

static void test_connections(void)
{
	if (up_start()) {
		CHECK(!"upstream start");
		return;
	}
	CURLM *multi = curl_multi_init();
	curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, 4L);
	struct proxy_credpool *cp = proxy_credpool_new(2, 1000);
	struct proxy_credpool_key a = key_of("Bearer a"),
				  b = key_of("Bearer b");
	struct proxy_credpool_key c = key_of("Bearer c");

	CURLSH *s = proxy_credpool_take(cp, &a, 0);
	int a1 = get(multi, s, "Bearer a");
	proxy_credpool_put(cp, s, 0);
	s = proxy_credpool_take(cp, &a, 0);
	int a2 = get(multi, s, "Bearer a");
	proxy_credpool_put(cp, s, 0);
	s = proxy_credpool_take(cp, &b, 1);
	int b1 = get(multi, s, "Bearer b");
	proxy_credpool_put(cp, s, 1);
	s = proxy_credpool_take(cp, &a, 2);
	int a3 = get(multi, s, "Bearer a");
	proxy_credpool_put(cp, s, 2);
	s = proxy_credpool_take(cp, &b, 3);
	int b2 = get(multi, s, "Bearer b");
	proxy_credpool_put(cp, s, 3);
	CHECK(a1 > 0 && a1 == a2 && a2 == a3); /* a reuses its connection */
	CHECK(b1 > 0 && b1 == b2);	       /* b its own */
	CHECK(b1 != a1);		       /* never a's */
	CHECK(__atomic_load_n(&up.conns, __ATOMIC_ACQUIRE) == 2);

	/* c needs a pool: a's, the least recently used, is closed, and
	 * its connection with it */
	s = proxy_credpool_take(cp, &c, 4);
	int c1 = get(multi, s, "Bearer c");
	proxy_credpool_put(cp, s, 4);
	CHECK(c1 != a1 && c1 != b1);
	CHECK(wait_closed(a1));
	CHECK(!__atomic_load_n(&up.closed[b1 - 1], __ATOMIC_ACQUIRE));

	/* idle: b's pool and its connection are closed */
	CHECK(proxy_credpool_sweep(cp, 3 + 1000) == 1);
	CHECK(wait_closed(b1));
	s = proxy_credpool_take(cp, &b, 5000);
	int b3 = get(multi, s, "Bearer b");
	proxy_credpool_put(cp, s, 5000);
	CHECK(b3 != b1 && b3 != c1); /* a new one */

	/* no pool: a connection of its own, closed after, reused by none */
	int o1 = get(multi, NULL, "Bearer d");
	CHECK(wait_closed(o1));
	int o2 = get(multi, NULL, "Bearer d");
	CHECK(o1 != o2 && o2 != c1 && o2 != b3);
	CHECK(wait_closed(o2));

	/* a pool keeps at most MAXCONNECTS (4) idle connections: of 7 made
	 * at once for one credential, 3 are closed when they are done */
	int conns = __atomic_load_n(&up.conns, __ATOMIC_ACQUIRE);
	int closed = closed_count();
	s = proxy_credpool_take(cp, &b, 6000);
	get_many(multi, s, HOLD_N);
	proxy_credpool_put(cp, s, 6000);
	/* b's pool had one connection (b3): 6 more were made */
	CHECK(__atomic_load_n(&up.conns, __ATOMIC_ACQUIRE) == conns + 6);
	for (int i = 0; i < 200 && closed_count() < closed + 3; i++)
		usleep(10 * 1000);
	usleep(50 * 1000);
	CHECK(closed_count() == closed + 3);

	proxy_credpool_free(cp); /* closes c's and b's connections */
	CHECK(wait_closed(c1) && wait_closed(b3));
	for (int i = 0; i < 200 && closed_count() < conns + 6; i++)
		usleep(10 * 1000);
	CHECK(closed_count() == conns + 6); /* every one */
	curl_multi_cleanup(multi);
	__atomic_store_n(&up.stop, true, __ATOMIC_RELEASE);
	pthread_join(up.thread, NULL);
	close(up.fd);
}

int main(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
	test_key();
	test_bounds();
	test_idle();
	test_connections();
	curl_global_cleanup();
	printf("%d passed, %d failed\n", check_passed, check_failed);
	return check_failed ? 1 : 0;
}
