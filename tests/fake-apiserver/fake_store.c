/*
 * fake_store: objects, the global resourceVersion, the event history and
 * state rebuilding at older RVs (see fake_store.h).
 */
#include "fake_store.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config/alloc.h"
#include "fake_json.h"
#include "fake_res.h"

struct objvec {
	struct fake_obj **v;
	size_t n, cap;
};

static struct {
	pthread_rwlock_t lock;
	uint64_t rv;	       /* atomic; written under the write lock */
	uint64_t floor;	       /* every event after floor is in the ring */
	uint64_t compacted;    /* etcd's compaction point; atomic */
	uint64_t compact_mark; /* the RV at the previous compactor tick */
	struct objvec cur[FAKE_RES_MAX];
	struct fake_event *ring; /* ring[(start + i) % cap]: rv floor+1+i */
	size_t cap, start, n;
	/* wakeups */
	pthread_mutex_t mu;
	pthread_cond_t cond;
	unsigned gen;  /* atomic */
	bool stopping; /* atomic */
} st;

/* --- objects --------------------------------------------------------- */

struct fake_obj *fake_obj_get(struct fake_obj *o)
{
	__atomic_add_fetch(&o->refs, 1, __ATOMIC_RELAXED);
	return o;
}

static void obj_free(struct fake_obj *o)
{
	for (size_t i = 0; i < o->nlabels; i++) {
		free((char *)o->labels[i].key);
		free((char *)o->labels[i].val);
	}
	free(o->labels);
	if (o->fields) {
		int nf = fake_res_nfields(o->res);
		for (int i = 0; i < nf; i++)
			free(o->fields[i]);
		free(o->fields);
	}
	free(o->ns);
	free(o->name);
	free(o->uid);
	free(o->json);
	free(o);
}

void fake_obj_put(struct fake_obj *o)
{
	if (o && __atomic_sub_fetch(&o->refs, 1, __ATOMIC_ACQ_REL) == 0)
		obj_free(o);
}

struct label_acc {
	struct cache_label *v;
	size_t n, cap;
};

static int add_label(void *ctx, const char *ks, const char *ke, const char *vs,
		     const char *ve)
{
	struct label_acc *a = ctx;
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 8;
		struct cache_label *v = xrealloc(a->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		a->v = v;
		a->cap = cap;
	}
	char *k = fake_json_text(ks, ke), *val = fake_json_text(vs, ve);
	if (!k || !val) {
		free(k);
		free(val);
		return -ENOMEM;
	}
	a->v[a->n].key = k;
	a->v[a->n].val = val;
	a->n++;
	return 0;
}

static int label_cmp(const void *a, const void *b)
{
	return strcmp(((const struct cache_label *)a)->key,
		      ((const struct cache_label *)b)->key);
}

/* Spans of the top-level members an object is indexed by, found in one
 * pass: walking from the root once per field would skip the large
 * metadata.managedFields again and again. */
struct tops {
	int n;
	struct {
		const char *name;
		size_t len;
		const char *vs, *ve;
	} m[FAKE_RES_MAX_FIELDS + 1];
};

static void tops_want(struct tops *t, const char *path)
{
	size_t len = strcspn(path, ".");
	for (int i = 0; i < t->n; i++)
		if (t->m[i].len == len && memcmp(t->m[i].name, path, len) == 0)
			return;
	if (t->n <= FAKE_RES_MAX_FIELDS) {
		t->m[t->n].name = path;
		t->m[t->n].len = len;
		t->m[t->n].vs = t->m[t->n].ve = NULL;
		t->n++;
	}
}

static int tops_member(void *ctx, const char *ks, const char *ke,
		       const char *vs, const char *ve)
{
	struct tops *t = ctx;
	for (int i = 0; i < t->n; i++)
		if ((size_t)(ke - ks - 2) == t->m[i].len &&
		    memcmp(ks + 1, t->m[i].name, t->m[i].len) == 0) {
			t->m[i].vs = vs;
			t->m[i].ve = ve;
		}
	return 0;
}

static bool tops_find(const struct tops *t, const char *path, const char **vs,
		      const char **ve)
{
	size_t len = strcspn(path, ".");
	for (int i = 0; i < t->n; i++) {
		if (t->m[i].len != len || memcmp(t->m[i].name, path, len) ||
		    !t->m[i].vs)
			continue;
		if (!path[len]) {
			*vs = t->m[i].vs;
			*ve = t->m[i].ve;
			return true;
		}
		return fake_json_find(t->m[i].vs, t->m[i].ve, path + len + 1,
				      vs, ve);
	}
	return false;
}

struct fake_obj *fake_obj_new(int res, char *json, size_t len)
{
	const struct fake_res *r = &fake_res_table[res];
	struct fake_obj *o = xcalloc(1, sizeof(*o));
	if (!o) {
		free(json);
		return NULL;
	}
	o->refs = 1;
	o->res = res;
	o->json = json;
	o->len = len;

	/* {"kind":"Pod","apiVersion":"v1", */
	size_t kl = strlen(r->kind), al = strlen(r->api_version);
	if (len < 31 + kl + al || memcmp(json, "{\"kind\":\"", 9) != 0 ||
	    memcmp(json + 9, r->kind, kl) != 0 ||
	    memcmp(json + 9 + kl, "\",\"apiVersion\":\"", 16) != 0 ||
	    memcmp(json + 25 + kl, r->api_version, al) != 0 ||
	    memcmp(json + 25 + kl + al, "\",", 2) != 0)
		goto fail;
	o->body_off = 27 + kl + al;

	const char *ms, *me, *vs, *ve;
	struct tops t = { 0 };
	tops_want(&t, "metadata");
	for (int i = 0; r->fields[i]; i++)
		tops_want(&t, fake_res_field_path(res, i));
	if (fake_json_each(json, json + len, tops_member, &t) ||
	    !tops_find(&t, "metadata", &ms, &me) || *ms != '{')
		goto fail;
	if (!fake_json_find(ms, me, "name", &vs, &ve) || *vs != '"')
		goto fail;
	o->name = fake_json_text(vs, ve);
	o->ns = fake_json_find(ms, me, "namespace", &vs, &ve) ?
			fake_json_text(vs, ve) :
			xstrdup("");
	o->uid = fake_json_find(ms, me, "uid", &vs, &ve) ?
			 fake_json_text(vs, ve) :
			 xstrdup("");
	if (!o->name || !o->ns || !o->uid || !o->name[0])
		goto fail;
	if (!fake_json_find(ms, me, "resourceVersion", &vs, &ve) ||
	    ve - vs < 3 || *vs != '"')
		goto fail;
	for (const char *p = vs + 1; p < ve - 1; p++) {
		if (*p < '0' || *p > '9')
			goto fail;
		o->rv = o->rv * 10 + (uint64_t)(*p - '0');
	}
	if (fake_json_find(ms, me, "labels", &vs, &ve) && *vs == '{') {
		struct label_acc a = { NULL, 0, 0 };
		int rc = fake_json_each(vs, ve, add_label, &a);
		o->labels = a.v;
		o->nlabels = a.n;
		if (rc)
			goto fail;
		if (o->nlabels > 1)
			qsort(o->labels, o->nlabels, sizeof(*o->labels),
			      label_cmp);
	}
	int nf = fake_res_nfields(res);
	if (nf) {
		o->fields = xcalloc((size_t)nf, sizeof(char *));
		if (!o->fields)
			goto fail;
		for (int i = 0; i < nf; i++) {
			o->fields[i] =
				tops_find(&t, fake_res_field_path(res, i), &vs,
					  &ve) ?
					fake_json_text(vs, ve) :
					xstrdup("");
			if (!o->fields[i])
				goto fail;
		}
	}
	return o;
fail:
	obj_free(o);
	return NULL;
}

/* Namespaces never hold '/', so comparing "ns1/" with "ns2/" stops at
 * the first difference, and equal namespaces fall through to the names. */
int fake_keycmp(const char *ns1, const char *name1, const char *ns2,
		const char *name2)
{
	const unsigned char *a = (const unsigned char *)ns1;
	const unsigned char *b = (const unsigned char *)ns2;
	while (*a && *a == *b)
		a++, b++;
	if (*a == *b)
		return strcmp(name1, name2);
	int ca = *a ? *a : '/', cb = *b ? *b : '/';
	return ca < cb ? -1 : 1;
}

/* --- the store ------------------------------------------------------- */

int64_t fake_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int fake_store_init(size_t history)
{
	pthread_condattr_t ca;

	memset(&st, 0, sizeof(st));
	pthread_rwlock_init(&st.lock, NULL);
	pthread_mutex_init(&st.mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&st.cond, &ca);
	pthread_condattr_destroy(&ca);
	st.cap = history;
	if (history) {
		st.ring = xcalloc(history, sizeof(*st.ring));
		if (!st.ring)
			return -ENOMEM;
	}
	return 0;
}

static void ring_drop_oldest(void)
{
	struct fake_event *e = &st.ring[st.start];
	st.floor = e->rv;
	fake_obj_put(e->obj);
	fake_obj_put(e->prev);
	memset(e, 0, sizeof(*e));
	st.start = (st.start + 1) % st.cap;
	st.n--;
}

void fake_store_compact(void)
{
	while (st.n)
		ring_drop_oldest();
	st.floor = st.rv;
}

void fake_store_wipe(void)
{
	fake_store_compact();
	for (int r = 0; r < fake_nres; r++) {
		for (size_t i = 0; i < st.cur[r].n; i++)
			fake_obj_put(st.cur[r].v[i]);
		st.cur[r].n = 0;
	}
	__atomic_store_n(&st.rv, 1, __ATOMIC_RELEASE);
	st.floor = 1;
	/* a new etcd: nothing compacted yet */
	__atomic_store_n(&st.compacted, 0, __ATOMIC_RELEASE);
	st.compact_mark = 0;
}

uint64_t fake_store_compacted(void)
{
	return __atomic_load_n(&st.compacted, __ATOMIC_ACQUIRE);
}

uint64_t fake_store_compact_tick(void)
{
	/* A mark above the RV was taken before a wipe: start over. */
	if (st.compact_mark > st.compacted && st.compact_mark <= st.rv)
		__atomic_store_n(&st.compacted, st.compact_mark,
				 __ATOMIC_RELEASE);
	st.compact_mark = st.rv;
	return st.compacted;
}

void fake_store_free(void)
{
	fake_store_compact();
	free(st.ring);
	for (int r = 0; r < fake_nres; r++) {
		for (size_t i = 0; i < st.cur[r].n; i++)
			fake_obj_put(st.cur[r].v[i]);
		free(st.cur[r].v);
	}
	pthread_rwlock_destroy(&st.lock);
	pthread_mutex_destroy(&st.mu);
	pthread_cond_destroy(&st.cond);
	memset(&st, 0, sizeof(st));
}

void fake_store_rdlock(void)
{
	pthread_rwlock_rdlock(&st.lock);
}
void fake_store_wrlock(void)
{
	pthread_rwlock_wrlock(&st.lock);
}
void fake_store_rdunlock(void)
{
	pthread_rwlock_unlock(&st.lock);
}

static void wake_all(void)
{
	pthread_mutex_lock(&st.mu);
	pthread_cond_broadcast(&st.cond);
	pthread_mutex_unlock(&st.mu);
}

void fake_store_wrunlock(void)
{
	pthread_rwlock_unlock(&st.lock);
	wake_all();
}

uint64_t fake_store_rv(void)
{
	return __atomic_load_n(&st.rv, __ATOMIC_ACQUIRE);
}

uint64_t fake_store_floor(void)
{
	return st.floor;
}

unsigned fake_store_gen(void)
{
	return __atomic_load_n(&st.gen, __ATOMIC_ACQUIRE);
}

void fake_store_drop_watches(void)
{
	pthread_mutex_lock(&st.mu);
	__atomic_add_fetch(&st.gen, 1, __ATOMIC_ACQ_REL);
	pthread_cond_broadcast(&st.cond);
	pthread_mutex_unlock(&st.mu);
}

void fake_store_stop(void)
{
	pthread_mutex_lock(&st.mu);
	__atomic_store_n(&st.stopping, true, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&st.cond);
	pthread_mutex_unlock(&st.mu);
}

bool fake_store_stopping(void)
{
	return __atomic_load_n(&st.stopping, __ATOMIC_ACQUIRE);
}

void fake_store_wait(uint64_t rv, unsigned gen, int64_t until_ms)
{
	struct timespec ts = { until_ms / 1000, (until_ms % 1000) * 1000000 };

	pthread_mutex_lock(&st.mu);
	while (fake_store_rv() <= rv && fake_store_gen() == gen &&
	       !fake_store_stopping() && fake_now_ms() < until_ms)
		if (pthread_cond_timedwait(&st.cond, &st.mu, &ts) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&st.mu);
}

/* Index of the first object whose key is >= (ns, name) in v. */
static size_t lower_bound(const struct objvec *v, const char *ns,
			  const char *name)
{
	size_t lo = 0, hi = v->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct fake_obj *o = v->v[mid];
		if (fake_keycmp(o->ns, o->name, ns, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct fake_obj *fake_store_lookup(int res, const char *ns, const char *name)
{
	const struct objvec *v = &st.cur[res];
	size_t i = lower_bound(v, ns, name);
	if (i < v->n && strcmp(v->v[i]->ns, ns) == 0 &&
	    strcmp(v->v[i]->name, name) == 0)
		return v->v[i];
	return NULL;
}

static int vec_reserve(struct objvec *v, size_t n)
{
	if (n <= v->cap)
		return 0;
	size_t cap = v->cap ? v->cap : 64;
	while (cap < n)
		cap *= 2;
	struct fake_obj **p = xrealloc(v->v, cap * sizeof(*p));
	if (!p)
		return -ENOMEM;
	v->v = p;
	v->cap = cap;
	return 0;
}

void fake_store_commit(enum fake_ev_type type, struct fake_obj *obj)
{
	struct objvec *v = &st.cur[obj->res];
	size_t i = lower_bound(v, obj->ns, obj->name);
	bool found = i < v->n && strcmp(v->v[i]->ns, obj->ns) == 0 &&
		     strcmp(v->v[i]->name, obj->name) == 0;
	struct fake_obj *prev = found ? v->v[i] : NULL;
	struct fake_event ev = { obj->rv, obj->res, type, obj, prev };

	/* The vector owns one reference of each object it holds; the event
	 * takes over the old state's. */
	switch (type) {
	case FAKE_ADDED:
		if (found || vec_reserve(v, v->n + 1)) {
			/* a caller bug or ENOMEM: keep the store consistent */
			fake_obj_put(obj);
			return;
		}
		memmove(v->v + i + 1, v->v + i, (v->n - i) * sizeof(*v->v));
		v->v[i] = fake_obj_get(obj);
		v->n++;
		break;
	case FAKE_MODIFIED:
		if (!found) {
			fake_obj_put(obj);
			return;
		}
		v->v[i] = fake_obj_get(obj);
		break;
	case FAKE_DELETED:
		if (!found) {
			fake_obj_put(obj);
			return;
		}
		memmove(v->v + i, v->v + i + 1, (v->n - i - 1) * sizeof(*v->v));
		v->n--;
		break;
	}
	if (st.cap == 0) {
		fake_obj_put(ev.obj);
		fake_obj_put(ev.prev);
		st.floor = obj->rv;
	} else {
		if (st.n == st.cap)
			ring_drop_oldest();
		st.ring[(st.start + st.n) % st.cap] = ev;
		st.n++;
	}
	__atomic_store_n(&st.rv, ev.rv, __ATOMIC_RELEASE);
}

int fake_store_seed_add(struct fake_obj *obj)
{
	struct objvec *v = &st.cur[obj->res];
	if (vec_reserve(v, v->n + 1)) {
		fake_obj_put(obj);
		return -ENOMEM;
	}
	v->v[v->n++] = obj;
	if (obj->rv > st.rv)
		st.rv = obj->rv;
	return 0;
}

static int obj_keycmp(const void *a, const void *b)
{
	const struct fake_obj *x = *(const struct fake_obj *const *)a;
	const struct fake_obj *y = *(const struct fake_obj *const *)b;
	return fake_keycmp(x->ns, x->name, y->ns, y->name);
}

void fake_store_seed_done(void)
{
	for (int r = 0; r < fake_nres; r++)
		if (st.cur[r].n > 1)
			qsort(st.cur[r].v, st.cur[r].n, sizeof(*st.cur[r].v),
			      obj_keycmp);
	fake_store_compact();
}

const struct fake_event *fake_store_event_after(uint64_t rv, bool *expired)
{
	*expired = rv < st.floor;
	if (*expired || rv >= st.rv)
		return NULL;
	return &st.ring[(st.start + (rv - st.floor)) % st.cap];
}

/* --- rebuilding older states ----------------------------------------- */

/* A key touched after the snapshot RV and its state at that RV. */
struct undo {
	const char *ns, *name;
	uint64_t rv;	       /* the first event after the snapshot */
	struct fake_obj *then; /* state at the snapshot, NULL if absent */
};

static int undo_cmp(const void *a, const void *b)
{
	const struct undo *x = a, *y = b;
	int c = fake_keycmp(x->ns, x->name, y->ns, y->name);
	if (c)
		return c;
	return x->rv < y->rv ? -1 : x->rv > y->rv;
}

/* The keys of res changed after at, each with its state at at, sorted
 * by key. *n set; NULL with *n == 0 when none (or ENOMEM: -ENOMEM). */
static int collect_undo(int res, uint64_t at, struct undo **out, size_t *n)
{
	struct undo *u = NULL;
	size_t k = 0, cap = 0;

	*out = NULL;
	*n = 0;
	for (uint64_t rv = at; rv < st.rv; rv++) {
		const struct fake_event *e =
			&st.ring[(st.start + (rv - st.floor)) % st.cap];
		if (e->res != res)
			continue;
		if (k == cap) {
			cap = cap ? cap * 2 : 64;
			struct undo *p = xrealloc(u, cap * sizeof(*u));
			if (!p) {
				free(u);
				return -ENOMEM;
			}
			u = p;
		}
		u[k++] = (struct undo){ e->obj->ns, e->obj->name, e->rv,
					e->prev };
	}
	if (!k)
		return 0;
	qsort(u, k, sizeof(*u), undo_cmp);
	size_t w = 0; /* keep the first event of each key */
	for (size_t i = 0; i < k; i++)
		if (w == 0 || fake_keycmp(u[w - 1].ns, u[w - 1].name, u[i].ns,
					  u[i].name) != 0)
			u[w++] = u[i];
	*out = u;
	*n = w;
	return 0;
}

int fake_store_scan(int res, uint64_t at, const char *ns, const char *after_ns,
		    const char *after_name,
		    bool (*fn)(void *ctx, struct fake_obj *o), void *ctx)
{
	const struct objvec *v = &st.cur[res];
	struct undo *u;
	size_t nu, i, j = 0;
	const char *from_ns = ns ? ns : "", *from_name = "";
	int rc;

	if (at < st.floor || at < st.compacted || at > st.rv)
		return -ESTALE;
	if ((rc = collect_undo(res, at, &u, &nu)))
		return rc;
	if (after_name &&
	    (!ns || fake_keycmp(after_ns, after_name, ns, "") > 0)) {
		from_ns = after_ns;
		from_name = after_name;
	}
	i = lower_bound(v, from_ns, from_name);
	while (j < nu &&
	       fake_keycmp(u[j].ns, u[j].name, from_ns, from_name) < 0)
		j++;
	for (;;) {
		struct fake_obj *o;
		const struct fake_obj *c = i < v->n ? v->v[i] : NULL;
		const struct undo *d = j < nu ? &u[j] : NULL;
		if (!c && !d)
			break;
		int cmp = !c ? 1 :
			  !d ? -1 :
			       fake_keycmp(c->ns, c->name, d->ns, d->name);
		if (cmp < 0) {
			o = v->v[i++];
		} else {
			o = d->then;
			j++;
			if (cmp == 0)
				i++;
			if (!o)
				continue;
		}
		if (after_name) {
			if (fake_keycmp(o->ns, o->name, after_ns, after_name) <=
			    0)
				continue;
			after_name = NULL; /* keys grow: the rest are after */
		}
		if (ns && strcmp(o->ns, ns) != 0)
			break;
		if (!fn(ctx, o))
			break;
	}
	free(u);
	return 0;
}

static bool count_one(void *ctx, struct fake_obj *o)
{
	(*(unsigned long long *)ctx)++;
	return true;
}

unsigned long long fake_store_count_after(int res, uint64_t at, const char *ns,
					  const char *after_ns,
					  const char *after_name)
{
	const struct objvec *v = &st.cur[res];
	unsigned long long n = 0;

	if (at == st.rv && !ns) {
		/* the current state of every namespace: v itself */
		size_t i = lower_bound(v, after_ns, after_name);
		if (i < v->n && strcmp(v->v[i]->ns, after_ns) == 0 &&
		    strcmp(v->v[i]->name, after_name) == 0)
			i++;
		return v->n - i;
	}
	fake_store_scan(res, at, ns, after_ns, after_name, count_one, &n);
	return n;
}
