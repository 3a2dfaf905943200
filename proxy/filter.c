/*
 * filter: request selectors matched against cached objects (see filter.h).
 */
#include "proxy/filter.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "proxy/request.h"

int proxy_filter_parse(struct proxy_filter *f, struct MHD_Connection *c,
		       const struct cache_kind *kind, const char *ns,
		       const char *name, char *err, size_t errlen)
{
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	snprintf(f->ns, sizeof(f->ns), "%s", ns ? ns : "");
	snprintf(f->name, sizeof(f->name), "%s", name ? name : "");
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

bool proxy_filter_is_ns_only(const struct proxy_filter *f)
{
	return !f->lsel && !f->fsel && !f->name[0];
}

void proxy_filter_free(struct proxy_filter *f)
{
	cache_selector_label_free(f->lsel);
	cache_selector_field_free(f->fsel);
	f->lsel = NULL;
	f->fsel = NULL;
}
