/*
 * listen: the addresses the proxy listens on, and who may reach it.
 *
 * --listen HOST:PORT takes an IPv4 address, a bracketed IPv6 one
 * ("[::1]") or a host name ("localhost": its first IPv4 address, else
 * its first IPv6 one). Loopback is judged on the address, not the name. Anyone who reaches a proxy that lends its credentials acts
 * with them, so a non-loopback --listen needs --client-auth=delegated or
 * an explicit --allow-unauthenticated-remote. --unix-socket's file
 * permissions are its access control.
 *
 * Threads: main, at startup (proxy_server_start()) and when the daemons
 * stop taking connections (proxy_server_drain(), proxy_server_stop());
 * nothing here keeps state.
 */
#ifndef PROXY_LISTEN_H
#define PROXY_LISTEN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "config/flags.h"

/* Fill ss for host and port (a name is resolved, which may block on
 * DNS). Returns 0, or -EINVAL with err set. */
int proxy_listen_addr(const char *host, int port, struct sockaddr_storage *ss,
		      char *err, size_t errlen);
/* The address of ss as text: "127.0.0.1" or "[::1]". */
void proxy_listen_numeric(const struct sockaddr_storage *ss, char *out,
			  size_t outlen);
/* Whether cfg may listen where it asks: 0, or -EPERM with err set for a
 * non-loopback address without delegated auth or the explicit opt-in
 * (which is logged as a warning). */
int proxy_listen_check_exposure(const struct config *cfg, char *err,
				size_t errlen);
/* A listening unix socket at path with the given mode (0600 unless
 * --unix-socket-mode widens it). A socket already there is probed with a
 * connect: a live one (another proxy serves on it) is never replaced
 * (-EADDRINUSE); a stale one (the connect is refused: no one listens) is
 * removed and bound anew. Any other file is not touched (-EEXIST).
 * Returns the fd, which the caller closes or hands to a daemon, and the
 * bound file's *dev and *ino for proxy_listen_unix_remove(); or -errno
 * with err set. Between the probe and the bind a third process could
 * bind the path: then bind fails with EADDRINUSE, nothing is replaced. */
int proxy_listen_unix(const char *path, int mode, dev_t *dev, ino_t *ino,
		      char *err, size_t errlen);
/* Unlink path only if it is still the socket proxy_listen_unix() made
 * (same dev and inode): one another process has put there since stays. */
void proxy_listen_unix_remove(const char *path, dev_t dev, ino_t ino);

/*
 * Taking a daemon's listening socket away, without MHD_quiesce_daemon().
 *
 * libmicrohttpd 0.9.75 (Debian 12) can abort the process in its quiesce
 * ("Failed to remove listen FD from epoll set"): it marks each worker
 * quiesced, then takes the listening socket out of that worker's epoll
 * set; a worker woken meanwhile by any connection sees the mark and takes
 * it out first, and whichever of the two comes second aborts.
 *
 * Instead, the socket's descriptor number is given another file: a
 * stand-in made at startup, an eventfd that never becomes readable. In
 * one dup3() the listening socket is closed, which makes the kernel
 * refuse new connections (and reset those not yet accepted) and drops
 * the socket from every epoll set at once, and libmicrohttpd keeps a
 * descriptor that is never ready, which it closes at MHD_stop_daemon().
 *
 * A worker that was at its connection limit at that very moment could
 * still take the number out of its epoll set and find it gone; with the
 * socket closed it can accept nothing, so that needs the limit reached
 * in the same instant as the stop.
 */
/* The stand-in: an fd, or -errno (made at startup, so that stopping
 * needs no descriptor when they have run out). */
int proxy_listen_stand_in(void);
/* Put stand_in in listen_fd's place (listen_fd then names it) and close
 * stand_in's own number. Returns 0 or -errno (logged; listen_fd is then
 * left as it was, and stand_in closed). */
int proxy_listen_take_away(int listen_fd, int stand_in);

#endif
