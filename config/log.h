/*
 * log: one line per event, to stderr, as text or JSON.
 *
 * Levels follow klog: 0 is always shown (errors, warnings, lifecycle), 1
 * adds per-connection upstream events, 2 and up is debugging. Messages
 * never carry credentials: callers log URLs without query strings and
 * never log headers.
 */
#ifndef CONFIG_LOG_H
#define CONFIG_LOG_H

#include <stdbool.h>

enum log_format {
	LOG_TEXT,
	LOG_JSON
};

void log_setup(enum log_format fmt, int verbosity, const char *component);
bool log_enabled(int v);
void log_msg(int v, const char *level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define log_error(...) log_msg(0, "error", __VA_ARGS__)
#define log_warn(...) log_msg(0, "warning", __VA_ARGS__)
#define log_info(...) log_msg(0, "info", __VA_ARGS__)
#define log_v(v, ...)                                       \
	do {                                                \
		if (log_enabled(v))                         \
			log_msg((v), "debug", __VA_ARGS__); \
	} while (0)

#endif
