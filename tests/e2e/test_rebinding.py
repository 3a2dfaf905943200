"""DNS rebinding: with --client-auth=none the proxy acts with its own
credentials, so a web page whose name is made to resolve to 127.0.0.1
must not be able to use it from a browser on the same machine. Such a
request carries the page's name in Host and, when it is a cross-origin
one, the page's origin in Origin: both are refused (403), for reads and
for writes, before anything reaches the upstream.

Here a "browser" is a plain HTTP request with the headers a browser would
send; kubectl, the Python client and plain requests to 127.0.0.1:PORT and
localhost:PORT must go on working, and so must the probes, which kubelet
sends with the pod IP as Host, and the unix socket.
"""
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import unittest

import harness as h

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "clients"))
import clients as c  # noqa: E402

EVIL = "attacker.example.com"
CM_PATH = "/api/v1/namespaces/ns-1/configmaps"


def port_of(url):
    return int(url.rsplit(":", 1)[1])


def send(url, method, path, headers, body=None, unix=None):
    """One request with exactly these headers (Host included); returns
    (status, headers as a dict of lower-case names, body bytes)."""
    if unix:
        conn = http.client.HTTPConnection("localhost", timeout=30)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(30)
        s.connect(unix)
        conn.sock = s
    else:
        host = url.split("//")[1].rsplit(":", 1)[0].strip("[]")
        conn = http.client.HTTPConnection(host, port_of(url), timeout=30)
    hdrs = dict(headers)
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        hdrs["Content-Type"] = "application/json"
    conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
    for k, v in hdrs.items():
        conn.putheader(k, v)
    if data is not None:
        conn.putheader("Content-Length", str(len(data)))
    conn.endheaders(data)
    r = conn.getresponse()
    out = (r.status, {k.lower(): v for k, v in r.getheaders()}, r.read())
    conn.close()
    return out


def configmap(name):
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": "ns-1"}, "data": {"a": "b"}}


class Rebinding(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fake = h.fake("--quiet", seed="pods=5,configmaps=3,services=2")
        cls.dir = tempfile.mkdtemp(prefix="rebind-")
        cls.sock = os.path.join(cls.dir, "proxy.sock")
        try:
            cls.proxy = h.proxy(cls.fake.url, "pods,configmaps", "--unix-socket", cls.sock)
            h.wait_ready(cls.proxy.url)
        except Exception:
            cls.fake.stop(check=False)
            raise
        cls.port = port_of(cls.proxy.url)

    @classmethod
    def tearDownClass(cls):
        cls.proxy.stop()
        cls.fake.stop()

    def on_fake(self, name):
        return h.request("GET", self.fake.url + CM_PATH + "/" + name)[0]

    def assert_refused(self, status, hdrs, body, flag):
        self.assertEqual(status, 403, body[:300])
        st = json.loads(body)
        self.assertEqual(st["kind"], "Status")
        self.assertEqual(st["reason"], "Forbidden")
        self.assertEqual(st["code"], 403)
        self.assertIn(flag, st["message"])
        self.assertFalse([k for k in hdrs if k.startswith("access-control-")], hdrs)

    def test_foreign_host_is_refused_read_and_write(self):
        for host in (EVIL, "%s:%d" % (EVIL, self.port), "localhost.%s:%d" % (EVIL, self.port),
                     "127.0.0.1.nip.io:%d" % self.port):
            hdrs = {"Host": host}
            for path in ("/api/v1/namespaces/kube-system/secrets",   # passed through
                         "/api/v1/pods", "/api/v1/namespaces/ns-1/configmaps",  # cached
                         "/api", "/version"):
                self.assert_refused(*send(self.proxy.url, "GET", path, hdrs), "--accept-hosts")
            name = "rebound-" + host.split(":")[0].replace(".", "-")
            self.assert_refused(*send(self.proxy.url, "POST", CM_PATH, hdrs, configmap(name)),
                                "--accept-hosts")
            self.assertEqual(self.on_fake(name), 404, "the write reached the upstream")

    def test_foreign_origin_is_refused_with_an_allowed_host(self):
        for origin in ("http://%s" % EVIL, "http://localhost:%d" % self.port, "null"):
            hdrs = {"Host": "127.0.0.1:%d" % self.port, "Origin": origin}
            self.assert_refused(*send(self.proxy.url, "GET", "/api/v1/pods", hdrs),
                                "--accept-origins")
            self.assert_refused(*send(self.proxy.url, "GET",
                                      "/api/v1/namespaces/kube-system/secrets", hdrs),
                                "--accept-origins")
            self.assert_refused(*send(self.proxy.url, "POST", CM_PATH, hdrs,
                                      configmap("from-origin")), "--accept-origins")
        self.assertEqual(self.on_fake("from-origin"), 404, "the write reached the upstream")

    def test_no_cors_preflight(self):
        hdrs = {"Host": "localhost:%d" % self.port, "Origin": "http://%s" % EVIL,
                "Access-Control-Request-Method": "POST"}
        self.assert_refused(*send(self.proxy.url, "OPTIONS", CM_PATH, hdrs), "--accept-origins")
        # an allowed request gets no CORS headers either
        s, got, _ = send(self.proxy.url, "GET", "/api/v1/pods", {"Host": "localhost:%d" % self.port})
        self.assertEqual(s, 200)
        self.assertFalse([k for k in got if k.startswith("access-control-")], got)

    def test_loopback_names_work(self):
        for i, host in enumerate(("127.0.0.1:%d" % self.port, "localhost:%d" % self.port,
                                  "LocalHost:%d" % self.port, "127.0.0.1")):
            hdrs = {"Host": host}
            for path in ("/api/v1/pods", "/api/v1/namespaces/ns-1/configmaps", "/api",
                         "/api/v1/services"):  # passed through
                s, _, b = send(self.proxy.url, "GET", path, hdrs)
                self.assertEqual(s, 200, (host, path, b[:200]))
            s, _, b = send(self.proxy.url, "POST", CM_PATH, hdrs, configmap("local-%d" % i))
            self.assertEqual(s, 201, b[:300])
            self.assertEqual(self.on_fake("local-%d" % i), 200)
        # urllib, as the other tests use it
        self.assertEqual(h.request("GET", self.proxy.url + "/api/v1/pods")[0], 200)

    def test_probes_answer_any_host(self):
        # kubelet's httpGet sends Host: <pod IP>:<port>
        for path in ("/healthz", "/livez", "/readyz", "/readyz/upstream", "/metrics"):
            s, _, b = send(self.proxy.url, "GET", path, {"Host": "10.1.2.3:%d" % self.port})
            self.assertEqual(s, 200, (path, b[:200]))

    def test_unix_socket_is_not_subject(self):
        # no browser reaches a unix socket; clients send what they like
        for host in ("localhost", "%2Ftmp%2Fproxy.sock", EVIL):
            s, _, b = send(None, "GET", "/api/v1/pods", {"Host": host}, unix=self.sock)
            self.assertEqual(s, 200, (host, b[:200]))

    def test_kubectl_and_python_client(self):
        k = c.Kubectl(self.proxy.url)
        out = k.out("get", "pods", "-n", "ns-1", "-o", "name")
        self.assertIn("pod/", out)
        api = c.python_core_api(self.proxy.url)
        self.assertTrue(api.list_namespaced_config_map("ns-1").items)


class Widened(unittest.TestCase):
    def test_accept_hosts_and_origins(self):
        f, p = h.fake_and_proxy(self, "pods", r"--accept-hosts=^my-proxy\.internal$,\.svc$",
                                "--accept-origins=http://dash.internal:3000,https://x.example")
        port = port_of(p.url)
        for host in ("my-proxy.internal:%d" % port, "MY-PROXY.internal", "p.ns.svc:%d" % port,
                     "127.0.0.1:%d" % port):   # the --listen host stays
            s, _, b = send(p.url, "GET", "/api/v1/pods", {"Host": host})
            self.assertEqual(s, 200, (host, b[:200]))
        for host in ("localhost:%d" % port, "my-proxy.internal.evil:%d" % port, EVIL):
            s, _, _ = send(p.url, "GET", "/api/v1/pods", {"Host": host})
            self.assertEqual(s, 403, host)
        hdrs = {"Host": "my-proxy.internal:%d" % port}
        for origin, want in (("http://dash.internal:3000", 200), ("https://x.example", 200),
                             ("http://dash.internal:3001", 403), ("http://dash.internal", 403)):
            s, got, _ = send(p.url, "GET", "/api/v1/pods", dict(hdrs, Origin=origin))
            self.assertEqual(s, want, origin)
            self.assertFalse([k for k in got if k.startswith("access-control-")], got)

    def test_bad_pattern_is_refused_at_startup(self):
        for flag, want in (("--accept-hosts=^ok$,(unclosed", "--accept-hosts"),
                           ("--accept-origins=ftp://x", "--accept-origins")):
            r = subprocess.run([os.path.join(h.BIN, "informer-proxy"), "--listen", "127.0.0.1:0",
                                "--server", "http://127.0.0.1:1", "--resources", "pods", flag],
                               capture_output=True, text=True, timeout=30)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn(want, r.stderr + r.stdout)

    def test_ipv6_loopback(self):
        try:
            s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
            s.bind(("::1", 0))
            s.close()
        except OSError:
            self.skipTest("this machine has no IPv6 loopback")
        f = h.fake("--quiet", seed="pods=2")
        self.addCleanup(f.stop)
        p = h.Server("informer-proxy", [os.path.join(h.BIN, "informer-proxy"), "--listen",
                                        "[::1]:0", "--server", f.url, "--resources", "pods"])
        self.addCleanup(p.stop)
        h.wait_ready(p.url)
        port = port_of(p.url)
        for host, want in (("[::1]:%d" % port, 200), ("[::1]", 200), ("localhost:%d" % port, 200),
                           ("[::2]:%d" % port, 403), ("::1", 403)):
            s, _, _ = send(p.url, "GET", "/api/v1/pods", {"Host": host})
            self.assertEqual(s, want, host)


if __name__ == "__main__":
    unittest.main()
