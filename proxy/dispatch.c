/*
 * dispatch: what happens to each request (see dispatch.h).
 */
#include "proxy/dispatch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/pb_kinds.h"
#include "cache/scope.h"
#include "config/alloc.h"
#include "config/log.h"
#include "proxy/discovery.h"
#include "proxy/fresh.h"
#include "proxy/front/access.h"
#include "proxy/front/authn.h"
#include "proxy/front/conns.h"
#include "proxy/front/origin.h"
#include "proxy/front/reqinfo.h"
#include "proxy/front/target.h"
#include "proxy/front/tls.h"
#include "proxy/health.h"
#include "proxy/list.h"
#include "proxy/metrics.h"
#include "proxy/observe.h"
#include "proxy/pass/forward.h"
#include "proxy/pass/pass.h"
#include "proxy/pass/upgrade.h"
#include "proxy/protobuf.h"
#include "proxy/reply.h"
#include "proxy/rv.h"
#include "proxy/status.h"
#include "proxy/watch.h"

/* watch=... is true for any value but "0" and "false" (any case), an
 * empty value included, as the apiserver reads it, and only on a
 * collection: a named object's path is served by the apiserver's GET
 * handler, which ignores ?watch (RequestInfo calls it "get" too). The
 * one watch of a single object is the collection's with
 * fieldSelector=metadata.name=NAME, or the legacy /watch/.../NAME. */
static bool is_watch(struct MHD_Connection *c, const struct proxy_route *rt)
{
	const char *v = NULL;
	return rt->watch_prefix ||
	       (!rt->name[0] && proxy_request_arg(c, "watch", &v) &&
		proxy_reqinfo_watch_value(v));
}

/* The paths a health probe or a scraper asks for: served on the
 * connection reserve, past --max-connections. */
static bool health_path(const char *path)
{
	return proxy_health_path(path) || !strcmp(path, "/metrics");
}

/* What the request's Accept negotiates for a read of r (protobuf.h). */
static enum proxy_pb_form pb_form(struct MHD_Connection *c,
				  const struct cache_resource *r)
{
	const char *ver;
	if (!r)
		return PROXY_PB_NONE;
	return proxy_pb_negotiate(
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept"),
		cache_kind_typed(r->kind), &ver);
}

/* Whether the protobuf schema has kind k. */
static bool pb_kind_known(const struct cache_kind *k)
{
	char apiv[CACHE_KIND_API_VERSION_MAX];
	cache_kind_api_version(k, apiv, sizeof(apiv));
	return pb_kinds_find(apiv, k->kind) != NULL;
}

/* A request the cache answers: the health paths, and GET of a cached
 * resource's collection or object. Everything else is passed through.
 * Decided once, on the first call of the access handler. *res: the
 * cached resource it reads (NULL: none), whose shape an answer forwarded
 * after all must take; *scoped: a read of a scoped cache, counted as
 * served once the cache has answered it. */
static bool served_locally(struct proxy *p, struct MHD_Connection *c,
			   const char *url, const char *method, int pr,
			   struct proxy_route *rt, struct cache_resource **res,
			   bool *scoped)
{
	*res = NULL;
	*scoped = false;
	if (health_path(url))
		return true;
	if (proxy_upgrade_wanted(c)) /* exec, attach, port-forward: upstream */
		return false;
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return false;
	if (proxy_discovery_path(url))
		return p->disc && proxy_discovery_has(p->disc, c, url);
	if (pr == -EINVAL)
		return true; /* answered with 400 below */
	struct cache_resource *r = pr ? NULL : proxy_find(p, rt);
	if (!r && !pr && !rt->sub[0] && proxy_find_kind(p, rt)) {
		/* another namespace, or all of them, of a namespaced cache */
		proxy_metrics_scope_count(proxy_find_kind(p, rt), false);
		return false;
	}
	if (!r || rt->sub[0] || (!r->kind->namespaced && rt->ns[0]))
		return false;
	*res = r;
	if (!cache_scope_unselected(&r->scope)) {
		const char *ls = NULL, *fs = NULL;
		proxy_request_arg(c, "labelSelector", &ls);
		proxy_request_arg(c, "fieldSelector", &fs);
		/* a GET by name is answered when the object is cached, and
		 * passed through when not (list.c): it may lie outside */
		if (!rt->name[0] && !cache_scope_covers(&r->scope, ls, fs)) {
			proxy_metrics_scope_count(r, false);
			return false;
		}
	}
	/* Protobuf for a kind whose schema the encoder lacks: upstream. */
	if (pb_form(c, r) == PROXY_PB_OBJECT && !pb_kind_known(r->kind)) {
		proxy_metrics_pb_pass(r, -ENOSYS);
		return false;
	}
	*scoped = !rt->name[0] &&
		  (r->scope.ns || !cache_scope_unselected(&r->scope));
	return true;
}

static enum MHD_Result route(struct proxy *p, struct MHD_Connection *c,
			     const char *url, struct proxy_fresh_req *req)
{
	if (proxy_health_path(url))
		return proxy_health_handle(p, c, url);
	if (!strcmp(url, "/metrics"))
		return proxy_metrics_handle(p, c);
	if (proxy_discovery_path(url)) {
		PROXY_COUNT(req_discovery);
		int h = proxy_discovery_serve(p->disc, c, url);
		if (h >= 0)
			return (enum MHD_Result)h;
		/* the set changed since the request was routed */
		return proxy_reply_error(
			c, PROXY_ServiceUnavailable,
			"discovery is being refreshed, please try again");
	}
	struct proxy_route rt;
	if (proxy_route_parse(url, &rt))
		return proxy_reply_error(c, PROXY_BadRequest,
					 "invalid request path");
	/* Every answer from here on, errors included, is in the encoding
	 * the request negotiated: protobuf, or the JSON path's. */
	enum proxy_pb_form pf = pb_form(c, proxy_find(p, &rt));
	proxy_reply_set_protobuf(pf);
	if (pf == PROXY_PB_REFUSED) /* a custom resource has no protobuf */
		return proxy_reply_error(
			c, PROXY_NotAcceptable,
			"only the following media types are accepted: "
			"application/json, application/yaml, "
			"application/vnd.kubernetes.protobuf");
	/* ListOptions are decoded before anything else is looked at */
	char bad[256];
	if ((!rt.name[0] || is_watch(c, &rt)) &&
	    proxy_request_check_ints(c, bad, sizeof(bad)))
		return proxy_reply_error(c, PROXY_BadRequest, "%s", bad);
	struct cache_resource *r = proxy_find(p, &rt);
	if (!cache_resource_synced(r)) {
		PROXY_COUNT(req_not_synced);
		return proxy_reply_too_many(
			c,
			"the cache of %s is not synced yet, "
			"please try again later",
			r->kind->resource);
	}
	if (is_watch(c, &rt)) {
		int pe = pf == PROXY_PB_OBJECT ? proxy_pb_check_watch(r) : 0;
		if (pe == -ENOMEM)
			return MHD_NO;
		if (pe) { /* never with a field dropped: the upstream's */
			proxy_metrics_pb_pass(r, pe);
			req->upstream = true;
			return MHD_YES;
		}
		if (!req->waited)
			PROXY_COUNT(req_watch);
		/* A watch without resourceVersion starts at the most recent
		 * state: as fresh as the upstream, like an RV-less LIST (the
		 * apiserver waits for its watch cache to catch up too). */
		const char *rv = NULL, *match = NULL, *sie = NULL;
		struct proxy_rv_watch wq;
		enum MHD_Result res;
		char msg[512];
		proxy_request_arg(c, "resourceVersion", &rv);
		proxy_request_arg(c, "resourceVersionMatch", &match);
		proxy_request_arg(c, "sendInitialEvents", &sie);
		/* errors are the watch handler's to answer, at once */
		if (proxy_rv_parse_watch(rv, match, sie, &wq, msg,
					 sizeof(msg)) != PROXY_RV_OK)
			return proxy_watch_handle(p, c, r, &rt);
		struct proxy_rv_req q = { 0 };
		if (!wq.has_rv &&
		    proxy_fresh_await(p->fresh, c, r, &q, true, req, &res))
			return res;
		/* A watch-list from resourceVersion=N (NotOlderThan) takes its
		 * initial state at N or later: N as a LIST's (the upstream
		 * answers when the cache has not reached it). */
		q.rv = wq.rv;
		if (wq.rv && wq.list &&
		    proxy_fresh_await(p->fresh, c, r, &q, true, req, &res))
			return res;
		return proxy_watch_handle(p, c, r, &rt);
	}
	/* count a read once, not again when resumed */
	if (!req->waited && !req->encoded)
		rt.name[0] ? PROXY_COUNT(req_get) : PROXY_COUNT(req_list);
	if (rt.name[0])
		return proxy_list_get(p, c, r, &rt, req);
	return proxy_list_handle(p, c, r, &rt, req);
}

/*
 * --client-auth=none, TCP listener: a request whose Host is not one of
 * --accept-hosts, or that carries an Origin not in --accept-origins, is
 * what a browser sends after DNS rebinding: 403 before anything else.
 * The probe paths and /metrics act with no identity and are answered
 * whatever the Host (kubelet probes send the pod IP); the unix socket no
 * browser can reach. Returns true after queueing the answer in *ret.
 */
static bool origin_gate(struct proxy *p, struct MHD_Connection *c,
			const char *path, enum MHD_Result *ret)
{
	if (!p->origin || health_path(path))
		return false;
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_DAEMON);
	if (ci && ci->daemon && ci->daemon == p->udaemon)
		return false;
	const char *host =
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");
	const char *origin =
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
	if (!proxy_origin_host_ok(p->origin, host)) {
		*ret = proxy_reply_error(
			c, PROXY_Forbidden,
			"this proxy does not serve the host in the Host header; "
			"allow it with --accept-hosts");
		return true;
	}
	if (!proxy_origin_origin_ok(p->origin, origin)) {
		*ret = proxy_reply_error(
			c, PROXY_Forbidden,
			"this proxy does not serve requests from a web page of "
			"this origin; allow it with --accept-origins");
		return true;
	}
	return false;
}

/* Per request, *state is a struct req: a local one (the cache answers)
 * or a passthrough one. */
struct req {
	bool announced;		     /* the first call has been seen */
	struct proxy_authn_job *job; /* a delegated-auth review under way */
	bool local;
	struct proxy_fresh_req lr;
	struct proxy_pass *pass;	 /* a passed-through request's */
	struct proxy_upgrade *upgrading; /* an upgrade request's */
	bool upgrade;	  /* the request asks for Connection: Upgrade */
	char *raw;	  /* the request target as received */
	char *path;	  /* its checked, decoded path (target.h);
					 * never longer than raw */
	int64_t start_ns; /* monotonic, for the duration histogram */
	int verb, slot;	  /* its labels there; slot -1: not counted */
	char method[16];  /* for the access log */
	bool routed;	  /* the cache's handlers answered (access log) */
	struct cache_resource *res; /* the cached resource read, or NULL */
	bool scoped;		    /* a read of a scoped cache */
	uint64_t sent_before; /* the connection's bytes sent at its start */
};

/* libmicrohttpd shows us the request target before its own parsing. */
void *proxy_dispatch_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct req *rq = xcalloc(1, sizeof(*rq));
	size_t n = strlen(uri ? uri : "") + 1;
	if (!rq)
		return NULL;
	rq->raw = xmalloc(2 * n); /* the target, then room for its path */
	if (!rq->raw) {
		free(rq);
		return NULL;
	}
	memcpy(rq->raw, uri ? uri : "", n);
	rq->path = rq->raw + n;
	rq->path[0] = '\0';
	rq->start_ns = cache_history_now_ns();
	rq->slot = -1;
	rq->sent_before = proxy_access_sent(c);
	return rq;
}

static void req_free(struct req *rq)
{
	if (!rq)
		return;
	free(rq->raw);
	free(rq);
}

/* What a request asks for, as the apiserver's RequestInfo reads it
 * (reqinfo.h); false when a part is too long to ask about. */
static bool request_attrs(struct MHD_Connection *c, const char *path,
			  const char *method, struct proxy_reqinfo *ri,
			  struct proxy_authn_attrs *at)
{
	char bad[8];
	struct proxy_reqinfo_query q = { 0 };
	proxy_request_arg(c, "watch", &q.watch);
	proxy_request_arg(c, "fieldSelector", &q.field_selector);
	q.options_bad = proxy_request_check_ints(c, bad, sizeof(bad)) != 0;
	if (proxy_reqinfo_parse(method, path, &q, ri))
		return false;
	*at = (struct proxy_authn_attrs){
		.resource = ri->resource,
		.verb = ri->verb,
		.group = ri->group,
		.version = ri->version,
		.res = ri->res,
		.sub = ri->sub,
		.ns = ri->ns,
		.name = ri->name,
		.path = ri->resource ? "" : ri->path,
	};
	return true;
}

/* Answer a delegated-auth verdict; true when answered (*ret set), false
 * for a request that may go on. */
static bool answer_verdict(struct MHD_Connection *c, enum proxy_authn_verdict v,
			   const char *msg, const char *details,
			   enum MHD_Result *ret)
{
	struct proxy_status st = { .reason = PROXY_ServiceUnavailable };
	switch (v) {
	case PROXY_AUTHN_ALLOWED:
		return false;
	case PROXY_AUTHN_UNAUTHENTICATED:
		*ret = proxy_reply_error(c, PROXY_Unauthorized, "Unauthorized");
		return true;
	case PROXY_AUTHN_FORBIDDEN:
		st.reason = PROXY_Forbidden;
		st.message = msg;
		st.details = details[0] ? details : NULL;
		break;
	case PROXY_AUTHN_MISS: /* no review could be queued */
		st.reason = PROXY_TooManyRequests;
		st.retry_after = 1;
		st.details = "{\"retryAfterSeconds\":1}";
		st.message =
			"too many requests are waiting for their credentials to "
			"be reviewed upstream, please try again later";
		break;
	default:
		st.retry_after = 1;
		st.message =
			"the upstream could not review this request's credentials, "
			"please try again";
		break;
	}
	*ret = proxy_reply_status(c, &st);
	return true;
}

/*
 * --client-auth=delegated, on a request's first call: health checks pass;
 * every other request needs a bearer token the upstream knows (401);
 * what the cache answers needs a SubjectAccessReview's yes (403), except
 * discovery, which needs only authentication. What is passed through is
 * authorized by the upstream itself, with the client's own token; so is
 * any request that asks to impersonate (the cache cannot). Its token
 * must still be known good (a TokenReview), before its body is read: a
 * stranger cannot make the proxy read or forward a body. A decision
 * the caches do not hold is reviewed on a reviewer thread while the
 * connection is suspended (rq->job). Returns true after queueing an
 * answer in *ret, or suspending (*ret MHD_YES).
 */
static bool delegated_gate(struct proxy *p, struct MHD_Connection *c,
			   struct req *rq, const char *method,
			   enum MHD_Result *ret)
{
	const char *path = rq->path;
	if (proxy_health_path(path))
		return false;
	const char *authz = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							"Authorization");
	bool impersonate = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						       "Impersonate-User") ||
			   MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						       "Impersonate-Group") ||
			   MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						       "Impersonate-Uid");
	if (impersonate && rq->local && strcmp(path, "/metrics"))
		rq->local = false;
	char msg[1024], details[768];
	struct proxy_authn_attrs at;
	struct proxy_reqinfo ri;
	const struct proxy_authn_attrs *ask = NULL;
	if (!rq->local) {
		/* authenticated here; the upstream authorizes, on the
		 * client's own token */
	} else if (!strcmp(path, "/metrics")) {
		at = (struct proxy_authn_attrs){ .resource = false,
						 .verb = "get",
						 .group = "",
						 .version = "",
						 .res = "",
						 .sub = "",
						 .ns = "",
						 .name = "",
						 .path = "/metrics" };
		ask = &at;
	} else if (!proxy_discovery_path(path)) {
		if (!request_attrs(c, path, method, &ri, &at)) {
			*ret = proxy_reply_error(c, PROXY_BadRequest,
						 "invalid request path");
			return true;
		}
		ask = &at;
	}
	enum proxy_authn_verdict v =
		proxy_authn_cached(p->authn, authz, ask, msg, sizeof(msg),
				   details, sizeof(details));
	if (v == PROXY_AUTHN_MISS &&
	    (rq->job = proxy_authn_start(p->authn, c, authz, ask))) {
		*ret = MHD_YES;
		return true;
	}
	return answer_verdict(c, v, msg, details, ret);
}

static enum MHD_Result handle(struct proxy *p, struct MHD_Connection *c,
			      const char *method, const char *upload,
			      size_t *upload_size, struct req *rq)
{
	char err[160];
	if (!rq || !rq->announced)
		proxy_conns_header_done(c); /* no slowloris, whatever comes */
	if (!rq || !rq->raw)
		return MHD_NO; /* out of memory in on_uri */
	if (!rq->announced) {
		/* The first call only announces the request. */
		rq->announced = true;
		size_t ml = strnlen(method, sizeof(rq->method) - 1);
		memcpy(rq->method, method, ml);
		rq->method[ml] = '\0';
		/* counted as "none" until the target is known good */
		rq->verb = config_histogram_verb_slot(method, true, false);
		rq->slot = 0;
		bool reserved = proxy_conns_reserved(c);
		if (proxy_target_check(rq->raw, rq->path, strlen(rq->raw) + 1,
				       err, sizeof(err))) {
			rq->local = true;
			return proxy_reply_error(c, PROXY_BadRequest, "%s",
						 err);
		}
		if (p->tls) { /* a suite mixed from the list's parts */
			const union MHD_ConnectionInfo *ti =
				MHD_get_connection_info(
					c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
			if (ti && !proxy_tls_suite_ok(p->tls, ti->tls_session))
				return MHD_NO;
		}
		/* libmicrohttpd keeps "Content-Length : 5" as a header
		 * named "Content-Length ": never passed on, where it
		 * could mean something else to the upstream */
		if (!proxy_forward_names_ok(c)) {
			rq->local = true;
			return proxy_reply_error(c, PROXY_BadRequest,
						 "invalid header name");
		}
		enum MHD_Result denied;
		if (origin_gate(p, c, rq->path, &denied)) {
			rq->local = true;
			return denied;
		}
		/* On the reserve past --max-connections only probes are served,
		 * and the connection closed after; anyone else is told to come
		 * back, and the connection freed. */
		if (!health_path(rq->path) &&
		    (reserved || proxy_conns_over(p->conns))) {
			PROXY_COUNT(refused_connections);
			rq->local = true;
			return proxy_conns_refuse(c, "connections",
						  proxy_conns_max(p->conns));
		}
		/* the route parsed once for the three */
		struct proxy_route rt;
		int pr = proxy_route_parse(rq->path, &rt);
		rq->verb = proxy_pass_verb_of(pr ? NULL : &rt, method, c);
		rq->slot = proxy_observe_slot(p, pr ? NULL : &rt);
		rq->local = served_locally(p, c, rq->path, method, pr, &rt,
					   &rq->res, &rq->scoped);
		enum MHD_Result ret;
		if (p->authn && delegated_gate(p, c, rq, method, &ret))
			return ret;
		if (rq->local)
			return MHD_YES;
		PROXY_COUNT(req_passthrough);
		rq->upgrade = proxy_upgrade_wanted(c);
	} else if (rq->job) { /* resumed: its review is in */
		char msg[1024], details[768];
		enum MHD_Result ret;
		enum proxy_authn_verdict v =
			proxy_authn_finish(p->authn, rq->job, msg, sizeof(msg),
					   details, sizeof(details));
		rq->job = NULL;
		if (answer_verdict(c, v, msg, details, &ret))
			return ret;
		if (!rq->local) { /* as on a first call, now allowed */
			PROXY_COUNT(req_passthrough);
			rq->upgrade = proxy_upgrade_wanted(c);
			if (!rq->upgrade && !rq->pass) {
				ret = proxy_pass_handle(
					p->pass, c, rq->raw, method, NULL,
					&(size_t){ 0 }, &rq->pass);
				if (ret != MHD_YES || !rq->pass)
					return ret;
			}
		}
	}
	if (rq->upgrade)
		return proxy_upgrade_handle(p->upgrade, c, rq->raw, method,
					    upload_size, &rq->upgrading);
	if (rq->local) {
		if (*upload_size) { /* a GET body: read and ignore it */
			*upload_size = 0;
			return MHD_YES;
		}
		log_v(3, "%s %s", method, rq->path);
		rq->routed = true;
		proxy_reply_set_head(!strcmp(method, "HEAD"));
		proxy_reply_set_ahead(p->ahead);
		enum MHD_Result ret = route(p, c, rq->path, &rq->lr);
		proxy_reply_set_head(false);
		proxy_reply_set_ahead(NULL);
		proxy_reply_set_protobuf(PROXY_PB_NONE);
		if (!rq->lr.upstream)
			return ret;
		/* A read the cache cannot prove fresh: the upstream answers
		 * it, exactly as a passthrough request (created, then
		 * started, in one go: a GET has no body to wait for). */
		rq->local = false;
		ret = proxy_pass_handle(p->pass, c, rq->raw, method, upload,
					upload_size, &rq->pass);
		if (ret != MHD_YES || !rq->pass)
			return ret;
		/* the same objects whichever path answered; a watch-list
		 * streams as it comes (shaping reads a body whole) */
		if (rq->res && !rq->lr.wait.watch &&
		    proxy_pass_shape(rq->pass, &rq->res->scope,
				     rq->res->scope.strip_managed ||
					     rq->res->up.strip_managed_fields))
			return MHD_NO;
	}
	return proxy_pass_handle(p->pass, c, rq->raw, method, upload,
				 upload_size, &rq->pass);
}

/* A request body's deadline, as the apiserver's read timeout: from
 * its header, the whole body is due within --request-body-timeout
 * (conns.c cuts it off after); however slowly it trickles in, a client
 * keeps a connection and an upstream request no longer. */
static bool announces_body(struct MHD_Connection *c)
{
	const char *te = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						     "Transfer-Encoding");
	const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						     "Content-Length");
	return te || (cl && strtoll(cl, NULL, 10) > 0);
}

enum MHD_Result proxy_dispatch_request(void *cls, struct MHD_Connection *c,
				       const char *url, const char *method,
				       const char *version, const char *upload,
				       size_t *upload_size, void **state)
{
	struct proxy *p = cls;
	struct req *rq = *state;
	bool first = !rq || !rq->announced;
	size_t offered = *upload_size;
	proxy_watch_set_http11(version &&
			       !strcmp(version, MHD_HTTP_VERSION_1_1));
	enum MHD_Result ret = handle(p, c, method, upload, upload_size, rq);
	if (rq && !rq->upgrade && (first || !offered))
		proxy_conns_body(p->conns, c, first && announces_body(c));
	return ret;
}

void proxy_dispatch_completed(void *cls, struct MHD_Connection *c, void **state,
			      enum MHD_RequestTerminationCode toe)
{
	struct proxy *p = cls;
	struct req *rq = *state;
	proxy_conns_request_done(p->conns, c);
	if (!rq)
		return;
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_HTTP_STATUS);
	int64_t took = cache_history_now_ns() - rq->start_ns;
	if (rq->slot >= 0 && ci && ci->http_status)
		proxy_observe_request(p, rq->verb, rq->slot, ci->http_status,
				      took);
	if (log_enabled(2)) {
		char user[256] = "";
		if (p->authn)
			proxy_authn_user(
				p->authn,
				MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							    "Authorization"),
				user, sizeof(user));
		proxy_access_log(c, rq->method[0] ? rq->method : "-", rq->raw,
				 ci ? ci->http_status : 0, took,
				 rq->sent_before,
				 rq->pass || rq->upgrading ? "upstream" :
				 rq->routed		   ? "cache" :
							     "proxy",
				 user[0] ? user : NULL);
	}
	/* served from the scoped cache: counted once answered, as a read
	 * forwarded after all (rq->local cleared) is not the cache's */
	if (rq->scoped && rq->local && ci && ci->http_status)
		proxy_metrics_scope_count(rq->res, true);
	if (rq->lr.wait.queued)
		proxy_fresh_cancel(p->fresh, &rq->lr.wait);
	if (rq->job)
		proxy_authn_abandon(p->authn, rq->job);
	proxy_pass_done(rq->pass);
	proxy_upgrade_done(rq->upgrading);
	req_free(rq);
	*state = NULL;
}

size_t proxy_dispatch_unescape(void *cls, struct MHD_Connection *c, char *s)
{
	char *w = s;
	for (char *r = s; *r; r++) {
		if (*r == '+') {
			*w++ = ' ';
		} else if (*r == '%' && buf_hexval(r[1]) >= 0 &&
			   buf_hexval(r[2]) >= 0) {
			*w++ = (char)(buf_hexval(r[1]) * 16 + buf_hexval(r[2]));
			r += 2;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
	return (size_t)(w - s);
}
