/*
 * table_cols_store: the columns of configuration and storage kinds:
 * config maps, secrets, service accounts, storage classes, persistent
 * volumes and their claims, with their own cell functions.
 */
#include "proxy/table/table_cols_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* ConfigMap DATA: data and binaryData keys together. */
static void c_cm_data(struct buf *b, const struct tc_row *r, const char *arg)
{
	(void)arg;
	tc_put_int(b, tc_members(r->d, tc_at(r, "data")) +
			      tc_members(r->d, tc_at(r, "binaryData")));
}

/* NAME of a StorageClass, " (default)" after the default one. */
static void c_sc_name(struct buf *b, const struct tc_row *r, const char *arg)
{
	int ann = tc_at(r, "metadata.annotations");
	char *name = tc_dup_str(r->d, tc_at(r, "metadata.name"));
	struct buf s = BUF_INIT;
	(void)arg;
	buf_adds(&s, name);
	if (tc_str_eq(r->d,
		      json_get(r->d, ann,
			       "storageclass.kubernetes.io/is-default-class"),
		      "true") ||
	    tc_str_eq(
		    r->d,
		    json_get(
			    r->d, ann,
			    "storageclass.beta.kubernetes.io/is-default-class"),
		    "true"))
		buf_adds(&s, " (default)");
	tc_put_buf(b, &s);
	free(name);
}

/* The string at arg, or the default after the first ':' in arg. */
static void c_str_default(struct buf *b, const struct tc_row *r,
			  const char *arg)
{
	char path[128];
	const char *colon = strchr(arg, ':');
	snprintf(path, sizeof(path), "%.*s", (int)(colon - arg), arg);
	int t = tc_at(r, path);
	if (tc_is_null(r->d, t))
		tc_put_str(b, colon + 1);
	else
		tc_put_token_str(b, r->d, t);
}

/* ---- volumes ---- */

/* A resource quantity as stored ("0" when absent). */
static void c_quantity(struct buf *b, const struct tc_row *r, const char *arg)
{
	int t = tc_at(r, arg);
	if (tc_is_str(r->d, t))
		tc_put_token_str(b, r->d, t);
	else
		tc_put_str(b, "0");
}

/* Access modes as RWO,ROX,RWX,RWOP (that order, each once). */
static void access_modes(struct buf *b, const struct tc_row *r, int modes)
{
	static const char *const names[][2] = {
		{ "ReadWriteOnce", "RWO" },
		{ "ReadOnlyMany", "ROX" },
		{ "ReadWriteMany", "RWX" },
		{ "ReadWriteOncePod", "RWOP" },
	};
	struct tc_sbuf s = { BUF_INIT, 0 };
	for (int i = 0; i < 4; i++)
		for (int m = tc_members(r->d, modes) ? json_first(r->d, modes) :
						       -1;
		     m > 0; m = json_next(r->d, modes, m))
			if (tc_str_eq(r->d, m, names[i][0])) {
				tc_sb_item(&s, ",", names[i][1],
					   strlen(names[i][1]));
				break;
			}
	tc_sb_put(b, &s, "");
}

static void c_access_modes(struct buf *b, const struct tc_row *r,
			   const char *arg)
{
	access_modes(b, r, tc_at(r, arg));
}

/* The phase at arg, "Terminating" while being deleted. */
static void c_phase(struct buf *b, const struct tc_row *r, const char *arg)
{
	if (!tc_is_null(r->d, tc_at(r, "metadata.deletionTimestamp")))
		tc_put_str(b, "Terminating");
	else
		tc_cell_str(b, r, arg);
}

static void c_pv_claim(struct buf *b, const struct tc_row *r, const char *arg)
{
	int c = tc_at(r, "spec.claimRef");
	(void)arg;
	if (tc_is_null(r->d, c)) {
		tc_put_str(b, "");
		return;
	}
	char *ns = tc_dup_str(r->d, json_get(r->d, c, "namespace"));
	char *name = tc_dup_str(r->d, json_get(r->d, c, "name"));
	struct buf s = BUF_INIT;
	buf_printf(&s, "%s/%s", ns, name);
	tc_put_buf(b, &s);
	free(ns);
	free(name);
}

/* The storage class: the beta annotation, else spec.storageClassName. */
static void c_storage_class(struct buf *b, const struct tc_row *r,
			    const char *arg)
{
	int a = json_get(r->d, tc_at(r, "metadata.annotations"),
			 "volume.beta.kubernetes.io/storage-class");
	(void)arg;
	tc_put_token_str(b, r->d,
			 a >= 0 ? a : tc_at(r, "spec.storageClassName"));
}

/* What a bound claim has: capacity or access modes from its status,
 * nothing while unbound. */
static void c_pvc_bound(struct buf *b, const struct tc_row *r, const char *arg)
{
	char *vol = tc_dup_str(r->d, tc_at(r, "spec.volumeName"));
	if (!vol[0])
		tc_put_str(b, "");
	else if (!strcmp(arg, "status.accessModes"))
		access_modes(b, r, tc_at(r, arg));
	else
		c_quantity(b, r, arg);
	free(vol);
}

/* ---- CSI drivers and volume attachments ---- */

/* A bool at arg's path, the default after ':' when unset ("x.y:true"). */
static void c_bool_or(struct buf *b, const struct tc_row *r, const char *arg)
{
	char path[96];
	const char *colon = strchr(arg, ':');
	snprintf(path, sizeof(path), "%.*s", (int)(colon - arg), arg);
	int t = tc_at(r, path);
	size_t n;
	bool v = !strcmp(colon + 1, "true");
	if (t >= 0 && !tc_is_null(r->d, t))
		v = *json_raw(r->d, t, &n) == 't';
	buf_adds(b, v ? "true" : "false");
}

/* TOKENREQUESTS: the audiences joined by ',', "<unset>" without any (an
 * empty list is stored as none). */
static void c_csi_tokens(struct buf *b, const struct tc_row *r, const char *arg)
{
	int a = tc_at(r, "spec.tokenRequests");
	struct tc_sbuf s = { BUF_INIT, 0 };
	(void)arg;
	if (!tc_members(r->d, a) || json_type(r->d, a) != JSMN_ARRAY) {
		tc_put_str(b, "<unset>");
		return;
	}
	for (int t = json_first(r->d, a); t > 0; t = json_next(r->d, a, t))
		tc_sb_token(&s, ",", r->d, json_get(r->d, t, "audience"));
	buf_addc(&s.b, '\0');
	tc_put_str(b, s.b.p ? s.b.p : "");
	buf_free(&s.b);
}

/* MODES: the volume lifecycle modes joined by ',', "<none>". */
static void c_csi_modes(struct buf *b, const struct tc_row *r, const char *arg)
{
	int a = tc_at(r, "spec.volumeLifecycleModes");
	struct tc_sbuf s = { BUF_INIT, 0 };
	(void)arg;
	if (a >= 0 && json_type(r->d, a) == JSMN_ARRAY)
		for (int t = tc_members(r->d, a) ? json_first(r->d, a) : -1;
		     t > 0; t = json_next(r->d, a, t))
			tc_sb_token(&s, ",", r->d, t);
	tc_sb_put(b, &s, "<none>");
}

const struct tc_col tc_configmap_cols[] = {
	NAME_COL,
	{ "Data", "string", "",
	  "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
	  0, c_cm_data, NULL },
	AGE_COL,
	TC_END,
};

const struct tc_col tc_secret_cols[] = {
	NAME_COL,
	{ "Type", "string", "",
	  "Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types",
	  0, tc_cell_str, "type" },
	{ "Data", "string", "",
	  "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4",
	  0, tc_cell_count, "data" },
	AGE_COL,
	TC_END,
};

const struct tc_col tc_serviceaccount_cols[] = {
	NAME_COL,
	{ "Secrets", "string", "",
	  "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use. Pods are only limited to this list if this service account has a \"kubernetes.io/enforce-mountable-secrets\" annotation set to \"true\". The \"kubernetes.io/enforce-mountable-secrets\" annotation is deprecated since v1.32. Prefer separate namespaces to isolate access to mounted secrets. This field should not be used to find auto-generated service account token secrets for use outside of pods. Instead, tokens can be requested directly using the TokenRequest API, or service account token secrets can be manually created. More info: https://kubernetes.io/docs/concepts/configuration/secret",
	  0, tc_cell_count, "secrets" },
	AGE_COL,
	TC_END,
};

const struct tc_col tc_storageclass_cols[] = {
	{ "Name", "string", "name", proxy_table_cols_name_description, 0,
	  c_sc_name, NULL },
	{ "Provisioner", "string", "",
	  "provisioner indicates the type of the provisioner.", 0, tc_cell_str,
	  "provisioner" },
	{ "ReclaimPolicy", "string", "",
	  "reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete.",
	  0, c_str_default, "reclaimPolicy:Delete" },
	{ "VolumeBindingMode", "string", "",
	  "volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, VolumeBindingImmediate is used. This field is only honored by servers that enable the VolumeScheduling feature.",
	  0, c_str_default, "volumeBindingMode:Immediate" },
	{ "AllowVolumeExpansion", "string", "",
	  "allowVolumeExpansion shows whether the storage class allow volume expand.",
	  0, tc_cell_bool, "allowVolumeExpansion" },
	AGE_COL,
	TC_END,
};

const struct tc_col tc_pv_cols[] = {
	NAME_COL,
	{ "Capacity", "string", "",
	  "capacity is the description of the persistent volume's resources and capacity. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity",
	  0, c_quantity, "spec.capacity.storage" },
	{ "Access Modes", "string", "",
	  "accessModes contains all ways the volume can be mounted. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes",
	  0, c_access_modes, "spec.accessModes" },
	{ "Reclaim Policy", "string", "",
	  "persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim. Valid options are Retain (default for manually created PersistentVolumes), Delete (default for dynamically provisioned PersistentVolumes), and Recycle (deprecated). Recycle must be supported by the volume plugin underlying this PersistentVolume. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming",
	  0, tc_cell_str, "spec.persistentVolumeReclaimPolicy" },
	{ "Status", "string", "",
	  "phase indicates if a volume is available, bound to a claim, or released by a claim. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase",
	  0, c_phase, "status.phase" },
	{ "Claim", "string", "",
	  "claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim. Expected to be non-nil when bound. claim.VolumeName is the authoritative bind between PV and PVC. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding",
	  0, c_pv_claim, NULL },
	{ "StorageClass", "string", "", "StorageClass of the pv", 0,
	  c_storage_class, NULL },
	{ "VolumeAttributesClass", "string", "",
	  "VolumeAttributesClass of the pv", 0, c_str_default,
	  "spec.volumeAttributesClassName:<unset>" },
	{ "Reason", "string", "",
	  "reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.",
	  0, tc_cell_str, "status.reason" },
	AGE_COL,
	{ "VolumeMode", "string", "",
	  "volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state. Value of Filesystem is implied when not included in spec.",
	  1, c_str_default, "spec.volumeMode:<unset>" },
	TC_END,
};

const struct tc_col tc_pvc_cols[] = {
	NAME_COL,
	{ "Status", "string", "",
	  "phase represents the current phase of PersistentVolumeClaim.", 0,
	  c_phase, "status.phase" },
	{ "Volume", "string", "",
	  "volumeName is the binding reference to the PersistentVolume backing this claim.",
	  0, tc_cell_str, "spec.volumeName" },
	{ "Capacity", "string", "",
	  "capacity represents the actual resources of the underlying volume.",
	  0, c_pvc_bound, "status.capacity.storage" },
	{ "Access Modes", "string", "",
	  "accessModes contains the actual access modes the volume backing the PVC has. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1",
	  0, c_pvc_bound, "status.accessModes" },
	{ "StorageClass", "string", "", "StorageClass of the pvc", 0,
	  c_storage_class, NULL },
	{ "VolumeAttributesClass", "string", "",
	  "VolumeAttributesClass of the pvc", 0, c_str_default,
	  "spec.volumeAttributesClassName:<unset>" },
	AGE_COL,
	{ "VolumeMode", "string", "",
	  "volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when not included in claim spec.",
	  1, c_str_default, "spec.volumeMode:<unset>" },
	TC_END,
};

const struct tc_col tc_csidriver_cols[] = {
	NAME_COL,
	{ "AttachRequired", "boolean", "",
	  "attachRequired indicates this CSI volume driver requires an attach operation (because it implements the CSI ControllerPublishVolume() method), and that the Kubernetes attach detach controller should call the attach volume interface which checks the volumeattachment status and waits until the volume is attached before proceeding to mounting. The CSI external-attacher coordinates with CSI volume driver and updates the volumeattachment status when the attach operation is complete. If the CSIDriverRegistry feature gate is enabled and the value is specified to false, the attach operation will be skipped. Otherwise the attach operation will be called.\n\nThis field is immutable.",
	  0, c_bool_or, "spec.attachRequired:true" },
	{ "PodInfoOnMount", "boolean", "",
	  "podInfoOnMount indicates this CSI volume driver requires additional pod information (like podName, podUID, etc.) during mount operations, if set to true. If set to false, pod information will not be passed on mount. Default is false.\n\nThe CSI driver specifies podInfoOnMount as part of driver deployment. If true, Kubelet will pass pod information as VolumeContext in the CSI NodePublishVolume() calls. The CSI driver is responsible for parsing and validating the information passed in as VolumeContext.\n\nThe following VolumeContext will be passed if podInfoOnMount is set to true. This list might grow, but the prefix will be used. \"csi.storage.k8s.io/pod.name\": pod.Name \"csi.storage.k8s.io/pod.namespace\": pod.Namespace \"csi.storage.k8s.io/pod.uid\": string(pod.UID) \"csi.storage.k8s.io/ephemeral\": \"true\" if the volume is an ephemeral inline volume\n                                defined by a CSIVolumeSource, otherwise \"false\"\n\n\"csi.storage.k8s.io/ephemeral\" is a new feature in Kubernetes 1.16. It is only required for drivers which support both the \"Persistent\" and \"Ephemeral\" VolumeLifecycleMode. Other drivers can leave pod info disabled and/or ignore this field. As Kubernetes 1.15 doesn't support this field, drivers can only support one mode when deployed on such a cluster and the deployment determines which mode that is, for example via a command line parameter of the driver.\n\nThis field was immutable in Kubernetes < 1.29 and now is mutable.", 0,
	  c_bool_or, "spec.podInfoOnMount:false" },
	{ "StorageCapacity", "boolean", "",
	  "storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage capacity that the driver deployment will report by creating CSIStorageCapacity objects with capacity information, if set to true.\n\nThe check can be enabled immediately when deploying a driver. In that case, provisioning new volumes with late binding will pause until the driver deployment has published some suitable CSIStorageCapacity object.\n\nAlternatively, the driver can be deployed with the field unset or false and it can be flipped later when storage capacity information has been published.\n\nThis field was immutable in Kubernetes <= 1.22 and now is mutable.", 0,
	  c_bool_or, "spec.storageCapacity:false" },
	{ "TokenRequests", "string", "",
	  "tokenRequests indicates the CSI driver needs pods' service account tokens it is mounting volume for to do necessary authentication. Kubelet will pass the tokens in VolumeContext in the CSI NodePublishVolume calls. The CSI driver should parse and validate the following VolumeContext: \"csi.storage.k8s.io/serviceAccount.tokens\": {\n  \"<audience>\": {\n    \"token\": <token>,\n    \"expirationTimestamp\": <expiration timestamp in RFC3339>,\n  },\n  ...\n}\n\nNote: Audience in each TokenRequest should be different and at most one token is empty string. To receive a new token after expiry, RequiresRepublish can be used to trigger NodePublishVolume periodically.",
	  0, c_csi_tokens, NULL },
	{ "RequiresRepublish", "boolean", "",
	  "requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called to reflect any possible change in the mounted volume. This field defaults to false.\n\nNote: After a successful initial NodePublishVolume call, subsequent calls to NodePublishVolume should only update the contents of the volume. New mount points will not be seen by a running container.",
	  0, c_bool_or, "spec.requiresRepublish:false" },
	{ "Modes", "string", "",
	  "volumeLifecycleModes defines what kind of volumes this CSI volume driver supports. The default if the list is empty is \"Persistent\", which is the usage defined by the CSI specification and implemented in Kubernetes via the usual PV/PVC mechanism.\n\nThe other mode is \"Ephemeral\". In this mode, volumes are defined inline inside the pod spec with CSIVolumeSource and their lifecycle is tied to the lifecycle of that pod. A driver has to be aware of this because it is only going to get a NodePublishVolume call for such a volume.\n\nFor more information about implementing this mode, see https://kubernetes-csi.github.io/docs/ephemeral-local-volumes.html A driver can support one or more of these modes and more modes may be added in the future.\n\nThis field is beta. This field is immutable.", 0,
	  c_csi_modes, NULL },
	AGE_COL,
	TC_END,
};

const struct tc_col tc_volumeattachment_cols[] = {
	NAME_COL,
	{ "Attacher", "string", "name",
	  "attacher indicates the name of the volume driver that MUST handle this request. This is the name returned by GetPluginName().",
	  0, tc_cell_str, "spec.attacher" },
	{ "PV", "string", "",
	  "persistentVolumeName represents the name of the persistent volume to attach.",
	  0, tc_cell_str, "spec.source.persistentVolumeName" },
	{ "Node", "string", "",
	  "nodeName represents the node that the volume should be attached to.",
	  0, tc_cell_str, "spec.nodeName" },
	{ "Attached", "boolean", "",
	  "attached indicates the volume is successfully attached. This field must only be set by the entity completing the attach operation, i.e. the external-attacher.",
	  0, c_bool_or, "status.attached:false" },
	AGE_COL,
	TC_END,
};
