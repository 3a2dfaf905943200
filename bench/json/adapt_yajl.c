/*
 * adapt_yajl: the yajl adapter of the JSON benchmark (see bench_json.h).
 *
 * yajl is a SAX parser: callbacks for each key, string and container,
 * with no tree. The adapter tracks the depth and the last key at each
 * level to know when it is inside an item's metadata or labels, and takes
 * an item's bytes from yajl_get_bytes_consumed() at the item's '{' and
 * '}'. Strings may live in yajl's decode buffer only for the callback, so
 * the ones kept are copied into a per-parse scratch area.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <yajl/yajl_parse.h>
#include <yajl/yajl_version.h>

#include "bench_json.h"

enum ykey {
	K_OTHER,
	K_ITEMS,
	K_TYPE,
	K_OBJECT,
	K_METADATA,
	K_NAME,
	K_NS,
	K_UID,
	K_RV,
	K_LABELS
};

#define YDEPTH 64

/* SAX state. Depth counts open containers (the root object is depth 1);
 * key[d] is the last key read in the object at depth d. */
struct ystate {
	struct sink *s;
	yajl_handle h;
	const char *text;
	bool list;
	int depth, item_depth; /* item_depth: 0 outside an item */
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
		return y->list	    ? (IS("items") ? K_ITEMS : K_OTHER) :
		       IS("type")   ? K_TYPE :
		       IS("object") ? K_OBJECT :
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
		case K_NAME:
			y->m.name = ykeep(y, s, n);
			break;
		case K_NS:
			y->m.ns = ykeep(y, s, n);
			break;
		case K_UID:
			y->m.uid = ykeep(y, s, n);
			break;
		case K_RV:
			y->m.rv = ykeep(y, s, n);
			break;
		default:
			break;
		}
	}
	return 1;
}

static int y_number(void *ctx, const char *s, size_t n)
{
	return 1; /* numbers are not needed: skip the conversion */
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

static void *y_malloc(void *ctx, size_t n)
{
	return count_malloc(n);
}
static void *y_realloc(void *ctx, void *p, size_t n)
{
	return count_realloc(p, n);
}
static void y_free(void *ctx, void *p)
{
	count_free(p);
}
static yajl_alloc_funcs y_counting = { y_malloc, y_realloc, y_free, NULL };
static yajl_alloc_funcs *y_funcs; /* NULL: yajl's default malloc */

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
		sink_meta(s, &ys.m); /* "type" may follow "object" */
	return rc;
}

int yj_list(const char *p, size_t n, struct sink *s)
{
	return yajl_run(p, n, s, true);
}

int yj_event(const char *p, size_t n, struct sink *s)
{
	return yajl_run(p, n, s, false);
}

int yj_validate(const char *p, size_t n)
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

void yj_count_alloc(bool on)
{
	y_funcs = on ? &y_counting : NULL;
}

const char *yj_version(void)
{
	static char v[32];

	snprintf(v, sizeof(v), "%d.%d.%d", YAJL_MAJOR, YAJL_MINOR, YAJL_MICRO);
	return v;
}
