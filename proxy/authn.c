/*
 * authn: delegated authentication and authorization (see authn.h).
 */
#include "proxy/authn.h"

#include <openssl/evp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cache/json.h"
#include "cache/rvclock.h"
#include "config/alloc.h"
#include "config/buf.h"
#include "config/log.h"
#include "proxy/metrics.h"

#define USERS 1024		/* cached token reviews */
#define DECISIONS 4096		/* cached access reviews */
#define TOKEN_MAX 8192

struct user {			/* a token's review */
	uint8_t key[32];	/* SHA-256 of the token; all zero: empty */
	int64_t expires_ms;
	bool ok;
	char name[256], uid[128];
	char groups[1024];	/* a JSON array's text, "[]" when none */
};

struct decision {
	uint8_t key[32];	/* SHA-256 of the token's hash and the attributes */
	int64_t expires_ms;
	bool allowed;
	char reason[160];
};

struct proxy_authn {
	struct cache_upstream up;	/* the proxy's, without its token bucket */
	int64_t allow_ms, deny_ms;
	pthread_mutex_t ulock, dlock;
	struct user *users;		/* ulock */
	struct decision *decisions;	/* dlock */
	bool failing;			/* atomic: a review failed last time */
};

struct proxy_authn *proxy_authn_new(const struct cache_upstream *up,
				    int allow_ttl_s, int deny_ttl_s)
{
	struct proxy_authn *a = xcalloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->up = *up;
	/* a review stands for a client request, as a freshness probe does */
	a->up.limit = NULL;
	a->allow_ms = (int64_t)allow_ttl_s * 1000;
	a->deny_ms = (int64_t)deny_ttl_s * 1000;
	a->users = xcalloc(USERS, sizeof(*a->users));
	a->decisions = xcalloc(DECISIONS, sizeof(*a->decisions));
	pthread_mutex_init(&a->ulock, NULL);
	pthread_mutex_init(&a->dlock, NULL);
	if (!a->users || !a->decisions) {
		proxy_authn_free(a);
		return NULL;
	}
	return a;
}

void proxy_authn_free(struct proxy_authn *a)
{
	if (!a)
		return;
	pthread_mutex_destroy(&a->ulock);
	pthread_mutex_destroy(&a->dlock);
	/* no token is kept, but names and groups are nobody else's business */
	if (a->users)
		explicit_bzero(a->users, USERS * sizeof(*a->users));
	free(a->users);
	free(a->decisions);
	free(a);
}

static void sha256(const void *p, size_t n, const void *p2, size_t n2,
		   uint8_t out[32])
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	unsigned len = 32;
	if (!c || !EVP_DigestInit_ex(c, EVP_sha256(), NULL) ||
	    !EVP_DigestUpdate(c, p, n) || (n2 && !EVP_DigestUpdate(c, p2, n2)) ||
	    !EVP_DigestFinal_ex(c, out, &len))
		memset(out, 0xff, 32);	/* never matches a real hash's slot by luck */
	EVP_MD_CTX_free(c);
}

static unsigned slot(const uint8_t key[32], unsigned n)
{
	uint32_t v;
	memcpy(&v, key, sizeof(v));
	return v % n;
}

/* Whether member key of object obj is the literal true. */
static bool is_true(const struct json_doc *d, int obj, const char *key)
{
	int t = json_get(d, obj, key);
	size_t n;
	const char *v = t > 0 && json_type(d, t) == JSMN_PRIMITIVE ? json_raw(d, t, &n) : NULL;
	return v && n == 4 && !memcmp(v, "true", 4);
}

/* POST a review; returns its parsed answer's "status" token, or -1.
 * d holds the document. */
static int review(struct proxy_authn *a, const char *path, const struct buf *req,
		  struct buf *body, struct json_doc *d)
{
	char err[256];
	static const bool never = false;
	long code = cache_upstream_request(&a->up, "POST", path, req->p, req->len,
					   "application/json", &never, body, NULL,
					   err, sizeof(err));
	bool failing = code != 200 && code != 201;
	if (failing && !__atomic_exchange_n(&a->failing, true, __ATOMIC_RELAXED))
		log_warn("delegated auth: POST %s: %s (check that the proxy may create "
			 "tokenreviews and subjectaccessreviews)", path,
			 code < 0 ? err : "the upstream refused it");
	if (failing)
		return -1;
	if (__atomic_exchange_n(&a->failing, false, __ATOMIC_RELAXED))
		log_info("delegated auth: the upstream answers reviews again");
	if (json_parse(d, body->p, body->len, NULL, 0))
		return -1;
	return json_get(d, 0, "status");
}

/* The user behind token, reviewed or cached. Returns 0 with *u filled,
 * or -1 when the upstream could not tell. */
static int user_of(struct proxy_authn *a, const char *token, size_t tlen,
		   struct user *u)
{
	uint8_t key[32];
	sha256(token, tlen, NULL, 0, key);
	int64_t now = cache_rvclock_now_ms();
	struct user *s = &a->users[slot(key, USERS)];
	pthread_mutex_lock(&a->ulock);
	bool hit = !memcmp(s->key, key, 32) && s->expires_ms > now;
	if (hit)
		*u = *s;
	pthread_mutex_unlock(&a->ulock);
	if (hit) {
		PROXY_COUNT(authn_token_hits);
		return 0;
	}
	PROXY_COUNT(authn_token_reviews);
	struct buf req = BUF_INIT, body = BUF_INIT;
	struct json_doc d = JSON_DOC_INIT;
	buf_adds(&req, "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":"
		       "\"TokenReview\",\"spec\":{\"token\":");
	buf_add_json_str(&req, token, tlen);
	buf_adds(&req, "}}");
	int rc = -1;
	int st = buf_ok(&req) ? review(a, "/apis/authentication.k8s.io/v1/tokenreviews",
				       &req, &body, &d) : -1;
	explicit_bzero(req.p, req.len);
	memset(u, 0, sizeof(*u));
	memcpy(u->key, key, 32);
	strcpy(u->groups, "[]");
	if (st > 0) {
		u->ok = is_true(&d, st, "authenticated");
		int t;
		if (u->ok && (t = json_path(&d, st, "user.username")) > 0)
			json_str(&d, t, u->name, sizeof(u->name));
		if (u->ok && (t = json_path(&d, st, "user.uid")) > 0)
			json_str(&d, t, u->uid, sizeof(u->uid));
		if (u->ok && (t = json_path(&d, st, "user.groups")) > 0 &&
		    json_type(&d, t) == JSMN_ARRAY) {
			size_t b, e;
			json_span(&d, t, &b, &e);
			if (e - b < sizeof(u->groups)) {
				memcpy(u->groups, body.p + b, e - b);
				u->groups[e - b] = '\0';
			}
		}
		u->ok = u->ok && u->name[0];
		u->expires_ms = now + (u->ok ? a->allow_ms : a->deny_ms);
		pthread_mutex_lock(&a->ulock);
		*s = *u;
		pthread_mutex_unlock(&a->ulock);
		rc = 0;
	}
	json_doc_free(&d);
	buf_free(&req);
	buf_free(&body);
	return rc;
}

/* The attributes as one string, for the decision cache's key. */
static void attrs_key(const struct authn_attrs *at, struct buf *b)
{
	buf_printf(b, "%d\n%s\n%s\n%s\n%s\n%s\n%s\n%s\n%s", at->resource, at->verb,
		   at->group, at->version, at->res, at->sub, at->ns, at->name,
		   at->path);
}

static void add_field(struct buf *b, const char *k, const char *v, bool comma)
{
	buf_printf(b, "%s\"%s\":", comma ? "," : "", k);
	buf_add_json_str(b, v, strlen(v));
}

/* Whether u may do at, reviewed or cached. 0, or -1 when unknown. */
static int allowed(struct proxy_authn *a, const struct user *u,
		   const struct authn_attrs *at, bool *yes, char *reason,
		   size_t rlen)
{
	struct buf k = BUF_INIT;
	uint8_t key[32];
	attrs_key(at, &k);
	if (!buf_ok(&k)) {
		buf_free(&k);
		return -1;
	}
	sha256(u->key, 32, k.p, k.len, key);
	buf_free(&k);
	int64_t now = cache_rvclock_now_ms();
	struct decision *s = &a->decisions[slot(key, DECISIONS)];
	pthread_mutex_lock(&a->dlock);
	bool hit = !memcmp(s->key, key, 32) && s->expires_ms > now;
	if (hit) {
		*yes = s->allowed;
		snprintf(reason, rlen, "%s", s->reason);
	}
	pthread_mutex_unlock(&a->dlock);
	if (hit) {
		PROXY_COUNT(authn_access_hits);
		return 0;
	}
	PROXY_COUNT(authn_access_reviews);
	struct buf req = BUF_INIT, body = BUF_INIT;
	struct json_doc d = JSON_DOC_INIT;
	buf_adds(&req, "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":"
		       "\"SubjectAccessReview\",\"spec\":{");
	add_field(&req, "user", u->name, false);
	add_field(&req, "uid", u->uid, true);
	buf_printf(&req, ",\"groups\":%s", u->groups);
	if (at->resource) {
		buf_adds(&req, ",\"resourceAttributes\":{");
		add_field(&req, "namespace", at->ns, false);
		add_field(&req, "verb", at->verb, true);
		add_field(&req, "group", at->group, true);
		add_field(&req, "version", at->version, true);
		add_field(&req, "resource", at->res, true);
		add_field(&req, "subresource", at->sub, true);
		add_field(&req, "name", at->name, true);
	} else {
		buf_adds(&req, ",\"nonResourceAttributes\":{");
		add_field(&req, "path", at->path, false);
		add_field(&req, "verb", at->verb, true);
	}
	buf_adds(&req, "}}}");
	int rc = -1;
	int st = buf_ok(&req) ? review(a, "/apis/authorization.k8s.io/v1/subjectaccessreviews",
				       &req, &body, &d) : -1;
	if (st > 0) {
		struct decision n = { .expires_ms = 0 };
		memcpy(n.key, key, 32);
		int t;
		n.allowed = is_true(&d, st, "allowed") && !is_true(&d, st, "denied");
		if ((t = json_get(&d, st, "reason")) > 0)
			json_str(&d, t, n.reason, sizeof(n.reason));
		n.expires_ms = now + (n.allowed ? a->allow_ms : a->deny_ms);
		pthread_mutex_lock(&a->dlock);
		*s = n;
		pthread_mutex_unlock(&a->dlock);
		*yes = n.allowed;
		snprintf(reason, rlen, "%s", n.reason);
		rc = 0;
	}
	json_doc_free(&d);
	buf_free(&req);
	buf_free(&body);
	return rc;
}

/* The apiserver's words for a denied request (its forbiddenMessage, then
 * NewForbidden around it). */
static void forbidden_message(const struct user *u, const struct authn_attrs *at,
			      const char *reason, char *msg, size_t len)
{
	char what[600];
	if (!at->resource) {
		snprintf(what, sizeof(what), "User \"%s\" cannot %s path \"%s\"", u->name,
			 at->verb, at->path);
		snprintf(msg, len, "forbidden: %s%s%s", what, reason[0] ? ": " : "",
			 reason);
		return;
	}
	char res[200];
	snprintf(res, sizeof(res), "%s%s%s", at->res, at->sub[0] ? "/" : "", at->sub);
	if (at->ns[0])
		snprintf(what, sizeof(what), "User \"%s\" cannot %s resource \"%s\" in API "
			 "group \"%s\" in the namespace \"%s\"", u->name, at->verb, res,
			 at->group, at->ns);
	else
		snprintf(what, sizeof(what), "User \"%s\" cannot %s resource \"%s\" in API "
			 "group \"%s\" at the cluster scope", u->name, at->verb, res,
			 at->group);
	char qual[200];
	snprintf(qual, sizeof(qual), "%s%s%s", at->res, at->group[0] ? "." : "", at->group);
	if (at->name[0])
		snprintf(msg, len, "%s \"%s\" is forbidden: %s%s%s", qual, at->name, what,
			 reason[0] ? ": " : "", reason);
	else
		snprintf(msg, len, "%s is forbidden: %s%s%s", qual, what,
			 reason[0] ? ": " : "", reason);
}

enum authn_verdict proxy_authn_check(struct proxy_authn *a, const char *authz,
				     const struct authn_attrs *at, char *msg,
				     size_t msglen)
{
	msg[0] = '\0';
	if (!authz || strncasecmp(authz, "Bearer ", 7)) {
		PROXY_COUNT(authn_unauthenticated);
		return AUTHN_UNAUTHENTICATED;
	}
	const char *tok = authz + 7;
	while (*tok == ' ')
		tok++;
	size_t tlen = strlen(tok);
	while (tlen && tok[tlen - 1] == ' ')
		tlen--;
	if (!tlen || tlen > TOKEN_MAX) {
		PROXY_COUNT(authn_unauthenticated);
		return AUTHN_UNAUTHENTICATED;
	}
	struct user u;
	if (user_of(a, tok, tlen, &u))
		return AUTHN_UNAVAILABLE;
	if (!u.ok) {
		PROXY_COUNT(authn_unauthenticated);
		return AUTHN_UNAUTHENTICATED;
	}
	if (!at) {
		PROXY_COUNT(authn_allowed);
		return AUTHN_ALLOWED;
	}
	bool yes = false;
	char reason[160] = "";
	if (allowed(a, &u, at, &yes, reason, sizeof(reason)))
		return AUTHN_UNAVAILABLE;
	if (yes) {
		PROXY_COUNT(authn_allowed);
		return AUTHN_ALLOWED;
	}
	PROXY_COUNT(authn_forbidden);
	forbidden_message(&u, at, reason, msg, msglen);
	return AUTHN_FORBIDDEN;
}
