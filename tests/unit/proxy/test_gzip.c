/*
 * test_gzip: the answers' gzip streams, inflated by zlib (another
 * implementation): every byte comes back whatever the input's split and
 * the room given for the output, down to one byte at a time; empty,
 * incompressible and large inputs; a stream is one gzip member with the
 * input's length in its trailer; no memory is reported.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/alloc.h"
#include "config/buf.h"
#include "proxy/gzip.h"
#include "gunzip.h"
#include "check.h"

/* A JSON list like the proxy's, n items: compressible, not uniform. */
static void make_json(struct buf *b, int n)
{
	buf_adds(b, "{\"kind\":\"PodList\",\"items\":[");
	for (int i = 0; i < n; i++) {
		char item[256];
		int k = snprintf(item, sizeof(item),
				 "%s{\"metadata\":{\"name\":\"pod-%d\","
				 "\"uid\":\"%08x-%04x\",\"labels\":{\"app\":"
				 "\"a%d\"}},\"spec\":{\"nodeName\":\"n%d\"}}",
				 i ? "," : "", i, (unsigned)(i * 2654435761u),
				 i % 65536, i % 7, i % 13);
		buf_add(b, item, (size_t)k);
	}
	buf_adds(b, "]}\n");
}

/* Random bytes: what deflate cannot shrink. */
static void make_noise(struct buf *b, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		char c = (char)(seed >> 16);
		buf_add(b, &c, 1);
	}
}

/* in[0, n) through one stream, fed split bytes and given room bytes at a
 * time; the output in out. false on an error or a stream that never
 * ends. */
static bool squeeze(const char *in, size_t n, size_t split, size_t room,
		    struct buf *out)
{
	struct proxy_gzip *g = proxy_gzip_new();
	if (!g)
		return false;
	char *o = malloc(room);
	size_t at = 0;
	long turns = 0;
	bool ok = o != NULL;
	while (ok && !proxy_gzip_ended(g)) {
		size_t give = n - at < split ? n - at : split;
		/* from a staging buffer overwritten after each call, as
		 * reply_pretty.c's: the stream keeps no pointer into input
		 * it has taken */
		char *stage = malloc(give ? give : 1);
		if (!stage) {
			ok = false;
			break;
		}
		memcpy(stage, in + at, give);
		const void *p = stage;
		size_t left = give;
		ssize_t k =
			proxy_gzip_put(g, &p, &left, at + give == n, o, room);
		if (k < 0 || (size_t)k > room || left > give ||
		    (const char *)p != stage + (give - left))
			ok = false;
		else
			buf_add(out, o, (size_t)k);
		memset(stage, 0xaa, give);
		free(stage);
		at += give - left;
		if (++turns > 10L * (long)n + 100000)
			ok = false;
	}
	free(o);
	proxy_gzip_free(g);
	return ok && at == n;
}

/* The member's trailer: CRC-32 and the input's length, little-endian. */
static uint32_t trailer_len(const struct buf *gz)
{
	const unsigned char *t = (const unsigned char *)gz->p + gz->len - 4;
	return (uint32_t)t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 |
	       (uint32_t)t[3] << 24;
}

static void round_trip(const char *what, const char *in, size_t n, size_t split,
		       size_t room)
{
	struct buf gz = BUF_INIT, back = BUF_INIT;
	bool ok = squeeze(in, n, split, room, &gz);
	CHECK(ok);
	if (ok) {
		CHECK(gz.len >= 18);
		CHECK((unsigned char)gz.p[0] == 0x1f &&
		      (unsigned char)gz.p[1] == 0x8b && gz.p[2] == 8);
		CHECK(trailer_len(&gz) == (uint32_t)n);
		CHECK(gunzip(gz.p, gz.len, &back));
		CHECK(back.len == n && (!n || !memcmp(back.p, in, n)));
	}
	if (!ok || back.len != n)
		fprintf(stderr, "  %s: %zu bytes, split %zu, room %zu\n", what,
			n, split, room);
	buf_free(&gz);
	buf_free(&back);
}

static void test_splits(void)
{
	struct buf js = BUF_INIT;
	make_json(&js, 3000); /* about 400 KB */
	static const size_t splits[] = { 1, 7, 4096, 65536, SIZE_MAX };
	static const size_t rooms[] = { 1, 3, 100, 16384, 1 << 20 };
	for (size_t i = 0; i < sizeof(splits) / sizeof(*splits); i++)
		for (size_t j = 0; j < sizeof(rooms) / sizeof(*rooms); j++) {
			/* a byte in a byte out is slow: a shorter input */
			size_t n = splits[i] == 1 || rooms[j] == 1 ? 20000 :
								     js.len;
			round_trip("json", js.p, n, splits[i], rooms[j]);
		}
	/* it compresses what it should */
	struct buf gz = BUF_INIT;
	CHECK(squeeze(js.p, js.len, 65536, 16384, &gz));
	CHECK(gz.len < js.len / 4);
	buf_free(&gz);
	buf_free(&js);
}

static void test_edges(void)
{
	round_trip("empty", "", 0, 65536, 16384);
	round_trip("empty, room 1", "", 0, 1, 1);
	round_trip("one byte", "x", 1, 65536, 16384);
	struct buf noise = BUF_INIT;
	make_noise(&noise, 300 * 1024, 42);
	round_trip("noise", noise.p, noise.len, 65536, 16384);
	round_trip("noise, whole", noise.p, noise.len, SIZE_MAX, 1 << 20);
	buf_free(&noise);
	/* past igzip's block and history sizes, in one span */
	struct buf big = BUF_INIT;
	make_json(&big, 60000); /* about 8 MB */
	round_trip("large", big.p, big.len, SIZE_MAX, 1 << 16);
	buf_free(&big);
}

/* Input given with no room to write: taken, or kept for the next call,
 * never lost. */
static void test_no_room_then_room(void)
{
	struct proxy_gzip *g = proxy_gzip_new();
	CHECK(g != NULL);
	if (!g)
		return;
	const char *in = "{\"a\":1}";
	const void *p = in;
	size_t left = 7;
	char o[256];
	CHECK(proxy_gzip_put(g, &p, &left, false, o, 0) == 0);
	struct buf gz = BUF_INIT, back = BUF_INIT;
	int turns = 0;
	while (!proxy_gzip_ended(g) && turns++ < 1000) {
		ssize_t k = proxy_gzip_put(g, &p, &left, true, o, sizeof(o));
		CHECK(k >= 0);
		if (k < 0)
			break;
		buf_add(&gz, o, (size_t)k);
	}
	CHECK(proxy_gzip_ended(g));
	CHECK(gunzip(gz.p, gz.len, &back));
	CHECK(back.len == 7 && !memcmp(back.p, in, 7));
	buf_free(&gz);
	buf_free(&back);
	proxy_gzip_free(g);
}

static void test_no_memory(void)
{
	alloc_fail_after(1);
	CHECK(proxy_gzip_new() == NULL);
	alloc_fail_after(0);
	proxy_gzip_free(NULL);
}

int main(void)
{
	test_splits();
	test_edges();
	test_no_room_then_room();
	test_no_memory();
#ifndef TEST_NAME
#define TEST_NAME "gzip"
#endif
	return check_done(TEST_NAME);
}
