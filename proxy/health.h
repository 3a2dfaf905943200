/*
 * health: /healthz, /livez and /readyz in the apiserver's plain-text form.
 */
#ifndef PROXY_HEALTH_H
#define PROXY_HEALTH_H

#include "proxy/request.h"

/* True for the probe paths this module answers. */
bool proxy_health_path(const char *url);
/* Answer the probe path url (proxy_health_path(url) must hold). */
enum MHD_Result proxy_health_handle(struct proxy *p, struct MHD_Connection *c,
				    const char *url);

#endif
