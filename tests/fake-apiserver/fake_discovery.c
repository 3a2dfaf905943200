/*
 * fake_discovery: /version, /api, /api/v1 and /apis.
 *
 * Shaped like the real v1.32 answers (01-a, 01-b, 01-d): /api/v1 lists
 * the served resources with the verbs, short names, categories and
 * storageVersionHash the real apiserver gives; /apis is an empty group
 * list, since only the core group is served. /version is pretty-printed
 * with no trailing newline whatever the client, as the real one is.
 * Only the plain (legacy) discovery is served: a client asking for the
 * aggregated form gets application/json and falls back, as it would
 * against an older apiserver.
 */
#include <string.h>

#include "fake_http.h"
#include "fake_res.h"

static const char version_body[] =
	"{\n"
	"  \"major\": \"1\",\n"
	"  \"minor\": \"32\",\n"
	"  \"gitVersion\": \"v1.32.6\",\n"
	"  \"gitCommit\": \"60dcd7540d7cebe42b37a84d09e56b7bf9a19897\",\n"
	"  \"gitTreeState\": \"\",\n"
	"  \"buildDate\": \"1970-01-01T00:00:00Z\",\n"
	"  \"goVersion\": \"go1.23.5\",\n"
	"  \"compiler\": \"gc\",\n"
	"  \"platform\": \"linux/amd64\"\n"
	"}";

static void add_resource_list(struct buf *b)
{
	/* the real list is sorted by name */
	int order[FAKE_NRES], n = 0;
	for (int i = 0; i < FAKE_NRES; i++)
		order[n++] = i;
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 &&
				strcmp(fake_res_table[order[j - 1]].resource,
				       fake_res_table[order[j]].resource) > 0;
		     j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}

	buf_adds(b, "{\"kind\":\"APIResourceList\",\"groupVersion\":\"v1\","
		    "\"resources\":[");
	for (int i = 0; i < n; i++) {
		const struct fake_res *r = &fake_res_table[order[i]];
		buf_printf(b, "%s{\"name\":\"%s\",\"singularName\":\"%s\","
			      "\"namespaced\":%s,\"kind\":\"%s\",\"verbs\":"
			      "[\"create\",\"delete\",%s\"get\",\"list\","
			      "\"patch\",\"update\",\"watch\"]",
			   i ? "," : "", r->resource, r->singular,
			   r->namespaced ? "true" : "false", r->kind,
			   r->namespaced ? "\"deletecollection\"," : "");
		if (r->short_name)
			buf_printf(b, ",\"shortNames\":[\"%s\"]", r->short_name);
		if (r->category_all)
			buf_adds(b, ",\"categories\":[\"all\"]");
		buf_printf(b, ",\"storageVersionHash\":\"%s\"}", r->hash);
	}
	buf_adds(b, "]}\n");
}

bool fake_discovery_serve(struct MHD_Connection *c, const char *path,
			  enum MHD_Result *ret)
{
	struct buf b = BUF_INIT;

	if (strcmp(path, "/version") == 0 || strcmp(path, "/version/") == 0) {
		buf_adds(&b, version_body);
	} else if (strcmp(path, "/api") == 0 || strcmp(path, "/api/") == 0) {
		buf_printf(&b, "{\"kind\":\"APIVersions\",\"versions\":[\"v1\"],"
			       "\"serverAddressByClientCIDRs\":[{\"clientCIDR\":"
			       "\"0.0.0.0/0\",\"serverAddress\":"
			       "\"127.0.0.1:%u\"}]}\n", fake_http_port());
	} else if (strcmp(path, "/api/v1") == 0 ||
		   strcmp(path, "/api/v1/") == 0) {
		add_resource_list(&b);
	} else if (strcmp(path, "/apis") == 0 || strcmp(path, "/apis/") == 0) {
		buf_adds(&b, "{\"kind\":\"APIGroupList\",\"apiVersion\":\"v1\","
			     "\"groups\":[]}\n");
	} else {
		return false;
	}
	*ret = fake_reply(c, 200, &b);
	return true;
}
