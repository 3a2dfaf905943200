/*
 * fuzz gzip: the answers' gzip streams (proxy/gzip.h), differential:
 * the input compressed in pieces into output windows, both of sizes the
 * input chooses, then inflated by zlib, another implementation.
 *
 * The input: byte 0 seeds the piece sizes (in: 1 to 64 bytes or the
 * rest; out: 1 to 64 bytes or 64 KiB), the rest is the body: any bytes.
 * Each piece is staged in a buffer of its own, scribbled over once the
 * stream has taken what it takes, as reply_pretty.c reuses its buffer.
 *
 * Invariants beyond "no crash":
 *   - zlib inflates the stream to exactly the body: one whole gzip
 *     member, nothing after it, the body's length in its trailer;
 *   - a call takes no more than it is given and writes no more than its
 *     room, and makes progress (takes input or writes output) until the
 *     stream has ended.
 */
#include "config/buf.h"
#include "proxy/gzip.h"
#include "tests/fuzz/fuzz.h"
#include "tests/unit/gunzip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint32_t seed = data[0];
	const char *in = (const char *)data + 1;
	size_t n = size - 1;

	struct proxy_gzip *g = proxy_gzip_new();
	FUZZ_CHECK(g != NULL);
	struct buf gz = BUF_INIT;
	static char win[65536];
	size_t off = 0;
	while (!proxy_gzip_ended(g)) {
		size_t give = fuzz_next_size(&seed, n - off);
		size_t room = fuzz_next_size(&seed, sizeof(win));
		if (give > n - off)
			give = n - off;
		char *stage = malloc(give + 1);
		FUZZ_CHECK(stage != NULL);
		memcpy(stage, in + off, give);
		const void *p = stage;
		size_t left = give;
		ssize_t k = proxy_gzip_put(g, &p, &left, off + give == n, win,
					   room);
		FUZZ_CHECK(k >= 0 && (size_t)k <= room && left <= give);
		FUZZ_CHECK((const char *)p == stage + (give - left));
		FUZZ_CHECK(k > 0 || left < give || proxy_gzip_ended(g));
		memset(stage, 0xaa, give);
		free(stage);
		buf_add(&gz, win, (size_t)k);
		off += give - left;
	}
	proxy_gzip_free(g);
	FUZZ_CHECK(off == n && buf_ok(&gz));

	struct buf back = BUF_INIT;
	FUZZ_CHECK(gunzip(gz.p, gz.len, &back));
	FUZZ_CHECK(back.len == n && (!n || !memcmp(back.p, in, n)));
	const unsigned char *t = (const unsigned char *)gz.p + gz.len - 4;
	FUZZ_CHECK(((uint32_t)t[0] | (uint32_t)t[1] << 8 |
		    (uint32_t)t[2] << 16 | (uint32_t)t[3] << 24) ==
		   (uint32_t)n);
	buf_free(&gz);
	buf_free(&back);
	return 0;
}
