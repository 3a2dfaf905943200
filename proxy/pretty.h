/*
 * pretty: indented JSON answers, as the apiserver gives them to people.
 *
 * The apiserver indents a (non-watch) answer for ?pretty=true, and when
 * pretty is absent for the User-Agents of curl, Wget and browsers; the
 * indentation is Go's json.Indent with two spaces.
 */
#ifndef PROXY_PRETTY_H
#define PROXY_PRETTY_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>

#include "config/buf.h"

/* Whether the answer to this request is to be indented. */
bool proxy_pretty_wanted(struct MHD_Connection *c);
/* Whether these values of ?pretty (NULL when absent) and User-Agent
 * (NULL when none) ask for indentation. */
bool proxy_pretty_asked(const char *pretty, const char *user_agent);

/*
 * Append compact JSON in[0..n) to out indented as Go's json.Indent does
 * with two spaces ("key": value, empty {} and [] kept). White space
 * outside strings is dropped; the input is assumed valid. Returns 0 or
 * -ENOMEM.
 */
int proxy_pretty_indent(const char *in, size_t n, struct buf *out);
/* Re-indent the compact JSON in b in place, trailing newlines dropped;
 * on running out of memory b stays compact. */
void proxy_pretty_body(struct buf *b);

#endif
