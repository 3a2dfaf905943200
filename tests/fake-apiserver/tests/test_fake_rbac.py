"""The fake apiserver's RBAC: Roles, RoleBindings, ClusterRoles and
ClusterRoleBindings written through its API decide its own answers and
its SubjectAccessReviews, with RBAC's semantics; the token of a deleted
ServiceAccount is refused; --authz rules take resourceNames; the bearer
token is read as the apiserver reads it; a field selector names a LIST
as the apiserver's RequestInfo does."""
import json
import os
import shutil
import sys
import tempfile
import unittest
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "lib"))
import harness  # noqa: E402

ADMIN = "rbac-admin-tok"
USERS = """\
alice-tok,alice,uid-alice
bob-tok,bob,uid-bob,"devs"
sa-tok,system:serviceaccount:ns-a:robot,uid-robot
rule-tok,ruth,uid-ruth
"""
# ruth: an --authz rule with resourceNames
AUTHZ = "ruth get,list,watch configmaps ns-a cm-1,cm-3\n"
RBAC = "/apis/rbac.authorization.k8s.io/v1"


def obj(kind, name, **rest):
    return dict({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind,
                 "metadata": {"name": name}}, **rest)


def ref(kind, name):
    return {"apiGroup": "rbac.authorization.k8s.io", "kind": kind, "name": name}


def subj(kind, name, ns=None):
    s = {"kind": kind, "name": name}
    if kind != "ServiceAccount":
        s["apiGroup"] = "rbac.authorization.k8s.io"
    if ns:
        s["namespace"] = ns
    return s


class FakeRBAC(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="fake-rbac-")
        users, authz = os.path.join(cls.tmp, "users"), os.path.join(cls.tmp, "authz")
        with open(users, "w") as f:
            f.write(USERS)
        with open(authz, "w") as f:
            f.write(AUTHZ)
        cls.srv = harness.fake("--users", users, "--authz", authz, "--token", ADMIN,
                               "--all-kinds", "--quiet")
        cls.url = cls.srv.url
        for ns in ("ns-a", "ns-b"):
            cls.admin("POST", "/api/v1/namespaces",
                      {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
            for cm in ("cm-1", "cm-2"):
                cls.admin("POST", "/api/v1/namespaces/%s/configmaps" % ns,
                          {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": cm}})
        cls.admin("POST", "/api/v1/namespaces/ns-a/serviceaccounts",
                  {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "robot"}})
        for path, o in [
            ("/clusterroles", obj("ClusterRole", "cm-read", rules=[
                {"verbs": ["get", "list", "watch"], "apiGroups": [""],
                 "resources": ["configmaps"]}])),
            ("/clusterroles", obj("ClusterRole", "logs", rules=[
                {"verbs": ["get"], "apiGroups": [""], "resources": ["*/log"]},
                {"verbs": ["get"], "nonResourceURLs": ["/logs/*", "/metrics"]}])),
            ("/namespaces/ns-a/roles", obj("Role", "one-cm", rules=[
                {"verbs": ["get", "list"], "apiGroups": [""], "resources": ["configmaps"],
                 "resourceNames": ["cm-1"]}])),
            ("/namespaces/ns-a/rolebindings", obj(
                "RoleBinding", "alice-one", roleRef=ref("Role", "one-cm"),
                subjects=[subj("User", "alice")])),
            # a RoleBinding to a ClusterRole grants in its namespace only
            ("/namespaces/ns-b/rolebindings", obj(
                "RoleBinding", "devs-read", roleRef=ref("ClusterRole", "cm-read"),
                subjects=[subj("Group", "devs")])),
            ("/clusterrolebindings", obj(
                "ClusterRoleBinding", "bob-logs", roleRef=ref("ClusterRole", "logs"),
                subjects=[subj("User", "bob")])),
            # a ServiceAccount subject, its namespace defaulting to the binding's
            ("/namespaces/ns-a/rolebindings", obj(
                "RoleBinding", "robot", roleRef=ref("ClusterRole", "cm-read"),
                subjects=[subj("ServiceAccount", "robot")])),
            ("/namespaces/ns-b/rolebindings", obj(
                "RoleBinding", "sas", roleRef=ref("ClusterRole", "cm-read"),
                subjects=[subj("Group", "system:serviceaccounts:ns-a")])),
        ]:
            cls.admin("POST", RBAC + path, o)

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def admin(cls, method, path, body=None):
        st, _, raw = harness.request(method, cls.url + path, body=body,
                                     headers={"Authorization": "Bearer " + ADMIN})
        assert st in (200, 201), (method, path, st, raw[:300])
        return json.loads(raw)

    def code(self, path, tok, authz=None):
        hdr = {"Authorization": authz if authz is not None else "Bearer " + tok}
        return harness.request("GET", self.url + path, headers=hdr)[0]

    def sar(self, user, groups=(), **attrs):
        spec = {"user": user, "groups": list(groups)}
        if "path" in attrs:
            spec["nonResourceAttributes"] = attrs
        else:
            spec["resourceAttributes"] = attrs
        st = self.admin("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews",
                        {"apiVersion": "authorization.k8s.io/v1",
                         "kind": "SubjectAccessReview", "spec": spec})["status"]
        return st["allowed"], st.get("reason", "")

    def test_resource_names(self):
        cms = "/api/v1/namespaces/ns-a/configmaps"
        self.assertEqual(self.code(cms + "/cm-1", "alice-tok"), 200)
        self.assertEqual(self.code(cms + "/cm-2", "alice-tok"), 403)
        self.assertEqual(self.code(cms, "alice-tok"), 403)
        for sel, want in (("metadata.name=cm-1", 200), ("metadata.name==cm-1", 200),
                          ("metadata.namespace=ns-a,metadata.name=cm-1", 200),
                          ("metadata.name=cm-2", 403), ("metadata.name!=cm-2", 403),
                          ("metadata.name=cm-1,bogus", 403)):
            q = "?fieldSelector=" + urllib.parse.quote(sel, safe="")
            self.assertEqual(self.code(cms + q, "alice-tok"), want, sel)
        self.assertEqual(self.sar("alice", verb="get", resource="configmaps", version="v1",
                                  namespace="ns-a", name="cm-1"),
                         (True, 'RBAC: allowed by RoleBinding "alice-one/ns-a" of Role '
                                '"one-cm" to User "alice"'))
        self.assertFalse(self.sar("alice", verb="watch", resource="configmaps",
                                  namespace="ns-a", name="cm-1")[0])

    def test_rolebinding_to_clusterrole_and_groups(self):
        self.assertEqual(self.code("/api/v1/namespaces/ns-b/configmaps", "bob-tok"), 200)
        self.assertEqual(self.code("/api/v1/namespaces/ns-a/configmaps", "bob-tok"), 403)
        self.assertEqual(self.code("/api/v1/configmaps", "bob-tok"), 403)
        ok, why = self.sar("x", groups=["devs"], verb="list", resource="configmaps",
                           namespace="ns-b")
        self.assertEqual((ok, why), (True, 'RBAC: allowed by RoleBinding "devs-read/ns-b" of '
                                           'ClusterRole "cm-read" to Group "devs"'))
        # the group must be given: the user's name alone is not enough
        self.assertFalse(self.sar("bob", verb="list", resource="configmaps",
                                  namespace="ns-b")[0])

    def test_subresources_and_paths(self):
        self.assertTrue(self.sar("bob", verb="get", resource="pods", subresource="log",
                                 namespace="ns-a", name="p")[0])
        self.assertFalse(self.sar("bob", verb="get", resource="pods", namespace="ns-a",
                                  name="p")[0])
        self.assertTrue(self.sar("bob", verb="get", path="/logs/kube.log")[0])
        self.assertTrue(self.sar("bob", verb="get", path="/metrics")[0])
        self.assertFalse(self.sar("bob", verb="get", path="/metrics/x")[0])
        self.assertFalse(self.sar("bob", verb="post", path="/metrics")[0])
        self.assertEqual(self.code("/logs", "bob-tok"), 403)  # not under /logs/

    def test_service_accounts(self):
        st = self.admin("POST", "/apis/authentication.k8s.io/v1/tokenreviews",
                        {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
                         "spec": {"token": "sa-tok"}})["status"]
        self.assertEqual(st["user"]["groups"], ["system:serviceaccounts",
                                                "system:serviceaccounts:ns-a",
                                                "system:authenticated"])
        self.assertEqual(self.code("/api/v1/namespaces/ns-a/configmaps", "sa-tok"), 200)
        self.assertEqual(self.code("/api/v1/namespaces/ns-b/configmaps", "sa-tok"), 200)
        self.assertEqual(self.code("/api/v1/configmaps", "sa-tok"), 403)
        self.admin("DELETE", "/api/v1/namespaces/ns-a/serviceaccounts/robot")
        try:
            self.assertEqual(self.code("/api/v1/namespaces/ns-a/configmaps", "sa-tok"), 401)
            st = self.admin("POST", "/apis/authentication.k8s.io/v1/tokenreviews",
                            {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
                             "spec": {"token": "sa-tok"}})["status"]
            self.assertEqual(st, {"user": {}, "error": "invalid bearer token"})
        finally:
            self.admin("POST", "/api/v1/namespaces/ns-a/serviceaccounts",
                       {"apiVersion": "v1", "kind": "ServiceAccount",
                        "metadata": {"name": "robot"}})
        self.assertEqual(self.code("/api/v1/namespaces/ns-a/configmaps", "sa-tok"), 200)

    def test_revoked_binding(self):
        cm = "/api/v1/namespaces/ns-a/configmaps/cm-1"
        self.assertEqual(self.code(cm, "alice-tok"), 200)
        b = self.admin("GET", RBAC + "/namespaces/ns-a/rolebindings/alice-one")
        self.admin("DELETE", RBAC + "/namespaces/ns-a/rolebindings/alice-one")
        try:
            self.assertEqual(self.code(cm, "alice-tok"), 403)
        finally:
            for k in ("resourceVersion", "uid", "creationTimestamp", "managedFields"):
                b["metadata"].pop(k, None)
            self.admin("POST", RBAC + "/namespaces/ns-a/rolebindings", b)
        self.assertEqual(self.code(cm, "alice-tok"), 200)

    def test_authz_rule_resource_names(self):
        cms = "/api/v1/namespaces/ns-a/configmaps"
        self.assertEqual(self.code(cms + "/cm-1", "rule-tok"), 200)
        self.assertEqual(self.code(cms + "/cm-2", "rule-tok"), 403)
        self.assertEqual(self.code(cms, "rule-tok"), 403)
        self.assertEqual(self.code(cms + "?fieldSelector=metadata.name%3Dcm-1", "rule-tok"), 200)

    def test_bearer_spelling(self):
        cm = "/api/v1/namespaces/ns-a/configmaps/cm-1"
        for authz, want in (("Bearer alice-tok", 200), ("bearer alice-tok", 200),
                            (" Bearer alice-tok ", 200), ("Bearer alice-tok x", 200),
                            ("Bearer  alice-tok", 401), ("Bearer\talice-tok", 401),
                            ("Bearer", 401), ("Bearer ", 401)):
            self.assertEqual(self.code(cm, None, authz), want, repr(authz))


if __name__ == "__main__":
    unittest.main()
