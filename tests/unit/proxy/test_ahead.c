/*
 * test_ahead: a List's items indented ahead by helper threads, as a
 * sender takes them: the same bytes and kept lengths as one indenter
 * over the whole body, with the helpers or without, whatever the items
 * (escapes, nesting, one broken), with the pool stopped halfway, and a
 * body dropped halfway (its helpers waited for), and out of memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config/alloc.h"
#include "config/buf.h"
#include "proxy/ahead.h"
#include "proxy/pretty.h"
#include "check.h"

#define ITEMS 3000
/* Every how many items one is deep, and how deep its 50 arrays nest
 * (99: indented, a hundred times longer). */
static size_t deep_every = 997;
static int deep_depth = 99;

struct body {
	struct MHD_IoVec v[2 * ITEMS + 2];
	size_t n, total;
	uint32_t kept[ITEMS];
	uint32_t *slot[2 * ITEMS + 2];
	struct buf items[ITEMS];
};

/* A List of n items: "{" or ",{", then the item's bytes, each a piece
 * with a kept-length slot; item bad (if < n) lacks its closing brace. */
static void body_make(struct body *b, size_t n, size_t bad)
{
	static const char *head = "{\"kind\":\"PodList\",\"items\":[";
	memset(b, 0, sizeof(*b));
	b->v[b->n++] = (struct MHD_IoVec){ head, strlen(head) };
	for (size_t i = 0; i < n; i++) {
		struct buf *it = &b->items[i];
		*it = (struct buf)BUF_INIT;
		buf_printf(it,
			   "\"metadata\":{\"name\":\"pod-%zu\",\"labels\":{"
			   "\"a\\\"b\":\"c\\\\d\\u00e9\"}},\"spec\":{"
			   "\"containers\":[{\"name\":\"c\",\"args\":[%s]}],"
			   "\"empty\":{},\"none\":[],\"n\":%zu,\"t\":true,"
			   "\"note\":\"%0300d\"",
			   i, i % 7 ? "\"x\",\"y\"" : "", i * 31, 0);
		/* a few deep ones: a hundred times longer indented, more
		 * than a helper's first buffer holds */
		for (int r = 0; i % deep_every == 11 % deep_every && r < 50;
		     r++) {
			buf_adds(it, r ? "," : ",\"deep\":[");
			for (int k = 0; k < deep_depth; k++)
				buf_adds(it, "[");
			for (int k = 0; k < deep_depth; k++)
				buf_adds(it, "]");
			if (r == 49)
				buf_adds(it, "]");
		}
		buf_adds(it, i == bad ? "}" : "}}");
		/* some items long, to make ranges of few items */
		for (size_t k = 0; i % 97 == 5 && k < 200; k++)
			buf_adds(it, " ");
		b->v[b->n++] = (struct MHD_IoVec){ i ? ",{" : "{", i ? 2 : 1 };
		b->slot[b->n] = &b->kept[i];
		b->v[b->n++] = (struct MHD_IoVec){ it->p, it->len };
	}
	b->v[b->n++] = (struct MHD_IoVec){ "]}\n", 3 };
	for (size_t i = 0; i < b->n; i++)
		b->total += b->v[i].iov_len;
}

static void body_free(struct body *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		buf_free(&b->items[i]);
}

/* Indent pieces [from, to) into out, keeping the items' lengths as the
 * sender in reply.c does. */
static void indent(struct body *b, struct proxy_pretty_indenter *st,
		   size_t from, size_t to, struct buf *out)
{
	char chunk[700]; /* small: many steps */
	for (size_t i = from; i < to; i++) {
		const char *p = b->v[i].iov_base;
		size_t n = b->v[i].iov_len, piece = 0;
		bool item = b->slot[i] && proxy_pretty_at_item(st, true);
		for (;;) {
			size_t used;
			size_t k = proxy_pretty_indent_step(
				st, p, n, &used, chunk, sizeof(chunk));
			buf_add(out, chunk, k);
			piece += k;
			p += used;
			n -= used;
			if (!n && k < sizeof(chunk))
				break;
		}
		if (item && proxy_pretty_at_item(st, false))
			__atomic_store_n(b->slot[i], (uint32_t)piece,
					 __ATOMIC_RELAXED);
	}
}

/* Item i's indented length from where a List item starts (0: it does
 * not end where one does). */
static uint32_t alone(struct body *b, size_t i)
{
	struct proxy_pretty_indenter st = { .depth = 2 };
	struct buf out = BUF_INIT;
	uint32_t keep = b->kept[i];
	b->kept[i] = 0;
	indent(b, &st, 1 + 2 * i, 3 + 2 * i, &out);
	uint32_t len = b->kept[i];
	b->kept[i] = keep;
	buf_free(&out);
	return len;
}

static void finish(struct proxy_pretty_indenter *st, struct buf *out)
{
	char chunk[64];
	size_t k;
	while ((k = proxy_pretty_indent_end(st, chunk, sizeof(chunk))))
		buf_add(out, chunk, k);
}

/* The body as a sender sends it with pool's helpers, once one of them
 * has started when wait; after stop_at pieces, the pool stopped (stop)
 * or the body dropped (drop: returns false). Counts the ranges taken
 * made. */
static bool send_body(struct body *b, struct proxy_ahead_pool *pool,
		      size_t stop_at, bool drop, bool wait, struct buf *out,
		      int *made)
{
	struct proxy_ahead *a =
		proxy_ahead_new(pool, b->v, b->n, b->total, b->slot, b->n);
	/* a helper's first item kept: the first range is the helpers'
	 * (however loaded the machine), so the sender takes it made */
	for (int i = 0; a && wait && i < 20000 &&
			!__atomic_load_n(&b->kept[1], __ATOMIC_RELAXED);
	     i++)
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	struct proxy_pretty_indenter st = { 0 };
	size_t at = 0, next = 0;
	*made = 0;
	while (at < b->n) {
		if (at >= stop_at && stop_at) {
			if (drop) {
				proxy_ahead_free(a);
				return false;
			}
			proxy_ahead_pool_stop(pool);
			stop_at = 0;
		}
		const char *p;
		size_t len;
		if (a && at == next &&
		    proxy_ahead_take(a, at, proxy_pretty_at_item(&st, false),
				     &p, &len, &next)) {
			buf_add(out, p, len);
			size_t in = 0;
			for (size_t i = at; i < next; i++)
				in += b->v[i].iov_len;
			CHECK(len <= PROXY_AHEAD_OUT_MAX(in));
			proxy_ahead_sent(a);
			(*made)++;
			at = next;
			st = (struct proxy_pretty_indenter){ .depth = 2 };
			continue;
		}
		size_t to = a && next != SIZE_MAX && next > at ? next : at + 1;
		indent(b, &st, at, to < b->n ? to : b->n, out);
		at = to;
	}
	finish(&st, out);
	proxy_ahead_free(a);
	return true;
}

static void check_body(size_t n, size_t bad, size_t stop_at, bool drop)
{
	static struct body b;
	body_make(&b, n, bad);
	/* the reference: one indenter over the whole, no helper */
	struct buf want = BUF_INIT, got = BUF_INIT;
	struct proxy_pretty_indenter st = { 0 };
	indent(&b, &st, 0, b.n, &want);
	finish(&st, &want);
	static uint32_t want_kept[ITEMS];
	memcpy(want_kept, b.kept, sizeof(want_kept));
	memset(b.kept, 0, sizeof(b.kept));

	struct proxy_ahead_pool *pool = proxy_ahead_pool_new();
	CHECK(pool != NULL); /* the tests run on two CPUs or more */
	int made = 0;
	bool helped = bad >= n && !stop_at && b.total >= PROXY_AHEAD_MIN;
	bool whole = send_body(&b, pool, stop_at, drop, helped, &got, &made);
	CHECK(whole == !drop);
	if (whole) {
		CHECK(got.len == want.len && !memcmp(got.p, want.p, want.len));
		/* kept as by the one indenter; where it kept none (after
		 * the broken item), a helper may have: the item's length
		 * from where an item starts, as defined */
		for (size_t i = 0; i < n; i++)
			CHECK(b.kept[i] == want_kept[i] ||
			      (!want_kept[i] && b.kept[i] == alone(&b, i)));
		if (got.len != want.len || memcmp(got.p, want.p, want.len))
			fprintf(stderr, "  n %zu bad %zu stop %zu: differs\n",
				n, bad, stop_at);
		/* helpers made some (all but what the sender reached
		 * first), unless the items do not indent apart */
		if (helped)
			CHECK(made > 0);
		if (b.total < PROXY_AHEAD_MIN)
			CHECK(made == 0);
	}
	proxy_ahead_pool_free(pool);
	buf_free(&want);
	buf_free(&got);
	body_free(&b, n);
}

/* Out of memory in the body's helpers (its own state, a helper's
 * buffer or its growth): the same bytes, the sender indenting what was
 * not made. The test's own output is reserved first, so that only the
 * code under test meets the failure. */
static void check_alloc_fail(void)
{
	static struct body b;
	body_make(&b, ITEMS, ITEMS);
	struct buf want = BUF_INIT;
	struct proxy_pretty_indenter st = { 0 };
	indent(&b, &st, 0, b.n, &want);
	finish(&st, &want);
	struct proxy_ahead_pool *pool = proxy_ahead_pool_new();
	for (long n = 1; n <= 8; n++) {
		struct buf got = BUF_INIT;
		buf_reserve(&got, want.len + 4096);
		memset(b.kept, 0, sizeof(b.kept));
		int made;
		alloc_fail_after(n);
		send_body(&b, pool, 0, false, false, &got, &made);
		long failed = alloc_failures();
		alloc_fail_after(0);
		/* the first is the body's own state: no helper at all; later
		 * ones fall in a helper's range, when it makes that many */
		CHECK(n == 1 ? failed == 1 && made == 0 : failed <= 1);
		CHECK(got.len == want.len && !memcmp(got.p, want.p, want.len));
		buf_free(&got);
	}
	proxy_ahead_pool_free(pool);
	buf_free(&want);
	body_free(&b, ITEMS);
}

/* Items that indent to far more than a range's buffer may hold: the
 * ranges fail (but perhaps the last, if short), and the sender indents
 * each as it sends it, the same bytes. send_body() checks that no range
 * made is over PROXY_AHEAD_OUT_MAX, whatever the objects. */
static void check_deep(void)
{
	static struct body b;
	deep_every = 1;
	deep_depth = 30;	 /* 40 times longer */
	body_make(&b, 350, 350); /* 1.1 MB, 45 MB indented */
	deep_every = 997;
	deep_depth = 99;
	struct buf want = BUF_INIT, got = BUF_INIT;
	struct proxy_pretty_indenter st = { 0 };
	indent(&b, &st, 0, b.n, &want);
	finish(&st, &want);
	CHECK(b.total >= PROXY_AHEAD_MIN);
	struct proxy_ahead_pool *pool = proxy_ahead_pool_new();
	int made = -1;
	/* the first range is a helper's (its first item fits): without
	 * the bound it would be made, over it */
	CHECK(send_body(&b, pool, 0, false, true, &got, &made));
	CHECK(made <= 1); /* the last range may be short enough */
	CHECK(got.len == want.len && !memcmp(got.p, want.p, want.len));
	proxy_ahead_pool_free(pool);
	buf_free(&want);
	buf_free(&got);
	body_free(&b, 350);
}

int main(void)
{
	for (int round = 0; round < 3; round++) {
		check_body(ITEMS, ITEMS, 0, false);    /* all helped */
		check_body(10, ITEMS, 0, false);       /* too small: alone */
		check_body(ITEMS, 1500, 0, false);     /* one item broken */
		check_body(ITEMS, 1, 0, false);	       /* broken early */
		check_body(ITEMS, ITEMS, 2001, false); /* pool stopped */
		check_body(ITEMS, ITEMS, 2001, true);  /* body dropped */
		check_body(ITEMS, ITEMS, 7, true);     /* dropped early */
	}
	check_alloc_fail();
	check_deep();
	/* no pool: none */
	static struct body b;
	body_make(&b, ITEMS, ITEMS);
	CHECK(proxy_ahead_new(NULL, b.v, b.n, b.total, b.slot, b.n) == NULL);
	body_free(&b, ITEMS);
	return check_done("ahead");
}
