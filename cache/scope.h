/*
 * scope: the part of a resource one reflector caches, and what follows
 * from it.
 *
 * A scope is an optional namespace and optional label and field selectors
 * that the reflector sends upstream with its LIST and WATCH, plus the
 * JSON paths stripped from each cached object. The proxy asks
 * cache_scope_covers() whether a request's own selectors provably ask
 * for a subset of the scope before answering it from the cache: a cache
 * that holds part of a resource must never answer as if it held all of it.
 *
 * A scope is set before its reflector starts and never changes; readers
 * on any thread read it without a lock. Strings are owned (copied in).
 */
#ifndef CACHE_SCOPE_H
#define CACHE_SCOPE_H

#include <stdbool.h>

#include "cache/obj.h"
#include "config/buf.h"

#define CACHE_SCOPE_MAX_STRIP 16

struct cache_scope {
	char *ns;	      /* NULL: cluster-wide */
	char *label_selector; /* NULL: none */
	char *field_selector; /* NULL: none */
	/* dotted paths ("\." a dot) cut from every object, besides
	 * metadata.managedFields, which obj.c cuts itself */
	char *strip[CACHE_SCOPE_MAX_STRIP];
	int nstrip;
	bool strip_managed; /* metadata.managedFields was among them */
};

/*
 * Fill s from the given parts (each may be NULL; "" counts as NULL). A
 * "metadata.managedFields" in strip sets strip_managed instead of joining
 * s->strip. Returns 0, or -ENOMEM / -EINVAL (more than the maximum of
 * paths) with s empty.
 */
int cache_scope_init(struct cache_scope *s, const char *ns, const char *lsel,
		     const char *fsel, char *const *strip, int nstrip);
void cache_scope_free(struct cache_scope *s);

/* True when the scope has no selector (a namespace alone is fine). */
bool cache_scope_unselected(const struct cache_scope *s);

/*
 * Whether a request with label selector lsel and field selector fsel
 * (NULL or "": none) asks for objects that all lie inside the scope's
 * selectors. Conservative: true only when every term of each scope
 * selector appears among the request's terms of the same selector
 * (written alike, up to white space), so the request's set is the
 * scope's narrowed further. The namespace is the caller's to compare.
 */
bool cache_scope_covers(const struct cache_scope *s, const char *lsel,
			const char *fsel);

/* "&labelSelector=...&fieldSelector=..." for the scope's selectors,
 * percent-encoded, appended to url (nothing when it has none). */
void cache_scope_query(const struct cache_scope *s, struct buf *url);

/*
 * o without the scope's strip paths: o itself when there are none or
 * none is present, else a new object (o's reference is then dropped).
 * NULL only when memory runs out (o's reference dropped too).
 */
struct cache_obj *cache_scope_strip(const struct cache_scope *s,
				    struct cache_obj *o);

/*
 * The JSON answer of a LIST or GET the upstream served (len bytes at
 * body) in the shape the cache gives: every object (each of a list's
 * items, else the document itself) without the scope's strip paths, and
 * without metadata.managedFields when managed, appended to out. Returns
 * 0, -EINVAL when body is not a JSON object (out untouched), or -ENOMEM.
 * Any thread; s is only read.
 */
int cache_scope_strip_answer(const struct cache_scope *s, bool managed,
			     const char *body, size_t len, struct buf *out);

#endif
