"""--client-auth=delegated decides as the apiserver's RBAC does, and
forgets a revoked grant in seconds.

The fake apiserver evaluates the RBAC objects written to it (Roles,
RoleBindings, ClusterRoles, ClusterRoleBindings) and refuses the token of
a deleted ServiceAccount, as a real one does. Each identity shape is
asked the same requests through the proxy and directly of the fake: the
answers must agree, code and message.

  dave   a Role limited by resourceNames to cm-1 in rb-a
  erin   a RoleBinding in rb-b to the ClusterRole cm-reader
  frank  in group auditors, a ClusterRoleBinding of cm-reader to it
  gina   list only, in rb-a
  robot  the ServiceAccount rb-a/robot: bound as a ServiceAccount in
         rb-a, and through its group system:serviceaccounts:rb-a in rb-b
  alice  a RoleBinding in rb-a to cm-reader, deleted by the revocation
         test
"""
import http.client
import json
import os
import shutil
import sys
import tempfile
import time
import unittest
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))
import certs  # noqa: E402
import harness as h  # noqa: E402

PROXY_TOKEN = "proxy-admin-rbac-71c2"
LIMITED_TOKEN = "limited-proxy-0b3e"
TOKENS = {
    "alice": "alice-rbac-1d0e", "dave": "dave-rbac-8c1f", "erin": "erin-rbac-2a9b",
    "frank": "frank-rbac-55e0", "gina": "gina-rbac-c3d4", "robot": "robot-rbac-9f7a",
    "henry": "henry-rbac-4b21",
}
RBAC = "/apis/rbac.authorization.k8s.io/v1"
DEADLINE = 10   # seconds a revocation may take here; the bench measures it


def as_(who):
    return {"Authorization": "Bearer " + TOKENS[who]}


def role(name, rules, ns=None):
    kind = "Role" if ns else "ClusterRole"
    return kind, ns, {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind,
                      "metadata": {"name": name}, "rules": rules}


def binding(name, ref_kind, ref, subjects, ns=None):
    kind = "RoleBinding" if ns else "ClusterRoleBinding"
    return kind, ns, {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind,
                      "metadata": {"name": name},
                      "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": ref_kind,
                                  "name": ref},
                      "subjects": subjects}


def user(name):
    return {"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": name}


def group(name):
    return {"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": name}


READ = ["get", "list", "watch"]
OBJECTS = [
    role("cm-reader", [{"verbs": READ, "apiGroups": [""], "resources": ["configmaps"]}]),
    role("names", [{"verbs": READ, "apiGroups": [""], "resources": ["configmaps"],
                    "resourceNames": ["cm-1"]}], ns="rb-a"),
    role("list-only", [{"verbs": ["list"], "apiGroups": [""], "resources": ["configmaps"]}],
         ns="rb-a"),
    binding("dave", "Role", "names", [user("dave")], ns="rb-a"),
    binding("erin", "ClusterRole", "cm-reader", [user("erin")], ns="rb-b"),
    binding("auditors", "ClusterRole", "cm-reader", [group("auditors")]),
    binding("gina", "Role", "list-only", [user("gina")], ns="rb-a"),
    binding("robot", "ClusterRole", "cm-reader",
            [{"kind": "ServiceAccount", "name": "robot", "namespace": "rb-a"}], ns="rb-a"),
    binding("rb-a-sas", "ClusterRole", "cm-reader",
            [group("system:serviceaccounts:rb-a")], ns="rb-b"),
    binding("alice", "ClusterRole", "cm-reader", [user("alice")], ns="rb-a"),
    binding("henry", "ClusterRole", "cm-reader", [user("henry")], ns="rb-a"),
]


def path_of(kind, ns, name=None):
    plural = {"Role": "roles", "ClusterRole": "clusterroles", "RoleBinding": "rolebindings",
              "ClusterRoleBinding": "clusterrolebindings"}[kind]
    p = RBAC + ("/namespaces/%s/" % ns if ns else "/") + plural
    return p + ("/" + name if name else "")


class DelegatedRBAC(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = d = tempfile.mkdtemp(prefix="delegated-rbac-")
        users = os.path.join(d, "users.csv")
        with open(users, "w") as f:
            for who, tok in TOKENS.items():
                if who == "robot":
                    f.write("%s,system:serviceaccount:rb-a:robot,uid-robot\n" % tok)
                elif who == "frank":
                    f.write('%s,frank,uid-frank,"auditors"\n' % tok)
                else:
                    f.write("%s,%s,uid-%s\n" % (tok, who, who))
            f.write("%s,limited-proxy,uid-limited\n" % LIMITED_TOKEN)
        rules = os.path.join(d, "authz")
        with open(rules, "w") as f:
            # a proxy that may review and cache configmaps, but not watch RBAC
            f.write("limited-proxy create tokenreviews,subjectaccessreviews *\n"
                    "limited-proxy list,watch configmaps *\n")
        cls.fake = h.fake("--token", PROXY_TOKEN, "--users", users, "--authz", rules,
                          "--all-kinds", "--quiet")
        for ns in ("rb-a", "rb-b"):
            cls.admin("POST", "/api/v1/namespaces",
                      {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        for ns, name in (("rb-a", "cm-1"), ("rb-a", "cm-2"), ("rb-b", "cm-1")):
            cls.admin("POST", "/api/v1/namespaces/%s/configmaps" % ns,
                      {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name},
                       "data": {"k": name}})
        cls.admin("POST", "/api/v1/namespaces/rb-a/serviceaccounts",
                  {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "robot"}})
        for kind, ns, obj in OBJECTS:
            cls.admin("POST", path_of(kind, ns), obj)
        kc = certs.kubeconfig(d, cls.fake.url, token=PROXY_TOKEN)
        cls.proxy = h.proxy(cls.fake.url, "configmaps", "--kubeconfig", kc,
                            "--client-auth", "delegated")
        h.wait_ready(cls.proxy.url)
        h.wait_until(lambda: "watching RBAC objects" in cls.proxy.logs(), timeout=30,
                     what="the proxy watching RBAC")

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.fake.stop()
        shutil.rmtree(cls.dir, ignore_errors=True)

    @classmethod
    def admin(cls, method, path, body=None):
        s, _, raw = h.request(method, cls.fake.url + path, body=body,
                              headers={"Authorization": "Bearer " + PROXY_TOKEN})
        assert s in (200, 201), (method, path, s, raw[:300])
        return json.loads(raw)

    def ask(self, base, path, who, headers=None):
        # resourceVersion=0: answered from the proxy's cache, never passed
        # through to be authorized by the upstream itself
        path += ("&" if "?" in path else "?") + "resourceVersion=0"
        hdrs = dict(as_(who)) if who else {}
        hdrs.update(headers or {})
        s, _, raw = h.request("GET", base + path, headers=hdrs, timeout=10)
        try:
            body = json.loads(raw)
        except ValueError:   # a watch's stream: its first event is enough
            body = json.loads(raw.split(b"\n", 1)[0]) if raw.startswith(b"{") else raw
        return s, body

    def same(self, path, who, code):
        """The proxy and the fake (the apiserver's stand-in) answer path
        for who alike: the code, and for a refusal its message."""
        s, body = self.ask(self.proxy.url, path, who)
        fs, fbody = self.ask(self.fake.url, path, who)
        self.assertEqual(s, fs, (path, who, body, fbody))
        self.assertEqual(s, code, (path, who, body))
        if code >= 400:
            self.assertEqual(body["message"], fbody["message"], (path, who))
            self.assertEqual(body.get("details"), fbody.get("details"), (path, who))
        return body

    @staticmethod
    def fs(sel, watch=False):
        q = "?fieldSelector=" + urllib.parse.quote(sel, safe="")
        return q + ("&watch=true&timeoutSeconds=1" if watch else "")

    def test_resource_names(self):
        cms = "/api/v1/namespaces/rb-a/configmaps"
        self.same(cms + "/cm-1", "dave", 200)
        self.same(cms + "/cm-2", "dave", 403)
        st = self.same(cms, "dave", 403)   # a list names nothing
        self.assertEqual(st["message"],
                         'configmaps is forbidden: User "dave" cannot list resource '
                         '"configmaps" in API group "" in the namespace "rb-a"')
        # the name is a field selector's metadata.name= or ==, whatever
        # other terms stand beside it
        for sel in ("metadata.name=cm-1", "metadata.name==cm-1",
                    "metadata.namespace=rb-a,metadata.name=cm-1",
                    "metadata.name==cm-1,metadata.namespace==rb-a"):
            lst = self.same(cms + self.fs(sel), "dave", 200)
            self.assertEqual([i["metadata"]["name"] for i in lst["items"]], ["cm-1"], sel)
            self.same(cms + self.fs(sel, watch=True), "dave", 200)
        st = self.same(cms + self.fs("metadata.name==cm-2"), "dave", 403)
        self.assertEqual(st["message"],
                         'configmaps "cm-2" is forbidden: User "dave" cannot list resource '
                         '"configmaps" in API group "" in the namespace "rb-a"')
        self.assertEqual(st["details"]["name"], "cm-2")
        # != names nothing: the list of everything else is refused
        self.same(cms + self.fs("metadata.name!=cm-2"), "dave", 403)

    def test_cross_namespace_binding(self):
        self.same("/api/v1/namespaces/rb-b/configmaps", "erin", 200)
        self.same("/api/v1/namespaces/rb-b/configmaps/cm-1", "erin", 200)
        self.same("/api/v1/namespaces/rb-b/configmaps?watch=1&timeoutSeconds=1", "erin", 200)
        self.same("/api/v1/namespaces/rb-a/configmaps", "erin", 403)
        self.same("/api/v1/namespaces/rb-a/configmaps/cm-1", "erin", 403)
        self.same("/api/v1/configmaps", "erin", 403)

    def test_group_binding(self):
        lst = self.same("/api/v1/configmaps", "frank", 200)
        self.assertGreaterEqual(len(lst["items"]), 3)
        self.same("/api/v1/configmaps?watch=1&timeoutSeconds=1", "frank", 200)
        self.same("/api/v1/namespaces/rb-a/configmaps/cm-2", "frank", 200)

    def test_list_only(self):
        self.same("/api/v1/namespaces/rb-a/configmaps", "gina", 200)
        self.same("/api/v1/namespaces/rb-a/configmaps/cm-1", "gina", 403)
        self.same("/api/v1/namespaces/rb-a/configmaps?watch=true&timeoutSeconds=1", "gina", 403)
        self.same("/api/v1/watch/namespaces/rb-a/configmaps", "gina", 403)
        self.same("/api/v1/namespaces/rb-b/configmaps", "gina", 403)

    def test_named_path_watch_is_a_get(self):
        # ?watch on an object's path is a get: list-only may not, a
        # resourceNames get may
        self.same("/api/v1/namespaces/rb-a/configmaps/cm-1?watch=true", "gina", 403)
        cm = self.same("/api/v1/namespaces/rb-a/configmaps/cm-1?watch=true", "dave", 200)
        self.assertEqual((cm["kind"], cm["metadata"]["name"]), ("ConfigMap", "cm-1"))

    def test_service_account_subjects_and_groups(self):
        self.same("/api/v1/namespaces/rb-a/configmaps", "robot", 200)   # as ServiceAccount
        self.same("/api/v1/namespaces/rb-b/configmaps", "robot", 200)   # by its namespace's group
        self.same("/api/v1/configmaps", "robot", 403)

    def test_bearer_spelling(self):
        """What the apiserver reads no token in is not authenticated here
        either (401: no anonymous access through the proxy)."""
        path = "/api/v1/namespaces/rb-b/configmaps"
        tok = TOKENS["erin"]
        self.assertEqual(self.ask(self.proxy.url, path, None,
                                  {"Authorization": "Bearer " + tok})[0], 200)
        self.assertEqual(self.ask(self.proxy.url, path, None,
                                  {"Authorization": "bearer " + tok})[0], 200)
        for bad in ("Bearer  " + tok, "Bearer\t" + tok, "Bearer", "Bearer " + tok[:-1]):
            s, st = self.ask(self.proxy.url, path, None, {"Authorization": bad})
            self.assertEqual((s, st["reason"]), (401, "Unauthorized"), repr(bad))

    def denied_within(self, who, path, code, deadline=DEADLINE):
        """Poll path as who until it answers code; the seconds it took."""
        t0 = time.monotonic()
        got = h.poll(lambda: self.ask(self.proxy.url, path, who)[0] == code,
                     timeout=deadline, interval=0.05)
        took = time.monotonic() - t0
        self.assertTrue(got, "%s still served %s %.1f s after the revocation" %
                        (who, path, took))
        return took

    def test_revoked_role_binding(self):
        cms = "/api/v1/namespaces/rb-a/configmaps"
        watch = cms + "?watch=1&timeoutSeconds=1"
        # allowed, and cached: a second ask is answered with no review
        for _ in range(2):
            self.assertEqual(self.ask(self.proxy.url, cms, "alice")[0], 200)
            self.assertEqual(self.ask(self.proxy.url, watch, "alice")[0], 200)
        self.admin("DELETE", path_of("RoleBinding", "rb-a", "alice"))
        self.assertEqual(self.ask(self.fake.url, cms, "alice")[0], 403)
        took = self.denied_within("alice", cms, 403)
        self.assertEqual(self.ask(self.proxy.url, watch, "alice")[0], 403)
        sys.stderr.write("  [RoleBinding delete -> 403 in %.2f s] " % took)
        # and granted again just as fast
        kind, ns, obj = [o for o in OBJECTS if o[2]["metadata"]["name"] == "alice"][0]
        self.admin("POST", path_of(kind, ns), obj)
        self.denied_within("alice", cms, 200)

    def test_deleted_service_account(self):
        cms = "/api/v1/namespaces/rb-a/configmaps"
        for _ in range(2):
            self.assertEqual(self.ask(self.proxy.url, cms, "robot")[0], 200)
        self.admin("DELETE", "/api/v1/namespaces/rb-a/serviceaccounts/robot")
        self.assertEqual(self.ask(self.fake.url, cms, "robot")[0], 401)
        took = self.denied_within("robot", cms, 401)
        sys.stderr.write("  [ServiceAccount delete -> 401 in %.2f s] " % took)
        # put back for the other tests, whatever the order (the fake
        # takes the token again; the proxy's denial of it may be cached
        # for --authn-deny-ttl, 10 s)
        self.admin("POST", "/api/v1/namespaces/rb-a/serviceaccounts",
                   {"apiVersion": "v1", "kind": "ServiceAccount",
                    "metadata": {"name": "robot"}})
        took = self.denied_within("robot", cms, 200, deadline=40)
        sys.stderr.write("[taken again after %.1f s] " % took)

    def test_unwatchable_rbac_falls_back_to_ttls(self):
        """A proxy whose identity may not list the RBAC kinds says so in
        one line at start-up, and still decides (by review, cached for the
        TTLs)."""
        kc = certs.kubeconfig(self.dir, self.fake.url, token=LIMITED_TOKEN, name="limited")
        p = h.proxy(self.fake.url, "configmaps", "--kubeconfig", kc,
                    "--client-auth", "delegated")
        try:
            h.wait_ready(p.url)
            line = h.wait_until(
                lambda: [ln for ln in p.logs().splitlines()
                         if "refused to let the proxy list" in ln],
                timeout=30, what="the warning")
            self.assertEqual(len(line), 1, line)
            for kind in ("roles.rbac.authorization.k8s.io", "rolebindings", "clusterroles",
                         "clusterrolebindings", "serviceaccounts", "--authn-allow-ttl"):
                self.assertIn(kind, line[0])
            s, _ = self.ask(p.url, "/api/v1/namespaces/rb-b/configmaps", "erin")
            self.assertEqual(s, 200)
            s, _ = self.ask(p.url, "/api/v1/namespaces/rb-a/configmaps", "erin")
            self.assertEqual(s, 403)
            # the henry binding goes; this proxy keeps its cached decision
            s, body = self.ask(p.url, "/api/v1/namespaces/rb-a/configmaps", "henry")
            self.assertEqual(s, 200, body)
            self.admin("DELETE", path_of("RoleBinding", "rb-a", "henry"))
            time.sleep(2)
            s, body = self.ask(p.url, "/api/v1/namespaces/rb-a/configmaps", "henry")
            self.assertEqual(s, 200, body)
            self.assertEqual(sum("refused to let the proxy list" in ln
                                 for ln in p.logs().splitlines()), 1)
        finally:
            p.stop()


if __name__ == "__main__":
    unittest.main()
