/*
 * server: the libmicrohttpd daemon and request routing (see server.h).
 */
#include "proxy/server.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cache/json.h"
#include "cache/parse.h"
#include "cache/pb_kinds.h"
#include "cache/scope.h"
#include "config/alloc.h"
#include "config/limits.h"
#include "config/log.h"
#include "proxy/front/access.h"
#include "proxy/front/authn.h"
#include "proxy/front/reqinfo.h"
#include "proxy/front/revoke.h"
#include "proxy/front/conns.h"
#include "proxy/discovery.h"
#include "proxy/fanout.h"
#include "proxy/fresh.h"
#include "proxy/health.h"
#include "proxy/list.h"
#include "proxy/front/listen.h"
#include "proxy/front/origin.h"
#include "proxy/metrics.h"
#include "proxy/observe.h"
#include "proxy/reply.h"
#include "proxy/pass/forward.h"
#include "proxy/pass/pass.h"
#include "proxy/rv.h"
#include "proxy/front/tls.h"
#include "proxy/status.h"
#include "proxy/front/target.h"
#include "proxy/pass/upgrade.h"
#include "proxy/protobuf.h"
#include "proxy/watch.h"

#define TICK_MS 500
#define GIVE_BACK_S 10 /* how often expired pins go, and freed memory back */

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
	char apiv[160];
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
			   const char *url, const char *method,
			   struct cache_resource **res, bool *scoped)
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
	struct proxy_route rt;
	int pr = proxy_route_parse(url, &rt);
	if (pr == -EINVAL)
		return true; /* answered with 400 below */
	struct cache_resource *r = pr ? NULL : proxy_find(p, &rt);
	if (!r && !pr && !rt.sub[0] && proxy_find_kind(p, &rt)) {
		/* another namespace, or all of them, of a namespaced cache */
		proxy_metrics_scope_count(proxy_find_kind(p, &rt), false);
		return false;
	}
	if (!r || rt.sub[0] || (!r->kind->namespaced && rt.ns[0]))
		return false;
	*res = r;
	if (!cache_scope_unselected(&r->scope)) {
		const char *ls = NULL, *fs = NULL;
		proxy_request_arg(c, "labelSelector", &ls);
		proxy_request_arg(c, "fieldSelector", &fs);
		/* a GET by name is answered when the object is cached, and
		 * passed through when not (list.c): it may lie outside */
		if (!rt.name[0] && !cache_scope_covers(&r->scope, ls, fs)) {
			proxy_metrics_scope_count(r, false);
			return false;
		}
	}
	/* Protobuf for a kind whose schema the encoder lacks: upstream. */
	if (pb_form(c, r) == PROXY_PB_OBJECT && !pb_kind_known(r->kind)) {
		proxy_metrics_pb_pass(r, -ENOSYS);
		return false;
	}
	*scoped = !rt.name[0] &&
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
	if (!req->waited) /* count a read once, not again when resumed */
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

/* libmicrohttpd shows us the request target as it came on the request
 * line, before its own parsing: keep it, for target.c's checks and for
 * forwarding it unchanged. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
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
		snprintf(rq->method, sizeof(rq->method), "%s", method);
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
		rq->verb = proxy_pass_verb(rq->path, method, c);
		rq->slot = proxy_observe_slot(p, rq->path);
		rq->local = served_locally(p, c, rq->path, method, &rq->res,
					   &rq->scoped);
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
		enum MHD_Result ret = route(p, c, rq->path, &rq->lr);
		proxy_reply_set_head(false);
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

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
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

static void on_completed(void *cls, struct MHD_Connection *c, void **state,
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

/* Query strings: %XX and '+' (a space, as Go's url.ParseQuery reads it). */
static size_t unescape(void *cls, struct MHD_Connection *c, char *s)
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

static void *ticker(void *arg)
{
	struct proxy *p = arg;
	unsigned long ticks = 0;
	pthread_mutex_lock(&p->tick_lock);
	while (!proxy_stopping(p)) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += TICK_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&p->tick_cond, &p->tick_lock, &ts);
		for (int i = 0, n = proxy_nres(p); i < n; i++)
			cache_history_wake_all(p->res[i]->history);
		proxy_fresh_tick(p->fresh);
		int slow = 0;
		for (int cut = proxy_conns_reap(p->conns, &slow); cut > 0;
		     cut--)
			PROXY_COUNT(header_timeouts);
		for (; slow > 0; slow--)
			PROXY_COUNT(body_timeouts);
		if (++ticks % (GIVE_BACK_S * 1000 / TICK_MS) == 0) {
			/* expired pins first: what they held is then free */
			for (int i = 0, n = proxy_nres(p); i < n; i++)
				cache_store_expire_pins(p->res[i]->store);
			alloc_give_back();
		}
	}
	pthread_mutex_unlock(&p->tick_lock);
	return NULL;
}

static void on_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	size_t n = strlen(msg);
	while (n && msg[n - 1] == '\n')
		msg[--n] = '\0';
	log_v(1, "libmicrohttpd: %s", msg);
}

/* One libmicrohttpd daemon over addr, or over the listening socket fd;
 * HTTPS when tls is not NULL. Both daemons count their connections in
 * p->conns together. libmicrohttpd's idle timeout is --idle-timeout: a
 * watch with nothing to send is suspended and resumed by the ticker
 * twice a second, which restarts it, so only a watch whose client has
 * stopped reading is idle; so is a passthrough one (resumed every
 * second). */
static struct MHD_Daemon *start_daemon(struct proxy *p, struct sockaddr *addr,
				       int fd, unsigned threads, unsigned flags,
				       struct proxy_tls *tls)
{
	struct MHD_OptionItem tls_opts[PROXY_TLS_NOPTS];
	flags |= proxy_tls_daemon_options(tls, tls_opts);
	return MHD_start_daemon(
		MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME |
			(proxy_upgrade_supported() ? MHD_ALLOW_UPGRADE : 0) |
			MHD_USE_ERROR_LOG | flags,
		0, NULL, NULL, on_request, p, MHD_OPTION_EXTERNAL_LOGGER,
		on_log, NULL,
		addr ? MHD_OPTION_SOCK_ADDR : MHD_OPTION_LISTEN_SOCKET,
		addr ? (intptr_t)addr : (intptr_t)fd,
		MHD_OPTION_THREAD_POOL_SIZE, threads,
		MHD_OPTION_CONNECTION_LIMIT, proxy_conns_limit(p->conns),
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)p->cfg->idle_timeout,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT,
		(size_t)(p->cfg->connection_memory > 0 ?
				 p->cfg->connection_memory :
				 LIMIT_CONNECTION_MEMORY_KIB) *
			1024,
		MHD_OPTION_NOTIFY_CONNECTION, proxy_conns_notify, p->conns,
		MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, p,
		MHD_OPTION_URI_LOG_CALLBACK, on_uri, NULL, MHD_OPTION_ARRAY,
		tls_opts, MHD_OPTION_END);
}

/*
 * --metrics-listen: /metrics and the probes, nothing else. No request
 * reaches the upstream or the cache's API from here, and none carries
 * an identity (no credentials are read or forwarded), so it may listen
 * where a scraper reaches it (a pod IP). Its connections are its own
 * (MHD's limit, not --max-connections): a saturated API port leaves
 * scraping and probing alone. A request is answered on its last call,
 * once any body has been read and dropped.
 */
static enum MHD_Result on_metrics_request(void *cls, struct MHD_Connection *c,
					  const char *url, const char *method,
					  const char *version,
					  const char *upload,
					  size_t *upload_size, void **state)
{
	static int seen;
	struct proxy *p = cls;
	if (!*state) {
		*state = &seen;
		return MHD_YES;
	}
	if (*upload_size) {
		*upload_size = 0;
		return MHD_YES;
	}
	bool known = !strcmp(url, "/metrics") || proxy_health_path(url);
	if (!known)
		return proxy_reply_error(c, PROXY_NotFound,
					 "the server could not find the "
					 "requested resource");
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return proxy_reply_error(c, PROXY_MethodNotAllowed,
					 "the server does not allow this "
					 "method on the requested resource");
	if (!strcmp(url, "/metrics"))
		return proxy_metrics_handle(p, c);
	return proxy_health_handle(p, c, url);
}

/* The --metrics-listen daemon on its own thread; 0, or -errno with err
 * set. */
static int start_metrics(struct proxy *p, char *err, size_t errlen)
{
	const char *v = p->cfg->metrics_listen;
	char *host = NULL;
	int port;
	struct sockaddr_storage ss;
	int rc = config_flags_hostport("metrics-listen", v, &host, &port, err,
				       errlen);
	if (rc)
		return rc;
	char why[256];
	rc = proxy_listen_addr(host, port, &ss, why, sizeof(why));
	free(host);
	if (rc) { /* its messages name --listen */
		const char *w = why;
		if (!strncmp(w, "--listen: ", 10))
			w += 10;
		snprintf(err, errlen, "--metrics-listen: %s", w);
		return rc;
	}
	p->mdaemon = MHD_start_daemon(
		MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG |
			(ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
		0, NULL, NULL, on_metrics_request, p,
		MHD_OPTION_EXTERNAL_LOGGER, on_log, NULL, MHD_OPTION_SOCK_ADDR,
		(struct sockaddr *)&ss, MHD_OPTION_CONNECTION_LIMIT,
		(unsigned)LIMIT_METRICS_CONNECTIONS,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)LIMIT_METRICS_IDLE_S,
		MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL, MHD_OPTION_END);
	if (!p->mdaemon) {
		int e = errno;
		snprintf(err, errlen, "--metrics-listen %s: cannot listen: %s",
			 v, strerror(e));
		return -EADDRINUSE;
	}
	const union MHD_DaemonInfo *info =
		MHD_get_daemon_info(p->mdaemon, MHD_DAEMON_INFO_BIND_PORT);
	p->metrics_port = info ? info->port : port;
	char numeric[64];
	proxy_listen_numeric(&ss, numeric, sizeof(numeric));
	/* worded apart from "listening on", which names the API port */
	log_info("metrics and probes (no API) served on http://%s:%d", numeric,
		 p->metrics_port);
	return 0;
}

int proxy_server_start(struct proxy *p, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	const char *host = p->cfg->listen_host;
	int rc = proxy_listen_addr(host, p->cfg->listen_port, &ss, err, errlen);
	if (rc)
		return rc;
	bool v6 = ss.ss_family == AF_INET6;
	rc = proxy_listen_check_exposure(p->cfg, err, errlen);
	if (rc)
		return rc;
	if (proxy_observe_init(p)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	unsigned threads = p->cfg->threads > 0 ?
				   (unsigned)p->cfg->threads :
				   (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	pthread_mutex_init(&p->tick_lock, NULL);
	pthread_cond_init(&p->tick_cond, NULL);
	p->inited = true;
	p->conns = proxy_conns_new(p->cfg, p->nofile);
	if (!p->conns) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* one fan-out worker per core, as libmicrohttpd's pool; a stuck
	 * client is dropped after the idle timeout, as libmicrohttpd would */
	p->fanout = proxy_fanout_new(threads, (unsigned)p->cfg->idle_timeout);
	/* a reflector writes the few streams its events wake itself */
	if (p->fanout)
		proxy_fanout_set_inline_max(p->fanout,
					    (unsigned)p->cfg->watch_inline_max);
	cache_history_set_wake_hooks(proxy_fanout_wake_begin,
				     proxy_fanout_wake_end);
	p->disc = proxy_discovery_new(p->up, p->cfg->discovery_refresh);
	p->fresh = proxy_fresh_new(p->up, p->res, p->nres);
	p->pass = proxy_pass_pool_new(p->up,
				      p->cfg->client_auth == CLIENT_AUTH_NONE,
				      p->cfg->passthrough_timeout);
	if (p->pass && p->cfg->max_request_body > 0)
		proxy_pass_pool_set_max_body(p->pass, p->cfg->max_request_body);
	p->upgrade = proxy_upgrade_pool_new(
		p->up, p->cfg->client_auth == CLIENT_AUTH_NONE,
		p->cfg->passthrough_timeout, 0, err, errlen);
	if (!p->upgrade)
		return -EINVAL;
	if (p->cfg->client_auth == CLIENT_AUTH_DELEGATED) {
		p->authn = proxy_authn_new(p->up, p->cfg->authn_allow_ttl,
					   p->cfg->authn_deny_ttl,
					   p->cfg->authn_source_reviews);
		if (!p->authn) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		/* NULL is survivable: the TTLs still bound every decision */
		p->revoke = proxy_revoke_start(p->up, p->authn);
	}
	if (!p->disc || !p->fresh || !p->pass || !p->fanout) {
		snprintf(err, errlen, "cannot start the proxy's threads");
		return -ENOMEM;
	}
	if (proxy_tls_configure(NULL, p->cfg->tls_min_version,
				p->cfg->tls_cipher_suites, err, errlen))
		return -EINVAL;
	if (p->cfg->tls_cert_file) {
		p->tls = proxy_tls_new(p->cfg->tls_cert_file,
				       p->cfg->tls_key_file, err, errlen);
		if (!p->tls ||
		    proxy_tls_configure(p->tls, p->cfg->tls_min_version,
					p->cfg->tls_cipher_suites, err, errlen))
			return -EINVAL;
	}
	if (p->cfg->client_auth == CLIENT_AUTH_NONE) {
		p->origin = proxy_origin_new(p->cfg->accept_hosts,
					     p->cfg->accept_origins, host, err,
					     errlen);
		if (!p->origin)
			return -EINVAL;
	}
	p->daemon = start_daemon(p, (struct sockaddr *)&ss, -1, threads,
				 v6 ? MHD_USE_IPv6 : 0, p->tls);
	if (!p->daemon) {
		int e = errno;
		snprintf(err, errlen, "cannot listen on %s:%d: %s%s", host,
			 p->cfg->listen_port, strerror(e),
			 e == EADDRINUSE ? " (another process has the port)" :
					   "");
		return -EADDRINUSE;
	}
	const union MHD_DaemonInfo *info =
		MHD_get_daemon_info(p->daemon, MHD_DAEMON_INFO_BIND_PORT);
	p->port = info ? info->port : p->cfg->listen_port;
	if (p->cfg->unix_socket) {
		int fd = proxy_listen_unix(
			p->cfg->unix_socket, p->cfg->unix_socket_mode,
			&p->socket_dev, &p->socket_ino, err, errlen);
		if (fd < 0)
			return fd;
		p->made_socket = true;
		p->udaemon = start_daemon(p, NULL, fd, 1, 0, NULL);
		if (!p->udaemon) {
			close(fd);
			snprintf(err, errlen, "cannot serve on %s",
				 p->cfg->unix_socket);
			return -EIO;
		}
	}
	int e = pthread_create(&p->ticker, NULL, ticker, p);
	if (e) {
		snprintf(err, errlen, "cannot start the ticker thread");
		return -e;
	}
	p->ticking = true;
	char numeric[64];
	proxy_listen_numeric(&ss, numeric, sizeof(numeric));
	log_info("listening on %s://%s:%d", p->tls ? "https" : "http", numeric,
		 p->port);
	if (p->cfg->unix_socket)
		log_info("listening on unix:%s", p->cfg->unix_socket);
	if (p->cfg->metrics_listen)
		return start_metrics(p, err, errlen);
	return 0;
}

void proxy_server_drain(struct proxy *p, int grace_seconds)
{
	if (!p->inited || proxy_draining(p))
		return;
	__atomic_store_n(&p->draining, true, __ATOMIC_RELEASE);
	struct MHD_Daemon *ds[2] = { p->daemon, p->udaemon };
	for (int i = 0; i < 2; i++) {
		if (!ds[i])
			continue;
		/* libmicrohttpd stops accepting; shutdown() makes the kernel
		 * refuse new connections too. The descriptor is closed after
		 * MHD_stop_daemon(), as libmicrohttpd asks. */
		p->quiesced_fd[i] = MHD_quiesce_daemon(ds[i]);
		if (p->quiesced_fd[i] != MHD_INVALID_SOCKET)
			shutdown(p->quiesced_fd[i], SHUT_RDWR);
	}
	if (p->made_socket) { /* ours: never a path that was there before */
		proxy_listen_unix_remove(p->cfg->unix_socket, p->socket_dev,
					 p->socket_ino);
		p->made_socket = false;
	}
	for (int i = 0; i < p->nres; i++)
		cache_history_wake_all(p->res[i]->history);
	proxy_pass_pool_end_watches(p->pass);
	log_info("draining: listeners closed, watches ending; up to %ds "
		 "for %d open connection(s)",
		 grace_seconds, proxy_conns_open(p->conns));
	struct timespec t0, now, ts = { 0, 50 * 1000000L };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int busy;
	for (;;) {
		busy = proxy_conns_drain(p->conns);
		clock_gettime(CLOCK_MONOTONIC, &now);
		long long ms = (now.tv_sec - t0.tv_sec) * 1000LL +
			       (now.tv_nsec - t0.tv_nsec) / 1000000;
		if (!busy || ms >= grace_seconds * 1000LL)
			break;
		nanosleep(&ts, NULL);
	}
	if (busy)
		log_warn("draining: %d request(s) still open after "
			 "--shutdown-grace %ds; closing them",
			 busy, grace_seconds);
	else
		log_info("drained: no request in flight");
}

void proxy_server_stop(struct proxy *p)
{
	if (!p->inited)
		return;
	/* Every watch must be resumed before the daemon stops: set the flag
	 * (suspend() refuses from now on), then wake all sleepers, which
	 * end their streams. */
	__atomic_store_n(&p->stopping, true, __ATOMIC_RELEASE);
	pthread_mutex_lock(&p->tick_lock);
	pthread_cond_signal(&p->tick_cond);
	pthread_mutex_unlock(&p->tick_lock);
	if (p->ticking)
		pthread_join(p->ticker, NULL);
	for (int i = 0, n = proxy_nres(p); i < n; i++)
		cache_history_wake_all(p->res[i]->history);
	/* every idle stream back in libmicrohttpd's hands, to end */
	proxy_fanout_stop(p->fanout);
	proxy_pass_pool_stop(p->pass);
	proxy_upgrade_pool_stop(p->upgrade);
	proxy_fresh_stop(p->fresh);
	proxy_revoke_stop(p->revoke);
	proxy_authn_stop(p->authn); /* resumes what waits on a review */
	if (p->mdaemon) /* it reads p->conns and the caches: stopped first */
		MHD_stop_daemon(p->mdaemon);
	p->mdaemon = NULL;
	struct MHD_Daemon *ds[2] = { p->daemon, p->udaemon };
	for (int i = 0; i < 2; i++)
		if (ds[i] && !__atomic_load_n(&p->draining, __ATOMIC_ACQUIRE))
			p->quiesced_fd[i] = MHD_quiesce_daemon(ds[i]);
	/* Give resumed watches a moment to send their last bytes (with no
	 * connection open there are none, and the exit need not wait). */
	struct timespec ts = { 0, 100 * 1000000L };
	if (proxy_conns_open(p->conns))
		nanosleep(&ts, NULL);
	for (int i = 0; i < 2; i++)
		if (ds[i])
			MHD_stop_daemon(ds[i]);
	p->daemon = p->udaemon = NULL;
	for (int i = 0; i < 2; i++) /* libmicrohttpd left them to us */
		if (ds[i] && p->quiesced_fd[i] != MHD_INVALID_SOCKET)
			close(p->quiesced_fd[i]);
	proxy_fanout_free(p->fanout); /* every stream was handed back */
	p->fanout = NULL;
	proxy_conns_free(p->conns); /* every connection has closed */
	p->conns = NULL;
	proxy_tls_free(p->tls); /* no handshake can need it now */
	p->tls = NULL;
	proxy_origin_free(p->origin);
	p->origin = NULL;
	if (p->made_socket) /* ours: never a path that was there before */
		proxy_listen_unix_remove(p->cfg->unix_socket, p->socket_dev,
					 p->socket_ino);
	proxy_pass_pool_free(p->pass);
	p->pass = NULL;
	proxy_upgrade_pool_free(p->upgrade);
	p->upgrade = NULL;
	proxy_discovery_free(p->disc);
	p->disc = NULL;
	proxy_revoke_free(p->revoke);
	p->revoke = NULL;
	proxy_authn_free(p->authn);
	p->authn = NULL;
	pthread_cond_destroy(&p->tick_cond);
	pthread_mutex_destroy(&p->tick_lock);
	p->inited = false;
}

void proxy_server_release(struct proxy *p)
{
	proxy_fresh_free(p->fresh);
	p->fresh = NULL;
	proxy_observe_free(p);
}
