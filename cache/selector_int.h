/*
 * selector_int: what the label and field selector parsers share (see
 * selector.h for the public contract).
 *
 * Both parsers write their errors straight into the caller's buffer
 * through struct msg, so building a message never allocates and an
 * invalid selector reports -EINVAL even when memory is short. Both also
 * need to know where a UTF-8 sequence ends: the label parser to quote a
 * bad key or value as Go's %q does, the field parser to name the rune
 * after a bad escape. Internal to cache/selector_*.c.
 */
#ifndef CACHE_SELECTOR_INT_H
#define CACHE_SELECTOR_INT_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* An append-only view of the caller's error buffer; truncates silently. */
struct msg {
	char *buf;
	size_t cap;
	size_t len;
};

static inline void msg_init(struct msg *m, char *buf, size_t cap)
{
	m->buf = cap ? buf : NULL;
	m->cap = m->buf ? cap : 0;
	m->len = 0;
	if (m->cap)
		m->buf[0] = '\0';
}

static inline void msg_addn(struct msg *m, const char *s, size_t n)
{
	if (!m->cap || m->len + 1 >= m->cap)
		return;
	if (n > m->cap - 1 - m->len)
		n = m->cap - 1 - m->len;
	memcpy(m->buf + m->len, s, n);
	m->len += n;
	m->buf[m->len] = '\0';
}

static inline void msg_add(struct msg *m, const char *s)
{
	msg_addn(m, s, strlen(s));
}

__attribute__((format(printf, 2, 3))) static inline void
msg_addf(struct msg *m, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (!m->cap || m->len + 1 >= m->cap)
		return;
	va_start(ap, fmt);
	r = vsnprintf(m->buf + m->len, m->cap - m->len, fmt, ap);
	va_end(ap);
	if (r < 0)
		return;
	m->len += (size_t)r;
	if (m->len >= m->cap)
		m->len = m->cap - 1;
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if none. */
static inline size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

#endif
