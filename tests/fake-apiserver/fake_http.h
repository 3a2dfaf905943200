/*
 * fake_http: the HTTP side of the fake apiserver: the libmicrohttpd
 * daemon, routing of Kubernetes paths, and the reply helpers every
 * handler uses (JSON bodies, Status errors).
 *
 * The daemon runs one thread per connection, so a handler may block: a
 * LIST waiting for a resourceVersion, a watch waiting for events. Every
 * wait is bounded and ends early on shutdown.
 */
#ifndef FAKE_HTTP_H
#define FAKE_HTTP_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stdint.h>

#include "config/buf.h"

#define FAKE_MAX_BODY (3u << 20) /* the apiserver's request limit */

/* One request, as routed. */
struct fake_req {
	struct MHD_Connection *conn;
	const char *method;
	int res;	  /* resource index, -1 when none */
	const char *ns;	  /* namespace in the path, or NULL */
	const char *name; /* object name in the path, or NULL */
	bool watch;	  /* ?watch=... or the /watch/ prefix */
	struct buf body;  /* request body */
	bool body_too_large;
	char *path; /* owned copy the pointers above point into */
	void *exec; /* fake_exec's session until its upgrade starts */
};

/* One field error of a 422 Invalid (apimachinery's field.Error). */
struct fake_field_err {
	const char *reason; /* "FieldValueForbidden" */
	const char *field;  /* "resourceVersionMatch" */
	const char *msg;    /* "Forbidden: ...", without the field */
};

/* Start serving on host:port (port 0 picks one); logs the listening
 * line. 0 or -errno with err set. */
int fake_http_start(const char *host, unsigned port, char *err, size_t errlen);
void fake_http_stop(void);
unsigned fake_http_port(void);

/* Query parameter: the value ("" for a bare key), or NULL if absent. */
const char *fake_query(struct MHD_Connection *c, const char *key);

/* Queue body (JSON, sent as is) with the usual apiserver headers.
 * Consumes body. */
enum MHD_Result fake_reply(struct MHD_Connection *c, unsigned code,
			   struct buf *body);
/* The same with a Retry-After header (seconds; -1 for none). */
enum MHD_Result fake_reply_retry(struct MHD_Connection *c, unsigned code,
				 struct buf *body, int retry_after);
/* Queue a 200 JSON body of len bytes that read produces as libmicrohttpd
 * sends it (pos grows from 0), so that a huge LIST is never built in
 * memory; done(cls) runs once the reply is freed, or before returning
 * when it cannot be queued. Never gzipped; cutAfterBytes applies. */
enum MHD_Result fake_reply_stream(struct MHD_Connection *c, uint64_t len,
				  MHD_ContentReaderCallback read, void *cls,
				  MHD_ContentReaderFreeCallback done);
/* A Status reply. reason may be NULL (omitted, as in the apiserver's 500
 * for an unparsable resourceVersion); details is raw JSON or NULL. */
enum MHD_Result fake_reply_status(struct MHD_Connection *c, unsigned code,
				  const char *reason, const char *details,
				  const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Append a Status object (no newline) to b. */
void fake_status_json(struct buf *b, unsigned code, const char *reason,
		      const char *details, const char *msg);
/* 404 for a path no resource serves, with the apiserver's Status. */
enum MHD_Result fake_reply_no_route(struct MHD_Connection *c);
/* 404 `pods "x" not found` with details {name, kind}, as the apiserver. */
enum MHD_Result fake_reply_not_found(struct MHD_Connection *c,
				     const char *resource, const char *name);
enum MHD_Result fake_reply_bad_request(struct MHD_Connection *c,
				       const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* 422 Invalid: `<what> "<name>" is invalid: <errors>`, details with
 * group (may be ""), kind and causes. */
enum MHD_Result fake_reply_invalid(struct MHD_Connection *c, const char *what,
				   const char *group, const char *kind,
				   const char *name,
				   const struct fake_field_err *errs, int n);
/* 504 Timeout with cause ResourceVersionTooLarge, the apiserver's answer
 * to a resourceVersion it has not reached within 3 s. */
enum MHD_Result fake_reply_rv_too_large(struct MHD_Connection *c, uint64_t want,
					uint64_t cur);

/* fake_gzip.c: body gzip-compressed (body freed, *len updated,
 * *gzipped set) when the client accepts gzip and it is over 128 KiB;
 * else body itself. */
char *fake_gzip_maybe(struct MHD_Connection *c, char *body, size_t *len,
		      bool *gzipped);

/* fake_list.c: a LIST whose items exceed this many bytes (--list-stream-min,
 * 1 GiB) is sent as it is produced, uncompressed, instead of being built
 * in memory first: a million pods would otherwise need their 5.5 GB a
 * second time. Below it, LISTs are built as before, so that B6's
 * reference (a curl of the fake's 100k-pod LIST) keeps its meaning. */
extern size_t fake_list_stream_min;

/* Handlers (one module each). Each queues exactly one reply. */
enum MHD_Result fake_list_serve(struct fake_req *rq);	/* fake_list.c */
enum MHD_Result fake_get_serve(struct fake_req *rq);	/* fake_list.c */
enum MHD_Result fake_watch_serve(struct fake_req *rq);	/* fake_watch.c */
enum MHD_Result fake_write_create(struct fake_req *rq); /* fake_write.c */
enum MHD_Result fake_write_update(struct fake_req *rq);
enum MHD_Result fake_write_patch(struct fake_req *rq);
enum MHD_Result fake_write_delete(struct fake_req *rq);
enum MHD_Result fake_write_delete_collection(struct fake_req *rq);
/* fake_discovery.c: /version, /api, /api/v1, /apis, /apis/G[/V], plain
 * or aggregated; false if not one. */
bool fake_discovery_serve(struct MHD_Connection *c, const char *path,
			  enum MHD_Result *ret);
/* fake_control.c: /fake/stats and /fake/faults. */
enum MHD_Result fake_control_serve(struct fake_req *rq, const char *path);
/* fake_control.c: apply standing faults before an API request; true when
 * a reply was queued (failNext). */
bool fake_faults_intercept(struct MHD_Connection *c, enum MHD_Result *ret);
/* fake_control.c: true once per malformedNext unit. */
bool fake_faults_take_malformed(void);
/* fake_control.c: the pending cutAfterBytes (consumed), or -1. */
long long fake_faults_take_cut(void);
/* fake_control.c: watchDelayMs, how late watch events go out (0: none). */
long fake_faults_watch_delay_ms(void);
void fake_faults_reset(void);
/* fake_control.c: remember one LIST or WATCH of resource res with its
 * namespace (NULL: all) and selectors (NULL: none), for /fake/stats's
 * "requests": the last FAKE_SEEN_MAX of each resource. */
#define FAKE_SEEN_MAX 64
void fake_control_note(int res, bool watch, const char *ns, const char *ls,
		       const char *fs);

#endif
