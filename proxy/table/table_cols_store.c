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
