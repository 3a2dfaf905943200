/*
 * log: one line per event, to stderr, as text or JSON.
 *
 * Levels follow klog: 0 is always shown (errors, warnings, lifecycle), 1
 * adds per-connection upstream events, 2 and up is debugging. Messages
 * never carry credentials: callers log URLs through log_redact_url() and
 * never log headers.
 *
 * A line is a message and, optionally, fields: key/value pairs a machine
 * reads without parsing the message. Text writes them after the message,
 * logfmt-style (key=value, a value quoted when it holds a space, a quote,
 * '=' or anything but printable ASCII):
 *
 *   2026-01-02T03:04:05.678Z warning informer-proxy: pods: list: Couldn't
 *       connect to server resource=pods attempt=3 error="Couldn't ..."
 *       (one line)
 *
 * JSON writes one object per line: "time" (RFC 3339, UTC, ms), "level",
 * "component", "msg" (the message alone), then each field, strings
 * escaped (control characters, quotes, invalid UTF-8 as \ufffd), numbers
 * bare:
 *
 *   {"time":"...","level":"warning","component":"informer-proxy",
 *    "msg":"pods: list: Couldn't connect to server","resource":"pods",
 *    "attempt":3,...}
 *
 * Folding (at -v 0; from -v 1 on every line is written, for who looks
 * at each retry): a message logged with a fold key (log_warn_fold) is
 * written the first time; the same key again within the fold window (60 s) is
 * only counted. Once the window is over, the next line of that key, or
 * else the next line of any kind, writes the last message with
 * " (repeated N times in the last Ts, first at TIME)" and the fields
 * count (N) and since (TIME); so does log_fold_close(), when what the
 * lines told is over. An outage that
 * makes every retry fail thus logs one line a window, not one a retry.
 *
 * Threads: any. Each line is written with one write(2), so lines never
 * interleave; the fold table has a mutex. log_setup() is called once, by
 * main, before any thread logs.
 */
#ifndef CONFIG_LOG_H
#define CONFIG_LOG_H

#include <stdbool.h>
#include <stddef.h>

enum log_format {
	LOG_TEXT,
	LOG_JSON
};

enum log_kind {
	LOG_F_END, /* ends a field list (LOG_FIELDS adds it) */
	LOG_F_STR,
	LOG_F_INT,
	LOG_F_NUM /* a double, written with up to 3 decimals */
};

/* One field; the strings are the caller's, read during the call only. */
struct log_field {
	enum log_kind kind;
	const char *key; /* [A-Za-z0-9_], written as is */
	const char *s;	 /* LOG_F_STR; NULL is skipped (an absent field) */
	long long i;	 /* LOG_F_INT */
	double d;	 /* LOG_F_NUM */
};

#define LOG_STR(k, v) \
	((struct log_field){ .kind = LOG_F_STR, .key = (k), .s = (v) })
#define LOG_INT(k, v) \
	((struct log_field){ .kind = LOG_F_INT, .key = (k), .i = (v) })
#define LOG_NUM(k, v) \
	((struct log_field){ .kind = LOG_F_NUM, .key = (k), .d = (v) })
/* A field list, for the _kv calls: LOG_FIELDS(LOG_STR("url", u), ...) */
#define LOG_FIELDS(...) \
	((const struct log_field[]){ __VA_ARGS__, { .kind = LOG_F_END } })

void log_setup(enum log_format fmt, int verbosity, const char *component);
bool log_enabled(int v);
/* Whether lines are JSON (a caller may word its message for either). */
bool log_json(void);
/* The fold window in ms (> 0); for tests. Not thread-safe against
 * logging: call before any thread logs. */
void log_set_fold_ms(long ms);

/*
 * Log fmt's message with fields (NULL, or a LOG_FIELDS list) at
 * verbosity v; fold: NULL, or the key whose repeats are folded (the
 * same event: "pods list refused", not one holding a changing number).
 */
void log_kv(int v, const char *level, const char *fold,
	    const struct log_field *fields, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void log_msg(int v, const char *level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* What the lines of the fold keys that begin with prefix told is over
 * (the upstream answers again): their repeats, if any, are written
 * folded now, and their next lines are first ones. */
void log_fold_close(const char *prefix);

#define log_error(...) log_msg(0, "error", __VA_ARGS__)
#define log_warn(...) log_msg(0, "warning", __VA_ARGS__)
#define log_info(...) log_msg(0, "info", __VA_ARGS__)
#define log_v(v, ...)                                       \
	do {                                                \
		if (log_enabled(v))                         \
			log_msg((v), "debug", __VA_ARGS__); \
	} while (0)

#define log_error_kv(f, ...) log_kv(0, "error", NULL, (f), __VA_ARGS__)
#define log_warn_kv(f, ...) log_kv(0, "warning", NULL, (f), __VA_ARGS__)
#define log_info_kv(f, ...) log_kv(0, "info", NULL, (f), __VA_ARGS__)
#define log_warn_fold(key, f, ...) log_kv(0, "warning", (key), (f), __VA_ARGS__)

/*
 * url (an absolute URL or a request target) as it may be logged, into
 * out, the caller's buffer (always NUL-terminated, cut short to fit
 * len): a user:password@ before the host is REDACTED; in the query, the
 * parameters the Kubernetes API defines (labelSelector, watch,
 * resourceVersion, ...) keep their values, any other parameter, name
 * and value, a bare key ("?s3cr3t") included, is written as REDACTED;
 * bytes outside printable ASCII, and '"', are written as %XX. Any
 * thread; reads only its arguments.
 */
void log_redact_url(const char *url, char *out, size_t len);

#endif
