/*
 * fake_watch: WATCH streams (the handler itself is declared in
 * fake_http.h); this header holds its settings.
 */
#ifndef FAKE_WATCH_H
#define FAKE_WATCH_H

/* Seconds between periodic BOOKMARKs (--bookmark-interval, default 60).
 * Which watches get them, and the one before the deadline: fake_watch.c. */
void fake_watch_set_bookmark_interval(unsigned seconds);

#endif
