/*
 * pb_write: writing one field for the protobuf encoder (see pb_write.h):
 * its framing, the encoder's errors, and each JSON scalar in its wire
 * form as the apiserver writes it: strings, integers, base64 bytes,
 * RFC 3339 times, quantities, IntOrString, raw JSON and doubles. Each
 * value is validated here, by the level that reads it.
 */
#include "cache/pb_write.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/json.h"
#include "cache/pb_json.h"
#include "cache/pb_wire.h"

/* --- errors and framing --------------------------------------------- */

/* The path of e's steps into path (cap bytes), cut short past cap. */
static void path_text(const struct pb_enc *e, char *path, size_t cap)
{
	size_t n = e->nsteps < PB_STEPS ? e->nsteps : PB_STEPS, w = 0;
	path[0] = '\0';
	for (size_t k = 0; k < n && w + 1 < cap; k++) {
		const struct pb_step *st = &e->steps[k];
		int r;
		const char *name =
			st->kind == PB_STEP_KEY ?
				(e->keys.p ? e->keys.p + st->i : "") :
				st->s;
		if (st->kind == PB_STEP_INDEX)
			r = snprintf(path + w, cap - w, "[%u]",
				     (unsigned)st->i);
		else
			r = snprintf(path + w, cap - w, "%s%.*s", k ? "." : "",
				     st->n == PB_NAME_Z ? (int)strlen(name) :
							  (int)st->n,
				     name);
		if (r < 0)
			break;
		w += (size_t)r < cap - w ? (size_t)r : cap - w - 1;
	}
}

int pb_enc_fail(struct pb_enc *e, int rc, const char *fmt, ...)
{
	char what[160], path[256];
	va_list ap;

	if (!e->err || !e->errlen || *e->err)
		return rc; /* the innermost message wins */
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	path_text(e, path, sizeof(path));
	snprintf(e->err, e->errlen, "%s: %s", path, what);
	return rc;
}

int pb_enc_nomem(struct pb_enc *e)
{
	return pb_enc_fail(e, -ENOMEM, "out of memory");
}

/* A length-delimited field: tag, then room for the length, its last
 * byte holding how many bytes the room is (pb_enc_len_end() reads it
 * there). */
int pb_enc_len_guess(struct pb_enc *e, unsigned num, size_t *mark, size_t guess)
{
	size_t r = pb_varint_len(guess);
	if (pb_put_tag(e->out, num, 2) || buf_reserve(e->out, r))
		return pb_enc_nomem(e);
	memset(e->out->p + e->out->len, 0, r - 1);
	e->out->p[e->out->len + r - 1] = (char)r;
	e->out->len += r;
	e->out->p[e->out->len] = '\0';
	*mark = e->out->len;
	return 0;
}

int pb_enc_len_begin(struct pb_enc *e, unsigned num, size_t *mark)
{
	return pb_enc_len_guess(e, num, mark, 0);
}

/* Write the length of what was appended since the room was made, moving
 * it when the length takes more or fewer bytes than the room. */
int pb_enc_len_end(struct pb_enc *e, size_t mark)
{
	size_t n = e->out->len - mark;
	size_t r = (unsigned char)e->out->p[mark - 1];
	size_t vl = pb_varint_len(n);
	if (vl != r) {
		if (vl > r && buf_reserve(e->out, vl - r))
			return pb_enc_nomem(e);
		memmove(e->out->p + mark - r + vl, e->out->p + mark, n);
		e->out->len = e->out->len + vl - r;
		e->out->p[e->out->len] = '\0';
	}
	pb_varint_put((uint8_t *)e->out->p + mark - r, n);
	return 0;
}

int pb_enc_varint(struct pb_enc *e, unsigned num, uint64_t v)
{
	if (pb_put_tag(e->out, num, 0) || pb_put_varint(e->out, v))
		return pb_enc_nomem(e);
	return 0;
}

int pb_enc_bytes(struct pb_enc *e, unsigned num, const void *p, size_t n)
{
	return pb_put_bytes(e->out, num, p, n) ? pb_enc_nomem(e) : 0;
}

/* --- scalars -------------------------------------------------------- */

int pb_enc_string(struct pb_enc *e, unsigned num, const char *v, size_t vn)
{
	size_t mark;
	int rc;

	if (vn < 2 || v[0] != '"')
		return pb_enc_fail(e, -EINVAL, "want a string");
	/* the tokenizer checked the bytes: plain unless it has an escape */
	if (!memchr(v + 1, '\\', vn - 2))
		return pb_enc_bytes(e, num, v + 1, vn - 2);
	if ((rc = pb_enc_len_begin(e, num, &mark)))
		return rc;
	struct pb_json_sink sk = { e->out, NULL, 0, 0 };
	if ((rc = pb_json_str_decode(v, vn, &sk)))
		return rc == -ENOMEM ?
			       pb_enc_nomem(e) :
			       pb_enc_fail(e, rc, "malformed JSON string");
	return pb_enc_len_end(e, mark);
}

int pb_enc_int(struct pb_enc *e, const char *v, size_t vn, int64_t *out)
{
	bool frac;
	uint64_t mag = 0;
	const char *p = v, *end = v + vn;
	bool neg = false;

	if (!pb_json_number(v, end, &frac))
		return pb_enc_fail(e, -EINVAL, "want an integer");
	if (frac)
		return pb_enc_fail(e, -EINVAL, "want an integer, not %.*s",
				   (int)(vn > 32 ? 32 : vn), v);
	if (*p == '-') {
		neg = true;
		p++;
	}
	for (; p < end; p++) {
		if (mag > (UINT64_MAX - 9) / 10)
			return pb_enc_fail(e, -EINVAL, "integer out of range");
		mag = mag * 10 + (uint64_t)(*p - '0');
	}
	if (neg ? mag > (uint64_t)INT64_MAX + 1 : mag > (uint64_t)INT64_MAX)
		return pb_enc_fail(e, -EINVAL, "integer out of range");
	*out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
	return 0;
}

static int b64val(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* Standard base64 with padding, as Go's encoding/json writes []byte;
 * only the canonical form (Go's decoder also takes stray bits in the last
 * character, which no apiserver writes and which would not survive a
 * round trip). */
int pb_enc_base64(struct pb_enc *e, unsigned num, const char *v, size_t vn)
{
	size_t mark;
	int rc;

	if (vn < 2 || v[0] != '"' || !pb_json_str_plain(v, vn))
		return pb_enc_fail(e, -EINVAL, "want a base64 string");
	v++;
	vn -= 2;
	if (vn % 4)
		return pb_enc_fail(e, -EINVAL, "invalid base64");
	if ((rc = pb_enc_len_begin(e, num, &mark)))
		return rc;
	for (size_t i = 0; i < vn; i += 4) {
		int a = b64val(v[i]), b = b64val(v[i + 1]);
		int c = v[i + 2] == '=' ? -2 : b64val(v[i + 2]);
		int d = v[i + 3] == '=' ? -2 : b64val(v[i + 3]);
		bool last = i + 4 == vn;
		/* padding only at the end, and no stray bits before it:
		 * the canonical form, which Go writes */
		if (a < 0 || b < 0 || c == -1 || d == -1 ||
		    (c == -2 && d != -2) || ((c == -2 || d == -2) && !last) ||
		    (c == -2 && (b & 15)) || (c >= 0 && d == -2 && (c & 3)))
			return pb_enc_fail(e, -EINVAL, "invalid base64");
		uint8_t o[3] = { (uint8_t)(a << 2 | b >> 4), 0, 0 };
		size_t on = 1;
		if (c >= 0) {
			o[1] = (uint8_t)(b << 4 | c >> 2);
			on = 2;
		}
		if (d >= 0) {
			o[2] = (uint8_t)(c << 6 | d);
			on = 3;
		}
		if (buf_add(e->out, o, on))
			return pb_enc_nomem(e);
	}
	return pb_enc_len_end(e, mark);
}

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static bool digits(const char *p, int n, unsigned *out)
{
	*out = 0;
	for (int i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return false;
		*out = *out * 10 + (unsigned)(p[i] - '0');
	}
	return true;
}

/* RFC 3339 as Go writes metav1.Time and MicroTime: seconds since the
 * epoch and the fraction in nanoseconds. */
static bool parse_time(const char *s, size_t n, int64_t *secs, int32_t *nanos)
{
	unsigned y, mo, d, h, mi, se, oh = 0, om = 0;
	const char *end = s + n, *p = s + 19;
	int sign = 0;

	if (n < 20 || !digits(s, 4, &y) || s[4] != '-' ||
	    !digits(s + 5, 2, &mo) || s[7] != '-' || !digits(s + 8, 2, &d) ||
	    (s[10] != 'T' && s[10] != 't') || !digits(s + 11, 2, &h) ||
	    s[13] != ':' || !digits(s + 14, 2, &mi) || s[16] != ':' ||
	    !digits(s + 17, 2, &se))
		return false;
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
	    se > 59)
		return false;
	*nanos = 0;
	if (p < end && *p == '.') {
		int nd = 0;
		for (p++; p < end && *p >= '0' && *p <= '9'; p++, nd++)
			if (nd < 9)
				*nanos = *nanos * 10 + (*p - '0');
		if (!nd)
			return false;
		for (; nd < 9; nd++)
			*nanos *= 10;
	}
	if (p < end && (*p == 'Z' || *p == 'z')) {
		p++;
	} else if (end - p == 6 && (*p == '+' || *p == '-') &&
		   digits(p + 1, 2, &oh) && p[3] == ':' &&
		   digits(p + 4, 2, &om) && oh < 24 && om < 60) {
		sign = *p == '+' ? 1 : -1;
		p += 6;
	} else {
		return false;
	}
	if (p != end)
		return false;
	*secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se -
		sign * (int64_t)(oh * 3600 + om * 60);
	return true;
}

/* Go's zero time.Time, 0001-01-01T00:00:00Z, in Unix seconds. */
#define ZERO_TIME_SECS (-62135596800LL)

/* metav1.Time / MicroTime {1 seconds, 2 nanos, both always written};
 * the zero time (and null) is an empty message. A Time keeps whole
 * seconds, a MicroTime microseconds, as their Go encoders truncate. */
int pb_enc_time(struct pb_enc *e, unsigned num, const char *v, size_t vn,
		bool micro)
{
	int64_t secs = 0;
	int32_t nanos = 0;
	size_t mark;
	int rc;

	if (!pb_json_is(v, vn, "null")) {
		if (vn < 2 || v[0] != '"' || !pb_json_str_plain(v, vn) ||
		    !parse_time(v + 1, vn - 2, &secs, &nanos))
			return pb_enc_fail(e, -EINVAL, "want an RFC 3339 time");
		nanos = micro ? nanos - nanos % 1000 : 0;
	} else {
		secs = ZERO_TIME_SECS;
	}
	if ((rc = pb_enc_len_begin(e, num, &mark)))
		return rc;
	if (!(secs == ZERO_TIME_SECS && nanos == 0) &&
	    ((rc = pb_enc_varint(e, 1, (uint64_t)secs)) ||
	     (rc = pb_enc_varint(e, 2, (uint64_t)(int64_t)nanos))))
		return rc;
	return pb_enc_len_end(e, mark);
}

/* resource.Quantity {1 string}: the canonical string, as in JSON. */
int pb_enc_qty(struct pb_enc *e, unsigned num, const char *v, size_t vn)
{
	size_t mark;
	int rc;

	if ((rc = pb_enc_len_begin(e, num, &mark)))
		return rc;
	if (!v) /* the zero Quantity */
		rc = pb_enc_bytes(e, 1, "0", 1);
	else if (vn < 2 || v[0] != '"')
		return pb_enc_fail(e, -EINVAL, "want a quantity string");
	else
		rc = pb_enc_string(e, 1, v, vn);
	return rc ? rc : pb_enc_len_end(e, mark);
}

/* intstr.IntOrString {1 type, 2 intVal, 3 strVal}: all three always. */
int pb_enc_intstr(struct pb_enc *e, unsigned num, const char *v, size_t vn)
{
	int64_t iv = 0;
	bool str = v && vn && v[0] == '"';
	size_t mark;
	int rc;

	if (v && !str && (rc = pb_enc_int(e, v, vn, &iv)))
		return rc;
	if (iv < INT32_MIN || iv > INT32_MAX)
		return pb_enc_fail(e, -EINVAL, "int32 out of range");
	if ((rc = pb_enc_len_begin(e, num, &mark)) ||
	    (rc = pb_enc_varint(e, 1, str)) ||
	    (rc = pb_enc_varint(e, 2, (uint64_t)iv)) ||
	    (rc = str ? pb_enc_string(e, 3, v, vn) : pb_enc_bytes(e, 3, "", 0)))
		return rc;
	return pb_enc_len_end(e, mark);
}

/* FieldsV1 / RawExtension {1 raw}: the JSON text as it stands, which
 * the tokenizer validated; its nesting is the apiserver's limit's. */
int pb_enc_raw(struct pb_enc *e, unsigned num, const char *v, size_t vn, int vt)
{
	size_t mark;
	int rc;

	if (vt >= 0 && json_too_deep(e->doc, vt))
		return pb_enc_fail(e, -EINVAL, "nested too deep");
	if ((rc = pb_enc_len_begin(e, num, &mark)))
		return rc;
	if (!pb_json_is(v, vn, "null") && (rc = pb_enc_bytes(e, 1, v, vn)))
		return rc;
	return pb_enc_len_end(e, mark);
}

/* double: wire type 1, little-endian IEEE 754; absent/null is 0. */
int pb_enc_double(struct pb_enc *e, unsigned num, const char *v, size_t vn)
{
	double d = 0;
	bool frac;

	if (v) {
		char tmp[64], *end;
		if (!pb_json_number(v, v + vn, &frac) || vn >= sizeof(tmp))
			return pb_enc_fail(e, -EINVAL, "want a number");
		memcpy(tmp, v, vn);
		tmp[vn] = '\0';
		d = strtod(tmp, &end);
		if (*end)
			return pb_enc_fail(e, -EINVAL, "want a number");
	}
	uint64_t bits;
	uint8_t le[8];
	memcpy(&bits, &d, sizeof(bits));
	for (int i = 0; i < 8; i++)
		le[i] = (uint8_t)(bits >> (8 * i));
	if (pb_put_tag(e->out, num, 1) || buf_add(e->out, le, 8))
		return pb_enc_nomem(e);
	return 0;
}
