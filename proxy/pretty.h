/*
 * pretty: indented JSON answers, as the apiserver gives them to people.
 *
 * The apiserver indents a (non-watch) answer for ?pretty=true, and when
 * pretty is absent for the User-Agents of curl, Wget and browsers; the
 * indentation is Go's json.Indent with two spaces. This module is a
 * pure byte transformer: it reads no request and sends nothing (reply.c
 * asks proxy_pretty_asked() and indents with what is here). Any thread;
 * state and buffers are the caller's.
 */
#ifndef PROXY_PRETTY_H
#define PROXY_PRETTY_H

#include <stdbool.h>
#include <stddef.h>

#include "config/buf.h"

/* Whether these values of ?pretty (NULL when absent) and User-Agent
 * (NULL when none) ask for indentation. */
bool proxy_pretty_asked(const char *pretty, const char *user_agent);

/*
 * A streaming indenter: Go's json.Indent with two spaces ("key": value,
 * empty {} and [] kept), fed the input in pieces of any size and writing
 * into an output buffer of any size, so nothing is held but this state.
 * White space outside strings is dropped; the input is assumed valid
 * (an unterminated string is copied to the end). Zero-initialise.
 */
struct proxy_pretty_indenter {
	int depth;
	bool in_str, esc; /* inside a string; right after its backslash */
	bool open;   /* a { or [ whose line break waits for the next byte */
	bool nl;     /* pending output: a line break, then */
	unsigned sp; /* this many spaces, then */
	char c;	     /* this byte (0: none) */
};

/* Where a List item starts, for the indenter: inside "items": [ at
 * depth 2, its "{" written and waiting for the next byte; and (open
 * false) where it ends, nothing pending: always the same state, so a
 * List's items can be indented apart (ahead.h). A kept length holds from
 * the one to the other. */
static inline bool proxy_pretty_at_item(const struct proxy_pretty_indenter *st,
					bool open)
{
	return st->depth == 2 && st->open == open && !st->in_str && !st->esc &&
	       !st->nl && !st->sp && !st->c;
}

/*
 * Indent in[0..n) into out[0..max): returns the bytes written and sets
 * *used to the input consumed. It stops only when the input is consumed
 * and nothing is pending, or when out is full; call again with the rest.
 */
size_t proxy_pretty_indent_step(struct proxy_pretty_indenter *st,
				const char *in, size_t n, size_t *used,
				char *out, size_t max);
/* After the last input: what is still pending, into out[0..max); returns
 * the bytes written, 0 once all is out. */
size_t proxy_pretty_indent_end(struct proxy_pretty_indenter *st, char *out,
			       size_t max);

/*
 * How many bytes the steps above would write for in[0..n) from state
 * *st, which is advanced as they would advance it: counting each piece
 * of a body in turn, then proxy_pretty_indent_count_end(), gives the
 * length of the indented body before any of it is made. It costs about
 * 60 % of indenting (it scans the same way but writes nothing).
 */
size_t proxy_pretty_indent_count(struct proxy_pretty_indenter *st,
				 const char *in, size_t n);
/* After the last input: the bytes proxy_pretty_indent_end() would still
 * write. */
size_t proxy_pretty_indent_count_end(struct proxy_pretty_indenter *st);

/*
 * How the indenter goes through its input: a byte at a time, or 64 bytes
 * at a time with SSE2 (baseline x86-64) or AVX2. proxy_pretty_isa() is
 * the best the CPU has unless forced; proxy_pretty_isa_force() forces one
 * the CPU has (tests; -1 undoes it) and returns what was forced before.
 * Each writes the same bytes.
 */
enum {
	PROXY_PRETTY_BYTES,
	PROXY_PRETTY_SSE2,
	PROXY_PRETTY_AVX2
};
int proxy_pretty_isa(void);
int proxy_pretty_isa_force(int isa);

/* Append compact JSON in[0..n) to out, indented as above. Returns 0 or
 * -ENOMEM. */
int proxy_pretty_indent(const char *in, size_t n, struct buf *out);
/* Re-indent the compact JSON in b in place, trailing newlines dropped;
 * on running out of memory b stays compact. */
void proxy_pretty_body(struct buf *b);

#endif
