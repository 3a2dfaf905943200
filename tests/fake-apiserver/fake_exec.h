/*
 * fake_exec: pods/exec, pods/attach and pods/portforward, upgraded as
 * the apiserver (through its kubelet) upgrades them.
 *
 * exec and attach speak WebSocket with v5.channel.k8s.io or
 * v4.channel.k8s.io (one binary message per chunk, its first byte the
 * channel: 0 stdin, 1 stdout, 2 stderr, 3 error (a Status), 4 resize;
 * v5's 255 closes stdin) or SPDY/3.1 with the same protocols (one stream
 * per channel, named by its streamtype header). A pod has no processes:
 * the commands kubectl exec and kubectl cp need are emulated over a
 * small in-memory file tree per pod: cat (stdin to stdout), echo, true,
 * false, sh -c "exit N", test -d DIR, tar -xmf - [-C DIR] and
 * tar cf - FILE (ustar). attach echoes stdin to stdout. A command that
 * exits non-zero sends the NonZeroExitCode Status kubectl turns into its
 * own exit code.
 *
 * portforward speaks SPDY/3.1 (portforward.k8s.io), raw or tunnelled in
 * WebSocket binary messages (SPDY/3.1+portforward.k8s.io, kubectl 1.31+):
 * each data stream is connected to 127.0.0.1 at its port header, so a
 * test forwards to a local server of its own.
 *
 * A request without an upgrade gets the apiserver's 400 "Upgrade request
 * required"; an unknown pod 404.
 */
#ifndef FAKE_EXEC_H
#define FAKE_EXEC_H

#include <microhttpd.h>
#include <stdbool.h>

#include "fake_http.h"

/* Whether url is /api/v1/namespaces/NS/pods/NAME/{exec,attach,portforward}. */
bool fake_exec_path(const char *url);
enum MHD_Result fake_exec_serve(struct fake_req *rq, const char *url);
/* From the request-completed callback: free the session of a 101 that
 * never upgraded (the client left first). */
void fake_exec_abandon(struct fake_req *rq);
/* End every upgraded session and wait (3 s at most) for their threads'
 * last libmicrohttpd call; before the daemon stops. */
void fake_exec_stop(void);

#endif
