/*
 * goerr: Go's error texts that the apiserver quotes (see goerr.h).
 */
#include "config/goerr.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

long goerr_base64url_offset(const char *tok)
{
	size_t i, quantum = 0, last = 0;
	for (i = 0; tok[i]; i++) {
		char c = tok[i];
		if (c == '\r' || c == '\n')
			continue;
		bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
			  (c >= '0' && c <= '9') || c == '-' || c == '_';
		if (!ok)
			return (long)i;
		last = i;
		quantum = (quantum + 1) % 4;
	}
	return quantum == 1 ? (long)last : -1;
}

void goerr_quote_char(unsigned char c, char *out, size_t cap)
{
	if (c == '\'')
		snprintf(out, cap, "'\\''");
	else if (c == '"')
		snprintf(out, cap, "'\"'");
	else if (c >= 0x20 && c < 0x7f)
		snprintf(out, cap, "'%c'", c);
	else if (c == '\a' || c == '\b' || c == '\f' || c == '\n' ||
		 c == '\r' || c == '\t' || c == '\v')
		snprintf(out, cap, "'\\%c'",
			 "abfnrtv"[strchr("\a\b\f\n\r\t\v", c) -
				   "\a\b\f\n\r\t\v"]);
	else if (c < 0x20 || c == 0x7f)
		snprintf(out, cap, "'\\x%02x'", c);
	else if (c < 0xa1 || c == 0xad) /* C1 controls, NBSP, soft hyphen */
		snprintf(out, cap, "'\\u%04x'", c);
	else /* a printable Latin-1 rune, written in UTF-8 */
		snprintf(out, cap, "'%c%c'", 0xc0 | (c >> 6),
			 0x80 | (c & 0x3f));
}

enum scan {
	S_VALUE,	  /* a value begins */
	S_VALUE_OR_CLOSE, /* after '[' */
	S_KEY,		  /* an object key begins */
	S_KEY_OR_CLOSE,	  /* after '{' */
	S_END,		  /* a value ended */
	S_STR,
	S_ESC,
	S_U, /* 4 hex digits to go: u_left */
	S_NEG,
	S_INT, /* in 1-9 digits */
	S_ZERO,
	S_DOT,
	S_FRAC,
	S_EXP,
	S_EXP_SIGN,
	S_EXP_DIGITS,
	S_LIT, /* the rest of true, false or null */
};

#define SCAN_DEPTH 10000 /* Go's maxNestingDepth */

int goerr_json_syntax(const unsigned char *p, size_t n, char *err,
		      size_t errlen)
{
	enum scan st = S_VALUE;
	char stack[SCAN_DEPTH]; /* 'k': object key, 'v': object value, 'a' */
	int depth = 0, u_left = 0;
	const char *lit = NULL, *lit_name = NULL;
	const char *what = NULL;
	char q[16];
	size_t i;
	for (i = 0; i < n; i++) {
		unsigned char c = p[i];
		bool ws = c == ' ' || c == '\t' || c == '\r' || c == '\n';
		bool digit = c >= '0' && c <= '9';
again:
		switch (st) {
		case S_VALUE_OR_CLOSE:
			if (ws)
				continue;
			if (c == ']') {
				depth--;
				st = S_END;
				continue;
			}
			st = S_VALUE;
			goto again;
		case S_VALUE:
			if (ws)
				continue;
			if (c == '{' || c == '[') {
				if (depth == SCAN_DEPTH) {
					what = "exceeded max depth";
					goto bad;
				}
				stack[depth++] = c == '{' ? 'k' : 'a';
				st = c == '{' ? S_KEY_OR_CLOSE :
						S_VALUE_OR_CLOSE;
			} else if (c == '"') {
				st = S_STR;
			} else if (c == '-') {
				st = S_NEG;
			} else if (c == '0') {
				st = S_ZERO;
			} else if (c >= '1' && c <= '9') {
				st = S_INT;
			} else if (c == 't' || c == 'f' || c == 'n') {
				lit_name = c == 't' ? "true" :
					   c == 'f' ? "false" :
						      "null";
				lit = lit_name + 1;
				st = S_LIT;
			} else {
				what = "looking for beginning of value";
				goto bad;
			}
			continue;
		case S_KEY_OR_CLOSE:
			if (ws)
				continue;
			if (c == '}') {
				depth--;
				st = S_END;
				continue;
			}
			st = S_KEY;
			goto again;
		case S_KEY:
			if (ws)
				continue;
			if (c != '"') {
				what = "looking for beginning of object key string";
				goto bad;
			}
			st = S_STR;
			continue;
		case S_END:
			if (ws)
				continue;
			if (!depth) {
				what = "after top-level value";
				goto bad;
			}
			if (stack[depth - 1] == 'k') {
				if (c != ':') {
					what = "after object key";
					goto bad;
				}
				stack[depth - 1] = 'v';
				st = S_VALUE;
			} else if (stack[depth - 1] == 'v') {
				if (c == ',') {
					stack[depth - 1] = 'k';
					st = S_KEY;
				} else if (c == '}') {
					depth--;
				} else {
					what = "after object key:value pair";
					goto bad;
				}
			} else if (c == ',') {
				st = S_VALUE;
			} else if (c == ']') {
				depth--;
			} else {
				what = "after array element";
				goto bad;
			}
			continue;
		case S_STR:
			if (c == '"')
				st = S_END;
			else if (c == '\\')
				st = S_ESC;
			else if (c < 0x20) {
				what = "in string literal";
				goto bad;
			}
			continue;
		case S_ESC:
			if (c == 'u') {
				u_left = 4;
				st = S_U;
			} else if (c && strchr("bfnrt\\/\"", c)) {
				st = S_STR;
			} else {
				what = "in string escape code";
				goto bad;
			}
			continue;
		case S_U:
			if (!isxdigit(c)) {
				what = "in \\u hexadecimal character escape";
				goto bad;
			}
			if (!--u_left)
				st = S_STR;
			continue;
		case S_NEG:
			if (c == '0')
				st = S_ZERO;
			else if (c >= '1' && c <= '9')
				st = S_INT;
			else {
				what = "in numeric literal";
				goto bad;
			}
			continue;
		case S_INT:
			if (digit)
				continue;
			st = S_ZERO;
			goto again;
		case S_ZERO:
			if (c == '.') {
				st = S_DOT;
				continue;
			}
			if (c == 'e' || c == 'E') {
				st = S_EXP;
				continue;
			}
			st = S_END;
			goto again;
		case S_DOT:
			if (!digit) {
				what = "after decimal point in numeric literal";
				goto bad;
			}
			st = S_FRAC;
			continue;
		case S_FRAC:
			if (digit)
				continue;
			if (c == 'e' || c == 'E') {
				st = S_EXP;
				continue;
			}
			st = S_END;
			goto again;
		case S_EXP:
			if (c == '+' || c == '-') {
				st = S_EXP_SIGN;
				continue;
			}
			st = S_EXP_SIGN;
			goto again;
		case S_EXP_SIGN:
			if (!digit) {
				what = "in exponent of numeric literal";
				goto bad;
			}
			st = S_EXP_DIGITS;
			continue;
		case S_EXP_DIGITS:
			if (digit)
				continue;
			st = S_END;
			goto again;
		case S_LIT:
			if (c != (unsigned char)*lit) {
				goerr_quote_char(c, q, sizeof(q));
				snprintf(err, errlen,
					 "invalid character %s in literal %s "
					 "(expecting '%c')",
					 q, lit_name, *lit);
				return -EINVAL;
			}
			if (!*++lit)
				st = S_END;
			continue;
		}
	}
	/* the end: a number may end here, nothing else but S_END at the
	 * top */
	if (!depth && (st == S_END || st == S_INT || st == S_ZERO ||
		       st == S_FRAC || st == S_EXP_DIGITS))
		return 0;
	snprintf(err, errlen, "unexpected end of JSON input");
	return -EINVAL;
bad:
	goerr_quote_char(p[i], q, sizeof(q));
	snprintf(err, errlen, "invalid character %s %s", q, what);
	return -EINVAL;
}
