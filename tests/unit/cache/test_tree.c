/*
 * test_tree: the store's persistent AVL tree on its own: order by key
 * and by label, replace and delete, old versions untouched by new ones,
 * ranks, balanced builds, and allocation failure; bulk builds in slabs:
 * the same tree as one built by inserts, changed by inserts and deletes
 * like it, and their slabs freed as they empty.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/kind.h"
#include "cache/tree.h"
#include "config/alloc.h"
#include "check.h"

static struct cache_obj *pod(const char *ns, const char *name, unsigned rv,
			     const char *app)
{
	char js[512];
	snprintf(js, sizeof(js),
		 "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"%s\","
		 "\"resourceVersion\":\"%u\",\"labels\":{\"app\":\"%s\"}}}",
		 name, ns, rv, app);
	return cache_obj_parse(cache_kind_lookup("pods"), js, strlen(js), false,
			       NULL, 0);
}

static struct cache_tree_key key(const char *ns, const char *name)
{
	return (struct cache_tree_key){ NULL, NULL, ns, name };
}

/* In-order walk: the names, joined, into out. */
static void walk(const struct cache_tree_node *n, char *out, size_t cap)
{
	if (!n)
		return;
	walk(n->l, out, cap);
	strncat(out, n->obj->name, cap - strlen(out) - 1);
	strncat(out, " ", cap - strlen(out) - 1);
	walk(n->r, out, cap);
}

static int balanced(const struct cache_tree_node *n)
{
	if (!n)
		return 0;
	int l = balanced(n->l), r = balanced(n->r);
	if (l < 0 || r < 0 || abs(l - r) > 1 ||
	    n->height != 1 + (l > r ? l : r) ||
	    n->size != 1 + cache_tree_size(n->l) + cache_tree_size(n->r))
		return -1;
	return n->height;
}

static void test_insert_delete(void)
{
	struct cache_tree_node *v[8] = { NULL };
	struct cache_obj *old = NULL;
	const char *names[] = { "d", "b", "f", "a", "c", "e", "g" };
	for (int i = 0; i < 7; i++) {
		struct cache_obj *o = pod("ns", names[i], 10 + i, "x");
		v[i + 1] = cache_tree_ins(v[i], o, CACHE_TREE_NO_LABEL, &old);
		CHECK(v[i + 1] && old == NULL);
		cache_obj_put(o);
	}
	char out[64] = "";
	walk(v[7], out, sizeof(out));
	CHECK_STR(out, "a b c d e f g ");
	CHECK(balanced(v[7]) == 3 && cache_tree_size(v[7]) == 7);
	out[0] = '\0';
	walk(v[3], out, sizeof(out)); /* an old version is unchanged */
	CHECK_STR(out, "b d f ");

	struct cache_tree_key k = key("ns", "c");
	CHECK(cache_tree_rank(v[7], &k) == 2);
	k = key("ns", "cc");
	CHECK(cache_tree_rank(v[7], &k) == 3 && !cache_tree_find(v[7], &k));
	k = key("a-ns", "z"); /* namespace sorts first */
	CHECK(cache_tree_rank(v[7], &k) == 0);

	/* replace: same key, the old object handed back */
	struct cache_obj *o = pod("ns", "c", 99, "y");
	struct cache_tree_node *r =
		cache_tree_ins(v[7], o, CACHE_TREE_NO_LABEL, &old);
	CHECK(r && old && old->rv == 14 && cache_tree_size(r) == 7);
	k = key("ns", "c");
	CHECK(cache_tree_find(r, &k)->obj->rv == 99);
	CHECK(cache_tree_find(v[7], &k)->obj->rv == 14);
	cache_obj_put(o);

	bool fail = false;
	struct cache_tree_node *del = cache_tree_del(r, &k, &old, &fail);
	CHECK(!fail && old && old->rv == 99);
	out[0] = '\0';
	walk(del, out, sizeof(out));
	CHECK_STR(out, "a b d e f g ");
	CHECK(balanced(del) > 0 && !cache_tree_find(del, &k));

	for (int i = 1; i <= 7; i++)
		cache_tree_put(v[i]);
	cache_tree_put(r);
	cache_tree_put(del);
}

static void test_labels_and_build(void)
{
	struct cache_obj *o[4] = {
		pod("ns", "a", 1, "web"),
		pod("ns", "b", 2, "db"),
		pod("ns", "c", 3, "web"),
		pod("ns", "d", 4, "cache"),
	};
	/* label entries sort by key, value, then object key */
	struct cache_tree_key ka, kb;
	cache_tree_key_of(o[0], 0, &ka);
	cache_tree_key_of(o[1], 0, &kb);
	CHECK(ka.lk && !strcmp(ka.lk, "app") && !strcmp(ka.lv, "web"));
	CHECK(cache_tree_cmp(&kb, &ka) < 0); /* db < web */
	cache_tree_key_of(o[2], 0, &kb);
	CHECK(cache_tree_cmp(&ka, &kb) < 0); /* web/a < web/c */
	CHECK(cache_tree_cmp(&ka, &ka) == 0);
	cache_tree_key_of(o[0], CACHE_TREE_NO_LABEL, &kb);
	CHECK(kb.lk == NULL && !strcmp(kb.name, "a"));

	struct cache_tree_entry e[4] = {
		{ o[3], 0 }, { o[1], 0 }, { o[0], 0 }, { o[2], 0 }
	};
	bool fail = false;
	struct cache_tree_node *t = cache_tree_build(e, 4, &fail);
	CHECK(!fail && t && cache_tree_size(t) == 4 && balanced(t) > 0);
	char out[64] = "";
	walk(t, out, sizeof(out));
	CHECK_STR(out, "d b a c "); /* cache, db, web(a), web(c) */
	struct cache_tree_key web = { "app", "web", "", "" };
	CHECK(cache_tree_rank(t, &web) == 2); /* where web=... starts */
	cache_tree_put(t);
	CHECK(cache_tree_build(e, 0, &fail) == NULL && !fail);

	/* a build that runs out of memory fails whole and leaks nothing */
	for (int n = 1; n < 10; n++) {
		fail = false;
		alloc_fail_after(n);
		t = cache_tree_build(e, 4, &fail);
		long failed = alloc_failures();
		alloc_fail_after(0);
		if (!failed) {
			CHECK(t && !fail);
			cache_tree_put(t);
			break;
		}
		CHECK(fail && t == NULL);
	}
	for (int i = 0; i < 4; i++)
		cache_obj_put(o[i]);
}

/* Inserting and deleting under allocation failure: NULL or *fail, and
 * the tree it started from still whole. */
static void test_alloc_failure(void)
{
	struct cache_tree_node *t = NULL, *n;
	struct cache_obj *old;
	for (int i = 0; i < 50; i++) {
		char name[8];
		snprintf(name, sizeof(name), "p%02d", i);
		struct cache_obj *o = pod("ns", name, 1, "x");
		n = cache_tree_ins(t, o, CACHE_TREE_NO_LABEL, &old);
		cache_obj_put(o);
		cache_tree_put(t);
		t = n;
	}
	struct cache_obj *o = pod("ns", "p25x", 2, "x");
	alloc_fail_after(3);
	n = cache_tree_ins(t, o, CACHE_TREE_NO_LABEL, &old);
	alloc_fail_after(0);
	CHECK(n == NULL && cache_tree_size(t) == 50 && balanced(t) > 0);
	struct cache_tree_key k = key("ns", "p25");
	bool fail = false;
	alloc_fail_after(2);
	n = cache_tree_del(t, &k, &old, &fail);
	alloc_fail_after(0);
	CHECK(fail && n == NULL && cache_tree_find(t, &k));
	cache_obj_put(o);
	cache_tree_put(t);
}

/* In-order entries of t into out[]: returns how many. */
static size_t entries(const struct cache_tree_node *t, struct cache_obj **out,
		      size_t at)
{
	if (!t)
		return at;
	at = entries(t->l, out, at);
	out[at++] = t->obj;
	return entries(t->r, out, at);
}

/* Same entries in the same order, both balanced with right sizes. */
static bool same_tree(const struct cache_tree_node *a,
		      const struct cache_tree_node *b, size_t n)
{
	struct cache_obj **x = calloc(n + 1, sizeof(*x)),
			 **y = calloc(n + 1, sizeof(*y));
	bool same = x && y && cache_tree_size(a) == n &&
		    cache_tree_size(b) == n && balanced(a) > 0 &&
		    balanced(b) > 0 && entries(a, x, 0) == n &&
		    entries(b, y, 0) == n && !memcmp(x, y, n * sizeof(*x));
	free(x);
	free(y);
	return same;
}

#define BULK_N 10000

static void test_bulk_slabs(void)
{
	static struct cache_obj *o[BULK_N];
	static struct cache_tree_entry e[BULK_N];
	for (int i = 0; i < BULK_N; i++) {
		char name[16];
		snprintf(name, sizeof(name), "p%05d", i); /* in key order */
		o[i] = pod("ns", name, (unsigned)i + 1, "x");
		e[i] = (struct cache_tree_entry){ o[i], CACHE_TREE_NO_LABEL };
	}
	size_t slabs0 = cache_tree_slabs();
	bool fail = false;
	struct cache_tree_node *bulk = cache_tree_build(e, BULK_N, &fail);
	/* 10,000 nodes: two full slabs and one of the rest */
	CHECK(!fail && bulk && cache_tree_slabs() == slabs0 + 3);
	CHECK(bulk->slab != 0);

	/* the same tree as inserts build, entry for entry */
	struct cache_tree_node *ins = NULL, *n;
	struct cache_obj *old;
	for (int i = BULK_N - 1; i >= 0; i--) { /* any order */
		n = cache_tree_ins(ins, o[(i * 7919) % BULK_N],
				   CACHE_TREE_NO_LABEL, &old);
		cache_tree_put(ins);
		ins = n;
	}
	CHECK(ins && ins->slab == 0);
	CHECK(same_tree(bulk, ins, BULK_N));

	/* deletes and inserts on both keep them the same */
	for (int i = 0; i < BULK_N; i += 3) {
		struct cache_tree_key k = key("ns", o[i]->name);
		fail = false;
		n = cache_tree_del(bulk, &k, &old, &fail);
		CHECK(!fail && old == o[i]);
		cache_tree_put(bulk);
		bulk = n;
		n = cache_tree_del(ins, &k, &old, &fail);
		cache_tree_put(ins);
		ins = n;
	}
	size_t left = BULK_N - (BULK_N + 2) / 3;
	CHECK(same_tree(bulk, ins, left));
	struct cache_obj *extra = pod("ns", "p00000x", 1, "y");
	n = cache_tree_ins(bulk, extra, CACHE_TREE_NO_LABEL, &old);
	cache_tree_put(bulk);
	bulk = n;
	n = cache_tree_ins(ins, extra, CACHE_TREE_NO_LABEL, &old);
	cache_tree_put(ins);
	ins = n;
	CHECK(same_tree(bulk, ins, left + 1));
	struct cache_tree_key kx = key("ns", "p00000x");
	CHECK(cache_tree_find(bulk, &kx) && cache_tree_rank(bulk, &kx) == 0);
	cache_obj_put(extra);
	cache_tree_put(ins);
	cache_tree_put(bulk);
	CHECK(cache_tree_slabs() == slabs0);

	/* slabs go back as they empty: replacing the first half of the
	 * entries copies every node of the root's left subtree, which holds
	 * the first slab's nodes (children are built first) */
	fail = false;
	bulk = cache_tree_build(e, BULK_N, &fail);
	CHECK(!fail && cache_tree_slabs() == slabs0 + 3);
	for (int i = 0; i < BULK_N; i++) {
		struct cache_obj *nw = pod("ns", o[i]->name, 99999, "z");
		n = cache_tree_ins(bulk, nw, CACHE_TREE_NO_LABEL, &old);
		CHECK(n && old == o[i]);
		cache_obj_put(nw);
		cache_tree_put(bulk); /* the old version goes */
		bulk = n;
		if (i == BULK_N / 2 - 1)
			CHECK(cache_tree_slabs() == slabs0 + 2);
	}
	/* every entry replaced: every slab back, the tree whole */
	CHECK(cache_tree_slabs() == slabs0 && cache_tree_size(bulk) == BULK_N &&
	      balanced(bulk) > 0);
	cache_tree_put(bulk);

	/* a bulk build failing on its second slab frees the first */
	for (int f = 1; f <= 4; f++) {
		fail = false;
		alloc_fail_after(f);
		bulk = cache_tree_build(e, BULK_N, &fail);
		long failed = alloc_failures();
		alloc_fail_after(0);
		CHECK(failed ? fail && !bulk : !fail && bulk);
		cache_tree_put(bulk);
		CHECK(cache_tree_slabs() == slabs0);
	}
	for (int i = 0; i < BULK_N; i++)
		cache_obj_put(o[i]);
}

/* An owned build takes the entries' references over: the same tree as
 * a plain build, no reference taken or dropped, and on failure every
 * entry's reference given back, whichever slab failed. */
static void test_owned_build(void)
{
	static struct cache_obj *o[BULK_N];
	static struct cache_tree_entry e[BULK_N];
	for (int i = 0; i < BULK_N; i++) {
		char name[16];
		snprintf(name, sizeof(name), "p%05d", i);
		o[i] = pod("ns", name, (unsigned)i + 1, "x");
		e[i] = (struct cache_tree_entry){ o[i], CACHE_TREE_NO_LABEL };
	}
	bool fail = false;
	struct cache_tree_node *plain = cache_tree_build(e, BULK_N, &fail);
	CHECK(!fail && o[0]->refs == 2 && o[BULK_N - 1]->refs == 2);
	for (int i = 0; i < BULK_N; i++)
		cache_obj_get(o[i]); /* the entries' */
	struct cache_tree_node *owned =
		cache_tree_build_owned(e, BULK_N, &fail);
	CHECK(!fail && owned && same_tree(plain, owned, BULK_N));
	CHECK(o[0]->refs == 3 && o[BULK_N / 2]->refs == 3);
	cache_tree_put(owned);
	CHECK(o[0]->refs == 2 && o[BULK_N - 1]->refs == 2);
	size_t slabs0 = cache_tree_slabs();
	for (int f = 1; f <= 4; f++) {
		for (int i = 0; i < BULK_N; i++)
			cache_obj_get(o[i]);
		fail = false;
		alloc_fail_after(f);
		owned = cache_tree_build_owned(e, BULK_N, &fail);
		long failed = alloc_failures();
		alloc_fail_after(0);
		CHECK(failed ? fail && !owned : !fail && owned);
		cache_tree_put(owned);
		CHECK(cache_tree_slabs() == slabs0);
		int wrong = 0;
		for (int i = 0; i < BULK_N; i++)
			wrong += o[i]->refs != 2;
		CHECK(wrong == 0);
	}
	/* a build asked after a failure builds nothing, and gives back */
	for (int i = 0; i < 3; i++)
		cache_obj_get(o[i]);
	fail = true;
	CHECK(cache_tree_build_owned(e, 3, &fail) == NULL && fail);
	CHECK(o[0]->refs == 2 && o[2]->refs == 2);
	cache_tree_put(plain);
	for (int i = 0; i < BULK_N; i++) {
		CHECK(o[i]->refs == 1);
		cache_obj_put(o[i]);
	}
}

int main(void)
{
	test_insert_delete();
	test_labels_and_build();
	test_alloc_failure();
	test_bulk_slabs();
	test_owned_build();
	return check_done("tree");
}
