/*
 * reply: builds and queues every answer the proxy itself makes: JSON
 * bodies from pieces or from a buffer, plain text, and Status errors,
 * with their headers, indented for ?pretty and the clients the apiserver
 * indents for (pretty.h), gzip-compressed when it pays.
 *
 * As the apiserver does, a body over PROXY_REPLY_GZIP_MIN goes out
 * gzip-compressed (level 1, for speed) when the client's Accept-Encoding
 * takes gzip, with Content-Encoding: gzip and Vary: Accept-Encoding.
 * Every JSON answer carries Content-Type: application/json and
 * Cache-Control: no-cache, private; a YAML one (Accept: application/yaml,
 * yaml.h) Content-Type: application/yaml; a text answer also carries
 * X-Content-Type-Options: nosniff.
 *
 * Threads: every function that takes a connection runs on the
 * libmicrohttpd thread that is answering it (a pool worker, from the
 * access handler), on a connection that is not suspended; none of them
 * suspends it. Each queues at most one response and drops its own
 * reference to it: libmicrohttpd frees the response after sending it (or
 * when the connection closes). MHD_NO from any of them means nothing was
 * queued, and libmicrohttpd then closes the connection.
 */
#ifndef PROXY_REPLY_H
#define PROXY_REPLY_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>

#include "config/buf.h"
#include "proxy/status.h"

#define PROXY_REPLY_GZIP_MIN (128 * 1024)

/* ---- bodies ---- */

/* A body made of pieces that point into memory someone else keeps (a
 * snapshot's objects, static text). Zero-initialise. */
struct proxy_reply_pieces {
	struct MHD_IoVec *v;
	size_t n, cap, total;
	bool failed;	 /* an append ran out of memory */
	uint32_t **kept; /* per piece below kcap: where a List item's
			  * indented length is kept, or NULL */
	size_t kcap;
};

/* Append len bytes at p (not copied: they must live until done() of
 * proxy_reply_pieces()). On running out of memory pc is marked failed. */
void proxy_reply_pieces_add(struct proxy_reply_pieces *pc, const void *p,
			    size_t len);
/* The same for the bytes of one item of a List (an object without its
 * kind and apiVersion, after the "{" or ",{" piece that opens it), with
 * *kept: where the length of its indented form is kept, 0 until known.
 * proxy_reply_pieces() and the response it sends read and write it
 * (relaxed atomics) when the client gets indented JSON, from any
 * thread; it must live as long as p. */
void proxy_reply_pieces_add_item(struct proxy_reply_pieces *pc, const void *p,
				 size_t len, uint32_t *kept);
/*
 * Send the pieces (the vector taken over and freed) as a JSON 200: copied
 * into one buffer when small (headers and body then leave in one send),
 * handed to writev() as they are when there are few, copied into the
 * connection's buffer by a reader when there are more than IOV_MAX
 * (libmicrohttpd 0.9.75 stalls after the first IOV_MAX pieces of an
 * iovec response), gzip-compressed when wanted. When the client gets
 * indented JSON, a body over PROXY_REPLY_GZIP_MIN is indented while it is
 * sent, a chunk at a time (and compressed the same way), never copied
 * whole: chunked, or with a Content-Length when not compressed and its
 * List items' indented lengths are (mostly) known, kept from the first
 * time they were sent; a smaller one is indented into one buffer.
 *
 * done(cls) runs exactly once, when the memory the pieces point into is
 * no longer needed, on every path, failures included: here, before
 * returning, when the body was copied or nothing was queued; else from
 * libmicrohttpd's free of the response, on whichever of its threads
 * frees it, after the last byte is sent or the connection closes. A
 * pc that failed answers MHD_NO.
 */
enum MHD_Result proxy_reply_pieces(struct MHD_Connection *c,
				   struct proxy_reply_pieces *pc,
				   void (*done)(void *cls), void *cls);
/* Send body (taken over, freed here) as JSON with status code, indented
 * and compressed as wanted. A body that failed to grow answers MHD_NO. */
enum MHD_Result proxy_reply_buf(struct MHD_Connection *c, unsigned code,
				struct buf *body);
/* Send the JSON in json (taken over, freed here) as YAML with status
 * code (yaml.h: the apiserver's Accept: application/yaml form), never
 * indented, compressed as wanted; 500 when it is not JSON. */
enum MHD_Result proxy_reply_yaml(struct MHD_Connection *c, unsigned code,
				 struct buf *json);
/* Whether request c's Accept picks application/yaml (proxy/table/
 * table.h negotiates): its answers, Status errors included, are YAML. */
bool proxy_reply_yaml_wanted(struct MHD_Connection *c);
/*
 * Send a JSON 200 whose body is made as it is sent: fill(cls, b, want)
 * appends the next part to b (about want bytes, whole rows) and returns
 * true, or returns false once nothing is left. A body that ends within
 * PROXY_REPLY_GZIP_MIN bytes is made here and sent as proxy_reply_buf()
 * sends it; a longer one goes chunked, the next part made only when
 * libmicrohttpd has room for it, indented and gzip-compressed while
 * sent as the client asks (so a client that stops reading holds one
 * part and the stream's buffers, never the body). The bytes are the same
 * either way. fill runs on the thread serving c.
 *
 * done(cls) runs exactly once, when fill is no longer called: here when
 * the body was made whole or nothing was queued (MHD_NO), else when
 * libmicrohttpd frees the response.
 */
enum MHD_Result proxy_reply_render(struct MHD_Connection *c,
				   bool (*fill)(void *cls, struct buf *b,
						size_t want),
				   void *cls, void (*done)(void *cls));
/* The same for a body that fill makes as YAML: sent as it is made, with
 * Content-Type: application/yaml, never indented. */
enum MHD_Result proxy_reply_render_yaml(struct MHD_Connection *c,
					bool (*fill)(void *cls, struct buf *b,
						     size_t want),
					void *cls, void (*done)(void *cls));
/*
 * Queue a JSON 200 of unknown length (chunked) whose body read(cls, ...)
 * writes, block bytes at a time, as libmicrohttpd's content reader: it
 * runs on the thread serving c, and may suspend c when it has nothing
 * to send (returning 0); whoever it hands c to resumes it. free(cls)
 * runs once: from libmicrohttpd when it frees the response (the stream
 * ended or the connection closed), or here when the response cannot be
 * made (then MHD_NO).
 */
enum MHD_Result proxy_reply_stream(struct MHD_Connection *c, size_t block,
				   MHD_ContentReaderCallback read, void *cls,
				   MHD_ContentReaderFreeCallback free_cls);
/* Queue a copy of the text body with this Content-Type. */
enum MHD_Result proxy_reply_text(struct MHD_Connection *c, unsigned code,
				 const char *type, const char *body);

/* ---- Status errors (the reasons and the body: status.h) ---- */

/* Queue st as a Status answer with its reason's code, plus Retry-After
 * and Connection: close when st asks for them. st is only read. */
enum MHD_Result proxy_reply_status(struct MHD_Connection *c,
				   const struct proxy_status *st);
/* Shorthand: reason plus a printf-style message. */
enum MHD_Result proxy_reply_error(struct MHD_Connection *c,
				  enum proxy_reason reason, const char *fmt,
				  ...) __attribute__((format(printf, 3, 4)));
/* 429 TooManyRequests with a printf-style message, Retry-After: 1 and
 * details {"retryAfterSeconds":1}: a request the proxy cannot take now
 * but may in a second. */
enum MHD_Result proxy_reply_too_many(struct MHD_Connection *c, const char *fmt,
				     ...) __attribute__((format(printf, 2, 3)));
/* 404 for an object: `pods "x" not found` with details {name, kind}. */
/* Whether the apiserver's router takes the request's Accept header
 * (status.h); when not, the answer is proxy_reply_not_acceptable(). */
bool proxy_reply_accept_routed(struct MHD_Connection *c);
/* The 406 the apiserver answers for the request's Accept header on that
 * route (status.h says which words and form). */
enum MHD_Result proxy_reply_not_acceptable(struct MHD_Connection *c,
					   enum proxy_na_route route);
enum MHD_Result proxy_reply_not_found(struct MHD_Connection *c,
				      const char *resource, const char *name);

/* Whether the request the calling thread is about to answer is a HEAD:
 * set by the dispatcher before each call of a cache handler. A HEAD gets
 * no body, and a streamed one (unknown size) not even its last chunk:
 * an empty answer with the same headers but Content-Length 0. */
void proxy_reply_set_head(bool head);

/* Whether the request the calling thread is about to answer negotiated
 * protobuf (an enum proxy_pb_form of protobuf.h; 0: not), set by the
 * dispatcher like proxy_reply_set_head(). While set, every answer is
 * protobuf: bodies go out as they are (never indented) with
 * Content-Type: application/vnd.kubernetes.protobuf, a stream with
 * ...;stream=watch, and a Status is encoded as a protobuf Status. */
void proxy_reply_set_protobuf(int form);
int proxy_reply_protobuf(void);

/* The helper threads that indent a large List's items ahead of the
 * thread sending it (ahead.h), for the requests the calling thread is
 * about to answer; set by the dispatcher like proxy_reply_set_head().
 * NULL: each is indented by its sender alone. */
struct proxy_ahead_pool;
void proxy_reply_set_ahead(struct proxy_ahead_pool *pool);

/* ---- responses built elsewhere ---- */

/* Queue resp with status code and drop our reference to it. resp may be
 * NULL (building it failed): then MHD_NO, which closes the connection. */
enum MHD_Result proxy_reply_queue(struct MHD_Connection *c, unsigned code,
				  struct MHD_Response *resp);
/* Add the headers every JSON answer carries to resp. */
void proxy_reply_json_headers(struct MHD_Response *resp);
/* A response that owns the len bytes at p (malloc'd; freed with the
 * response), or NULL with p freed. The caller queues it. */
struct MHD_Response *proxy_reply_owned(char *p, size_t len);
/* The same for what b holds; b is left empty. NULL, with b freed, when
 * b failed to grow or the response could not be made. */
struct MHD_Response *proxy_reply_from_buf(struct buf *b);

/* ---- gzip, pure: no connection ---- */

/* True when an Accept-Encoding value (NULL: none) takes gzip: gzip or *
 * with no q, or a q above 0. */
bool proxy_reply_gzip_accepted(const char *accept_encoding);
/* A response holding the gzip of the pieces v[0..n) (total bytes in
 * all), with Content-Encoding and Vary set; the pieces are only read.
 * NULL when out of memory. The caller queues it. */
struct MHD_Response *proxy_reply_gzip(const struct MHD_IoVec *v, size_t n,
				      size_t total);

#endif
