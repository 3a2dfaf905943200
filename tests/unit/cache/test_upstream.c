/*
 * test_upstream: the upstream client against a scripted server: the
 * request it sends (path, Accept, Authorization, a JSON body), the body
 * and Content-Type it hands back, errors, the stop flag and the token
 * bucket in front of every request.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cache/upstream.h"
#include "config/buf.h"
#include "http_stub.h"
#include "check.h"

#define OK_JSON(body)                                           \
	"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" \
	"Connection: close\r\nContent-Length: " #body "\r\n\r\n"

static void test_get_and_request(void)
{
	struct http_stub_route routes[] = {
		{ .match = "GET /api/v1 ", .response = OK_JSON(2) "{}" },
		{ .match = "POST /apis/authentication.k8s.io/v1/tokenreviews",
		  .response =
			  "HTTP/1.1 201 Created\r\nContent-Type: application/json;"
			  " charset=utf-8\r\nContent-Length: 11\r\nConnection: close"
			  "\r\n\r\n{\"ok\":true}" },
		{ .match = "GET /boom",
		  .response =
			  "HTTP/1.1 503 Service Unavailable\r\n"
			  "Content-Length: 4\r\nConnection: close\r\n\r\nbusy" },
	};
	struct http_stub s;
	CHECK(http_stub_start(&s, routes, 3) == 0);
	char server[64], err[256] = "";
	snprintf(server, sizeof(server), "http://127.0.0.1:%d", s.port);
	struct cache_upstream up = { .server = server };
	struct buf body = BUF_INIT, ct = BUF_INIT;

	long code = cache_upstream_get(&up, "probe", "/api/v1", NULL, NULL,
				       &body, &ct, err, sizeof(err));
	CHECK(code == 200 && body.len == 2 && !strcmp(body.p, "{}"));
	CHECK_STR(ct.p, "application/json");
	CHECK_STR(s.req[0], "GET /api/v1 HTTP/1.1");

	buf_reset(&body);
	const char *req = "{\"kind\":\"TokenReview\"}";
	struct cache_upstream_ask q = {
		.what = CACHE_UPSTREAM_TOKENREVIEW,
		.method = "POST",
		.path = "/apis/authentication.k8s.io/v1/tokenreviews",
		.body = req,
		.body_len = strlen(req),
	};
	code = cache_upstream_ask(&up, &q, &body, &ct, err, sizeof(err));
	CHECK(code == 201 && !strcmp(body.p, "{\"ok\":true}"));
	CHECK_STR(ct.p, "application/json; charset=utf-8");
	CHECK_STR(s.body[1], req);

	buf_reset(&body);
	code = cache_upstream_get(&up, "probe", "/boom", NULL, NULL, &body,
				  NULL, err, sizeof(err));
	CHECK(code == 503 && !strcmp(body.p, "busy"));
	buf_reset(&body);
	code = cache_upstream_get(&up, "probe", "/nothing", NULL, NULL, &body,
				  NULL, err, sizeof(err));
	CHECK(code == 404);
	CHECK(http_stub_count(&s) == 4);
	http_stub_stop(&s);

	/* nobody listening: -1 and a reason */
	err[0] = '\0';
	code = cache_upstream_get(&up, "probe", "/api/v1", NULL, NULL, &body,
				  NULL, err, sizeof(err));
	CHECK(code == -1 && strstr(err, "GET /api/v1: ") == err);
	buf_free(&body);
	buf_free(&ct);
}

static void *stop_later(void *arg)
{
	struct timespec ts = { 0, 200 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	__atomic_store_n((bool *)arg, true, __ATOMIC_RELEASE);
	return NULL;
}

static void test_stop_and_limit(void)
{
	struct http_stub_route routes[] = {
		{ .match = "GET /slow",
		  .response = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{",
		  .hold = true },
	};
	struct http_stub s;
	CHECK(http_stub_start(&s, routes, 1) == 0);
	char server[64], err[256];
	snprintf(server, sizeof(server), "http://127.0.0.1:%d", s.port);
	struct cache_ratelimit rl;
	cache_ratelimit_init(&rl, 0.001, 1);
	struct cache_upstream up = { .server = server, .limit = &rl };
	struct buf body = BUF_INIT;
	bool stop = false;

	/* a stopped caller waits for no token */
	CHECK(cache_ratelimit_take(&rl, NULL)); /* the only token */
	stop = true;
	CHECK(cache_upstream_get(&up, "probe", "/slow", NULL, &stop, &body,
				 NULL, err, sizeof(err)) == -1);
	CHECK_STR(err, "stopped");
	CHECK(http_stub_count(&s) == 0);
	cache_ratelimit_destroy(&rl);

	/* a transfer in progress ends soon after *stop turns true */
	up.limit = NULL;
	stop = false;
	pthread_t t;
	pthread_create(&t, NULL, stop_later, &stop);
	long code = cache_upstream_get(&up, "probe", "/slow", NULL, &stop,
				       &body, NULL, err, sizeof(err));
	pthread_join(t, NULL);
	CHECK(code == -1 && body.len == 1); /* the first byte came */
	CHECK(http_stub_count(&s) == 1);
	http_stub_stop(&s);
	buf_free(&body);
}

/* An answer past answer_max is cut: -1, an error naming the bound, the
 * body never past it, and the count for what was asked. One at the bound
 * is whole. */
static void test_answer_bound(void)
{
	static char big[6000], fit[6000];
	char head[128];
	snprintf(head, sizeof(head),
		 "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
		 "Connection: close\r\nContent-Length: %d\r\n\r\n",
		 4096);
	snprintf(big, sizeof(big), "%s", head);
	memset(big + strlen(big), 'x', 4096);
	snprintf(head, sizeof(head),
		 "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
		 "Connection: close\r\nContent-Length: %d\r\n\r\n",
		 2048);
	snprintf(fit, sizeof(fit), "%s", head);
	memset(fit + strlen(fit), 'y', 2048);
	struct http_stub_route routes[] = {
		{ .match = "GET /big", .response = big },
		{ .match = "GET /fit", .response = fit },
	};
	struct http_stub s;
	CHECK(http_stub_start(&s, routes, 2) == 0);
	char server[64], err[256] = "";
	snprintf(server, sizeof(server), "http://127.0.0.1:%d", s.port);
	struct cache_upstream up = { .server = server, .answer_max = 2048 };
	struct buf body = BUF_INIT;
	unsigned long before = cache_upstream_too_large(CACHE_UPSTREAM_PROBE);
	long code = cache_upstream_get(&up, CACHE_UPSTREAM_PROBE, "/big", NULL,
				       NULL, &body, NULL, err, sizeof(err));
	CHECK(code == -1 && body.len <= 2048);
	CHECK(strstr(err, "GET /big: the answer is larger than "
			  "--upstream-answer-max-mib") == err);
	CHECK(cache_upstream_too_large(CACHE_UPSTREAM_PROBE) == before + 1);
	CHECK(cache_upstream_too_large(CACHE_UPSTREAM_DISCOVERY) == 0);
	struct buf m = BUF_INIT;
	cache_upstream_metrics(&m);
	CHECK(strstr(m.p, "informer_proxy_upstream_answer_too_large_total"
			  "{what=\"probe\"} 1\n") != NULL);
	buf_free(&m);
	buf_reset(&body);
	code = cache_upstream_get(&up, CACHE_UPSTREAM_DISCOVERY, "/fit", NULL,
				  NULL, &body, NULL, err, sizeof(err));
	CHECK(code == 200 && body.len == 2048);
	http_stub_stop(&s);
	buf_free(&body);
}

int main(void)
{
	test_answer_bound();
	test_get_and_request();
	test_stop_and_limit();
	return check_done("upstream");
}
