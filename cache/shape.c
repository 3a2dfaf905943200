/*
 * shape: the per-kind shapes of LIST pages, watch events and objects
 * (see shape.h).
 *
 * The selectable fields' dotted paths form a trie; each trie node
 * becomes a json_shape whose named members are the next segments, and
 * whose other containers are skipped. A path's last segment keeps its
 * whole value. Everything lives in the one struct cache_shape.
 */
#include "cache/shape.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "config/alloc.h"

/* segments of one path that get a trie node; deeper ones keep all */
#define MAX_SEGS 16
#define MAX_NODES (1 + CACHE_KIND_MAX_FIELDS * MAX_SEGS)
/* members named at the item level besides the fields' first segments */
#define ITEM_EXTRA 1

struct trie {
	const char *name; /* a segment of a field path */
	size_t len;
	bool leaf; /* a whole path ends here: keep the value whole */
	int kid[CACHE_KIND_MAX_FIELDS];
	int nkid;
};

struct cache_shape {
	struct json_shape list, items, event, item, meta;
	struct json_shape_key list_keys[2], event_keys[2], meta_keys[1];
	struct json_shape node[MAX_NODES];
	struct json_shape_key key[MAX_NODES + ITEM_EXTRA];
	struct trie trie[MAX_NODES];
	int ntrie, nkey;
};

static int trie_kid(struct cache_shape *s, int at, const char *name, size_t len)
{
	struct trie *t = &s->trie[at];
	for (int k = 0; k < t->nkid; k++) {
		struct trie *c = &s->trie[t->kid[k]];
		if (c->len == len && !memcmp(c->name, name, len))
			return t->kid[k];
	}
	int n = s->ntrie++;
	s->trie[n] = (struct trie){ .name = name, .len = len };
	t->kid[t->nkid++] = n;
	return n;
}

static void trie_add(struct cache_shape *s, const char *path)
{
	int at = 0;
	for (int seg = 0; *path; seg++) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);
		at = trie_kid(s, at, path, n);
		if (!dot || seg + 1 == MAX_SEGS) {
			s->trie[at].leaf = true; /* keep the value whole */
			return;
		}
		path = dot + 1;
	}
}

/* Node i's json_shape: its kids as named members (their own shapes,
 * recursively), every other container skipped. */
static const struct json_shape *freeze(struct cache_shape *s, int i,
				       const struct json_shape_key *extra,
				       int nextra)
{
	const struct trie *t = &s->trie[i];
	if (t->leaf)
		return NULL;
	struct json_shape *n = &s->node[i];
	struct json_shape_key *keys = &s->key[s->nkey];
	size_t nk = 0;
	for (int e = 0; e < nextra; e++)
		keys[nk++] = extra[e];
	s->nkey += (int)nk + t->nkid;
	for (int k = 0; k < t->nkid; k++) {
		const struct trie *c = &s->trie[t->kid[k]];
		bool named = false; /* metadata's extra shape wins */
		for (int e = 0; e < nextra; e++)
			named |= extra[e].len == c->len &&
				 !memcmp(extra[e].name, c->name, c->len);
		if (named)
			continue;
		keys[nk++] = (struct json_shape_key){
			c->name, c->len, freeze(s, t->kid[k], NULL, 0)
		};
	}
	*n = (struct json_shape){ &json_shape_skip, nk, keys };
	return n;
}

#define KEY(lit, sh)                     \
	{                                \
		lit, sizeof(lit) - 1, sh \
	}

struct cache_shape *cache_shape_new(const struct cache_kind *kind)
{
	struct cache_shape *s = xcalloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->ntrie = 1; /* the root: the object */
	for (int f = 0; kind && kind->fields[f]; f++)
		trie_add(s, kind->fields[f]);
	/* metadata whole, but for managedFields, which nothing reads */
	s->meta_keys[0] =
		(struct json_shape_key)KEY("managedFields", &json_shape_skip);
	s->meta = (struct json_shape){ NULL, 1, s->meta_keys };
	struct json_shape_key meta = KEY("metadata", &s->meta);
	const struct json_shape *item = freeze(s, 0, &meta, 1);
	s->item = *item;
	s->items = (struct json_shape){ &s->item, 0, NULL };
	s->list_keys[0] = (struct json_shape_key)KEY("metadata", NULL);
	s->list_keys[1] = (struct json_shape_key)KEY("items", &s->items);
	s->list = (struct json_shape){ &json_shape_skip, 2, s->list_keys };
	s->event_keys[0] = (struct json_shape_key)KEY("type", NULL);
	s->event_keys[1] = (struct json_shape_key)KEY("object", &s->item);
	s->event = (struct json_shape){ &json_shape_skip, 2, s->event_keys };
	return s;
}

void cache_shape_free(struct cache_shape *s)
{
	free(s);
}

const struct json_shape *cache_shape_list(const struct cache_shape *s)
{
	return &s->list;
}

const struct json_shape *cache_shape_event(const struct cache_shape *s)
{
	return &s->event;
}

const struct json_shape *cache_shape_object(const struct cache_shape *s)
{
	return &s->item;
}
