/*
 * goerr: the error texts of Go's standard library that the apiserver
 * quotes in its answers, reproduced for the same input: a client that
 * compares messages (or a person reading them) sees the apiserver's
 * words. Base64 (encoding/base64's RawURLEncoding) and the syntax errors
 * of encoding/json's scanner.
 *
 * Pure functions: any thread; output goes into the caller's buffer.
 */
#ifndef CONFIG_GOERR_H
#define CONFIG_GOERR_H

#include <stddef.h>

/* The byte offset Go's RawURLEncoding reports as "illegal base64 data at
 * input byte N" for s, or -1 when s decodes (CR and LF are skipped, as
 * Go skips them). */
long goerr_base64url_offset(const char *s);

/* Go's quoteChar: byte c as the quoted rune Go prints in a JSON syntax
 * error ('x', '\'', '\x01', '\u0088', or a Latin-1 letter in UTF-8),
 * into out (cap >= 8). */
void goerr_quote_char(unsigned char c, char *out, size_t cap);

/* Scan p[0..n) as encoding/json's scanner does (the check json.Unmarshal
 * makes before decoding). Returns 0 for valid JSON, or -EINVAL with Go's
 * message in msg: "invalid character 'x' looking for beginning of value",
 * "... in literal null (expecting 'u')", "unexpected end of JSON input",
 * and the others, "exceeded max depth" past Go's 10000 levels. Uses
 * 10 KB of stack. */
int goerr_json_syntax(const unsigned char *p, size_t n, char *msg,
		      size_t msglen);

#endif
