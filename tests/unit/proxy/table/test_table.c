/*
 * test_table: Table rows as kubectl's printers compute them (pod
 * READY/STATUS/RESTARTS and age, configmap DATA), the Table envelope,
 * what includeObject puts in a row, which form the Accept header picks,
 * and which API groups are custom.
 */
#include <string.h>
#include <time.h>

#include "cache/kind.h"
#include "cache/obj.h"
#include "proxy/table/table.h"
#include "proxy/table/table_int.h"
#include "check.h"

static struct cache_obj *parse(const char *resource, const char *json)
{
	char err[128];
	const struct cache_kind *k = cache_kind_lookup(resource);
	return k ? cache_obj_parse(k, json, strlen(json), false, err,
				   sizeof(err)) :
		   NULL;
}

/* 2026-01-01T00:00:00Z */
#define CREATED 1767225600

/* The one-row Table of o without column definitions, into b (reset). */
static void row(struct buf *b, const struct cache_kind *k, struct cache_obj *o,
		const struct proxy_table_format *f, time_t now)
{
	buf_reset(b);
	proxy_table_render(b, k, f, "{}", &o, 1, false, now);
	buf_addc(b, '\0');
}

static void test_pod_row(void)
{
	const struct cache_kind *k = cache_kind_lookup("pods");
	struct cache_obj *o = parse(
		"pods",
		"{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"web-1\","
		"\"namespace\":\"default\",\"uid\":\"u1\",\"resourceVersion\":\"7\","
		"\"creationTimestamp\":\"2026-01-01T00:00:00Z\"},"
		"\"spec\":{\"nodeName\":\"node-1\",\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"}]},"
		"\"status\":{\"phase\":\"Running\",\"podIP\":\"10.0.0.5\",\"containerStatuses\":["
		"{\"name\":\"a\",\"ready\":true,\"restartCount\":3,\"state\":{\"running\":{}}},"
		"{\"name\":\"b\",\"ready\":false,\"restartCount\":0,\"state\":{\"running\":{}}}]}}");
	CHECK(k && o);
	if (!k || !o)
		return;
	struct proxy_table_format f = { .form = PROXY_TABLE_FORM_TABLE,
					.version = "v1",
					.include = PROXY_TABLE_INCLUDE_NONE };
	struct buf b = BUF_INIT;
	row(&b, k, o, &f, CREATED + 165);
	CHECK(buf_ok(&b));
	CHECK(strstr(b.p, "\"cells\":[\"web-1\",\"2/2\"") == NULL);
	CHECK(strstr(b.p,
		     "\"cells\":[\"web-1\",\"1/2\",\"Running\",\"3\",\"2m45s\"") !=
	      NULL);
	CHECK(strstr(b.p, "\"object\":null}") != NULL);
	buf_reset(&b);

	/* the envelope, one row, no column definitions after the first */
	char meta[64];
	proxy_table_object_meta(o, meta, sizeof(meta));
	CHECK_STR(meta, "{\"resourceVersion\":\"7\"}");
	proxy_table_render(&b, k, &f, meta, &o, 1, false, CREATED + 165);
	CHECK(!strncmp(
		b.p,
		"{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/v1\","
		"\"metadata\":{\"resourceVersion\":\"7\"},"
		"\"columnDefinitions\":null,\"rows\":[{\"cells\":[",
		strlen("{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/v1\","
		       "\"metadata\":{\"resourceVersion\":\"7\"},"
		       "\"columnDefinitions\":null,\"rows\":[{\"cells\":[")));
	CHECK(b.len > 2 && !strcmp(b.p + b.len - 2, "]}"));
	buf_reset(&b);

	/* includeObject=Object: the object as cached */
	f.include = PROXY_TABLE_INCLUDE_OBJECT;
	row(&b, k, o, &f, CREATED);
	CHECK(strstr(b.p, "\"object\":{\"kind\":\"Pod\"") != NULL);
	buf_free(&b);
	cache_obj_put(o);

	/* managedFields, which a row's parse does not tokenize: the same
	 * cells, and the metadata whole, theirs included */
	o = parse(
		"pods",
		"{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"web-1\","
		"\"namespace\":\"default\",\"uid\":\"u1\",\"resourceVersion\":\"7\","
		"\"managedFields\":[{\"manager\":\"kubelet\",\"fieldsV1\":{"
		"\"f:status\":{\"f:phase\":{}},\"f:metadata\":{\"f:name\":{}}}}],"
		"\"creationTimestamp\":\"2026-01-01T00:00:00Z\"},"
		"\"spec\":{\"nodeName\":\"node-1\",\"containers\":[{\"name\":\"a\"}]},"
		"\"status\":{\"phase\":\"Running\",\"containerStatuses\":["
		"{\"name\":\"a\",\"ready\":true,\"restartCount\":1,\"state\":{\"running\":{}}}]}}");
	CHECK(o != NULL);
	if (!o)
		return;
	f.include = PROXY_TABLE_INCLUDE_METADATA;
	row(&b, k, o, &f, CREATED + 165);
	CHECK(strstr(b.p,
		     "\"cells\":[\"web-1\",\"1/1\",\"Running\",\"1\",\"2m45s\"") !=
	      NULL);
	CHECK(strstr(b.p, "\"object\":{\"kind\":\"PartialObjectMetadata\","
			  "\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":"
			  "{\"name\":\"web-1\",\"namespace\":\"default\","
			  "\"uid\":\"u1\",\"resourceVersion\":\"7\","
			  "\"managedFields\":[{\"manager\":\"kubelet\","
			  "\"fieldsV1\":{\"f:status\":{\"f:phase\":{}},"
			  "\"f:metadata\":{\"f:name\":{}}}}],"
			  "\"creationTimestamp\":\"2026-01-01T00:00:00Z\"}}") !=
	      NULL);
	buf_free(&b);
	cache_obj_put(o);
}

static void test_configmap_row(void)
{
	const struct cache_kind *k = cache_kind_lookup("configmaps");
	struct cache_obj *o = parse(
		"configmaps",
		"{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"cm\","
		"\"namespace\":\"default\",\"uid\":\"u2\",\"resourceVersion\":\"9\","
		"\"creationTimestamp\":\"2026-01-01T00:00:00Z\"},"
		"\"data\":{\"a\":\"1\",\"b\":\"2\"},\"binaryData\":{\"c\":\"AA==\"}}");
	CHECK(k && o);
	if (!k || !o)
		return;
	struct proxy_table_format f = { .form = PROXY_TABLE_FORM_TABLE,
					.version = "v1",
					.include = PROXY_TABLE_INCLUDE_NONE };
	struct buf b = BUF_INIT;
	row(&b, k, o, &f, CREATED + 3 * 86400);
	CHECK(strstr(b.p, "\"cells\":[\"cm\",3,\"3d\"]") != NULL);
	buf_free(&b);
	cache_obj_put(o);
}

static void test_negotiate(void)
{
	struct proxy_table_format f;
	CHECK(proxy_table_format_parse(NULL, NULL, &f) == 0);
	CHECK(f.form == PROXY_TABLE_FORM_JSON &&
	      f.include == PROXY_TABLE_INCLUDE_METADATA);
	CHECK(proxy_table_format_parse("application/json", "Object", &f) == 0);
	CHECK(f.form == PROXY_TABLE_FORM_JSON &&
	      f.include == PROXY_TABLE_INCLUDE_OBJECT);
	/* kubectl get */
	CHECK(proxy_table_format_parse(
		      "application/json;as=Table;v=v1;g=meta.k8s.io,"
		      "application/json;as=Table;v=v1beta1;g=meta.k8s.io,"
		      "application/json",
		      "None", &f) == 0);
	CHECK(f.form == PROXY_TABLE_FORM_TABLE &&
	      f.include == PROXY_TABLE_INCLUDE_NONE);
	CHECK_STR(f.version, "v1");
	CHECK(proxy_table_format_parse(
		      "application/json; as=Table; v=v1beta1; g=meta.k8s.io",
		      NULL, &f) == 0);
	CHECK(f.form == PROXY_TABLE_FORM_TABLE);
	CHECK_STR(f.version, "v1beta1");
	/* a Table version we do not know: the next range decides */
	CHECK(proxy_table_format_parse(
		      "application/json;as=Table;v=v2;g=meta.k8s.io,"
		      "application/json",
		      NULL, &f) == 0);
	CHECK(f.form == PROXY_TABLE_FORM_JSON);
	CHECK(proxy_table_format_parse(
		      "application/json;as=Table;v=v2;g=meta.k8s.io", NULL,
		      &f) == -1);
	CHECK(proxy_table_format_parse(
		      "application/json;as=PartialObjectMetadataList;v=v1;"
		      "g=meta.k8s.io",
		      NULL, &f) == 0);
	CHECK(f.form == PROXY_TABLE_FORM_METADATA);
	CHECK_STR(f.version, "v1");
	CHECK(proxy_table_format_parse("*/*", NULL, &f) == 0);
	CHECK(f.form == PROXY_TABLE_FORM_JSON);
	CHECK(proxy_table_format_parse(
		      "application/vnd.kubernetes.protobuf,*/*", NULL, &f) ==
	      0);
	/* nothing we can produce: a 406 */
	CHECK(proxy_table_format_parse("application/vnd.kubernetes.protobuf",
				       NULL, &f) == -1);
	CHECK(proxy_table_format_parse("text/html", NULL, &f) == -1);
	CHECK(proxy_table_format_parse("application/jsonx", NULL, &f) == -1);
	CHECK(proxy_table_format_parse(
		      "application/json;g=apidiscovery.k8s.io;v=v2;"
		      "as=APIGroupDiscoveryList",
		      NULL, &f) == -1);
	/* YAML: the same forms, marked; the first range still decides */
	CHECK(proxy_table_format_parse("application/yaml", NULL, &f) == 0);
	CHECK(f.form == PROXY_TABLE_FORM_JSON && f.yaml);
	CHECK(proxy_table_format_parse(
		      "application/yaml;as=Table;v=v1;g=meta.k8s.io", NULL,
		      &f) == 0);
	CHECK(f.form == PROXY_TABLE_FORM_TABLE && f.yaml);
	CHECK(proxy_table_format_parse("application/json, application/yaml",
				       NULL, &f) == 0);
	CHECK(f.form == PROXY_TABLE_FORM_JSON && !f.yaml);
	CHECK(proxy_table_format_parse(
		      "application/yaml;as=Table;v=v9;g=meta.k8s.io, */*", NULL,
		      &f) == 0);
	CHECK(f.form == PROXY_TABLE_FORM_JSON && !f.yaml);
	CHECK(proxy_table_format_parse("application/yamlx", NULL, &f) == -1);
	CHECK(!f.yaml);
}

/* Which API groups are custom resources' (their CRD gives the columns). */
static void test_custom_groups(void)
{
	CHECK(!proxy_table_crd_group_is_custom(""));
	CHECK(!proxy_table_crd_group_is_custom("apps"));
	CHECK(!proxy_table_crd_group_is_custom("rbac.authorization.k8s.io"));
	CHECK(!proxy_table_crd_group_is_custom("storagemigration.k8s.io"));
	CHECK(proxy_table_crd_group_is_custom("example.com"));
	/* whole names only: a custom group may end like a built-in one */
	CHECK(proxy_table_crd_group_is_custom("apps.example.com"));
	CHECK(proxy_table_crd_group_is_custom("batch.k8s.io"));
	CHECK(proxy_table_crd_group_is_custom("app"));
	CHECK(proxy_table_crd_group_is_custom("gateway.networking.k8s.io"));
	CHECK(!proxy_table_crd_group_is_custom("networking.k8s.io"));
	CHECK(!proxy_table_crd_group_is_custom("apiextensions.k8s.io"));
}

/* A Table of flow schemas lists them as printFlowSchemaList does: by
 * matchingPrecedence (unset is 0), then name; a metadata list keeps the
 * order it was given. */
static void test_flowschema_order(void)
{
	static const struct cache_kind fs = { "flowcontrol.apiserver.k8s.io",
					      "v1",
					      "flowschemas",
					      "FlowSchema",
					      "FlowSchemaList",
					      false,
					      { NULL } };
	static const char *const objs[] = {
		"{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"1\"},"
		"\"spec\":{\"matchingPrecedence\":1000}}",
		"{\"metadata\":{\"name\":\"b\",\"resourceVersion\":\"2\"},"
		"\"spec\":{\"matchingPrecedence\":500}}",
		"{\"metadata\":{\"name\":\"c\",\"resourceVersion\":\"3\"},"
		"\"spec\":{\"matchingPrecedence\":500}}",
		"{\"metadata\":{\"name\":\"d\",\"resourceVersion\":\"4\"}}",
	};
	struct cache_obj *rows[4];
	char err[128];
	for (int i = 0; i < 4; i++) {
		rows[i] = cache_obj_parse(&fs, objs[i], strlen(objs[i]), false,
					  err, sizeof(err));
		CHECK(rows[i] != NULL);
		if (!rows[i])
			return;
	}
	struct proxy_table_format f = { .form = PROXY_TABLE_FORM_TABLE,
					.version = "v1",
					.include = PROXY_TABLE_INCLUDE_NONE };
	struct buf b = BUF_INIT;
	proxy_table_render(&b, &fs, &f, "{}", rows, 4, false, CREATED);
	buf_addc(&b, '\0');
	const char *d = strstr(b.p, "[\"d\""), *bb = strstr(b.p, "[\"b\""),
		   *c = strstr(b.p, "[\"c\""), *a = strstr(b.p, "[\"a\"");
	CHECK(d && bb && c && a && d < bb && bb < c && c < a);
	buf_free(&b);
	/* the same through a LIST's renderer, a part at a time */
	struct proxy_table_list *tl =
		proxy_table_list_new(&fs, &f, "{}", rows, 4, CREATED);
	CHECK(tl != NULL);
	while (tl && proxy_table_list_next(tl, &b, 16))
		;
	proxy_table_list_free(tl);
	buf_addc(&b, '\0');
	d = strstr(b.p, "[\"d\"");
	a = strstr(b.p, "[\"a\"");
	CHECK(d && a && d < a && strstr(b.p, "[\"b\"") < strstr(b.p, "[\"c\""));
	buf_free(&b);
	f.form = PROXY_TABLE_FORM_METADATA;
	tl = proxy_table_list_new(&fs, &f, "{}", rows, 4, CREATED);
	while (tl && proxy_table_list_next(tl, &b, 1 << 20))
		;
	proxy_table_list_free(tl);
	buf_addc(&b, '\0');
	CHECK(b.p &&
	      strstr(b.p, "\"name\":\"a\"") < strstr(b.p, "\"name\":\"d\""));
	buf_free(&b);
	for (int i = 0; i < 4; i++)
		cache_obj_put(rows[i]);
}

/* The metadata of o (of kind k) as PartialObjectMetadata, into a static
 * string. */
static const char *metadata_of(const struct cache_kind *k, const char *meta)
{
	static char out[1024];
	char err[128], json[768];
	snprintf(json, sizeof(json), "{\"metadata\":%s,\"spec\":{}}", meta);
	struct cache_obj *o =
		cache_obj_parse(k, json, strlen(json), false, err, sizeof(err));
	struct buf b = BUF_INIT;
	if (!o)
		return "(bad object)";
	CHECK(proxy_table_metadata_render(&b, k, o, "v1") == 0);
	buf_addc(&b, '\0');
	snprintf(out, sizeof(out), "%s", b.p ? b.p : "");
	buf_free(&b);
	cache_obj_put(o);
	return out;
}

#define PMO(m)                                                                   \
	"{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/v1\"," \
	"\"metadata\":" m "}"

/* Annotations the apiserver's internal object lacks are not in the
 * metadata views; the rest of the metadata is left byte for byte. */
static void test_metadata_annotations(void)
{
	const struct cache_kind *ds = cache_kind_find("apps", "daemonsets");
	const struct cache_kind *dep = cache_kind_find("apps", "deployments");
	const struct cache_kind *cm = cache_kind_find("", "configmaps");
	static const char gen[] =
		"\"deprecated.daemonset.template.generation\":\"3\"";
	CHECK(ds && dep && cm);
	if (!ds || !dep || !cm)
		return;
	/* the only annotation: "annotations" goes too */
	CHECK_STR(
		metadata_of(
			ds,
			"{\"name\":\"a\",\"namespace\":\"n\",\"resourceVersion\":\"1\","
			"\"annotations\":{"
			"\"deprecated.daemonset.template.generation\":\"3\""
			"},\"labels\":{\"x\":\"y\"}}"),
		PMO("{\"name\":\"a\",\"namespace\":\"n\",\"resourceVersion\":\"1\","
		    "\"labels\":{\"x\":\"y\"}}"));
	CHECK_STR(
		metadata_of(
			ds,
			"{\"name\":\"a\",\"namespace\":\"n\",\"resourceVersion\":\"1\",\"annotations\":{\"b\":\"1\","
			"\"deprecated.daemonset.template.generation\":\"3\"}}"),
		PMO("{\"name\":\"a\",\"namespace\":\"n\",\"resourceVersion\":\"1\",\"annotations\":{\"b\":\"1\"}}"));
	CHECK_STR(
		metadata_of(
			ds,
			"{\"name\":\"a\",\"namespace\":\"n\",\"resourceVersion\":\"1\",\"annotations\":{"
			"\"deprecated.daemonset.template.generation\":\"3\","
			"\"z\":\"1\"}}"),
		PMO("{\"name\":\"a\",\"namespace\":\"n\",\"resourceVersion\":\"1\",\"annotations\":{\"z\":\"1\"}}"));
	/* managedFields, not tokenized by the metadata views' parse, go
	 * out byte for byte, whether before or after the cut annotation,
	 * and their own "f:annotations" is not taken for it */
	CHECK_STR(
		metadata_of(
			ds,
			"{\"name\":\"a\",\"namespace\":\"n\",\"resourceVersion\":\"1\","
			"\"managedFields\":[{\"manager\":\"m\","
			"\"fieldsV1\":{\"f:metadata\":{\"f:annotations\":{"
			"\"f:deprecated.daemonset.template.generation\":{}}}}}],"
			"\"annotations\":{\"deprecated.daemonset.template.generation\":\"3\","
			"\"k\":\"v\"}}"),
		PMO("{\"name\":\"a\",\"namespace\":\"n\",\"resourceVersion\":\"1\","
		    "\"managedFields\":[{\"manager\":\"m\","
		    "\"fieldsV1\":{\"f:metadata\":{\"f:annotations\":{"
		    "\"f:deprecated.daemonset.template.generation\":{}}}}}],"
		    "\"annotations\":{\"k\":\"v\"}}"));
	CHECK_STR(
		metadata_of(
			ds,
			"{\"name\":\"a\",\"namespace\":\"n\",\"resourceVersion\":\"1\","
			"\"annotations\":{"
			"\"deprecated.daemonset.template.generation\":\"3\"},"
			"\"managedFields\":[]}"),
		PMO("{\"name\":\"a\",\"namespace\":\"n\",\"resourceVersion\":\"1\","
		    "\"managedFields\":[]}"));
	/* last member of the metadata */
	CHECK_STR(
		metadata_of(
			ds,
			"{\"name\":\"a\",\"namespace\":\"n\",\"resourceVersion\":\"1\",\"annotations\":{"
			"\"deprecated.daemonset.template.generation\":\"3\"}}"),
		PMO("{\"name\":\"a\",\"namespace\":\"n\",\"resourceVersion\":\"1\"}"));
	/* a Deployment's rollback revision, unless empty */
	CHECK_STR(
		metadata_of(
			dep,
			"{\"name\":\"a\",\"namespace\":\"n\",\"resourceVersion\":\"1\",\"annotations\":{"
			"\"deprecated.deployment.rollback.to\":\"2\"}}"),
		PMO("{\"name\":\"a\",\"namespace\":\"n\",\"resourceVersion\":\"1\"}"));
	CHECK_STR(
		metadata_of(
			dep,
			"{\"name\":\"a\",\"namespace\":\"n\",\"resourceVersion\":\"1\",\"annotations\":{"
			"\"deprecated.deployment.rollback.to\":\"\"}}"),
		PMO("{\"name\":\"a\",\"namespace\":\"n\",\"resourceVersion\":\"1\",\"annotations\":{"
		    "\"deprecated.deployment.rollback.to\":\"\"}}"));
	/* other kinds keep whatever they carry */
	CHECK_STR(
		metadata_of(
			cm,
			"{\"name\":\"a\",\"namespace\":\"n\",\"resourceVersion\":\"1\",\"annotations\":{"
			"\"deprecated.daemonset.template.generation\":\"3\""
			"}}"),
		PMO("{\"name\":\"a\",\"namespace\":\"n\",\"resourceVersion\":\"1\",\"annotations\":{"
		    "\"deprecated.daemonset.template.generation\":\"3\""
		    "}}"));
	(void)gen;
}

int main(void)
{
	test_flowschema_order();
	test_metadata_annotations();
	test_negotiate();
	test_custom_groups();
	test_pod_row();
	test_configmap_row();
	return check_done("table");
}
