/*
 * body: sending response bodies, compressed when it pays.
 *
 * As the apiserver does, a body over 128 KiB goes out gzip-compressed
 * (level 1, for speed) when the client's Accept-Encoding takes gzip, with
 * Content-Encoding: gzip and Vary: Accept-Encoding.
 */
#ifndef PROXY_BODY_H
#define PROXY_BODY_H

#include <microhttpd.h>
#include <stdbool.h>

#include "config/buf.h"

#define PROXY_GZIP_MIN (128 * 1024)

/* True when a body of len bytes should be compressed for this client. */
bool proxy_gzip_wanted(struct MHD_Connection *c, size_t len);
/* True when an Accept-Encoding value (NULL: none) takes gzip: gzip or *
 * with no q, or a q above 0. */
bool proxy_gzip_accepted(const char *accept_encoding);
/* A response holding the gzip of the pieces (total bytes in all). */
struct MHD_Response *proxy_gzip_response(const struct MHD_IoVec *v, size_t n,
					 size_t total);
/* A body made of pieces that point into memory someone else keeps. */
struct proxy_pieces {
	struct MHD_IoVec *v;
	size_t n, cap, total;
	bool failed; /* an append ran out of memory */
};

void proxy_pieces_add(struct proxy_pieces *pc, const void *p, size_t len);
/*
 * Send the pieces (taken over) as a JSON 200: copied into one buffer when
 * small (headers and body then leave in one send), handed to writev() as
 * they are when there are few, copied into the connection's buffer by a reader
 * when there are more than IOV_MAX (libmicrohttpd 0.9.75 stalls after the
 * first IOV_MAX pieces of an iovec response), gzip-compressed when
 * wanted. When the client gets indented JSON (pretty.h), a body over
 * PROXY_GZIP_MIN is indented while it is sent, a chunk at a time (and
 * compressed the same way), never copied whole; a smaller one is
 * indented into one buffer. done(cls) runs once the memory is no longer needed, on every
 * path, failures included.
 */
enum MHD_Result proxy_send_pieces(struct MHD_Connection *c,
				  struct proxy_pieces *pc,
				  void (*done)(void *cls), void *cls);

/* Send body (taken over, freed) as JSON with status code, compressed
 * when wanted. */
enum MHD_Result proxy_send_buf(struct MHD_Connection *c, unsigned code,
			       struct buf *body);

#endif
