/*
 * test_pager: a paged LIST's next page is asked for while the page before
 * it is still arriving, and used only when the LIST loop asks for exactly
 * it. Against a scripted upstream: the request for page 2 goes out while
 * page 1 never ends; a page fetched ahead costs no second request; one
 * the loop does not want is dropped; a dropped or silent transfer ends
 * at once when the pager is freed; the continue token is read from a
 * page's first bytes only.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cache/kind.h"
#include "cache/pager.h"
#include "cache/lister.h"
#include "cache/url.h"
#include "http_stub.h"
#include "pages.h"
#include "check.h"

#define PAGE(cont, items)                                        \
	HDR "{\"metadata\":{\"resourceVersion\":\"9\"" cont "}," \
	    "\"items\":[" items "]}"

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static int nreq(struct http_stub *s)
{
	pthread_mutex_lock(&s->lock);
	int n = s->nreq;
	pthread_mutex_unlock(&s->lock);
	return n;
}

/* Wait up to 3 s for the stub to have seen n requests. */
static bool wait_nreq(struct http_stub *s, int n)
{
	for (double end = now_s() + 3; now_s() < end;) {
		if (nreq(s) >= n)
			return true;
		struct timespec ts = { 0, 5000000 };
		nanosleep(&ts, NULL);
	}
	return false;
}

struct world {
	struct http_stub s;
	char server[64];
	struct cache_upstream up;
	struct cache_resource *r;
	struct cache_xfer_conn c;
};

static void world_start(struct world *w, struct http_stub_route *routes, int n)
{
	CHECK(http_stub_start(&w->s, routes, n) == 0);
	snprintf(w->server, sizeof(w->server), "http://127.0.0.1:%d",
		 w->s.port);
	w->up = (struct cache_upstream){ .server = w->server, .page_size = 2 };
	w->r = cache_resource_new(cache_kind_lookup("pods"), &w->up, 16);
	char err[256];
	CHECK(cache_xfer_conn_open(&w->c, w->r, err, sizeof(err)) == 0);
}

static void world_stop(struct world *w)
{
	cache_xfer_conn_close(&w->c);
	http_stub_stop(&w->s);
	cache_resource_free(w->r);
}

static void page_url(struct world *w, const char *cont, struct buf *url)
{
	buf_reset(url);
	cache_url_list(url, w->server, w->r->kind, NULL, 2, cont);
}

/* Through the pager's API: page 2 is asked for by page 1's head, handed
 * over without a new request; a page nobody asked ahead is fetched. */
static void test_ahead(void)
{
	struct http_stub_route routes[] = {
		{ .match = "continue=t2 ", .response = PAGE("", POD("c")) },
		{ .match = "limit=2 ",
		  .response =
			  PAGE(",\"continue\":\"t2\"", POD("a") "," POD("b")) },
	};
	struct world w;
	world_start(&w, routes, 2);
	struct cache_pager *p = cache_pager_new(w.r, &w.c, NULL);
	CHECK(p != NULL);
	struct buf url = BUF_INIT;
	size_t max = 1 << 20;
	cache_pager_set(p, 2, max, 0, true, true);
	struct cache_pager_page x = { .body_max = max };
	page_url(&w, NULL, &url);
	CHECK(cache_pager_get(p, url.p, &x) == 200);
	CHECK(strstr(x.body.p, "\"t2\"") && strstr(x.body.p, "\"b\""));
	buf_free(&x.body);
	/* page 2 went out with nobody asking for it yet */
	CHECK(wait_nreq(&w.s, 2));
	CHECK(strstr(w.s.req[1], "limit=2&continue=t2 ") != NULL);
	x = (struct cache_pager_page){ .body_max = max };
	page_url(&w, "t2", &url);
	CHECK(cache_pager_get(p, url.p, &x) == 200);
	CHECK(x.body.p && strstr(x.body.p, "\"c\""));
	CHECK(nreq(&w.s) == 2); /* handed over: no second request */
	buf_free(&x.body);
	/* asked with another budget (the LIST's end is near): fetched
	 * again, and with ahead off nothing more goes out */
	cache_pager_set(p, 2, max, 0, true, false);
	x = (struct cache_pager_page){ .body_max = max / 2 };
	page_url(&w, NULL, &url);
	CHECK(cache_pager_get(p, url.p, &x) == 200);
	CHECK(nreq(&w.s) == 3);
	buf_free(&x.body);
	struct timespec ts = { 0, 100000000 };
	nanosleep(&ts, NULL);
	CHECK(nreq(&w.s) == 3);
	cache_pager_free(p);
	buf_free(&url);
	world_stop(&w);
	cache_pager_free(NULL);
}

struct listing_run {
	struct world *w;
	int rc;
	struct cache_listing l;
};

static void *run_list(void *arg)
{
	struct listing_run *lr = arg;
	lr->rc = cache_lister_list(lr->w->r, &lr->w->c, &lr->l);
	return NULL;
}

/* Page 1 never ends; page 2 is asked for anyway, from its head, and
 * stopping the LIST aborts both at once. */
static void test_overlap_and_stop(void)
{
	struct http_stub_route routes[] = {
		{ .match = "limit=2 ",
		  .response = HDR "{\"metadata\":{\"resourceVersion\":\"9\","
				  "\"continue\":\"t2\"},\"items\":[" POD("a"),
		  .hold = true },
		{ .match = "continue=t2 ",
		  .response = PAGE("", POD("c")),
		  .hold = true },
	};
	struct world w;
	world_start(&w, routes, 2);
	struct listing_run lr = { .w = &w };
	pthread_t t;
	CHECK(pthread_create(&t, NULL, run_list, &lr) == 0);
	/* the stub serves one connection at a time: page 2's request sits
	 * in its backlog while page 1 is held open */
	struct timespec ts = { 0, 300000000 };
	nanosleep(&ts, NULL);
	double t0 = now_s();
	cache_resource_ask_stop(w.r);
	pthread_join(t, NULL);
	double took = now_s() - t0;
	CHECK(lr.rc == REFL_STOP && lr.l.n == 0);
	CHECK(took < 5.0); /* not the 90 s stall timeout */
	if (took >= 5.0)
		fprintf(stderr, "  stopping took %.2f s\n", took);
	/* page 1 hung up, the stub read page 2's request: sent while page 1
	 * was still arriving */
	CHECK(wait_nreq(&w.s, 2));
	CHECK(strstr(w.s.req[1], "continue=t2 ") != NULL);
	cache_lister_listing_free(&lr.l);
	world_stop(&w);
}

/* Every page fetched ahead, none twice: four pages, four requests. */
static void test_whole_list(void)
{
	struct http_stub_route routes[] = {
		{ .match = "continue=t2 ",
		  .response =
			  PAGE(",\"continue\":\"t3\"", POD("c") "," POD("d")) },
		{ .match = "continue=t3 ",
		  .response =
			  PAGE(",\"continue\":\"t4\"", POD("e") "," POD("f")) },
		{ .match = "continue=t4 ", .response = PAGE("", POD("g")) },
		{ .match = "limit=2 ",
		  .response =
			  PAGE(",\"continue\":\"t2\"", POD("a") "," POD("b")) },
	};
	struct world w;
	world_start(&w, routes, 4);
	struct listing_run lr = { .w = &w };
	run_list(&lr);
	CHECK(lr.rc == REFL_OK && lr.l.n == 7 && lr.l.rv == 9);
	char names[16] = "";
	for (size_t i = 0; i < lr.l.n && i < 15; i++)
		names[i] = lr.l.objs[i]->name[0];
	CHECK_STR(names, "abcdefg");
	CHECK(nreq(&w.s) == 4);
	cache_lister_listing_free(&lr.l);
	world_stop(&w);
}

/* A page of one pod whose annotation pads it to pad bytes, continued by
 * cont ("" on the last page), as the stub sends it. */
static char *padded_page(const char *name, const char *cont, size_t pad)
{
	char *fill = malloc(pad + 1), *page = malloc(pad + 512);
	memset(fill, 'x', pad);
	fill[pad] = '\0';
	snprintf(page, pad + 512,
		 HDR "{\"metadata\":{\"resourceVersion\":\"9\"%s%s%s},"
		     "\"items\":[{\"metadata\":{\"name\":\"%s\","
		     "\"namespace\":\"ns\",\"resourceVersion\":\"3\","
		     "\"annotations\":{\"pad\":\"%s\"}}}]}",
		 *cont ? ",\"continue\":\"" : "", cont, *cont ? "\"" : "", name,
		 fill);
	free(fill);
	return page;
}

/* Tokens left in rl. */
static double tokens(struct cache_ratelimit *rl)
{
	pthread_mutex_lock(&rl->lock);
	double left = rl->tokens;
	pthread_mutex_unlock(&rl->lock);
	return left;
}

/*
 * A LIST of large pages takes one --upstream-qps token, for its first
 * page: its continue pages follow at the upstream's pace, bounded by the
 * LIST's byte budget. After small pages (an upstream answering with
 * near-empty pages and new tokens) each pays, as any request: all but
 * the second, which is asked for before the first has ended.
 */
static void test_tokens(size_t pad, double per_list)
{
	char *pages[4] = { padded_page("a", "t2", pad),
			   padded_page("c", "t3", pad),
			   padded_page("d", "t4", pad),
			   padded_page("e", "", pad) };
	struct http_stub_route routes[] = {
		{ .match = "continue=t2 ", .response = pages[1] },
		{ .match = "continue=t3 ", .response = pages[2] },
		{ .match = "continue=t4 ", .response = pages[3] },
		{ .match = "limit=2 ", .response = pages[0] },
	};
	struct world w;
	struct cache_ratelimit rl;
	cache_ratelimit_init(&rl, 0.01, 10); /* no refill to speak of */
	world_start(&w, routes, 4);
	w.r->up.limit = &rl;
	for (int round = 1; round <= 2; round++) {
		struct listing_run lr = { .w = &w };
		run_list(&lr);
		CHECK(lr.rc == REFL_OK && lr.l.n == 4);
		cache_lister_listing_free(&lr.l);
		double want = 10 - round * per_list, left = tokens(&rl);
		CHECK(left > want - 0.5 && left < want + 0.5);
		if (!(left > want - 0.5 && left < want + 0.5))
			fprintf(stderr,
				"  %.2f tokens left after %d LISTs of %zu-byte "
				"pages, %.2f wanted\n",
				left, round, pad, want);
	}
	CHECK(nreq(&w.s) == 8);
	w.r->up.limit = NULL;
	world_stop(&w);
	cache_ratelimit_destroy(&rl);
	for (int i = 0; i < 4; i++)
		free(pages[i]);
}

/* The token is read from the first bytes, in any split, and not from a
 * "metadata" deeper in. */
static void test_peek(void)
{
	static const char page[] =
		"{\"items\":[{\"metadata\":{\"continue\":\"no\"}}],"
		"\"metadata\":{\"resourceVersion\":\"9\",\"continue\":\"t\\/2\"}}";
	static const char first[] =
		"{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"9\","
		"\"continue\":\"t2\"},\"items\":[{\"metad";
	struct buf b = BUF_INIT;
	char *cont = NULL;
	buf_adds(&b, page);
	CHECK(cache_pager_peek_continue(&b, &cont) == 0);
	CHECK_STR(cont, "t/2");
	free(cont);
	for (size_t cut = 0; cut < strlen(first); cut++) {
		buf_reset(&b);
		buf_add(&b, first, cut);
		int rc = cache_pager_peek_continue(&b, &cont);
		bool whole = cut > (size_t)(strstr(first, "},") - first);
		CHECK(whole ? rc == 0 && cont && !strcmp(cont, "t2") :
			      rc == -EINVAL && !cont);
		free(cont);
	}
	buf_reset(&b);
	buf_adds(&b, "{\"metadata\":{\"resourceVersion\":\"9\"},\"items\":[]}");
	CHECK(cache_pager_peek_continue(&b, &cont) == 0 && !cont);
	buf_free(&b);
}

int main(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
	test_peek();
	test_ahead();
	test_whole_list();
	/* past CACHE_LISTER_FREE_PAGE_MIN: 1 token a LIST, not 4 */
	test_tokens(CACHE_LISTER_FREE_PAGE_MIN, 1);
	/* small pages: one each but the LIST's second, 3 a LIST */
	test_tokens(100, 3);
	test_overlap_and_stop();
	curl_global_cleanup();
	return check_done("pager");
}
