/*
 * log: leveled single-line logging (see log.h).
 *
 * Each line is formatted into a local buffer and written with a single
 * write(2), so lines from different threads never interleave.
 */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"

static enum log_format format = LOG_TEXT;
static int verbosity;
static const char *component = "informer-proxy";

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

void log_msg(int v, const char *level, const char *fmt, ...)
{
	if (!log_enabled(v))
		return;
	char msg[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

	struct timeval tv;
	gettimeofday(&tv, NULL);
	struct tm tm;
	gmtime_r(&tv.tv_sec, &tm);
	char ts[40];
	size_t n = strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(ts + n, sizeof(ts) - n, ".%03dZ", (int)(tv.tv_usec / 1000));

	struct buf b = BUF_INIT;
	if (format == LOG_JSON) {
		buf_printf(&b,
			   "{\"ts\":\"%s\",\"level\":\"%s\",\"component\":", ts,
			   level);
		buf_add_json_str(&b, component, strlen(component));
		buf_adds(&b, ",\"msg\":");
		buf_add_json_str(&b, msg, strlen(msg));
		buf_adds(&b, "}\n");
	} else {
		buf_printf(&b, "%s %s %s: %s\n", ts, level, component, msg);
	}
	if (buf_ok(&b)) {
		ssize_t w = write(STDERR_FILENO, b.p, b.len);
		(void)w;
	}
	buf_free(&b);
}
