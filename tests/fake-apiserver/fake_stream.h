/*
 * fake_stream: the wire protocols of the fake's upgraded connections
 * (pods/exec, attach, portforward), written from RFC 6455 and the
 * SPDY/3.1 draft: a byte stream over the socket libmicrohttpd hands
 * over, WebSocket messages over that, and SPDY/3.1 frames over either
 * (kubectl's port-forward tunnels SPDY in WebSocket binary messages).
 *
 * Every read is blocking but wakes every half second to see whether the
 * fake is stopping (fake_stream_stop), so a session never outlives it.
 * Writes on one stream are serialized by its lock, so a port-forward
 * thread may write while the session thread reads.
 */
#ifndef FAKE_STREAM_H
#define FAKE_STREAM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "config/buf.h"

/* The socket, with the bytes libmicrohttpd already read from it. */
struct fake_io {
	int fd;
	struct buf pre;
	size_t pre_off;
	pthread_mutex_t wlock;
};

void fake_io_init(struct fake_io *io, int fd, const char *extra, size_t n);
void fake_io_free(struct fake_io *io);
/* Exactly n bytes: 0, or -1 at EOF, error or stop. */
int fake_io_read(struct fake_io *io, void *p, size_t n);
/* Some bytes (at most n): how many, 0 at EOF, -1 on error or stop. */
ssize_t fake_io_read_some(struct fake_io *io, void *p, size_t n);
int fake_io_write(struct fake_io *io, const void *p, size_t n);
/* Wake every blocked read; they return -1. */
void fake_stream_stop(void);

/* ---- WebSocket (server side) ---- */

#define FAKE_WS_TEXT 1
#define FAKE_WS_BINARY 2
#define FAKE_WS_CLOSE 8

/* Sec-WebSocket-Accept for a Sec-WebSocket-Key (29 bytes with NUL). */
void fake_ws_accept(const char *key, char out[29]);
/* The next data message, whole (fragments joined; pings answered):
 * its opcode, or 0 when the peer closed (our close frame answered), -1
 * on error. */
int fake_ws_read(struct fake_io *io, struct buf *msg);
/* One unmasked frame, FIN set. */
int fake_ws_write(struct fake_io *io, int opcode, const void *p, size_t n);

/* ---- SPDY/3.1 (server side) ---- */

struct fake_spdy;
/* Bytes under the session: raw on the socket, or in WebSocket binary
 * messages (tunnel true). */
struct fake_spdy *fake_spdy_new(struct fake_io *io, bool tunnel);
void fake_spdy_free(struct fake_spdy *s);

enum fake_spdy_ev {
	FAKE_SPDY_END, /* the peer closed or broke the session */
	FAKE_SPDY_SYN, /* a new stream: id, headers */
	FAKE_SPDY_DATA,
	FAKE_SPDY_RST,
};
struct fake_spdy_frame {
	enum fake_spdy_ev ev;
	uint32_t id;
	bool fin;
	struct buf data;    /* DATA bytes */
	struct buf headers; /* SYN: "name\0value\0" pairs, names lower */
};
/* The next event; PING is answered, SETTINGS and WINDOW_UPDATE are
 * ignored (the fake enforces no flow control). f->data and f->headers
 * are reset first; the caller frees them at the end. */
int fake_spdy_next(struct fake_spdy *s, struct fake_spdy_frame *f);
/* A SYN_REPLY with no headers. */
int fake_spdy_reply(struct fake_spdy *s, uint32_t id);
int fake_spdy_data(struct fake_spdy *s, uint32_t id, const void *p, size_t n,
		   bool fin);
/* The value of a header of a SYN, or NULL. */
const char *fake_spdy_header(const struct fake_spdy_frame *f, const char *name);

#endif
