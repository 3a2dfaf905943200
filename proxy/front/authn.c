/*
 * authn: delegated authentication and authorization (see authn.h).
 */
#include "proxy/front/authn.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cache/json.h"
#include "cache/kind.h"
#include "cache/rvclock.h"
#include "config/alloc.h"
#include "config/digest.h"
#include "config/buf.h"
#include "config/log.h"
#include "proxy/metrics.h"

#define USERS 1024     /* cached token reviews that accepted the token */
#define DENIALS 1024   /* cached token reviews that did not */
#define DECISIONS 4096 /* cached access reviews */
#define TOKEN_MAX 8192
#define REVIEWERS 4	     /* threads that wait on reviews */
#define QUEUE_MAX 256	     /* known tokens' requests waiting; beyond: 429 */
#define STRANGERS_MAX 64     /* unknown tokens' requests waiting; beyond: 429 */
#define STRANGER_REVIEWERS 2 /* reviewers on unknown tokens at once */
#define SOURCES 1024	     /* client addresses' budgets (hashed) */
#define SOURCE_WAITING 8     /* a source's unknown tokens waiting at once */

/* The two queues: tokens a review accepted before (even if that review
 * has expired since), and the rest. */
enum {
	KNOWN,
	STRANGER
};

struct user {		 /* a token's review */
	uint8_t key[32]; /* SHA-256 of the token; all zero: empty */
	int64_t expires_ms;
	bool ok; /* always true in the users table; false for a denial */
	char name[256], uid[128];
	char groups[1024]; /* a JSON array's text, "[]" when none */
	uint64_t sa_epoch; /* a service account's: a.sa_epoch when asked */
};

struct decision {
	/* The hot path reads seq, key, expires_ms and allowed with atomics
	 * and no lock (a sequence lock: seq is odd while a writer, holding
	 * dlock, changes the slot); name and reason are read under dlock. */
	uint64_t seq;
	uint64_t key[4];    /* SHA-256 of the token, "\n", the attributes */
	int64_t expires_ms; /* never past its token review's */
	uint64_t allowed;
	uint64_t epoch; /* a.epoch when the review was asked */
	char name[256]; /* the user, for a 403's message */
	char reason[160];
};

/* A denied token review: kept apart, so that a stranger's denial never
 * takes the slot of a token that was accepted. */
struct denial {
	uint8_t key[32];
	int64_t expires_ms;
};

/* The reviews of unknown tokens one client address may start: a token
 * bucket, and how many of its requests wait for one now. Addresses are
 * hashed into SOURCES slots; two that meet share one. qlock. */
struct source {
	double tokens;
	int64_t at_ms; /* when tokens was last filled; 0: never */
	int waiting;
};

struct proxy_authn {
	struct cache_upstream up; /* the proxy's, without its token bucket */
	int64_t allow_ms, deny_ms;
	double source_rate; /* strangers' reviews a second per source */
	uint32_t seed;	    /* of the sources' hash */
	pthread_mutex_t ulock, dlock;
	struct user *users;	    /* ulock */
	struct denial *denials;	    /* ulock */
	struct decision *decisions; /* dlock */
	bool failing;		    /* atomic: a review failed last time */
	/* atomic; bumped by proxy_authn_forget(): a decision asked under
	 * an older epoch, a service account's review under an older
	 * sa_epoch, is a miss */
	uint64_t epoch, sa_epoch;
	bool stop;	       /* atomic; with qlock for the workers */
	pthread_mutex_t qlock; /* the review queues */
	pthread_cond_t qcond;
	struct proxy_authn_job *queue[2], **qtail[2]; /* qlock */
	int queued[2];				      /* qlock */
	int on_strangers;	/* qlock: reviewers on a STRANGER job */
	struct source *sources; /* qlock */
	int nworkers;
	pthread_t workers[REVIEWERS];
};

static void *reviewer(void *arg);

struct proxy_authn *proxy_authn_new(const struct cache_upstream *up,
				    int allow_ttl_s, int deny_ttl_s,
				    int source_rate)
{
	struct proxy_authn *a = xcalloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->up = *up;
	/* a review stands for a client request, as a freshness probe does */
	a->up.limit = NULL;
	a->allow_ms = (int64_t)allow_ttl_s * 1000;
	a->deny_ms = (int64_t)deny_ttl_s * 1000;
	a->source_rate = source_rate > 0 ? source_rate : 1;
	a->seed = (uint32_t)cache_rvclock_now_ms() * 2654435761u;
	a->users = xcalloc(USERS, sizeof(*a->users));
	a->denials = xcalloc(DENIALS, sizeof(*a->denials));
	a->sources = xcalloc(SOURCES, sizeof(*a->sources));
	a->decisions = xcalloc(DECISIONS, sizeof(*a->decisions));
	pthread_mutex_init(&a->ulock, NULL);
	pthread_mutex_init(&a->dlock, NULL);
	pthread_mutex_init(&a->qlock, NULL);
	pthread_cond_init(&a->qcond, NULL);
	a->qtail[KNOWN] = &a->queue[KNOWN];
	a->qtail[STRANGER] = &a->queue[STRANGER];
	uint8_t probe[CONFIG_SHA256_LEN]; /* no digest: no decision cache */
	if (!a->users || !a->denials || !a->sources || !a->decisions ||
	    config_sha256("", 0, NULL, 0, probe)) {
		proxy_authn_free(a);
		return NULL;
	}
	for (int i = 0; i < REVIEWERS; i++) {
		if (pthread_create(&a->workers[i], NULL, reviewer, a))
			break;
		a->nworkers++;
	}
	if (!a->nworkers) {
		proxy_authn_free(a);
		return NULL;
	}
	return a;
}

void proxy_authn_free(struct proxy_authn *a)
{
	if (!a)
		return;
	proxy_authn_stop(a);
	pthread_mutex_destroy(&a->ulock);
	pthread_mutex_destroy(&a->dlock);
	pthread_mutex_destroy(&a->qlock);
	pthread_cond_destroy(&a->qcond);
	/* no token is kept, but names and groups are nobody else's business */
	if (a->users)
		explicit_bzero(a->users, USERS * sizeof(*a->users));
	free(a->users);
	free(a->denials);
	free(a->sources);
	free(a->decisions);
	free(a);
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
	const char *v = t > 0 && json_type(d, t) == JSMN_PRIMITIVE ?
				json_raw(d, t, &n) :
				NULL;
	return v && n == 4 && !memcmp(v, "true", 4);
}

/* POST a review; returns its parsed answer's "status" token, or -1 when
 * the upstream could not tell. d holds the document. */
static int review(struct proxy_authn *a, CURL **keep, const char *what,
		  const char *path, const struct buf *req, struct buf *body,
		  struct json_doc *d)
{
	char err[256];
	struct cache_upstream_ask q = { .what = what,
					.method = "POST",
					.path = path,
					.body = req->p,
					.body_len = req->len,
					.stop = &a->stop,
					.keep = keep };
	long code =
		cache_upstream_ask(&a->up, &q, body, NULL, err, sizeof(err));
	bool failing = code != 200 && code != 201;
	if (failing &&
	    !__atomic_exchange_n(&a->failing, true, __ATOMIC_RELAXED))
		log_warn(
			"delegated auth: POST %s: %s (check that the proxy may create "
			"tokenreviews and subjectaccessreviews)",
			path, code < 0 ? err : "the upstream refused it");
	if (failing)
		return -1;
	if (__atomic_exchange_n(&a->failing, false, __ATOMIC_RELAXED))
		log_info("delegated auth: the upstream answers reviews again");
	if (json_parse(d, body->p, body->len, NULL, 0))
		return -1;
	return json_get(d, 0, "status");
}

/* Whether a user name is a service account's, whose token a deleted
 * ServiceAccount revokes. */
static bool service_account(const char *name)
{
	return !strncmp(name, "system:serviceaccount:", 22);
}

/* The user behind token, cached or (keep: on a reviewer) reviewed.
 * Returns 0 with *u filled, -EAGAIN on a miss that may not be reviewed,
 * or -1 when the upstream could not tell. */
static int user_of(struct proxy_authn *a, CURL **keep, const char *token,
		   size_t tlen, const uint8_t key[32], struct user *u)
{
	int64_t now = cache_rvclock_now_ms();
	struct user *s = &a->users[slot(key, USERS)];
	struct denial *dn = &a->denials[slot(key, DENIALS)];
	uint64_t sa_epoch = __atomic_load_n(&a->sa_epoch, __ATOMIC_ACQUIRE);
	pthread_mutex_lock(&a->ulock);
	bool hit = !memcmp(s->key, key, 32) && s->expires_ms > now &&
		   (!service_account(s->name) || s->sa_epoch == sa_epoch);
	if (hit) {
		*u = *s;
	} else if (!memcmp(dn->key, key, 32) && dn->expires_ms > now) {
		hit = true;
		memset(u, 0, sizeof(*u));
		memcpy(u->key, key, 32);
	}
	pthread_mutex_unlock(&a->ulock);
	if (hit) {
		PROXY_COUNT(authn_token_hits);
		return 0;
	}
	if (!keep)
		return -EAGAIN;
	PROXY_COUNT(authn_token_reviews);
	struct buf req = BUF_INIT, body = BUF_INIT;
	struct json_doc d = JSON_DOC_INIT;
	buf_adds(&req, "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":"
		       "\"TokenReview\",\"spec\":{\"token\":");
	buf_add_json_str(&req, token, tlen);
	buf_adds(&req, "}}");
	int rc = -1;
	int st = buf_ok(&req) ?
			 review(a, keep, CACHE_UPSTREAM_TOKENREVIEW,
				"/apis/authentication.k8s.io/v1/tokenreviews",
				&req, &body, &d) :
			 -1;
	explicit_bzero(req.p, req.len);
	memset(u, 0, sizeof(*u));
	memcpy(u->key, key, 32);
	strcpy(u->groups, "[]");
	u->sa_epoch = sa_epoch; /* a deletion since refuses the answer */
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
				memcpy(u->groups, d.js + b,
				       e - b); /* d.js: UTF-8 fixed */
				u->groups[e - b] = '\0';
			}
		}
		u->ok = u->ok && u->name[0];
		u->expires_ms = now + (u->ok ? a->allow_ms : a->deny_ms);
		pthread_mutex_lock(&a->ulock);
		if (u->ok) {
			*s = *u;
			if (!memcmp(dn->key, key, 32))
				memset(dn, 0, sizeof(*dn));
		} else {
			/* a denial takes only the denials' slot; the token
			 * itself, if it was accepted before, is forgotten */
			memcpy(dn->key, key, 32);
			dn->expires_ms = u->expires_ms;
			if (!memcmp(s->key, key, 32))
				memset(s, 0, sizeof(*s));
		}
		pthread_mutex_unlock(&a->ulock);
		rc = 0;
	}
	json_doc_free(&d);
	buf_free(&req);
	buf_free(&body);
	return rc;
}

/* The attributes as one string, for the decision cache's key; its
 * length, or 0 when it does not fit. */
static size_t attrs_key(const struct proxy_authn_attrs *at, char *out,
			size_t cap)
{
	int n = snprintf(out, cap, "%d\n%s\n%s\n%s\n%s\n%s\n%s\n%s\n%s",
			 at->resource, at->verb, at->group, at->version,
			 at->res, at->sub, at->ns, at->name, at->path);
	return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

/* A cached decision for key, copied into *out; false on a miss. An
 * allowed one is read without a lock: every request of a busy client
 * comes here, from every thread. */
static bool decision_cached(struct proxy_authn *a, const uint8_t key[32],
			    struct decision *out)
{
	struct decision *s = &a->decisions[slot(key, DECISIONS)];
	int64_t now = cache_rvclock_now_ms();
	uint64_t k[4];
	memcpy(k, key, 32);
	uint64_t s1 = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
	bool same = !(s1 & 1);
	for (int i = 0; i < 4 && same; i++)
		same = __atomic_load_n(&s->key[i], __ATOMIC_RELAXED) == k[i];
	int64_t exp = __atomic_load_n(&s->expires_ms, __ATOMIC_RELAXED);
	uint64_t allowed = __atomic_load_n(&s->allowed, __ATOMIC_RELAXED);
	uint64_t epoch = __atomic_load_n(&s->epoch, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	uint64_t cur = __atomic_load_n(&a->epoch, __ATOMIC_ACQUIRE);
	if (same && __atomic_load_n(&s->seq, __ATOMIC_RELAXED) == s1 &&
	    allowed && exp > now && epoch == cur) {
		out->allowed = true;
		out->name[0] = out->reason[0] = '\0';
		return true;
	}
	/* a denial (its message needs the name), or a slot being written */
	pthread_mutex_lock(&a->dlock);
	bool hit = !memcmp(s->key, key, 32) && s->expires_ms > now &&
		   s->epoch == cur;
	if (hit) {
		out->allowed = s->allowed;
		memcpy(out->name, s->name, sizeof(out->name));
		memcpy(out->reason, s->reason, sizeof(out->reason));
	}
	pthread_mutex_unlock(&a->dlock);
	return hit;
}

/* Store n in slot s. dlock held. */
static void decision_store(struct decision *s, const struct decision *n)
{
	uint64_t seq = s->seq;
	__atomic_store_n(&s->seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (int i = 0; i < 4; i++)
		__atomic_store_n(&s->key[i], n->key[i], __ATOMIC_RELAXED);
	__atomic_store_n(&s->expires_ms, n->expires_ms, __ATOMIC_RELAXED);
	__atomic_store_n(&s->allowed, n->allowed, __ATOMIC_RELAXED);
	__atomic_store_n(&s->epoch, n->epoch, __ATOMIC_RELAXED);
	memcpy(s->name, n->name, sizeof(s->name));
	memcpy(s->reason, n->reason, sizeof(s->reason));
	__atomic_store_n(&s->seq, seq + 2, __ATOMIC_RELEASE);
}

static void add_field(struct buf *b, const char *k, const char *v, bool comma)
{
	buf_printf(b, "%s\"%s\":", comma ? "," : "", k);
	buf_add_json_str(b, v, strlen(v));
}

/* Whether u may do at, by a review stored under key. 0 with *out
 * filled, or -1 when the upstream could not tell. */
static int review_access(struct proxy_authn *a, CURL **keep,
			 const struct user *u,
			 const struct proxy_authn_attrs *at,
			 const uint8_t key[32], struct decision *out)
{
	int64_t now = cache_rvclock_now_ms();
	/* taken before asking: a change while the review is under way
	 * leaves its answer stale at once */
	uint64_t epoch = __atomic_load_n(&a->epoch, __ATOMIC_ACQUIRE);
	struct decision *s = &a->decisions[slot(key, DECISIONS)];
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
	int st =
		buf_ok(&req) ?
			review(a, keep, CACHE_UPSTREAM_ACCESSREVIEW,
			       "/apis/authorization.k8s.io/v1/subjectaccessreviews",
			       &req, &body, &d) :
			-1;
	if (st > 0) {
		struct decision n = { .epoch = epoch };
		memcpy(n.key, key, 32);
		int t;
		n.allowed = is_true(&d, st, "allowed") &&
			    !is_true(&d, st, "denied");
		if ((t = json_get(&d, st, "reason")) > 0)
			json_str(&d, t, n.reason, sizeof(n.reason));
		snprintf(n.name, sizeof(n.name), "%s", u->name);
		n.expires_ms = now + (n.allowed ? a->allow_ms : a->deny_ms);
		if (n.expires_ms > u->expires_ms)
			n.expires_ms = u->expires_ms;
		pthread_mutex_lock(&a->dlock);
		/* a denial never takes the place of another live allowance */
		if (n.allowed || !s->allowed || s->expires_ms <= now ||
		    s->epoch != n.epoch || !memcmp(s->key, key, 32))
			decision_store(s, &n);
		pthread_mutex_unlock(&a->dlock);
		*out = n;
		rc = 0;
	}
	json_doc_free(&d);
	buf_free(&req);
	buf_free(&body);
	return rc;
}

/* The apiserver's words for a denied request (its forbiddenMessage, then
 * NewForbidden around it), and the Status details. */
static void forbidden_message(const char *user,
			      const struct proxy_authn_attrs *at,
			      const char *reason, char *msg, size_t len,
			      char *details, size_t dlen)
{
	char what[600];
	struct buf d = BUF_INIT;
	if (!at->resource) {
		snprintf(what, sizeof(what),
			 "User \"%s\" cannot %s path \"%s\"", user, at->verb,
			 at->path);
		snprintf(msg, len, "forbidden: %s%s%s", what,
			 reason[0] ? ": " : "", reason);
		snprintf(details, dlen, "{}");
		return;
	}
	char res[200];
	snprintf(res, sizeof(res), "%s%s%s", at->res, at->sub[0] ? "/" : "",
		 at->sub);
	if (at->ns[0])
		snprintf(what, sizeof(what),
			 "User \"%s\" cannot %s resource \"%s\" in API "
			 "group \"%s\" in the namespace \"%s\"",
			 user, at->verb, res, at->group, at->ns);
	else
		snprintf(what, sizeof(what),
			 "User \"%s\" cannot %s resource \"%s\" in API "
			 "group \"%s\" at the cluster scope",
			 user, at->verb, res, at->group);
	char qual[200];
	snprintf(qual, sizeof(qual), "%s%s%s", at->res, at->group[0] ? "." : "",
		 at->group);
	if (at->name[0])
		snprintf(msg, len, "%s \"%s\" is forbidden: %s%s%s", qual,
			 at->name, what, reason[0] ? ": " : "", reason);
	else
		snprintf(msg, len, "%s is forbidden: %s%s%s", qual, what,
			 reason[0] ? ": " : "", reason);
	buf_adds(&d, "{");
	if (at->name[0]) {
		buf_adds(&d, "\"name\":");
		buf_add_json_str(&d, at->name, strlen(at->name));
		buf_adds(&d, ",");
	}
	if (at->group[0]) {
		buf_adds(&d, "\"group\":");
		buf_add_json_str(&d, at->group, strlen(at->group));
		buf_adds(&d, ",");
	}
	buf_adds(&d, "\"kind\":");
	buf_add_json_str(&d, at->res, strlen(at->res));
	buf_adds(&d, "}");
	snprintf(details, dlen, "%s", buf_ok(&d) && d.len < dlen ? d.p : "{}");
	buf_free(&d);
}

/* The bearer token in an Authorization value, read as the apiserver's
 * bearer-token authenticator reads it: white space around the value is
 * dropped; then the scheme, "bearer" in any case, must be followed by
 * exactly one space, and the token runs to the next space or the end
 * ("Bearer  TOKEN", a tab, or "Bearer" alone carry none, and are
 * anonymous there). False when there is none or it is too long. */
bool proxy_authn_token_of(const char *authz, const char **tok, size_t *tlen)
{
	if (!authz)
		return false;
	size_t b = 0, e = strlen(authz);
	while (b < e && strchr(" \t\n\v\f\r", authz[b]))
		b++;
	while (e > b && strchr(" \t\n\v\f\r", authz[e - 1]))
		e--;
	if (e - b < 7 || strncasecmp(authz + b, "bearer ", 7))
		return false;
	const char *t = authz + b + 7;
	const char *sp = memchr(t, ' ', (size_t)(authz + e - t));
	size_t n = sp ? (size_t)(sp - t) : (size_t)(authz + e - t);
	*tok = t;
	*tlen = n;
	return n && n <= TOKEN_MAX;
}

/* The verdict for a request, from the caches, or (keep: on a reviewer,
 * its upstream handle) from reviews on a miss; PROXY_AUTHN_MISS when a
 * review is needed and may not be made here. */
static enum proxy_authn_verdict decide(struct proxy_authn *a, const char *authz,
				       const struct proxy_authn_attrs *at,
				       CURL **keep, char *msg, size_t msglen,
				       char *details, size_t dlen)
{
	msg[0] = details[0] = '\0';
	const char *tok;
	size_t tlen;
	if (!proxy_authn_token_of(authz, &tok, &tlen)) {
		PROXY_COUNT(authn_unauthenticated);
		return PROXY_AUTHN_UNAUTHENTICATED;
	}
	uint8_t tkey[32], dkey[32];
	char ak[8192];
	size_t akn = 0;
	struct decision dec;
	/* One digest on the hot path: the decision's key is the token and
	 * the attributes together. A decision is only ever stored for a
	 * token its review accepted, and expires with that review, so a hit
	 * needs nothing else. */
	if (at && (akn = attrs_key(at, ak + 1, sizeof(ak) - 1))) {
		ak[0] = '\n';
		/* no digest, no decision: a failed hash must never share a key */
		if (config_sha256(tok, tlen, ak, akn + 1, dkey))
			return PROXY_AUTHN_UNAVAILABLE;
		if (decision_cached(a, dkey, &dec)) {
			PROXY_COUNT(authn_access_hits);
			goto decided;
		}
	}
	if (config_sha256(tok, tlen, NULL, 0, tkey))
		return PROXY_AUTHN_UNAVAILABLE;
	struct user u;
	int rc = user_of(a, keep, tok, tlen, tkey, &u);
	if (rc)
		return rc == -EAGAIN ? PROXY_AUTHN_MISS :
				       PROXY_AUTHN_UNAVAILABLE;
	if (!u.ok) {
		PROXY_COUNT(authn_unauthenticated);
		return PROXY_AUTHN_UNAUTHENTICATED;
	}
	if (!at) {
		PROXY_COUNT(authn_allowed);
		return PROXY_AUTHN_ALLOWED;
	}
	if (!akn)
		return PROXY_AUTHN_UNAVAILABLE; /* attributes too long to ask about */
	if (!keep)
		return PROXY_AUTHN_MISS;
	PROXY_COUNT(authn_access_reviews);
	if (review_access(a, keep, &u, at, dkey, &dec))
		return PROXY_AUTHN_UNAVAILABLE;
decided:
	if (dec.allowed) {
		PROXY_COUNT(authn_allowed);
		return PROXY_AUTHN_ALLOWED;
	}
	PROXY_COUNT(authn_forbidden);
	forbidden_message(dec.name, at, dec.reason, msg, msglen, details, dlen);
	return PROXY_AUTHN_FORBIDDEN;
}

void proxy_authn_forget(struct proxy_authn *a, bool service_accounts)
{
	if (!a)
		return;
	if (service_accounts)
		__atomic_add_fetch(&a->sa_epoch, 1, __ATOMIC_ACQ_REL);
	__atomic_add_fetch(&a->epoch, 1, __ATOMIC_ACQ_REL);
	PROXY_COUNT(authn_forgotten);
}

enum proxy_authn_verdict proxy_authn_cached(struct proxy_authn *a,
					    const char *authz,
					    const struct proxy_authn_attrs *at,
					    char *msg, size_t msglen,
					    char *details, size_t dlen)
{
	return decide(a, authz, at, NULL, msg, msglen, details, dlen);
}

/* ---- reviews on worker threads ---- */

struct proxy_authn_job {
	struct proxy_authn_job *next; /* qlock */
	struct MHD_Connection *conn;
	char *authz; /* owned; wiped when freed */
	bool has_at;
	struct proxy_authn_attrs at; /* points into the arrays below */
	char verb[32], group[CACHE_KIND_GROUP_MAX],
		version[CACHE_KIND_VERSION_MAX], res[64], sub[64];
	char ns[256], name[256], path[256];
	enum proxy_authn_verdict verdict; /* qlock until done */
	char msg[1024], details[768];
	bool done, abandoned; /* qlock */
	int queue;	      /* KNOWN or STRANGER */
	struct source *src;   /* a STRANGER's; its waiting counts the job */
};

static void job_free(struct proxy_authn_job *j)
{
	if (!j)
		return;
	if (j->authz) {
		explicit_bzero(j->authz, strlen(j->authz));
		free(j->authz);
	}
	free(j);
}

static bool copy(char *dst, size_t cap, const char *s)
{
	size_t n = strlen(s);
	if (n >= cap)
		return false;
	memcpy(dst, s, n + 1);
	return true;
}

/* The next job for a reviewer: a known token's first; an unknown
 * one's while fewer than STRANGER_REVIEWERS reviewers are on one, so that
 * strangers never hold every reviewer. When stopping, anything. qlock. */
static struct proxy_authn_job *next_job(struct proxy_authn *a)
{
	int q = a->queue[KNOWN] ? KNOWN : STRANGER;
	if (q == STRANGER && !a->stop && a->on_strangers >= STRANGER_REVIEWERS)
		return NULL;
	struct proxy_authn_job *j = a->queue[q];
	if (!j)
		return NULL;
	a->queue[q] = j->next;
	if (!a->queue[q])
		a->qtail[q] = &a->queue[q];
	a->queued[q]--;
	if (q == STRANGER)
		a->on_strangers++;
	return j;
}

static void *reviewer(void *arg)
{
	struct proxy_authn *a = arg;
	CURL *keep = NULL; /* this thread's upstream connection, reused */
	pthread_mutex_lock(&a->qlock);
	for (;;) {
		struct proxy_authn_job *j;
		while (!(j = next_job(a)) && !a->stop)
			pthread_cond_wait(&a->qcond, &a->qlock);
		if (!j)
			break; /* stopping, and nothing left */
		bool stop = a->stop;
		pthread_mutex_unlock(&a->qlock);
		enum proxy_authn_verdict v =
			stop ? PROXY_AUTHN_UNAVAILABLE :
			       decide(a, j->authz, j->has_at ? &j->at : NULL,
				      &keep, j->msg, sizeof(j->msg), j->details,
				      sizeof(j->details));
		pthread_mutex_lock(&a->qlock);
		if (j->queue == STRANGER) {
			a->on_strangers--;
			j->src->waiting--;
			/* a stranger may wait for this reviewer's place */
			pthread_cond_signal(&a->qcond);
		}
		if (j->abandoned) {
			job_free(j);
			continue;
		}
		j->verdict = v;
		j->done = true;
		MHD_resume_connection(j->conn);
	}
	pthread_mutex_unlock(&a->qlock);
	if (keep)
		curl_easy_cleanup(keep);
	return NULL;
}

/* Whether the token in authz was accepted by a review, even one since
 * expired: its requests go to the KNOWN queue. */
static bool known(struct proxy_authn *a, const char *authz)
{
	const char *tok;
	size_t tlen;
	uint8_t key[32];
	if (!proxy_authn_token_of(authz, &tok, &tlen) ||
	    config_sha256(tok, tlen, NULL, 0, key))
		return false;
	const struct user *s = &a->users[slot(key, USERS)];
	pthread_mutex_lock(&a->ulock);
	bool k = !memcmp(s->key, key, 32) && s->ok;
	pthread_mutex_unlock(&a->ulock);
	return k;
}

void proxy_authn_user(struct proxy_authn *a, const char *authz, char *out,
		      size_t len)
{
	const char *tok;
	size_t tlen;
	uint8_t key[32];
	if (len)
		out[0] = '\0';
	if (!len || !authz || !proxy_authn_token_of(authz, &tok, &tlen) ||
	    config_sha256(tok, tlen, NULL, 0, key))
		return;
	const struct user *s = &a->users[slot(key, USERS)];
	pthread_mutex_lock(&a->ulock);
	if (!memcmp(s->key, key, 32) && s->ok)
		snprintf(out, len, "%s", s->name);
	pthread_mutex_unlock(&a->ulock);
}

/* The budget of c's client address: IPv4 by address, IPv6 by its /64 (one
 * host's usual share), anything else (a unix socket) as one. */
static struct source *source_of(struct proxy_authn *a, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;
	const uint8_t *p = NULL;
	size_t n = 0;
	if (sa && sa->sa_family == AF_INET) {
		p = (const uint8_t *)&((const struct sockaddr_in *)sa)
			    ->sin_addr;
		n = 4;
	} else if (sa && sa->sa_family == AF_INET6) {
		p = (const uint8_t *)&((const struct sockaddr_in6 *)sa)
			    ->sin6_addr;
		n = 8;
	}
	uint32_t h = a->seed ^ 2166136261u; /* FNV-1a */
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return &a->sources[h % SOURCES];
}

/* Take one review from src's bucket (rate a second, twice that in a
 * burst). qlock. */
static bool source_take(struct proxy_authn *a, struct source *src)
{
	int64_t now = cache_rvclock_now_ms();
	double burst = 2 * a->source_rate;
	if (!src->at_ms)
		src->tokens = burst;
	else
		src->tokens +=
			(double)(now - src->at_ms) * a->source_rate / 1000.0;
	if (src->tokens > burst)
		src->tokens = burst;
	src->at_ms = now;
	if (src->tokens < 1 || src->waiting >= SOURCE_WAITING)
		return false;
	src->tokens -= 1;
	return true;
}

struct proxy_authn_job *proxy_authn_start(struct proxy_authn *a,
					  struct MHD_Connection *c,
					  const char *authz,
					  const struct proxy_authn_attrs *at)
{
	struct proxy_authn_job *j = xcalloc(1, sizeof(*j));
	if (!j)
		return NULL;
	j->conn = c;
	j->authz = xstrdup(authz ? authz : "");
	if (at) {
		j->has_at = true;
		j->at = (struct proxy_authn_attrs){ .resource = at->resource,
						    .verb = j->verb,
						    .group = j->group,
						    .version = j->version,
						    .res = j->res,
						    .sub = j->sub,
						    .ns = j->ns,
						    .name = j->name,
						    .path = j->path };
		if (!copy(j->verb, sizeof(j->verb), at->verb) ||
		    !copy(j->group, sizeof(j->group), at->group) ||
		    !copy(j->version, sizeof(j->version), at->version) ||
		    !copy(j->res, sizeof(j->res), at->res) ||
		    !copy(j->sub, sizeof(j->sub), at->sub) ||
		    !copy(j->ns, sizeof(j->ns), at->ns) ||
		    !copy(j->name, sizeof(j->name), at->name) ||
		    !copy(j->path, sizeof(j->path), at->path)) {
			job_free(j);
			return NULL;
		}
	}
	if (!j->authz) {
		job_free(j);
		return NULL;
	}
	int q = j->queue = known(a, authz) ? KNOWN : STRANGER;
	pthread_mutex_lock(&a->qlock);
	if (a->stop || !a->nworkers ||
	    a->queued[q] >= (q == KNOWN ? QUEUE_MAX : STRANGERS_MAX) ||
	    (q == STRANGER && !source_take(a, j->src = source_of(a, c)))) {
		pthread_mutex_unlock(&a->qlock);
		job_free(j);
		PROXY_COUNT(authn_throttled);
		return NULL;
	}
	if (q == STRANGER)
		j->src->waiting++;
	/* suspended before any worker can see it, so its resume comes after */
	MHD_suspend_connection(c);
	*a->qtail[q] = j;
	a->qtail[q] = &j->next;
	a->queued[q]++;
	pthread_cond_signal(&a->qcond);
	pthread_mutex_unlock(&a->qlock);
	return j;
}

enum proxy_authn_verdict proxy_authn_finish(struct proxy_authn *a,
					    struct proxy_authn_job *j,
					    char *msg, size_t msglen,
					    char *details, size_t dlen)
{
	pthread_mutex_lock(&a->qlock);
	enum proxy_authn_verdict v =
		j->done ? j->verdict : PROXY_AUTHN_UNAVAILABLE;
	pthread_mutex_unlock(&a->qlock);
	snprintf(msg, msglen, "%s", j->msg);
	snprintf(details, dlen, "%s", j->details);
	job_free(j);
	return v;
}

void proxy_authn_abandon(struct proxy_authn *a, struct proxy_authn_job *j)
{
	pthread_mutex_lock(&a->qlock);
	bool done = j->done;
	j->abandoned = true;
	pthread_mutex_unlock(&a->qlock);
	if (done)
		job_free(j);
}

void proxy_authn_stop(struct proxy_authn *a)
{
	if (!a)
		return;
	pthread_mutex_lock(&a->qlock);
	__atomic_store_n(&a->stop, true, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&a->qcond);
	pthread_mutex_unlock(&a->qlock);
	for (int i = 0; i < a->nworkers; i++)
		pthread_join(a->workers[i], NULL);
	a->nworkers = 0;
}
