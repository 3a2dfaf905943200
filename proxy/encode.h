/*
 * encode: a read's protobuf encodings made on a thread of their own.
 *
 * A protobuf read keeps each object's encoding once made
 * (cache_obj_pb()). The first such read of a kind finds none: a LIST of
 * 10,000 pods costs about 0.3 s of encoding, and on the libmicrohttpd
 * thread serving it every other connection of that thread would wait
 * as long. Such a read hands its objects here instead: its connection
 * is suspended, a worker thread encodes them, and resumes it; the
 * access handler then runs again and finds the encodings made.
 *
 * Threads: _submit on the libmicrohttpd thread serving c, from its
 * access handler; the work on the pool's threads (one per CPU, up to
 * four), which share a read's objects a chunk at a time; _new, _stop and
 * _free on main's thread (proxy_server_start/stop/release). _stop ends
 * the encodings in progress early and resumes every connection waiting
 * here; it comes before the daemons stop, which cannot stop with a
 * suspended connection.
 */
#ifndef PROXY_ENCODE_H
#define PROXY_ENCODE_H

#include <microhttpd.h>
#include <stddef.h>

#include "cache/obj.h"
#include "cache/store.h"

/* Items without a kept encoding, at least, for a read to be encoded
 * here rather than on its own thread (about 2 ms of encoding). */
#define PROXY_ENCODE_MIN 64

struct proxy_encode;

/* The pool and its threads; NULL when out of memory or threads. */
struct proxy_encode *proxy_encode_new(void);

/* Encode items[0, n) (objects of snap) off c's thread: c is suspended
 * now and resumed once they are encoded, or once one of them cannot be
 * (its error kept in it, for the handler to find). Takes snap's
 * reference and items (freed here). Returns 0, or -EINVAL (n is 0),
 * -ENOMEM or -ESHUTDOWN with nothing taken and c as it was (the caller
 * encodes them itself). */
int proxy_encode_submit(struct proxy_encode *e, struct MHD_Connection *c,
			struct cache_snap *snap, struct cache_obj **items,
			size_t n);

/* Whether o has its protobuf encoding (or its error) kept already. */
static inline bool proxy_encode_kept(const struct cache_obj *o)
{
	return __atomic_load_n(&o->pb, __ATOMIC_ACQUIRE) != NULL;
}

/* Resume every waiting connection, the encodings left undone, and join
 * the thread; submit refuses from now on. NULL is a no-op. */
void proxy_encode_stop(struct proxy_encode *e);
void proxy_encode_free(struct proxy_encode *e);

#endif
