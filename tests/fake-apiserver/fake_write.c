/*
 * fake_write: create (POST), update (PUT), merge-patch (PATCH) and
 * delete (DELETE).
 *
 * Bodies go through jansson; the stored form is rebuilt in the order
 * the apiserver writes: kind, apiVersion, metadata (ObjectMeta's field
 * order), then the body's other members in their order. Each write runs
 * under the store's write lock from read to commit, like etcd's
 * GuaranteedUpdate, and bumps the global RV by one. As in etcd, an
 * update that changes nothing is not written: same RV, no event.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

#include "config/alloc.h"
#include "fake_json.h"
#include "fake_proto.h"
#include "fake_query.h"
#include "fake_res.h"

/* ObjectMeta's members in Go struct order. */
static const char *const meta_order[] = { "name",
					  "generateName",
					  "namespace",
					  "selfLink",
					  "uid",
					  "resourceVersion",
					  "generation",
					  "creationTimestamp",
					  "deletionTimestamp",
					  "deletionGracePeriodSeconds",
					  "labels",
					  "annotations",
					  "ownerReferences",
					  "finalizers",
					  "managedFields",
					  NULL };

static void new_uid(char out[37])
{
	unsigned char u[16];
	if (getrandom(u, sizeof(u), 0) != sizeof(u)) {
		for (int i = 0; i < 16; i++)
			u[i] = (unsigned char)random();
	}
	u[6] = (u[6] & 0x0f) | 0x40;
	u[8] = (u[8] & 0x3f) | 0x80;
	snprintf(out, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		 "%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		 u[10], u[11], u[12], u[13], u[14], u[15]);
}

static void now_rfc3339(char out[32])
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Kubernetes' generateName suffix alphabet (no vowels, no 0/1/3). */
static void add_suffix(char *name, size_t cap)
{
	static const char al[] = "bcdfghjklmnpqrstvwxz2456789";
	unsigned char r[5];
	size_t n = strlen(name);
	if (getrandom(r, sizeof(r), 0) != sizeof(r))
		for (int i = 0; i < 5; i++)
			r[i] = (unsigned char)random();
	for (int i = 0; i < 5 && n + 1 < cap; i++)
		name[n++] = al[r[i] % (sizeof(al) - 1)];
	name[n] = '\0';
}

/* RFC 1123 subdomain (label when label_only), as the apiserver
 * validates metadata.name. */
static bool valid_name(const char *s, bool label_only)
{
	size_t n = strlen(s);
	if (n == 0 || n > (label_only ? 63u : 253u))
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
		if (alnum)
			continue;
		if (c == '-' && i > 0 && i + 1 < n)
			continue;
		if (c == '.' && !label_only && i > 0 && i + 1 < n &&
		    s[i - 1] != '.' && s[i - 1] != '-' && s[i + 1] != '-' &&
		    s[i + 1] != '.')
			continue;
		return false;
	}
	return true;
}

static enum MHD_Result reply_invalid_name(struct MHD_Connection *c,
					  const struct fake_res *r,
					  const char *name)
{
	struct fake_field_err e = { "FieldValueRequired", "metadata.name",
				    "Required value: name or generateName is "
				    "required" };
	struct buf m = BUF_INIT;
	enum MHD_Result ret;

	if (*name) {
		bool label = r == &fake_res_table[FAKE_RES_NAMESPACES];
		buf_printf(&m,
			   "Invalid value: \"%s\": a lowercase RFC 1123 %s "
			   "must consist of lower case alphanumeric characters"
			   "%s, and must start and end with an alphanumeric "
			   "character (e.g. '%s', regex used for validation is "
			   "'%s')",
			   name, label ? "label" : "subdomain",
			   label ? " or '-'" : ", '-' or '.'",
			   label ? "my-name', or '123-abc" : "example.com",
			   label ? "[a-z0-9]([-a-z0-9]*[a-z0-9])?" :
				   "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]"
				   "([-a-z0-9]*[a-z0-9])?)*");
		e.reason = "FieldValueInvalid";
		e.msg = m.p ? m.p : "";
	}
	ret = fake_reply_invalid(c, r->kind, "", r->kind, name, &e, 1);
	buf_free(&m);
	return ret;
}

static enum MHD_Result reply_conflict(struct MHD_Connection *c, int res,
				      const char *name, const char *why)
{
	struct buf d = BUF_INIT;
	enum MHD_Result ret;
	const char *rs = fake_res_table[res].resource;

	buf_adds(&d, "{\"name\":");
	buf_add_json_str(&d, name, strlen(name));
	buf_printf(&d, ",\"kind\":\"%s\"}", rs);
	ret = fake_reply_status(
		c, 409, "Conflict", d.p,
		"Operation cannot be fulfilled on %s \"%s\": %s", rs, name,
		why);
	buf_free(&d);
	return ret;
}

static bool media_is(const char *ct, size_t len, const char *want)
{
	return len == strlen(want) && strncasecmp(ct, want, len) == 0;
}

/* The members a built-in kind has besides kind, apiVersion and
 * metadata: what fieldValidation=Strict accepts at the top level. */
static const char *const kind_members[FAKE_NBUILTIN][16] = {
	[FAKE_RES_NAMESPACES] = { "spec", "status", NULL },
	[FAKE_RES_PODS] = { "spec", "status", NULL },
	[FAKE_RES_CONFIGMAPS] = { "immutable", "data", "binaryData", NULL },
	[FAKE_RES_SERVICES] = { "spec", "status", NULL },
	[FAKE_RES_EVENTS] = { "involvedObject", "reason", "message", "source",
			      "firstTimestamp", "lastTimestamp", "count",
			      "type", "eventTime", "series", "action",
			      "related", "reportingComponent",
			      "reportingInstance", NULL },
	[FAKE_RES_LEASES] = { "spec", NULL },
};

static bool in_list(const char *const *l, const char *k)
{
	for (; *l; l++)
		if (strcmp(*l, k) == 0)
			return true;
	return false;
}

/*
 * fieldValidation=Strict, simply: a built-in kind's body may hold no
 * member unknown at the top level or in metadata (duplicates are caught
 * by the parser). Deeper members and custom resources are not checked.
 * The first unknown field is named in *bad (a static or j's string).
 */
static bool strict_unknown(int res, json_t *j, char *bad, size_t badlen)
{
	const char *k;
	json_t *v;

	if (res >= FAKE_NBUILTIN)
		return false;
	json_object_foreach(j, k, v)
	{
		if (strcmp(k, "kind") && strcmp(k, "apiVersion") &&
		    strcmp(k, "metadata") && !in_list(kind_members[res], k)) {
			snprintf(bad, badlen, "%s", k);
			return true;
		}
	}
	json_object_foreach(json_object_get(j, "metadata"), k, v)
	{
		if (!in_list(meta_order, k)) {
			snprintf(bad, badlen, "metadata.%s", k);
			return true;
		}
	}
	return false;
}

/*
 * Parse a body that must be an object of the resource's kind: JSON, or
 * for a built-in kind Kubernetes protobuf (fake_proto.c), as client-go's
 * typed clients send. On error a reply is queued and NULL returned.
 */
static json_t *parse_body(struct fake_req *rq, enum MHD_Result *ret)
{
	const struct fake_res *r = &fake_res_table[rq->res];
	json_error_t je;
	json_t *j;
	const char *s, *ct = MHD_lookup_connection_value(
			       rq->conn, MHD_HEADER_KIND, "Content-Type");
	size_t ctlen = ct ? strcspn(ct, "; ") : 0;
	bool pb_ok = !r->custom && fake_proto_knows(r->api_version, r->kind);
	bool proto = ct && media_is(ct, ctlen, FAKE_PROTO_MEDIA) && pb_ok;
	const char *fv = fake_query(rq->conn, "fieldValidation");
	bool strict = fv && strcmp(fv, "Strict") == 0;
	char why[256];

	/* No Content-Type is read as JSON. Custom resources take no
	 * protobuf, as on a real apiserver; every built-in kind has a
	 * schema (fake_proto.h). */
	if (ct && *ct && !proto && !media_is(ct, ctlen, "application/json")) {
		*ret = fake_reply_status(
			rq->conn, 415, "UnsupportedMediaType", NULL,
			"the body of the request was in an unknown format - "
			"accepted media types include: application/json%s",
			pb_ok ? ", " FAKE_PROTO_MEDIA : "");
		return NULL;
	}
	if (fv && *fv && strcmp(fv, "Strict") && strcmp(fv, "Warn") &&
	    strcmp(fv, "Ignore")) {
		*ret = fake_reply_bad_request(
			rq->conn,
			"fieldValidation parameter unsupported: %s: "
			"want one of Ignore, Warn, Strict",
			fv);
		return NULL;
	}
	if (proto) {
		j = fake_proto_decode(rq->body.p ? rq->body.p : "",
				      rq->body.len, why, sizeof(why));
		if (!j) {
			*ret = fake_reply_bad_request(
				rq->conn,
				"the object provided is unrecognized "
				"(must be of type %s): %s",
				r->kind, why);
			return NULL;
		}
	} else {
		j = json_loadb(rq->body.p ? rq->body.p : "", rq->body.len,
			       strict ? JSON_REJECT_DUPLICATES : 0, &je);
		if (!j && strict && strstr(je.text, "duplicate")) {
			*ret = fake_reply_bad_request(
				rq->conn,
				"%s in version \"%s\" cannot be "
				"handled as a %s: strict decoding error: %s",
				r->kind, r->version, r->kind, je.text);
			return NULL;
		}
	}

	if (!j || !json_is_object(j)) {
		*ret = fake_reply_bad_request(
			rq->conn,
			"the object provided is unrecognized (must be "
			"of type %s): couldn't get version/kind; json parse "
			"error: %s",
			r->kind, j ? "not a JSON object" : je.text);
		json_decref(j);
		return NULL;
	}
	if (strict && !proto && strict_unknown(rq->res, j, why, sizeof(why))) {
		*ret = fake_reply_bad_request(
			rq->conn,
			"%s in version \"%s\" cannot be handled as a "
			"%s: strict decoding error: unknown field \"%s\"",
			r->kind, r->version, r->kind, why);
		goto bad;
	}
	if ((s = json_string_value(json_object_get(j, "apiVersion"))) &&
	    strcmp(s, r->api_version) != 0) {
		*ret = fake_reply_bad_request(
			rq->conn,
			"the API version in the data (%s) does not "
			"match the expected API version (%s)",
			s, r->api_version);
		goto bad;
	}
	if ((s = json_string_value(json_object_get(j, "kind"))) &&
	    strcmp(s, r->kind) != 0) {
		*ret = fake_reply_bad_request(
			rq->conn,
			"the kind in the data (%s) does not match the "
			"expected kind (%s)",
			s, r->kind);
		goto bad;
	}
	json_t *m = json_object_get(j, "metadata");
	if (m && !json_is_object(m) && !json_is_null(m)) {
		*ret = fake_reply_bad_request(
			rq->conn,
			"the object provided is unrecognized (must be "
			"of type %s): metadata is not an object",
			r->kind);
		goto bad;
	}
	if (!json_is_object(m))
		json_object_set_new(j, "metadata", json_object());
	return j;
bad:
	json_decref(j);
	return NULL;
}

static const char *meta_str(json_t *obj, const char *key)
{
	return json_string_value(
		json_object_get(json_object_get(obj, "metadata"), key));
}

/* Server-set defaults the real registries apply on create. */
static void apply_defaults(int res, json_t *obj, const char *name)
{
	json_t *meta = json_object_get(obj, "metadata");
	if (res == FAKE_RES_NAMESPACES) {
		json_t *labels = json_object_get(meta, "labels");
		if (!json_is_object(labels)) {
			labels = json_object();
			json_object_set_new(meta, "labels", labels);
		}
		json_object_set_new(labels, "kubernetes.io/metadata.name",
				    json_string(name));
		/* The registry sets the finalizer whatever the body holds (a
		 * protobuf client always sends a spec, empty). */
		json_t *spec = json_object_get(obj, "spec");
		if (!json_is_object(spec)) {
			spec = json_object();
			json_object_set_new(obj, "spec", spec);
		}
		if (!json_array_size(json_object_get(spec, "finalizers")))
			json_object_set_new(spec, "finalizers",
					    json_pack("[s]", "kubernetes"));
		if (!json_is_object(json_object_get(obj, "status")))
			json_object_set_new(obj, "status", json_object());
		json_t *st = json_object_get(obj, "status");
		if (!json_object_get(st, "phase"))
			json_object_set_new(st, "phase", json_string("Active"));
	} else if (res == FAKE_RES_PODS) {
		if (!json_is_object(json_object_get(obj, "status")))
			json_object_set_new(obj, "status", json_object());
		json_t *st = json_object_get(obj, "status");
		if (!json_object_get(st, "phase"))
			json_object_set_new(st, "phase",
					    json_string("Pending"));
	}
}

/*
 * The stored bytes of obj with the system fields set: kind, apiVersion,
 * metadata.{name,namespace,uid,resourceVersion,creationTimestamp}.
 * malloc'd; NULL on ENOMEM.
 */
static char *render(int res, json_t *obj, const char *ns, const char *name,
		    const char *uid, const char *created, uint64_t rv,
		    size_t *len)
{
	const struct fake_res *r = &fake_res_table[res];
	json_t *meta = json_object_get(obj, "metadata");
	json_t *out = json_object(), *m = json_object();
	char rvs[24];
	const char *k;
	json_t *v;
	char *s = NULL;

	snprintf(rvs, sizeof(rvs), "%llu", (unsigned long long)rv);
	json_object_set_new(meta, "name", json_string(name));
	if (r->namespaced)
		json_object_set_new(meta, "namespace", json_string(ns));
	else
		json_object_del(meta, "namespace");
	json_object_del(meta, "selfLink");
	json_object_set_new(meta, "uid", json_string(uid));
	json_object_set_new(meta, "resourceVersion", json_string(rvs));
	json_object_set_new(meta, "creationTimestamp", json_string(created));

	for (int i = 0; meta_order[i]; i++)
		if ((v = json_object_get(meta, meta_order[i])))
			json_object_set(m, meta_order[i], v);
	json_object_foreach(meta, k, v) if (!json_object_get(m, k))
		json_object_set(m, k, v);

	json_object_set_new(out, "kind", json_string(r->kind));
	json_object_set_new(out, "apiVersion", json_string(r->api_version));
	json_object_set_new(out, "metadata", m);
	json_object_foreach(obj, k, v) if (strcmp(k, "kind") &&
					   strcmp(k, "apiVersion") &&
					   strcmp(k, "metadata"))
		json_object_set(out, k, v);
	s = json_dumps(out, JSON_COMPACT);
	json_decref(out);
	if (s)
		*len = strlen(s);
	return s;
}

/* Copy of o's bytes plus "\n", as a reply body. */
static void obj_body(struct buf *b, const struct fake_obj *o)
{
	buf_add(b, o->json, o->len);
	buf_addc(b, '\n');
}

enum MHD_Result fake_write_create(struct fake_req *rq)
{
	const struct fake_res *r = &fake_res_table[rq->res];
	struct MHD_Connection *c = rq->conn;
	const char *ns = r->namespaced ? rq->ns : "";
	enum MHD_Result ret;
	char name[300], uid[37], created[32];
	struct buf b = BUF_INIT;
	json_t *obj = parse_body(rq, &ret);
	const char *s;

	if (!obj)
		return ret;
	if (r->namespaced && (s = meta_str(obj, "namespace")) && *s &&
	    strcmp(s, ns) != 0) {
		ret = fake_reply_bad_request(c,
					     "the namespace of the provided "
					     "object does not match the "
					     "namespace sent on the request");
		goto out;
	}
	const char *gen = meta_str(obj, "generateName");
	snprintf(name, sizeof(name), "%s",
		 (s = meta_str(obj, "name")) ? s : "");
	bool named = *name != '\0';
	if (!named && gen && *gen) {
		snprintf(name, sizeof(name) - 6, "%s", gen);
		add_suffix(name, sizeof(name));
	}
	/* Only a namespace's name is a DNS-1123 label; other names, of
	 * cluster-scoped kinds too (a node, a CRD "plural.group"), are
	 * subdomains. */
	if (!valid_name(name, rq->res == FAKE_RES_NAMESPACES)) {
		ret = reply_invalid_name(c, r, name);
		goto out;
	}
	new_uid(uid);
	now_rfc3339(created);
	apply_defaults(rq->res, obj, name);

	fake_store_wrlock();
	if (r->namespaced && !fake_store_lookup(FAKE_RES_NAMESPACES, "", ns)) {
		fake_store_wrunlock();
		ret = fake_reply_not_found(c, "namespaces", ns);
		goto out;
	}
	for (int tries = 0; fake_store_lookup(rq->res, ns, name); tries++) {
		if (!gen || !*gen || named || tries == 8) {
			struct buf d = BUF_INIT;
			fake_store_wrunlock();
			buf_adds(&d, "{\"name\":");
			buf_add_json_str(&d, name, strlen(name));
			buf_printf(&d, ",\"kind\":\"%s\"}", r->resource);
			ret = fake_reply_status(c, 409, "AlreadyExists", d.p,
						"%s \"%s\" already exists",
						r->resource, name);
			buf_free(&d);
			goto out;
		}
		snprintf(name, sizeof(name) - 6, "%s", gen);
		add_suffix(name, sizeof(name));
	}
	size_t len;
	char *json = render(rq->res, obj, ns, name, uid, created,
			    fake_store_rv() + 1, &len);
	struct fake_obj *o = json ? fake_obj_new(rq->res, json, len) : NULL;
	if (!o) {
		fake_store_wrunlock();
		ret = fake_reply_status(c, 500, "InternalError", NULL,
					"cannot store the object");
		goto out;
	}
	obj_body(&b, o);
	fake_store_commit(FAKE_ADDED, o);
	fake_store_wrunlock();
	ret = fake_reply(c, 201, &b);
out:
	json_decref(obj);
	return ret;
}

/*
 * The common tail of PUT and PATCH: obj is the new state of cur's key.
 * Write lock held on entry, released on return.
 */
static enum MHD_Result write_update(struct fake_req *rq, struct fake_obj *cur,
				    json_t *obj)
{
	struct MHD_Connection *c = rq->conn;
	const char *s;
	char created[40] = "";
	const char *cs, *ce;
	struct buf b = BUF_INIT;
	size_t len, n2;

	if ((s = meta_str(obj, "name")) && *s && strcmp(s, cur->name) != 0) {
		fake_store_wrunlock();
		return fake_reply_bad_request(c,
					      "the name of the object (%s) "
					      "does not match the name on "
					      "the URL (%s)",
					      s, cur->name);
	}
	if ((s = meta_str(obj, "namespace")) && *s && *cur->ns &&
	    strcmp(s, cur->ns) != 0) {
		fake_store_wrunlock();
		return fake_reply_bad_request(c,
					      "the namespace of the provided "
					      "object does not match the "
					      "namespace sent on the request");
	}
	if ((s = meta_str(obj, "resourceVersion")) && *s) {
		char want[24];
		snprintf(want, sizeof(want), "%llu",
			 (unsigned long long)cur->rv);
		if (strcmp(s, want) != 0) {
			fake_store_wrunlock();
			return reply_conflict(
				c, cur->res, cur->name,
				"the object has been modified; "
				"please apply your changes to the "
				"latest version and try again");
		}
	}
	if (fake_json_find(cur->json, cur->json + cur->len,
			   "metadata.creationTimestamp", &cs, &ce) &&
	    ce - cs > 2 && ce - cs < (long)sizeof(created))
		memcpy(created, cs + 1, (size_t)(ce - cs - 2));

	/* Rendered at the current RV first: identical bytes mean a no-op. */
	char *json = render(cur->res, obj, cur->ns, cur->name, cur->uid,
			    created, cur->rv, &len);
	if (json && len == cur->len && memcmp(json, cur->json, len) == 0) {
		free(json);
		obj_body(&b, cur);
		fake_store_wrunlock();
		return fake_reply(c, 200, &b);
	}
	char *j2 =
		json ? fake_json_set_rv(json, len, fake_store_rv() + 1, &n2) :
		       NULL;
	free(json);
	struct fake_obj *o = j2 ? fake_obj_new(cur->res, j2, n2) : NULL;
	if (!o) {
		fake_store_wrunlock();
		return fake_reply_status(c, 500, "InternalError", NULL,
					 "cannot store the object");
	}
	obj_body(&b, o);
	fake_store_commit(FAKE_MODIFIED, o);
	fake_store_wrunlock();
	return fake_reply(c, 200, &b);
}

enum MHD_Result fake_write_update(struct fake_req *rq)
{
	enum MHD_Result ret;
	json_t *obj = parse_body(rq, &ret);
	struct fake_obj *cur;

	if (!obj)
		return ret;
	fake_store_wrlock();
	cur = fake_store_lookup(rq->res, rq->ns ? rq->ns : "", rq->name);
	if (!cur) {
		fake_store_wrunlock();
		ret = fake_reply_not_found(
			rq->conn, fake_res_table[rq->res].resource, rq->name);
	} else {
		ret = write_update(rq, cur, obj);
	}
	json_decref(obj);
	return ret;
}

/* RFC 7386: a patch object merges member by member, null deletes, any
 * other value replaces. Returns the new target (a new reference). */
static json_t *merge_patch(json_t *target, json_t *patch)
{
	const char *k;
	json_t *v;

	if (!json_is_object(patch))
		return json_incref(patch);
	if (!json_is_object(target))
		target = json_object();
	else
		json_incref(target);
	json_object_foreach(patch, k, v)
	{
		if (json_is_null(v)) {
			json_object_del(target, k);
			continue;
		}
		json_t *merged = merge_patch(json_object_get(target, k), v);
		json_object_set_new(target, k, merged);
	}
	return target;
}

/* Whether j holds a strategic-merge-patch directive ("$patch", ...). */
static bool has_directive(json_t *j)
{
	const char *k;
	json_t *v;
	size_t i;

	if (json_is_object(j)) {
		json_object_foreach(j, k, v) if (k[0] == '$' ||
						 has_directive(v)) return true;
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v) if (has_directive(v)) return true;
	}
	return false;
}

/*
 * PATCH: application/merge-patch+json (RFC 7386). A strategic merge
 * patch without directives is applied the same way, which is what it
 * means for maps (kubectl label/annotate, the Python client's default);
 * lists are replaced rather than merged by key, and a patch with "$"
 * directives is refused. Other patch types: 415.
 */
enum MHD_Result fake_write_patch(struct fake_req *rq)
{
	const struct fake_res *r = &fake_res_table[rq->res];
	struct MHD_Connection *c = rq->conn;
	const char *ct =
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
	size_t ctlen = ct ? strcspn(ct, ";") : 0;
	json_error_t je;
	enum MHD_Result ret;
	bool smp;

	while (ctlen && ct[ctlen - 1] == ' ')
		ctlen--;
	smp = ct &&
	      media_is(ct, ctlen, "application/strategic-merge-patch+json");
	if (!ct ||
	    (!smp && !media_is(ct, ctlen, "application/merge-patch+json")))
		return fake_reply_status(
			c, 415, "UnsupportedMediaType", NULL,
			"the body of the request was in an unknown format - "
			"accepted media types include: "
			"application/merge-patch+json, "
			"application/strategic-merge-patch+json");
	json_t *patch = json_loadb(rq->body.p ? rq->body.p : "", rq->body.len,
				   JSON_DECODE_ANY, &je);
	if (!patch)
		return fake_reply_bad_request(c, "error decoding patch: %s",
					      je.text);
	if (smp && has_directive(patch)) {
		json_decref(patch);
		return fake_reply_status(c, 415, "UnsupportedMediaType", NULL,
					 "strategic merge patch directives "
					 "($patch, $retainKeys, ...) are not "
					 "supported by the fake apiserver");
	}

	fake_store_wrlock();
	struct fake_obj *cur =
		fake_store_lookup(rq->res, rq->ns ? rq->ns : "", rq->name);
	if (!cur) {
		fake_store_wrunlock();
		json_decref(patch);
		return fake_reply_not_found(c, r->resource, rq->name);
	}
	json_t *target = json_loadb(cur->json, cur->len, 0, &je);
	json_t *obj = target ? merge_patch(target, patch) : NULL;
	json_decref(target);
	json_decref(patch);
	if (!json_is_object(obj) ||
	    !json_is_object(json_object_get(obj, "metadata"))) {
		fake_store_wrunlock();
		json_decref(obj);
		return fake_reply_bad_request(c,
					      "the patched object is not a "
					      "valid %s",
					      r->kind);
	}
	json_object_set_new(obj, "kind", json_string(r->kind));
	json_object_set_new(obj, "apiVersion", json_string(r->api_version));
	ret = write_update(rq, cur, obj);
	json_decref(obj);
	return ret;
}

/* Delete cur (write lock held): the DELETED event carries its last
 * state at the deletion RV. Returns that object (a new reference) or
 * NULL on ENOMEM. */
static struct fake_obj *delete_one(struct fake_obj *cur)
{
	size_t n;
	char *j =
		fake_json_set_rv(cur->json, cur->len, fake_store_rv() + 1, &n);
	struct fake_obj *o = j ? fake_obj_new(cur->res, j, n) : NULL;
	if (!o)
		return NULL;
	fake_obj_get(o);
	fake_store_commit(FAKE_DELETED, o);
	return o;
}

struct gather {
	struct fake_obj **v;
	size_t n, cap;
};

static bool gather_one(void *ctx, struct fake_obj *o)
{
	struct gather *g = ctx;
	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 64;
		struct fake_obj **v = xrealloc(g->v, cap * sizeof(*v));
		if (!v)
			return false;
		g->v = v;
		g->cap = cap;
	}
	g->v[g->n++] = fake_obj_get(o);
	return true;
}

/* The namespace controller's job, done at once: delete what the
 * namespace holds before the namespace itself. Write lock held. */
static void delete_contents(const char *ns)
{
	for (int res = 0; res < fake_nres; res++) {
		struct gather g = { NULL, 0, 0 };
		if (!fake_res_table[res].namespaced)
			continue;
		fake_store_scan(res, fake_store_rv(), ns, NULL, NULL,
				gather_one, &g);
		for (size_t i = 0; i < g.n; i++) {
			fake_obj_put(delete_one(g.v[i]));
			fake_obj_put(g.v[i]);
		}
		free(g.v);
	}
}

enum MHD_Result fake_write_delete(struct fake_req *rq)
{
	const struct fake_res *r = &fake_res_table[rq->res];
	struct MHD_Connection *c = rq->conn;
	const char *want_uid = NULL, *want_rv = NULL;
	json_t *opts = NULL;
	json_error_t je;
	struct buf b = BUF_INIT;

	if (rq->body.len) {
		opts = json_loadb(rq->body.p, rq->body.len, 0, &je);
		if (!json_is_object(opts)) {
			json_decref(opts);
			return fake_reply_bad_request(c,
						      "the body of the request "
						      "is not valid "
						      "DeleteOptions: %s",
						      je.text);
		}
		json_t *pre = json_object_get(opts, "preconditions");
		want_uid = json_string_value(json_object_get(pre, "uid"));
		want_rv = json_string_value(
			json_object_get(pre, "resourceVersion"));
	}
	fake_store_wrlock();
	struct fake_obj *cur =
		fake_store_lookup(rq->res, rq->ns ? rq->ns : "", rq->name);
	if (!cur) {
		fake_store_wrunlock();
		json_decref(opts);
		return fake_reply_not_found(c, r->resource, rq->name);
	}
	char rvs[24], why[200];
	snprintf(rvs, sizeof(rvs), "%llu", (unsigned long long)cur->rv);
	if ((want_uid && strcmp(want_uid, cur->uid)) ||
	    (want_rv && strcmp(want_rv, rvs))) {
		if (want_uid && strcmp(want_uid, cur->uid))
			snprintf(why, sizeof(why),
				 "Precondition failed: UID in "
				 "precondition: %s, UID in object meta: %s",
				 want_uid, cur->uid);
		else
			snprintf(why, sizeof(why),
				 "Precondition failed: "
				 "ResourceVersion in precondition: %s, "
				 "ResourceVersion in object meta: %s",
				 want_rv, rvs);
		fake_store_wrunlock();
		json_decref(opts);
		return reply_conflict(c, rq->res, rq->name, why);
	}
	json_decref(opts);
	if (rq->res == FAKE_RES_NAMESPACES) {
		char *ns = xstrdup(cur->name);
		if (ns)
			delete_contents(ns);
		free(ns);
		cur = fake_store_lookup(rq->res, "", rq->name);
	}
	struct fake_obj *o = cur ? delete_one(cur) : NULL;
	if (o) {
		obj_body(&b, o);
		fake_obj_put(o);
	}
	fake_store_wrunlock();
	if (!o)
		return fake_reply_status(c, 500, "InternalError", NULL,
					 "cannot delete the object");
	return fake_reply(c, 200, &b);
}

struct gather_sel {
	struct gather g;
	const struct fake_filter *f;
};

static bool gather_matching(void *ctx, struct fake_obj *o)
{
	struct gather_sel *gs = ctx;
	return !fake_filter_match(gs->f, o) || gather_one(&gs->g, o);
}

/* DELETE on a namespaced collection: every object of the namespace the
 * selectors pass; answers with the list of what was deleted. */
enum MHD_Result fake_write_delete_collection(struct fake_req *rq)
{
	const struct fake_res *r = &fake_res_table[rq->res];
	struct fake_listopts o;
	struct gather_sel gs = { { NULL, 0, 0 }, NULL };
	struct fake_filter f;
	enum MHD_Result ret;
	struct buf b = BUF_INIT;

	if (!fake_listopts_parse(rq, &o, &f, &ret))
		return ret;
	gs.f = &f;
	fake_store_wrlock();
	fake_store_scan(rq->res, fake_store_rv(), rq->ns, NULL, NULL,
			gather_matching, &gs);
	buf_printf(&b,
		   "{\"kind\":\"%s\",\"apiVersion\":\"%s\",\"metadata\":{},"
		   "\"items\":[",
		   r->list_kind, r->api_version);
	for (size_t i = 0; i < gs.g.n; i++) {
		struct fake_obj *d = delete_one(gs.g.v[i]);
		if (d) {
			buf_adds(&b, i ? ",{" : "{");
			buf_add(&b, d->json + d->body_off,
				d->len - d->body_off);
		}
		fake_obj_put(d);
		fake_obj_put(gs.g.v[i]);
	}
	fake_store_wrunlock();
	free(gs.g.v);
	fake_filter_free(&f);
	buf_adds(&b, "]}\n");
	return fake_reply(rq->conn, 200, &b);
}
