/*
 * fake_query: list/watch options and the object filter (see fake_query.h).
 *
 * The order of checks follows the apiserver: the query string is
 * converted first (bad integers and selectors give 400 BadRequest), then
 * ValidateListOptions runs (422 Invalid), and only the storage layer
 * parses resourceVersion (a 500 without reason).
 */
#include "fake_query.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fake_res.h"

/* apimachinery's query conversion for bools: "", "0", "false" (any case)
 * are false, anything else true. */
static bool query_bool(const char *v)
{
	return !(v[0] == '\0' || strcmp(v, "0") == 0 ||
		 strcasecmp(v, "false") == 0);
}

static bool query_int(struct MHD_Connection *c, const char *key, long long *out,
		      enum MHD_Result *ret)
{
	const char *v = fake_query(c, key);
	char *end;

	*out = 0;
	if (!v || !*v)
		return true;
	errno = 0;
	*out = strtoll(v, &end, 10);
	if (errno || *end) {
		*ret = fake_reply_bad_request(
			c, "strconv.ParseInt: parsing \"%s\": %s", v,
			errno == ERANGE ? "value out of range" :
					  "invalid syntax");
		return false;
	}
	return true;
}

static const char *fsel_get(const void *ctx, const char *field)
{
	const struct fake_obj *o = ctx;
	if (strcmp(field, "metadata.name") == 0)
		return o->name;
	if (strcmp(field, "metadata.namespace") == 0)
		return o->ns;
	const struct fake_res *r = &fake_res_table[o->res];
	for (int i = 0; r->fields[i]; i++)
		if (strcmp(r->fields[i], field) == 0)
			return o->fields[i];
	return "";
}

bool fake_filter_match(const struct fake_filter *f, const struct fake_obj *o)
{
	if (f->ns && strcmp(f->ns, o->ns) != 0)
		return false;
	if (f->name && strcmp(f->name, o->name) != 0)
		return false;
	if (f->lsel &&
	    !cache_selector_label_match(f->lsel, o->labels, o->nlabels))
		return false;
	if (f->fsel && !cache_selector_field_match(f->fsel, fsel_get, o))
		return false;
	return true;
}

bool fake_filter_selects(const struct fake_filter *f)
{
	return (f->lsel && !cache_selector_label_empty(f->lsel)) ||
	       (f->fsel && !cache_selector_field_empty(f->fsel));
}

void fake_filter_free(struct fake_filter *f)
{
	if (f->lsel)
		cache_selector_label_free(f->lsel);
	if (f->fsel)
		cache_selector_field_free(f->fsel);
	f->lsel = NULL;
	f->fsel = NULL;
}

#define MAX_ERRS 4

/* ValidateListOptions of apimachinery, list and watch flavours. */
static int validate(const struct fake_listopts *o, bool watch,
		    struct fake_field_err *e, char msgs[][160])
{
	int n = 0;
	const char *m = o->rv_match;
#define ADD(rsn, fmt, ...)                                           \
	do {                                                         \
		if (n < MAX_ERRS) {                                  \
			snprintf(msgs[n], 160, fmt, __VA_ARGS__);    \
			e[n] = (struct fake_field_err){              \
				rsn, "resourceVersionMatch", msgs[n] \
			};                                           \
			n++;                                         \
		}                                                    \
	} while (0)

	if (watch) {
		if (o->send_initial >= 0 && strcmp(m, "NotOlderThan") != 0)
			ADD("FieldValueForbidden", "Forbidden: %s",
			    "sendInitialEvents requires setting "
			    "resourceVersionMatch to NotOlderThan");
		if (*m) {
			if (o->send_initial < 0)
				ADD("FieldValueForbidden", "Forbidden: %s",
				    "resourceVersionMatch is forbidden for "
				    "watch "
				    "unless sendInitialEvents is provided");
			if (strcmp(m, "NotOlderThan") != 0)
				ADD("FieldValueNotSupported",
				    "Unsupported value: \"%s\": supported "
				    "values: "
				    "\"NotOlderThan\"",
				    m);
			if (o->cont)
				ADD("FieldValueForbidden", "Forbidden: %s",
				    "resourceVersionMatch is forbidden when "
				    "continue is provided");
		}
		return n;
	}
	if (*m) {
		if (!o->rv || !*o->rv)
			ADD("FieldValueForbidden", "Forbidden: %s",
			    "resourceVersionMatch is forbidden unless "
			    "resourceVersion is provided");
		if (o->cont)
			ADD("FieldValueForbidden", "Forbidden: %s",
			    "resourceVersionMatch is forbidden when continue "
			    "is provided");
		if (strcmp(m, "Exact") != 0 && strcmp(m, "NotOlderThan") != 0)
			ADD("FieldValueNotSupported",
			    "Unsupported value: \"%s\": supported values: "
			    "\"Exact\", \"NotOlderThan\", \"\"",
			    m);
		if (strcmp(m, "Exact") == 0 && o->rv && strcmp(o->rv, "0") == 0)
			ADD("FieldValueForbidden", "Forbidden: %s",
			    "resourceVersionMatch \"exact\" is forbidden for "
			    "resourceVersion \"0\"");
	}
	if (o->send_initial >= 0) {
		if (n < MAX_ERRS) {
			snprintf(msgs[n], 160, "Forbidden: %s",
				 "sendInitialEvents is forbidden for list");
			e[n] = (struct fake_field_err){ "FieldValueForbidden",
							"sendInitialEvents",
							msgs[n] };
			n++;
		}
	}
#undef ADD
	return n;
}

bool fake_listopts_parse(struct fake_req *rq, struct fake_listopts *o,
			 struct fake_filter *f, enum MHD_Result *ret)
{
	struct MHD_Connection *c = rq->conn;
	const char *v;
	char err[512];

	memset(o, 0, sizeof(*o));
	memset(f, 0, sizeof(*f));
	f->res = rq->res;
	f->ns = rq->ns;
	f->name = rq->name;

	o->rv = fake_query(c, "resourceVersion");
	o->rv_match = (v = fake_query(c, "resourceVersionMatch")) ? v : "";
	o->cont = fake_query(c, "continue");
	if (o->cont && !*o->cont)
		o->cont = NULL;
	o->bookmarks =
		(v = fake_query(c, "allowWatchBookmarks")) && query_bool(v);
	o->send_initial =
		(v = fake_query(c, "sendInitialEvents")) ? query_bool(v) : -1;
	if (!query_int(c, "limit", &o->limit, ret) ||
	    !query_int(c, "timeoutSeconds", &o->timeout, ret))
		return false;
	if (o->limit < 0)
		o->limit = 0;
	if (o->timeout < 0)
		o->timeout = 0;

	v = fake_query(c, "labelSelector");
	if (v && cache_selector_label_parse(v, &f->lsel, err, sizeof(err))) {
		*ret = fake_reply_bad_request(c, "%s", err);
		return false;
	}
	struct fake_field_err e[MAX_ERRS];
	char msgs[MAX_ERRS][160];
	int n = validate(o, rq->watch, e, msgs);
	/* a selector that does not parse is refused while decoding, before
	 * the options are validated; an unsupported field label after that
	 * (the handler's field conversion) */
	static const char unsupported[] = "field label not supported";
	v = fake_query(c, "fieldSelector");
	if (v &&
	    cache_selector_field_parse(v, fake_res_table[rq->res].fields,
				       &f->fsel, err, sizeof(err)) &&
	    (!n || strncmp(err, unsupported, sizeof(unsupported) - 1))) {
		fake_filter_free(f);
		*ret = fake_reply_bad_request(c, "%s", err);
		return false;
	}
	if (n) {
		fake_filter_free(f);
		*ret = fake_reply_invalid(c, "ListOptions.meta.k8s.io",
					  "meta.k8s.io", "ListOptions", "", e,
					  n);
		return false;
	}
	return true;
}

bool fake_rv_parse(struct MHD_Connection *c, const char *s, uint64_t *rv,
		   enum MHD_Result *ret)
{
	char *end;

	*rv = 0;
	if (!s || !*s)
		return true;
	errno = 0;
	*rv = strtoull(s, &end, 10);
	if (errno || *end || *s == '-' || *s == '+' || *s == ' ') {
		*ret = fake_reply_status(
			c, 500, NULL, NULL,
			"resourceVersion: Invalid value: \"%s\": "
			"strconv.ParseUint: parsing \"%s\": %s",
			s, s,
			errno == ERANGE ? "value out of range" :
					  "invalid syntax");
		return false;
	}
	return true;
}

bool fake_rv_wait(struct MHD_Connection *c, uint64_t rv, enum MHD_Result *ret)
{
	int64_t until = fake_now_ms() + 3000;
	uint64_t cur;

	while ((cur = fake_store_rv()) < rv && fake_now_ms() < until &&
	       !fake_store_stopping())
		fake_store_wait(rv - 1, fake_store_gen(), until);
	if (cur >= rv)
		return true;
	*ret = fake_reply_rv_too_large(c, rv, cur);
	return false;
}
