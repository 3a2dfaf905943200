/*
 * store: persistent AVL tree snapshots under RCU (see store.h).
 *
 * A snapshot holds two persistent trees (cache/tree.c): the objects in
 * key order, and the label index, one entry per (object, label), in
 * (label key, label value, object key) order. A transaction updates both.
 *
 * The window: every committed version is also kept in a ring, oldest
 * first, with the lowest RV its transaction changed anything at. The state
 * at an RV N between two versions V and W is V's when W changed nothing
 * at or below N; a version is dropped from the ring's old end when the
 * bytes the kept versions hold beyond the current tree pass
 * LIMIT_STORE_WINDOW_BYTES. The ring is guarded by a mutex: only exact
 * reads look into it, and the writer takes it once a commit.
 */
#include "cache/store.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache/rcu.h"
#include "cache/store_labels.h"
#include "cache/tree.h"
#include "config/alloc.h"
#include "config/limits.h"


struct pin {
	struct cache_snap *snap;
	time_t until;
	uint64_t used; /* pin_clock at the last cache_store_pin() */
};

/* A snapshot as the store publishes it: the rcu_head lets the store drop
 * its reference after a grace period. */
struct snap_box {
	struct cache_snap snap;
	struct rcu_head rcu;
};

/* One version in the window. */
struct version {
	struct cache_snap *snap; /* referenced */
	uint64_t first;		 /* the lowest RV its txn changed */
	size_t bytes; /* what it keeps alive of the one before; 0 when oldest */
};

struct cache_store {
	struct snap_box *cur;	  /* RCU-published */
	pthread_mutex_t win_lock; /* guards win, win_* */
	struct version *win;	  /* a ring of win_cap, oldest at win_at */
	size_t win_cap, win_at, win_n, win_bytes;
	pthread_mutex_t pin_lock; /* guards pins and pin_clock */
	uint64_t pin_clock;
	struct pin pins[LIMIT_PINS_PER_RESOURCE];
	/* the label keys the label index holds; NULL: every key. Set
	 * before the first transaction, read-only after */
	char **index_keys;
	int nindex_keys;
};

bool cache_store_indexes(const struct cache_store *s, const char *key)
{
	struct cache_labels_keys k = { s->index_keys, s->nindex_keys };
	return cache_labels_keys_has(&k, key);
}

int cache_store_index_only(struct cache_store *s, char *const *keys, int n)
{
	char **k = xcalloc((size_t)n + 1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		if (!(k[i] = xstrdup(keys[i]))) {
			while (i-- > 0)
				free(k[i]);
			free(k);
			return -ENOMEM;
		}
	s->index_keys = k;
	s->nindex_keys = n;
	return 0;
}

#if defined(__SANITIZE_THREAD__)
char cache_rcu_tsan_token; /* see cache/rcu.h */
#endif

static struct cache_tree_node *find(struct cache_tree_node *t, const char *ns,
				    const char *name)
{
	struct cache_tree_key k = { NULL, NULL, ns, name };
	return cache_tree_find(t, &k);
}

/* ---- snapshots ---- */

static struct snap_box *box_new(struct cache_tree_node *root,
				struct cache_tree_node *lroot, uint64_t rv)
{
	struct snap_box *b = xmalloc(sizeof(*b));
	if (!b)
		return NULL;
	b->snap.refs = 1;
	b->snap.rv = rv;
	b->snap.root = root;
	b->snap.lroot = lroot;
	b->snap.count = cache_tree_size(root);
	return b;
}

void cache_store_snap_put(struct cache_snap *snap)
{
	if (snap && __atomic_sub_fetch(&snap->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		cache_tree_put(snap->root);
		cache_tree_put(snap->lroot);
		free((struct snap_box *)snap);
	}
}

static void snap_put_rcu(struct rcu_head *head)
{
	cache_rcu_callback();
	struct snap_box *b = caa_container_of(head, struct snap_box, rcu);
	cache_store_snap_put(&b->snap);
}

/* Replace the current snapshot; the old one is put after a grace period. */
static void publish(struct cache_store *s, struct snap_box *b)
{
	struct snap_box *old = cache_rcu_xchg(&s->cur, b);
	if (old)
		call_rcu(&old->rcu, snap_put_rcu);
}

struct cache_store *cache_store_new(void)
{
	struct cache_store *s = xcalloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->cur = box_new(NULL, NULL, 0);
	if (!s->cur) {
		free(s);
		return NULL;
	}
	pthread_mutex_init(&s->pin_lock, NULL);
	pthread_mutex_init(&s->win_lock, NULL);
	return s;
}

void cache_store_free(struct cache_store *s)
{
	if (!s)
		return;
	for (int i = 0; i < LIMIT_PINS_PER_RESOURCE; i++)
		cache_store_snap_put(s->pins[i].snap);
	for (size_t i = 0; i < s->win_n; i++)
		cache_store_snap_put(s->win[(s->win_at + i) % s->win_cap].snap);
	free(s->win);
	cache_store_snap_put(&s->cur->snap);
	pthread_mutex_destroy(&s->pin_lock);
	pthread_mutex_destroy(&s->win_lock);
	for (int i = 0; i < s->nindex_keys; i++)
		free(s->index_keys[i]);
	free(s->index_keys);
	free(s);
}

struct cache_snap *cache_store_snap(struct cache_store *s)
{
	cache_rcu_lock();
	struct snap_box *b = cache_rcu_load(&s->cur);
	cache_store_snap_get(&b->snap);
	cache_rcu_unlock();
	return &b->snap;
}

uint64_t cache_store_rv(struct cache_store *s)
{
	cache_rcu_lock();
	uint64_t rv = cache_rcu_load(&s->cur)->snap.rv;
	cache_rcu_unlock();
	return rv;
}

struct cache_obj *cache_store_get(struct cache_store *s, const char *ns,
				  const char *name, uint64_t *rv)
{
	cache_rcu_lock();
	struct snap_box *b = cache_rcu_load(&s->cur);
	struct cache_tree_node *n = find(b->snap.root, ns, name);
	struct cache_obj *o = n ? cache_obj_get(n->obj) : NULL;
	if (rv)
		*rv = b->snap.rv;
	cache_rcu_unlock();
	return o;
}

struct cache_obj *cache_store_snap_find(const struct cache_snap *snap,
					const char *ns, const char *name)
{
	struct cache_tree_node *n = find(snap->root, ns, name);
	return n ? n->obj : NULL;
}

size_t cache_store_snap_rank(const struct cache_snap *snap, const char *ns,
			     const char *name)
{
	struct cache_tree_key k = { NULL, NULL, ns, name };
	return cache_tree_rank(snap->root, &k);
}

/* Whether every key of namespace ns sorts before o's key. */
static bool ns_before(const char *ns, const struct cache_obj *o)
{
	return cache_obj_keycmp(ns, "\xff", o->ns, o->name) < 0 &&
	       strcmp(ns, o->ns) != 0;
}

size_t cache_store_snap_rank_ns_end(const struct cache_snap *snap,
				    const char *ns)
{
	size_t rank = 0;
	for (const struct cache_tree_node *t = snap->root; t;) {
		if (ns_before(ns, t->obj)) {
			t = t->l;
		} else {
			rank += cache_tree_size(t->l) + 1;
			t = t->r;
		}
	}
	return rank;
}

/* Position it at the first entry of tree t not below k. */
static void seek(struct cache_iter *it, const struct cache_tree_node *t,
		 const struct cache_tree_key *k)
{
	it->depth = 0;
	it->lk = k->lk;
	it->lv = k->lv;
	while (t) {
		struct cache_tree_key nk;
		cache_tree_key_of(t->obj, t->label, &nk);
		if (cache_tree_cmp(k, &nk) <= 0) {
			it->stack[it->depth++] = t;
			t = t->l;
		} else {
			t = t->r;
		}
	}
}

void cache_store_iter_seek(struct cache_iter *it, const struct cache_snap *snap,
			   const char *ns, const char *name)
{
	struct cache_tree_key k = { NULL, NULL, ns, name };
	seek(it, snap->root, &k);
}

void cache_store_iter_seek_label(struct cache_iter *it,
				 const struct cache_snap *snap, const char *key,
				 const char *val, const char *ns,
				 const char *name)
{
	struct cache_tree_key k = { key, val, ns, name };
	seek(it, snap->lroot, &k);
}

struct cache_obj *cache_store_iter_next(struct cache_iter *it)
{
	if (it->depth == 0)
		return NULL;
	const struct cache_tree_node *n = it->stack[--it->depth];
	if (it->lk && (strcmp(n->obj->labels[n->label].key, it->lk) ||
		       strcmp(n->obj->labels[n->label].val, it->lv))) {
		it->depth = 0; /* past the label's range */
		return NULL;
	}
	for (const struct cache_tree_node *t = n->r; t; t = t->l)
		it->stack[it->depth++] = t;
	return n->obj;
}

size_t cache_store_snap_label_count(const struct cache_snap *snap,
				    const char *key, const char *val)
{
	struct cache_tree_key lo = { key, val, "", "" };
	struct cache_tree_key hi = { key, val, "\xff", "" };
	return cache_tree_rank(snap->lroot, &hi) -
	       cache_tree_rank(snap->lroot, &lo);
}

/* ---- writer ---- */

void cache_store_txn_begin(struct cache_store *s, struct cache_txn *t)
{
	/* Only the writer publishes, so its own read needs no grace period,
	 * but the reference keeps the tree ours even after a publish. */
	struct cache_snap *cur = cache_store_snap(s);
	t->s = s;
	t->root = cache_tree_ref(cur->root);
	t->lroot = cache_tree_ref(cur->lroot);
	t->count = cur->count;
	t->failed = false;
	t->full = false;
	t->first = 0;
	t->bytes = 0;
	cache_store_snap_put(cur);
}

void cache_store_txn_begin_empty(struct cache_store *s, struct cache_txn *t)
{
	t->s = s;
	t->root = t->lroot = NULL;
	t->count = 0;
	t->failed = false;
	t->full = true;
	t->first = 0;
	t->bytes = 0;
}

void cache_store_txn_since(struct cache_txn *t, uint64_t rv)
{
	t->first = rv;
}

/* What a change at a tree of this height copies, and the object it
 * replaced (NULL: none), for the window's bound. */
static size_t change_cost(const struct cache_tree_node *root,
			  const struct cache_tree_node *lroot,
			  const struct cache_obj *prev, uint32_t nlabels)
{
	size_t path = (size_t)(root ? root->height + 1 : 1) +
		      (size_t)nlabels * (size_t)(lroot ? lroot->height + 1 : 1);
	return path * sizeof(struct cache_tree_node) +
	       (prev ? sizeof(*prev) + prev->len : 0);
}

/* Replace *tree by next (owned), or fail the txn when next is NULL
 * because an allocation failed. */
static int swap_in(struct cache_txn *t, struct cache_tree_node **tree,
		   struct cache_tree_node *next, bool failed)
{
	if (failed) {
		t->failed = true;
		return -ENOMEM;
	}
	cache_tree_put(*tree);
	*tree = next;
	return 0;
}

/* Label index: remove prev's entries that obj does not have (prev may be
 * NULL), then insert obj's (which replaces entries of the same key, so
 * they point at the new object). */
static int index_labels(struct cache_txn *t, const struct cache_obj *prev,
			struct cache_obj *obj)
{
	for (uint32_t i = 0; prev && i < prev->nlabels; i++) {
		const struct cache_label *l = &prev->labels[i];
		const char *v = obj ? cache_obj_label(obj, l->key) : NULL;
		if ((v && !strcmp(v, l->val)) ||
		    !cache_store_indexes(t->s, l->key))
			continue;
		struct cache_tree_key k = { l->key, l->val, prev->ns,
					    prev->name };
		struct cache_obj *gone;
		bool fail = false;
		struct cache_tree_node *next =
			cache_tree_del(t->lroot, &k, &gone, &fail);
		if (swap_in(t, &t->lroot, next, fail))
			return -ENOMEM;
	}
	for (uint32_t i = 0; obj && i < obj->nlabels; i++) {
		struct cache_obj *replaced;
		if (!cache_store_indexes(t->s, obj->labels[i].key))
			continue;
		struct cache_tree_node *next =
			cache_tree_ins(t->lroot, obj, (uint32_t)i, &replaced);
		if (swap_in(t, &t->lroot, next, !next))
			return -ENOMEM;
	}
	return 0;
}

int cache_store_txn_put(struct cache_txn *t, struct cache_obj *obj,
			struct cache_obj **old)
{
	struct cache_obj *prev = NULL;
	if (old)
		*old = NULL;
	if (t->failed || obj->nlabels >= CACHE_TREE_NO_LABEL)
		return t->failed ? -ENOMEM : -EINVAL;
	struct cache_tree_node *root =
		cache_tree_ins(t->root, obj, CACHE_TREE_NO_LABEL, &prev);
	if (!root) {
		t->failed = true;
		return -ENOMEM;
	}
	/* prev is borrowed from the old tree: keep it alive until the label
	 * index is done with it */
	if (prev)
		cache_obj_get(prev);
	cache_tree_put(t->root);
	t->root = root;
	t->bytes += change_cost(root, t->lroot, prev,
				obj->nlabels + (prev ? prev->nlabels : 0));
	int rc = index_labels(t, prev, obj);
	if (!prev)
		t->count++;
	if (old && prev && !rc)
		*old = prev;
	else
		cache_obj_put(prev);
	return rc;
}

int cache_store_txn_del(struct cache_txn *t, const char *ns, const char *name,
			struct cache_obj **old)
{
	if (old)
		*old = NULL;
	if (t->failed)
		return -ENOMEM;
	if (!find(t->root, ns, name))
		return -ENOENT;
	struct cache_obj *prev = NULL;
	bool fail = false;
	struct cache_tree_key k = { NULL, NULL, ns, name };
	struct cache_tree_node *root =
		cache_tree_del(t->root, &k, &prev, &fail);
	if (fail) {
		t->failed = true;
		return -ENOMEM;
	}
	cache_obj_get(prev); /* outlive the old tree for the index */
	cache_tree_put(t->root);
	t->root = root;
	t->bytes += change_cost(root, t->lroot, prev, prev->nlabels);
	t->count--;
	int rc = index_labels(t, prev, NULL);
	if (old && !rc)
		*old = prev;
	else
		cache_obj_put(prev);
	return rc;
}

/* The label index of a load, built on a thread of its own while the
 * loading thread builds the key tree. */
struct label_job {
	const struct cache_store *s;
	struct cache_obj *const *objs;
	size_t n;
	bool fail;
	struct cache_tree_node *root;
};

static void *label_job_run(void *arg)
{
	struct label_job *j = arg;
	struct cache_labels_keys k = { j->s->index_keys, j->s->nindex_keys };
	j->root = cache_store_labels_build(&k, j->objs, j->n, &j->fail);
	return NULL;
}

/* loads of fewer objects build both trees on the loading thread */
#define LOAD_SPLIT_MIN 4096

int cache_store_txn_load(struct cache_txn *t, struct cache_obj *const *objs,
			 size_t n)
{
	bool fail = false;
	struct label_job job = { t->s, objs, n, false, NULL };
	pthread_t th;
	bool split = n >= LOAD_SPLIT_MIN &&
		     !pthread_create(&th, NULL, label_job_run, &job);
	struct cache_tree_entry *e = xmalloc((n ? n : 1) * sizeof(*e));
	if (!e) {
		if (split)
			pthread_join(th, NULL);
		cache_tree_put(job.root);
		t->failed = true;
		return -ENOMEM;
	}
	/* the objects themselves are not read here: the label index's
	 * pass reads their label counts, and the build fetches them ahead */
	for (size_t i = 0; i < n; i++)
		e[i] = (struct cache_tree_entry){ objs[i],
						  CACHE_TREE_NO_LABEL };
	struct cache_tree_node *root = cache_tree_build(e, n, &fail);
	free(e);
	if (split)
		pthread_join(th, NULL);
	else if (!fail)
		label_job_run(&job);
	struct cache_tree_node *lroot = job.root;
	fail = fail || job.fail;
	if (fail) {
		cache_tree_put(root);
		cache_tree_put(lroot);
		t->failed = true;
		return -ENOMEM;
	}
	cache_tree_put(t->root);
	cache_tree_put(t->lroot);
	t->root = root;
	t->lroot = lroot;
	t->count = n;
	return 0;
}

struct cache_obj *cache_store_txn_find(const struct cache_txn *t,
				       const char *ns, const char *name)
{
	struct cache_tree_node *n = find(t->root, ns, name);
	return n ? n->obj : NULL;
}

/* Drop the oldest version (win_lock held). */
static void win_pop(struct cache_store *s)
{
	cache_store_snap_put(s->win[s->win_at].snap);
	s->win_at = (s->win_at + 1) % s->win_cap;
	if (--s->win_n) {
		struct version *o = &s->win[s->win_at];
		s->win_bytes -= o->bytes;
		o->bytes = 0;
	} else {
		s->win_bytes = 0;
	}
}

/* Grow the ring towards LIMIT_STORE_WINDOW_VERSIONS (win_lock held); on
 * ENOMEM it stays as it is and the oldest goes instead. */
static void win_grow(struct cache_store *s)
{
	size_t cap = s->win_cap ? s->win_cap * 2 : 16;
	if (cap > LIMIT_STORE_WINDOW_VERSIONS)
		cap = LIMIT_STORE_WINDOW_VERSIONS;
	if (cap <= s->win_cap)
		return;
	struct version *w = xmalloc(cap * sizeof(*w));
	if (!w)
		return;
	for (size_t i = 0; i < s->win_n; i++)
		w[i] = s->win[(s->win_at + i) % s->win_cap];
	free(s->win);
	s->win = w;
	s->win_cap = cap;
	s->win_at = 0;
}

/* Add v (its reference taken) as the newest version; restart: forget
 * every older one first. Writer thread. The puts happen under the lock:
 * a dropped version mostly shares its nodes with newer ones, and only
 * exact reads wait on it. */
static void win_push(struct cache_store *s, struct version v, bool restart)
{
	pthread_mutex_lock(&s->win_lock);
	struct version *last =
		s->win_n ? &s->win[(s->win_at + s->win_n - 1) % s->win_cap] :
			   NULL;
	if (last && !restart && last->snap->rv == v.snap->rv) {
		/* the same RV again: the new version stands for both */
		cache_store_snap_put(last->snap);
		last->snap = v.snap;
		last->bytes += v.bytes;
		if (s->win_n > 1)
			s->win_bytes += v.bytes;
		else
			last->bytes = 0;
		pthread_mutex_unlock(&s->win_lock);
		return;
	}
	if (s->win_n == s->win_cap)
		win_grow(s);
	while (s->win_n && (restart || s->win_n == s->win_cap ||
			    s->win_bytes + v.bytes > LIMIT_STORE_WINDOW_BYTES))
		win_pop(s);
	if (!s->win_cap) { /* no ring at all (ENOMEM): nothing kept */
		cache_store_snap_put(v.snap);
	} else {
		if (!s->win_n)
			v.bytes = 0;
		s->win[(s->win_at + s->win_n++) % s->win_cap] = v;
		s->win_bytes += v.bytes;
	}
	pthread_mutex_unlock(&s->win_lock);
}

int cache_store_txn_commit(struct cache_txn *t, uint64_t rv)
{
	struct snap_box *b = t->failed ? NULL : box_new(t->root, t->lroot, rv);
	if (!b) {
		cache_store_txn_abort(t);
		return -ENOMEM;
	}
	t->root = t->lroot = NULL; /* the snapshot owns them now */
	struct cache_store *s = t->s;
	/* only the writer publishes: its own read needs no grace period */
	uint64_t prev = cache_rcu_load(&s->cur)->snap.rv;
	struct version v = { cache_store_snap_get(&b->snap),
			     t->first ? t->first : prev + 1, t->bytes };
	/* in the window before it is current, so that a reader that sees it
	 * current finds the versions before it too */
	win_push(s, v, t->full || rv < prev);
	publish(s, b);
	return 0;
}

void cache_store_txn_abort(struct cache_txn *t)
{
	cache_tree_put(t->root);
	cache_tree_put(t->lroot);
	t->root = t->lroot = NULL;
	t->failed = false;
}

static int obj_cmp(const void *a, const void *b)
{
	const struct cache_obj *x = *(struct cache_obj *const *)a;
	const struct cache_obj *y = *(struct cache_obj *const *)b;
	int c = cache_obj_keycmp(x->ns, x->name, y->ns, y->name);
	/* equal keys: the newer one sorts last and wins below */
	return c ? c : (x->rv > y->rv) - (x->rv < y->rv);
}

size_t cache_store_sort(struct cache_obj **objs, size_t n)
{
	bool sorted = true;
	for (size_t i = 1; i < n && sorted; i++)
		sorted = cache_obj_keycmp(objs[i - 1]->ns, objs[i - 1]->name,
					  objs[i]->ns, objs[i]->name) < 0;
	if (sorted)
		return n;
	qsort(objs, n, sizeof(*objs), obj_cmp);
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		if (w && !cache_obj_keycmp(objs[w - 1]->ns, objs[w - 1]->name,
					   objs[i]->ns, objs[i]->name)) {
			cache_obj_put(objs[w - 1]);
			objs[w - 1] = objs[i];
			continue;
		}
		objs[w++] = objs[i];
	}
	return w;
}

/* ---- pins ---- */

bool cache_store_pin(struct cache_store *s, struct cache_snap *snap,
		     unsigned ttl)
{
	time_t now = time(NULL);
	pthread_mutex_lock(&s->pin_lock);
	uint64_t used = ++s->pin_clock;
	int slot = -1;
	for (int i = 0; i < LIMIT_PINS_PER_RESOURCE; i++) {
		struct pin *p = &s->pins[i];
		if (p->snap && p->snap->rv == snap->rv) {
			p->until = now + (time_t)ttl;
			p->used = used;
			pthread_mutex_unlock(&s->pin_lock);
			return false;
		}
		/* a free or expired slot, or else the one touched longest ago */
		bool free_i = !p->snap || p->until < now;
		bool free_s = slot >= 0 && (!s->pins[slot].snap ||
					    s->pins[slot].until < now);
		if (slot < 0 || (free_i && !free_s) ||
		    (free_i == free_s && p->used < s->pins[slot].used))
			slot = i;
	}
	struct pin *p = &s->pins[slot];
	struct cache_snap *old = p->snap;
	bool evicted = old && p->until >= now;
	p->snap = cache_store_snap_get(snap);
	p->until = now + (time_t)ttl;
	p->used = used;
	pthread_mutex_unlock(&s->pin_lock);
	cache_store_snap_put(old);
	return evicted;
}

/* Take the expired pins out of the table (pin_lock held) into out;
 * returns how many. */
static int take_expired(struct cache_store *s, time_t now,
			struct cache_snap **out)
{
	int n = 0;
	for (int i = 0; i < LIMIT_PINS_PER_RESOURCE; i++) {
		struct pin *p = &s->pins[i];
		if (p->snap && p->until < now) {
			out[n++] = p->snap;
			p->snap = NULL;
		}
	}
	return n;
}

int cache_store_expire_pins(struct cache_store *s)
{
	struct cache_snap *expired[LIMIT_PINS_PER_RESOURCE];
	pthread_mutex_lock(&s->pin_lock);
	int n = take_expired(s, time(NULL), expired);
	pthread_mutex_unlock(&s->pin_lock);
	for (int i = 0; i < n; i++)
		cache_store_snap_put(expired[i]);
	return n;
}

struct cache_snap *cache_store_pinned(struct cache_store *s, uint64_t rv)
{
	struct cache_snap *cur = cache_store_snap(s);
	if (cur->rv == rv)
		return cur;
	cache_store_snap_put(cur);
	struct cache_snap *found = NULL, *expired[LIMIT_PINS_PER_RESOURCE];
	pthread_mutex_lock(&s->pin_lock);
	int nexp = take_expired(s, time(NULL), expired);
	for (int i = 0; i < LIMIT_PINS_PER_RESOURCE; i++) {
		struct pin *p = &s->pins[i];
		if (p->snap && p->snap->rv == rv)
			found = cache_store_snap_get(p->snap);
	}
	pthread_mutex_unlock(&s->pin_lock);
	while (nexp)
		cache_store_snap_put(expired[--nexp]);
	return found;
}

/* The index in the ring of the newest version at or below rv (win_lock
 * held), or -1. RVs grow along the ring. */
static long win_find(const struct cache_store *s, uint64_t rv)
{
	size_t lo = 0, hi = s->win_n; /* the answer is lo - 1 */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->win[(s->win_at + mid) % s->win_cap].snap->rv <= rv)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

struct cache_snap *cache_store_at(struct cache_store *s, uint64_t rv)
{
	struct cache_snap *found = cache_store_pinned(s, rv);
	if (found || rv > cache_store_rv(s))
		return found;
	pthread_mutex_lock(&s->win_lock);
	long i = win_find(s, rv);
	if (i >= 0) {
		const struct version *v =
			&s->win[(s->win_at + (size_t)i) % s->win_cap];
		const struct version *next =
			(size_t)i + 1 < s->win_n ?
				&s->win[(s->win_at + (size_t)i + 1) %
					s->win_cap] :
				NULL;
		if (v->snap->rv == rv) {
			found = cache_store_snap_get(v->snap);
		} else if (next && next->first > rv) {
			/* nothing changed from v up to rv: v's trees at rv */
			struct snap_box *b =
				box_new(cache_tree_ref(v->snap->root),
					cache_tree_ref(v->snap->lroot), rv);
			if (b) {
				found = &b->snap;
			} else {
				cache_tree_put(v->snap->root);
				cache_tree_put(v->snap->lroot);
			}
		}
	}
	pthread_mutex_unlock(&s->win_lock);
	return found;
}

void cache_store_window(struct cache_store *s, size_t *versions, size_t *bytes)
{
	pthread_mutex_lock(&s->win_lock);
	*versions = s->win_n;
	*bytes = s->win_bytes;
	pthread_mutex_unlock(&s->win_lock);
}
