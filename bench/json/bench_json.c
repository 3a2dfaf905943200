/*
 * bench_json: which JSON library should the cache use to ingest upstream
 * LIST pages and watch events?
 *
 * One program runs every candidate side by side on the same bytes:
 * jsmn (tokenizer), yajl (SAX), json-c, jansson and cJSON (DOMs). The
 * workload is built in memory from the fake apiserver's seeded pods:
 *   (a) a PodList page of 500 pods, parsed LIST_REPS times per round;
 *   (b) 10,000 watch event lines {"type":"MODIFIED","object":<pod>},
 *       each parsed on its own, as a watch decoder would.
 * For every item each adapter validates, extracts name, namespace, uid,
 * resourceVersion and the labels, and gets the item's bytes: its span in
 * the input where the library can tell it (jsmn, yajl), or, in the "+ser"
 * rows, by re-serializing the item (json-c, jansson, cJSON cannot say
 * where an item began). Rounds are interleaved and rotated; the table
 * shows the median round.
 *
 * A verification pass first checks that every adapter extracted the same
 * fields and that the spans are the exact input bytes. A memory pass then
 * measures the peak the library allocated while parsing, through its
 * allocator hook (jansson, cJSON, yajl), mallinfo2() (json-c, which has
 * none) or the token array (jsmn). Last, a table of malformed inputs
 * shows what each parser accepts.
 *
 *   usage: bench_json [rounds]       (default 5, about 45 s on 2 cores)
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define JSMN_STATIC
#define JSMN_STRICT
#define JSMN_PARENT_LINKS
#include <jsmn.h>

#include <cJSON.h>
#include <jansson.h>
#include <yajl/yajl_parse.h>
#include <yajl/yajl_version.h>

#include "bench_json.h"
#include "tests/fake-apiserver/fake_seed.h"

#define LIST_ITEMS 500
#define LIST_REPS 5
#define EVENTS 10000
#define NAMESPACES 20
#define MEM_EVENTS 1000
#define VERIFY_EVENTS 2000

/* ---- workload ---------------------------------------------------------- */

struct workload {
	struct buf list;	/* one PodList page */
	struct buf events;	/* EVENTS lines, '\n'-terminated */
	size_t *ev_off, *ev_len;	/* each line, newline excluded */
	size_t ev_bytes;
	uint64_t list_hs, events_hs;	/* hash of the items' exact bytes;
				 * events: the first VERIFY_EVENTS */
};

static int build_workload(struct workload *w)
{
	struct buf pod = BUF_INIT;
	char ns[32];
	struct sink s = { .full = true };

	buf_adds(&w->list, "{\"kind\":\"PodList\",\"apiVersion\":\"v1\","
			   "\"metadata\":{\"resourceVersion\":\"12345\"},"
			   "\"items\":[");
	for (unsigned i = 0; i < LIST_ITEMS; i++) {
		buf_reset(&pod);
		fake_seed_ns_name(i, NAMESPACES, ns, sizeof(ns));
		fake_seed_pod(&pod, i, ns, 10000 + i);
		if (i)
			buf_addc(&w->list, ',');
		buf_add(&w->list, pod.p, pod.len);
		sink_span(&s, pod.p, pod.len);
	}
	buf_adds(&w->list, "]}");
	w->list_hs = s.hs;

	w->ev_off = calloc(EVENTS, sizeof(*w->ev_off));
	w->ev_len = calloc(EVENTS, sizeof(*w->ev_len));
	if (!w->ev_off || !w->ev_len)
		return -ENOMEM;
	s.hs = 0;
	for (unsigned i = 0; i < EVENTS; i++) {
		buf_reset(&pod);
		fake_seed_ns_name(i, NAMESPACES, ns, sizeof(ns));
		fake_seed_pod(&pod, i, ns, 20000 + i);
		w->ev_off[i] = w->events.len;
		buf_adds(&w->events, "{\"type\":\"MODIFIED\",\"object\":");
		buf_add(&w->events, pod.p, pod.len);
		buf_addc(&w->events, '}');
		w->ev_len[i] = w->events.len - w->ev_off[i];
		w->ev_bytes += w->ev_len[i];
		buf_addc(&w->events, '\n');
		if (i < VERIFY_EVENTS)
			sink_span(&s, pod.p, pod.len);
	}
	w->events_hs = s.hs;
	buf_free(&pod);
	return buf_ok(&w->list) && buf_ok(&w->events) ? 0 : -ENOMEM;
}

/* ---- memory accounting ------------------------------------------------- */

/* Live and peak bytes requested through an allocator hook. A 16-byte
 * header remembers each block's size. */
struct memctr {
	size_t live, peak;
};
static struct memctr mc;

static void *cnt_malloc(size_t n)
{
	size_t *h = malloc(n + 16);

	if (!h)
		return NULL;
	h[0] = n;
	mc.live += n;
	if (mc.live > mc.peak)
		mc.peak = mc.live;
	return (char *)h + 16;
}

static void cnt_free(void *p)
{
	if (!p)
		return;
	size_t *h = (size_t *)((char *)p - 16);
	mc.live -= h[0];
	free(h);
}

static void *cnt_realloc(void *p, size_t n)
{
	if (!p)
		return cnt_malloc(n);
	size_t *h = (size_t *)((char *)p - 16), old = h[0];
	size_t *nh = realloc(h, n + 16);
	if (!nh)
		return NULL;
	nh[0] = n;
	mc.live = mc.live - old + n;
	if (mc.live > mc.peak)
		mc.peak = mc.live;
	return (char *)nh + 16;
}

static void *y_malloc(void *ctx, size_t n) { return cnt_malloc(n); }
static void *y_realloc(void *ctx, void *p, size_t n) { return cnt_realloc(p, n); }
static void y_free(void *ctx, void *p) { cnt_free(p); }
static yajl_alloc_funcs y_counting = { y_malloc, y_realloc, y_free, NULL };
static yajl_alloc_funcs *y_funcs;	/* NULL: yajl's default malloc */

static bool probing;
static size_t mi_base, mi_at_parse;

static size_t mallinfo_used(void)
{
	struct mallinfo2 mi = mallinfo2();
	return mi.uordblks + mi.hblkhd;
}

void probe_after_parse(void)
{
	if (probing)
		mi_at_parse = mallinfo_used() - mi_base;
}

/* ---- jsmn -------------------------------------------------------------- */

static jsmntok_t *toks;
static unsigned toks_cap, toks_used;

static int jsmn_grow(void)
{
	unsigned cap = toks_cap ? toks_cap * 2 : 4096;
	jsmntok_t *t = realloc(toks, cap * sizeof(*t));

	if (!t)
		return -ENOMEM;
	toks = t;
	toks_cap = cap;
	return 0;
}

/* Tokenize p[0..n); the token array grows and is kept for the next call,
 * as a reflector would keep one. Returns the token count or -errno. */
static int jsmn_run(const char *p, size_t n)
{
	jsmn_parser ps;

	jsmn_init(&ps);
	for (;;) {
		/* with tokens == NULL jsmn only counts: never pass it that */
		if (toks_cap == 0 && jsmn_grow())
			return -ENOMEM;
		int r = jsmn_parse(&ps, p, n, toks, toks_cap);
		if (r >= 0) {
			toks_used = (unsigned)r;
			/* jsmn alone accepts "{} {}" and a truncated tail
			 * after a complete value; insist on one value. */
			if (r == 0 || toks[0].type != JSMN_OBJECT ||
			    (size_t)toks[0].end != n)
				return -EINVAL;
			return r;
		}
		if (r != JSMN_ERROR_NOMEM)
			return -EINVAL;
		/* jsmn resumes where it stopped once given more tokens */
		if (jsmn_grow())
			return -ENOMEM;
	}
}

/* The index of the first token after the subtree rooted at i. */
static int jsmn_skip(const jsmntok_t *t, int n, int i)
{
	int end = t[i].end;

	for (i++; i < n && t[i].start < end; i++)
		;
	return i;
}

static bool jsmn_key(const char *p, const jsmntok_t *k, const char *s,
		     size_t len)
{
	return k->type == JSMN_STRING && (size_t)(k->end - k->start) == len &&
	       memcmp(p + k->start, s, len) == 0;
}

#define KEY(p, k, lit) jsmn_key((p), (k), (lit), sizeof(lit) - 1)

static unsigned jsmn_escaped;	/* extracted strings holding a backslash */

/* jsmn hands out raw (still escaped) string bytes; the cache would have
 * to unescape any with a backslash. Counted so the figure is honest. */
static struct strv jsmn_str(const char *p, const jsmntok_t *t)
{
	struct strv v = { p + t->start, (size_t)(t->end - t->start) };

	if (t->type != JSMN_STRING)
		return (struct strv){ NULL, 0 };
	if (memchr(v.p, '\\', v.n))
		jsmn_escaped++;
	return v;
}

/* Item object at token i: span and metadata; returns the next token. */
static int jsmn_item(const char *p, const jsmntok_t *t, int n, int i,
		     struct meta *m, struct sink *s)
{
	int k = i + 1, pairs = t[i].size;

	sink_span(s, p + t[i].start, (size_t)(t[i].end - t[i].start));
	for (int a = 0; a < pairs; a++) {
		int v = k + 1;
		if (KEY(p, &t[k], "metadata") && t[v].type == JSMN_OBJECT) {
			int mk = v + 1, mpairs = t[v].size;
			for (int b = 0; b < mpairs; b++) {
				const jsmntok_t *key = &t[mk], *val = &t[mk + 1];
				if (KEY(p, key, "name"))
					m->name = jsmn_str(p, val);
				else if (KEY(p, key, "namespace"))
					m->ns = jsmn_str(p, val);
				else if (KEY(p, key, "uid"))
					m->uid = jsmn_str(p, val);
				else if (KEY(p, key, "resourceVersion"))
					m->rv = jsmn_str(p, val);
				else if (KEY(p, key, "labels") &&
					 val->type == JSMN_OBJECT) {
					int lk = mk + 2;
					for (int c = 0; c < val->size; c++) {
						struct strv kk = jsmn_str(p, &t[lk]);
						struct strv vv = jsmn_str(p, &t[lk + 1]);
						if (vv.p)
							meta_label(m, kk.p, kk.n,
								   vv.p, vv.n);
						lk = jsmn_skip(t, n, lk + 1);
					}
				}
				mk = jsmn_skip(t, n, mk + 1);
			}
		}
		k = jsmn_skip(t, n, v);
	}
	sink_meta(s, m);
	return k;
}

static int jsmn_list(const char *p, size_t len, struct sink *s)
{
	int n = jsmn_run(p, len);

	if (n < 0)
		return n;
	probe_after_parse();
	const jsmntok_t *t = toks;
	int k = 1;
	for (int a = 0; a < t[0].size; a++) {
		int v = k + 1;
		if (KEY(p, &t[k], "items") && t[v].type == JSMN_ARRAY) {
			int e = v + 1;
			for (int b = 0; b < t[v].size; b++) {
				struct meta m = { 0 };
				if (t[e].type == JSMN_OBJECT)
					e = jsmn_item(p, t, n, e, &m, s);
				else
					e = jsmn_skip(t, n, e);
			}
		}
		k = jsmn_skip(t, n, v);
	}
	return 0;
}

static int jsmn_event(const char *p, size_t len, struct sink *s)
{
	int n = jsmn_run(p, len);
	struct meta m = { 0 };
	int obj = -1;

	if (n < 0)
		return n;
	probe_after_parse();
	const jsmntok_t *t = toks;
	int k = 1;
	for (int a = 0; a < t[0].size; a++) {
		if (KEY(p, &t[k], "type"))
			m.type = jsmn_str(p, &t[k + 1]);
		else if (KEY(p, &t[k], "object") &&
			 t[k + 1].type == JSMN_OBJECT)
			obj = k + 1;
		k = jsmn_skip(t, n, k + 1);
	}
	if (obj >= 0)	/* "type" may come after "object" */
		jsmn_item(p, t, n, obj, &m, s);
	return 0;
}

static int jsmn_validate(const char *p, size_t n)
{
	jsmn_parser ps;
	jsmntok_t t[64];

	jsmn_init(&ps);
	return jsmn_parse(&ps, p, n, t, 64) >= 0 ? 0 : -EINVAL;
}

static int jsmn_validate_root(const char *p, size_t n)
{
	return jsmn_run(p, n) >= 0 ? 0 : -EINVAL;
}

/* ---- yajl -------------------------------------------------------------- */

enum ykey { K_OTHER, K_ITEMS, K_TYPE, K_OBJECT, K_METADATA, K_NAME, K_NS,
	    K_UID, K_RV, K_LABELS };

#define YDEPTH 64

/* SAX state. Depth counts open containers (the root object is depth 1);
 * key[d] is the last key read in the object at depth d. */
struct ystate {
	struct sink *s;
	yajl_handle h;
	const char *text;
	bool list;
	int depth, item_depth;	/* item_depth: 0 outside an item */
	bool in_items, in_meta, in_labels;
	size_t item_start;
	enum ykey key[YDEPTH];
	struct meta m;
	/* yajl may hand out strings from its own decode buffer, valid only
	 * during the callback: copy what we keep. */
	char scratch[8192];
	size_t used;
	const char *pending_key;
	size_t pending_klen;
};

static struct strv ykeep(struct ystate *y, const unsigned char *s, size_t n)
{
	if (y->used + n > sizeof(y->scratch))
		return (struct strv){ NULL, 0 };
	char *d = y->scratch + y->used;
	memcpy(d, s, n);
	y->used += n;
	return (struct strv){ d, n };
}

static enum ykey yclassify(const struct ystate *y, const unsigned char *k,
			   size_t n)
{
	int d = y->depth;

#define IS(lit) (n == sizeof(lit) - 1 && memcmp(k, lit, n) == 0)
	if (d == 1)
		return y->list ? (IS("items") ? K_ITEMS : K_OTHER) :
		       IS("type")	  ? K_TYPE :
		       IS("object")	  ? K_OBJECT :
					    K_OTHER;
	if (d == y->item_depth)
		return IS("metadata") ? K_METADATA : K_OTHER;
	if (y->in_meta && d == y->item_depth + 1)
		return IS("name")	     ? K_NAME :
		       IS("namespace")	     ? K_NS :
		       IS("uid")	     ? K_UID :
		       IS("resourceVersion") ? K_RV :
		       IS("labels")	     ? K_LABELS :
					       K_OTHER;
#undef IS
	return K_OTHER;
}

static int y_map_key(void *ctx, const unsigned char *k, size_t n)
{
	struct ystate *y = ctx;

	if (y->in_labels && y->depth == y->item_depth + 2) {
		struct strv v = ykeep(y, k, n);
		y->pending_key = v.p;
		y->pending_klen = v.n;
		return 1;
	}
	if (y->depth < YDEPTH && y->depth <= y->item_depth + 1)
		y->key[y->depth] = yclassify(y, k, n);
	return 1;
}

static int y_string(void *ctx, const unsigned char *s, size_t n)
{
	struct ystate *y = ctx;
	int d = y->depth;

	if (d == 1 && !y->list && y->key[1] == K_TYPE) {
		y->m.type = ykeep(y, s, n);
	} else if (y->in_labels && d == y->item_depth + 2) {
		struct strv v = ykeep(y, s, n);
		if (y->pending_key && v.p)
			meta_label(&y->m, y->pending_key, y->pending_klen, v.p,
				   v.n);
		y->pending_key = NULL;
	} else if (y->in_meta && d == y->item_depth + 1) {
		switch (y->key[d]) {
		case K_NAME: y->m.name = ykeep(y, s, n); break;
		case K_NS: y->m.ns = ykeep(y, s, n); break;
		case K_UID: y->m.uid = ykeep(y, s, n); break;
		case K_RV: y->m.rv = ykeep(y, s, n); break;
		default: break;
		}
	}
	return 1;
}

static int y_number(void *ctx, const char *s, size_t n)
{
	return 1;	/* numbers are not needed: skip the conversion */
}

static int y_start_map(void *ctx)
{
	struct ystate *y = ctx;
	int d = y->depth;

	if (y->item_depth == 0 &&
	    ((y->list && d == 2 && y->in_items) ||
	     (!y->list && d == 1 && y->key[1] == K_OBJECT))) {
		y->item_depth = d + 1;
		/* bytes consumed stops just past the '{' */
		y->item_start = yajl_get_bytes_consumed(y->h) - 1;
		if (y->list) {
			y->m = (struct meta){ 0 };
			y->used = 0;
		}
	} else if (y->item_depth && d == y->item_depth &&
		   y->key[d] == K_METADATA) {
		y->in_meta = true;
	} else if (y->in_meta && d == y->item_depth + 1 &&
		   y->key[d] == K_LABELS) {
		y->in_labels = true;
	}
	y->depth = d + 1;
	if (y->depth < YDEPTH)
		y->key[y->depth] = K_OTHER;
	return 1;
}

static int y_end_map(void *ctx)
{
	struct ystate *y = ctx;
	int d = y->depth;

	if (d == y->item_depth) {
		size_t end = yajl_get_bytes_consumed(y->h);
		sink_span(y->s, y->text + y->item_start, end - y->item_start);
		if (y->list)
			sink_meta(y->s, &y->m);
		y->item_depth = 0;
	} else if (y->in_labels && d == y->item_depth + 2) {
		y->in_labels = false;
	} else if (y->in_meta && d == y->item_depth + 1) {
		y->in_meta = false;
	}
	y->depth = d - 1;
	return 1;
}

static int y_start_array(void *ctx)
{
	struct ystate *y = ctx;

	if (y->list && y->depth == 1 && y->key[1] == K_ITEMS)
		y->in_items = true;
	y->depth++;
	return 1;
}

static int y_end_array(void *ctx)
{
	struct ystate *y = ctx;

	if (y->list && y->depth == 2)
		y->in_items = false;
	y->depth--;
	return 1;
}

static const yajl_callbacks ycb = {
	.yajl_number = y_number,
	.yajl_string = y_string,
	.yajl_start_map = y_start_map,
	.yajl_map_key = y_map_key,
	.yajl_end_map = y_end_map,
	.yajl_start_array = y_start_array,
	.yajl_end_array = y_end_array,
};

static struct ystate ys;

static int yajl_run(const char *p, size_t n, struct sink *s, bool list)
{
	int rc = 0;

	ys.s = s;
	ys.text = p;
	ys.list = list;
	ys.depth = ys.item_depth = 0;
	ys.in_items = ys.in_meta = ys.in_labels = false;
	ys.m = (struct meta){ 0 };
	ys.used = 0;
	ys.pending_key = NULL;
	ys.h = yajl_alloc(&ycb, y_funcs, &ys);
	if (!ys.h)
		return -ENOMEM;
	if (yajl_parse(ys.h, (const unsigned char *)p, n) != yajl_status_ok ||
	    yajl_complete_parse(ys.h) != yajl_status_ok)
		rc = -EINVAL;
	probe_after_parse();
	yajl_free(ys.h);
	if (!rc && !list)
		sink_meta(s, &ys.m);	/* "type" may follow "object" */
	return rc;
}

static int yajl_list(const char *p, size_t n, struct sink *s)
{
	return yajl_run(p, n, s, true);
}

static int yajl_event(const char *p, size_t n, struct sink *s)
{
	return yajl_run(p, n, s, false);
}

static int yajl_validate(const char *p, size_t n)
{
	static const yajl_callbacks none;
	yajl_handle h = yajl_alloc(&none, NULL, NULL);
	int rc = 0;

	if (yajl_parse(h, (const unsigned char *)p, n) != yajl_status_ok ||
	    yajl_complete_parse(h) != yajl_status_ok)
		rc = -EINVAL;
	yajl_free(h);
	return rc;
}

/* ---- jansson ----------------------------------------------------------- */

static char *rbuf;	/* re-serialization buffer, jansson and cJSON */
static size_t rcap = 1 << 20;

static struct strv ja_str(json_t *o, const char *k, size_t kn)
{
	json_t *v = json_object_getn(o, k, kn);

	if (!json_is_string(v))
		return (struct strv){ NULL, 0 };
	return (struct strv){ json_string_value(v), json_string_length(v) };
}

#define JA_STR(o, lit) ja_str((o), (lit), sizeof(lit) - 1)

static void ja_item(json_t *it, struct meta *m, struct sink *s)
{
	json_t *md = json_object_getn(it, "metadata", 8), *labels, *v;
	const char *k;
	size_t kn;

	m->name = JA_STR(md, "name");
	m->ns = JA_STR(md, "namespace");
	m->uid = JA_STR(md, "uid");
	m->rv = JA_STR(md, "resourceVersion");
	labels = json_object_getn(md, "labels", 6);
	json_object_keylen_foreach(labels, k, kn, v)
	{
		if (json_is_string(v))
			meta_label(m, k, kn, json_string_value(v),
				   json_string_length(v));
	}
	sink_meta(s, m);
	if (s->reser) {
		size_t len = json_dumpb(it, rbuf, rcap, JSON_COMPACT);
		if (len <= rcap)
			sink_span(s, rbuf, len);
	}
}

static int ja_list(const char *p, size_t n, struct sink *s)
{
	json_error_t err;
	json_t *root = json_loadb(p, n, 0, &err), *items, *it;
	size_t i;

	if (!root)
		return -EINVAL;
	probe_after_parse();
	items = json_object_getn(root, "items", 5);
	json_array_foreach(items, i, it) {
		struct meta m = { 0 };
		ja_item(it, &m, s);
	}
	json_decref(root);
	return 0;
}

static int ja_event(const char *p, size_t n, struct sink *s)
{
	json_error_t err;
	json_t *root = json_loadb(p, n, 0, &err);
	struct meta m = { 0 };

	if (!root)
		return -EINVAL;
	probe_after_parse();
	m.type = JA_STR(root, "type");
	ja_item(json_object_getn(root, "object", 6), &m, s);
	json_decref(root);
	return 0;
}

static int ja_validate(const char *p, size_t n)
{
	json_error_t err;
	json_t *root = json_loadb(p, n, 0, &err);

	json_decref(root);
	return root ? 0 : -EINVAL;
}

/* ---- cJSON ------------------------------------------------------------- */

static struct strv cj_str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	if (!cJSON_IsString(v))
		return (struct strv){ NULL, 0 };
	return (struct strv){ v->valuestring, strlen(v->valuestring) };
}

/* cJSON stops after the first value; anything left is an error here. */
static cJSON *cj_parse(const char *p, size_t n)
{
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(p, n, &end, 0);

	if (root && end != p + n) {
		cJSON_Delete(root);
		root = NULL;
	}
	return root;
}

static void cj_item(const cJSON *it, struct meta *m, struct sink *s)
{
	const cJSON *md = cJSON_GetObjectItemCaseSensitive(it, "metadata");
	const cJSON *l;

	m->name = cj_str(md, "name");
	m->ns = cj_str(md, "namespace");
	m->uid = cj_str(md, "uid");
	m->rv = cj_str(md, "resourceVersion");
	cJSON_ArrayForEach(l, cJSON_GetObjectItemCaseSensitive(md, "labels"))
	{
		if (cJSON_IsString(l))
			meta_label(m, l->string, strlen(l->string),
				   l->valuestring, strlen(l->valuestring));
	}
	sink_meta(s, m);
	if (s->reser &&
	    cJSON_PrintPreallocated((cJSON *)it, rbuf, (int)rcap, 0))
		sink_span(s, rbuf, strlen(rbuf));
}

static int cj_list(const char *p, size_t n, struct sink *s)
{
	cJSON *root = cj_parse(p, n);
	const cJSON *it;

	if (!root)
		return -EINVAL;
	probe_after_parse();
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(root, "items"))
	{
		struct meta m = { 0 };
		cj_item(it, &m, s);
	}
	cJSON_Delete(root);
	return 0;
}

static int cj_event(const char *p, size_t n, struct sink *s)
{
	cJSON *root = cj_parse(p, n);
	struct meta m = { 0 };

	if (!root)
		return -EINVAL;
	probe_after_parse();
	m.type = cj_str(root, "type");
	cj_item(cJSON_GetObjectItemCaseSensitive(root, "object"), &m, s);
	cJSON_Delete(root);
	return 0;
}

static int cj_validate(const char *p, size_t n)
{
	cJSON *root = cj_parse(p, n);

	cJSON_Delete(root);
	return root ? 0 : -EINVAL;
}

/* ---- the table of candidates ------------------------------------------- */

enum memkind { MEM_TOKENS, MEM_HOOK_YAJL, MEM_HOOK_JANSSON, MEM_HOOK_CJSON,
	       MEM_MALLINFO };

struct row {
	const char *name;
	const char *how;	/* how the row gets each item's bytes */
	int (*list)(const char *p, size_t n, struct sink *s);
	int (*event)(const char *p, size_t n, struct sink *s);
	bool reser;
	enum memkind mem;
	/* results */
	double list_mbs[64], ev_mbs[64];
	double mem_list, mem_ev, mi_list;	/* per input byte */
	double abs_list, abs_ev;	/* bytes: LIST page, mean per event */
	struct sink vl, ve;	/* verification pass */
};

static struct row rows[] = {
#define ROW(n, h, l, e, r, m) \
	{ .name = n, .how = h, .list = l, .event = e, .reser = r, .mem = m }
	ROW("jsmn", "span: token start/end", jsmn_list, jsmn_event, false,
	    MEM_TOKENS),
	ROW("yajl", "span: bytes_consumed in callbacks", yajl_list,
	    yajl_event, false, MEM_HOOK_YAJL),
	ROW("json-c", "none", jsonc_list, jsonc_event, false, MEM_MALLINFO),
	ROW("json-c +ser", "re-serialize item", jsonc_list, jsonc_event, true,
	    MEM_MALLINFO),
	ROW("jansson", "none", ja_list, ja_event, false, MEM_HOOK_JANSSON),
	ROW("jansson +ser", "re-serialize item", ja_list, ja_event, true,
	    MEM_HOOK_JANSSON),
	ROW("cJSON", "none", cj_list, cj_event, false, MEM_HOOK_CJSON),
	ROW("cJSON +ser", "re-serialize item", cj_list, cj_event, true,
	    MEM_HOOK_CJSON),
#undef ROW
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	double tmp[64];
	memcpy(tmp, v, (size_t)n * sizeof(*v));
	qsort(tmp, (size_t)n, sizeof(*tmp), cmp_double);
	return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

static void die(const char *what, const char *lib)
{
	fprintf(stderr, "bench_json: %s failed for %s\n", what, lib);
	exit(1);
}

static void run_events(struct row *r, const struct workload *w,
		       struct sink *s, unsigned count)
{
	for (unsigned i = 0; i < count; i++)
		if (r->event(w->events.p + w->ev_off[i], w->ev_len[i], s))
			die("watch event parse", r->name);
}

static void verify(const struct workload *w)
{
	for (size_t i = 0; i < NROWS; i++) {
		struct row *r = &rows[i];
		r->vl = (struct sink){ .full = true, .reser = r->reser };
		r->ve = (struct sink){ .full = true, .reser = r->reser };
		if (r->list(w->list.p, w->list.len, &r->vl))
			die("LIST parse", r->name);
		run_events(r, w, &r->ve, VERIFY_EVENTS);
		if (r->vl.items != LIST_ITEMS || r->ve.items != VERIFY_EVENTS)
			die("item count", r->name);
		if (r->vl.h != rows[0].vl.h || r->ve.h != rows[0].ve.h)
			die("extracted fields differ from jsmn's", r->name);
	}
	if (jsmn_escaped)
		printf("note: %u extracted strings held escapes (jsmn would "
		       "have to unescape them)\n", jsmn_escaped);
}

static const char *span_verdict(const struct row *r, const struct workload *w)
{
	if (r->vl.spans == 0)
		return "-";
	if (r->vl.hs == w->list_hs && r->ve.hs == w->events_hs)
		return r->reser ? "identical" : "exact";
	return "differ";
}

/* Peak bytes per input byte for one LIST page and for MEM_EVENTS events. */
static void measure_memory(struct row *r, const struct workload *w)
{
	struct sink s = { 0 };
	double peak_sum = 0, bytes = 0;

	if (r->mem == MEM_HOOK_JANSSON)
		json_set_alloc_funcs(cnt_malloc, cnt_free);
	if (r->mem == MEM_HOOK_CJSON) {
		cJSON_Hooks hk = { cnt_malloc, cnt_free };
		cJSON_InitHooks(&hk);
	}
	if (r->mem == MEM_HOOK_YAJL)
		y_funcs = &y_counting;
	if (r->mem == MEM_TOKENS) {	/* start from an empty token array */
		free(toks);
		toks = NULL;
		toks_cap = 0;
	}

	probing = true;
	mc = (struct memctr){ 0 };
	mi_base = mallinfo_used();
	mi_at_parse = 0;
	if (r->list(w->list.p, w->list.len, &s))
		die("LIST parse", r->name);
	if (r->mem == MEM_TOKENS) {
		r->mem_list = (double)toks_used * sizeof(jsmntok_t);
		r->mi_list = (double)mi_at_parse;	/* the array, grown */
	} else if (r->mem == MEM_MALLINFO) {
		r->mem_list = r->mi_list = (double)mi_at_parse;
	} else {
		r->mem_list = (double)mc.peak;
		r->mi_list = (double)mi_at_parse;
	}
	r->abs_list = r->mem_list;
	r->mem_list /= (double)w->list.len;
	r->mi_list /= (double)w->list.len;
	/* mallinfo2() walks the free lists: far too slow once per event */
	probing = false;

	if (r->mem == MEM_MALLINFO) {
		/* No hook: keep MEM_EVENTS trees alive at once so the
		 * allocator's caches do not hide what one tree costs. */
		void **keep = calloc(MEM_EVENTS, sizeof(*keep));
		size_t base = mallinfo_used();
		for (unsigned i = 0; i < MEM_EVENTS; i++) {
			keep[i] = jsonc_parse_keep(w->events.p + w->ev_off[i],
						   w->ev_len[i]);
			bytes += (double)w->ev_len[i];
		}
		peak_sum = (double)(mallinfo_used() - base);
		for (unsigned i = 0; i < MEM_EVENTS; i++)
			jsonc_free(keep[i]);
		free(keep);
	} else {
		for (unsigned i = 0; i < MEM_EVENTS; i++) {
			mc.peak = mc.live;
			size_t before = mc.live;
			if (r->event(w->events.p + w->ev_off[i], w->ev_len[i],
				     &s))
				die("watch event parse", r->name);
			peak_sum += r->mem == MEM_TOKENS ?
					    (double)toks_used * sizeof(jsmntok_t) :
					    (double)(mc.peak - before);
			bytes += (double)w->ev_len[i];
		}
	}
	r->mem_ev = peak_sum / bytes;
	r->abs_ev = peak_sum / MEM_EVENTS;

	json_set_alloc_funcs(malloc, free);
	cJSON_InitHooks(NULL);
	y_funcs = NULL;
}

/* ---- malformed inputs -------------------------------------------------- */

struct bad {
	const char *what;
	const char *text;
	size_t len;	/* 0: strlen */
};

static const struct bad bads[] = {
	{ "trailing comma in object", "{\"a\":1,}", 0 },
	{ "trailing comma in array", "{\"a\":[1,2,]}", 0 },
	{ "leading comma", "{,\"a\":1}", 0 },
	{ "double comma", "{\"a\":1,,\"b\":2}", 0 },
	{ "missing comma", "{\"a\":1 \"b\":2}", 0 },
	{ "missing comma in array", "{\"a\":[1 2]}", 0 },
	{ "missing colon", "{\"a\" 1}", 0 },
	{ "key without value", "{\"a\"}", 0 },
	{ "colon without value", "{\"a\":}", 0 },
	{ "colon in array", "{\"a\":[1:2]}", 0 },
	{ "bad literal tru", "{\"a\":tru}", 0 },
	{ "bad literal nulll", "{\"a\":nulll}", 0 },
	{ "number with leading zero", "{\"a\":01}", 0 },
	{ "number 1.", "{\"a\":1.}", 0 },
	{ "number -", "{\"a\":-}", 0 },
	{ "number 1e", "{\"a\":1e}", 0 },
	{ "number +1", "{\"a\":+1}", 0 },
	{ "number 1x2", "{\"a\":1x2}", 0 },
	{ "raw tab in string", "{\"a\":\"x\ty\"}", 0 },
	{ "raw newline in string", "{\"a\":\"x\ny\"}", 0 },
	{ "invalid UTF-8 in string", "{\"a\":\"\xff\xfe\"}", 0 },
	{ "bad escape \\x", "{\"a\":\"\\x41\"}", 0 },
	{ "two top-level values", "{\"a\":1} {\"b\":2}", 0 },
	{ "trailing garbage", "{\"a\":1}x", 0 },
	{ "extra closing brace", "{\"a\":1}}", 0 },
	{ "mismatched bracket", "{\"a\":[1}", 0 },
	{ "truncated", "{\"a\":{\"b\":1}", 0 },
	{ "NUL then garbage", "{\"a\":1}\0garbage", 15 },
	{ "non-object root (valid JSON)", "[1,2]", 0 },
	{ "duplicate key (valid JSON)", "{\"a\":1,\"a\":2}", 0 },
};

struct validator {
	const char *name;
	int (*fn)(const char *p, size_t n);
};

static const struct validator validators[] = {
	{ "jsmn", jsmn_validate },
	{ "jsmn+root", jsmn_validate_root },
	{ "yajl", yajl_validate },
	{ "json-c", jsonc_validate },
	{ "jansson", ja_validate },
	{ "cJSON", cj_validate },
};

static void malformed_table(void)
{
	size_t nv = sizeof(validators) / sizeof(validators[0]);

	printf("\nMalformed input: ACCEPT = parsed without error "
	       "(jsmn+root: also one object spanning the whole input)\n");
	printf("%-30s", "input");
	for (size_t v = 0; v < nv; v++)
		printf(" %-9s", validators[v].name);
	printf("\n");
	for (size_t b = 0; b < sizeof(bads) / sizeof(bads[0]); b++) {
		size_t n = bads[b].len ? bads[b].len : strlen(bads[b].text);
		/* a private copy, so no parser can read past its length */
		char *p = malloc(n + 1);
		memcpy(p, bads[b].text, n);
		p[n] = '\0';
		printf("%-30s", bads[b].what);
		for (size_t v = 0; v < nv; v++)
			printf(" %-9s", validators[v].fn(p, n) ? "-" : "ACCEPT");
		printf("\n");
		free(p);
	}
}

/* What a DOM gives back when asked for an item's bytes: the apiserver's
 * Go encoder writes <, > and & as \u003c, \u003e, \u0026. */
static void reser_table(void)
{
	static const char *const ins[] = {
		"{\"a\":\"\\u003cb\\u003e \\u0026\"}",
		"{\"n\":1.0,\"e\":1e3}",
		"{\"big\":18446744073709551615}",
	};
	char out[256];

	printf("\nRe-serialization fidelity (DOM libraries; '!' = bytes "
	       "changed)\n");
	for (size_t i = 0; i < sizeof(ins) / sizeof(ins[0]); i++) {
		const char *in = ins[i];
		size_t n = strlen(in);
		json_error_t err;
		json_t *j = json_loadb(in, n, 0, &err);
		cJSON *c = cj_parse(in, n);
		char *cs = c ? cJSON_PrintUnformatted(c) : NULL;

		printf("  input    %s\n", in);
		if (jsonc_reserialize(in, n, out, sizeof(out)) == 0)
			printf("  json-c  %s%s\n", strcmp(out, in) ? "!" : " ", out);
		else
			printf("  json-c   parse error\n");
		size_t len = j ? json_dumpb(j, out, sizeof(out), JSON_COMPACT) : 0;

		if (j && len < sizeof(out)) {
			out[len] = '\0';
			printf("  jansson %s%s\n", strcmp(out, in) ? "!" : " ", out);
		} else {
			printf("  jansson  parse error: %s\n", err.text);
		}
		if (cs)
			printf("  cJSON   %s%s\n", strcmp(cs, in) ? "!" : " ", cs);
		else
			printf("  cJSON    parse error\n");
		json_decref(j);
		cJSON_free(cs);
		cJSON_Delete(c);
	}
}

/* ---- main -------------------------------------------------------------- */

static void machine(void)
{
	char line[256], model[256] = "unknown";
	FILE *f = fopen("/proc/cpuinfo", "r");
	unsigned ncpu = 0;

	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "model name", 10) && strchr(line, ':'))
			snprintf(model, sizeof(model), "%s",
				 strchr(line, ':') + 2);
		if (!strncmp(line, "processor", 9))
			ncpu++;
	}
	if (f)
		fclose(f);
	model[strcspn(model, "\n")] = '\0';
	printf("machine: %s, %u CPUs; compiler: gcc %s -O2\n", model, ncpu,
	       __VERSION__);
	printf("libraries: jsmn (header, Debian libjsmn-dev), yajl %d.%d.%d, "
	       "json-c %s, jansson %s, cJSON %s\n",
	       YAJL_MAJOR, YAJL_MINOR, YAJL_MICRO, jsonc_version(),
	       JANSSON_VERSION, cJSON_Version());
}

int main(int argc, char **argv)
{
	struct workload w = { BUF_INIT, BUF_INIT, NULL, NULL, 0, 0, 0 };
	int rounds = argc > 1 ? atoi(argv[1]) : 5;
	double t0 = now();

	if (rounds < 1 || rounds > 64)
		rounds = 5;
	rbuf = malloc(rcap);
	if (!rbuf || build_workload(&w)) {
		fprintf(stderr, "bench_json: out of memory\n");
		return 1;
	}
	machine();
	printf("workload: (a) PodList page, %u pods, %zu bytes, parsed %u "
	       "times a round; (b) %u watch events, %zu bytes (avg %zu B)\n",
	       LIST_ITEMS, w.list.len, LIST_REPS, EVENTS, w.ev_bytes,
	       w.ev_bytes / EVENTS);

	verify(&w);
	double t_verify = now();

	for (int round = 0; round < rounds; round++) {
		for (size_t j = 0; j < NROWS; j++) {
			/* rotate the order so no row always runs first */
			struct row *r = &rows[(j + (size_t)round) % NROWS];
			struct sink s = { .reser = r->reser };
			double a = now();
			for (int k = 0; k < LIST_REPS; k++)
				if (r->list(w.list.p, w.list.len, &s))
					die("LIST parse", r->name);
			double b = now();
			run_events(r, &w, &s, EVENTS);
			double c = now();
			r->list_mbs[round] =
				(double)w.list.len * LIST_REPS / (b - a) / 1e6;
			r->ev_mbs[round] = (double)w.ev_bytes / (c - b) / 1e6;
		}
	}

	double t_rounds = now();
	for (size_t j = 0; j < NROWS; j++)
		measure_memory(&rows[j], &w);
	double t_mem = now();

	double best_l = 0, best_e = 0, ml[NROWS], me[NROWS];
	for (size_t j = 0; j < NROWS; j++) {
		ml[j] = median(rows[j].list_mbs, rounds);
		me[j] = median(rows[j].ev_mbs, rounds);
		if (ml[j] > best_l)
			best_l = ml[j];
		if (me[j] > best_e)
			best_e = me[j];
	}

	printf("\nMedian of %d interleaved rounds. MB = 10^6 bytes of input. "
	       "x = speed relative to the fastest row (1.00 = fastest).\n"
	       "mem = peak bytes the library allocated while parsing / input "
	       "bytes; mallinfo = live heap after parse / input (LIST).\n\n",
	       rounds);
	printf("%-13s %9s %5s %9s %5s %8s %8s %9s %9s %8s  %-9s %s\n",
	       "library", "LIST MB/s", "x", "watch MB/s", "x", "mem LIST",
	       "mem evt", "mallinfo", "peak LIST", "peak evt", "bytes",
	       "how the item bytes are had");
	for (size_t j = 0; j < NROWS; j++) {
		struct row *r = &rows[j];
		printf("%-13s %9.0f %5.2f %10.0f %5.2f %7.2fx %7.2fx %8.2fx "
		       "%7.1f MB %5.1f KB  %-9s %s\n",
		       r->name, ml[j], ml[j] / best_l, me[j], me[j] / best_e,
		       r->mem_list, r->mem_ev, r->mi_list, r->abs_list / 1e6,
		       r->abs_ev / 1e3, span_verdict(r, &w), r->how);
	}
	printf("\nbytes: exact = the span is the item's input bytes; "
	       "identical = re-serialization gave the input bytes back; "
	       "- = not obtainable.\n"
	       "mem: jsmn = tokens used x %zu B; yajl, jansson, cJSON = "
	       "allocator hooks; json-c = mallinfo2() (chunk sizes, "
	       "no hook).\n",
	       sizeof(jsmntok_t));

	malformed_table();
	reser_table();
	printf("\nrun time %.1f s: setup and verification %.1f s, timed "
	       "rounds %.1f s, memory pass %.1f s\n",
	       now() - t0, t_verify - t0, t_rounds - t_verify, t_mem - t_rounds);
	free(toks);
	free(rbuf);
	free(w.ev_off);
	free(w.ev_len);
	buf_free(&w.list);
	buf_free(&w.events);
	return 0;
}
