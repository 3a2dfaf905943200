/*
 * reflector: keeps one resource's store and history equal to upstream.
 *
 * One thread per cached resource (resource.h). It LISTs in pages
 * (lister.h: all pages applied at once, or none), then WATCHes from the
 * list's resourceVersion with bookmarks on (watcher.h), applying each
 * event to the store and appending it to the history. A clean close
 * resumes the watch from the last RV seen; 410 Expired, malformed bytes
 * or an ERROR event lead to a relist whose differences become synthetic
 * events, so local watchers see no gap. Errors back off exponentially
 * with jitter.
 *
 * Threads: start and stop are the main thread's (or the reload's); the
 * thread is the only writer of the resource's store and history.
 */
#ifndef CACHE_REFLECTOR_H
#define CACHE_REFLECTOR_H

#include "cache/resource.h"

/* Start r's thread. Returns 0 or -errno. */
int cache_reflector_start(struct cache_resource *r);
/* Ask r's thread to stop and join it; it stops at once, whatever it
 * waits for (a transfer, a backoff). To stop many, ask each first
 * (cache_resource_ask_stop), then join each with this. NULL, or a
 * resource never started, is fine. */
void cache_reflector_stop(struct cache_resource *r);

#endif
