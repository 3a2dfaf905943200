/*
 * reply_int: what reply.c and reply_pretty.c share, and nothing else
 * includes.
 */
#ifndef PROXY_REPLY_INT_H
#define PROXY_REPLY_INT_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/alloc.h"
#include "config/buf.h"
#include "proxy/reply.h"

/* A body of more pieces than an iovec takes is copied into blocks of this
 * size as it is sent. libmicrohttpd sends one block a turn of its loop,
 * each turn an epoll_wait() and a wakeup of the client, so the block is
 * as large as it can be while it and the response it is allocated with
 * stay under malloc's mmap threshold: past it, every response would map
 * and fault in a fresh block. A LIST of 10k pods (55 MB) takes 56 sends
 * instead of 213 with 256 KiB, and B1's p50 went from 1.5-1.7x a static
 * server to 0.73-0.94x (docs/PERFORMANCE.md). Held per response being
 * sent (docs/LIMITS.md). */
#define PIECES_BLOCK (1000 * 1024)
_Static_assert(PIECES_BLOCK + 16 * 1024 <= ALLOC_MMAP_THRESHOLD,
	       "a send block and its response stay under the mmap threshold");
/* What a renderer is asked for at a time: whole rows of about this many
 * bytes (docs/LIMITS.md). */
#define RENDER_PART (16 * 1024)

/* The request the calling thread answers is a HEAD
 * (proxy_reply_set_head()). */
bool reply_is_head(void);
/* What a HEAD gets for a body of unknown size: none at all. Sent from a
 * callback of unknown size, libmicrohttpd would announce it chunked and
 * send its last chunk, a stray body on a kept-alive connection. */
struct MHD_Response *reply_headless(void);

/*
 * The response that sends pc's pieces indented (gzip-compressed when gz)
 * as it is read, with a Content-Length when the List items' kept lengths
 * (kept[0, kcap), taken over) tell it; ahead (or NULL) indents a large
 * List's items on helpers. On success it owns pc's vector and calls
 * done(cls) when freed; NULL when it could not be built: kept freed,
 * pc's vector and done left to the caller.
 */
struct proxy_ahead_pool;
struct MHD_Response *reply_pretty_pieces(struct proxy_reply_pieces *pc,
					 uint32_t **kept, size_t kcap, bool gz,
					 struct proxy_ahead_pool *ahead,
					 void (*done)(void *cls), void *cls);
/* The response that sends pc's pieces gzip-compressed as it is read,
 * chunked: a client holds its gzip stream and one chunk, never a compressed
 * copy of the body. Ownership as reply_pretty_pieces(). */
struct MHD_Response *reply_gzip_pieces(struct proxy_reply_pieces *pc,
				       void (*done)(void *cls), void *cls);
/* The response that sends *first, then what fill() makes (a part at a
 * time), indented when indent, gzip-compressed when gz; chunked. On
 * success *first is taken over and the response calls done(cls) when
 * freed; NULL: both left to the caller. */
struct MHD_Response *
reply_pretty_render(struct buf *first,
		    bool (*fill)(void *cls, struct buf *b, size_t want),
		    void *cls, void (*done)(void *cls), bool indent, bool gz);

#endif
