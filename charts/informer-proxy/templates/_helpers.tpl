{{/*
Named templates. Every one takes the chart's root context (.), except
"informer-proxy.sidecarContainer", which also accepts a parent chart's
root context when informer-proxy is its dependency (see README).
*/}}

{{- define "informer-proxy.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "informer-proxy.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "informer-proxy.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "informer-proxy.selectorLabels" -}}
app.kubernetes.io/name: {{ include "informer-proxy.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "informer-proxy.labels" -}}
helm.sh/chart: {{ include "informer-proxy.chart" . }}
{{ include "informer-proxy.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/component: {{ .Values.mode }}
{{- end -}}

{{- define "informer-proxy.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "informer-proxy.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "informer-proxy.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion | toString) -}}
{{- end -}}

{{/*
The host part of --listen.
  sidecar:   sidecar.listenHost (127.0.0.1): only containers of the same pod
             reach it.
  daemonset: 0.0.0.0 when daemonset.exposeOnNode (a hostPort) is set;
             otherwise the pod IP, which the node-local Service targets.
  deployment: the pod IP, which the Service targets.
*/}}
{{- define "informer-proxy.listenHost" -}}
{{- if eq .Values.mode "daemonset" -}}
{{- if .Values.daemonset.exposeOnNode -}}0.0.0.0{{- else -}}$(POD_IP){{- end -}}
{{- else if eq .Values.mode "deployment" -}}
$(POD_IP)
{{- else -}}
{{- .Values.sidecar.listenHost -}}
{{- end -}}
{{- end -}}

{{/* "true" when the kubelet and Prometheus can reach the proxy on the pod IP. */}}
{{- define "informer-proxy.reachable" -}}
{{- $h := include "informer-proxy.listenHost" . -}}
{{- if not (or (hasPrefix "127." $h) (eq $h "localhost")) -}}true{{- end -}}
{{- end -}}

{{/* "true" in the modes whose proxy listens on the pod network for
clients of other pods: daemonset and deployment. */}}
{{- define "informer-proxy.remote" -}}
{{- if has .Values.mode (list "daemonset" "deployment") -}}true{{- end -}}
{{- end -}}

{{/*
The effective --client-auth. clientAuth "auto": none in sidecar mode (the
listener is loopback, only the pod's own containers reach it), delegated
in daemonset and deployment modes (every client's token goes through a
TokenReview and every request through a SubjectAccessReview).
*/}}
{{- define "informer-proxy.clientAuth" -}}
{{- if ne .Values.clientAuth "auto" -}}
{{- .Values.clientAuth -}}
{{- else if eq (include "informer-proxy.remote" .) "true" -}}
delegated
{{- else -}}
none
{{- end -}}
{{- end -}}

{{/*
"true" when the ServiceMonitor is rendered: metrics.serviceMonitor.enabled,
and the cluster serves monitoring.coreos.com/v1 (helm install/upgrade ask
the cluster; helm template takes --api-versions) or
metrics.serviceMonitor.force is set.
*/}}
{{- define "informer-proxy.serviceMonitor" -}}
{{- include "informer-proxy.monitorOn" (dict "root" . "m" .Values.metrics.serviceMonitor) -}}
{{- end -}}

{{/* The same for the PodMonitor (metrics.podMonitor). */}}
{{- define "informer-proxy.podMonitor" -}}
{{- include "informer-proxy.monitorOn" (dict "root" . "m" .Values.metrics.podMonitor) -}}
{{- end -}}

{{- define "informer-proxy.monitorOn" -}}
{{- $m := .m -}}
{{- if and $m.enabled (or $m.force (.root.Capabilities.APIVersions.Has "monitoring.coreos.com/v1")) -}}true{{- end -}}
{{- end -}}

{{/*
The Prometheus scrape annotations of a pod this chart renders, as YAML
lines (none without metrics.podAnnotations). With metrics.enabled they
name the metrics port, plain HTTP, in every mode; otherwise the API port,
only where the pod IP reaches it.
*/}}
{{- define "informer-proxy.scrapeAnnotations" -}}
{{- if .Values.metrics.podAnnotations -}}
{{- if .Values.metrics.enabled }}
prometheus.io/scrape: "true"
prometheus.io/port: {{ .Values.metrics.port | quote }}
prometheus.io/path: {{ .Values.metrics.path | quote }}
{{- else if eq (include "informer-proxy.reachable" .) "true" }}
prometheus.io/scrape: "true"
{{- if eq (include "informer-proxy.tls" .) "true" }}
prometheus.io/scheme: https
{{- end }}
prometheus.io/port: {{ .Values.port | quote }}
prometheus.io/path: {{ .Values.metrics.path | quote }}
{{- end }}
{{- end }}
{{- end -}}

{{/* A pod's annotations: scrapeAnnotations and podAnnotations. */}}
{{- define "informer-proxy.podAnnotations" -}}
{{- $a := include "informer-proxy.scrapeAnnotations" . | trim -}}
{{- if or $a .Values.podAnnotations }}
annotations:
  {{- with $a }}
  {{- . | nindent 2 }}
  {{- end }}
  {{- with .Values.podAnnotations }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- end }}
{{- end -}}

{{/* The pod's priorityClassName line, from the mode's own value. */}}
{{- define "informer-proxy.priorityClassName" -}}
{{- $pc := "" -}}
{{- if eq .Values.mode "daemonset" -}}{{- $pc = .Values.daemonset.priorityClassName -}}
{{- else if eq .Values.mode "deployment" -}}{{- $pc = .Values.deployment.priorityClassName -}}
{{- else -}}{{- $pc = .Values.sidecar.example.priorityClassName -}}
{{- end -}}
{{- with $pc }}
priorityClassName: {{ . }}
{{- end }}
{{- end -}}

{{/* "true" when the proxy serves HTTPS: daemonset or deployment mode with
tls.enabled. */}}
{{- define "informer-proxy.tls" -}}
{{- if and (eq (include "informer-proxy.remote" .) "true") .Values.tls.enabled -}}true{{- end -}}
{{- end -}}

{{/*
The Secret holding tls.crt and tls.key: tls.secretName, or the one the
chart's cert-manager Certificate writes.
*/}}
{{- define "informer-proxy.tlsSecretName" -}}
{{- .Values.tls.secretName | default (printf "%s-tls" (include "informer-proxy.fullname" .)) -}}
{{- end -}}

{{/* Where the serving certificate is mounted. */}}
{{- define "informer-proxy.tlsDir" -}}/etc/informer-proxy/tls{{- end -}}

{{/* Where the --config ConfigMap is mounted, with scoped resources. */}}
{{- define "informer-proxy.configDir" -}}/etc/informer-proxy/config{{- end -}}

{{/*
Name of the container port. "https" when serving TLS: meshes and
Prometheus infer the protocol from an "http" prefix.
*/}}
{{- define "informer-proxy.portName" -}}
{{- if eq (include "informer-proxy.tls" .) "true" -}}https{{- else -}}http{{- end -}}
{{- end -}}

{{/* "true" when an entry of resources is a map (a scope): the chart then
renders a --config file instead of --resources. */}}
{{- define "informer-proxy.scoped" -}}
{{- $scoped := false -}}
{{- range .Values.resources -}}{{- if kindIs "map" . -}}{{- $scoped = true -}}{{- end -}}{{- end -}}
{{- if $scoped -}}true{{- end -}}
{{- end -}}

{{/* An entry of resources as the config file's map: a plain name becomes
{resource: NAME}. */}}
{{- define "informer-proxy.configResources" -}}
{{- $out := list -}}
{{- range .Values.resources -}}
{{- $out = append $out (ternary . (dict "resource" .) (kindIs "map" .)) -}}
{{- end -}}
{{- toYaml $out -}}
{{- end -}}

{{/* The resource name of an entry, a string or a map. */}}
{{- define "informer-proxy.entryName" -}}
{{- if kindIs "map" . }}{{ .resource }}{{ else }}{{ . }}{{ end -}}
{{- end -}}

{{/* The namespaces entries name, sorted, each once. */}}
{{- define "informer-proxy.roleNamespaces" -}}
{{- $ns := list -}}
{{- range .Values.resources -}}
{{- if kindIs "map" . -}}{{- $ns = concat $ns (.namespaces | default list) -}}{{- end -}}
{{- end -}}
{{- toJson ($ns | uniq | sortAlpha) -}}
{{- end -}}

{{/*
get/list/watch rules on a list of resource names, one rule per API group.
A name is spelled resource[.version][.group], as kubectl and --resources
spell it: "pods", "deployments.apps", "deployments.v1.apps",
"widgets.v1beta1.example.com". A version is v followed by a digit 1-9.
*/}}
{{- define "informer-proxy.readRules" -}}
{{- $groups := dict -}}
{{- range . -}}
{{- $parts := splitList "." . -}}
{{- $res := first $parts -}}
{{- $rest := rest $parts -}}
{{- if $rest -}}
{{- if regexMatch "^v[1-9]" (first $rest) -}}
{{- $rest = rest $rest -}}
{{- end -}}
{{- end -}}
{{- $group := join "." $rest -}}
{{- $have := get $groups $group | default (list) -}}
{{- $_ := set $groups $group (append $have $res | uniq) -}}
{{- end -}}
{{- range $g := keys $groups | sortAlpha }}
- apiGroups: [{{ $g | quote }}]
  resources: {{ get $groups $g | toJson }}
  verbs: ["get", "list", "watch"]
{{- end }}
{{- end -}}

{{/*
The ClusterRole's rules: get/list/watch on every cluster-wide entry of
.Values.resources (an entry with namespaces gets a Role in each of them
instead, role.yaml), on customresourcedefinitions when any entry is a
custom resource, and with delegated client auth, create on tokenreviews
and subjectaccessreviews, which the proxy sends for every client, and
list/watch on the RBAC kinds and serviceaccounts, whose changes make it
forget its cached decisions at once.
*/}}
{{- define "informer-proxy.rbacRules" -}}
{{- $cluster := list -}}
{{- $all := list -}}
{{- range .Values.resources -}}
{{- $name := include "informer-proxy.entryName" . -}}
{{- $all = append $all $name -}}
{{- if not (and (kindIs "map" .) .namespaces) -}}
{{- $cluster = append $cluster $name -}}
{{- end -}}
{{- end -}}
{{- /* A custom resource prints its CRD's columns in kubectl tables: the
proxy then reads the CRDs too. These are the groups the apiserver serves
itself; any other group is a custom resource's. */ -}}
{{- $builtin := list "" "admissionregistration.k8s.io" "apiextensions.k8s.io" "apiregistration.k8s.io" "apps" "authentication.k8s.io" "authorization.k8s.io" "autoscaling" "batch" "certificates.k8s.io" "coordination.k8s.io" "discovery.k8s.io" "events.k8s.io" "extensions" "flowcontrol.apiserver.k8s.io" "internal.apiserver.k8s.io" "metrics.k8s.io" "networking.k8s.io" "node.k8s.io" "policy" "rbac.authorization.k8s.io" "resource.k8s.io" "scheduling.k8s.io" "storage.k8s.io" "storagemigration.k8s.io" -}}
{{- $custom := false -}}
{{- range $all -}}
{{- $parts := rest (splitList "." .) -}}
{{- if and $parts (regexMatch "^v[1-9]" (first $parts)) -}}{{- $parts = rest $parts -}}{{- end -}}
{{- if not (has (join "." $parts) $builtin) -}}{{- $custom = true -}}{{- end -}}
{{- end -}}
{{- if $custom -}}
{{- $cluster = append $cluster "customresourcedefinitions.apiextensions.k8s.io" -}}
{{- end -}}
{{- include "informer-proxy.readRules" ($cluster | uniq) }}
{{- if eq (include "informer-proxy.clientAuth" .) "delegated" }}
- apiGroups: ["authentication.k8s.io"]
  resources: ["tokenreviews"]
  verbs: ["create"]
- apiGroups: ["authorization.k8s.io"]
  resources: ["subjectaccessreviews"]
  verbs: ["create"]
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["roles", "rolebindings", "clusterroles", "clusterrolebindings"]
  verbs: ["list", "watch"]
- apiGroups: [""]
  resources: ["serviceaccounts"]
  verbs: ["list", "watch"]
{{- end }}
{{- with .Values.rbac.extraRules }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* The proxy's arguments, one per line as a YAML list. */}}
{{- define "informer-proxy.args" -}}
{{- if eq (include "informer-proxy.scoped" .) "true" -}}
- --config={{ include "informer-proxy.configDir" . }}/config.yaml
- --watch-config
{{- else -}}
- --resources={{ join "," .Values.resources }}
{{- end }}
- --listen={{ include "informer-proxy.listenHost" . }}:{{ .Values.port }}
- --log-format={{ .Values.logFormat }}
- --v={{ .Values.verbosity }}
{{- $auth := include "informer-proxy.clientAuth" . }}
- --client-auth={{ $auth }}
{{- if and (eq $auth "none") (eq (include "informer-proxy.remote" .) "true") .Values.allowUnauthenticatedRemote }}
- --allow-unauthenticated-remote
{{- end }}
{{- if eq $auth "delegated" }}
{{- if not (kindIs "invalid" .Values.authn.allowTTL) }}
- --authn-allow-ttl={{ .Values.authn.allowTTL | int64 }}
{{- end }}
{{- if not (kindIs "invalid" .Values.authn.denyTTL) }}
- --authn-deny-ttl={{ .Values.authn.denyTTL | int64 }}
{{- end }}
{{- end }}
{{- if .Values.metrics.enabled }}
- --metrics-listen=0.0.0.0:{{ .Values.metrics.port }}
{{- end }}
{{- if eq (include "informer-proxy.tls" .) "true" }}
- --tls-cert-file={{ include "informer-proxy.tlsDir" . }}/tls.crt
- --tls-private-key-file={{ include "informer-proxy.tlsDir" . }}/tls.key
{{- end }}
{{- if and (eq .Values.mode "sidecar") .Values.sidecar.unixSocket.path }}
- --unix-socket={{ .Values.sidecar.unixSocket.path }}
- --unix-socket-mode={{ .Values.sidecar.unixSocket.mode }}
{{- end }}
{{- with .Values.upstream.server }}
- --server={{ . }}
{{- end }}
{{- with .Values.upstream.kubeconfig }}
- --kubeconfig={{ . }}
{{- end }}
{{- with .Values.upstream.context }}
- --context={{ . }}
{{- end }}
{{- if not (kindIs "invalid" .Values.bookmarkInterval) }}
- --bookmark-interval={{ .Values.bookmarkInterval }}
{{- end }}
{{- if not (kindIs "invalid" .Values.history) }}
- --history={{ .Values.history | int64 }}
{{- end }}
{{- if not (kindIs "invalid" .Values.pageSize) }}
- --page-size={{ .Values.pageSize | int64 }}
{{- end }}
{{- if not (kindIs "invalid" .Values.discoveryRefresh) }}
- --discovery-refresh={{ .Values.discoveryRefresh | int64 }}
{{- end }}
{{- if not (kindIs "invalid" .Values.watchTimeout) }}
- --watch-timeout={{ .Values.watchTimeout | int64 }}
{{- end }}
{{- if not (kindIs "invalid" .Values.threads) }}
- --threads={{ .Values.threads | int64 }}
{{- end }}
{{- if .Values.stripManagedFields }}
- --strip-managed-fields
{{- end }}
{{- range .Values.extraArgs }}
- {{ . | quote }}
{{- end }}
{{- end -}}

{{/*
One probe. Call with (dict "root" $ "probe" .Values.probes.liveness).
*/}}
{{- define "informer-proxy.probe" -}}
{{- $root := .root -}}
{{- $p := .probe -}}
{{- $metrics := $root.Values.metrics.enabled -}}
{{- $handler := $root.Values.probes.handler -}}
{{- if eq $handler "auto" -}}
{{- $handler = ternary "httpGet" "exec" (or $metrics (eq (include "informer-proxy.reachable" $root) "true")) -}}
{{- end -}}
{{- $host := include "informer-proxy.listenHost" $root -}}
{{- $port := $root.Values.port -}}
{{- $portName := include "informer-proxy.portName" $root -}}
{{- $tls := eq (include "informer-proxy.tls" $root) "true" -}}
{{- if $metrics -}}
{{- /* The metrics listener: plain HTTP on every address of the pod. */ -}}
{{- $host = "0.0.0.0" -}}
{{- $port = $root.Values.metrics.port -}}
{{- $portName = "metrics" -}}
{{- $tls = false -}}
{{- end -}}
{{- if or (eq $host "0.0.0.0") (eq $host "$(POD_IP)") -}}
{{- $host = "127.0.0.1" -}}
{{- end -}}
{{- if eq $handler "httpGet" }}
httpGet:
  path: {{ $p.path }}
  port: {{ $portName }}
  {{- if $tls }}
  scheme: HTTPS
  {{- end }}
{{- else }}
exec:
  command:
  {{- range $root.Values.probes.exec.command }}
    - {{ . | quote }}
  {{- end }}
    - {{ printf "%s://%s:%v%s" (ternary "https" "http" $tls) $host $port $p.path | quote }}
{{- end }}
periodSeconds: {{ $p.periodSeconds }}
timeoutSeconds: {{ $p.timeoutSeconds }}
failureThreshold: {{ $p.failureThreshold }}
{{- end -}}

{{/*
The proxy container, as one list item. With sidecar.nativeSidecar it
carries restartPolicy: Always and belongs under initContainers.
*/}}
{{- define "informer-proxy.container" -}}
- name: informer-proxy
  image: {{ include "informer-proxy.image" . | quote }}
  imagePullPolicy: {{ .Values.image.pullPolicy }}
  {{- if and (eq .Values.mode "sidecar") .Values.sidecar.nativeSidecar }}
  restartPolicy: Always
  {{- end }}
  args:
    {{- include "informer-proxy.args" . | nindent 4 }}
  {{- if or (eq (include "informer-proxy.listenHost" .) "$(POD_IP)") .Values.extraEnv }}
  env:
    {{- if eq (include "informer-proxy.listenHost" .) "$(POD_IP)" }}
    - name: POD_IP
      valueFrom:
        fieldRef:
          fieldPath: status.podIP
    {{- end }}
    {{- with .Values.extraEnv }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- end }}
  ports:
    - name: {{ include "informer-proxy.portName" . }}
      containerPort: {{ .Values.port }}
      {{- if and (eq .Values.mode "daemonset") .Values.daemonset.exposeOnNode }}
      hostPort: {{ .Values.daemonset.exposeOnNode }}
      {{- end }}
      protocol: TCP
    {{- if .Values.metrics.enabled }}
    # /metrics, /healthz, /livez, /readyz only; plain HTTP, no client auth.
    - name: metrics
      containerPort: {{ .Values.metrics.port }}
      protocol: TCP
    {{- end }}
  {{- if ne .Values.probes.handler "none" }}
  startupProbe:
    {{- include "informer-proxy.probe" (dict "root" . "probe" .Values.probes.startup) | trim | nindent 4 }}
  livenessProbe:
    {{- include "informer-proxy.probe" (dict "root" . "probe" .Values.probes.liveness) | trim | nindent 4 }}
  readinessProbe:
    {{- include "informer-proxy.probe" (dict "root" . "probe" .Values.probes.readiness) | trim | nindent 4 }}
  {{- end }}
  {{- with (eq .Values.mode "deployment" | ternary .Values.deployment.containerResources .Values.containerResources) }}
  resources:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.securityContext }}
  securityContext:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- $tls := eq (include "informer-proxy.tls" .) "true" }}
  {{- $scoped := eq (include "informer-proxy.scoped" .) "true" }}
  {{- if or $tls $scoped .Values.extraVolumeMounts }}
  volumeMounts:
    {{- if $scoped }}
    # A directory, so the kubelet's update of the ConfigMap reaches the
    # proxy, which reloads it (--watch-config).
    - name: informer-proxy-config
      mountPath: {{ include "informer-proxy.configDir" . }}
      readOnly: true
    {{- end }}
    {{- if $tls }}
    # A directory, not subPath files: the kubelet swaps the whole
    # directory when the Secret changes and the proxy re-reads the files.
    - name: informer-proxy-tls
      mountPath: {{ include "informer-proxy.tlsDir" . }}
      readOnly: true
    {{- end }}
    {{- with .Values.extraVolumeMounts }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- end }}
{{- end -}}

{{/*
The sidecar container for your own pod spec, as one list item:

  containers:            # initContainers: with sidecar.nativeSidecar
    {{- include "informer-proxy.sidecarContainer" . | nindent 4 }}

Pass this chart's root context, or, from a parent chart that lists
informer-proxy as a dependency, the parent's root context: the values are
then taken from .Values.informer-proxy.
*/}}
{{- define "informer-proxy.sidecarContainer" -}}
{{- if and (not (hasKey .Values "mode")) (hasKey .Values "informer-proxy") -}}
{{- $appVersion := "" -}}
{{- if hasKey . "Subcharts" -}}
{{- with index .Subcharts "informer-proxy" -}}{{- $appVersion = .Chart.AppVersion -}}{{- end -}}
{{- end -}}
{{- $ctx := dict "Values" (index .Values "informer-proxy") "Release" .Release "Chart" (dict "Name" "informer-proxy" "AppVersion" $appVersion) -}}
{{- include "informer-proxy.container" $ctx -}}
{{- else -}}
{{- include "informer-proxy.container" . -}}
{{- end -}}
{{- end -}}

{{/*
The volumes the proxy container mounts, as list items (none when
resources has no scoped entry), for your own pod spec in sidecar mode:

  volumes:
    {{- include "informer-proxy.sidecarVolumes" . | nindent 4 }}
*/}}
{{- define "informer-proxy.sidecarVolumes" -}}
{{- if and (not (hasKey .Values "mode")) (hasKey .Values "informer-proxy") -}}
{{- $ctx := dict "Values" (index .Values "informer-proxy") "Release" .Release "Chart" (dict "Name" "informer-proxy") -}}
{{- include "informer-proxy.volumes" $ctx -}}
{{- else -}}
{{- include "informer-proxy.volumes" . -}}
{{- end -}}
{{- end -}}

{{/* The chart's own volumes of the proxy container, as list items. */}}
{{- define "informer-proxy.volumes" -}}
{{- if eq (include "informer-proxy.scoped" .) "true" }}
- name: informer-proxy-config
  configMap:
    name: {{ include "informer-proxy.fullname" . }}-config
{{- end }}
{{- if eq (include "informer-proxy.tls" .) "true" }}
- name: informer-proxy-tls
  secret:
    secretName: {{ include "informer-proxy.tlsSecretName" . }}
{{- end }}
{{- end -}}

{{/* The kubeconfig clients in the pod use: the proxy on loopback. */}}
{{- define "informer-proxy.kubeconfig" -}}
apiVersion: v1
kind: Config
clusters:
  - name: informer-proxy
    cluster:
      server: {{ printf "http://127.0.0.1:%v" .Values.port }}
contexts:
  - name: informer-proxy
    context:
      cluster: informer-proxy
      user: informer-proxy
      namespace: {{ .Release.Namespace }}
current-context: informer-proxy
users:
  - name: informer-proxy
    {{- if .Values.sidecar.kubeconfig.forwardServiceAccountToken }}
    user:
      tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token
    {{- else }}
    user: {}
    {{- end }}
{{- end -}}

{{/* A Service's ports: the API's, and the metrics port with
metrics.enabled (a ServiceMonitor scrapes it through the Endpoints). */}}
{{- define "informer-proxy.servicePorts" -}}
- name: {{ include "informer-proxy.portName" . }}
  port: {{ .Values.port }}
  targetPort: {{ include "informer-proxy.portName" . }}
  protocol: TCP
{{- if .Values.metrics.enabled }}
- name: metrics
  port: {{ .Values.metrics.port }}
  targetPort: metrics
  protocol: TCP
{{- end }}
{{- end -}}
