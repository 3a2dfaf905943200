/*
 * gzip: the gzip compression of the proxy's answers, one stream per
 * answer, on ISA-L's igzip at its level 1.
 *
 * The apiserver compresses at level 1, for speed, as the proxy did with
 * zlib; igzip's level 1 is faster and compresses better: the 55 MB LIST
 * of 10,000 pods, fed 64 KiB at a time and taken 16 KiB at a time, took
 * zlib 0.160 s for 3.48 MB and igzip 0.039 s for 3.25 MB, on one core of
 * the benchmark machine; through the proxy, curl's gzip LIST of those
 * pods came in 0.034-0.037 s instead of 0.171-0.196 s
 * (docs/PERFORMANCE.md, B18).
 * client-go asks for gzip, so that is most LISTs a controller makes.
 *
 * A stream holds 164 KiB (igzip's state, 80 KiB, and its level-1 hash
 * and token buffer, 84 KiB) in one allocation, freed by
 * proxy_gzip_free(); zlib's held about 256 KiB. A stream is used by one
 * thread at a time.
 */
#ifndef PROXY_GZIP_H
#define PROXY_GZIP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct proxy_gzip;

/* A new stream, its gzip header not written yet. NULL: no memory. */
struct proxy_gzip *proxy_gzip_new(void);

/*
 * Compress from *in (*in_len bytes, both advanced past what was taken)
 * onto out[0, room). last: *in holds the end of the input (no more calls
 * with more). Returns the bytes written to out (0 when it took input and
 * has nothing to write yet), or -1 on a fault of the compressor, after
 * which the stream is good only for proxy_gzip_free(). Call again with
 * room while proxy_gzip_ended() is false: after last, with *in_len 0,
 * until it is true.
 */
ssize_t proxy_gzip_put(struct proxy_gzip *g, const void **in, size_t *in_len,
		       bool last, void *out, size_t room);

/* The stream's trailer is written: nothing more comes out of it. */
bool proxy_gzip_ended(const struct proxy_gzip *g);

/* NULL is a no-op. */
void proxy_gzip_free(struct proxy_gzip *g);

#endif
