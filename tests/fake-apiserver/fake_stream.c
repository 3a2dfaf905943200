/*
 * fake_stream: bytes, WebSocket messages and SPDY/3.1 frames over an
 * upgraded socket (see fake_stream.h).
 */
#include "fake_stream.h"

#include <errno.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "config/alloc.h"

#define WAKE_MS 500
#define WS_MAX_MESSAGE (16u << 20)
#define SPDY_MAX_FRAME (16u << 20)

static bool stopping;

void fake_stream_stop(void)
{
	__atomic_store_n(&stopping, true, __ATOMIC_RELEASE);
}

static bool is_stopping(void)
{
	return __atomic_load_n(&stopping, __ATOMIC_ACQUIRE);
}

/* ---- bytes ---- */

void fake_io_init(struct fake_io *io, int fd, const char *extra, size_t n)
{
	memset(io, 0, sizeof(*io));
	io->fd = fd;
	if (n)
		buf_add(&io->pre, extra, n);
	pthread_mutex_init(&io->wlock, NULL);
}

void fake_io_free(struct fake_io *io)
{
	buf_free(&io->pre);
	pthread_mutex_destroy(&io->wlock);
}

ssize_t fake_io_read_some(struct fake_io *io, void *p, size_t n)
{
	if (io->pre_off < io->pre.len) {
		size_t k = io->pre.len - io->pre_off;
		if (k > n)
			k = n;
		memcpy(p, io->pre.p + io->pre_off, k);
		io->pre_off += k;
		return (ssize_t)k;
	}
	for (;;) {
		if (is_stopping())
			return -1;
		struct pollfd pf = { .fd = io->fd, .events = POLLIN };
		int r = poll(&pf, 1, WAKE_MS);
		if (r < 0 && errno != EINTR)
			return -1;
		if (r <= 0)
			continue;
		ssize_t k = recv(io->fd, p, n, 0);
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		return k;
	}
}

int fake_io_read(struct fake_io *io, void *p, size_t n)
{
	char *c = p;
	while (n) {
		ssize_t k = fake_io_read_some(io, c, n);
		if (k <= 0)
			return -1;
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

int fake_io_write(struct fake_io *io, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t k = send(io->fd, c, n, MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN) {
			struct pollfd pf = { .fd = io->fd, .events = POLLOUT };
			if (is_stopping() || poll(&pf, 1, WAKE_MS) < 0)
				return -1;
			continue;
		}
		if (k <= 0)
			return -1;
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

/* ---- WebSocket ---- */

void fake_ws_accept(const char *key, char out[29])
{
	static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
	unsigned char md[SHA_DIGEST_LENGTH];
	struct buf b = BUF_INIT;
	buf_printf(&b, "%s%s", key, guid);
	SHA1((const unsigned char *)b.p, b.len, md);
	buf_free(&b);
	EVP_EncodeBlock((unsigned char *)out, md, sizeof(md));
}

/* One frame; with io->wlock held. */
static int ws_frame_locked(struct fake_io *io, int opcode, const void *p,
			   size_t n)
{
	unsigned char h[10];
	size_t hl = 2;
	h[0] = 0x80 | (unsigned char)opcode;
	if (n < 126) {
		h[1] = (unsigned char)n;
	} else if (n < 65536) {
		h[1] = 126;
		h[2] = (unsigned char)(n >> 8);
		h[3] = (unsigned char)n;
		hl = 4;
	} else {
		h[1] = 127;
		for (int i = 0; i < 8; i++)
			h[2 + i] = (unsigned char)((uint64_t)n >> (56 - 8 * i));
		hl = 10;
	}
	return fake_io_write(io, h, hl) || fake_io_write(io, p, n) ? -1 : 0;
}

static int ws_frame(struct fake_io *io, int opcode, const void *p, size_t n)
{
	pthread_mutex_lock(&io->wlock);
	int rc = ws_frame_locked(io, opcode, p, n);
	pthread_mutex_unlock(&io->wlock);
	return rc;
}

int fake_ws_write(struct fake_io *io, int opcode, const void *p, size_t n)
{
	return ws_frame(io, opcode, p, n);
}

int fake_ws_read(struct fake_io *io, struct buf *msg)
{
	int opcode = 0;
	buf_reset(msg);
	for (;;) {
		unsigned char h[2], ext[8], mask[4];
		if (fake_io_read(io, h, 2))
			return -1;
		int op = h[0] & 0x0f;
		bool fin = h[0] & 0x80;
		uint64_t n = h[1] & 0x7f;
		if (n == 126) {
			if (fake_io_read(io, ext, 2))
				return -1;
			n = (uint64_t)ext[0] << 8 | ext[1];
		} else if (n == 127) {
			if (fake_io_read(io, ext, 8))
				return -1;
			n = 0;
			for (int i = 0; i < 8; i++)
				n = n << 8 | ext[i];
		}
		/* a client must mask every frame */
		if (!(h[1] & 0x80) || n > WS_MAX_MESSAGE ||
		    msg->len + n > WS_MAX_MESSAGE || fake_io_read(io, mask, 4))
			return -1;
		char *payload = xmalloc(n ? n : 1);
		if (!payload || fake_io_read(io, payload, n)) {
			free(payload);
			return -1;
		}
		for (uint64_t i = 0; i < n; i++)
			payload[i] ^= (char)mask[i & 3];
		if (op == 9) { /* ping */
			ws_frame(io, 10, payload, n);
		} else if (op == 8) { /* close: answer it, done */
			ws_frame(io, 8, payload, n < 2 ? n : 2);
			free(payload);
			return 0;
		} else if (op != 10) {
			if (op)
				opcode = op;
			buf_add(msg, payload, n);
			if (fin) {
				free(payload);
				return buf_ok(msg) ? opcode : -1;
			}
		}
		free(payload);
	}
}

/* ---- SPDY/3.1 ---- */

/* The header compression dictionary of SPDY/3 (section 2.6.10.1): these
 * names, each after its length as 4 bytes big-endian, then TAIL. */
static const char *const dict_words[] = {
	"options",
	"head",
	"post",
	"put",
	"delete",
	"trace",
	"accept",
	"accept-charset",
	"accept-encoding",
	"accept-language",
	"accept-ranges",
	"age",
	"allow",
	"authorization",
	"cache-control",
	"connection",
	"content-base",
	"content-encoding",
	"content-language",
	"content-length",
	"content-location",
	"content-md5",
	"content-range",
	"content-type",
	"date",
	"etag",
	"expect",
	"expires",
	"from",
	"host",
	"if-match",
	"if-modified-since",
	"if-none-match",
	"if-range",
	"if-unmodified-since",
	"last-modified",
	"location",
	"max-forwards",
	"pragma",
	"proxy-authenticate",
	"proxy-authorization",
	"range",
	"referer",
	"retry-after",
	"server",
	"te",
	"trailer",
	"transfer-encoding",
	"upgrade",
	"user-agent",
	"vary",
	"via",
	"warning",
	"www-authenticate",
	"method",
	"get",
	"status",
	"200 OK",
	"version",
	"HTTP/1.1",
	"url",
	"public",
	"set-cookie",
	"keep-alive",
	"origin",
};
#define DICT_TAIL                                                            \
	"100101201202205206300302303304305306307402405406407408409410411412" \
	"413414415416417502504505203 Non-Authoritative Information204 No "   \
	"Content301 Moved Permanently400 Bad Request401 Unauthorized403 "    \
	"Forbidden404 Not Found500 Internal Server Error501 Not "            \
	"Implemented503 Service UnavailableJan Feb Mar Apr May Jun Jul Aug " \
	"Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, "      \
	"GMTchunked,text/html,image/png,image/jpg,image/gif,application/"    \
	"xml,application/xhtml+xml,text/plain,text/javascript,"              \
	"publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-"    \
	"8859-1,utf-,*,enq=0."

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void dict_build(struct buf *d)
{
	for (size_t i = 0; i < sizeof(dict_words) / sizeof(*dict_words); i++) {
		unsigned char l[4];
		put32(l, (uint32_t)strlen(dict_words[i]));
		buf_add(d, l, 4);
		buf_add(d, dict_words[i], strlen(dict_words[i]));
	}
	buf_add(d, DICT_TAIL, strlen(DICT_TAIL));
}

struct fake_spdy {
	struct fake_io *io;
	bool tunnel;
	struct buf in; /* tunnel: the current message's bytes */
	size_t in_off;
	struct buf dict;
	z_stream inf, def; /* one zlib stream each way for the session */
	bool inf_ok, def_ok;
};

struct fake_spdy *fake_spdy_new(struct fake_io *io, bool tunnel)
{
	struct fake_spdy *s = xcalloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->io = io;
	s->tunnel = tunnel;
	dict_build(&s->dict);
	s->inf_ok = inflateInit(&s->inf) == Z_OK;
	s->def_ok = deflateInit(&s->def, Z_DEFAULT_COMPRESSION) == Z_OK &&
		    deflateSetDictionary(&s->def, (const Bytef *)s->dict.p,
					 (uInt)s->dict.len) == Z_OK;
	if (!s->inf_ok || !s->def_ok || !buf_ok(&s->dict)) {
		fake_spdy_free(s);
		return NULL;
	}
	return s;
}

void fake_spdy_free(struct fake_spdy *s)
{
	if (!s)
		return;
	if (s->inf_ok)
		inflateEnd(&s->inf);
	if (s->def_ok)
		deflateEnd(&s->def);
	buf_free(&s->in);
	buf_free(&s->dict);
	free(s);
}

static int s_read(struct fake_spdy *s, void *p, size_t n)
{
	if (!s->tunnel)
		return fake_io_read(s->io, p, n);
	char *c = p;
	while (n) {
		if (s->in_off == s->in.len) {
			s->in_off = 0;
			int op = fake_ws_read(s->io, &s->in);
			if (op <= 0)
				return -1;
			continue;
		}
		size_t k = s->in.len - s->in_off;
		if (k > n)
			k = n;
		memcpy(c, s->in.p + s->in_off, k);
		s->in_off += k;
		c += k;
		n -= k;
	}
	return 0;
}

/* One frame out; with the io's write lock held by the caller. */
static int s_write(struct fake_spdy *s, const void *p, size_t n)
{
	if (s->tunnel)
		return ws_frame_locked(s->io, FAKE_WS_BINARY, p, n);
	return fake_io_write(s->io, p, n);
}

static void control_head(unsigned char *h, int type, int flags, size_t len)
{
	h[0] = 0x80;
	h[1] = 3;
	h[2] = (unsigned char)(type >> 8);
	h[3] = (unsigned char)type;
	h[4] = (unsigned char)flags;
	h[5] = (unsigned char)(len >> 16);
	h[6] = (unsigned char)(len >> 8);
	h[7] = (unsigned char)len;
}

/* The name/value block (SPDY/3 2.6.10) of a "name\0value\0" list. */
static int inflate_headers(struct fake_spdy *s, const unsigned char *p,
			   size_t n, struct buf *out)
{
	struct buf plain = BUF_INIT;
	unsigned char tmp[16384];
	s->inf.next_in = (Bytef *)p;
	s->inf.avail_in = (uInt)n;
	int rc = 0;
	while (s->inf.avail_in) {
		s->inf.next_out = tmp;
		s->inf.avail_out = sizeof(tmp);
		int z = inflate(&s->inf, Z_SYNC_FLUSH);
		if (z == Z_NEED_DICT) {
			if (inflateSetDictionary(&s->inf,
						 (const Bytef *)s->dict.p,
						 (uInt)s->dict.len) != Z_OK) {
				rc = -1;
				break;
			}
			continue;
		}
		if (z != Z_OK && z != Z_BUF_ERROR) {
			rc = -1;
			break;
		}
		buf_add(&plain, tmp, sizeof(tmp) - s->inf.avail_out);
		if (z == Z_BUF_ERROR && s->inf.avail_out)
			break;
	}
	/* what zlib still holds for this block */
	for (int more = 1; !rc && more;) {
		s->inf.next_out = tmp;
		s->inf.avail_out = sizeof(tmp);
		int z = inflate(&s->inf, Z_SYNC_FLUSH);
		buf_add(&plain, tmp, sizeof(tmp) - s->inf.avail_out);
		more = z == Z_OK && s->inf.avail_out == 0;
	}
	const unsigned char *q = (const unsigned char *)plain.p;
	size_t len = plain.len, off = 4;
	if (rc || len < 4) {
		buf_free(&plain);
		return -1;
	}
	uint32_t pairs = get32(q);
	for (uint32_t i = 0; i < pairs && !rc; i++) {
		for (int part = 0; part < 2; part++) {
			if (len - off < 4) {
				rc = -1;
				break;
			}
			uint32_t l = get32(q + off);
			off += 4;
			if (l > len - off) {
				rc = -1;
				break;
			}
			for (uint32_t k = 0; k < l; k++) {
				char ch = (char)q[off + k];
				if (!part && ch >= 'A' && ch <= 'Z')
					ch = (char)(ch - 'A' + 'a');
				buf_addc(out, ch ? ch : ','); /* NUL: values */
			}
			buf_addc(out, '\0');
			off += l;
		}
	}
	buf_free(&plain);
	return rc;
}

const char *fake_spdy_header(const struct fake_spdy_frame *f, const char *name)
{
	const struct buf *h = &f->headers;
	for (size_t i = 0; i < h->len;) {
		const char *k = h->p + i;
		const char *v = k + strlen(k) + 1;
		if (!strcmp(k, name))
			return v;
		i = (size_t)(v - h->p) + strlen(v) + 1;
	}
	return NULL;
}

int fake_spdy_next(struct fake_spdy *s, struct fake_spdy_frame *f)
{
	for (;;) {
		unsigned char h[8];
		buf_reset(&f->data);
		buf_reset(&f->headers);
		f->fin = false;
		f->id = 0;
		if (s_read(s, h, 8))
			return f->ev = FAKE_SPDY_END, 0;
		size_t len = (size_t)h[5] << 16 | (size_t)h[6] << 8 | h[7];
		unsigned char *body = xmalloc(len ? len : 1);
		if (!body || len > SPDY_MAX_FRAME || s_read(s, body, len)) {
			free(body);
			return f->ev = FAKE_SPDY_END, 0;
		}
		int flags = h[4];
		if (!(h[0] & 0x80)) { /* DATA */
			f->ev = FAKE_SPDY_DATA;
			f->id = get32(h) & 0x7fffffff;
			f->fin = flags & 1;
			buf_add(&f->data, body, len);
			free(body);
			return 0;
		}
		int type = h[2] << 8 | h[3];
		int rc = 1;		      /* 1: not for the caller, go on */
		if (type == 1 && len >= 10) { /* SYN_STREAM */
			f->ev = FAKE_SPDY_SYN;
			f->id = get32(body) & 0x7fffffff;
			f->fin = flags & 1;
			rc = inflate_headers(s, body + 10, len - 10,
					     &f->headers);
			if (rc)
				f->ev = FAKE_SPDY_END;
			rc = 0;
		} else if (type == 3 && len >= 8) { /* RST_STREAM */
			f->ev = FAKE_SPDY_RST;
			f->id = get32(body) & 0x7fffffff;
			rc = 0;
		} else if (type == 6 && len == 4) { /* PING: echo it */
			unsigned char out[12];
			control_head(out, 6, 0, 4);
			memcpy(out + 8, body, 4);
			pthread_mutex_lock(&s->io->wlock);
			s_write(s, out, sizeof(out));
			pthread_mutex_unlock(&s->io->wlock);
		} else if (type == 7) { /* GOAWAY */
			f->ev = FAKE_SPDY_END;
			rc = 0;
		} else if (type == 8 && len >= 4) { /* HEADERS: read, drop */
			struct buf tmp = BUF_INIT;
			inflate_headers(s, body + 4, len - 4, &tmp);
			buf_free(&tmp);
		}
		free(body);
		if (!rc)
			return 0;
	}
}

int fake_spdy_reply(struct fake_spdy *s, uint32_t id)
{
	unsigned char plain[4] = { 0, 0, 0, 0 }; /* no headers */
	unsigned char z[64];
	pthread_mutex_lock(&s->io->wlock);
	s->def.next_in = plain;
	s->def.avail_in = sizeof(plain);
	s->def.next_out = z;
	s->def.avail_out = sizeof(z);
	int rc = deflate(&s->def, Z_SYNC_FLUSH) == Z_OK && !s->def.avail_in ?
			 0 :
			 -1;
	size_t zl = sizeof(z) - s->def.avail_out;
	unsigned char out[8 + 4 + sizeof(z)];
	control_head(out, 2, 0, 4 + zl);
	put32(out + 8, id);
	memcpy(out + 12, z, zl);
	if (!rc)
		rc = s_write(s, out, 12 + zl);
	pthread_mutex_unlock(&s->io->wlock);
	return rc;
}

int fake_spdy_data(struct fake_spdy *s, uint32_t id, const void *p, size_t n,
		   bool fin)
{
	const char *c = p;
	int rc = 0;
	do {
		size_t k = n > 65536 ? 65536 : n;
		unsigned char *out = xmalloc(8 + k);
		if (!out)
			return -1;
		put32(out, id & 0x7fffffff);
		out[4] = fin && k == n ? 1 : 0;
		out[5] = (unsigned char)(k >> 16);
		out[6] = (unsigned char)(k >> 8);
		out[7] = (unsigned char)k;
		memcpy(out + 8, c, k);
		pthread_mutex_lock(&s->io->wlock);
		rc = s_write(s, out, 8 + k);
		pthread_mutex_unlock(&s->io->wlock);
		free(out);
		c += k;
		n -= k;
	} while (!rc && n);
	return rc;
}
