/*
 * request: the helpers every handler shares (see request.h).
 */
#include "proxy/request.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

bool proxy_request_client_gone(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (!ci)
		return false;
	/* poll, not a peek: over TLS a client that hangs up sends
	 * close_notify first, bytes a peek would take for a live client */
	struct pollfd pfd = { .fd = ci->connect_fd, .events = POLLRDHUP };
	return poll(&pfd, 1, 0) > 0 &&
	       (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL));
}

bool proxy_request_arg(struct MHD_Connection *c, const char *name,
		       const char **val)
{
	const char *v = NULL;
	size_t len = 0;
	if (MHD_lookup_connection_value_n(c, MHD_GET_ARGUMENT_KIND, name,
					  strlen(name), &v, &len) != MHD_YES)
		return false;
	if (val)
		*val = v ? v : "";
	return true;
}

bool proxy_request_arg_true(struct MHD_Connection *c, const char *name)
{
	const char *v = NULL;
	return proxy_request_arg(c, name, &v) && v &&
	       (!strcasecmp(v, "true") || !strcmp(v, "1"));
}

/* Go's strconv.Quote, near enough for a message: printable bytes as
 * they are, quote and backslash escaped, control bytes as \xNN. */
static void go_quote(const char *v, char *out, size_t outlen)
{
	size_t n = 0;
	if (outlen < 3) {
		if (outlen)
			*out = '\0';
		return;
	}
	out[n++] = '"';
	for (const unsigned char *s = (const unsigned char *)v;
	     *s && n + 6 < outlen; s++) {
		if (*s == '"' || *s == '\\')
			n += (size_t)snprintf(out + n, outlen - n, "\\%c", *s);
		else if (*s == '\n')
			n += (size_t)snprintf(out + n, outlen - n, "\\n");
		else if (*s == '\t')
			n += (size_t)snprintf(out + n, outlen - n, "\\t");
		else if (*s == '\r')
			n += (size_t)snprintf(out + n, outlen - n, "\\r");
		else if (*s < 0x20 || *s == 0x7f)
			n += (size_t)snprintf(out + n, outlen - n, "\\x%02x",
					      *s);
		else
			out[n++] = (char)*s;
	}
	out[n++] = '"';
	out[n] = '\0';
}

/* strconv.ParseInt(v, 10, 64): an optional sign, then one or more
 * digits, no more; NULL, or the error's last words. As Go's, the digits
 * are read as an unsigned number first: past 2^64-1 is out of range at
 * once, a bad byte further on notwithstanding; past int64 is checked
 * after the last digit. */
static const char *go_parse_int(const char *v)
{
	const char *s = v;
	bool neg = *s == '-';
	if (*s == '+' || *s == '-')
		s++;
	if (!*s)
		return "invalid syntax";
	uint64_t n = 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return "invalid syntax";
		unsigned d = (unsigned)(*s - '0');
		if (n > (UINT64_MAX - d) / 10)
			return "value out of range";
		n = n * 10 + d;
	}
	if (n > (neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX))
		return "value out of range";
	return NULL;
}

int proxy_request_check_ints(struct MHD_Connection *c, char *msg, size_t msglen)
{
	static const char *const names[] = { "timeoutSeconds", "limit" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *v = NULL;
		if (!proxy_request_arg(c, names[i], &v))
			continue;
		const char *why = go_parse_int(v);
		if (!why)
			continue;
		char q[160];
		go_quote(v, q, sizeof(q));
		snprintf(msg, msglen, "strconv.ParseInt: parsing %s: %s", q,
			 why);
		return -EINVAL;
	}
	return 0;
}
