/*
 * pb_wire: protobuf's wire primitives: varints, tags and length-delimited
 * fields appended to a buffer. Used by the encoder (pb_encode.c,
 * pb_write.c) and by framing built from kept encodings (a List's items,
 * a WatchEvent's object). Pure functions on caller-owned buffers; any
 * thread.
 */
#ifndef CACHE_PB_WIRE_H
#define CACHE_PB_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "config/buf.h"

/* Each returns 0 or -ENOMEM. */
int pb_put_varint(struct buf *out, uint64_t v);
int pb_put_tag(struct buf *out, unsigned num, unsigned wire_type);
/* A length-delimited field: tag, length, bytes. */
int pb_put_bytes(struct buf *out, unsigned num, const void *p, size_t n);
/* How many bytes pb_put_varint(v) writes. */
size_t pb_varint_len(uint64_t v);
/* Write v's varint at p, which has room for pb_varint_len(v) bytes;
 * returns that length. */
size_t pb_varint_put(uint8_t *p, uint64_t v);

#endif
