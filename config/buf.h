/*
 * buf: a growable byte buffer.
 *
 * Used wherever a response, a request URL or an encoded event is built up
 * piece by piece. The buffer owns its bytes; buf_steal() hands them over.
 * Every append returns 0 or -ENOMEM and leaves the buffer valid either
 * way, so a caller can append many pieces and check once with buf_ok().
 */
#ifndef CONFIG_BUF_H
#define CONFIG_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct buf {
	char *p; /* NUL-terminated when len > 0 */
	size_t len;
	size_t cap;
	bool failed; /* an append ran out of memory */
};

#define BUF_INIT                  \
	{                         \
		NULL, 0, 0, false \
	}

int buf_reserve(struct buf *b, size_t extra);
int buf_add(struct buf *b, const void *data, size_t n);
int buf_adds(struct buf *b, const char *s);
int buf_addc(struct buf *b, char c);
int buf_printf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int buf_vprintf(struct buf *b, const char *fmt, va_list ap);
int buf_add_u64(struct buf *b, uint64_t v);
/* Append s as a JSON string literal, quotes included. */
int buf_add_json_str(struct buf *b, const char *s, size_t n);
static inline bool buf_ok(const struct buf *b)
{
	return !b->failed;
}
void buf_reset(struct buf *b);
void buf_free(struct buf *b);
/* Take the bytes (malloc'd, NUL-terminated); the buffer is empty after. */
char *buf_steal(struct buf *b, size_t *len);


/* base64url without padding (RFC 4648 §5), as the apiserver's continue
 * tokens use. decode accepts padding too; returns 0 or -EINVAL. */
int buf_add_base64url(struct buf *b, const void *data, size_t n);
int buf_base64url_decode(const char *s, size_t n, struct buf *out);
/* The value of one hex digit, or -1: URL escapes and JSON \u escapes. */
static inline int buf_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}
#endif
