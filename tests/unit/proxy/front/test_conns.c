/*
 * test_conns: the connection limits in force under an open-file limit,
 * and the watch slots. (Connections themselves: tests/e2e/test_limits.py.)
 */
#include <stdio.h>

#include "config/flags.h"
#include "config/limits.h"
#include "proxy/front/conns.h"
#include "check.h"

static struct proxy_conns *with(int max, long nofile)
{
	struct config cfg = { .max_connections = max,
			      .max_watchers = 3,
			      .idle_timeout = 120,
			      .header_timeout = 32 };
	return proxy_conns_new(&cfg, nofile);
}

static void test_limits(void)
{
	/* room enough: the flag, plus the whole reserve */
	struct proxy_conns *cs = with(200, 20000);
	CHECK(proxy_conns_max(cs) == 200);
	CHECK(proxy_conns_limit(cs) == 200 + LIMIT_CONNECTION_RESERVE);
	proxy_conns_free(cs);
	/* the default under a soft limit of 1024 that could not be raised:
	 * every descriptor after those kept back, the reserve included */
	cs = with(LIMIT_MAX_CONNECTIONS, 1024);
	CHECK(proxy_conns_max(cs) ==
	      1024 - LIMIT_FD_RESERVE - LIMIT_CONNECTION_RESERVE);
	CHECK(proxy_conns_limit(cs) == 1024 - LIMIT_FD_RESERVE);
	proxy_conns_free(cs);
	/* a small limit keeps half back, and a quarter of the rest for probes */
	cs = with(LIMIT_MAX_CONNECTIONS, 256);
	CHECK(proxy_conns_max(cs) == 96);
	CHECK(proxy_conns_limit(cs) == 128);
	proxy_conns_free(cs);
	/* a tiny one still serves one client */
	cs = with(LIMIT_MAX_CONNECTIONS, 2);
	CHECK(proxy_conns_max(cs) == 1);
	proxy_conns_free(cs);
	/* unknown: the flag */
	cs = with(LIMIT_MAX_CONNECTIONS, -1);
	CHECK(proxy_conns_max(cs) == LIMIT_MAX_CONNECTIONS);
	proxy_conns_free(cs);
}

static void test_watch_slots(void)
{
	struct proxy_conns *cs = with(10, -1);
	CHECK(proxy_conns_watch_get(cs) && proxy_conns_watch_get(cs) &&
	      proxy_conns_watch_get(cs));
	CHECK(!proxy_conns_watch_get(cs));    /* a fourth past 3 */
	CHECK(proxy_conns_watchers(cs) == 3); /* the refusal took nothing */
	proxy_conns_watch_put(cs);
	CHECK(proxy_conns_watch_get(cs));
	CHECK(proxy_conns_open(cs) == 0 && !proxy_conns_over(cs));
	proxy_conns_free(cs);
}

int main(void)
{
	test_limits();
	test_watch_slots();
	return check_done("conns");
}
