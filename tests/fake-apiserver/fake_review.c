/*
 * fake_review: TokenReview and SubjectAccessReview, the two APIs a
 * delegating proxy (kube-rbac-proxy, the informer-proxy's
 * --client-auth=delegated) calls on the apiserver.
 *
 *   POST /apis/authentication.k8s.io/v1/tokenreviews
 *     {"spec":{"token":T[,"audiences":[...]]}} -> 201, the object with
 *     status {authenticated, user{username,uid,groups}, audiences} for a
 *     token of --users, --token or --token-file, else {user: {}, error:
 *     "invalid bearer token"} (authenticated false is omitted, as the
 *     apiserver's omitempty does).
 *   POST /apis/authorization.k8s.io/v1/subjectaccessreviews
 *     {"spec":{user, groups, resourceAttributes{namespace, verb, group,
 *     version, resource, subresource, name} | nonResourceAttributes{path,
 *     verb}}} -> 201, the object with status {allowed[, reason]}, decided
 *     by fake_auth_allowed(), the rules of the fake's own API.
 *
 * As in the apiserver, the caller itself needs create on the review
 * resource (checked by dispatch like any request), the token stays in
 * the echoed spec and is never logged, and the answer carries the
 * object back with metadata.creationTimestamp null.
 */
#include <jansson.h>
#include <string.h>

#include "fake_auth.h"
#include "fake_http.h"

#define TR_PATH "/apis/authentication.k8s.io/v1/tokenreviews"
#define SAR_PATH "/apis/authorization.k8s.io/v1/subjectaccessreviews"

/* The apiserver's own audience (kubeadm's default issuer): a review with
 * no spec.audiences is checked against it. */
#define API_AUDIENCE "https://kubernetes.default.svc.cluster.local"

static unsigned long n_token, n_sar;

unsigned long fake_review_token_count(void)
{
	return __atomic_load_n(&n_token, __ATOMIC_RELAXED);
}

unsigned long fake_review_sar_count(void)
{
	return __atomic_load_n(&n_sar, __ATOMIC_RELAXED);
}

static const char *str_at(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

/* Reply 201 with obj (consumed), its kind, apiVersion and metadata set. */
static enum MHD_Result reply_review(struct MHD_Connection *c, json_t *obj,
				    const char *kind, const char *api_version)
{
	struct buf b = BUF_INIT;
	char *s;

	json_object_set_new(obj, "kind", json_string(kind));
	json_object_set_new(obj, "apiVersion", json_string(api_version));
	if (!json_is_object(json_object_get(obj, "metadata")))
		json_object_set_new(obj, "metadata",
				    json_pack("{s:n}", "creationTimestamp"));
	s = json_dumps(obj, JSON_COMPACT);
	json_decref(obj);
	if (!s)
		return MHD_NO;
	buf_adds(&b, s);
	buf_addc(&b, '\n');
	free(s);
	return fake_reply(c, 201, &b);
}

/* Whether the token's audiences (the apiserver's one) meet the asked
 * ones; *auds gets the intersection, as the audience-agnostic wrapper of
 * the static token authenticator returns it. */
static bool audiences_ok(json_t *asked, json_t **auds)
{
	*auds = json_array();
	if (!json_is_array(asked) || json_array_size(asked) == 0) {
		json_array_append_new(*auds, json_string(API_AUDIENCE));
		return true;
	}
	size_t i;
	json_t *v;
	json_array_foreach(
		asked, i,
		v) if (strcmp(json_string_value(v) ? json_string_value(v) : "",
			      API_AUDIENCE) == 0)
		json_array_append_new(*auds, json_string(API_AUDIENCE));
	return json_array_size(*auds) > 0;
}

static enum MHD_Result token_review(struct MHD_Connection *c, json_t *obj)
{
	json_t *spec = json_object_get(obj, "spec"), *status, *auds = NULL;
	const char *tok = json_string_value(json_object_get(spec, "token"));
	struct fake_user u;

	if (!tok || !*tok) {
		json_decref(obj);
		return fake_reply_bad_request(c,
					      "token is required for "
					      "TokenReview in authentication");
	}
	__atomic_add_fetch(&n_token, 1, __ATOMIC_RELAXED);
	bool aud_ok = audiences_ok(json_object_get(spec, "audiences"), &auds);
	if (aud_ok && fake_auth_token(tok, strlen(tok), &u)) {
		json_t *groups = json_array(), *user;
		for (int i = 0; i < u.ngroups; i++)
			json_array_append_new(groups, json_string(u.groups[i]));
		user = json_pack("{s:s}", "username", u.name);
		if (*u.uid)
			json_object_set_new(user, "uid", json_string(u.uid));
		json_object_set_new(user, "groups", groups);
		status = json_pack("{s:b,s:o,s:o}", "authenticated", 1, "user",
				   user, "audiences", auds);
	} else {
		/* authenticated is omitempty in the apiserver's JSON and
		 * user is a struct: {"user":{},"error":...} */
		json_decref(auds);
		status = json_pack("{s:{},s:s}", "user", "error",
				   "invalid bearer token");
	}
	json_object_set_new(obj, "status", status);
	return reply_review(c, obj, "TokenReview", "authentication.k8s.io/v1");
}

/* 422 as the apiserver's SubjectAccessReview validation gives it. */
static enum MHD_Result sar_invalid(struct MHD_Connection *c, const char *field,
				   const char *msg)
{
	struct fake_field_err e = { "FieldValueInvalid", field, msg };
	return fake_reply_invalid(c, "SubjectAccessReview.authorization.k8s.io",
				  "authorization.k8s.io", "SubjectAccessReview",
				  "", &e, 1);
}

static enum MHD_Result subject_access_review(struct MHD_Connection *c,
					     json_t *obj)
{
	json_t *spec = json_object_get(obj, "spec");
	json_t *ra = json_object_get(spec, "resourceAttributes");
	json_t *nra = json_object_get(spec, "nonResourceAttributes");
	json_t *jg = json_object_get(spec, "groups"), *v;
	const char *user = str_at(spec, "user");
	const char *groups[64];
	int ngroups = 0;
	size_t i;
	enum MHD_Result r;

	if (ra && nra) {
		json_decref(obj);
		return sar_invalid(c, "spec.nonResourceAttributes",
				   "Invalid value: \"null\": cannot be "
				   "specified in combination with "
				   "resourceAttributes");
	}
	if (!json_is_object(ra) && !json_is_object(nra)) {
		json_decref(obj);
		return sar_invalid(
			c, "spec.resourceAttributes",
			"Invalid value: \"null\": exactly one of "
			"nonResourceAttributes or resourceAttributes "
			"must be specified");
	}
	json_array_foreach(jg, i, v) if (json_is_string(v) && ngroups < 64)
		groups[ngroups++] = json_string_value(v);
	if (!*user && !ngroups) {
		json_decref(obj);
		return sar_invalid(c, "spec.user",
				   "Invalid value: \"\": at "
				   "least one of user or group must be "
				   "specified");
	}
	__atomic_add_fetch(&n_sar, 1, __ATOMIC_RELAXED);

	struct fake_attrs a = { .group = "",
				.version = "",
				.resource = "",
				.subresource = "",
				.ns = "",
				.name = "",
				.path = "" };
	if (ra) {
		a.resource_request = true;
		a.verb = str_at(ra, "verb");
		a.group = str_at(ra, "group");
		a.version = str_at(ra, "version");
		a.resource = str_at(ra, "resource");
		a.subresource = str_at(ra, "subresource");
		a.ns = str_at(ra, "namespace");
		a.name = str_at(ra, "name");
	} else {
		a.verb = str_at(nra, "verb");
		a.path = str_at(nra, "path");
	}
	struct buf reason = BUF_INIT;
	bool ok = fake_auth_allowed(user, groups, ngroups, &a, &reason);
	json_t *status = json_pack("{s:b}", "allowed", ok);
	if (ok && reason.len)
		json_object_set_new(status, "reason", json_string(reason.p));
	buf_free(&reason);
	/* status strings may point into obj: set it last */
	json_object_set_new(obj, "status", status);
	r = reply_review(c, obj, "SubjectAccessReview",
			 "authorization.k8s.io/v1");
	return r;
}

bool fake_review_serve(struct fake_req *rq, const char *url,
		       enum MHD_Result *ret)
{
	bool tr = strcmp(url, TR_PATH) == 0, sar = strcmp(url, SAR_PATH) == 0;
	json_error_t je;
	json_t *obj;

	if (!tr && !sar)
		return false;
	if (strcmp(rq->method, "POST") != 0) {
		*ret = fake_reply_status(
			rq->conn, 405, "MethodNotAllowed", "{}",
			"the server does not allow this method "
			"on the requested resource");
		return true;
	}
	obj = json_loadb(rq->body.p ? rq->body.p : "", rq->body.len, 0, &je);
	if (!json_is_object(obj)) {
		json_decref(obj);
		*ret = fake_reply_bad_request(rq->conn,
					      "the body of a %s must "
					      "be a JSON object",
					      tr ? "TokenReview" :
						   "SubjectAccessReview");
		return true;
	}
	*ret = tr ? token_review(rq->conn, obj) :
		    subject_access_review(rq->conn, obj);
	return true;
}
