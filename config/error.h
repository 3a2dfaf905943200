/*
 * error: the message buffer that the loaders of config/ fill for their
 * caller (kubeconfig, --config file, credentials, overrides), the way
 * Redis's anet functions fill an err argument: the caller logs it or
 * puts it in a Status body.
 */
#ifndef CONFIG_ERROR_H
#define CONFIG_ERROR_H

#include <stddef.h>

/* printf into err (errlen bytes, cut to fit) when err is not NULL and
 * errlen is not 0; otherwise nothing. Any thread. */
void config_error_format(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
