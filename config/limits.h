/*
 * limits: every bound the proxy puts on what a client or the upstream may
 * cost it, in one place. Each default is safe for a sidecar; the ones an
 * operator may need to move are flags (config/flags.c), and the value in
 * force lives in struct config.
 *
 * The rule behind the numbers is the apiserver's: what it accepts is
 * served, however large or odd, up to its own limits (3 MiB request
 * bodies, 1.5 MiB objects in etcd, 10,000 levels of JSON nesting, no
 * limit on the number of labels); beyond them a clear error, at a bounded
 * cost, and the rest of the cache goes on working.
 */
#ifndef CONFIG_LIMITS_H
#define CONFIG_LIMITS_H

/* ---- clients (flags) ---- */

/* --max-connections: open client connections. A connection past it is
 * answered 429 with Retry-After, then closed; health probes still go
 * through on a small reserve above it. Lowered at start to what
 * RLIMIT_NOFILE (raised to its hard limit) leaves room for. */
#define LIMIT_MAX_CONNECTIONS 16384
/* Connections above --max-connections kept for health probes and for
 * the 429 answers themselves. */
#define LIMIT_CONNECTION_RESERVE 64
/* Descriptors kept back from RLIMIT_NOFILE for upstream connections,
 * logs, files and the listening sockets. */
#define LIMIT_FD_RESERVE 256
/* --max-watchers: open local watches, all resources together; past it a
 * watch is answered 429 with Retry-After. */
#define LIMIT_MAX_WATCHERS 16384
/* Seconds a connection accepted on that reserve has to send its whole
 * request header: a probe, or a client to be refused, sends it at once;
 * a slowloris must not hold the reserve for --header-timeout. */
#define LIMIT_RESERVE_HEADER_TIMEOUT_S 1
/* --metrics-listen: connections open at once (scrapers and probes, a
 * few at a time; more wait in the kernel's backlog), and the seconds one
 * may sit idle before it is closed. */
#define LIMIT_METRICS_CONNECTIONS 64
#define LIMIT_METRICS_IDLE_S 30
/* Seconds a 429 asks the client to wait (Retry-After). */
#define LIMIT_RETRY_AFTER_S 1
/* --idle-timeout: seconds a connection may send and receive nothing
 * (a watch is never idle: it gets BOOKMARKs). */
#define LIMIT_IDLE_TIMEOUT_S 120
/* KiB of libmicrohttpd memory per client connection (its pool: the
 * request's headers, then the answer's headers and send buffer): what
 * an idle watch costs most of. 16 KiB holds a request header of about
 * 15 KiB; libmicrohttpd's default of 32 KiB cost each of 10,000 idle
 * watches 8 KiB more (docs/PERFORMANCE.md, B14). */
#define LIMIT_CONNECTION_MEMORY_KIB 16
/* --header-timeout: seconds from accept to a whole request header, the
 * apiserver's ReadHeaderTimeout (32 s); a slowloris is cut off after it. */
#define LIMIT_HEADER_TIMEOUT_S 32
/* --passthrough-timeout: seconds a forwarded request that is not long
 * running may take (the apiserver's own request timeout). */
#define LIMIT_PASSTHROUGH_TIMEOUT_S 60
/* Passthrough's upstream connections are pooled by credential, so no two
 * credentials share one (proxy/pass/credpool.h): at most this many pools
 * (past it the least recently used idle pool is closed, and with every
 * pool in use a request gets a connection of its own, closed after it),
 * each closed after LIMIT_PASS_POOL_IDLE_S unused (Go's transport keeps
 * an idle connection 90 s), each keeping at most
 * LIMIT_PASS_POOL_IDLE_CONNS idle connections: at most 128 in all,
 * within LIMIT_FD_RESERVE. */
#define LIMIT_PASS_POOLS 32
#define LIMIT_PASS_POOL_IDLE_S 90
#define LIMIT_PASS_POOL_IDLE_CONNS 4

/* --authn-source-reviews: reviews a second (a burst of twice that) that
 * one client address (an IPv6 one by its /64) may start for tokens not
 * known to be good. Past it, or past its share of the strangers' queue,
 * 429; a known user's reviews have their own queue. */
#define LIMIT_AUTHN_SOURCE_REVIEWS 20

/* ---- clients (fixed: the apiserver's) ---- */

/* --max-request-body-bytes: one request body, the apiserver's
 * MaxRequestBodyBytes; past it 413 RequestEntityTooLarge. */
#define LIMIT_REQUEST_BODY_BYTES (3 * 1024 * 1024)
/* --request-body-timeout: seconds a request body may go without a byte
 * once its header is in (or since its last bytes were taken); past it
 * the connection is closed and the upstream request abandoned. */
#define LIMIT_REQUEST_BODY_TIMEOUT_S 60
/* Bytes of a forwarded request body held at a time: the body streams to
 * the upstream, and the client is read no further while this much
 * waits for it. */
#define LIMIT_REQUEST_BODY_BUFFER (64 * 1024)
/* All forwarded bodies together: LIMIT_REQUEST_BODY_BUFFER each, so
 * 1024 bodies on their way up at once; one more is answered 429. */
#define LIMIT_REQUEST_BODIES_BYTES ((size_t)64 << 20)
/* Paginated snapshots kept per resource for continue tokens, each for
 * five minutes after its last page (the apiserver's compaction interval).
 * Only distinct snapshots take a slot, and a snapshot exists only where
 * the upstream wrote, so a client fills the table only by paging across
 * that many upstream writes within five minutes; then the pin touched
 * longest ago goes (its next page is forwarded upstream, which serves it
 * from etcd until compaction). */
#define LIMIT_PINS_PER_RESOURCE 1024
/* The recent versions of a resource's store kept for exact reads
 * (resourceVersionMatch=Exact, or a limit with resourceVersion=N): a LIST
 * at an RV in that window is answered at exactly that state; an older RV
 * goes upstream. Versions share every unchanged node with the current
 * tree, so a version costs what its writes replaced: the old objects and
 * the copied tree paths. Bounded by those bytes, and by a count. */
#define LIMIT_STORE_WINDOW_BYTES ((size_t)8 << 20)
#define LIMIT_STORE_WINDOW_VERSIONS 4096

/* ---- the upstream (flags) ---- */

/* --upstream-page-max-bytes: one LIST page as received. A page past it
 * is fetched again with half the limit, down to one item a page. */
#define LIMIT_UPSTREAM_PAGE_BYTES ((size_t)256 << 20)
/* --upstream-line-max-bytes: one watch event, or one list item. An
 * object in etcd is at most 1.5 MiB; its JSON, escaped, a few times
 * that. A longer event ends the watch (then a relist); a longer item is
 * skipped, counted and logged once with its key. */
#define LIMIT_UPSTREAM_LINE_BYTES ((size_t)64 << 20)
/* --upstream-list-max-bytes: all the pages of one LIST together, so
 * that an endless continue chain costs bounded memory; past it the LIST
 * is abandoned with an error and retried after backoff. */
#define LIMIT_UPSTREAM_LIST_BYTES ((size_t)4 << 30)
/* --upstream-answer-max-mib: one answer the proxy reads for itself
 * whole, outside the LIST path: an RV probe, a discovery document, a
 * TokenReview or SubjectAccessReview. Past it the transfer is cut, the
 * request fails (as an unreachable upstream would), and it is logged and
 * counted. The aggregated discovery of a cluster with hundreds of CRDs
 * is a few MiB. */
#define LIMIT_UPSTREAM_ANSWER_BYTES ((size_t)16 << 20)
/* Seconds one such answer may take in all, connection included. */
#define LIMIT_UPSTREAM_ANSWER_TIMEOUT_S 30

/* ---- JSON (fixed: the apiserver's) ---- */

/* Levels of nesting the apiserver's decoder accepts. */
#define LIMIT_JSON_DEPTH 10000

#endif
