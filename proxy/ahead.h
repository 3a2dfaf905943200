/*
 * ahead: a large indented List's items indented ahead of its sender, on
 * threads of their own.
 *
 * An indented LIST (curl's) is indented while it is sent, on the
 * libmicrohttpd thread serving it (reply.c): for 10,000 pods that thread
 * spends 60 % of its time in the indenter while the other cores idle.
 * But each List item indents alone: after an item the indenter is always
 * in the same state (depth 2, nothing pending). So the items from the
 * second on are cut into ranges of whole items; helper threads indent
 * the next few ranges ahead of the sender into buffers of their own,
 * which the sender copies out as it reaches them. A range that no helper
 * has claimed when the sender reaches it, the sender indents itself, as
 * without helpers, and a helper claims the one after. The bytes are the
 * same either way; a helper also keeps each item's indented length, as
 * the sender does.
 *
 * Memory: at most AHEAD ranges made and one being sent per body, each
 * about three times a range's input, never more than
 * PROXY_AHEAD_OUT_MAX (docs/LIMITS.md).
 *
 * Threads: _pool_new, _pool_stop and _pool_free on main's thread
 * (proxy_server_start/stop/release; stopped after the daemons, whose
 * bodies may wait on a range being made); _new, _take, _sent and _free
 * on the libmicrohttpd thread sending the body; the indenting on the
 * pool's threads. One lock, the pool's, guards every body's ranges and
 * the queue of bodies with a range to make.
 */
#ifndef PROXY_AHEAD_H
#define PROXY_AHEAD_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bodies smaller than this are indented by their sender alone. */
#define PROXY_AHEAD_MIN (1024 * 1024)
/* A range's indented bytes, at most, for in bytes of input: twice what
 * pods take and more. Past it (deep nesting indents to many times its
 * length) the range fails and the sender indents it as it sends it, in
 * bounded memory. */
#define PROXY_AHEAD_OUT_MAX(in) (4 * (in) + ((size_t)1 << 20))

struct proxy_ahead_pool;
struct proxy_ahead;

/* The helper threads: one per CPU but one, up to three. NULL when there
 * is a single CPU, or no memory or thread. */
struct proxy_ahead_pool *proxy_ahead_pool_new(void);
/* Let the threads finish the ranges they are making, and join them;
 * nothing is claimed from now on (a body's sender indents the rest). */
void proxy_ahead_pool_stop(struct proxy_ahead_pool *pool);
void proxy_ahead_pool_free(struct proxy_ahead_pool *pool);

/* A body's helpers: v[0, n) its pieces, and kept[i] (i < kcap) where a
 * List item piece's indented length is kept (proxy_reply_pieces_add_item;
 * NULL for other pieces). All borrowed: they must outlive
 * proxy_ahead_free(). NULL when pool is NULL, the body has fewer than
 * two items or is under PROXY_AHEAD_MIN, or out of memory. */
struct proxy_ahead *proxy_ahead_new(struct proxy_ahead_pool *pool,
				    const struct MHD_IoVec *v, size_t n,
				    size_t total, uint32_t *const *kept,
				    size_t kcap);

/*
 * The sender at piece at (its first byte), its indenter at an item's end
 * when ready. true: pieces [at, *next) are indented already, in
 * *out[0, *len) (waited for, when a helper is making them), valid until
 * proxy_ahead_sent(). false: the sender indents pieces [at, *next)
 * itself, then asks again at *next (SIZE_MAX: no more).
 */
bool proxy_ahead_take(struct proxy_ahead *a, size_t at, bool ready,
		      const char **out, size_t *len, size_t *next);
/* The bytes last taken are sent: their memory goes, and the helpers may
 * make one range more. */
void proxy_ahead_sent(struct proxy_ahead *a);
/* Waits for a helper still making one of its ranges. NULL is a no-op. */
void proxy_ahead_free(struct proxy_ahead *a);

#endif
