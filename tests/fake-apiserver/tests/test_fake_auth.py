"""bin/fake-apiserver's authentication and authorization (--users,
--authz), TokenReview and SubjectAccessReview: what the proxy's
--client-auth=delegated mode is tested against.

One fake serves every case: alice (groups dev, team-a) may read pods
and create configmaps in ns-1 only; the group viewers may list anything
anywhere; bob is in viewers; carol has no rule. An admin token (--token)
is a super user and the caller of the reviews. Assertions are on bodies
and reasons, and on /fake/stats' review counters.
"""
import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "lib"))
import harness  # noqa: E402

USERS = """\
# token,user,uid,groups
alice-token,alice,1001,"dev,team-a"
bob-token,bob,1002,viewers
carol-token,carol,1003
"""

AUTHZ = """\
# USER_OR_GROUP VERB RESOURCE NAMESPACE
alice get,list,watch pods ns-1   # reads in her namespace only
alice create configmaps ns-1
viewers list * *
team-a get namespaces ns-1
"""

ADMIN = "admin-token-0123"

UNAUTHORIZED = {"kind": "Status", "apiVersion": "v1", "metadata": {},
                "status": "Failure", "message": "Unauthorized",
                "reason": "Unauthorized", "code": 401}


def forbidden(message, details):
    return {"kind": "Status", "apiVersion": "v1", "metadata": {},
            "status": "Failure", "message": message, "reason": "Forbidden",
            "details": details, "code": 403}


class FakeAuth(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="fake-auth-")
        users = os.path.join(cls.tmp, "users")
        authz = os.path.join(cls.tmp, "authz")
        with open(users, "w") as f:
            f.write(USERS)
        with open(authz, "w") as f:
            f.write(AUTHZ)
        # --quiet: no background writes, nothing here depends on time
        cls.srv = harness.fake("--users", users, "--authz", authz,
                               "--token", ADMIN, "--quiet", seed="pods=20")
        cls.url = cls.srv.url

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def call(self, method, path, token=None, body=None):
        headers = {"Authorization": "Bearer " + token} if token else {}
        status, _, raw = harness.request(method, self.url + path,
                                         headers=headers, body=body)
        return status, json.loads(raw) if raw.strip() else None

    def get(self, path, token=None):
        return self.call("GET", path, token)

    def stats(self):
        return harness.get_json(self.url + "/fake/stats")[1]

    # --- authentication ---------------------------------------------------

    def test_no_or_unknown_token_is_401(self):
        for token in (None, "nope", "alice-token-x", "alice"):
            status, body = self.get("/api/v1/namespaces/ns-1/pods", token)
            self.assertEqual(status, 401, token)
            self.assertEqual(body, UNAUTHORIZED)
        # discovery needs authentication too; /fake/ and health do not
        self.assertEqual(self.get("/api/v1")[0], 401)
        self.assertEqual(self.get("/version")[0], 401)
        self.assertEqual(harness.request("GET", self.url + "/healthz")[0], 200)
        self.assertEqual(harness.request("GET", self.url + "/fake/stats")[0], 200)

    def test_discovery_needs_only_authentication(self):
        for path in ("/api", "/api/v1", "/apis", "/version",
                     "/apis/coordination.k8s.io/v1"):
            self.assertEqual(self.get(path, "carol-token")[0], 200, path)

    # --- authorization on the fake's own API ---------------------------------

    def test_alice_reads_pods_in_ns1(self):
        status, body = self.get("/api/v1/namespaces/ns-1/pods", "alice-token")
        self.assertEqual(status, 200)
        self.assertEqual(body["kind"], "PodList")
        self.assertTrue(body["items"])
        self.assertTrue(all(p["metadata"]["namespace"] == "ns-1"
                            for p in body["items"]))
        name = body["items"][0]["metadata"]["name"]
        status, pod = self.get("/api/v1/namespaces/ns-1/pods/" + name,
                               "alice-token")
        self.assertEqual((status, pod["metadata"]["name"]), (200, name))
        # watch, both spellings: the stream opens (200) and ends at once
        for path in ("/api/v1/namespaces/ns-1/pods?watch=true&timeoutSeconds=1",
                     "/api/v1/watch/namespaces/ns-1/pods?timeoutSeconds=1"):
            status, _, _ = harness.request(
                "GET", self.url + path,
                headers={"Authorization": "Bearer alice-token"})
            self.assertEqual(status, 200, path)

    def test_alice_forbidden_elsewhere(self):
        msg = ('pods is forbidden: User "alice" cannot list resource "pods" '
               'in API group "" in the namespace "ns-2"')
        status, body = self.get("/api/v1/namespaces/ns-2/pods", "alice-token")
        self.assertEqual(status, 403)
        self.assertEqual(body, forbidden(msg, {"kind": "pods"}))

        msg = ('pods is forbidden: User "alice" cannot list resource "pods" '
               'in API group "" at the cluster scope')
        status, body = self.get("/api/v1/pods", "alice-token")
        self.assertEqual(body, forbidden(msg, {"kind": "pods"}))

        msg = ('pods is forbidden: User "alice" cannot watch resource "pods" '
               'in API group "" at the cluster scope')
        status, body = self.get("/api/v1/pods?watch=1", "alice-token")
        self.assertEqual(body, forbidden(msg, {"kind": "pods"}))

        msg = ('pods "web-1" is forbidden: User "alice" cannot get resource '
               '"pods" in API group "" in the namespace "ns-2"')
        status, body = self.get("/api/v1/namespaces/ns-2/pods/web-1",
                                "alice-token")
        self.assertEqual(body, forbidden(msg, {"name": "web-1", "kind": "pods"}))

        # a group-qualified resource, named by a fieldSelector
        msg = ('leases.coordination.k8s.io "n" is forbidden: User "alice" '
               'cannot list resource "leases" in API group '
               '"coordination.k8s.io" in the namespace "ns-1"')
        status, body = self.get("/apis/coordination.k8s.io/v1/namespaces/ns-1/"
                                "leases?fieldSelector=metadata.name%3Dn",
                                "alice-token")
        self.assertEqual(body, forbidden(msg, {
            "name": "n", "group": "coordination.k8s.io", "kind": "leases"}))

        # a path nothing serves is 403 before it is 404, as the apiserver
        status, body = self.get("/logs/", "alice-token")
        self.assertEqual(body, forbidden(
            'forbidden: User "alice" cannot get path "/logs/"', {}))

    def test_writes(self):
        cm = {"apiVersion": "v1", "kind": "ConfigMap",
              "metadata": {"name": "alice-cm"}, "data": {"k": "v"}}
        status, body = self.call("POST", "/api/v1/namespaces/ns-1/configmaps",
                                 "alice-token", cm)
        self.assertEqual(status, 201, body)
        self.assertEqual(body["metadata"]["name"], "alice-cm")

        status, body = self.call("POST", "/api/v1/namespaces/ns-2/configmaps",
                                 "alice-token", cm)
        self.assertEqual(body, forbidden(
            'configmaps is forbidden: User "alice" cannot create resource '
            '"configmaps" in API group "" in the namespace "ns-2"',
            {"kind": "configmaps"}))

        status, body = self.call("DELETE",
                                 "/api/v1/namespaces/ns-1/configmaps/alice-cm",
                                 "alice-token")
        self.assertEqual(body, forbidden(
            'configmaps "alice-cm" is forbidden: User "alice" cannot delete '
            'resource "configmaps" in API group "" in the namespace "ns-1"',
            {"name": "alice-cm", "kind": "configmaps"}))

        status, body = self.call("DELETE", "/api/v1/namespaces/ns-1/pods",
                                 "alice-token")
        self.assertEqual(body["message"],
                         'pods is forbidden: User "alice" cannot '
                         'deletecollection resource "pods" in API group "" '
                         'in the namespace "ns-1"')

        status, body = self.call("PATCH", "/api/v1/namespaces/ns-1/pods/x",
                                 "alice-token", {})
        self.assertIn('cannot patch resource "pods"', body["message"])

        # the admin token is a super user
        status, _ = self.call("DELETE",
                              "/api/v1/namespaces/ns-1/configmaps/alice-cm",
                              ADMIN)
        self.assertEqual(status, 200)

    def test_group_and_wildcard_rules(self):
        # bob is in viewers: list * in * namespaces, cluster-wide too
        for path in ("/api/v1/pods", "/api/v1/namespaces/ns-3/configmaps",
                     "/apis/coordination.k8s.io/v1/leases"):
            self.assertEqual(self.get(path, "bob-token")[0], 200, path)
        # ... but only list
        status, body = self.get("/api/v1/namespaces/ns-3/pods/web-3",
                                "bob-token")
        self.assertEqual((status, body["reason"]), (403, "Forbidden"))
        self.assertIn('User "bob" cannot get resource "pods"', body["message"])
        # alice's group team-a may get her namespace object (its namespace
        # attribute is its own name, as in the apiserver)
        self.assertEqual(self.get("/api/v1/namespaces/ns-1", "alice-token")[0], 200)
        status, body = self.get("/api/v1/namespaces/ns-2", "alice-token")
        self.assertEqual(body, forbidden(
            'namespaces "ns-2" is forbidden: User "alice" cannot get resource '
            '"namespaces" in API group "" in the namespace "ns-2"',
            {"name": "ns-2", "kind": "namespaces"}))
        # carol has no rule at all
        status, body = self.get("/api/v1/namespaces/ns-1/pods", "carol-token")
        self.assertEqual(status, 403)
        self.assertIn('User "carol" cannot list', body["message"])

    # --- reviews --------------------------------------------------------------

    def token_review(self, token, caller=ADMIN, audiences=None):
        spec = {"token": token}
        if audiences is not None:
            spec["audiences"] = audiences
        return self.call("POST", "/apis/authentication.k8s.io/v1/tokenreviews",
                         caller, {"apiVersion": "authentication.k8s.io/v1",
                                  "kind": "TokenReview", "spec": spec})

    def sar(self, spec, caller=ADMIN):
        return self.call(
            "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews",
            caller, {"apiVersion": "authorization.k8s.io/v1",
                     "kind": "SubjectAccessReview", "spec": spec})

    def test_token_review(self):
        before = self.stats()["tokenReviews"]
        status, body = self.token_review("alice-token")
        self.assertEqual(status, 201)
        self.assertEqual(body["kind"], "TokenReview")
        self.assertEqual(body["apiVersion"], "authentication.k8s.io/v1")
        self.assertEqual(body["spec"], {"token": "alice-token"})
        self.assertEqual(body["status"], {
            "authenticated": True,
            "user": {"username": "alice", "uid": "1001",
                     "groups": ["dev", "team-a", "system:authenticated"]},
            "audiences": ["https://kubernetes.default.svc.cluster.local"]})

        status, body = self.token_review("bob-token")
        self.assertEqual(body["status"]["user"]["groups"],
                         ["viewers", "system:authenticated"])
        status, body = self.token_review("carol-token")
        self.assertEqual(body["status"]["user"],
                         {"username": "carol", "uid": "1003",
                          "groups": ["system:authenticated"]})
        # the admin token reviews as the super user
        status, body = self.token_review(ADMIN)
        self.assertEqual(body["status"]["user"]["groups"],
                         ["system:masters", "system:authenticated"])

        # unknown: authenticated false is omitted, as the apiserver's
        # omitempty does
        status, body = self.token_review("nope")
        self.assertEqual(status, 201)
        self.assertEqual(body["status"], {"user": {},
                                          "error": "invalid bearer token"})
        self.assertFalse(body["status"].get("authenticated", False))
        # an audience the apiserver is not
        status, body = self.token_review("alice-token", audiences=["other"])
        self.assertEqual(body["status"]["error"], "invalid bearer token")
        self.assertEqual(self.stats()["tokenReviews"], before + 6)

        # no token: 400, not counted
        status, body = self.call("POST",
                                 "/apis/authentication.k8s.io/v1/tokenreviews",
                                 ADMIN, {"spec": {}})
        self.assertEqual((status, body["reason"], body["message"]),
                         (400, "BadRequest", "token is required for "
                          "TokenReview in authentication"))
        self.assertEqual(self.stats()["tokenReviews"], before + 6)

    def test_reviews_need_create_permission(self):
        status, body = self.token_review("bob-token", caller="alice-token")
        self.assertEqual(body, forbidden(
            'tokenreviews.authentication.k8s.io is forbidden: User "alice" '
            'cannot create resource "tokenreviews" in API group '
            '"authentication.k8s.io" at the cluster scope',
            {"group": "authentication.k8s.io", "kind": "tokenreviews"}))
        status, body = self.sar({"user": "bob", "resourceAttributes": {
            "verb": "list", "resource": "pods"}}, caller="bob-token")
        self.assertEqual(status, 403)
        self.assertEqual(body["details"], {"group": "authorization.k8s.io",
                                           "kind": "subjectaccessreviews"})

    def test_subject_access_review(self):
        before = self.stats()["subjectAccessReviews"]
        alice = {"user": "alice", "uid": "1001",
                 "groups": ["dev", "team-a", "system:authenticated"]}

        def attrs(**ra):
            ra.setdefault("version", "v1")
            return dict(alice, resourceAttributes=ra)

        status, body = self.sar(attrs(namespace="ns-1", verb="list",
                                      resource="pods"))
        self.assertEqual(status, 201)
        self.assertEqual(body["kind"], "SubjectAccessReview")
        self.assertEqual(body["spec"]["user"], "alice")
        self.assertEqual(body["status"], {
            "allowed": True,
            "reason": "allowed by --authz line 2: alice get,list,watch pods ns-1"})

        for ns, verb, res, sub in (("ns-2", "list", "pods", ""),   # other ns
                                   ("", "list", "pods", ""),       # cluster-wide
                                   ("ns-1", "delete", "pods", ""),
                                   ("ns-1", "get", "pods", "log")):
            status, body = self.sar(attrs(namespace=ns, verb=verb,
                                          resource=res, subresource=sub))
            self.assertEqual(body["status"], {"allowed": False},
                             (ns, verb, res, sub))

        # groups decide: the same question for a viewer, cluster-wide
        status, body = self.sar({"user": "someone", "groups": ["viewers"],
                                 "resourceAttributes": {"verb": "list",
                                                        "resource": "pods"}})
        self.assertTrue(body["status"]["allowed"])
        self.assertIn("viewers list * *", body["status"]["reason"])
        # system:masters may do anything
        status, body = self.sar({"user": "x", "groups": ["system:masters"],
                                 "resourceAttributes": {"verb": "delete",
                                                        "resource": "nodes"}})
        self.assertEqual(body["status"], {"allowed": True})
        # non-resource: discovery is open, other paths need a rule
        status, body = self.sar(dict(alice, nonResourceAttributes={
            "path": "/api/v1", "verb": "get"}))
        self.assertTrue(body["status"]["allowed"])
        status, body = self.sar(dict(alice, nonResourceAttributes={
            "path": "/metrics", "verb": "get"}))
        self.assertEqual(body["status"], {"allowed": False})
        self.assertEqual(self.stats()["subjectAccessReviews"], before + 9)

        # invalid: 422, not counted
        status, body = self.sar({"resourceAttributes": {"verb": "get"}})
        self.assertEqual((status, body["reason"]), (422, "Invalid"))
        self.assertEqual(body["message"],
                         'SubjectAccessReview.authorization.k8s.io "" is '
                         'invalid: spec.user: Invalid value: "": at least one '
                         'of user or group must be specified')
        status, body = self.sar({"user": "alice"})
        self.assertEqual(status, 422)
        self.assertEqual(self.stats()["subjectAccessReviews"], before + 9)

    def test_review_decisions_match_the_api(self):
        """A SubjectAccessReview answers what the same request gets."""
        cases = [("alice-token", "/api/v1/namespaces/ns-1/pods", "list", "ns-1"),
                 ("alice-token", "/api/v1/namespaces/ns-2/pods", "list", "ns-2"),
                 ("alice-token", "/api/v1/pods", "list", ""),
                 ("bob-token", "/api/v1/pods", "list", "")]
        for token, path, verb, ns in cases:
            _, tr = self.token_review(token)
            user = tr["status"]["user"]
            _, sar = self.sar({"user": user["username"],
                               "groups": user["groups"],
                               "resourceAttributes": {
                                   "namespace": ns, "verb": verb,
                                   "version": "v1", "resource": "pods"}})
            status, _ = self.get(path, token)
            self.assertEqual(sar["status"]["allowed"], status == 200,
                             (token, path, status))

    def test_stats_keep_their_fields(self):
        s = self.stats()
        self.assertIn("pods", s["resources"])
        self.assertIn("compactedRV", s)
        self.assertIsInstance(s["tokenReviews"], int)
        self.assertIsInstance(s["subjectAccessReviews"], int)


class FakeAuthFlags(unittest.TestCase):
    """Without --authz every authenticated user may do anything; bad files
    are refused at start without echoing a token."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="fake-auth-flags-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_users_without_authz(self):
        srv = harness.fake("--users", self.write("u", USERS), "--quiet",
                           seed="pods=4")
        self.addCleanup(srv.stop)
        h = {"Authorization": "Bearer carol-token"}
        self.assertEqual(harness.request("GET", srv.url + "/api/v1/pods",
                                         headers=h)[0], 200)
        status, _, raw = harness.request(
            "POST", srv.url + "/apis/authorization.k8s.io/v1/subjectaccessreviews",
            headers=h, body={"spec": {"user": "x", "resourceAttributes": {
                "verb": "delete", "resource": "pods"}}})
        self.assertEqual((status, json.loads(raw)["status"]),
                         (201, {"allowed": True}))
        self.assertEqual(harness.request("GET", srv.url + "/api/v1/pods")[0], 401)
        self.assertNotIn("carol-token", srv.logs())

    def test_bad_files_are_refused(self):
        import subprocess
        binary = os.path.join(harness.BIN, "fake-apiserver")
        cases = [
            (["--users", self.write("u1", 'secret-tok,alice\n')],
             "line 1: want at least 3 columns (token, user name, user uid), found 2"),
            (["--users", self.write("u2", 'secret-tok,alice,1,"dev\n')],
             "line 1: unterminated quote"),
            (["--authz", self.write("a1", "alice get pods\n")],
             "line 1: want USER_OR_GROUP VERB RESOURCE NAMESPACE [NAMES], found 3 columns"),
            (["--users", os.path.join(self.tmp, "missing")],
             "No such file or directory"),
        ]
        for args, want in cases:
            p = subprocess.run([binary, "--listen", "127.0.0.1:0"] + args,
                               capture_output=True, text=True, timeout=20)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn(want, p.stderr)
            self.assertNotIn("secret-tok", p.stderr + p.stdout)


if __name__ == "__main__":
    unittest.main()
