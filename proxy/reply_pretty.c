/*
 * reply_pretty: bodies indented (and gzip-compressed) while they are
 * sent, a chunk at a time, never copied whole (see reply_int.h).
 *
 * The pieces of a LIST (cached objects' bytes, unchanged) or a
 * renderer's parts go through the streaming indenter (pretty.c)
 * straight into the buffer libmicrohttpd sends from; a large List's
 * items partly on the helpers of ahead.c. Each List item's indented
 * length is kept in its object, so that the next LIST of mostly the same
 * items is sent with its length.
 */
#include <stdlib.h>
#include <string.h>

#include "config/alloc.h"
#include "proxy/ahead.h"
#include "proxy/gzip.h"
#include "proxy/pretty.h"
#include "proxy/reply_int.h"

/*
 * A body sent a chunk at a time: either pieces (the cached objects,
 * unchanged) or a renderer's output, made a part at a time as
 * libmicrohttpd asks for more. A reader walks it, through a streaming
 * indenter when the client gets indented JSON, straight into the
 * buffer libmicrohttpd sends from, and through a gzip stream (gzip.h)
 * first for gzip. Held per client: this state, one rendered part, plus
 * for gzip the stream's 164 KiB and one chunk of its input.
 *
 * A body of unknown length goes chunked, and libmicrohttpd builds each
 * chunk in the connection's own memory (--connection-memory-kib, 16 KiB
 * by default, kept small for idle watchers): a send, a return to epoll
 * and a wakeup of the client for every 16 KiB. So indented pieces go
 * with a Content-Length when their length is known, read PRETTY_BLOCK at
 * a time into the response's own buffer: a List's items' indented
 * lengths are kept in the objects as they are first sent, and counted
 * up front only when few are missing (pretty_length(); docs/
 * PERFORMANCE.md, B12).
 */
#define PRETTY_CHUNK (64 * 1024)
/* What an indented body of known length is read in: indenting, not the
 * sends, bounds it (B12 was the same with PIECES_BLOCK), so it stays
 * smaller for a client that stops reading. */
#define PRETTY_BLOCK (256 * 1024)

struct pretty_reader {
	struct proxy_reply_pieces pc; /* the pieces, when fill is NULL */
	size_t at, off;
	bool (*fill)(void *cls, struct buf *b, size_t want); /* or this */
	struct buf rb;	   /* its part being sent */
	size_t roff;	   /* rb's bytes already read */
	bool rend, failed; /* fill has no more; rendering failed */
	bool indent;	   /* false: the bytes go as they are */
	struct proxy_pretty_indenter st;
	struct proxy_gzip *gz; /* NULL: sent as it is */
	char *zin;	       /* PRETTY_CHUNK bytes of (indented) input */
	size_t zoff, zlen;     /* zin's bytes the stream took, and held */
	bool zlast;	       /* zin holds the body's end */
	/* the pieces' kept lengths (proxy_reply_pieces_add_item), filled
	 * in as the items are indented: piece's output so far, and whether
	 * it started where a List item does */
	uint32_t **kept;
	size_t kcap, piece, piece_out;
	bool piece_item;
	/* the items the helpers indent ahead (ahead.h), or NULL: their pool
	 * until the first item ends (where the helpers' part starts), the
	 * next piece to ask them about, and the bytes they made being sent */
	struct proxy_ahead_pool *ahead_pool;
	struct proxy_ahead *ahead;
	size_t ahead_next;
	const char *ab;
	size_t alen, aoff;
	void (*done)(void *cls);
	void *cls;
};

/* The body's next unread bytes: false when none are left (or rendering
 * failed: pr->failed). */
static bool src_span(struct pretty_reader *pr, const char **p, size_t *len)
{
	if (!pr->fill) {
		if (pr->at == pr->pc.n)
			return false;
		const struct MHD_IoVec *v = &pr->pc.v[pr->at];
		*p = (const char *)v->iov_base + pr->off;
		*len = v->iov_len - pr->off;
		return true;
	}
	if (pr->roff == pr->rb.len) {
		buf_reset(&pr->rb);
		pr->roff = 0;
		while (!pr->rend && !pr->rb.len)
			pr->rend = !pr->fill(pr->cls, &pr->rb, RENDER_PART);
		if (!buf_ok(&pr->rb)) {
			pr->failed = true;
			return false;
		}
		if (!pr->rb.len)
			return false;
	}
	*p = pr->rb.p + pr->roff;
	*len = pr->rb.len - pr->roff;
	return true;
}

static void src_used(struct pretty_reader *pr, size_t used)
{
	if (pr->fill) {
		pr->roff += used;
		return;
	}
	pr->off += used;
	if (pr->off == pr->pc.v[pr->at].iov_len) {
		/* a List item indented whole from where one starts to
		 * where one ends: its length, kept for the next time; with
		 * the output still pending when the chunk was full (the
		 * item's closing line), which is the item's too */
		struct proxy_pretty_indenter end = pr->st;
		size_t out = pr->piece_out + end.nl + end.sp + (end.c != 0);
		end.nl = false;
		end.sp = 0;
		end.c = 0;
		if (pr->piece == pr->at && pr->piece_item &&
		    proxy_pretty_at_item(&end, false) && out < UINT32_MAX)
			__atomic_store_n(pr->kept[pr->at], (uint32_t)out,
					 __ATOMIC_RELAXED);
		pr->at++;
		pr->off = 0;
	}
}

/* The helpers' indented items into out[*n, max) while the body is at a
 * range they made: true when it was. */
static bool ahead_fill(struct pretty_reader *pr, char *out, size_t max,
		       size_t *n)
{
	if (!pr->ab) {
		if (pr->off || pr->at != pr->ahead_next)
			return false;
		size_t next;
		bool got = proxy_ahead_take(
			pr->ahead, pr->at, proxy_pretty_at_item(&pr->st, false),
			&pr->ab, &pr->alen, &next);
		pr->ahead_next = next;
		if (!got) /* the next pieces are the sender's own */
			return false;
		pr->aoff = 0;
	}
	size_t k =
		pr->alen - pr->aoff < max - *n ? pr->alen - pr->aoff : max - *n;
	memcpy(out + *n, pr->ab + pr->aoff, k);
	*n += k;
	pr->aoff += k;
	if (pr->aoff == pr->alen) {
		/* at the range's end, an item's: the indenter's state there */
		proxy_ahead_sent(pr->ahead);
		pr->ab = NULL;
		pr->at = pr->ahead_next;
		pr->off = 0;
		pr->st = (struct proxy_pretty_indenter){ .depth = 2 };
	}
	return true;
}

/* Output (indented when asked) into out[0..max), 0 once all is out. */
static size_t pretty_fill(struct pretty_reader *pr, char *out, size_t max)
{
	size_t n = 0, used, len;
	const char *p;
	while (n < max) {
		if (pr->ahead_pool && !pr->off &&
		    proxy_pretty_at_item(&pr->st, false)) {
			/* the first item's end, if the items are a List's */
			pr->ahead = proxy_ahead_new(pr->ahead_pool, pr->pc.v,
						    pr->pc.n, pr->pc.total,
						    pr->kept, pr->kcap);
			pr->ahead_pool = NULL;
			pr->ahead_next = pr->at;
		}
		if (pr->ahead && ahead_fill(pr, out, max, &n))
			continue;
		if (!src_span(pr, &p, &len))
			break;
		if (pr->indent) {
			if (!pr->fill && pr->piece != pr->at &&
			    pr->at < pr->kcap && pr->kept[pr->at]) {
				pr->piece = pr->at; /* an item starts */
				pr->piece_out = 0;
				pr->piece_item =
					proxy_pretty_at_item(&pr->st, true);
			}
			size_t k = proxy_pretty_indent_step(
				&pr->st, p, len, &used, out + n, max - n);
			n += k;
			pr->piece_out += k;
		} else {
			used = len < max - n ? len : max - n;
			memcpy(out + n, p, used);
			n += used;
		}
		src_used(pr, used);
	}
	size_t k;
	while (pr->indent && !pr->failed && n < max &&
	       (k = proxy_pretty_indent_end(&pr->st, out + n, max - n)))
		n += k;
	return n;
}

static ssize_t pretty_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct pretty_reader *pr = cls;
	size_t n = pretty_fill(pr, buf, max);
	if (pr->failed)
		return MHD_CONTENT_READER_END_WITH_ERROR;
	return n ? (ssize_t)n : MHD_CONTENT_READER_END_OF_STREAM;
}

static ssize_t pretty_gzip_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct pretty_reader *pr = cls;
	size_t n = 0;
	while (n < max && !proxy_gzip_ended(pr->gz)) {
		if (pr->zoff == pr->zlen && !pr->zlast) {
			pr->zlen = pretty_fill(pr, pr->zin, PRETTY_CHUNK);
			pr->zoff = 0;
			if (pr->failed)
				return MHD_CONTENT_READER_END_WITH_ERROR;
			pr->zlast = !pr->zlen;
		}
		const void *in = pr->zin + pr->zoff;
		size_t left = pr->zlen - pr->zoff;
		ssize_t k = proxy_gzip_put(pr->gz, &in, &left, pr->zlast,
					   buf + n, max - n);
		if (k < 0)
			return MHD_CONTENT_READER_END_WITH_ERROR;
		pr->zoff = pr->zlen - left;
		n += (size_t)k;
	}
	return n ? (ssize_t)n : MHD_CONTENT_READER_END_OF_STREAM;
}

/* The reader's own memory, not its owner's (done is not called). */
static void pretty_reader_drop(struct pretty_reader *pr)
{
	proxy_ahead_free(pr->ahead); /* it reads the pieces */
	proxy_gzip_free(pr->gz);
	free(pr->zin);
	free(pr->pc.v);
	free(pr->kept);
	buf_free(&pr->rb);
	free(pr);
}

static void pretty_reader_free(void *cls)
{
	struct pretty_reader *pr = cls;
	/* no helper reads the pieces' memory once done() lets it go */
	proxy_ahead_free(pr->ahead);
	pr->ahead = NULL;
	pr->done(pr->cls);
	pretty_reader_drop(pr);
}

/* The streamed response of pr's body (pr taken over on success; then the
 * response calls done), indented as pr says, gzip-compressed when gz;
 * size is the length of what the reader writes, when known (not with
 * gz), else MHD_SIZE_UNKNOWN. NULL when it could not be built (pr freed,
 * its source and done left to the caller). */
static struct MHD_Response *pretty_stream(struct pretty_reader *pr, bool gz,
					  uint64_t size)
{
	if (reply_is_head()) {
		struct MHD_Response *resp = reply_headless();
		if (resp)
			pretty_reader_free(pr);
		else
			goto fail;
		return resp;
	}
	if (gz) {
		pr->gz = proxy_gzip_new();
		pr->zin = xmalloc(PRETTY_CHUNK);
		if (!pr->gz || !pr->zin)
			goto fail;
	}
	struct MHD_Response *resp = MHD_create_response_from_callback(
		gz ? MHD_SIZE_UNKNOWN : size,
		!gz && size != MHD_SIZE_UNKNOWN ? PRETTY_BLOCK : PRETTY_CHUNK,
		gz ? pretty_gzip_read : pretty_read, pr, pretty_reader_free);
	if (!resp)
		goto fail;
	if (gz) {
		MHD_add_response_header(resp, "Content-Encoding", "gzip");
		MHD_add_response_header(resp, "Vary", "Accept-Encoding");
	}
	return resp;
fail:
	pr->pc.v = NULL; /* the caller's still */
	pr->rb = (struct buf)BUF_INIT;
	pretty_reader_drop(pr);
	return NULL;
}

/* The length of the pieces' body indented, from the List items' kept
 * lengths (*kept[i]) and a count of the rest; MHD_SIZE_UNKNOWN when the
 * items not kept yet are more than an eighth of the body. Counting costs
 * over half as much as indenting, and must be done before the first
 * byte: a body mostly new goes chunked instead, its items' lengths kept
 * while it is sent (pretty_fill()); the few new items of a body mostly
 * known are counted here, and kept too. */
static uint64_t pretty_length(const struct proxy_reply_pieces *pc,
			      uint32_t *const *kept, size_t kcap)
{
	struct proxy_pretty_indenter st = { 0 };
	uint64_t len = 0;
	size_t unknown = 0;
	/* first what is not known, without counting any of it */
	for (size_t i = 0; i < pc->n && i < kcap; i++)
		if (kept[i] && !__atomic_load_n(kept[i], __ATOMIC_RELAXED))
			unknown += pc->v[i].iov_len;
	if (unknown > pc->total / 8)
		return MHD_SIZE_UNKNOWN;
	for (size_t i = 0; i < pc->n; i++) {
		const char *p = pc->v[i].iov_base;
		size_t n = pc->v[i].iov_len;
		uint32_t *slot = i < kcap ? kept[i] : NULL;
		if (!slot || !proxy_pretty_at_item(&st, true)) {
			len += proxy_pretty_indent_count(&st, p, n);
			continue;
		}
		uint32_t k = __atomic_load_n(slot, __ATOMIC_RELAXED);
		if (k) {
			len += k;
			st.open =
				false; /* as proxy_pretty_at_item(&st, false) */
			continue;
		}
		size_t c = proxy_pretty_indent_count(&st, p, n);
		len += c;
		if (proxy_pretty_at_item(&st, false) && c && c < UINT32_MAX)
			__atomic_store_n(slot, (uint32_t)c, __ATOMIC_RELAXED);
	}
	return len + proxy_pretty_indent_count_end(&st);
}

struct MHD_Response *reply_pretty_pieces(struct proxy_reply_pieces *pc,
					 uint32_t **kept, size_t kcap, bool gz,
					 struct proxy_ahead_pool *ahead,
					 void (*done)(void *cls), void *cls)
{
	struct pretty_reader *rd = xcalloc(1, sizeof(*rd));
	if (!rd) {
		free(kept);
		return NULL;
	}
	bool head = reply_is_head();
	uint64_t size = MHD_SIZE_UNKNOWN;
	if (!gz && !head)
		size = pretty_length(pc, kept, kcap);
	rd->kept = kept; /* the reader's now */
	rd->kcap = kcap;
	rd->piece = SIZE_MAX;
	rd->pc = *pc;
	rd->indent = true;
	if (!head && pc->total >= PROXY_AHEAD_MIN)
		rd->ahead_pool = ahead;
	rd->done = done;
	rd->cls = cls;
	return pretty_stream(rd, gz, size);
}

struct MHD_Response *reply_gzip_pieces(struct proxy_reply_pieces *pc,
				       void (*done)(void *cls), void *cls)
{
	struct pretty_reader *rd = xcalloc(1, sizeof(*rd));
	if (!rd)
		return NULL;
	rd->piece = SIZE_MAX;
	rd->pc = *pc;
	rd->indent = false;
	rd->done = done;
	rd->cls = cls;
	return pretty_stream(rd, true, MHD_SIZE_UNKNOWN);
}

struct MHD_Response *
reply_pretty_render(struct buf *first,
		    bool (*fill)(void *cls, struct buf *b, size_t want),
		    void *cls, void (*done)(void *cls), bool indent, bool gz)
{
	struct pretty_reader *pr = xcalloc(1, sizeof(*pr));
	if (!pr)
		return NULL;
	pr->fill = fill;
	pr->rb = *first; /* sent first */
	pr->indent = indent;
	pr->done = done;
	pr->cls = cls;
	struct MHD_Response *resp = pretty_stream(pr, gz, MHD_SIZE_UNKNOWN);
	if (resp)
		*first = (struct buf)BUF_INIT; /* the reader's */
	return resp;
}
