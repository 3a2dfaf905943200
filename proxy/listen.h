/*
 * listen: the addresses the proxy listens on, and who may reach it.
 *
 * --listen HOST:PORT takes an IPv4 address or a bracketed IPv6 one
 * ("[::1]"). Anyone who reaches a proxy that lends its credentials acts
 * with them, so a non-loopback --listen needs --client-auth=delegated or
 * an explicit --allow-unauthenticated-remote. --unix-socket's file
 * permissions are its access control.
 */
#ifndef PROXY_LISTEN_H
#define PROXY_LISTEN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "config/flags.h"

/* Fill ss for host and port. Returns 0, or -EINVAL with err set. */
int proxy_listen_addr(const char *host, int port, struct sockaddr_storage *ss,
		      char *err, size_t errlen);
/* True for 127.0.0.0/8 and [::1]. */
bool proxy_listen_loopback(const char *host);
/* Whether cfg may listen where it asks: 0, or -EPERM with err set for a
 * non-loopback address without delegated auth or the explicit opt-in
 * (which is logged as a warning). */
int proxy_listen_check_exposure(const struct config *cfg, char *err,
				size_t errlen);
/* A listening unix socket at path with the given mode (0600 unless
 * --unix-socket-mode widens it). A stale socket is replaced; any other
 * file is not (-EEXIST). Returns the fd, or -errno with err set. */
int proxy_listen_unix(const char *path, int mode, char *err, size_t errlen);

#endif
