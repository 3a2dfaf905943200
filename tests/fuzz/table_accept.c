/*
 * fuzz table_accept: Accept negotiation (proxy_table_format_parse(), what
 * proxy_table_format_negotiate() reads from a request): the Accept header
 * and the includeObject query value into a format.
 *
 * The input: the Accept value, then optionally a NUL byte and the
 * includeObject value (absent without the NUL). An empty Accept is the
 * header absent too.
 *
 * Invariants beyond "no crash":
 *   - an answer is 0 or -1 (a 406), and the format is whole either way:
 *     a known form, the include the query asked for;
 *   - a Table names v1 or v1beta1, metadata v1 or v1beta1, JSON no
 *     version;
 *   - a Table or metadata only from a media range that names it with
 *     g=meta.k8s.io (white space in a range is dropped: "meta. k8s.io"
 *     reads as "meta.k8s.io"); a 406 only when Accept names something;
 *   - the same Accept followed by ",application/json" is never a 406,
 *     and a form it gave is kept (the first range that decides wins);
 *   - "application/json, " before it gives plain JSON.
 */
#include "proxy/table/table_int.h"
#include "tests/fuzz/fuzz.h"

static void check_format(const struct proxy_table_format *f, const char *inc)
{
	enum proxy_table_include want = PROXY_TABLE_INCLUDE_METADATA;
	if (inc && !strcmp(inc, "Object"))
		want = PROXY_TABLE_INCLUDE_OBJECT;
	else if (inc && !strcmp(inc, "None"))
		want = PROXY_TABLE_INCLUDE_NONE;
	FUZZ_CHECK(f->include == want);
	switch (f->form) {
	case PROXY_TABLE_FORM_JSON:
		FUZZ_CHECK(!f->version);
		break;
	case PROXY_TABLE_FORM_TABLE:
	case PROXY_TABLE_FORM_METADATA:
		FUZZ_CHECK(f->version && (!strcmp(f->version, "v1") ||
					  !strcmp(f->version, "v1beta1")));
		break;
	default:
		FUZZ_CHECK(!"unknown form");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *accept = fuzz_cstr(data, size);
	if (!accept)
		return 0;
	size_t al = strlen(accept);
	const char *inc = al < size ? accept + al + 1 : NULL;

	struct proxy_table_format f;
	int rc = proxy_table_format_parse(accept, inc, &f);
	FUZZ_CHECK(rc == 0 || rc == -1);
	check_format(&f, inc);
	if (rc)
		FUZZ_CHECK(*accept);
	if (f.form != PROXY_TABLE_FORM_JSON) {
		/* spaces and tabs inside a range are dropped before reading */
		char *tight = malloc(al + 1), *w = tight;
		FUZZ_CHECK(tight);
		for (const char *r = accept; *r; r++)
			if (*r != ' ' && *r != '\t')
				*w++ = *r;
		*w = '\0';
		FUZZ_CHECK(strstr(tight, "meta.k8s.io") &&
			   strstr(tight, "as="));
		free(tight);
	}
	/* absent and empty are the same */
	if (!*accept) {
		struct proxy_table_format g;
		FUZZ_CHECK(proxy_table_format_parse(NULL, inc, &g) == 0);
		FUZZ_CHECK(g.form == PROXY_TABLE_FORM_JSON);
	}

	/* a JSON fallback after it */
	char *more = malloc(al + sizeof(",application/json"));
	FUZZ_CHECK(more);
	memcpy(more, accept, al);
	memcpy(more + al, ",application/json", sizeof(",application/json"));
	struct proxy_table_format g;
	FUZZ_CHECK(proxy_table_format_parse(more, inc, &g) == 0);
	check_format(&g, inc);
	if (!rc) {
		FUZZ_CHECK(g.form == f.form);
		FUZZ_CHECK(g.version == f.version ||
			   !strcmp(g.version, f.version));
	}
	/* and JSON before it */
	char *first = malloc(al + sizeof("application/json, "));
	FUZZ_CHECK(first);
	memcpy(first, "application/json, ", sizeof("application/json, ") - 1);
	memcpy(first + sizeof("application/json, ") - 1, accept, al + 1);
	FUZZ_CHECK(proxy_table_format_parse(first, inc, &g) == 0);
	FUZZ_CHECK(g.form == PROXY_TABLE_FORM_JSON);
	free(first);
	free(more);
	free(accept);
	return 0;
}
