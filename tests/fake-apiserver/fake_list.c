/*
 * fake_list: LIST and GET.
 *
 * A LIST is served from one snapshot RV: the current one, the one a
 * continue token carries, or the one resourceVersionMatch=Exact asks
 * for. Older snapshots are rebuilt from the event history by
 * fake_store_scan(); when the history no longer reaches back, the answer
 * is 410 Expired, as the apiserver's is once etcd has compacted past
 * that RV.
 *
 * Continue tokens are the apiserver's: base64url (no padding) of
 * {"v":"meta.k8s.io/v1","rv":N,"start":"<key>\u0000"}, where key is
 * relative to the listed prefix: "name" in one namespace or for a
 * cluster-scoped resource, "ns/name" across namespaces.
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "config/alloc.h"
#include "config/goerr.h"
#include "fake_json.h"
#include "fake_pbout.h"
#include "fake_query.h"
#include "fake_res.h"
#include "fake_table.h"

struct token {
	long long rv;	 /* -1: continue at the current RV */
	char *ns, *name; /* the key to start after (ns "" if none) */
};

static char *token_encode(long long rv, const char *ns, const char *name,
			  bool with_ns)
{
	struct buf key = BUF_INIT, j = BUF_INIT;
	char *out = NULL;

	if (with_ns)
		buf_printf(&key, "%s/", ns);
	buf_adds(&key, name);
	buf_addc(&key, '\0'); /* "strictly after", as the apiserver */
	buf_printf(&j, "{\"v\":\"meta.k8s.io/v1\",\"rv\":%lld,\"start\":", rv);
	buf_add_json_str(&j, key.p, key.len);
	buf_addc(&j, '}');
	if (buf_ok(&key) && buf_ok(&j))
		out = fake_b64url_encode(j.p, j.len);
	buf_free(&key);
	buf_free(&j);
	return out;
}

/* Go's name for the kind of a JSON value in an UnmarshalTypeError. */
static const char *go_kind(const json_t *v)
{
	return json_is_object(v)  ? "object" :
	       json_is_array(v)	  ? "array" :
	       json_is_string(v)  ? "string" :
	       json_is_boolean(v) ? "bool" :
				    "number";
}

/* The first of the token's members json.Unmarshal cannot store in Go's
 * continueToken {v string; rv int64; start string}; false with Go's
 * words in err. Members are checked in the order written. */
static bool token_types(json_t *j, char *err, size_t errlen)
{
	const char *key;
	json_t *val;
	if (!json_is_object(j))
		return true;
	json_object_foreach(j, key, val)
	{
		if (json_is_null(val))
			continue;
		bool str = !strcmp(key, "v") || !strcmp(key, "start");
		if (str && !json_is_string(val)) {
			snprintf(err, errlen,
				 "json: cannot unmarshal %s into Go struct "
				 "field continueToken.%s of type string",
				 go_kind(val), key);
			return false;
		}
		if (strcmp(key, "rv") || json_is_integer(val))
			continue;
		if (json_is_real(val))
			snprintf(err, errlen,
				 "json: cannot unmarshal number %g into Go "
				 "struct field continueToken.rv of type int64",
				 json_real_value(val));
		else
			snprintf(err, errlen,
				 "json: cannot unmarshal %s into Go struct "
				 "field continueToken.rv of type int64",
				 go_kind(val));
		return false;
	}
	return true;
}

/* Decode a token for a list in namespace ns (NULL: all namespaces of a
 * namespaced resource, or a cluster-scoped one). false with err set. */
static bool token_decode(const char *s, bool with_ns, struct token *t,
			 char *err, size_t errlen)
{
	size_t n = 0, bad = 0;
	json_error_t je;
	json_t *j = NULL;
	bool ok = false;
	char *raw = fake_b64url_decode(s, &n, &bad);

	memset(t, 0, sizeof(*t));
	long gbad = goerr_base64url_offset(s);
	if (!raw || gbad >= 0) {
		snprintf(err, errlen, "illegal base64 data at input byte %ld",
			 gbad >= 0 ? gbad : (long)bad);
		free(raw);
		return false;
	}
	/* json.Unmarshal's words: its scanner's, then its type errors */
	if (goerr_json_syntax((const unsigned char *)raw, n, err, errlen)) {
		free(raw);
		return false;
	}
	j = json_loadb(raw, n, JSON_ALLOW_NUL | JSON_DECODE_ANY, &je);
	free(raw);
	if (!j) {
		snprintf(err, errlen, "%s", je.text);
		goto out;
	}
	if (!json_is_object(j) && !json_is_null(j)) {
		snprintf(err, errlen,
			 "json: cannot unmarshal %s into Go value of type "
			 "storage.continueToken",
			 go_kind(j));
		goto out;
	}
	if (!token_types(j, err, errlen))
		goto out;
	const char *v = json_string_value(json_object_get(j, "v"));
	json_t *rv = json_object_get(j, "rv");
	const char *start = json_string_value(json_object_get(j, "start"));
	size_t slen = json_string_length(json_object_get(j, "start"));
	if (!v || strcmp(v, "meta.k8s.io/v1") != 0) {
		snprintf(err, errlen,
			 "server does not recognize this encoded "
			 "version \"%.100s\"",
			 v ? v : "");
		goto out;
	}
	if (!json_is_integer(rv) || json_integer_value(rv) == 0 ||
	    json_integer_value(rv) < -1) {
		snprintf(err, errlen,
			 "incorrect encoded start resourceVersion "
			 "(version meta.k8s.io/v1)");
		goto out;
	}
	if (!start || !slen) {
		snprintf(err, errlen,
			 "encoded start key empty (version "
			 "meta.k8s.io/v1)");
		goto out;
	}
	t->rv = json_integer_value(rv);
	/* The apiserver always writes "key\0" (the first key after key);
	 * the fake accepts only that form. */
	if (start[slen - 1] != '\0' || memchr(start, '\0', slen - 1) ||
	    strstr(start, "..")) {
		snprintf(err, errlen, "%.*s", (int)strnlen(start, 200), start);
		goto out;
	}
	const char *slash = with_ns ? strchr(start, '/') : NULL;
	if (with_ns && !slash) {
		snprintf(err, errlen, "%s", start);
		goto out;
	}
	t->ns = slash ? xstrndup(start, (size_t)(slash - start)) : xstrdup("");
	t->name = xstrdup(slash ? slash + 1 : start);
	ok = t->ns && t->name;
out:
	json_decref(j);
	return ok;
}

struct page {
	const struct fake_filter *f;
	long long limit;
	bool selects;
	struct fake_obj **items;
	size_t n, cap;
	bool more;
	unsigned long long remaining;
	int err;
};

static bool page_add(void *ctx, struct fake_obj *o)
{
	struct page *p = ctx;

	if (p->limit && p->n >= (size_t)p->limit) {
		/* one more key exists: there is a next page; how many
		 * (remainingItemCount) is counted after the scan */
		p->more = true;
		return false;
	}
	if (!fake_filter_match(p->f, o))
		return true;
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 256;
		struct fake_obj **v = xrealloc(p->items, cap * sizeof(*v));
		if (!v) {
			p->err = -ENOMEM;
			return false;
		}
		p->items = v;
		p->cap = cap;
	}
	p->items[p->n++] = fake_obj_get(o);
	return true;
}

static void page_free(struct page *p)
{
	for (size_t i = 0; i < p->n; i++)
		fake_obj_put(p->items[i]);
	free(p->items);
}

size_t fake_list_stream_min = (size_t)1 << 30;

/* A streamed LIST body: the head, then per item "{" (",{" after the
 * first) and its members, then "]}\n". Piece k: 0 the head, 2i + 1 the
 * opening of item i, 2i + 2 its members, 2n + 1 the tail. */
struct list_stream {
	char *head;
	size_t head_len;
	struct fake_obj **items; /* one reference each */
	size_t n;
	size_t k;   /* the piece being sent */
	size_t off; /* bytes of it already sent */
};

static const char *list_piece(const struct list_stream *ls, size_t k,
			      size_t *len)
{
	if (k == 0) {
		*len = ls->head_len;
		return ls->head;
	}
	if (k == 2 * ls->n + 1) {
		*len = 3;
		return "]}\n";
	}
	size_t i = (k - 1) / 2;
	if (k % 2) {
		*len = i ? 2 : 1;
		return i ? ",{" : "{";
	}
	const struct fake_obj *o = ls->items[i];
	*len = o->len - o->body_off;
	return o->json + o->body_off;
}

static ssize_t list_stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct list_stream *ls = cls;
	size_t n = 0, len;

	while (n < max && ls->k <= 2 * ls->n + 1) {
		const char *p = list_piece(ls, ls->k, &len);
		size_t m = len - ls->off;
		if (m > max - n)
			m = max - n;
		memcpy(buf + n, p + ls->off, m);
		n += m;
		ls->off += m;
		if (ls->off == len) {
			ls->k++;
			ls->off = 0;
		}
	}
	return n ? (ssize_t)n : MHD_CONTENT_READER_END_OF_STREAM;
}

static void list_stream_free(void *cls)
{
	struct list_stream *ls = cls;
	for (size_t i = 0; i < ls->n; i++)
		fake_obj_put(ls->items[i]);
	free(ls->items);
	free(ls->head);
	free(ls);
}

/* Send p's items after the head in b, streamed: takes b, and p's items
 * unless it fails. */
static enum MHD_Result reply_list_stream(struct MHD_Connection *c,
					 struct buf *b, struct page *p,
					 size_t total)
{
	struct list_stream *ls = xcalloc(1, sizeof(*ls));
	size_t head_len = 0;
	char *head = buf_steal(b, &head_len);

	if (!ls || !head) {
		free(ls);
		free(head);
		return fake_reply_status(c, 500, "InternalError", NULL,
					 "out of memory");
	}
	*ls = (struct list_stream){ head, head_len, p->items, p->n, 0, 0 };
	p->items = NULL;
	p->n = 0;
	/* the members, an opening brace each, n - 1 commas, the tail */
	uint64_t len = head_len + total + ls->n + (ls->n ? ls->n - 1 : 0) + 3;
	return fake_reply_stream(c, len, list_stream_read, ls,
				 list_stream_free);
}

static enum MHD_Result reply_expired_continue(struct MHD_Connection *c,
					      const struct token *t,
					      bool with_ns)
{
	struct buf b = BUF_INIT;
	char *tok = token_encode(-1, t->ns, t->name, with_ns);

	buf_adds(&b, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":"
		     "{\"continue\":\"");
	buf_adds(&b, tok ? tok : "");
	buf_adds(&b,
		 "\"},\"status\":\"Failure\",\"message\":\"The provided "
		 "continue parameter is too old to display a consistent "
		 "list result. You can start a new list without the "
		 "continue parameter, or use the continue token in this "
		 "response to retrieve the remainder of the results. "
		 "Continuing with the provided token results in an "
		 "inconsistent list - objects that were created, modified, "
		 "or deleted between the time the first chunk was returned "
		 "and now may show up in the list.\",\"reason\":\"Expired\","
		 "\"code\":410}\n");
	free(tok);
	return fake_reply(c, 410, &b);
}

/* Pick the snapshot RV; false with a reply queued. */
static bool pick_snapshot(struct fake_req *rq, const struct fake_listopts *o,
			  const struct token *t, uint64_t *at, bool *use_limit,
			  enum MHD_Result *ret)
{
	struct MHD_Connection *c = rq->conn;
	uint64_t rv;

	*use_limit = true;
	if (o->cont) {
		if (o->rv && *o->rv && strcmp(o->rv, "0") != 0) {
			*ret = fake_reply_bad_request(
				c, "specifying resource version is not allowed "
				   "when using continue");
			return false;
		}
		*at = t->rv > 0 ? (uint64_t)t->rv : fake_store_rv();
		return true;
	}
	if (!fake_rv_parse(c, o->rv, &rv, ret))
		return false;
	if (!o->rv || !*o->rv) {
		*at = fake_store_rv();
		return true;
	}
	if (rv == 0) {
		/* served from the watch cache, which ignores limit */
		*use_limit = false;
		*at = fake_store_rv();
		return true;
	}
	if (!fake_rv_wait(c, rv, ret))
		return false;
	/* Exact, or the legacy "" match with a limit, reads etcd at rv. */
	if (strcmp(o->rv_match, "Exact") == 0 || (!*o->rv_match && o->limit))
		*at = rv;
	else
		*at = fake_store_rv();
	return true;
}

enum MHD_Result fake_list_serve(struct fake_req *rq)
{
	const struct fake_res *r = &fake_res_table[rq->res];
	struct MHD_Connection *c = rq->conn;
	struct fake_listopts o;
	struct fake_filter f;
	struct token t = { 0, NULL, NULL };
	struct page p;
	enum MHD_Result ret;
	bool with_ns = r->namespaced && !rq->ns, use_limit;
	char err[300];
	uint64_t at;
	int rc;

	fake_res_count(&fake_res_stats[rq->res].list);
	fake_control_note(rq->res, false, rq->ns,
			  fake_query(rq->conn, "labelSelector"),
			  fake_query(rq->conn, "fieldSelector"));
	if (!fake_listopts_parse(rq, &o, &f, &ret))
		return ret;
	if (o.cont && !token_decode(o.cont, with_ns, &t, err, sizeof(err))) {
		ret = fake_reply_bad_request(c,
					     "invalid continue token: continue "
					     "key is not valid: %s",
					     err);
		goto out;
	}
	if (!pick_snapshot(rq, &o, &t, &at, &use_limit, &ret))
		goto out;

	memset(&p, 0, sizeof(p));
	p.f = &f;
	p.limit = use_limit ? o.limit : 0;
	p.selects = fake_filter_selects(&f);
	fake_store_rdlock();
	/* a token's key is relative to the listed namespace */
	const char *after_ns = !t.name ? NULL :
			       with_ns ? t.ns :
			       rq->ns  ? rq->ns :
					 "";
	rc = fake_store_scan(rq->res, at, rq->ns, after_ns, t.name, page_add,
			     &p);
	if (!rc && p.more && p.n && !p.selects)
		p.remaining = fake_store_count_after(rq->res, at, rq->ns,
						     p.items[p.n - 1]->ns,
						     p.items[p.n - 1]->name);
	fake_store_rdunlock();
	if (rc == -ESTALE) {
		ret = o.cont ? reply_expired_continue(c, &t, with_ns) :
			       fake_reply_status(c, 410, "Expired", NULL,
						 "The resourceVersion for the "
						 "provided list is too old.");
		page_free(&p);
		goto out;
	}

	struct buf b = BUF_INIT;
	struct fake_as as;
	char *tok = NULL;
	size_t total = 0;
	if (p.more && p.n) {
		const struct fake_obj *last = p.items[p.n - 1];
		tok = token_encode((long long)at, last->ns, last->name,
				   with_ns);
	}
	enum fake_pb pb;
	fake_as_negotiate(c, true, false, &as);
	if (!fake_pb_negotiate(rq, true, false, &as, &pb, &ret)) {
		free(tok);
		page_free(&p);
		goto out;
	}
	if (as.kind != FAKE_AS_OBJECT) {
		struct fake_listmeta m = {
			at, tok ? tok : (p.more && p.n ? "" : NULL),
			tok && !p.selects ? (long long)p.remaining : -1
		};
		fake_table_list(&b, &as, rq->res, &m, p.items, p.n);
		free(tok);
		tok = NULL;
		goto send;
	}
	for (size_t i = 0; i < p.n; i++)
		total += p.items[i]->len - p.items[i]->body_off;
	if (total <= fake_list_stream_min)
		buf_reserve(&b, total + p.n * 2 + 256);
	buf_printf(&b,
		   "{\"kind\":\"%s\",\"apiVersion\":\"%s\",\"metadata\":"
		   "{\"resourceVersion\":\"%llu\"",
		   r->list_kind, r->api_version, (unsigned long long)at);
	if (p.more && p.n) {
		buf_printf(&b, ",\"continue\":\"%s\"", tok ? tok : "");
		if (!p.selects)
			buf_printf(&b, ",\"remainingItemCount\":%llu",
				   p.remaining);
	}
	free(tok);
	buf_adds(&b, "},\"items\":[");
	if (total > fake_list_stream_min && !p.err && pb == FAKE_PB_JSON) {
		ret = buf_ok(&b) ? reply_list_stream(c, &b, &p, total) :
				   fake_reply_status(c, 500, "InternalError",
						     NULL, "out of memory");
		buf_free(&b);
		page_free(&p);
		goto out;
	}
	for (size_t i = 0; i < p.n; i++) {
		const struct fake_obj *ob = p.items[i];
		buf_adds(&b, i ? ",{" : "{");
		buf_add(&b, ob->json + ob->body_off, ob->len - ob->body_off);
	}
	buf_adds(&b, "]}\n");
send:
	page_free(&p);
	ret = p.err ? fake_reply_status(c, 500, "InternalError", NULL,
					"out of memory") :
		      fake_pb_reply(c, 200, &b, pb);
	buf_free(&b);
out:
	free(t.ns);
	free(t.name);
	fake_filter_free(&f);
	return ret;
}

enum MHD_Result fake_get_serve(struct fake_req *rq)
{
	struct MHD_Connection *c = rq->conn;
	const char *ns = rq->ns ? rq->ns : "";
	enum MHD_Result ret;
	struct fake_obj *o;
	uint64_t rv;

	if (!fake_rv_parse(c, fake_query(c, "resourceVersion"), &rv, &ret))
		return ret;
	if (rv && !fake_rv_wait(c, rv, &ret))
		return ret;
	fake_store_rdlock();
	o = fake_store_lookup(rq->res, ns, rq->name);
	if (o)
		fake_obj_get(o);
	fake_store_rdunlock();
	if (!o)
		return fake_reply_not_found(c, fake_res_table[rq->res].resource,
					    rq->name);
	struct buf b = BUF_INIT;
	struct fake_as as;
	enum fake_pb pb;
	fake_as_negotiate(c, false, false, &as);
	if (!fake_pb_negotiate(rq, false, false, &as, &pb, &ret)) {
		fake_obj_put(o);
		return ret;
	}
	if (as.kind != FAKE_AS_OBJECT) {
		fake_table_get(&b, &as, o);
	} else {
		buf_add(&b, o->json, o->len);
		buf_addc(&b, '\n');
	}
	fake_obj_put(o);
	return fake_pb_reply(c, 200, &b, pb);
}
