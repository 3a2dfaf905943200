/*
 * test_authn_faults: delegated authentication and authorization
 * (proxy/front/authn.c) when things go wrong, through authn_stub.h's
 * daemon and scripted upstream.
 *
 * Covered: a failing upstream (fail closed, 503, nothing cached, the
 * token never logged); stop, abandon, stop with reviews in flight and
 * queued (every client 503), the queue refusing after stop; attributes
 * too long for a job; allocation failure; a denied token never evicting
 * an accepted one from its slot; a client address's budget of reviews
 * for unknown tokens, which known tokens do not share.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "config/alloc.h"
#include "proxy/front/authn.h"
#include "authn_stub.h"
#include "check.h"
#include "http_stub.h"

static long outage_codes[3];

static void outage_requests(void)
{
	outage_codes[0] = ask("Bearer tok-in-the-log?", NULL, 0);
	outage_codes[1] = ask("Bearer tok-in-the-log?", NULL, 0);
	outage_codes[2] = ask("Bearer tok-in-the-log?", NULL, 0);
}

/* An upstream that fails: 503, nothing cached, one warning without the
 * token, and a note when it answers again. */
static void test_upstream_failing(void)
{
	struct http_stub_route routes[] = {
		{ .match = "tokenreviews", .response = R500, .once = true },
		{ .match = "tokenreviews", .response = R500, .once = true },
		{ .match = "tokenreviews", .response = TR_ALICE }
	};
	char log[8192];
	setup(routes, 3, 60, 60);
	capture_stderr(outage_requests, log, sizeof(log));
	CHECK(outage_codes[0] == 503 && outage_codes[1] == 503 &&
	      outage_codes[2] == 200);
	CHECK(http_stub_count(&stub) == 3);
	CHECK(strstr(log, "delegated auth: POST /apis/authentication.k8s.io/v1/"
			  "tokenreviews") != NULL);
	/* warned once for the outage, not per request */
	const char *w = strstr(log, "delegated auth: POST");
	CHECK(w && !strstr(w + 1, "delegated auth: POST"));
	CHECK(strstr(log, "answers reviews again") != NULL);
	CHECK(strstr(log, "tok-in-the-log") == NULL);
	teardown();

	/* nobody listening at all */
	struct http_stub_route none[] = { { .match = "x", .response = R500 } };
	setup(none, 1, 60, 60);
	teardown(); /* the port is closed now */
	up = (struct cache_upstream){ .server = up_url };
	cur = proxy_authn_new(&up, 60, 60, 1000);
	CHECK(cur != NULL);
	cur_at = NULL;
	capture_stderr(outage_requests, log, sizeof(log));
	CHECK(outage_codes[0] == 503 && outage_codes[2] == 503);
	CHECK(strstr(log, "tok-in-the-log") == NULL);
	CHECK(cached("Bearer tok-in-the-log?", NULL) == PROXY_AUTHN_MISS);
	proxy_authn_free(cur);
	cur = NULL;
}

/* A client that gives up while its review hangs: the job is abandoned,
 * and stop() ends the hung review promptly (ASan checks nothing leaks). */
static void test_abandon_and_stop(void)
{
	struct http_stub_route routes[] = {
		{ .match = "tokenreviews",
		  .response =
			  "HTTP/1.1 201 Created\r\nContent-Length: 100\r\n\r\n{",
		  .hold = true },
	};
	setup(routes, 1, 60, 60);
	CHECK(ask_to("Bearer slow", NULL, 0, 300) == -1); /* timed out */
	CHECK(http_stub_count(&stub) == 1);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	proxy_authn_stop(cur);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK(t1.tv_sec - t0.tv_sec < 5);
	/* stopped: no more reviews start, the client is told to come back */
	CHECK(ask("Bearer another", NULL, 0) == 429);
	CHECK(http_stub_count(&stub) == 1);
	/* the caches still answer, and free after stop is fine */
	CHECK(cached(NULL, NULL) == PROXY_AUTHN_UNAUTHENTICATED);
	teardown();
}

/* Stopping with reviews in flight and more queued behind them (four
 * reviewers, six clients, an upstream that never answers): every client
 * is resumed with a 503, none left hanging, none let through. */
static void test_stop_in_flight(void)
{
	struct http_stub_route routes[] = {
		{ .match = "tokenreviews",
		  .response = "HTTP/1.1 201 Created\r\n"
			      "Content-Length: 100\r\n\r\n{",
		  .hold = true },
	};
	struct client cl[6];
	setup(routes, 1, 60, 60);
	for (int i = 0; i < 6; i++) {
		snprintf(cl[i].authz, sizeof(cl[i].authz), "Bearer waiting-%d",
			 i);
		cl[i].code = 0;
		pthread_create(&cl[i].th, NULL, client_run, &cl[i]);
	}
	for (int i = 0; i < 100 && http_stub_count(&stub) < 1; i++)
		usleep(20 * 1000);
	usleep(200 * 1000); /* the others reach their reviewer or the queue */
	CHECK(http_stub_count(&stub) == 1);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	proxy_authn_stop(cur);
	for (int i = 0; i < 6; i++)
		pthread_join(cl[i].th, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK(t1.tv_sec - t0.tv_sec < 5);
	int n503 = 0;
	for (int i = 0; i < 6; i++)
		n503 += cl[i].code == 503;
	CHECK(n503 == 6);
	/* nothing was decided, so nothing is cached */
	CHECK(cached("Bearer waiting-0", NULL) == PROXY_AUTHN_MISS);
	teardown();
}

/* Attributes longer than a job holds: no review, the client told to come
 * back (429), nothing asked upstream. */
static void test_long_attributes(void)
{
	struct http_stub_route routes[] = { { .match = "tokenreviews",
					      .response = TR_ALICE } };
	static char name[300];
	memset(name, 'n', sizeof(name) - 1);
	struct proxy_authn_attrs at = list_pods;
	at.name = name;
	setup(routes, 1, 60, 60);
	cur_at = &at;
	CHECK(ask("Bearer t", NULL, 0) == 429);
	CHECK(http_stub_count(&stub) == 0);
	teardown();
}

/* Out of memory: NULL and nothing leaked; a job that cannot be made is a
 * 429, the connection not left suspended. */
static void test_alloc(void)
{
	struct cache_upstream u = { .server = "http://127.0.0.1:1" };
	int fails = 0;
	struct proxy_authn *a = NULL;
	for (long n = 1; n < 20 && !a; n++) {
		alloc_fail_after(n);
		a = proxy_authn_new(&u, 60, 60, 1000);
		fails += !a;
		alloc_fail_after(0);
	}
	CHECK(fails == 5); /* the struct, users, denials, sources, decisions */
	CHECK(a != NULL);
	proxy_authn_free(a);

	struct http_stub_route routes[] = { { .match = "tokenreviews",
					      .response = TR_ALICE } };
	setup(routes, 1, 60, 60);
	alloc_fail_after(1);
	CHECK(ask("Bearer t", NULL, 0) == 429);
	CHECK(alloc_failures() == 1);
	alloc_fail_after(0);
	CHECK(http_stub_count(&stub) == 0);
	CHECK(ask("Bearer t", NULL, 0) == 200);
	teardown();
}

/* Denied tokens that fall in an accepted token's slot: each is 401 and
 * cached as a denial, and the accepted one stays cached (no review). */
static void test_denial_keeps_allowed(void)
{
	struct http_stub_route routes[] = {
		{ .match = "tokenreviews", .response = TR_ALICE, .once = true },
		{ .match = "tokenreviews", .response = TR_FORGED },
	};
	setup(routes, 2, 60, 60);
	CHECK(ask("Bearer good", NULL, 0) == 200);
	char bad[32];
	int found = 0;
	for (int i = 0; i < 200000 && found < 3; i++) {
		snprintf(bad, sizeof(bad), "junk-%d", i);
		if (users_slot(bad) != users_slot("good"))
			continue;
		found++;
		char authz[48];
		snprintf(authz, sizeof(authz), "Bearer %s", bad);
		CHECK(ask(authz, NULL, 0) == 401);
		/* the denial itself is cached: no second review */
		CHECK(cached(authz, NULL) == PROXY_AUTHN_UNAUTHENTICATED);
		CHECK(ask(authz, NULL, 0) == 401);
	}
	CHECK(found == 3);
	CHECK(http_stub_count(&stub) == 4);
	CHECK(cached("Bearer good", NULL) == PROXY_AUTHN_ALLOWED);
	teardown();
}

/* One address may start source_rate reviews of unknown tokens a second
 * (twice that at once); past it 429, without asking the upstream. A token
 * accepted before is not held to it. */
static void test_source_budget(void)
{
	struct http_stub_route routes[] = {
		{ .match = "tokenreviews", .response = TR_ALICE, .once = true },
		{ .match = "tokenreviews", .response = TR_FORGED },
		{ .match = "subjectaccessreviews", .response = SAR_ALLOW },
	};
	source_rate = 1;
	setup(routes, 3, 60, 60);
	CHECK(ask("Bearer good", NULL, 0) == 200); /* one of a burst of 2 */
	CHECK(ask("Bearer stranger-1", NULL, 0) == 401);
	CHECK(ask("Bearer stranger-2", NULL, 0) == 429);
	CHECK(ask("Bearer stranger-3", NULL, 0) == 429);
	CHECK(http_stub_count(&stub) == 2);
	/* the known token's access review goes through all the same */
	cur_at = &list_pods;
	CHECK(ask("Bearer good", NULL, 0) == 200);
	CHECK(http_stub_count(&stub) == 3);
	cur_at = NULL;
	teardown();
	source_rate = 1000;
}

int main(void)
{
	if (!authn_stub_start())
		return check_done("authn_faults");
	test_upstream_failing();
	test_abandon_and_stop();
	test_stop_in_flight();
	test_long_attributes();
	test_alloc();
	test_denial_keeps_allowed();
	test_source_budget();
	authn_stub_stop();
	return check_done("authn_faults");
}
