/*
 * pb_wire: protobuf's wire primitives (see pb_wire.h).
 */
#include "cache/pb_wire.h"

#include <errno.h>

size_t pb_varint_len(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

size_t pb_varint_put(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

int pb_put_varint(struct buf *out, uint64_t v)
{
	uint8_t tmp[10];
	return buf_add(out, tmp, pb_varint_put(tmp, v));
}

int pb_put_tag(struct buf *out, unsigned num, unsigned wire_type)
{
	return pb_put_varint(out, ((uint64_t)num << 3) | wire_type);
}

int pb_put_bytes(struct buf *out, unsigned num, const void *p, size_t n)
{
	if (pb_put_tag(out, num, 2) || pb_put_varint(out, n))
		return -ENOMEM;
	return n ? buf_add(out, p, n) : 0;
}
