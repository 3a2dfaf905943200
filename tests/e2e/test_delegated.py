"""--client-auth=delegated against the fake apiserver's token users and
rules (--users, --authz): who may read what from the cache, and what the
upstream sees of a write.

alice may read pods and write configmaps in ns-1 only; bob (group
readers) may list pods everywhere; carol may only get pods in ns-1. The
proxy itself uses an admin token.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "clients"))
sys.path.insert(0, HERE)
import certs  # noqa: E402
import clients as c  # noqa: E402
import harness as h  # noqa: E402

PROXY_TOKEN = "proxy-admin-7f1d2e"
ALICE, BOB, CAROL = "alice-tok-51c0", "bob-tok-9e2a", "carol-tok-04d7"


def stats(fake):
    return h.get_json(fake.url + "/fake/stats")[1]


def metrics(proxy):
    out = {}
    for line in h.request("GET", proxy.url + "/metrics",
                          headers={"Authorization": "Bearer " + PROXY_TOKEN})[2].decode().splitlines():
        if line and not line.startswith("#"):
            k, v = line.rsplit(" ", 1)
            out[k] = float(v)
    return out


def as_(token):
    return {"Authorization": "Bearer " + token} if token else {}


class Delegated(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        d = tempfile.mkdtemp(prefix="delegated-")
        users = os.path.join(d, "users.csv")
        with open(users, "w") as f:
            f.write('%s,alice,uid-alice\n%s,bob,uid-bob,"readers,staff"\n'
                    '%s,carol,uid-carol\n' % (ALICE, BOB, CAROL))
        rules = os.path.join(d, "authz")
        with open(rules, "w") as f:
            f.write("# who may do what\n"
                    "alice get pods ns-1\nalice list pods ns-1\nalice watch pods ns-1\n"
                    "alice create configmaps ns-1\n"
                    "readers list pods *\n"
                    "carol get pods ns-1\n")
        cls.fake = h.fake("--token", PROXY_TOKEN, "--users", users, "--authz", rules,
                          seed="pods=20,configmaps=10")
        cls.spy, cls.proxy = h.proxy_via_spy(cls.fake, PROXY_TOKEN, d, "pods",
                                             "--client-auth", "delegated")

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.fake.stop()
        cls.spy.close()

    def get(self, path, token):
        s, _, raw = h.request("GET", self.proxy.url + path, headers=as_(token))
        return s, (json.loads(raw) if raw.startswith(b"{") else raw)

    def status(self, path, token, code, reason, message=None):
        s, st = self.get(path, token)
        self.assertEqual((s, st["kind"], st["reason"], st["code"]), (code, "Status", reason, code),
                         (path, st))
        if message:
            self.assertEqual(st["message"], message)
        return st

    def test_no_or_unknown_token_is_401(self):
        for path in ("/api/v1/namespaces/ns-1/pods", "/api/v1/namespaces/ns-1/pods/web-1",
                     "/api/v1/namespaces/ns-1/pods?watch=1", "/api", "/metrics",
                     "/api/v1/namespaces/ns-1/services"):
            for tok in (None, "nobody-knows-me"):
                self.status(path, tok, 401, "Unauthorized", "Unauthorized")
        s, _, raw = h.request("POST", self.proxy.url + "/api/v1/namespaces/ns-1/configmaps",
                              body={"apiVersion": "v1", "kind": "ConfigMap",
                                    "metadata": {"name": "anon"}})
        self.assertEqual(s, 401, raw[:200])
        # health checks need nothing (kubelet probes)
        self.assertEqual(h.request("GET", self.proxy.url + "/readyz")[0], 200)

    def test_a_namespace_grant_is_not_a_cluster_grant(self):
        s, lst = self.get("/api/v1/namespaces/ns-1/pods", ALICE)
        self.assertEqual(s, 200)
        self.assertTrue(lst["items"])
        s, pod = self.get("/api/v1/namespaces/ns-1/pods/web-1", ALICE)
        self.assertEqual((s, pod["metadata"]["name"]), (200, "web-1"))
        w = h.Watch(self.proxy.url + "/api/v1/namespaces/ns-1/pods?watch=1&resourceVersion=0")
        w.close()
        self.assertEqual(w.status, 401)   # the Watch helper sends no token
        self.status("/api/v1/pods", ALICE, 403, "Forbidden",
                    'pods is forbidden: User "alice" cannot list resource "pods" in API '
                    'group "" at the cluster scope')
        self.status("/api/v1/namespaces/ns-2/pods", ALICE, 403, "Forbidden",
                    'pods is forbidden: User "alice" cannot list resource "pods" in API '
                    'group "" in the namespace "ns-2"')
        st = self.status("/api/v1/namespaces/ns-2/pods/web-2", ALICE, 403, "Forbidden",
                         'pods "web-2" is forbidden: User "alice" cannot get resource "pods" '
                         'in API group "" in the namespace "ns-2"')
        self.assertEqual(st["details"], {"name": "web-2", "kind": "pods"})
        self.status("/api/v1/pods?watch=true", ALICE, 403, "Forbidden",
                    'pods is forbidden: User "alice" cannot watch resource "pods" in API '
                    'group "" at the cluster scope')
        self.status("/api/v1/namespaces/ns-2/pods?watch=true", ALICE, 403, "Forbidden")
        # a group grant: bob lists everywhere, but may not get or watch
        s, lst = self.get("/api/v1/pods", BOB)
        self.assertEqual((s, len(lst["items"])), (200, 20))
        self.status("/api/v1/namespaces/ns-1/pods/web-1", BOB, 403, "Forbidden")
        # discovery needs authentication only
        self.assertEqual(self.get("/api", BOB)[0], 200)

    def test_watch_with_a_token(self):
        import http.client
        host, port = self.proxy.url.split("//")[1].split(":")
        c = http.client.HTTPConnection(host, int(port), timeout=10)
        c.request("GET", "/api/v1/namespaces/ns-1/pods?watch=1&resourceVersion=0",
                  headers=as_(ALICE))
        r = c.getresponse()
        self.assertEqual(r.status, 200)
        ev = json.loads(r.readline())
        self.assertEqual(ev["type"], "ADDED")
        self.assertEqual(ev["object"]["metadata"]["namespace"], "ns-1")
        c.close()

    def test_get_with_watch_is_a_get(self):
        """?watch=true on a named object's path is a plain GET, as the
        apiserver serves it: authorized as get and answered with the
        object, never a stream replaying its past versions. Watching one
        object is the collection's watch with fieldSelector=metadata.name,
        authorized as watch."""
        path = "/api/v1/namespaces/ns-1/pods/web-1"
        s, old = self.get(path, CAROL)
        self.assertEqual(s, 200, old)
        old_rv = old["metadata"]["resourceVersion"]
        s, _, raw = h.request("PATCH", self.fake.url + path, headers={
            "Authorization": "Bearer " + PROXY_TOKEN,
            "Content-Type": "application/merge-patch+json"},
            body=b'{"metadata":{"labels":{"rotated":"yes"}}}')
        self.assertEqual(s, 200, raw[:300])
        new_rv = json.loads(raw)["metadata"]["resourceVersion"]
        # resourceVersion=0 is answered from the cache alone (a read without
        # one may be passed upstream while the cache catches up), and a GET
        # at an older resourceVersion may answer any version not older
        h.wait_until(lambda: self.get(path + "?resourceVersion=0", CAROL)[1]
                     ["metadata"]["resourceVersion"] == new_rv,
                     what="the patch in the cache")
        for q in ("?watch=true&resourceVersion=%s&timeoutSeconds=2" % old_rv,
                  "?watch=1&timeoutSeconds=2", "?watch=&timeoutSeconds=2"):
            s, hdrs, raw = h.request("GET", self.proxy.url + path + q, headers=as_(CAROL))
            self.assertEqual(s, 200, (q, raw[:300]))
            self.assertNotEqual(hdrs.get("Transfer-Encoding"), "chunked", q)
            pod = json.loads(raw)   # one object, not a stream of events
            self.assertEqual((pod.get("kind"), pod["metadata"]["name"],
                              pod["metadata"]["resourceVersion"]), ("Pod", "web-1", new_rv), q)
            self.assertEqual(pod["metadata"]["labels"].get("rotated"), "yes", q)
        self.status("/api/v1/namespaces/ns-1/pods?fieldSelector=metadata.name%3Dweb-1&watch=true",
                    CAROL, 403, "Forbidden",
                    'pods "web-1" is forbidden: User "carol" cannot watch resource "pods" in API '
                    'group "" in the namespace "ns-1"')
        self.status("/api/v1/watch/namespaces/ns-1/pods/web-1", CAROL, 403, "Forbidden")
        # alice may watch: the field-selector form is a watch of that one pod
        import http.client
        host, port = self.proxy.url.split("//")[1].split(":")
        c = http.client.HTTPConnection(host, int(port), timeout=10)
        c.request("GET", "/api/v1/namespaces/ns-1/pods?fieldSelector=metadata.name%3Dweb-1"
                  "&watch=true&resourceVersion=0", headers=as_(ALICE))
        r = c.getresponse()
        self.assertEqual(r.status, 200)
        ev = json.loads(r.readline())
        self.assertEqual((ev["type"], ev["object"]["metadata"]["name"]), ("ADDED", "web-1"))
        c.close()

    def test_writes_go_with_the_clients_token(self):
        def create(token, ns, name):
            return h.request("POST", self.proxy.url + "/api/v1/namespaces/%s/configmaps" % ns,
                             headers=as_(token),
                             body={"apiVersion": "v1", "kind": "ConfigMap",
                                   "metadata": {"name": name, "namespace": ns}})
        s, _, raw = create(ALICE, "ns-1", "by-alice")
        self.assertEqual(s, 201, raw[:300])
        s, _, raw = create(ALICE, "ns-2", "by-alice")
        self.assertEqual(s, 403, raw[:300])
        self.assertEqual(json.loads(raw)["reason"], "Forbidden")
        writes = self.spy.heads("POST /api/v1/namespaces/")
        self.assertTrue(writes)
        for _, hdrs in writes:
            self.assertEqual(hdrs.get("authorization"), "Bearer " + ALICE)
        self.assertNotIn(PROXY_TOKEN, json.dumps(writes))

    def test_decisions_are_cached(self):
        self.get("/api/v1/namespaces/ns-1/pods", ALICE)
        self.status("/api/v1/namespaces/ns-3/pods", ALICE, 403, "Forbidden")
        m0 = metrics(self.proxy)   # the admin's own review happens here, not below
        before = stats(self.fake)
        for _ in range(20):
            self.assertEqual(self.get("/api/v1/namespaces/ns-1/pods", ALICE)[0], 200)
            self.assertEqual(self.get("/api/v1/namespaces/ns-3/pods", ALICE)[0], 403)
        after = stats(self.fake)
        m1 = metrics(self.proxy)
        self.assertEqual(after["tokenReviews"], before["tokenReviews"])
        self.assertEqual(after["subjectAccessReviews"], before["subjectAccessReviews"])
        hits = 'informer_proxy_authn_cache_hits_total{kind="SubjectAccessReview"}'
        self.assertGreaterEqual(m1[hits] - m0[hits], 40)
        self.assertGreaterEqual(m1['informer_proxy_authn_decisions_total{decision="forbidden"}']
                                - m0['informer_proxy_authn_decisions_total{decision="forbidden"}'], 20)


class SlowReviews(unittest.TestCase):
    """An upstream that stops answering reviews, and clients sending
    tokens it has never seen: their requests wait, suspended, without
    holding a request thread, so a client whose decision is cached is
    still answered at once."""

    def test_misses_cannot_hold_every_thread(self):
        import signal
        import threading
        import time
        d = tempfile.mkdtemp(prefix="delegated-slow-")
        users = os.path.join(d, "users.csv")
        with open(users, "w") as f:
            f.write('%s,alice,uid-alice\n' % ALICE)
        rules = os.path.join(d, "authz")
        with open(rules, "w") as f:
            f.write("alice get,list,watch pods ns-1\n")
        fake = h.fake("--token", PROXY_TOKEN, "--users", users, "--authz", rules,
                      "--quiet", seed="pods=10")
        self.addCleanup(fake.stop)
        kc = certs.kubeconfig(d, fake.url, token=PROXY_TOKEN)
        proxy = h.proxy(fake.url, "pods", "--kubeconfig", kc, "--client-auth", "delegated",
                        "--threads", "2")
        self.addCleanup(proxy.stop)
        h.wait_ready(proxy.url)
        path = proxy.url + "/api/v1/namespaces/ns-1/pods?resourceVersion=0"
        self.assertEqual(h.request("GET", path, headers=as_(ALICE))[0], 200)
        reviews = 'informer_proxy_authn_reviews_total{kind="TokenReview"}'
        n0 = metrics(proxy)[reviews]     # also caches the admin's own decision
        os.kill(fake.proc.pid, signal.SIGSTOP)
        self.addCleanup(lambda: os.kill(fake.proc.pid, signal.SIGCONT))
        first = {}
        th = threading.Thread(target=lambda: first.update(
            r=h.request("GET", path, headers=as_("never-seen-1"), timeout=60)), daemon=True)
        th.start()
        # the first review is on its way to the frozen upstream
        h.wait_until(lambda: metrics(proxy)[reviews] > n0, timeout=10,
                     what="a TokenReview in flight")
        # more unknown tokens than request threads: all wait, none blocks
        more = []
        for i in range(6):
            t = threading.Thread(target=lambda i=i: more.append(h.request(
                "GET", path, headers=as_("never-seen-%d" % (i + 2)), timeout=60)),
                daemon=True)
            t.start()
        # unknown tokens get two of the four reviewers, never more
        h.wait_until(lambda: metrics(proxy)[reviews] >= n0 + 2, timeout=10,
                     what="the strangers' reviewers busy")
        for _ in range(10):
            t = time.time()
            self.assertEqual(h.request("GET", path, headers=as_(ALICE), timeout=10)[0], 200)
            self.assertLess(time.time() - t, 2.0)
        os.kill(fake.proc.pid, signal.SIGCONT)
        th.join(40)
        self.assertEqual(first["r"][0], 401)
        h.wait_until(lambda: len(more) == 6, timeout=40, what="the waiting requests")
        self.assertEqual(sorted(r[0] for r in more), [401] * 6)


class KubectlOverHttps(unittest.TestCase):
    """kubectl with a token in its kubeconfig, through a proxy serving
    HTTPS with --client-auth=delegated: what a pod on the node does when
    the chart's DaemonSet mode is on."""

    @classmethod
    def setUpClass(cls):
        d = cls.tmp = tempfile.mkdtemp(prefix="delegated-tls-")
        users = os.path.join(d, "users.csv")
        with open(users, "w") as f:
            f.write('%s,alice,uid-alice\n' % ALICE)
        rules = os.path.join(d, "authz")
        with open(rules, "w") as f:
            f.write("alice get,list,watch pods ns-1\n")
        cls.pki = certs.make_pki(os.path.join(d, "pki"))
        crt, key = os.path.join(d, "tls.crt"), os.path.join(d, "tls.key")
        shutil.copy(cls.pki["server_cert"], crt)
        shutil.copy(cls.pki["server_key"], key)
        cls.fake = h.fake("--token", PROXY_TOKEN, "--users", users, "--authz", rules,
                          seed="pods=20")
        kc = certs.kubeconfig(d, cls.fake.url, token=PROXY_TOKEN, name="proxy.kubeconfig")
        cls.proxy = h.proxy(cls.fake.url, "pods", "--kubeconfig", kc,
                            "--client-auth", "delegated", "--tls-cert-file", crt,
                            "--tls-private-key-file", key)
        assert cls.proxy.url.startswith("https://"), cls.proxy.url
        cls.undo = h.register(cls.proxy.url, cls.pki["ca"])
        h.wait_ready(cls.proxy.url)

    @classmethod
    def tearDownClass(cls):
        cls.undo()
        cls.proxy.stop()
        cls.fake.stop()

    def kubectl(self, token, *args, ok=True):
        k = c.Kubectl(self.proxy.url)
        kc = certs.kubeconfig(tempfile.mkdtemp(dir=self.tmp), self.proxy.url, self.pki,
                              token=token)
        p = subprocess.run([k.bin, "--kubeconfig", kc, "--cache-dir",
                            tempfile.mkdtemp(dir=self.tmp), "--request-timeout", "20s",
                            *args], capture_output=True, text=True, timeout=60, env=k.env,
                           stdin=subprocess.DEVNULL)
        if ok:
            self.assertEqual(p.returncode, 0, "kubectl %s:\n%s%s" % (
                " ".join(args), p.stdout[-2000:], p.stderr[-2000:]))
        return p

    def test_kubectl_reads_what_it_may(self):
        header, rows = c.table(self.kubectl(ALICE, "get", "pods", "-n", "ns-1").stdout)
        self.assertEqual(header[0], "NAME")
        s, _, raw = h.request("GET", self.fake.url + "/api/v1/namespaces/ns-1/pods",
                              headers=as_(PROXY_TOKEN))
        want = json.loads(raw)
        self.assertTrue(want["items"])
        self.assertEqual(sorted(r[0] for r in rows),
                         sorted(o["metadata"]["name"] for o in want["items"]))
        raw = json.loads(self.kubectl(ALICE, "get", "--raw",
                                      "/api/v1/namespaces/ns-1/pods/web-1").stdout)
        self.assertEqual(raw["metadata"]["name"], "web-1")

    def test_kubectl_is_refused_what_it_may_not(self):
        p = self.kubectl(ALICE, "get", "pods", "-A", ok=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('cannot list resource "pods" in API group "" at the cluster scope',
                      p.stderr)
        p = self.kubectl("not-a-token", "get", "pods", "-n", "ns-1", ok=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("the server has asked for the client to provide credentials", p.stderr)


if __name__ == "__main__":
    unittest.main()
