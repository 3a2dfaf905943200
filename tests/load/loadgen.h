/*
 * loadgen: watch fan-out, LIST/GET load and a consistency checker for
 * informer-proxy (or any apiserver-compatible target).
 *
 * Shape of a run (main.c):
 *   1. learn a pool of existing pods from the writer (names, labels);
 *   2. LIST the target once (limit=1) for its resourceVersion R;
 *   3. open M watch streams on the target from R (watch.c, epoll);
 *   4. write through the writer at a set rate (writer.c): merge-patch a
 *      stamp annotation onto pooled pods, plus some creates and deletes,
 *      recording the resourceVersion the writer returned for each;
 *   5. drain, then compute for every watcher exactly which events it
 *      had to see, by namespace and label filter, in RV order (check.c).
 *
 * Nothing here links the proxy's code: a bug shared between the proxy
 * and its checker could hide. Every module is plain C11 with pthreads.
 */
#ifndef TESTS_LOAD_LOADGEN_H
#define TESTS_LOAD_LOADGEN_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- growable bytes (http.c) ---- */
struct lg_buf {
	char *p;
	size_t len;
	size_t cap;
};

int lg_buf_reserve(struct lg_buf *b, size_t extra);
int lg_buf_add(struct lg_buf *b, const void *p, size_t n);
void lg_buf_free(struct lg_buf *b);

/* ---- blocking HTTP/1.1 client with keep-alive (http.c) ---- */
struct lg_addr {
	char host[64];
	unsigned port;
	char hostport[80]; /* for the Host header */
};

struct lg_http {
	const struct lg_addr *addr;
	int fd;		  /* -1 when not connected */
	struct lg_buf in; /* raw bytes read, consumed up to off */
	size_t off;
	uint64_t body_bytes; /* body size of the last response */
	int timeout_ms;
};

/* Parse "http://HOST:PORT[/]" (no TLS). Returns 0 or -EINVAL. */
int lg_addr_parse(const char *url, struct lg_addr *a);
/* A connected TCP socket (blocking, TCP_NODELAY), or -errno. */
int lg_tcp_connect(const struct lg_addr *a);
void lg_http_init(struct lg_http *h, const struct lg_addr *a, int timeout_ms);
void lg_http_close(struct lg_http *h);
/*
 * One request; the body of the answer lands in *body (reset first), or
 * is only counted when body is NULL (h->body_bytes either way). On a
 * stale keep-alive connection it reconnects and retries once. Returns
 * the HTTP status (> 0) or -errno.
 */
int lg_http_do(struct lg_http *h, const char *method, const char *path,
	       const char *ctype, const char *req, size_t reqlen,
	       struct lg_buf *body);

/* ---- latency histogram, microseconds (check.c) ---- */
#define LG_HIST_BUCKETS 2560
struct lg_hist {
	uint64_t n;
	uint64_t max_us;
	uint32_t b[LG_HIST_BUCKETS];
};

void lg_hist_add(struct lg_hist *h, uint64_t us);
void lg_hist_merge(struct lg_hist *into, const struct lg_hist *from);
/* The q-quantile (0..1) in milliseconds; 0 when empty. */
double lg_hist_ms(const struct lg_hist *h, double q);

/* ---- labels and filters ---- */
enum {
	TIER_NONE,
	TIER_FRONTEND,
	TIER_BACKEND
};

/* The labels loadgen can reason about; other labels are ignored. */
struct lg_labels {
	bool app_web;
	int16_t shard; /* -1: no shard label */
	uint8_t tier;  /* TIER_* */
};

enum lg_sel_kind {
	SEL_NONE,		/* no labelSelector */
	SEL_TIER_EQ,		/* tier=frontend */
	SEL_TIER_NE,		/* tier!=backend (also matches no tier) */
	SEL_SHARD_IN,		/* shard in (a,b,c) */
	SEL_SHARD_EXISTS_NOTIN, /* app=web,shard,shard notin (a) */
	SEL_NO_TIER,		/* !tier */
	SEL_NKINDS
};

struct lg_filter {
	int ns; /* index into the namespace list, -1: all */
	enum lg_sel_kind sel;
	int a, b, c; /* shard values for the SHARD kinds */
};

bool lg_filter_match(const struct lg_filter *f, int ns,
		     const struct lg_labels *l);
/* The labelSelector query value (URL-escaped) for f; "" for SEL_NONE. */
void lg_filter_query(const struct lg_filter *f, char *out, size_t cap);

/* ---- writes (writer.c) ---- */
enum lg_ev {
	EV_ADDED = 1,
	EV_MODIFIED,
	EV_DELETED
};

struct lg_write {
	uint64_t rv;
	uint64_t sent_ns; /* CLOCK_REALTIME before the request */
	uint64_t key;	  /* hash of namespace/name */
	int32_t ns;
	uint8_t type; /* enum lg_ev */
	struct lg_labels labels;
};

struct lg_pod {
	char name[64];
	int ns;
	struct lg_labels labels;
};

/* ---- watchers (watch.c) ---- */
struct lg_watcher {
	int id;
	int tgt; /* index into the run's targets */
	struct lg_filter filter;
	char path[512]; /* request path without resourceVersion */
	int fd;
	int state;	     /* watch.c's parse state */
	uint64_t chunk_left; /* bytes left in the current chunk */
	bool chunked;
	bool done;	/* expired, or gave up reconnecting */
	bool connected; /* saw the 200 of the current stream */
	int reconnects;
	struct lg_buf hdr;  /* response head being read */
	struct lg_buf line; /* partial event line */
	/* checking, owned by the watcher's thread until the join */
	uint64_t start_rv;
	uint64_t last_rv; /* highest RV seen (events and bookmarks) */
	uint64_t *bits;	  /* received RVs, bit (rv - start_rv - 1) */
	size_t nbits;
	uint64_t received; /* events, bookmarks excluded */
	uint64_t bookmarks;
	uint64_t dup, ooo, unexpected;
	uint64_t sum;  /* sum of event hashes received first time */
	uint64_t seen; /* events counted towards self-test drops */
	uint64_t last_recv_ns;
	bool expired;
	bool self_dup_done;
	/* atomically published for the drain loop */
	uint64_t progress_rv;
};

/* ---- the whole run ---- */
#define LG_MAX_TARGETS 64

struct lg_opts {
	const char *target; /* targets[0]: also the one LISTs and GETs load */
	const char *targets[LG_MAX_TARGETS];
	int ntargets; /* --target given more than once: watchers round-robin */
	const char *writer;
	const char *resource;
	int watchers;
	char **ns; /* namespace names */
	int nns;
	bool selectors;
	double write_rate; /* per second, 0: as fast as possible */
	long max_writes;   /* 0: unbounded */
	double list_rate;
	double get_rate;
	const char *list_path; /* default: a namespace's pods */
	const char *get_path;  /* default: a pooled pod */
	double duration;
	double drain;
	int writer_conns;
	int threads; /* watcher threads */
	int pool;    /* pods to learn from the writer */
	int create_pct, delete_pct;
	long self_test_drop; /* drop the Nth event of every watcher */
	long self_test_dup;  /* deliver the Nth event twice */
	bool quiet;
};

struct lg_run {
	struct lg_opts o;
	struct lg_addr target, writer;
	uint64_t start_rv; /* the first target's */
	struct lg_addr targets[LG_MAX_TARGETS];
	uint64_t target_rv[LG_MAX_TARGETS];
	char res_path[128]; /* e.g. /api/v1 */
	/* pod pool and writes */
	struct lg_pod *pods;
	int npods;
	pthread_mutex_t lock; /* writes, alive, errors */
	struct lg_write *writes;
	size_t nwrites, capwrites;
	struct lg_pod *alive; /* pods loadgen created and not yet deleted */
	int nalive, capalive;
	long next_write; /* index handed to the next writer */
	long created;
	uint64_t first_write_ns, last_write_ns;
	uint64_t write_errors;
	/* watchers */
	struct lg_watcher *w;
	/* list/get */
	struct lg_hist list_h, get_h;
	uint64_t list_errors, get_errors, list_bytes, get_n, list_n;
	/* watcher threads' merged results */
	struct lg_hist lat;
	uint64_t deliveries;
	struct lg_hist *tlat; /* per target, ntargets of them */
	uint64_t *tdeliveries;
	/* Per target, the time of the last delivery of each event (index
	 * rv - rv_base, CLOCK_REALTIME ns, 0: none); with several targets,
	 * per target after the first, how much later than at the first
	 * target each event's last delivery came (tlag[0] unused). */
	uint64_t rv_base;
	struct lg_seen {
		uint64_t *ns;
		size_t n;
	} * tlast;
	struct lg_hist *tlag;
	/* Per write, from its request to its last delivery at any watcher
	 * of any target: how long the slowest watcher waited for it. */
	struct lg_hist last_h;
	uint64_t delete_lat_pending;
	uint64_t watch_errors;
	volatile int stop_writes;
	volatile int stop_all;
	uint64_t t0_ns;
};

uint64_t lg_now_ns(void);  /* CLOCK_REALTIME */
uint64_t lg_mono_ns(void); /* CLOCK_MONOTONIC */
uint64_t lg_hash(const char *s, size_t n, uint64_t h);
uint64_t lg_ev_hash(uint64_t rv, int type, uint64_t key);
void lg_log(struct lg_run *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Scan helpers over JSON produced by an apiserver (member order known). */
const char *lg_find(const char *p, const char *end, const char *needle);
/* The string value after key (needle ends with ':"'), or NULL. */
const char *lg_str_after(const char *p, const char *end, const char *needle,
			 size_t *len);
/* Parse labels of interest from an object's "labels":{...} member. */
void lg_parse_labels(const char *p, const char *end, struct lg_labels *l);

int lg_pool_load(struct lg_run *r);
int lg_writers_run(struct lg_run *r, pthread_t *tids, int n);

int lg_watch_start(struct lg_run *r, pthread_t *tids, int nthreads);
int lg_watch_join(struct lg_run *r, pthread_t *tids, int nthreads);

void *lg_list_thread(void *arg);
void *lg_get_thread(void *arg);

struct lg_violations {
	uint64_t missed, duplicated, out_of_order, unexpected, mismatched;
	uint64_t expected, expired;
};
/* Expected last RV per watcher, for the drain loop; call after writes. */
void lg_check_expect(struct lg_run *r, uint64_t *last);
void lg_check(struct lg_run *r, struct lg_violations *v);
/* Record a delivery of rv at time ns in a target's lg_seen (keeps the
 * latest); -ENOMEM when it cannot grow. */
int lg_seen_add(struct lg_seen *s, uint64_t base, uint64_t rv, uint64_t ns);
/* After the join: r->tlag from r->tlast. */
void lg_check_lag(struct lg_run *r);
/* After the join: r->last_h from r->tlast and the writes (sorted by RV,
 * as lg_watch_join leaves them). */
void lg_check_last(struct lg_run *r);

#endif
