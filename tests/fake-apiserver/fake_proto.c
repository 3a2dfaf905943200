/*
 * fake_proto: decode Kubernetes protobuf bodies into JSON (see
 * fake_proto.h).
 *
 * The messages are described by tables, one row per field, written in
 * the order of k8s.io/api's generated.proto, which is the Go struct
 * order and so the order the apiserver's JSON uses. A row names the
 * field number, the JSON member, how the value is encoded and, for a
 * nested message, its table. Decoding a message first collects members
 * as they come on the wire, then copies them out in table order.
 *
 * Zero values: gogo-protobuf writes a non-pointer scalar even when it is
 * empty (an ObjectMeta carries `generateName: ""` on the wire), and Go's
 * `omitempty` drops it from JSON, so an empty string, 0 or false is
 * omitted unless the Go field is a pointer (PTR), whose presence on the
 * wire means it was set. Embedded structs (a Probe's handler, a key
 * selector's LocalObjectReference, a Volume's source) are INLINE: their
 * members land in the parent, as Go's JSON inlines them.
 */
#include "fake_proto.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config/buf.h"

/* How a field's value is encoded. */
enum pkind {
	P_STR,	 /* string */
	P_BYTES, /* bytes, base64 in JSON */
	P_BOOL,
	P_INT,	     /* int32/int64 varint (packed when repeated) */
	P_MSG,	     /* nested message: a JSON object */
	P_INLINE,    /* embedded struct: members go to the parent */
	P_MAP_STR,   /* map<string, string> */
	P_MAP_BYTES, /* map<string, bytes> */
	P_MAP_QTY,   /* map<string, resource.Quantity> */
	P_TIME,	     /* meta/v1 Time {1 seconds, 2 nanos}: RFC 3339 */
	P_QTY,	     /* resource.Quantity {1 string} */
	P_INTSTR,    /* intstr.IntOrString {1 type, 2 intVal, 3 strVal} */
	P_FIELDSV1,  /* meta/v1 FieldsV1 {1 Raw}: raw JSON */
};

#define REP 1u /* repeated: a JSON array */
#define PTR 2u /* a Go pointer: kept even when zero */

struct pmsg;

struct pfield {
	unsigned num;
	const char *json;
	unsigned char kind, flags;
	const struct pmsg *msg; /* P_MSG, P_INLINE */
};

struct pmsg {
	const char *name;	/* for error messages */
	const struct pfield *f; /* ends with num 0 */
};

#define F(n, j, k, fl)            \
	{                         \
		n, j, k, fl, NULL \
	}
#define M(n, j, m, fl)              \
	{                           \
		n, j, P_MSG, fl, &m \
	}
#define MSG(var, nm, ...)                                              \
	static const struct pfield var##_f[] = { __VA_ARGS__, { 0 } }; \
	static const struct pmsg var = { nm, var##_f }

/* --- k8s.io/apimachinery meta/v1 ----------------------------------- */

MSG(m_owner_ref, "OwnerReference", F(5, "apiVersion", P_STR, 0),
    F(1, "kind", P_STR, 0), F(3, "name", P_STR, 0), F(4, "uid", P_STR, 0),
    F(6, "controller", P_BOOL, PTR), F(7, "blockOwnerDeletion", P_BOOL, PTR));

MSG(m_managed_fields, "ManagedFieldsEntry", F(1, "manager", P_STR, 0),
    F(2, "operation", P_STR, 0), F(3, "apiVersion", P_STR, 0),
    F(4, "time", P_TIME, 0), F(6, "fieldsType", P_STR, 0),
    F(7, "fieldsV1", P_FIELDSV1, 0), F(8, "subresource", P_STR, 0));

MSG(m_object_meta, "ObjectMeta", F(1, "name", P_STR, 0),
    F(2, "generateName", P_STR, 0), F(3, "namespace", P_STR, 0),
    F(4, "selfLink", P_STR, 0), F(5, "uid", P_STR, 0),
    F(6, "resourceVersion", P_STR, 0), F(7, "generation", P_INT, 0),
    F(8, "creationTimestamp", P_TIME, 0),
    F(9, "deletionTimestamp", P_TIME, PTR),
    F(10, "deletionGracePeriodSeconds", P_INT, PTR),
    F(11, "labels", P_MAP_STR, 0), F(12, "annotations", P_MAP_STR, 0),
    M(13, "ownerReferences", m_owner_ref, REP), F(14, "finalizers", P_STR, REP),
    M(17, "managedFields", m_managed_fields, REP));

/* --- k8s.io/api core/v1: shared pieces ------------------------------ */

MSG(m_local_ref, "LocalObjectReference", F(1, "name", P_STR, 0));

MSG(m_key_selector, "KeySelector", { 1, "", P_INLINE, 0, &m_local_ref },
    F(2, "key", P_STR, 0), F(3, "optional", P_BOOL, PTR));

MSG(m_field_selector, "ObjectFieldSelector", F(1, "apiVersion", P_STR, 0),
    F(2, "fieldPath", P_STR, 0));

MSG(m_resource_selector, "ResourceFieldSelector",
    F(1, "containerName", P_STR, 0), F(2, "resource", P_STR, 0),
    F(3, "divisor", P_QTY, 0));

MSG(m_env_source, "EnvVarSource", M(1, "fieldRef", m_field_selector, 0),
    M(2, "resourceFieldRef", m_resource_selector, 0),
    M(3, "configMapKeyRef", m_key_selector, 0),
    M(4, "secretKeyRef", m_key_selector, 0));

MSG(m_env_var, "EnvVar", F(1, "name", P_STR, 0), F(2, "value", P_STR, 0),
    M(3, "valueFrom", m_env_source, 0));

MSG(m_env_ref, "EnvFromRef", { 1, "", P_INLINE, 0, &m_local_ref },
    F(2, "optional", P_BOOL, PTR));

MSG(m_env_from, "EnvFromSource", F(1, "prefix", P_STR, 0),
    M(2, "configMapRef", m_env_ref, 0), M(3, "secretRef", m_env_ref, 0));

MSG(m_container_port, "ContainerPort", F(1, "name", P_STR, 0),
    F(2, "hostPort", P_INT, 0), F(3, "containerPort", P_INT, 0),
    F(4, "protocol", P_STR, 0), F(5, "hostIP", P_STR, 0));

MSG(m_claim, "ResourceClaim", F(1, "name", P_STR, 0),
    F(2, "request", P_STR, 0));

MSG(m_resources, "ResourceRequirements", F(1, "limits", P_MAP_QTY, 0),
    F(2, "requests", P_MAP_QTY, 0), M(3, "claims", m_claim, REP));

MSG(m_volume_mount, "VolumeMount", F(1, "name", P_STR, 0),
    F(2, "readOnly", P_BOOL, 0), F(7, "recursiveReadOnly", P_STR, PTR),
    F(3, "mountPath", P_STR, 0), F(4, "subPath", P_STR, 0),
    F(5, "mountPropagation", P_STR, PTR), F(6, "subPathExpr", P_STR, 0));

MSG(m_exec, "ExecAction", F(1, "command", P_STR, REP));

MSG(m_http_header, "HTTPHeader", F(1, "name", P_STR, 0),
    F(2, "value", P_STR, 0));

MSG(m_http_get, "HTTPGetAction", F(1, "path", P_STR, 0),
    F(2, "port", P_INTSTR, 0), F(3, "host", P_STR, 0), F(4, "scheme", P_STR, 0),
    M(5, "httpHeaders", m_http_header, REP));

MSG(m_tcp_socket, "TCPSocketAction", F(1, "port", P_INTSTR, 0),
    F(2, "host", P_STR, 0));

MSG(m_grpc, "GRPCAction", F(1, "port", P_INT, 0), F(2, "service", P_STR, PTR));

MSG(m_probe_handler, "ProbeHandler", M(1, "exec", m_exec, 0),
    M(2, "httpGet", m_http_get, 0), M(3, "tcpSocket", m_tcp_socket, 0),
    M(4, "grpc", m_grpc, 0));

MSG(m_probe, "Probe", { 1, "", P_INLINE, 0, &m_probe_handler },
    F(2, "initialDelaySeconds", P_INT, 0), F(3, "timeoutSeconds", P_INT, 0),
    F(4, "periodSeconds", P_INT, 0), F(5, "successThreshold", P_INT, 0),
    F(6, "failureThreshold", P_INT, 0),
    F(7, "terminationGracePeriodSeconds", P_INT, PTR));

MSG(m_capabilities, "Capabilities", F(1, "add", P_STR, REP),
    F(2, "drop", P_STR, REP));

MSG(m_seccomp, "SeccompProfile", F(1, "type", P_STR, 0),
    F(2, "localhostProfile", P_STR, PTR));

MSG(m_security_context, "SecurityContext",
    M(1, "capabilities", m_capabilities, 0), F(2, "privileged", P_BOOL, PTR),
    F(4, "runAsUser", P_INT, PTR), F(8, "runAsGroup", P_INT, PTR),
    F(5, "runAsNonRoot", P_BOOL, PTR),
    F(6, "readOnlyRootFilesystem", P_BOOL, PTR),
    F(7, "allowPrivilegeEscalation", P_BOOL, PTR),
    F(9, "procMount", P_STR, PTR), M(11, "seccompProfile", m_seccomp, 0));

MSG(m_container, "Container", F(1, "name", P_STR, 0), F(2, "image", P_STR, 0),
    F(3, "command", P_STR, REP), F(4, "args", P_STR, REP),
    F(5, "workingDir", P_STR, 0), M(6, "ports", m_container_port, REP),
    M(19, "envFrom", m_env_from, REP), M(7, "env", m_env_var, REP),
    M(8, "resources", m_resources, 0), F(24, "restartPolicy", P_STR, PTR),
    M(9, "volumeMounts", m_volume_mount, REP),
    M(10, "livenessProbe", m_probe, 0), M(11, "readinessProbe", m_probe, 0),
    M(22, "startupProbe", m_probe, 0),
    F(13, "terminationMessagePath", P_STR, 0),
    F(20, "terminationMessagePolicy", P_STR, 0),
    F(14, "imagePullPolicy", P_STR, 0),
    M(15, "securityContext", m_security_context, 0), F(16, "stdin", P_BOOL, 0),
    F(17, "stdinOnce", P_BOOL, 0), F(18, "tty", P_BOOL, 0));

MSG(m_key_to_path, "KeyToPath", F(1, "key", P_STR, 0), F(2, "path", P_STR, 0),
    F(3, "mode", P_INT, PTR));

MSG(m_host_path, "HostPathVolumeSource", F(1, "path", P_STR, 0),
    F(2, "type", P_STR, PTR));

MSG(m_empty_dir, "EmptyDirVolumeSource", F(1, "medium", P_STR, 0),
    F(2, "sizeLimit", P_QTY, PTR));

MSG(m_secret_volume, "SecretVolumeSource", F(1, "secretName", P_STR, 0),
    M(2, "items", m_key_to_path, REP), F(3, "defaultMode", P_INT, PTR),
    F(4, "optional", P_BOOL, PTR));

MSG(m_pvc_volume, "PersistentVolumeClaimVolumeSource",
    F(1, "claimName", P_STR, 0), F(2, "readOnly", P_BOOL, 0));

MSG(m_downward_file, "DownwardAPIVolumeFile", F(1, "path", P_STR, 0),
    M(2, "fieldRef", m_field_selector, 0),
    M(3, "resourceFieldRef", m_resource_selector, 0), F(4, "mode", P_INT, PTR));

MSG(m_downward_volume, "DownwardAPIVolumeSource",
    M(1, "items", m_downward_file, REP), F(2, "defaultMode", P_INT, PTR));

MSG(m_configmap_volume, "ConfigMapVolumeSource",
    { 1, "", P_INLINE, 0, &m_local_ref }, M(2, "items", m_key_to_path, REP),
    F(3, "defaultMode", P_INT, PTR), F(4, "optional", P_BOOL, PTR));

MSG(m_volume_source, "VolumeSource", M(1, "hostPath", m_host_path, 0),
    M(2, "emptyDir", m_empty_dir, 0), M(6, "secret", m_secret_volume, 0),
    M(10, "persistentVolumeClaim", m_pvc_volume, 0),
    M(16, "downwardAPI", m_downward_volume, 0),
    M(19, "configMap", m_configmap_volume, 0));

MSG(m_volume, "Volume", F(1, "name", P_STR, 0),
    { 2, "", P_INLINE, 0, &m_volume_source });

MSG(m_toleration, "Toleration", F(1, "key", P_STR, 0),
    F(2, "operator", P_STR, 0), F(3, "value", P_STR, 0),
    F(4, "effect", P_STR, 0), F(5, "tolerationSeconds", P_INT, PTR));

MSG(m_pod_security_context, "PodSecurityContext", F(2, "runAsUser", P_INT, PTR),
    F(6, "runAsGroup", P_INT, PTR), F(3, "runAsNonRoot", P_BOOL, PTR),
    F(4, "supplementalGroups", P_INT, REP), F(5, "fsGroup", P_INT, PTR),
    F(9, "fsGroupChangePolicy", P_STR, PTR),
    M(10, "seccompProfile", m_seccomp, 0));

/* --- the kinds ------------------------------------------------------ */

MSG(m_pod_spec, "PodSpec", M(1, "volumes", m_volume, REP),
    M(20, "initContainers", m_container, REP),
    M(2, "containers", m_container, REP), F(3, "restartPolicy", P_STR, 0),
    F(4, "terminationGracePeriodSeconds", P_INT, PTR),
    F(5, "activeDeadlineSeconds", P_INT, PTR), F(6, "dnsPolicy", P_STR, 0),
    F(7, "nodeSelector", P_MAP_STR, 0), F(8, "serviceAccountName", P_STR, 0),
    F(9, "serviceAccount", P_STR, 0),
    F(21, "automountServiceAccountToken", P_BOOL, PTR),
    F(10, "nodeName", P_STR, 0), F(11, "hostNetwork", P_BOOL, 0),
    F(12, "hostPID", P_BOOL, 0), F(13, "hostIPC", P_BOOL, 0),
    F(27, "shareProcessNamespace", P_BOOL, PTR),
    M(14, "securityContext", m_pod_security_context, 0),
    M(15, "imagePullSecrets", m_local_ref, REP), F(16, "hostname", P_STR, 0),
    F(17, "subdomain", P_STR, 0), F(19, "schedulerName", P_STR, 0),
    M(22, "tolerations", m_toleration, REP),
    F(24, "priorityClassName", P_STR, 0), F(25, "priority", P_INT, PTR),
    F(29, "runtimeClassName", P_STR, PTR),
    F(30, "enableServiceLinks", P_BOOL, PTR),
    F(31, "preemptionPolicy", P_STR, PTR),
    F(35, "setHostnameAsFQDN", P_BOOL, PTR), F(37, "hostUsers", P_BOOL, PTR));

MSG(m_pod_condition, "PodCondition", F(1, "type", P_STR, 0),
    F(2, "status", P_STR, 0), F(3, "lastProbeTime", P_TIME, 0),
    F(4, "lastTransitionTime", P_TIME, 0), F(5, "reason", P_STR, 0),
    F(6, "message", P_STR, 0));

MSG(m_pod_status, "PodStatus", F(1, "phase", P_STR, 0),
    M(2, "conditions", m_pod_condition, REP), F(3, "message", P_STR, 0),
    F(4, "reason", P_STR, 0), F(11, "nominatedNodeName", P_STR, 0),
    F(5, "hostIP", P_STR, 0), F(6, "podIP", P_STR, 0),
    F(7, "startTime", P_TIME, PTR), F(9, "qosClass", P_STR, 0));

MSG(m_pod, "Pod", M(1, "metadata", m_object_meta, 0),
    M(2, "spec", m_pod_spec, 0), M(3, "status", m_pod_status, 0));

MSG(m_configmap, "ConfigMap", M(1, "metadata", m_object_meta, 0),
    F(4, "immutable", P_BOOL, PTR), F(2, "data", P_MAP_STR, 0),
    F(3, "binaryData", P_MAP_BYTES, 0));

MSG(m_namespace_spec, "NamespaceSpec", F(1, "finalizers", P_STR, REP));

MSG(m_namespace_status, "NamespaceStatus", F(1, "phase", P_STR, 0));

MSG(m_namespace, "Namespace", M(1, "metadata", m_object_meta, 0),
    M(2, "spec", m_namespace_spec, 0), M(3, "status", m_namespace_status, 0));

MSG(m_service_port, "ServicePort", F(1, "name", P_STR, 0),
    F(2, "protocol", P_STR, 0), F(6, "appProtocol", P_STR, PTR),
    F(3, "port", P_INT, 0), F(4, "targetPort", P_INTSTR, 0),
    F(5, "nodePort", P_INT, 0));

MSG(m_service_spec, "ServiceSpec", M(1, "ports", m_service_port, REP),
    F(2, "selector", P_MAP_STR, 0), F(3, "clusterIP", P_STR, 0),
    F(18, "clusterIPs", P_STR, REP), F(4, "type", P_STR, 0),
    F(5, "externalIPs", P_STR, REP), F(7, "sessionAffinity", P_STR, 0),
    F(8, "loadBalancerIP", P_STR, 0),
    F(9, "loadBalancerSourceRanges", P_STR, REP),
    F(10, "externalName", P_STR, 0), F(11, "externalTrafficPolicy", P_STR, 0),
    F(12, "healthCheckNodePort", P_INT, 0),
    F(13, "publishNotReadyAddresses", P_BOOL, 0),
    F(19, "ipFamilies", P_STR, REP), F(17, "ipFamilyPolicy", P_STR, PTR),
    F(20, "allocateLoadBalancerNodePorts", P_BOOL, PTR),
    F(21, "loadBalancerClass", P_STR, PTR),
    F(22, "internalTrafficPolicy", P_STR, PTR),
    F(23, "trafficDistribution", P_STR, PTR));

MSG(m_lb_ingress, "LoadBalancerIngress", F(1, "ip", P_STR, 0),
    F(2, "hostname", P_STR, 0), F(3, "ipMode", P_STR, PTR));

MSG(m_lb_status, "LoadBalancerStatus", M(1, "ingress", m_lb_ingress, REP));

MSG(m_service_status, "ServiceStatus", M(1, "loadBalancer", m_lb_status, 0));

MSG(m_service, "Service", M(1, "metadata", m_object_meta, 0),
    M(2, "spec", m_service_spec, 0), M(3, "status", m_service_status, 0));

static const struct {
	const char *kind;
	const struct pmsg *msg;
} kinds[] = {
	{ "Namespace", &m_namespace },
	{ "Pod", &m_pod },
	{ "ConfigMap", &m_configmap },
	{ "Service", &m_service },
};

/* --- wire format ---------------------------------------------------- */

struct rd {
	const uint8_t *p, *end;
};

struct dctx {
	char *err;
	size_t errlen;
};

static bool fail(struct dctx *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static bool fail(struct dctx *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->err, d->errlen, fmt, ap);
	va_end(ap);
	return false;
}

static bool rd_varint(struct rd *r, uint64_t *v)
{
	uint64_t x = 0;
	for (int shift = 0; shift < 64 && r->p < r->end; shift += 7) {
		uint8_t b = *r->p++;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;
}

/* A length-delimited value: its bytes as a sub-reader. */
static bool rd_bytes(struct rd *r, struct rd *out)
{
	uint64_t n;
	if (!rd_varint(r, &n) || n > (uint64_t)(r->end - r->p))
		return false;
	out->p = r->p;
	out->end = r->p + n;
	r->p += n;
	return true;
}

/* Skip one value of wire type wt (groups, unused by Kubernetes, are
 * refused). */
static bool rd_skip(struct rd *r, unsigned wt)
{
	uint64_t v;
	struct rd sub;
	switch (wt) {
	case 0:
		return rd_varint(r, &v);
	case 1:
	case 5: {
		size_t n = wt == 1 ? 8 : 4;
		if ((size_t)(r->end - r->p) < n)
			return false;
		r->p += n;
		return true;
	}
	case 2:
		return rd_bytes(r, &sub);
	default:
		return false;
	}
}

/* Read the next tag; false at the end (or on a malformed tag, which
 * sets *bad). */
static bool rd_tag(struct rd *r, unsigned *num, unsigned *wt, bool *bad)
{
	uint64_t t;
	if (r->p >= r->end)
		return false;
	if (!rd_varint(r, &t) || (t >> 3) == 0 || (t >> 3) > 0x1fffffff) {
		*bad = true;
		return false;
	}
	*num = (unsigned)(t >> 3);
	*wt = (unsigned)(t & 7);
	return true;
}

/* The string field 1 of a small message (Quantity), "" when absent. */
static bool first_string(struct rd m, struct rd *s)
{
	unsigned num, wt;
	bool bad = false;
	s->p = s->end = m.p;
	while (rd_tag(&m, &num, &wt, &bad)) {
		if (num == 1 && wt == 2) {
			if (!rd_bytes(&m, s))
				return false;
		} else if (!rd_skip(&m, wt)) {
			return false;
		}
	}
	return !bad;
}

static void add_base64(struct buf *b, const uint8_t *p, size_t n)
{
	static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrs"
				 "tuvwxyz0123456789+/";
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		buf_addc(b, al[(v >> 18) & 63]);
		buf_addc(b, al[(v >> 12) & 63]);
		buf_addc(b, i + 1 < n ? al[(v >> 6) & 63] : '=');
		buf_addc(b, i + 2 < n ? al[v & 63] : '=');
	}
}

static json_t *json_bytes(const uint8_t *p, size_t n)
{
	struct buf b = BUF_INIT;
	json_t *j;
	add_base64(&b, p, n);
	j = buf_ok(&b) ? json_stringn(b.p ? b.p : "", b.len) : NULL;
	buf_free(&b);
	return j;
}

/* meta/v1 Time: whole seconds (the apiserver drops the nanos too);
 * NULL for the zero time, which travels as an empty message. */
static json_t *json_time(struct dctx *d, struct rd m, bool *ok)
{
	uint64_t secs = 0, v;
	unsigned num, wt;
	bool bad = false;
	char out[40];
	struct tm tm;

	*ok = false;
	while (rd_tag(&m, &num, &wt, &bad)) {
		if (num == 1 && wt == 0) {
			if (!rd_varint(&m, &secs))
				return NULL;
		} else if (wt == 0 ? !rd_varint(&m, &v) : !rd_skip(&m, wt)) {
			return NULL;
		}
	}
	if (bad)
		return NULL;
	*ok = true;
	if (m.end == m.p && secs == 0)
		return NULL;
	time_t t = (time_t)(int64_t)secs;
	if (!gmtime_r(&t, &tm) || tm.tm_year + 1900 < 1 ||
	    tm.tm_year + 1900 > 9999) {
		*ok = fail(d, "time out of range: %lld",
			   (long long)(int64_t)secs);
		return NULL;
	}
	strftime(out, sizeof(out), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return json_string(out);
}

static json_t *json_intstr(struct rd m)
{
	uint64_t type = 0, iv = 0;
	struct rd s = { NULL, NULL };
	unsigned num, wt;
	bool bad = false;

	while (rd_tag(&m, &num, &wt, &bad)) {
		if ((num == 1 || num == 2) && wt == 0) {
			if (!rd_varint(&m, num == 1 ? &type : &iv))
				return NULL;
		} else if (num == 3 && wt == 2) {
			if (!rd_bytes(&m, &s))
				return NULL;
		} else if (!rd_skip(&m, wt)) {
			return NULL;
		}
	}
	if (bad)
		return NULL;
	if (type == 1)
		return json_stringn(s.p ? (const char *)s.p : "",
				    s.p ? (size_t)(s.end - s.p) : 0);
	return json_integer((int32_t)iv);
}

static json_t *decode_msg(struct dctx *d, const struct pmsg *m, struct rd r);

/* One map entry {1 key, 2 value} into the object at f->json of into. */
static bool map_entry(struct dctx *d, const struct pfield *f, struct rd e,
		      json_t *into)
{
	struct rd k = { e.p, e.p }, v = { e.p, e.p };
	unsigned num, wt;
	bool bad = false;
	json_t *val, *map;

	while (rd_tag(&e, &num, &wt, &bad)) {
		if ((num == 1 || num == 2) && wt == 2) {
			if (!rd_bytes(&e, num == 1 ? &k : &v))
				return fail(d, "%s: truncated map entry",
					    f->json);
		} else if (!rd_skip(&e, wt)) {
			return fail(d, "%s: malformed map entry", f->json);
		}
	}
	if (bad)
		return fail(d, "%s: malformed map entry", f->json);
	if (f->kind == P_MAP_BYTES) {
		val = json_bytes(v.p, (size_t)(v.end - v.p));
	} else {
		if (f->kind == P_MAP_QTY && !first_string(v, &v))
			return fail(d, "%s: malformed quantity", f->json);
		val = json_stringn((const char *)v.p, (size_t)(v.end - v.p));
	}
	char *key =
		val ? strndup((const char *)k.p, (size_t)(k.end - k.p)) : NULL;
	if (!val || !key || memchr(k.p, 0, (size_t)(k.end - k.p))) {
		json_decref(val);
		free(key);
		return fail(d, "%s: invalid UTF-8 or NUL in a map entry",
			    f->json);
	}
	if (!json_is_object(map = json_object_get(into, f->json))) {
		map = json_object();
		json_object_set_new(into, f->json, map);
	}
	int rc = json_object_set_new(map, key, val);
	free(key);
	return rc == 0 || fail(d, "%s: invalid map key", f->json);
}

/* Store v (a new reference; NULL means "omit") under f in into. */
static void put(json_t *into, const struct pfield *f, json_t *v, bool zero)
{
	if (!v)
		return;
	if (f->flags & REP) {
		json_t *a = json_object_get(into, f->json);
		if (!json_is_array(a)) {
			a = json_array();
			json_object_set_new(into, f->json, a);
		}
		json_array_append_new(a, v);
	} else if (zero && !(f->flags & PTR)) {
		json_decref(v);
	} else {
		json_object_set_new(into, f->json, v);
	}
}

static bool scalar(const struct pfield *f, uint64_t v, json_t *into)
{
	if (f->kind == P_BOOL)
		put(into, f, json_boolean(v != 0), v == 0);
	else
		put(into, f, json_integer((json_int_t)(int64_t)v), v == 0);
	return true;
}

/* Decode the fields of message m from r into the object into (in wire
 * order; the caller orders them). */
static bool decode_fields(struct dctx *d, const struct pmsg *m, struct rd r,
			  json_t *into)
{
	unsigned num, wt;
	bool bad = false;

	while (rd_tag(&r, &num, &wt, &bad)) {
		const struct pfield *f = m->f;
		while (f->num && f->num != num)
			f++;
		if (!f->num) { /* unknown: skipped */
			if (!rd_skip(&r, wt))
				return fail(d,
					    "%s: malformed field %u (wire "
					    "type %u)",
					    m->name, num, wt);
			continue;
		}
		if (f->kind == P_BOOL || f->kind == P_INT) {
			uint64_t v;
			if (wt == 0) {
				if (!rd_varint(&r, &v))
					return fail(d,
						    "%s.%s: truncated varint",
						    m->name, f->json);
				scalar(f, v, into);
				continue;
			}
			struct rd pk; /* packed repeated */
			if (wt != 2 || !(f->flags & REP) || !rd_bytes(&r, &pk))
				return fail(d,
					    "%s.%s: wire type %u, want a "
					    "varint",
					    m->name, f->json, wt);
			while (pk.p < pk.end)
				if (!rd_varint(&pk, &v) || !scalar(f, v, into))
					return fail(d,
						    "%s.%s: malformed packed "
						    "varints",
						    m->name, f->json);
			continue;
		}
		struct rd s;
		if (wt != 2 || !rd_bytes(&r, &s))
			return fail(d,
				    "%s.%s: wire type %u, want "
				    "length-delimited",
				    m->name, f->json, wt);
		size_t n = (size_t)(s.end - s.p);
		json_t *v = NULL;
		bool ok = true;
		switch (f->kind) {
		case P_STR:
			v = json_stringn((const char *)s.p, n);
			ok = v != NULL;
			break;
		case P_BYTES:
			v = json_bytes(s.p, n);
			ok = v != NULL;
			break;
		case P_MSG:
			v = decode_msg(d, f->msg, s);
			if (!v)
				return false;
			break;
		case P_INLINE:
			if (!decode_fields(d, f->msg, s, into))
				return false;
			continue;
		case P_MAP_STR:
		case P_MAP_BYTES:
		case P_MAP_QTY:
			if (!map_entry(d, f, s, into))
				return false;
			continue;
		case P_TIME:
			v = json_time(d, s, &ok);
			break;
		case P_QTY:
			ok = first_string(s, &s) &&
			     (v = json_stringn((const char *)s.p,
					       (size_t)(s.end - s.p)));
			break;
		case P_INTSTR:
			ok = (v = json_intstr(s)) != NULL;
			break;
		case P_FIELDSV1:
			ok = first_string(s, &s) &&
			     (v = json_loadb((const char *)s.p,
					     (size_t)(s.end - s.p),
					     JSON_DECODE_ANY, NULL));
			break;
		}
		if (!ok) {
			json_decref(v);
			if (!*d->err)
				fail(d,
				     "%s.%s: malformed value (or invalid "
				     "UTF-8)",
				     m->name, f->json);
			return false;
		}
		/* A message present on the wire is kept even when empty:
		 * Go writes its struct members (resources: {}) always. */
		put(into, f, v, f->kind == P_STR && n == 0);
	}
	return !bad || fail(d, "%s: malformed tag", m->name);
}

/* Copy the members of from into to in the table's order. */
static void order(const struct pmsg *m, json_t *from, json_t *to)
{
	for (const struct pfield *f = m->f; f->num; f++) {
		json_t *v;
		if (f->kind == P_INLINE)
			order(f->msg, from, to);
		else if ((v = json_object_get(from, f->json)))
			json_object_set(to, f->json, v);
	}
}

static json_t *decode_msg(struct dctx *d, const struct pmsg *m, struct rd r)
{
	json_t *tmp = json_object(), *out;

	if (!decode_fields(d, m, r, tmp)) {
		json_decref(tmp);
		return NULL;
	}
	out = json_object();
	order(m, tmp, out);
	json_decref(tmp);
	return out;
}

bool fake_proto_knows(const char *kind)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(kinds[i].kind, kind) == 0)
			return true;
	return false;
}

/* runtime.Unknown's fields. */
struct unknown {
	struct rd api_version, kind, raw, encoding;
};

static bool str_is(struct rd s, const char *want)
{
	size_t n = (size_t)(s.end - s.p);
	return n == strlen(want) && memcmp(s.p, want, n) == 0;
}

static bool parse_unknown(struct dctx *d, struct rd r, struct unknown *u)
{
	unsigned num, wt;
	bool bad = false;

	memset(u, 0, sizeof(*u));
	while (rd_tag(&r, &num, &wt, &bad)) {
		struct rd s, *dst = NULL;
		if (wt != 2) {
			if (!rd_skip(&r, wt))
				return fail(d,
					    "runtime.Unknown: malformed field "
					    "%u",
					    num);
			continue;
		}
		if (!rd_bytes(&r, &s))
			return fail(d,
				    "runtime.Unknown: field %u runs past the "
				    "end",
				    num);
		if (num == 1) { /* TypeMeta {1 apiVersion, 2 kind} */
			unsigned n2, w2;
			bool bad2 = false;
			while (rd_tag(&s, &n2, &w2, &bad2)) {
				struct rd t;
				if (w2 != 2) {
					if (!rd_skip(&s, w2))
						return fail(
							d,
							"TypeMeta: malformed");
					continue;
				}
				if (!rd_bytes(&s, &t))
					return fail(d, "TypeMeta: truncated");
				if (n2 == 1)
					u->api_version = t;
				else if (n2 == 2)
					u->kind = t;
			}
			if (bad2)
				return fail(d, "TypeMeta: malformed tag");
			continue;
		}
		if (num == 2)
			dst = &u->raw;
		else if (num == 3)
			dst = &u->encoding;
		if (dst)
			*dst = s;
	}
	return !bad || fail(d, "runtime.Unknown: malformed tag");
}

json_t *fake_proto_decode(const void *body, size_t len, char *err,
			  size_t errlen)
{
	struct dctx d = { err, errlen };
	struct rd r = { body, (const uint8_t *)body + len };
	struct unknown u;
	const struct pmsg *m = NULL;
	char kind[64];

	*err = '\0';
	if (len < 4 || memcmp(body, "k8s\0", 4) != 0) {
		fail(&d, "provided object is not a Kubernetes protobuf message "
			 "(no \"k8s\\x00\" prefix)");
		return NULL;
	}
	r.p += 4;
	if (!parse_unknown(&d, r, &u))
		return NULL;
	if (u.encoding.p && u.encoding.end > u.encoding.p) {
		fail(&d, "unsupported contentEncoding in runtime.Unknown");
		return NULL;
	}
	size_t kn = u.kind.p ? (size_t)(u.kind.end - u.kind.p) : 0;
	snprintf(kind, sizeof(kind), "%.*s", (int)(kn < 63 ? kn : 63),
		 kn ? (const char *)u.kind.p : "");
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(kinds[i].kind, kind) == 0 && strlen(kind) == kn)
			m = kinds[i].msg;
	if (!m || !u.api_version.p || !str_is(u.api_version, "v1")) {
		fail(&d,
		     "no protobuf decoding for kind \"%s\" in the fake "
		     "apiserver (built-in v1 kinds only)",
		     kind);
		return NULL;
	}
	struct rd raw = u.raw.p ? u.raw : (struct rd){ r.p, r.p };
	json_t *obj = decode_msg(&d, m, raw);
	if (!obj)
		return NULL;
	json_t *out = json_pack("{s:s,s:s}", "kind", kind, "apiVersion", "v1");
	const char *k;
	json_t *v;
	json_object_foreach(obj, k, v) json_object_set(out, k, v);
	json_decref(obj);
	return out;
}
