/*
 * test_lister: full paged LISTs against a scripted upstream: pages joined
 * in order at the first page's resourceVersion, the continue token sent
 * back escaped, and each way a LIST is abandoned: an error status, a page
 * without metadata, a repeated continue token, and pages past the byte
 * budget of the whole LIST. A page past its own budget is fetched again
 * in smaller pages. A LIST says it is in key order only when it is.
 * Pages that arrive faster than they are parsed wait in a queue of
 * CACHE_LISTER_QUEUE_MAX at most, and all arrive, in order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/kind.h"
#include "cache/lister.h"
#include "cache/obj.h"
#include "config/buf.h"
#include "config/limits.h"
#include "http_stub.h"
#include "pages.h"
#include "check.h"

#define PAGE(rv, cont, items)                                         \
	HDR "{\"metadata\":{\"resourceVersion\":\"" rv "\"" cont "}," \
	    "\"items\":[" items "]}"

struct run {
	int rc;
	size_t n;
	uint64_t rv;
	char names[64];
	uint64_t malformed;
	bool list_over, list_cycle;
	bool sorted;
	uint64_t too_deep; /* items skipped as nested too deep */
	int requests;
	char req[4][512];
};

/* One cache_lister_list on a fresh resource against routes. */
static struct run list(struct http_stub_route *routes, int nroutes,
		       int page_size, size_t page_max, size_t list_max)
{
	struct run out = { 0 };
	struct http_stub s;
	char server[64];
	CHECK(http_stub_start(&s, routes, nroutes) == 0);
	snprintf(server, sizeof(server), "http://127.0.0.1:%d", s.port);
	struct cache_upstream up = { .server = server,
				     .page_size = page_size,
				     .page_max = page_max,
				     .list_max = list_max };
	struct cache_resource *r =
		cache_resource_new(cache_kind_lookup("pods"), &up, 16);
	char err[256];
	struct cache_xfer_conn c;
	CHECK(cache_xfer_conn_open(&c, r, err, sizeof(err)) == 0);
	struct cache_listing l = { 0 };
	out.rc = cache_lister_list(r, &c, &l);
	out.n = l.n;
	out.rv = l.rv;
	out.sorted = l.sorted;
	for (size_t i = 0; i < l.n; i++)
		strncat(out.names, l.objs[i]->name,
			sizeof(out.names) - strlen(out.names) - 1);
	out.malformed = r->stats.malformed;
	out.list_over = r->list_over;
	out.list_cycle = r->list_cycle;
	out.too_deep = r->stats.rejected_by[CACHE_REJECT_DEPTH];
	cache_lister_listing_free(&l);
	cache_xfer_conn_close(&c);
	http_stub_stop(&s);
	out.requests = s.nreq;
	for (int i = 0; i < 4 && i < s.nreq; i++)
		memcpy(out.req[i], s.req[i], sizeof(out.req[i]));
	cache_resource_free(r);
	return out;
}

static void test_pages(void)
{
	struct http_stub_route routes[] = {
		{ .match = "limit=2&continue=t%2B1%2F%3D ",
		  .response = PAGE("11", ",\"continue\":\"t2\"",
				   POD("c") "," POD("d")) },
		{ .match = "limit=2&continue=t2 ",
		  .response = PAGE("12", "", POD("e")) },
		{ .match = "limit=2 ",
		  .response = PAGE("10", ",\"continue\":\"t+1/=\"",
				   POD("a") "," POD("b")) },
	};
	struct run r = list(routes, 3, 2, 0, 0);
	CHECK(r.rc == REFL_OK && r.n == 5 && r.rv == 10);
	CHECK_STR(r.names, "abcde");
	CHECK(r.sorted);
	CHECK(r.requests == 3 && r.malformed == 0);
	CHECK_STR(r.req[0], "GET /api/v1/pods?limit=2 HTTP/1.1");

	/* an empty list */
	struct http_stub_route empty[] = {
		{ .match = "limit=500 ", .response = PAGE("7", "", "") },
	};
	r = list(empty, 1, 0, 0, 0);
	CHECK(r.rc == REFL_OK && r.n == 0 && r.rv == 7);
}

static void test_abandoned(void)
{
	struct http_stub_route status[] = {
		{ .match = "limit=2 ",
		  .response =
			  "HTTP/1.1 500 Internal Server "
			  "Error\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}" },
	};
	struct run r = list(status, 1, 2, 0, 0);
	CHECK(r.rc == REFL_ERROR && r.n == 0);

	struct http_stub_route nometa[] = {
		{ .match = "limit=2 ", .response = HDR "{\"items\":[]}" },
	};
	r = list(nometa, 1, 2, 0, 0);
	CHECK(r.rc == REFL_ERROR && r.malformed == 1);

	struct http_stub_route again[] = {
		{ .match = "continue=x ",
		  .response = PAGE("10", ",\"continue\":\"x\"", POD("b")) },
		{ .match = "limit=2 ",
		  .response = PAGE("10", ",\"continue\":\"x\"", POD("a")) },
	};
	r = list(again, 2, 2, 0, 0);
	CHECK(r.rc == REFL_ERROR && r.malformed == 1 && r.requests == 2);
	CHECK(r.list_cycle);

	/* a cycle: A, B, A again. It ends at once, not at the byte budget
	 * (small here, so that it ends either way) */
	struct http_stub_route cycle[] = {
		{ .match = "continue=tA ",
		  .response = PAGE("10", ",\"continue\":\"tB\"", POD("b")) },
		{ .match = "continue=tB ",
		  .response = PAGE("10", ",\"continue\":\"tA\"", POD("c")) },
		{ .match = "limit=1 ",
		  .response = PAGE("10", ",\"continue\":\"tA\"", POD("a")) },
	};
	r = list(cycle, 3, 1, 4096, 64 << 10);
	CHECK(r.rc == REFL_ERROR && r.n == 0 && r.malformed == 1);
	/* the third page's answer ends it: one more was maybe fetched
	 * ahead meanwhile; the budget alone would take over a hundred */
	CHECK(r.requests >= 3 && r.requests <= 4);
	CHECK(r.list_cycle && !r.list_over);
	/* one that does not go round is taken, and clears the mark */
	cycle[1].response = PAGE("10", "", POD("c"));
	r = list(cycle, 3, 1, 4096, 64 << 10);
	CHECK(r.rc == REFL_OK && r.n == 3 && !r.list_cycle);

	/* each page fits, the pages together do not */
	struct http_stub_route big[] = {
		{ .match = "continue=t2 ",
		  .response = PAGE("10", ",\"continue\":\"t3\"", POD("b")) },
		{ .match = "continue=t3 ",
		  .response = PAGE("10", "", POD("c")) },
		{ .match = "limit=1 ",
		  .response = PAGE("10", ",\"continue\":\"t2\"", POD("a")) },
	};
	r = list(big, 3, 1, 4096, 500);
	CHECK(r.rc == REFL_ERROR && r.malformed == 1 && r.requests < 3);
	CHECK(r.list_over);	      /* what main names at startup */
	r = list(big, 3, 1, 4096, 0); /* 0: the default budget */
	CHECK(r.rc == REFL_OK && r.n == 3 && !r.list_over);
}

/* A page past page_max is asked for again with half the limit. */
static void test_page_too_large(void)
{
	struct http_stub_route routes[] = {
		{ .match = "&continue=n ",
		  .response = PAGE("10", "", POD("b")) },
		{ .match = "limit=1 ",
		  .response = PAGE("10", ",\"continue\":\"n\"", POD("a")) },
		{ .match = "limit=2 ",
		  .response = PAGE("10",
				   ",\"continue\":\"padding-padding-padding-"
				   "padding-padding-padding-padding-padding\"",
				   POD("a") "," POD("b")) },
	};
	struct run r = list(routes, 3, 2, 200, 0);
	CHECK(r.rc == REFL_OK && r.n == 2);
	CHECK_STR(r.names, "ab");
	CHECK(r.requests == 3);
	CHECK(strstr(r.req[1], "limit=1 ") != NULL);
}

/* A pod named name whose spec holds arrays nested levels deep: the pod
 * itself nests levels + 2 deep. */
static void deep_pod(struct buf *b, const char *name, int levels)
{
	buf_adds(b, "{\"metadata\":{\"name\":\"");
	buf_adds(b, name);
	buf_adds(b, "\",\"namespace\":\"ns\",\"resourceVersion\":\"3\"},"
		    "\"spec\":{\"x\":");
	for (int i = 0; i < levels; i++)
		buf_addc(b, '[');
	for (int i = 0; i < levels; i++)
		buf_addc(b, ']');
	buf_add(b, "}}", 2);
}

/* The apiserver's depth limit holds for each object, not for the page
 * that carries it two levels down: an object at the limit is taken, one
 * past it is skipped and counted, and the rest of the page syncs. */
/* Pages out of key order, within a page or from one page to the next,
 * or a key twice: the listing does not say sorted, so the store sorts it
 * (and keeps one of each key) before loading it. */
static void test_order(void)
{
	static const char *const pages[][2] = {
		{ POD("b") "," POD("a"), POD("c") }, /* within the first */
		{ POD("a") "," POD("c"), POD("b") }, /* across pages */
		{ POD("a") "," POD("b"), POD("b") }, /* a key twice */
		{ POD("a"), POD("a") },
		{ POD("a") "," POD("b"), POD("c") }, /* in order */
	};
	char body[2048], body2[2048];
	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		snprintf(body, sizeof(body),
			 PAGE("10", ",\"continue\":\"t2\"", "%s"), pages[i][0]);
		snprintf(body2, sizeof(body2), PAGE("11", "", "%s"),
			 pages[i][1]);
		struct http_stub_route routes[] = {
			{ .match = "limit=2&continue=t2 ", .response = body2 },
			{ .match = "limit=2 ", .response = body },
		};
		struct run r = list(routes, 2, 2, 0, 0);
		CHECK(r.rc == REFL_OK && r.n == (i == 3 ? 2 : 3));
		CHECK(r.sorted == (i == 4));
	}
}

static void test_deep_items(void)
{
	struct buf page = BUF_INIT;
	buf_adds(&page, HDR "{\"metadata\":{\"resourceVersion\":\"10\"},"
			    "\"items\":[" POD("a") ",");
	deep_pod(&page, "b", LIMIT_JSON_DEPTH - 2); /* at the limit */
	buf_addc(&page, ',');
	deep_pod(&page, "c", LIMIT_JSON_DEPTH - 1); /* one past it */
	buf_adds(&page, "," POD("d") "]}");
	struct http_stub_route routes[] = {
		{ .match = "limit=500 ", .response = page.p },
	};
	struct run r = list(routes, 1, 0, 0, 0);
	CHECK(r.rc == REFL_OK && r.n == 3 && r.rv == 10);
	CHECK_STR(r.names, "abd");
	CHECK(r.too_deep == 1 && r.malformed == 0);
	buf_free(&page);
}

/* NPAGES pages of PER_PAGE pods, each with a spec of 600 numbers, from
 * an upstream that sends them faster than two parsers read them: the
 * fetcher waits for room in the queue instead of queueing them all. */
static void test_queue_bound(void)
{
	enum {
		NPAGES = 30,
		PER_PAGE = 300
	};
	static struct http_stub_route routes[NPAGES];
	/* a spec of many small values: slow to validate, quick to send */
	char pad[1200];
	size_t w = 0;
	for (int i = 0; w + 3 < sizeof(pad); i++)
		w += (size_t)snprintf(pad + w, sizeof(pad) - w, "%s%d",
				      i ? "," : "", i % 10);
	for (int pg = 0; pg < NPAGES; pg++) {
		struct buf b = BUF_INIT, m = BUF_INIT;
		buf_printf(&b, HDR "{\"metadata\":{\"resourceVersion\":\"9\"");
		if (pg + 1 < NPAGES)
			buf_printf(&b, ",\"continue\":\"c%d\"", pg + 1);
		buf_adds(&b, "},\"items\":[");
		for (int i = 0; i < PER_PAGE; i++)
			buf_printf(&b,
				   "%s{\"metadata\":{\"name\":\"p%05d\","
				   "\"namespace\":\"ns\",\"resourceVersion\":"
				   "\"3\"},\"spec\":{\"a\":[%s]}}",
				   i ? "," : "", pg * PER_PAGE + i, pad);
		buf_adds(&b, "]}");
		if (pg)
			buf_printf(&m, "limit=%d&continue=c%d ", PER_PAGE, pg);
		else
			buf_printf(&m, "limit=%d ", PER_PAGE);
		CHECK(buf_ok(&b) && buf_ok(&m));
		routes[pg] = (struct http_stub_route){ .match = m.p,
						       .response = b.p };
	}
	/* the first page's route last: its match is in all the others */
	struct http_stub_route first = routes[0];
	memmove(routes, routes + 1, (NPAGES - 1) * sizeof(*routes));
	routes[NPAGES - 1] = first;
	struct run r = list(routes, NPAGES, PER_PAGE, 0, 0);
	CHECK(r.rc == REFL_OK && r.n == NPAGES * PER_PAGE && r.rv == 9);
	CHECK(r.sorted && r.requests == NPAGES);
	size_t peak = cache_lister_queue_peak();
	CHECK(peak >= 1 && peak <= CACHE_LISTER_QUEUE_MAX);
	for (int pg = 0; pg < NPAGES; pg++) {
		free((char *)routes[pg].match);
		free((char *)routes[pg].response);
	}
}

int main(void)
{
	test_pages();
	test_abandoned();
	test_page_too_large();
	test_deep_items();
	test_queue_bound();
	test_order();
	return check_done("lister");
}
