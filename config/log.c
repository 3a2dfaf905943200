/*
 * log: leveled single-line logging, with fields and folding (see log.h).
 *
 * Each line is formatted into a local buffer and written with a single
 * write(2), so lines from different threads never interleave.
 */
#include "log.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"

#define FOLDS 64 /* fold keys kept at once; a newcomer takes a slot */
#define FOLD_DEFAULT_MS 60000

static enum log_format format = LOG_TEXT;
static int verbosity;
static const char *component = "informer-proxy";
static long fold_ms = FOLD_DEFAULT_MS;

/* A fold key's window: its first line was written at start_ms (since);
 * count repeats came after, the last one's words kept to be written. */
struct fold {
	char key[160]; /* "" when free */
	long long start_ms;
	char since[40];
	long count;
	char level[16];
	char msg[512];
	char fields[1024]; /* rendered in the format in use */
};

static pthread_mutex_t fold_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fold folds[FOLDS]; /* fold_lock */
static int pending;		 /* atomic: folds with count > 0 */

void log_setup(enum log_format fmt, int v, const char *comp)
{
	format = fmt;
	verbosity = v;
	if (comp)
		component = comp;
}

bool log_enabled(int v)
{
	return v <= verbosity;
}

bool log_json(void)
{
	return format == LOG_JSON;
}

void log_set_fold_ms(long ms)
{
	fold_ms = ms > 0 ? ms : FOLD_DEFAULT_MS;
}

/* ---- escaping ---- */

/* The length of the valid UTF-8 sequence at s[0..n) (n > 0), or 0 when
 * it is not one (overlong forms, surrogates and past U+10FFFF too). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len;
	unsigned char lo = 0x80, hi = 0xbf;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/* s as a JSON string, quotes included: control characters, quotes,
 * backslashes and, in JSON lines, < > & (as Go writes them) escaped, an
 * invalid UTF-8 byte as \ufffd, valid UTF-8 as is. */
static void json_str(struct buf *b, const char *str)
{
	bool html = format == LOG_JSON;
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str);
	buf_addc(b, '"');
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t l = utf8_len(s + i, n - i);
		if (!l) {
			buf_adds(b, "\\ufffd");
			i++;
			continue;
		}
		if (l > 1) {
			buf_add(b, s + i, l);
			i += l;
			continue;
		}
		i++;
		if (c == '"' || c == '\\') {
			buf_addc(b, '\\');
			buf_addc(b, (char)c);
		} else if (c == '\n') {
			buf_adds(b, "\\n");
		} else if (c == '\r') {
			buf_adds(b, "\\r");
		} else if (c == '\t') {
			buf_adds(b, "\\t");
		} else if (c < 0x20 || c == 0x7f ||
			   (html && (c == '<' || c == '>' || c == '&'))) {
			char u[6] = { '\\', 'u',	 '0',
				      '0',  hex[c >> 4], hex[c & 15] };
			buf_add(b, u, 6);
		} else {
			buf_addc(b, (char)c);
		}
	}
	buf_addc(b, '"');
}

/* A text line's message: one line whatever it holds, control bytes
 * written as \xNN. */
static void text_msg(struct buf *b, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c == 0x7f)
			buf_printf(b, "\\x%02x", c);
		else
			buf_addc(b, (char)c);
	}
}

/* A logfmt value: bare when it is printable ASCII without a quote,
 * backslash or '=', and not empty; else quoted as a JSON string. */
static void text_value(struct buf *b, const char *s)
{
	bool bare = *s != '\0';
	for (const char *p = s; *p && bare; p++)
		bare = *p > 0x20 && *p < 0x7f && *p != '"' && *p != '\\' &&
		       *p != '=';
	if (bare)
		buf_adds(b, s);
	else
		json_str(b, s);
}

static void fields_render(struct buf *b, const struct log_field *f)
{
	for (; f && f->kind != LOG_F_END; f++) {
		if (f->kind == LOG_F_STR && !f->s)
			continue;
		if (format == LOG_JSON)
			buf_printf(b, ",\"%s\":", f->key);
		else
			buf_printf(b, " %s=", f->key);
		switch (f->kind) {
		case LOG_F_STR:
			if (format == LOG_JSON)
				json_str(b, f->s);
			else
				text_value(b, f->s);
			break;
		case LOG_F_INT:
			buf_printf(b, "%lld", f->i);
			break;
		default:
			if (isfinite(f->d))
				buf_printf(b, "%.3f", f->d);
			else
				buf_adds(b, format == LOG_JSON ? "null" : "-");
			break;
		}
	}
}

/* ---- lines ---- */

static void now_rfc3339(char *ts, size_t len)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	struct tm tm;
	gmtime_r(&tv.tv_sec, &tm);
	size_t n = strftime(ts, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(ts + n, len - n, ".%03dZ", (int)(tv.tv_usec / 1000));
}

static long long mono_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Write one line: msg, then fields already rendered (rendered), then
 * f's. */
static void emit(const char *level, const char *ts, const char *msg,
		 const char *rendered, const struct log_field *f)
{
	struct buf b = BUF_INIT;
	if (format == LOG_JSON) {
		buf_adds(&b, "{\"time\":");
		json_str(&b, ts);
		buf_adds(&b, ",\"level\":");
		json_str(&b, level);
		buf_adds(&b, ",\"component\":");
		json_str(&b, component);
		buf_adds(&b, ",\"msg\":");
		json_str(&b, msg);
	} else {
		buf_printf(&b, "%s %s %s: ", ts, level, component);
		text_msg(&b, msg);
	}
	if (rendered)
		buf_adds(&b, rendered);
	fields_render(&b, f);
	buf_adds(&b, format == LOG_JSON ? "}\n" : "\n");
	if (buf_ok(&b)) {
		ssize_t w = write(STDERR_FILENO, b.p, b.len);
		(void)w;
	}
	buf_free(&b);
}

/* The line that closes a window of fo's: its last words, how many
 * times, since when. fold_lock. */
static void emit_folded(const struct fold *fo, long count, long long now)
{
	char ts[40], msg[700];
	now_rfc3339(ts, sizeof(ts));
	long long secs = (now - fo->start_ms + 500) / 1000;
	snprintf(msg, sizeof(msg),
		 "%s (repeated %ld times in the last %llds, first at %s)",
		 fo->msg, count, secs, fo->since);
	emit(fo->level, ts, msg, fo->fields,
	     LOG_FIELDS(LOG_INT("count", count), LOG_STR("since", fo->since)));
}

/* Close every window that is over and has repeats to tell. fold_lock. */
static void flush_due(long long now)
{
	for (int i = 0; i < FOLDS; i++) {
		struct fold *fo = &folds[i];
		if (fo->key[0] && fo->count && now - fo->start_ms >= fold_ms) {
			emit_folded(fo, fo->count, now);
			fo->key[0] = '\0';
			fo->count = 0;
			__atomic_sub_fetch(&pending, 1, __ATOMIC_RELAXED);
		}
	}
}

static struct fold *fold_slot(const char *key)
{
	unsigned h = 2166136261u; /* FNV-1a */
	for (const char *p = key; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	return &folds[h % FOLDS];
}

static void fold_keep(struct fold *fo, const char *level, const char *msg,
		      const struct log_field *f)
{
	struct buf b = BUF_INIT;
	fields_render(&b, f);
	snprintf(fo->level, sizeof(fo->level), "%s", level);
	snprintf(fo->msg, sizeof(fo->msg), "%s", msg);
	snprintf(fo->fields, sizeof(fo->fields), "%.*s",
		 buf_ok(&b) ? (int)b.len : 0, buf_ok(&b) ? b.p : "");
	buf_free(&b);
}

/* Whether a line of key fold is to be written now (else it was counted,
 * or written folded). fold_lock. */
static bool fold_take(const char *key, const char *level, const char *msg,
		      const struct log_field *f, const char *ts, long long now)
{
	struct fold *fo = fold_slot(key);
	bool same = !strncmp(fo->key, key, sizeof(fo->key) - 1);
	if (same && now - fo->start_ms < fold_ms) {
		if (!fo->count++)
			__atomic_add_fetch(&pending, 1, __ATOMIC_RELAXED);
		fold_keep(fo, level, msg, f);
		return false;
	}
	bool folded = same && fo->count;
	if (fo->key[0] && fo->count) {
		/* the window is over (same key: this line closes it and
		 * opens the next), or another key takes the slot */
		if (same) {
			fold_keep(fo, level, msg, f);
			emit_folded(fo, fo->count + 1, now);
		} else {
			emit_folded(fo, fo->count, now);
		}
		__atomic_sub_fetch(&pending, 1, __ATOMIC_RELAXED);
	}
	snprintf(fo->key, sizeof(fo->key), "%s", key);
	fo->start_ms = now;
	snprintf(fo->since, sizeof(fo->since), "%s", ts);
	fo->count = 0;
	return !folded;
}

void log_fold_close(const char *prefix)
{
	long long now = mono_ms();
	size_t n = strlen(prefix);
	pthread_mutex_lock(&fold_lock);
	for (int i = 0; i < FOLDS; i++) {
		struct fold *fo = &folds[i];
		if (!fo->key[0] || strncmp(fo->key, prefix, n))
			continue;
		if (fo->count) {
			emit_folded(fo, fo->count, now);
			__atomic_sub_fetch(&pending, 1, __ATOMIC_RELAXED);
		}
		fo->key[0] = '\0';
		fo->count = 0;
	}
	pthread_mutex_unlock(&fold_lock);
}

static void vlog(int v, const char *level, const char *fold,
		 const struct log_field *f, const char *fmt, va_list ap)
{
	if (!log_enabled(v))
		return;
	char msg[2048], ts[40];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	now_rfc3339(ts, sizeof(ts));
	bool show = true;
	if (verbosity > 0)
		fold = NULL; /* asked for detail: every repeat */
	if (fold || __atomic_load_n(&pending, __ATOMIC_RELAXED)) {
		long long now = mono_ms();
		pthread_mutex_lock(&fold_lock);
		if (fold)
			show = fold_take(fold, level, msg, f, ts, now);
		flush_due(now);
		pthread_mutex_unlock(&fold_lock);
	}
	if (show)
		emit(level, ts, msg, NULL, f);
}

void log_kv(int v, const char *level, const char *fold,
	    const struct log_field *fields, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(v, level, fold, fields, fmt, ap);
	va_end(ap);
}

void log_msg(int v, const char *level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(v, level, NULL, NULL, fmt, ap);
	va_end(ap);
}

/* ---- redaction ---- */

/* The query parameters of the Kubernetes API (and kubectl's), whose
 * values carry no secret and help a reader. Not exec's command: a
 * command line may well hold a password. */
static const char *const known[] = {
	"allowWatchBookmarks",
	"container",
	"continue",
	"dryRun",
	"fieldManager",
	"fieldSelector",
	"fieldValidation",
	"follow",
	"force",
	"gracePeriodSeconds",
	"labelSelector",
	"limit",
	"limitBytes",
	"orphanDependents",
	"pretty",
	"previous",
	"propagationPolicy",
	"resourceVersion",
	"resourceVersionMatch",
	"sendInitialEvents",
	"sinceSeconds",
	"sinceTime",
	"tailLines",
	"timeout",
	"timeoutSeconds",
	"timestamps",
	"watch",
	"stdin",
	"stdout",
	"stderr",
	"tty",
	"ports",
};

static bool is_known(const char *k, size_t n)
{
	for (size_t i = 0; i < sizeof(known) / sizeof(*known); i++)
		if (strlen(known[i]) == n && !strncmp(known[i], k, n))
			return true;
	return false;
}

/* Append s[0..n) to out at *w, printable ASCII as is, the rest %XX. */
static void put(char *out, size_t len, size_t *w, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	for (size_t i = 0; i < n && *w + 4 < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c > 0x20 && c < 0x7f && c != '"') {
			out[(*w)++] = (char)c;
		} else {
			out[(*w)++] = '%';
			out[(*w)++] = hex[c >> 4];
			out[(*w)++] = hex[c & 15];
		}
	}
	out[*w] = '\0';
}

void log_redact_url(const char *url, char *out, size_t len)
{
	size_t w = 0;
	if (!len)
		return;
	out[0] = '\0';
	const char *q = strchr(url, '?');
	size_t plen = q ? (size_t)(q - url) : strlen(url);
	/* scheme://user:password@host/...: the user information goes */
	const char *auth = strstr(url, "://");
	if (auth && (size_t)(auth - url) < plen) {
		auth += 3;
		size_t hl = strcspn(auth, "/?#");
		const char *at = memchr(auth, '@', hl);
		if (at) {
			put(out, len, &w, url, (size_t)(auth - url));
			put(out, len, &w, "REDACTED", 8);
			plen -= (size_t)(at - url);
			url = at;
		}
	}
	put(out, len, &w, url, plen);
	if (!q)
		return;
	put(out, len, &w, "?", 1);
	for (const char *p = q + 1; *p;) {
		size_t n = strcspn(p, "&");
		size_t k = strcspn(p, "=&");
		/* an unknown name may itself be the secret ("?s3cr3t") */
		if (is_known(p, k))
			put(out, len, &w, p, n); /* name and value */
		else if (n)
			put(out, len, &w, "REDACTED", 8); /* all of it */
		p += n;
		if (*p == '&') {
			put(out, len, &w, "&", 1);
			p++;
		}
	}
}
