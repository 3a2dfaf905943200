/*
 * request: the helpers every handler shares (see request.h).
 */
#include "proxy/request.h"

#include <poll.h>
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
