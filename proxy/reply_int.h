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

#include "config/buf.h"
#include "proxy/reply.h"

/* A body of more pieces than an iovec takes is copied into blocks of this
 * size as it is sent. 256 KiB against 64 KiB took a LIST of 3,000 pods
 * (17 MB, 6,000 pieces) from 11.9 to 8.8 ms at p50, fewer copies and
 * sends (docs/PERFORMANCE.md, B15); 1 MiB gained little more. It is
 * held per response being sent. */
#define PIECES_BLOCK (256 * 1024)
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
/* The response that sends *first, then what fill() makes (a part at a
 * time), indented when indent, gzip-compressed when gz; chunked. On
 * success *first is taken over and the response calls done(cls) when
 * freed; NULL: both left to the caller. */
struct MHD_Response *
reply_pretty_render(struct buf *first,
		    bool (*fill)(void *cls, struct buf *b, size_t want),
		    void *cls, void (*done)(void *cls), bool indent, bool gz);

#endif
