/*
 * request: the helpers every handler shares (see request.h).
 */
#include "proxy/request.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

bool proxy_client_gone(struct MHD_Connection *c)
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

bool proxy_arg(struct MHD_Connection *c, const char *name, const char **val)
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

bool proxy_arg_true(struct MHD_Connection *c, const char *name)
{
	const char *v = NULL;
	return proxy_arg(c, name, &v) && v &&
	       (!strcasecmp(v, "true") || !strcmp(v, "1"));
}

enum MHD_Result proxy_request_queue(struct MHD_Connection *c, unsigned code,
				    struct MHD_Response *resp)
{
	if (!resp)
		return MHD_NO;
	enum MHD_Result r = MHD_queue_response(c, code, resp);
	MHD_destroy_response(resp);
	return r;
}

struct MHD_Response *proxy_request_owned(char *p, size_t len)
{
	struct MHD_Response *resp =
		MHD_create_response_from_buffer(len, p, MHD_RESPMEM_MUST_FREE);
	if (!resp)
		free(p);
	return resp;
}

struct MHD_Response *proxy_request_from_buf(struct buf *b)
{
	if (!buf_ok(b)) {
		buf_free(b);
		return NULL;
	}
	size_t len;
	char *p = buf_steal(b, &len);
	return proxy_request_owned(p, len);
}

enum MHD_Result proxy_request_text(struct MHD_Connection *c, unsigned code,
				   const char *type, const char *body)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(
		strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
	if (resp) {
		MHD_add_response_header(resp, "Content-Type", type);
		MHD_add_response_header(resp, "Cache-Control",
					"no-cache, private");
		MHD_add_response_header(resp, "X-Content-Type-Options",
					"nosniff");
	}
	return proxy_request_queue(c, code, resp);
}
