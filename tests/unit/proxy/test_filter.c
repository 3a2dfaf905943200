/*
 * test_filter: a LIST or WATCH request's filter (proxy/filter.c): the
 * labelSelector and fieldSelector query parameters read from a live
 * libmicrohttpd connection, the apiserver's 400 texts for malformed ones,
 * nothing left allocated after a failure (also under allocation failure),
 * and which cached objects the filter then matches: namespace, one name,
 * labels, the kind's selectable fields (absent ones compare as "").
 *
 * A minimal daemon on 127.0.0.1:0 runs proxy_filter_parse() on each
 * request's connection; the test sends raw HTTP/1.0 requests to it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "cache/kind.h"
#include "cache/obj.h"
#include "config/alloc.h"
#include "proxy/filter.h"
#include "check.h"

/* ------------------------------------------------------------------ */
/* A daemon that parses each request's filter                          */

static struct {
	pthread_mutex_t lock;
	/* in: what the handler parses with */
	const struct cache_kind *kind;
	const char *ns, *name;
	long fail_after; /* arm alloc_fail_after() around parse */
	/* out */
	int rc;
	char err[512];
	struct proxy_filter f;
	int calls;
} job = { .lock = PTHREAD_MUTEX_INITIALIZER };

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **state)
{
	static int first;
	if (!*state) {
		*state = &first;
		return MHD_YES;
	}
	pthread_mutex_lock(&job.lock);
	job.err[0] = '\0';
	if (job.fail_after)
		alloc_fail_after(job.fail_after);
	job.rc = proxy_filter_parse(&job.f, c, job.kind, job.ns, job.name,
				    job.err, sizeof(job.err));
	alloc_fail_after(0);
	job.calls++;
	pthread_mutex_unlock(&job.lock);
	struct MHD_Response *r = MHD_create_response_from_buffer(
		0, NULL, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

static struct MHD_Daemon *daemon_start(int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct MHD_Daemon *d =
		MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL,
				 on_request, NULL, MHD_OPTION_SOCK_ADDR,
				 (struct sockaddr *)&a, MHD_OPTION_END);
	if (!d)
		return NULL;
	const union MHD_DaemonInfo *i =
		MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	*port = i ? i->port : 0;
	return d;
}

static int port;

/* GET target; returns the HTTP status, or -1. */
static int http_get(const char *target)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	char req[2048], resp[1024];
	int n = snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\nHost: x\r\n\r\n",
			 target);
	if (write(fd, req, (size_t)n) != n) {
		close(fd);
		return -1;
	}
	size_t have = 0;
	ssize_t r;
	while (have < sizeof(resp) - 1 &&
	       (r = read(fd, resp + have, sizeof(resp) - 1 - have)) > 0)
		have += (size_t)r;
	resp[have] = '\0';
	close(fd);
	int code = -1;
	if (sscanf(resp, "HTTP/1.%*d %d", &code) != 1)
		return -1;
	return code;
}

/* Parse the filter of a request for query (may be ""); returns the
 * parse's return value, with the filter in job.f and the text in job.err. */
static int parse(const char *kind, const char *ns, const char *name,
		 const char *query)
{
	char target[1024];
	snprintf(target, sizeof(target), "/api/v1/%s%s%s", kind,
		 *query ? "?" : "", query);
	pthread_mutex_lock(&job.lock);
	job.kind = cache_kind_lookup(kind);
	job.ns = ns;
	job.name = name;
	job.rc = 12345;
	int calls = job.calls;
	pthread_mutex_unlock(&job.lock);
	CHECK(http_get(target) == 200);
	pthread_mutex_lock(&job.lock);
	int rc = job.calls == calls + 1 ? job.rc : 12345;
	pthread_mutex_unlock(&job.lock);
	return rc;
}

/* A pod with labels {app: APP} (none when NULL), node and phase (left
 * out when NULL). */
static struct cache_obj *pod(const char *ns, const char *name, const char *app,
			     const char *node, const char *phase)
{
	char js[1024], labels[128] = "", spec[128] = "{}", status[128] = "{}";
	if (app)
		snprintf(labels, sizeof(labels), ",\"labels\":{\"app\":\"%s\"}",
			 app);
	if (node)
		snprintf(spec, sizeof(spec), "{\"nodeName\":\"%s\"}", node);
	if (phase)
		snprintf(status, sizeof(status), "{\"phase\":\"%s\"}", phase);
	snprintf(
		js, sizeof(js),
		"{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":"
		"\"%s\",\"namespace\":\"%s\",\"resourceVersion\":\"5\"%s},"
		"\"spec\":%s,\"status\":%s}",
		name, ns, labels, spec, status);
	struct cache_obj *o = cache_obj_parse(cache_kind_lookup("pods"), js,
					      strlen(js), false, NULL, 0);
	CHECK(o != NULL);
	return o;
}

static struct cache_obj *web1, *web2, *db1, *bare;

/* ------------------------------------------------------------------ */
/* Namespace and name                                                  */

static void test_no_selectors(void)
{
	CHECK(parse("pods", "demo", NULL, "") == 0);
	CHECK(job.f.lsel == NULL && job.f.fsel == NULL);
	CHECK(job.f.kind == cache_kind_lookup("pods"));
	CHECK_STR(job.f.ns, "demo");
	CHECK_STR(job.f.name, "");
	CHECK(proxy_filter_is_ns_only(&job.f));
	CHECK(proxy_filter_match(&job.f, web1));
	CHECK(proxy_filter_match(&job.f, db1));
	CHECK(!proxy_filter_match(&job.f, web2)); /* namespace other */
	proxy_filter_free(&job.f);

	/* every namespace */
	CHECK(parse("pods", NULL, NULL, "limit=5") == 0);
	CHECK_STR(job.f.ns, "");
	CHECK(proxy_filter_is_ns_only(&job.f));
	CHECK(proxy_filter_match(&job.f, web1));
	CHECK(proxy_filter_match(&job.f, web2));
	proxy_filter_free(&job.f);

	/* empty parameters are no selector at all, as for the apiserver */
	CHECK(parse("pods", "demo", NULL, "labelSelector=&fieldSelector=") ==
	      0);
	CHECK(job.f.lsel == NULL && job.f.fsel == NULL);
	CHECK(proxy_filter_is_ns_only(&job.f));
	proxy_filter_free(&job.f);
}

/* A watch of one object: ?fieldSelector=metadata.name=N is the usual
 * way, but a name in the path narrows the same way. */
static void test_name(void)
{
	CHECK(parse("pods", "demo", "web-1", "") == 0);
	CHECK_STR(job.f.name, "web-1");
	CHECK(!proxy_filter_is_ns_only(&job.f));
	CHECK(proxy_filter_match(&job.f, web1));
	CHECK(!proxy_filter_match(&job.f, db1));
	CHECK(!proxy_filter_match(&job.f, web2)); /* same name? no: web-2 */
	proxy_filter_free(&job.f);

	CHECK(parse("pods", NULL, "web-1", "") == 0);
	CHECK(proxy_filter_match(&job.f, web1));
	CHECK(!proxy_filter_match(&job.f, db1));
	proxy_filter_free(&job.f);
}

/* ------------------------------------------------------------------ */
/* Label and field selectors, URL-encoded as clients send them          */

static void test_labels(void)
{
	CHECK(parse("pods", NULL, NULL, "labelSelector=app%3Dweb") == 0);
	CHECK(job.f.lsel != NULL && job.f.fsel == NULL);
	CHECK(!proxy_filter_is_ns_only(&job.f));
	CHECK(proxy_filter_match(&job.f, web1));
	CHECK(proxy_filter_match(&job.f, web2));
	CHECK(!proxy_filter_match(&job.f, db1));
	CHECK(!proxy_filter_match(&job.f, bare));
	proxy_filter_free(&job.f);
	CHECK(job.f.lsel == NULL);

	CHECK(parse("pods", "demo", NULL,
		    "labelSelector=app%20notin%20(web),!tier") == 0);
	CHECK(!proxy_filter_match(&job.f, web1));
	CHECK(proxy_filter_match(&job.f, db1));
	CHECK(proxy_filter_match(&job.f, bare));  /* no app label */
	CHECK(!proxy_filter_match(&job.f, web2)); /* namespace other */
	proxy_filter_free(&job.f);

	CHECK(parse("pods", NULL, NULL, "labelSelector=app") == 0);
	CHECK(proxy_filter_match(&job.f, db1));
	CHECK(!proxy_filter_match(&job.f, bare));
	proxy_filter_free(&job.f);
}

static void test_fields(void)
{
	CHECK(parse("pods", NULL, NULL, "fieldSelector=spec.nodeName%3Dn1") ==
	      0);
	CHECK(job.f.fsel != NULL && job.f.lsel == NULL);
	CHECK(!proxy_filter_is_ns_only(&job.f));
	CHECK(proxy_filter_match(&job.f, web1));
	CHECK(!proxy_filter_match(&job.f, web2)); /* on n2 */
	CHECK(!proxy_filter_match(&job.f, bare)); /* unscheduled */
	proxy_filter_free(&job.f);

	/* a field the object lacks compares as "" */
	CHECK(parse("pods", NULL, NULL, "fieldSelector=spec.nodeName%3D") == 0);
	CHECK(proxy_filter_match(&job.f, bare));
	CHECK(!proxy_filter_match(&job.f, web1));
	proxy_filter_free(&job.f);
	CHECK(parse("pods", NULL, NULL,
		    "fieldSelector=status.phase!%3DRunning") == 0);
	CHECK(proxy_filter_match(&job.f, bare)); /* no phase at all */
	CHECK(proxy_filter_match(&job.f, db1));	 /* Pending */
	CHECK(!proxy_filter_match(&job.f, web1));
	proxy_filter_free(&job.f);

	/* metadata.name and metadata.namespace come from the object itself */
	CHECK(parse("pods", NULL, NULL,
		    "fieldSelector=metadata.namespace%3Ddemo,"
		    "metadata.name%3D%3Ddb-1") == 0);
	CHECK(proxy_filter_match(&job.f, db1));
	CHECK(!proxy_filter_match(&job.f, web1));
	CHECK(!proxy_filter_match(&job.f, web2));
	proxy_filter_free(&job.f);

	/* both selectors: each must hold */
	CHECK(parse("pods", NULL, NULL,
		    "labelSelector=app%3Dweb&fieldSelector=spec.nodeName%3Dn2") ==
	      0);
	CHECK(job.f.lsel && job.f.fsel);
	CHECK(proxy_filter_match(&job.f, web2));
	CHECK(!proxy_filter_match(&job.f, web1));
	proxy_filter_free(&job.f);
	CHECK(job.f.lsel == NULL && job.f.fsel == NULL);
	proxy_filter_free(&job.f); /* twice is harmless */
}

/* ------------------------------------------------------------------ */
/* Malformed selectors: -EINVAL, the apiserver's text, nothing kept      */

static void test_errors(void)
{
	CHECK(parse("pods", NULL, NULL, "labelSelector=app%3D%3D%3D") ==
	      -EINVAL);
	CHECK_STR(job.err, "unable to parse requirement: found '=', expected: "
			   "identifier");
	CHECK(job.f.lsel == NULL && job.f.fsel == NULL);

	CHECK(parse("pods", NULL, NULL, "fieldSelector=spec.bogus%3Dx") ==
	      -EINVAL);
	CHECK_STR(job.err, "field label not supported: spec.bogus");
	CHECK(job.f.lsel == NULL && job.f.fsel == NULL);

	/* a good label selector is freed when the field selector is bad */
	CHECK(parse("pods", NULL, NULL,
		    "labelSelector=app%3Dweb&fieldSelector=metadata.name") ==
	      -EINVAL);
	CHECK_STR(job.err, "invalid selector: 'metadata.name'; can't "
			   "understand 'metadata.name'");
	CHECK(job.f.lsel == NULL && job.f.fsel == NULL);

	/* both bad: the label selector is read first */
	CHECK(parse("pods", NULL, NULL,
		    "labelSelector=a%20b&fieldSelector=spec.bogus%3Dx") ==
	      -EINVAL);
	CHECK_STR(job.err, "unable to parse requirement: found 'b', expected: "
			   "in, notin, =, ==, !=, gt, lt");

	/* selectable fields are the kind's: a ConfigMap has no nodeName */
	CHECK(parse("configmaps", NULL, NULL,
		    "fieldSelector=spec.nodeName%3Dn1") == -EINVAL);
	CHECK_STR(job.err, "field label not supported: spec.nodeName");
	CHECK(parse("configmaps", NULL, NULL,
		    "fieldSelector=metadata.name%3Dx") == 0);
	CHECK(job.f.fsel != NULL);
	proxy_filter_free(&job.f);
}

/* Each allocation of a parse with both selectors fails in turn: -ENOMEM
 * and nothing kept (LeakSanitizer would see the rest), until enough
 * succeed and the filter works. */
static void test_alloc_failure(void)
{
	int n, enomem = 0, bad = 0;
	for (n = 1; n < 200; n++) {
		pthread_mutex_lock(&job.lock);
		job.fail_after = n;
		pthread_mutex_unlock(&job.lock);
		int rc = parse("pods", NULL, NULL,
			       "labelSelector=app%20in%20(web,db)&"
			       "fieldSelector=spec.nodeName%3Dn1");
		if (rc == -ENOMEM) {
			enomem++;
			bad += job.f.lsel != NULL || job.f.fsel != NULL;
			continue;
		}
		bad += rc != 0;
		bad += !proxy_filter_match(&job.f, web1);
		bad += proxy_filter_match(&job.f, web2);
		proxy_filter_free(&job.f);
		break;
	}
	pthread_mutex_lock(&job.lock);
	job.fail_after = 0;
	pthread_mutex_unlock(&job.lock);
	CHECK(n < 200);
	CHECK(enomem == n - 1);
	CHECK(enomem >= 2); /* at least one in each parser */
	CHECK(bad == 0);
}

int main(void)
{
	struct MHD_Daemon *d = daemon_start(&port);
	CHECK(d != NULL && port > 0);
	if (!d)
		return check_done("filter");
	web1 = pod("demo", "web-1", "web", "n1", "Running");
	web2 = pod("other", "web-2", "web", "n2", "Running");
	db1 = pod("demo", "db-1", "db", "n2", "Pending");
	bare = pod("demo", "bare", NULL, NULL, NULL);

	test_no_selectors();
	test_name();
	test_labels();
	test_fields();
	test_errors();
	test_alloc_failure();

	MHD_stop_daemon(d);
	cache_obj_put(web1);
	cache_obj_put(web2);
	cache_obj_put(db1);
	cache_obj_put(bare);
	return check_done("filter");
}
