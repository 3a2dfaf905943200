/*
 * pretty: indented JSON answers (see pretty.h).
 */
#include "proxy/pretty.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

static void newline(struct buf *out, int depth)
{
	buf_addc(out, '\n');
	for (int i = 0; i < depth; i++)
		buf_add(out, "  ", 2);
}

int proxy_pretty_indent(const char *in, size_t n, struct buf *out)
{
	int depth = 0;
	for (size_t i = 0; i < n; i++) {
		char c = in[i];
		switch (c) {
		case '"': {
			size_t s = i++;
			while (i < n && in[i] != '"')
				i += in[i] == '\\' ? 2 : 1;
			buf_add(out, in + s, (i < n ? i + 1 : n) - s);
			break;
		}
		case '{':
		case '[': {
			size_t j = i + 1;
			while (j < n && (in[j] == ' ' || in[j] == '\n' ||
					 in[j] == '\t' || in[j] == '\r'))
				j++;
			buf_addc(out, c);
			if (j < n && (in[j] == '}' || in[j] == ']')) {
				buf_addc(
					out,
					in[j]); /* {} and [] stay as they are */
				i = j;
				break;
			}
			newline(out, ++depth);
			break;
		}
		case '}':
		case ']':
			newline(out, --depth);
			buf_addc(out, c);
			break;
		case ',':
			buf_addc(out, ',');
			newline(out, depth);
			break;
		case ':':
			buf_add(out, ": ", 2);
			break;
		case ' ':
		case '\n':
		case '\t':
		case '\r':
			break;
		default:
			buf_addc(out, c);
		}
	}
	return buf_ok(out) ? 0 : -ENOMEM;
}

bool proxy_pretty_asked(const char *p, const char *ua)
{
	if (p && *p)
		return !strcasecmp(p, "true") || !strcmp(p, "1") ||
		       !strcasecmp(p, "t");
	return ua && (!strncmp(ua, "curl", 4) || !strncmp(ua, "Wget", 4) ||
		      !strncmp(ua, "Mozilla/5.0", 11));
}

bool proxy_pretty_wanted(struct MHD_Connection *c)
{
	return proxy_pretty_asked(
		MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "pretty"),
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, "User-Agent"));
}

void proxy_pretty_body(struct buf *b)
{
	struct buf out = BUF_INIT;
	size_t n = b->len;
	while (n && b->p[n - 1] == '\n')
		n--; /* the apiserver ends a pretty body without a newline */
	if (proxy_pretty_indent(b->p, n, &out)) {
		buf_free(&out);
		return; /* out of memory: compact will do */
	}
	buf_free(b);
	*b = out;
}
