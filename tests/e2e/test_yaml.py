"""Accept: application/yaml on the proxy's cached reads: YAML as the
apiserver writes it.

The apiserver turns its JSON into YAML with go-yaml v2 (sigs.k8s.io/yaml),
and kubectl -o yaml does the very same to the JSON it receives; kubectl
is a Go program built with that library, so its output is the reference
for an object's bytes: a GET through the proxy with Accept:
application/yaml must equal kubectl get -o yaml (--show-managed-fields)
of the same object, byte for byte, for objects made to stress the rules
(multi-line text, strings that look like other types, keys that sort by
number, unicode, long lines that fold). LISTs, plain (streamed an item at
a time, also past the size that sends it chunked) and as Tables, read back
(PyYAML) to the same document as the JSON answer; error Status bodies are
YAML too; a watch refuses YAML (406) as the apiserver does, YAML having no
streaming form; kubectl -o yaml (which asks JSON) is unchanged.
"""
import json
import os
import sys
import unittest

import yaml

import harness as h

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "clients"))
import clients as c  # noqa: E402

YAML = "application/yaml"
NS = "ns-0"

# A ConfigMap and labels that exercise go-yaml's choices: literal blocks
# (|, |-, |+), quoting of what reads back as another type, natural key
# order, unicode printed or escaped, folding of long text.
HOSTILE = {
    "apiVersion": "v1", "kind": "ConfigMap",
    "metadata": {
        "name": "hostile", "namespace": NS,
        "labels": {"a10": "x", "a9": "y", "a01": "z", "B": "true", "_x": "1"},
        "annotations": {
            "long": "word " * 40 + "end",
            "colon": "key: value",
            "dash": "- item",
            "hash": "#comment",
            "lead": " leading space",
            "trail": "trailing space ",
            "quote": "it's \"quoted\"",
            "empty": "",
            "yes": "yes",
            "n": "n",
            "tilde": "~",
        },
    },
    "data": {
        "config.ini": "[main]\nkey = value\n",
        "nonl": "one\ntwo",
        "keep": "end\n\n",
        "num": "123",
        "float": "1.5e3",
        "octal": "0755",
        "hex": "0x1F",
        "time": "2026-11-26T14:06:12Z",
        "date": "2026-1-2",
        "base60": "1:20",
        "bool": "True",
        "null": "null",
        "unicode": "caf\u00e9 \u2603",
        "emoji": "\U0001F600",
        "tab": "a\tb",
        "ctrl": "bell\u0007",
        "json": "{\"a\": [1, 2]}",
        "star": "*ref",
        "amp": "&anchor",
        "bang": "!tag",
        "pct": "%d",
        "at": "@x",
        "backtick": "`x`",
        "pipe": "| x",
        "gt": "> x",
        "q": "? x",
        "dots": "...",
        "dashes": "---",
        "spaces": "a  b",
    },
}


class YamlThroughProxy(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fake = h.fake("--quiet", "--seed-namespaces", "1", seed="pods=300,configmaps=3")
        try:
            st, _, body = h.request("POST", cls.fake.url + "/api/v1/namespaces/%s/configmaps" % NS,
                                    body=HOSTILE)
            assert st == 201, (st, body)
            cls.proxy = h.proxy(cls.fake.url, "pods,configmaps")
            h.wait_ready(cls.proxy.url)
        except Exception:
            cls.fake.stop(check=False)
            raise
        cls.kf = c.Kubectl(cls.fake.url)
        cls.kp = c.Kubectl(cls.proxy.url)

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.fake.stop()

    def get(self, path, accept=YAML):
        return h.request("GET", self.proxy.url + path, headers={"Accept": accept})

    def wait_cached(self, path):
        h.wait_until(lambda: self.get(path)[0] == 200, timeout=30, what=path + " cached")

    def test_get_equals_go_yaml(self):
        """Every configmap and a few pods: the proxy's YAML is kubectl's."""
        names = [("configmaps", "hostile")]
        _, cms = h.get_json(self.proxy.url + "/api/v1/namespaces/%s/configmaps?resourceVersion=0"
                            % NS)
        names += [("configmaps", o["metadata"]["name"]) for o in cms["items"]]
        _, pods = h.get_json(self.proxy.url + "/api/v1/namespaces/%s/pods?resourceVersion=0&limit=5"
                             % NS)
        names += [("pods", o["metadata"]["name"]) for o in pods["items"]]
        self.assertGreater(len(names), 5)
        for res, name in set(names):
            path = "/api/v1/namespaces/%s/%s/%s?resourceVersion=0" % (NS, res, name)
            self.wait_cached(path)
            st, hd, body = self.get(path)
            self.assertEqual(st, 200)
            self.assertEqual(hd["Content-Type"], YAML)
            want = self.kf.out("get", res, name, "-n", NS, "-o", "yaml", "--show-managed-fields")
            self.assertEqual(body.decode(), want, "%s/%s" % (res, name))

    def test_list_reads_back_as_the_json(self):
        """A plain LIST (chunked past 128 KiB, made an item at a time) and a
        Table, read back, are the JSON answer's document; key order is
        go-yaml's."""
        for path, accept in [
                ("/api/v1/namespaces/%s/pods?resourceVersion=0" % NS, YAML),
                ("/api/v1/namespaces/%s/configmaps?resourceVersion=0" % NS, YAML),
                ("/api/v1/namespaces/%s/pods?limit=2" % NS, YAML),
                ("/api/v1/namespaces/%s/configmaps?resourceVersion=0" % NS,
                 YAML + ";as=Table;v=v1;g=meta.k8s.io")]:
            st, hd, body = self.get(path, accept)
            self.assertEqual(st, 200, body[:300])
            self.assertEqual(hd["Content-Type"], YAML)
            st, _, jbody = self.get(path, accept.replace(YAML, "application/json"))
            self.assertEqual(st, 200)
            doc = yaml.safe_load(body)
            want = json.loads(jbody)
            if "limit" in path:  # a page: each token names its own snapshot
                self.assertEqual(len(doc["items"]), 2)
                self.assertIn("continue", doc["metadata"])
                doc["metadata"].pop("continue")
                want["metadata"].pop("continue")
            if "Table" in accept:  # ages are rendered at each request
                for r in doc["rows"] + want["rows"]:
                    r["cells"] = r["cells"][:2]
            self.assertEqual(doc, want, path)
            self.assertTrue(body.startswith(b"apiVersion: "), body[:100])
        st, hd, body = self.get("/api/v1/namespaces/%s/pods?resourceVersion=0" % NS)
        self.assertGreater(len(body), 128 * 1024)  # the streamed path
        self.assertEqual(hd.get("Content-Length"), None)

    def test_error_status_is_yaml(self):
        st, hd, body = self.get("/api/v1/namespaces/%s/pods/nope" % NS)
        self.assertEqual(st, 404)
        self.assertEqual(hd["Content-Type"], YAML)
        self.assertEqual(body.decode(), "apiVersion: v1\n"
                         "code: 404\n"
                         "details:\n"
                         "  kind: pods\n"
                         "  name: nope\n"
                         "kind: Status\n"
                         "message: pods \"nope\" not found\n"
                         "metadata: {}\n"
                         "reason: NotFound\n"
                         "status: Failure\n")
        # a JSON Accept keeps the JSON Status
        st, hd, body = self.get("/api/v1/namespaces/%s/pods/nope" % NS, "application/json")
        self.assertEqual(hd["Content-Type"], "application/json")
        self.assertEqual(json.loads(body)["code"], 404)

    def test_watch_refuses_yaml(self):
        st, hd, body = self.get("/api/v1/namespaces/%s/pods?watch=1&timeoutSeconds=1" % NS)
        self.assertEqual(st, 406)
        self.assertEqual(hd["Content-Type"], YAML)
        doc = yaml.safe_load(body)
        self.assertEqual((doc["kind"], doc["reason"], doc["code"]),
                         ("Status", "NotAcceptable", 406))
        # JSON first: the watch goes on as ever
        st, _, _ = self.get("/api/v1/namespaces/%s/pods?watch=1&timeoutSeconds=1" % NS,
                            "application/json, application/yaml")
        self.assertEqual(st, 200)

    def test_kubectl_yaml_unchanged(self):
        """kubectl -o yaml asks JSON: the same output through the proxy."""
        args = ("get", "configmaps", "-n", NS, "-o", "yaml", "--show-managed-fields")
        self.assertEqual(self.kp.out(*args), self.kf.out(*args))


if __name__ == "__main__":
    unittest.main()
