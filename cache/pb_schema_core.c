/*
 * pb_schema_core: the meta/v1 and core/v1 messages of the protobuf schema
 * (see pb_schema.h), after k8s.io/api's generated.proto.
 *
 * Zero values: gogo-protobuf writes a non-pointer scalar even when it is
 * empty (an ObjectMeta carries `generateName: ""` on the wire), and Go's
 * `omitempty` drops it from JSON, so an empty string, 0 or false is
 * absent from JSON unless the Go field is a pointer (PB_PTR), whose
 * presence on the wire means it was set. Embedded structs (a Probe's
 * handler, a key selector's LocalObjectReference, a Volume's source) are
 * PB_INLINE: their members land in the parent, as Go's JSON inlines them.
 */
#include "cache/pb_schema_core.h"

/* --- k8s.io/apimachinery meta/v1 ----------------------------------- */

PB_MSG(pb_owner_ref, "OwnerReference", PB_F(5, "apiVersion", PB_STR, 0),
       PB_F(1, "kind", PB_STR, 0), PB_F(3, "name", PB_STR, 0),
       PB_F(4, "uid", PB_STR, 0), PB_F(6, "controller", PB_BOOL, PB_PTR),
       PB_F(7, "blockOwnerDeletion", PB_BOOL, PB_PTR));

PB_MSG(pb_managed_fields, "ManagedFieldsEntry", PB_F(1, "manager", PB_STR, 0),
       PB_F(2, "operation", PB_STR, 0), PB_F(3, "apiVersion", PB_STR, 0),
       PB_F(4, "time", PB_TIME, 0), PB_F(6, "fieldsType", PB_STR, 0),
       PB_F(7, "fieldsV1", PB_FIELDSV1, 0), PB_F(8, "subresource", PB_STR, 0));

PB_MSG(pb_object_meta, "ObjectMeta", PB_F(1, "name", PB_STR, 0),
       PB_F(2, "generateName", PB_STR, 0), PB_F(3, "namespace", PB_STR, 0),
       PB_F(4, "selfLink", PB_STR, 0), PB_F(5, "uid", PB_STR, 0),
       PB_F(6, "resourceVersion", PB_STR, 0), PB_F(7, "generation", PB_INT, 0),
       PB_F(8, "creationTimestamp", PB_TIME, 0),
       PB_F(9, "deletionTimestamp", PB_TIME, PB_PTR),
       PB_F(10, "deletionGracePeriodSeconds", PB_INT, PB_PTR),
       PB_F(11, "labels", PB_MAP_STR, 0),
       PB_F(12, "annotations", PB_MAP_STR, 0),
       PB_M(13, "ownerReferences", pb_owner_ref, PB_REP),
       PB_F(14, "finalizers", PB_STR, PB_REP),
       PB_M(17, "managedFields", pb_managed_fields, PB_REP));

/* --- k8s.io/api core/v1: shared pieces ------------------------------ */

PB_MSG(pb_local_ref, "LocalObjectReference", PB_F(1, "name", PB_STR, 0));

PB_MSG(pb_key_selector, "KeySelector", PB_I(1, pb_local_ref),
       PB_F(2, "key", PB_STR, 0), PB_F(3, "optional", PB_BOOL, PB_PTR));

PB_MSG(pb_field_selector, "ObjectFieldSelector",
       PB_F(1, "apiVersion", PB_STR, 0), PB_F(2, "fieldPath", PB_STR, 0));

PB_MSG(pb_resource_selector, "ResourceFieldSelector",
       PB_F(1, "containerName", PB_STR, 0), PB_F(2, "resource", PB_STR, 0),
       PB_F(3, "divisor", PB_QTY, 0));

PB_MSG(pb_env_source, "EnvVarSource", PB_M(1, "fieldRef", pb_field_selector, 0),
       PB_M(2, "resourceFieldRef", pb_resource_selector, 0),
       PB_M(3, "configMapKeyRef", pb_key_selector, 0),
       PB_M(4, "secretKeyRef", pb_key_selector, 0));

PB_MSG(pb_env_var, "EnvVar", PB_F(1, "name", PB_STR, 0),
       PB_F(2, "value", PB_STR, 0), PB_M(3, "valueFrom", pb_env_source, 0));

PB_MSG(pb_env_ref, "EnvFromRef", PB_I(1, pb_local_ref),
       PB_F(2, "optional", PB_BOOL, PB_PTR));

PB_MSG(pb_env_from, "EnvFromSource", PB_F(1, "prefix", PB_STR, 0),
       PB_M(2, "configMapRef", pb_env_ref, 0),
       PB_M(3, "secretRef", pb_env_ref, 0));

PB_MSG(pb_container_port, "ContainerPort", PB_F(1, "name", PB_STR, 0),
       PB_F(2, "hostPort", PB_INT, 0), PB_F(3, "containerPort", PB_INT, 0),
       PB_F(4, "protocol", PB_STR, 0), PB_F(5, "hostIP", PB_STR, 0));

PB_MSG(pb_claim, "ResourceClaim", PB_F(1, "name", PB_STR, 0),
       PB_F(2, "request", PB_STR, 0));

PB_MSG(pb_resources, "ResourceRequirements", PB_F(1, "limits", PB_MAP_QTY, 0),
       PB_F(2, "requests", PB_MAP_QTY, 0), PB_M(3, "claims", pb_claim, PB_REP));

PB_MSG(pb_volume_mount, "VolumeMount", PB_F(1, "name", PB_STR, 0),
       PB_F(2, "readOnly", PB_BOOL, 0),
       PB_F(7, "recursiveReadOnly", PB_STR, PB_PTR),
       PB_F(3, "mountPath", PB_STR, 0), PB_F(4, "subPath", PB_STR, 0),
       PB_F(5, "mountPropagation", PB_STR, PB_PTR),
       PB_F(6, "subPathExpr", PB_STR, 0));

PB_MSG(pb_exec, "ExecAction", PB_F(1, "command", PB_STR, PB_REP));

PB_MSG(pb_http_header, "HTTPHeader", PB_F(1, "name", PB_STR, 0),
       PB_F(2, "value", PB_STR, 0));

PB_MSG(pb_http_get, "HTTPGetAction", PB_F(1, "path", PB_STR, 0),
       PB_F(2, "port", PB_INTSTR, 0), PB_F(3, "host", PB_STR, 0),
       PB_F(4, "scheme", PB_STR, 0),
       PB_M(5, "httpHeaders", pb_http_header, PB_REP));

PB_MSG(pb_tcp_socket, "TCPSocketAction", PB_F(1, "port", PB_INTSTR, 0),
       PB_F(2, "host", PB_STR, 0));

PB_MSG(pb_grpc, "GRPCAction", PB_F(1, "port", PB_INT, 0),
       PB_F(2, "service", PB_STR, PB_PTR));

PB_MSG(pb_probe_handler, "ProbeHandler", PB_M(1, "exec", pb_exec, 0),
       PB_M(2, "httpGet", pb_http_get, 0),
       PB_M(3, "tcpSocket", pb_tcp_socket, 0), PB_M(4, "grpc", pb_grpc, 0));

PB_MSG(pb_probe, "Probe", PB_I(1, pb_probe_handler),
       PB_F(2, "initialDelaySeconds", PB_INT, 0),
       PB_F(3, "timeoutSeconds", PB_INT, 0),
       PB_F(4, "periodSeconds", PB_INT, 0),
       PB_F(5, "successThreshold", PB_INT, 0),
       PB_F(6, "failureThreshold", PB_INT, 0),
       PB_F(7, "terminationGracePeriodSeconds", PB_INT, PB_PTR));

PB_MSG(pb_capabilities, "Capabilities", PB_F(1, "add", PB_STR, PB_REP),
       PB_F(2, "drop", PB_STR, PB_REP));

PB_MSG(pb_seccomp, "SeccompProfile", PB_F(1, "type", PB_STR, 0),
       PB_F(2, "localhostProfile", PB_STR, PB_PTR));

PB_MSG(pb_security_context, "SecurityContext",
       PB_M(1, "capabilities", pb_capabilities, 0),
       PB_F(2, "privileged", PB_BOOL, PB_PTR),
       PB_F(4, "runAsUser", PB_INT, PB_PTR),
       PB_F(8, "runAsGroup", PB_INT, PB_PTR),
       PB_F(5, "runAsNonRoot", PB_BOOL, PB_PTR),
       PB_F(6, "readOnlyRootFilesystem", PB_BOOL, PB_PTR),
       PB_F(7, "allowPrivilegeEscalation", PB_BOOL, PB_PTR),
       PB_F(9, "procMount", PB_STR, PB_PTR),
       PB_M(11, "seccompProfile", pb_seccomp, 0));

PB_MSG(pb_container, "Container", PB_F(1, "name", PB_STR, 0),
       PB_F(2, "image", PB_STR, 0), PB_F(3, "command", PB_STR, PB_REP),
       PB_F(4, "args", PB_STR, PB_REP), PB_F(5, "workingDir", PB_STR, 0),
       PB_M(6, "ports", pb_container_port, PB_REP),
       PB_M(19, "envFrom", pb_env_from, PB_REP),
       PB_M(7, "env", pb_env_var, PB_REP),
       PB_M(8, "resources", pb_resources, 0),
       PB_F(24, "restartPolicy", PB_STR, PB_PTR),
       PB_M(9, "volumeMounts", pb_volume_mount, PB_REP),
       PB_M(10, "livenessProbe", pb_probe, 0),
       PB_M(11, "readinessProbe", pb_probe, 0),
       PB_M(22, "startupProbe", pb_probe, 0),
       PB_F(13, "terminationMessagePath", PB_STR, 0),
       PB_F(20, "terminationMessagePolicy", PB_STR, 0),
       PB_F(14, "imagePullPolicy", PB_STR, 0),
       PB_M(15, "securityContext", pb_security_context, 0),
       PB_F(16, "stdin", PB_BOOL, 0), PB_F(17, "stdinOnce", PB_BOOL, 0),
       PB_F(18, "tty", PB_BOOL, 0));

PB_MSG(pb_key_to_path, "KeyToPath", PB_F(1, "key", PB_STR, 0),
       PB_F(2, "path", PB_STR, 0), PB_F(3, "mode", PB_INT, PB_PTR));

PB_MSG(pb_host_path, "HostPathVolumeSource", PB_F(1, "path", PB_STR, 0),
       PB_F(2, "type", PB_STR, PB_PTR));

PB_MSG(pb_empty_dir, "EmptyDirVolumeSource", PB_F(1, "medium", PB_STR, 0),
       PB_F(2, "sizeLimit", PB_QTY, PB_PTR));

PB_MSG(pb_secret_volume, "SecretVolumeSource", PB_F(1, "secretName", PB_STR, 0),
       PB_M(2, "items", pb_key_to_path, PB_REP),
       PB_F(3, "defaultMode", PB_INT, PB_PTR),
       PB_F(4, "optional", PB_BOOL, PB_PTR));

PB_MSG(pb_pvc_volume, "PersistentVolumeClaimVolumeSource",
       PB_F(1, "claimName", PB_STR, 0), PB_F(2, "readOnly", PB_BOOL, 0));

PB_MSG(pb_downward_file, "DownwardAPIVolumeFile", PB_F(1, "path", PB_STR, 0),
       PB_M(2, "fieldRef", pb_field_selector, 0),
       PB_M(3, "resourceFieldRef", pb_resource_selector, 0),
       PB_F(4, "mode", PB_INT, PB_PTR));

PB_MSG(pb_downward_volume, "DownwardAPIVolumeSource",
       PB_M(1, "items", pb_downward_file, PB_REP),
       PB_F(2, "defaultMode", PB_INT, PB_PTR));

PB_MSG(pb_configmap_volume, "ConfigMapVolumeSource", PB_I(1, pb_local_ref),
       PB_M(2, "items", pb_key_to_path, PB_REP),
       PB_F(3, "defaultMode", PB_INT, PB_PTR),
       PB_F(4, "optional", PB_BOOL, PB_PTR));

PB_MSG(pb_volume_source, "VolumeSource", PB_M(1, "hostPath", pb_host_path, 0),
       PB_M(2, "emptyDir", pb_empty_dir, 0),
       PB_M(6, "secret", pb_secret_volume, 0),
       PB_M(10, "persistentVolumeClaim", pb_pvc_volume, 0),
       PB_M(16, "downwardAPI", pb_downward_volume, 0),
       PB_M(19, "configMap", pb_configmap_volume, 0));

PB_MSG(pb_volume, "Volume", PB_F(1, "name", PB_STR, 0),
       PB_I(2, pb_volume_source));

PB_MSG(pb_toleration, "Toleration", PB_F(1, "key", PB_STR, 0),
       PB_F(2, "operator", PB_STR, 0), PB_F(3, "value", PB_STR, 0),
       PB_F(4, "effect", PB_STR, 0),
       PB_F(5, "tolerationSeconds", PB_INT, PB_PTR));

PB_MSG(pb_pod_security_context, "PodSecurityContext",
       PB_F(2, "runAsUser", PB_INT, PB_PTR),
       PB_F(6, "runAsGroup", PB_INT, PB_PTR),
       PB_F(3, "runAsNonRoot", PB_BOOL, PB_PTR),
       PB_F(4, "supplementalGroups", PB_INT, PB_REP),
       PB_F(5, "fsGroup", PB_INT, PB_PTR),
       PB_F(9, "fsGroupChangePolicy", PB_STR, PB_PTR),
       PB_M(10, "seccompProfile", pb_seccomp, 0));

/* --- the kinds ------------------------------------------------------ */

PB_MSG(pb_pod_spec, "PodSpec", PB_M(1, "volumes", pb_volume, PB_REP),
       PB_M(20, "initContainers", pb_container, PB_REP),
       PB_M(2, "containers", pb_container, PB_REP),
       PB_F(3, "restartPolicy", PB_STR, 0),
       PB_F(4, "terminationGracePeriodSeconds", PB_INT, PB_PTR),
       PB_F(5, "activeDeadlineSeconds", PB_INT, PB_PTR),
       PB_F(6, "dnsPolicy", PB_STR, 0), PB_F(7, "nodeSelector", PB_MAP_STR, 0),
       PB_F(8, "serviceAccountName", PB_STR, 0),
       PB_F(9, "serviceAccount", PB_STR, 0),
       PB_F(21, "automountServiceAccountToken", PB_BOOL, PB_PTR),
       PB_F(10, "nodeName", PB_STR, 0), PB_F(11, "hostNetwork", PB_BOOL, 0),
       PB_F(12, "hostPID", PB_BOOL, 0), PB_F(13, "hostIPC", PB_BOOL, 0),
       PB_F(27, "shareProcessNamespace", PB_BOOL, PB_PTR),
       PB_M(14, "securityContext", pb_pod_security_context, 0),
       PB_M(15, "imagePullSecrets", pb_local_ref, PB_REP),
       PB_F(16, "hostname", PB_STR, 0), PB_F(17, "subdomain", PB_STR, 0),
       PB_F(19, "schedulerName", PB_STR, 0),
       PB_M(22, "tolerations", pb_toleration, PB_REP),
       PB_F(24, "priorityClassName", PB_STR, 0),
       PB_F(25, "priority", PB_INT, PB_PTR),
       PB_F(29, "runtimeClassName", PB_STR, PB_PTR),
       PB_F(30, "enableServiceLinks", PB_BOOL, PB_PTR),
       PB_F(31, "preemptionPolicy", PB_STR, PB_PTR),
       PB_F(35, "setHostnameAsFQDN", PB_BOOL, PB_PTR),
       PB_F(37, "hostUsers", PB_BOOL, PB_PTR));

PB_MSG(pb_pod_condition, "PodCondition", PB_F(1, "type", PB_STR, 0),
       PB_F(2, "status", PB_STR, 0), PB_F(3, "lastProbeTime", PB_TIME, 0),
       PB_F(4, "lastTransitionTime", PB_TIME, 0), PB_F(5, "reason", PB_STR, 0),
       PB_F(6, "message", PB_STR, 0));

PB_MSG(pb_pod_status, "PodStatus", PB_F(1, "phase", PB_STR, 0),
       PB_M(2, "conditions", pb_pod_condition, PB_REP),
       PB_F(3, "message", PB_STR, 0), PB_F(4, "reason", PB_STR, 0),
       PB_F(11, "nominatedNodeName", PB_STR, 0), PB_F(5, "hostIP", PB_STR, 0),
       PB_F(6, "podIP", PB_STR, 0), PB_F(7, "startTime", PB_TIME, PB_PTR),
       PB_F(9, "qosClass", PB_STR, 0));

PB_MSG(pb_pod, "Pod", PB_M(1, "metadata", pb_object_meta, 0),
       PB_M(2, "spec", pb_pod_spec, 0), PB_M(3, "status", pb_pod_status, 0));

PB_MSG(pb_configmap, "ConfigMap", PB_M(1, "metadata", pb_object_meta, 0),
       PB_F(4, "immutable", PB_BOOL, PB_PTR), PB_F(2, "data", PB_MAP_STR, 0),
       PB_F(3, "binaryData", PB_MAP_BYTES, 0));

PB_MSG(pb_namespace_spec, "NamespaceSpec",
       PB_F(1, "finalizers", PB_STR, PB_REP));

PB_MSG(pb_namespace_status, "NamespaceStatus", PB_F(1, "phase", PB_STR, 0));

PB_MSG(pb_namespace, "Namespace", PB_M(1, "metadata", pb_object_meta, 0),
       PB_M(2, "spec", pb_namespace_spec, 0),
       PB_M(3, "status", pb_namespace_status, 0));

PB_MSG(pb_service_port, "ServicePort", PB_F(1, "name", PB_STR, 0),
       PB_F(2, "protocol", PB_STR, 0), PB_F(6, "appProtocol", PB_STR, PB_PTR),
       PB_F(3, "port", PB_INT, 0), PB_F(4, "targetPort", PB_INTSTR, 0),
       PB_F(5, "nodePort", PB_INT, 0));

PB_MSG(pb_service_spec, "ServiceSpec",
       PB_M(1, "ports", pb_service_port, PB_REP),
       PB_F(2, "selector", PB_MAP_STR, 0), PB_F(3, "clusterIP", PB_STR, 0),
       PB_F(18, "clusterIPs", PB_STR, PB_REP), PB_F(4, "type", PB_STR, 0),
       PB_F(5, "externalIPs", PB_STR, PB_REP),
       PB_F(7, "sessionAffinity", PB_STR, 0),
       PB_F(8, "loadBalancerIP", PB_STR, 0),
       PB_F(9, "loadBalancerSourceRanges", PB_STR, PB_REP),
       PB_F(10, "externalName", PB_STR, 0),
       PB_F(11, "externalTrafficPolicy", PB_STR, 0),
       PB_F(12, "healthCheckNodePort", PB_INT, 0),
       PB_F(13, "publishNotReadyAddresses", PB_BOOL, 0),
       PB_F(19, "ipFamilies", PB_STR, PB_REP),
       PB_F(17, "ipFamilyPolicy", PB_STR, PB_PTR),
       PB_F(20, "allocateLoadBalancerNodePorts", PB_BOOL, PB_PTR),
       PB_F(21, "loadBalancerClass", PB_STR, PB_PTR),
       PB_F(22, "internalTrafficPolicy", PB_STR, PB_PTR),
       PB_F(23, "trafficDistribution", PB_STR, PB_PTR));

PB_MSG(pb_lb_ingress, "LoadBalancerIngress", PB_F(1, "ip", PB_STR, 0),
       PB_F(2, "hostname", PB_STR, 0), PB_F(3, "ipMode", PB_STR, PB_PTR));

PB_MSG(pb_lb_status, "LoadBalancerStatus",
       PB_M(1, "ingress", pb_lb_ingress, PB_REP));

PB_MSG(pb_service_status, "ServiceStatus",
       PB_M(1, "loadBalancer", pb_lb_status, 0));

PB_MSG(pb_service, "Service", PB_M(1, "metadata", pb_object_meta, 0),
       PB_M(2, "spec", pb_service_spec, 0),
       PB_M(3, "status", pb_service_status, 0));
