/*
 * filter: request selectors matched against cached objects (see filter.h).
 */
#include "proxy/filter.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/alloc.h"
#include "proxy/reply.h"
#include "proxy/request.h"
#include "proxy/rv.h"

int proxy_filter_parse(struct proxy_filter *f, struct MHD_Connection *c,
		       const struct cache_kind *kind, const char *ns,
		       const char *name, char *err, size_t errlen)
{
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->ns = f->name = "";
	size_t nl = ns ? strlen(ns) : 0, ml = name ? strlen(name) : 0;
	if (nl || ml) {
		f->names = xmalloc(nl + ml + 2);
		if (!f->names)
			return -ENOMEM;
		memcpy(f->names, nl ? ns : "", nl + 1);
		memcpy(f->names + nl + 1, ml ? name : "", ml + 1);
		f->ns = f->names;
		f->name = f->names + nl + 1;
	}
	const char *ls = NULL, *fs = NULL;
	int r = 0;
	if (proxy_request_arg(c, "labelSelector", &ls) && ls && *ls)
		r = cache_selector_label_parse(ls, &f->lsel, err, errlen);
	if (!r && proxy_request_arg(c, "fieldSelector", &fs) && fs && *fs)
		r = cache_selector_field_parse(fs, kind->fields, &f->fsel, err,
					       errlen);
	if (r)
		proxy_filter_free(f);
	return r;
}

/* Whether the request's resourceVersion options draw a 422. */
static bool options_refused(struct MHD_Connection *c, bool watch)
{
	const char *rv = NULL, *match = NULL, *sie = NULL;
	char msg[512];
	proxy_request_arg(c, "resourceVersion", &rv);
	proxy_request_arg(c, "resourceVersionMatch", &match);
	if (watch) {
		struct proxy_rv_watch w;
		proxy_request_arg(c, "sendInitialEvents", &sie);
		return proxy_rv_parse_watch(rv, match, sie, &w, msg,
					    sizeof(msg)) == PROXY_RV_MATCH;
	}
	struct proxy_rv_req q;
	return proxy_rv_parse(rv, match, &q, msg, sizeof(msg)) ==
	       PROXY_RV_MATCH;
}

bool proxy_filter_check(struct MHD_Connection *c, const struct cache_kind *kind,
			bool watch, enum MHD_Result *res)
{
	static const char unsupported[] = "field label not supported";
	struct proxy_filter f;
	char err[512];
	int r = proxy_filter_parse(&f, c, kind, NULL, NULL, err, sizeof(err));
	if (!r) {
		proxy_filter_free(&f);
		return true;
	}
	if (r == -ENOMEM) {
		*res = MHD_NO;
		return false;
	}
	if (!strncmp(err, unsupported, sizeof(unsupported) - 1) &&
	    options_refused(c, watch))
		return true; /* the 422 first: the caller's read answers it */
	*res = proxy_reply_error(c, PROXY_BadRequest, "%s", err);
	return false;
}

struct field_ctx {
	const struct cache_kind *kind;
	const struct cache_obj *o;
};

/* The object's value of a selectable field; "" when it has none, which is
 * what the apiserver compares against. */
static const char *field_of(const void *ctx, const char *field)
{
	const struct field_ctx *fc = ctx;
	if (!strcmp(field, "metadata.name"))
		return fc->o->name;
	if (!strcmp(field, "metadata.namespace"))
		return fc->o->ns;
	int i = cache_kind_field(fc->kind, field);
	const char *v = i >= 0 && fc->o->fields ? fc->o->fields[i] : NULL;
	return v ? v : "";
}

bool proxy_filter_match(const struct proxy_filter *f, const struct cache_obj *o)
{
	if (f->ns[0] && strcmp(f->ns, o->ns))
		return false;
	if (f->name[0] && strcmp(f->name, o->name))
		return false;
	if (f->lsel &&
	    !cache_selector_label_match(f->lsel, o->labels, o->nlabels))
		return false;
	if (f->fsel) {
		struct field_ctx fc = { f->kind, o };
		if (!cache_selector_field_match(f->fsel, field_of, &fc))
			return false;
	}
	return true;
}

void proxy_filter_seek(const struct proxy_filter *f, struct cache_iter *it,
		       const struct cache_store *st,
		       const struct cache_snap *snap, const char *ns,
		       const char *name)
{
	const char *lk = NULL,
		   *lv = f->lsel ? cache_selector_label_eq(f->lsel, &lk) : NULL;
	if (lv && cache_store_indexes(st, lk))
		cache_store_iter_seek_label(it, snap, lk, lv, ns, name);
	else /* none, or a key the index leaves out (--config indexes) */
		cache_store_iter_seek(it, snap, ns, name);
}

bool proxy_filter_is_ns_only(const struct proxy_filter *f)
{
	return !f->lsel && !f->fsel && !f->name[0];
}

void proxy_filter_free(struct proxy_filter *f)
{
	cache_selector_label_free(f->lsel);
	cache_selector_field_free(f->fsel);
	free(f->names);
	f->lsel = NULL;
	f->fsel = NULL;
	f->names = NULL;
	f->ns = f->name = "";
}
