/*
 * error: formatting a loader's message into the caller's buffer (see
 * error.h).
 */
#include "config/error.h"

#include <stdarg.h>
#include <stdio.h>

void config_error_format(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}
