/*
 * test_pass_pool: passthrough's transfers over time (proxy/pass/
 * pass_pool.c, the passthrough thread), through pass_stub.h's daemon and
 * capturing upstream: an unreachable or silent upstream gives 503
 * (watches and exec spared the timeout); a watch streams, and a client
 * that leaves (before or after the upstream's headers) has its upstream
 * connection closed within seconds; a slow client gets a 4 MiB body
 * whole through back-pressure; the drain ends a watch as a complete
 * stream at an event's end, and nothing else.
 */
#include <stdint.h>

#include "proxy/pass/pass.h"
#include "check.h"
#include "pass_stub.h"

/* ---- tests ---- */

/* Nobody listening, or nobody answering. */
static void test_upstream_failures(void)
{
	int s = socket(AF_INET, SOCK_STREAM, 0); /* a port nobody listens on */
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	bind(s, (struct sockaddr *)&a, sizeof(a));
	getsockname(s, (struct sockaddr *)&a, &al);
	int dead = ntohs(a.sin_port);
	close(s);
	start_proxy(dead, NULL, false, 0);
	struct reply r;
	request(&r, "GET", "/api/v1/nodes", NULL, NULL, 0, false, 10000);
	CHECK(r.code == 503);
	CHECK(reply_has(&r, "Retry-After: 1"));
	CHECK(r.body &&
	      strstr(r.body, "the upstream apiserver could not be reached"));
	CHECK(r.body && strstr(r.body, "\"reason\":\"ServiceUnavailable\""));
	reply_free(&r);
	stop_proxy();

	/* a silent upstream: cut at the request timeout */
	start_proxy(srv.port, NULL, false, 1);
	srv_script(NULL, true);
	request(&r, "GET", "/api/v1/nodes", NULL, NULL, 0, false, 10000);
	CHECK(r.code == 503);
	CHECK(r.ms >= 900 && r.ms < 5000);
	reply_free(&r);
	/* a watch is long-running: not cut (the client gives up first) */
	request(&r, "GET", "/api/v1/nodes?watch=true", NULL, NULL, 0, false,
		2500);
	CHECK(r.code == -1 && r.rc == CURLE_OPERATION_TIMEDOUT);
	CHECK(r.ms >= 2400);
	reply_free(&r);
	/* nor is exec */
	request(&r, "GET", "/api/v1/namespaces/a/pods/p/exec?command=sh", NULL,
		NULL, 0, false, 2500);
	CHECK(r.code == -1 && r.rc == CURLE_OPERATION_TIMEDOUT);
	reply_free(&r);
	srv_script(OK_JSON, false);
	stop_proxy();
	srv_settle();
}

/* A watch streams: its first event reaches the client before the
 * upstream ends it; the client leaving ends the upstream transfer. */
static void test_streaming(void)
{
	start_proxy(srv.port, NULL, false, 1);
	srv_script("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
		   "Transfer-Encoding: chunked\r\n\r\n"
		   "1d\r\n{\"type\":\"ADDED\",\"object\":{}}\n\r\n",
		   true);
	struct reply r;
	request(&r, "GET", "/api/v1/namespaces/a/events?watch=1", NULL, NULL, 0,
		false, 1500);
	CHECK(r.rc == CURLE_OPERATION_TIMEDOUT);
	CHECK(r.body &&
	      !strcmp(r.body, "{\"type\":\"ADDED\",\"object\":{}}\n"));
	CHECK(reply_has(&r, "Content-Type: application/json"));
	reply_free(&r);
	/* the proxy hangs up upstream soon (it looks once a second) */
	CHECK(__atomic_load_n(&srv.busy, __ATOMIC_ACQUIRE));
	CHECK(srv_free_after(5000) < 2500);
	stop_proxy();
}


/* Once the upstream has the request, end the pool's watches (the drain's
 * first step) after delay_ms, from another thread. */
static void *end_watches_later(void *arg)
{
	long delay_ms = (long)(intptr_t)arg;
	for (int i = 0;
	     i < 1000 && !__atomic_load_n(&srv.busy, __ATOMIC_ACQUIRE); i++)
		usleep(10 * 1000);
	usleep((useconds_t)delay_ms * 1000);
	proxy_pass_pool_end_watches(pool);
	return NULL;
}

/* Whether b (len bytes) is whole lines: what a watch's client may see
 * end, never half an event. */
static bool whole_lines(const char *b, size_t len)
{
	return !len || b[len - 1] == '\n';
}

/* The drain ends a forwarded watch as a complete stream, at an event's
 * end: the client reads to the terminating chunk (no error), while the
 * upstream still holds the watch open. Other requests are not cut. */
static void test_drain_ends_watches(void)
{
	start_proxy(srv.port, NULL, false, 0);
	srv_script("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
		   "Transfer-Encoding: chunked\r\n\r\n"
		   "1d\r\n{\"type\":\"ADDED\",\"object\":{}}\n\r\n"
		   "20\r\n{\"type\":\"MODIFIED\",\"object\":{}}\n\r\n",
		   true);
	pthread_t t;
	pthread_create(&t, NULL, end_watches_later, (void *)(intptr_t)300);
	struct reply r;
	request(&r, "GET", "/api/v1/namespaces/a/events?watch=1", NULL, NULL, 0,
		false, 20000);
	pthread_join(t, NULL);
	CHECK(r.rc == CURLE_OK && r.code == 200);
	CHECK(whole_lines(r.body, r.len));
	CHECK(!r.len || !strncmp(r.body, "{\"type\":\"ADDED\"", 15));
	reply_free(&r);
	CHECK(srv_free_after(5000) < 5000); /* and the upstream let go */

	/* an event half sent is finished first: the stream does not end
	 * until its rest comes (here never: the client gives up) */
	stop_proxy();
	start_proxy(srv.port, NULL, false, 0);
	srv_script(
		"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
		"Transfer-Encoding: chunked\r\n\r\n"
		"2a\r\n{\"type\":\"ADDED\",\"object\":{}}\n{\"type\":\"MOD\r\n",
		true);
	pthread_create(&t, NULL, end_watches_later, (void *)(intptr_t)500);
	request(&r, "GET", "/api/v1/namespaces/a/events?watch=1", NULL, NULL, 0,
		false, 2500);
	pthread_join(t, NULL);
	/* ended between the two (the half had not reached the client), or
	 * waiting for the rest of the second */
	CHECK(r.rc == CURLE_OK ? whole_lines(r.body, r.len) :
				 r.rc == CURLE_OPERATION_TIMEDOUT);
	reply_free(&r);
	srv_free_after(5000);

	/* a request that is not a watch is not cut */
	srv_script("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
		   "Transfer-Encoding: chunked\r\n\r\n"
		   "1d\r\n{\"type\":\"ADDED\",\"object\":{}}\n\r\n",
		   true);
	request(&r, "GET", "/api/v1/namespaces/a/events", NULL, NULL, 0, false,
		1500);
	CHECK(r.rc == CURLE_OPERATION_TIMEDOUT);
	reply_free(&r);
	srv_free_after(5000);
	srv_script(OK_JSON, false);
	stop_proxy();
}

/* An upstream faster than its client: paused above the high water mark,
 * resumed as the client drains, every byte delivered once, in order. */
static void test_backpressure(void)
{
	size_t n = 4 * 1024 * 1024;
	const char *head = "HTTP/1.1 200 OK\r\nContent-Length: 4194304\r\n"
			   "Connection: close\r\n\r\n";
	size_t hl = strlen(head);
	char *resp = malloc(hl + n + 1);
	memcpy(resp, head, hl);
	for (size_t i = 0; i < n; i++)
		resp[hl + i] = (char)('a' + (i * 7 + i / 4096) % 26);
	resp[hl + n] = '\0';
	start_proxy(srv.port, NULL, false, 0);
	srv_script(resp, false);
	struct reply r;
	CURL *h = curl_easy_init();
	char url[64];
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/api/v1/pods", mhd_port);
	memset(&r, 0, sizeof(r));
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &r);
	curl_easy_setopt(h, CURLOPT_MAX_RECV_SPEED_LARGE,
			 (curl_off_t)(4 * 1024 * 1024));
	curl_easy_setopt(h, CURLOPT_TIMEOUT, 30L);
	CHECK(curl_easy_perform(h) == CURLE_OK);
	curl_easy_cleanup(h);
	CHECK(r.len == n);
	CHECK(r.body && r.len == n && !memcmp(r.body, resp + hl, n));
	reply_free(&r);
	stop_proxy();
	srv_script(OK_JSON, false);
	srv_settle();
	/* the upstream thread may still be writing resp to a connection the
	 * proxy left: free it only once that connection is done */
	CHECK(srv_free_after(10000) < 10000);
	free(resp);
}

/* A client that leaves before the upstream has answered a thing: the
 * upstream transfer ends with it, not when the upstream answers. */
static void test_leave_before_headers(void)
{
	start_proxy(srv.port, NULL, false, 0);
	srv_script(NULL, true);
	struct reply r;
	request(&r, "GET", "/api/v1/pods?watch=true", NULL, NULL, 0, false,
		500);
	CHECK(r.rc == CURLE_OPERATION_TIMEDOUT);
	reply_free(&r);
	/* the proxy hangs up upstream soon (it looks once a second) */
	CHECK(__atomic_load_n(&srv.busy, __ATOMIC_ACQUIRE));
	CHECK(srv_free_after(5000) < 2500);
	srv_script(OK_JSON, false);
	stop_proxy();
}


int main(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
	CHECK(srv_start() == 0);
	test_upstream_failures();
	test_streaming();
	test_leave_before_headers();
	test_drain_ends_watches();
	test_backpressure();
	srv_stop();
	curl_global_cleanup();
	return check_done("pass_pool");
}
