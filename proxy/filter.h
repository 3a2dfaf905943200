/*
 * filter: which objects a LIST or WATCH asked for: a namespace, a label
 * selector and a field selector, parsed from the request once.
 *
 * Threads: proxy_filter_parse() on the libmicrohttpd thread serving the
 * request; the parsed filter is the caller's (a LIST's for the request,
 * a watch's for its stream, matched from whichever thread reads it) and
 * is freed with proxy_filter_free(). Matching is pure.
 */
#ifndef PROXY_FILTER_H
#define PROXY_FILTER_H

#include <microhttpd.h>
#include <stdbool.h>
#include <string.h>

#include "cache/obj.h"
#include "cache/selector.h"
#include "cache/store.h"

struct proxy_filter {
	const struct cache_kind *kind;
	/* Never NULL once parsed; both in one allocation of the filter's,
	 * none when both are "" (an idle watch keeps its filter, so it
	 * holds only what it names: two fixed arrays were a twentieth of
	 * an idle watcher's memory, docs/PERFORMANCE.md, B14). */
	const char *ns;		 /* "" = every namespace */
	const char *name;	 /* a watch of one object, else "" */
	char *names;		 /* that allocation, or NULL */
	struct cache_lsel *lsel; /* NULL when none */
	struct cache_fsel *fsel; /* NULL when none */
};

/*
 * Fill f from the request's labelSelector and fieldSelector. Returns 0,
 * or -EINVAL with err holding the apiserver's message for a 400, or
 * -ENOMEM.
 */
int proxy_filter_parse(struct proxy_filter *f, struct MHD_Connection *c,
		       const struct cache_kind *kind, const char *ns,
		       const char *name, char *err, size_t errlen);
/*
 * The apiserver refuses a bad selector before it validates the other
 * options, except an unsupported field, which it finds after that
 * validation (its 422) but before its storage parses the
 * resourceVersion (its 500). Called before the resourceVersion is read:
 * returns true to go on, or false after queueing the 400 in *res (for a
 * watch, watch is true: its own validation rules).
 */
bool proxy_filter_check(struct MHD_Connection *c, const struct cache_kind *kind,
			bool watch, enum MHD_Result *res);
bool proxy_filter_match(const struct proxy_filter *f,
			const struct cache_obj *o);
/*
 * Set it at the first object f may match from ns/name on, in key order
 * (f's namespace and "" for the start): over the label index when f's
 * label selector names a key=value the store indexes, so the walk costs
 * what it returns, else over every object. The walk is past f's objects
 * at the first one proxy_filter_past() says so of.
 */
void proxy_filter_seek(const struct proxy_filter *f, struct cache_iter *it,
		       const struct cache_store *st,
		       const struct cache_snap *snap, const char *ns,
		       const char *name);
/* Whether o, met in a walk from proxy_filter_seek(), is past every
 * object f can match: outside f's namespace. */
static inline bool proxy_filter_past(const struct proxy_filter *f,
				     const struct cache_obj *o)
{
	return f->ns[0] && strcmp(o->ns, f->ns);
}
/* True when only the namespace restricts the set (counts are ranks). */
bool proxy_filter_is_ns_only(const struct proxy_filter *f);
void proxy_filter_free(struct proxy_filter *f);

#endif
