"""The proxy serves HTTPS (--tls-cert-file, --tls-private-key-file).

A throwaway PKI is made at test time (certs.make_pki); the proxy serves a
copy of its server pair, which the rotation cases overwrite while the
proxy runs, as cert-manager does. Clients verify the proxy with the CA:
urllib and http.client, kubectl through a kubeconfig, the Python client.

Cases: GET, LIST and WATCH over HTTPS; plain HTTP to the TLS port fails;
kubectl and the Python client work end to end; a rotated pair is served
to new connections within seconds without a restart while open ones go
on; a garbage certificate at runtime keeps the old pair with one warning;
a missing or bad file at startup exits 1 with one line naming the file.
"""
import http.client
import json
import os
import shutil
import ssl
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "clients"))
sys.path.insert(0, HERE)
import certs  # noqa: E402
import clients as c  # noqa: E402
import harness as h  # noqa: E402

SEED = "pods=20"
EXIT_WITHIN = 15    # seconds a proxy that cannot start gets to exit


def serve_copy(pki, d):
    """The server pair copied to d (tls.crt, tls.key), as a mounted Secret
    would hold it; returns (cert path, key path)."""
    os.makedirs(d, exist_ok=True)
    crt, key = os.path.join(d, "tls.crt"), os.path.join(d, "tls.key")
    shutil.copy(pki["server_cert"], crt)
    shutil.copy(pki["server_key"], key)
    os.chmod(key, 0o600)
    return crt, key


def new_server_pair(pki, d):
    """A fresh key and certificate for 127.0.0.1, signed by pki's CA (so a
    new serial); returns (cert path, key path, serial as openssl prints)."""
    os.makedirs(d, exist_ok=True)
    key, csr, crt = (os.path.join(d, n) for n in ("new.key", "new.csr", "new.crt"))
    ext = os.path.join(d, "new.ext")
    with open(ext, "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n"
                "extendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n")
    run = lambda *a: subprocess.run(["openssl", *a], check=True, cwd=d,  # noqa: E731
                                    capture_output=True)
    run("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
        "-nodes", "-keyout", key, "-out", csr, "-subj", "/CN=localhost")
    run("x509", "-req", "-in", csr, "-CA", pki["ca"], "-CAkey", pki["ca_key"],
        "-CAcreateserial", "-out", crt, "-days", "2", "-extfile", ext)
    return crt, key, file_serial(crt)


def file_serial(path):
    return subprocess.run(["openssl", "x509", "-noout", "-serial", "-in", path],
                          check=True, capture_output=True, text=True).stdout.strip()


def replace(src, dst):
    """Write src's bytes over dst in one rename (a new inode, as the kubelet
    swaps a Secret volume)."""
    tmp = dst + ".tmp"
    shutil.copy(src, tmp)
    os.replace(tmp, dst)


def write_over(dst, data):
    tmp = dst + ".tmp"
    with open(tmp, "w") as f:
        f.write(data)
    os.replace(tmp, dst)


def hostport(url):
    u = urllib.parse.urlsplit(url)
    return u.hostname, u.port


def served_serial(url, ca):
    """The serial of the certificate a new TLS connection to url is served,
    verified against ca."""
    ctx = ssl.create_default_context(cafile=ca)
    host, port = hostport(url)
    import socket
    with socket.create_connection((host, port), timeout=10) as s:
        with ctx.wrap_socket(s, server_hostname=host) as t:
            der = t.getpeercert(binary_form=True)
    pem = ssl.DER_cert_to_PEM_cert(der)
    return subprocess.run(["openssl", "x509", "-noout", "-serial"], input=pem,
                          check=True, capture_output=True, text=True).stdout.strip()


def log_lines(server, level):
    return [ln for ln in server.logs().splitlines() if (" %s " % level) in ln]


class HTTPSWatch:
    """A WATCH over HTTPS, read line by line on the calling thread."""

    def __init__(self, url, ca, timeout=20):
        host, port = hostport(url)
        u = urllib.parse.urlsplit(url)
        self.conn = http.client.HTTPSConnection(
            host, port, timeout=timeout, context=ssl.create_default_context(cafile=ca))
        self.conn.request("GET", u.path + "?" + u.query)
        self.resp = self.conn.getresponse()
        self.status = self.resp.status

    def next(self):
        line = self.resp.readline()
        if not line:
            raise AssertionError("the watch ended")
        return json.loads(line)

    def close(self):
        self.resp.close()
        self.conn.close()


class ServeTLS(unittest.TestCase):
    """One proxy on HTTPS in front of a plain-HTTP fake, shared by the
    cases that do not change its files."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="serve-tls-")
        cls.pki = certs.make_pki(os.path.join(cls.tmp, "pki"))
        cls.crt, cls.key = serve_copy(cls.pki, os.path.join(cls.tmp, "serve"))
        cls.fake = h.fake(seed=SEED)
        try:
            cls.proxy = h.proxy(cls.fake.url, "pods", "--tls-cert-file", cls.crt,
                                "--tls-private-key-file", cls.key)
        except Exception:
            cls.fake.stop(check=False)
            raise
        cls.unregister = h.register(cls.proxy.url, cls.pki["ca"])
        h.wait_ready(cls.proxy.url)

    @classmethod
    def tearDownClass(cls):
        cls.unregister()
        cls.proxy.stop()
        cls.fake.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_listening_line_says_https(self):
        self.assertTrue(self.proxy.url.startswith("https://127.0.0.1:"), self.proxy.url)
        self.assertEqual(served_serial(self.proxy.url, self.pki["ca"]),
                         file_serial(self.pki["server_cert"]))

    def test_get_list_watch_over_https(self):
        s, want = c.get(self.fake.url, "pods", "ns-1")
        self.assertEqual(s, 200)
        s, got = c.get(self.proxy.url, "pods", "ns-1")
        self.assertEqual(s, 200, got)
        self.assertEqual(c.items_key(got["items"]), c.items_key(want["items"]))
        name = want["items"][0]["metadata"]["name"]
        s, obj = c.get(self.proxy.url, "pods", "ns-1", name)
        self.assertEqual(s, 200, obj)
        self.assertEqual((obj.pop("kind"), obj.pop("apiVersion")), ("Pod", "v1"))
        self.assertEqual(obj, want["items"][0])
        s, st = c.get(self.proxy.url, "pods", "ns-1", "no-such-pod")
        self.assertEqual((s, st["reason"]), (404, "NotFound"))

        w = HTTPSWatch(self.proxy.url + "/api/v1/namespaces/ns-1/pods?watch=true&"
                       "resourceVersion=%s" % got["metadata"]["resourceVersion"],
                       self.pki["ca"])
        try:
            self.assertEqual(w.status, 200)
            c.create(self.fake.url, "pods", "ns-1", c.simple_pod("tls-watched"))
            ev = w.next()
            self.assertEqual((ev["type"], ev["object"]["metadata"]["name"]),
                             ("ADDED", "tls-watched"))
        finally:
            w.close()
            c.delete(self.fake.url, "pods", "ns-1", "tls-watched")

    def test_plain_http_to_the_tls_port_fails(self):
        host, port = hostport(self.proxy.url)
        conn = http.client.HTTPConnection(host, port, timeout=10)
        with self.assertRaises((http.client.HTTPException, OSError)):
            conn.request("GET", "/readyz")
            conn.getresponse().read()
        conn.close()
        # and a client that does not trust the CA is refused by its own side
        other = certs.make_pki(os.path.join(self.tmp, "other"))
        with self.assertRaises(ssl.SSLCertVerificationError):
            served_serial(self.proxy.url, other["ca"])
        # neither hurt the proxy
        self.assertEqual(h.request("GET", self.proxy.url + "/readyz")[0], 200)

    def test_kubectl_with_the_ca_in_its_kubeconfig(self):
        k = c.Kubectl(self.proxy.url)   # for its binary and clean environment
        # A token, as clients of an HTTPS listener have (--client-auth
        # delegated); without any credentials kubectl would prompt for a
        # username. The fake behind the proxy takes any.
        kc = certs.kubeconfig(tempfile.mkdtemp(dir=self.tmp), self.proxy.url, self.pki,
                              token="kubectl-token")
        base = [k.bin, "--kubeconfig", kc, "--cache-dir", tempfile.mkdtemp(dir=self.tmp),
                "--request-timeout", "20s"]

        def kubectl(*args):
            p = subprocess.run(base + list(args), capture_output=True, text=True,
                               timeout=60, env=k.env, stdin=subprocess.DEVNULL)
            self.assertEqual(p.returncode, 0, "kubectl %s:\n%s%s" % (
                " ".join(args), p.stdout[-2000:], p.stderr[-2000:]))
            return p.stdout

        header, rows = c.table(kubectl("get", "pods", "-A"))
        self.assertEqual(header[:2], ["NAMESPACE", "NAME"])
        s, want = c.get(self.fake.url, "pods")
        self.assertEqual(sorted((r[0], r[1]) for r in rows),
                         sorted((o["metadata"]["namespace"], o["metadata"]["name"])
                                for o in want["items"]))
        raw = json.loads(kubectl("get", "--raw", "/api/v1/namespaces/ns-1/pods/web-1"))
        s, pod = c.get(self.fake.url, "pods", "ns-1", "web-1")
        self.assertEqual(s, 200)
        self.assertEqual(raw, pod)

    def test_python_client_with_the_ca(self):
        import kubernetes
        cfg = kubernetes.client.Configuration()
        cfg.host = self.proxy.url
        cfg.ssl_ca_cert = self.pki["ca"]
        cfg.proxy = None
        cfg.retries = False
        api = kubernetes.client.CoreV1Api(kubernetes.client.ApiClient(cfg))
        self.addCleanup(api.api_client.close)
        s, want = c.get(self.fake.url, "pods", "ns-1")
        got = api.list_namespaced_pod("ns-1")
        self.assertEqual(sorted(p.metadata.name for p in got.items),
                         sorted(o["metadata"]["name"] for o in want["items"]))
        self.assertEqual(api.read_namespaced_pod("web-1", "ns-1").metadata.name, "web-1")
        seen = [ev["object"].metadata.name for ev in kubernetes.watch.Watch().stream(
            api.list_namespaced_pod, "ns-1", resource_version="0", timeout_seconds=2)
            if ev["type"] == "ADDED"]
        self.assertEqual(sorted(seen), sorted(o["metadata"]["name"] for o in want["items"]))


class ServeTLSRotation(unittest.TestCase):
    """The files change under a running proxy; each case has its own."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="serve-tls-rot-")
        cls.pki = certs.make_pki(os.path.join(cls.tmp, "pki"))
        cls.fake = h.fake(seed=SEED)

    @classmethod
    def tearDownClass(cls):
        cls.fake.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix=self._testMethodName[:40] + "-", dir=self.tmp)
        self.crt, self.key = serve_copy(self.pki, os.path.join(self.dir, "serve"))
        self.proxy = h.proxy(self.fake.url, "pods", "--tls-cert-file", self.crt,
                             "--tls-private-key-file", self.key)
        self.addCleanup(self.proxy.stop)
        self.addCleanup(h.register(self.proxy.url, self.pki["ca"]))
        h.wait_ready(self.proxy.url)
        self.old_serial = file_serial(self.crt)
        self.assertEqual(served_serial(self.proxy.url, self.pki["ca"]), self.old_serial)

    def assert_no_key_in_log(self, *keys):
        log = self.proxy.logs()
        self.assertNotIn("PRIVATE KEY", log)
        for k in keys:
            with open(k) as f:
                body = [ln for ln in f.read().splitlines() if ln and "-----" not in ln]
            for ln in body:
                self.assertNotIn(ln, log)

    def test_rotated_pair_served_to_new_connections_without_restart(self):
        pid = self.proxy.proc.pid
        # Open before the rotation: a watch and a keep-alive connection.
        w = HTTPSWatch(self.proxy.url + "/api/v1/namespaces/ns-2/pods?watch=true&"
                       "resourceVersion=0", self.pki["ca"])
        self.addCleanup(w.close)
        host, port = hostport(self.proxy.url)
        keep = http.client.HTTPSConnection(
            host, port, timeout=20, context=ssl.create_default_context(cafile=self.pki["ca"]))
        self.addCleanup(keep.close)
        keep.request("GET", "/api/v1/namespaces/ns-2/pods")
        r = keep.getresponse()
        self.assertEqual(r.status, 200)
        r.read()

        crt, key, serial = new_server_pair(self.pki, os.path.join(self.dir, "new"))
        self.assertNotEqual(serial, self.old_serial)
        replace(key, self.key)
        replace(crt, self.crt)
        h.wait_until(lambda: served_serial(self.proxy.url, self.pki["ca"]) == serial,
                     timeout=10, interval=0.2, what="the rotated certificate served")
        self.assertEqual(self.proxy.proc.pid, pid)
        self.assertIsNone(self.proxy.proc.poll(), "the proxy restarted or died")

        # What was open before goes on.
        keep.request("GET", "/api/v1/namespaces/ns-2/pods")
        r = keep.getresponse()
        self.assertEqual(r.status, 200)
        self.assertEqual(json.loads(r.read())["kind"], "PodList")
        c.create(self.fake.url, "pods", "ns-2", c.simple_pod("after-rotation"))
        self.addCleanup(c.delete, self.fake.url, "pods", "ns-2", "after-rotation")
        for _ in range(100):
            ev = w.next()
            if ev["object"]["metadata"]["name"] == "after-rotation":
                break
        self.assertEqual(ev["type"], "ADDED")
        # New requests, through the harness, verified by the same CA.
        self.assertEqual(h.request("GET", self.proxy.url + "/readyz")[0], 200)
        reloaded = [ln for ln in log_lines(self.proxy, "info") if "reloaded" in ln]
        self.assertEqual(len(reloaded), 1, self.proxy.logs()[-3000:])
        self.assertIn(serial.split("=")[1], reloaded[0])
        self.assertEqual(log_lines(self.proxy, "warning"), [])
        self.assert_no_key_in_log(self.key, self.pki["server_key"])

    def test_garbage_cert_keeps_the_old_pair_with_one_warning(self):
        write_over(self.crt, "this is not a certificate\n")
        # The files are checked from handshakes: connect while waiting.
        h.wait_until(lambda: served_serial(self.proxy.url, self.pki["ca"]) and
                     log_lines(self.proxy, "warning"), timeout=10, interval=0.2,
                     what="a warning about the bad certificate")
        # Handshakes go on for a few more checks (once a second each): the
        # old pair is served and the warning is not repeated.
        deadline = time.time() + 2.5
        while time.time() < deadline:
            self.assertEqual(served_serial(self.proxy.url, self.pki["ca"]), self.old_serial)
            self.assertEqual(h.request("GET", self.proxy.url + "/readyz")[0], 200)
        warnings = log_lines(self.proxy, "warning")
        self.assertEqual(len(warnings), 1, warnings)
        self.assertIn("--tls-cert-file " + self.crt, warnings[0])
        self.assertIn("previous certificate", warnings[0])
        self.assert_no_key_in_log(self.key)
        # A good pair afterwards is picked up.
        crt, key, serial = new_server_pair(self.pki, os.path.join(self.dir, "new"))
        replace(key, self.key)
        replace(crt, self.crt)
        h.wait_until(lambda: served_serial(self.proxy.url, self.pki["ca"]) == serial,
                     timeout=10, interval=0.2, what="the good certificate after the bad one")
        self.assertEqual(len(log_lines(self.proxy, "warning")), 1)


class ServeTLSStartup(unittest.TestCase):
    """A pair that cannot be served at start: exit 1, one line naming the
    file, nothing listening."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="serve-tls-start-")
        cls.pki = certs.make_pki(os.path.join(cls.tmp, "pki"))
        cls.other = certs.make_pki(os.path.join(cls.tmp, "other"))
        cls.fake = h.fake(seed=SEED)

    @classmethod
    def tearDownClass(cls):
        cls.fake.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def start_fails(self, crt, key, must_name):
        p = subprocess.run([os.path.join(h.BIN, "informer-proxy"), "--listen", "127.0.0.1:0",
                            "--server", self.fake.url, "--resources", "pods",
                            "--tls-cert-file", crt, "--tls-private-key-file", key],
                           capture_output=True, text=True, timeout=EXIT_WITHIN,
                           stdin=subprocess.DEVNULL)
        out = p.stdout + p.stderr
        self.assertEqual(p.returncode, 1, out)
        errors = [ln for ln in out.splitlines() if " error " in ln]
        self.assertEqual(len(errors), 1, out)
        self.assertIn(must_name, errors[0])
        self.assertNotIn("listening on", out)
        for bad in ("Sanitizer", "runtime error:", "PRIVATE KEY"):
            self.assertNotIn(bad, out)
        return errors[0]

    def test_missing_cert_file(self):
        missing = os.path.join(self.tmp, "no-such.crt")
        line = self.start_fails(missing, self.pki["server_key"], "--tls-cert-file " + missing)
        self.assertIn("No such file", line)

    def test_missing_key_file(self):
        missing = os.path.join(self.tmp, "no-such.key")
        line = self.start_fails(self.pki["server_cert"], missing,
                                "--tls-private-key-file " + missing)
        self.assertIn("No such file", line)

    def test_garbage_cert_file(self):
        bad = os.path.join(self.tmp, "garbage.crt")
        with open(bad, "w") as f:
            f.write("garbage\n")
        self.start_fails(bad, self.pki["server_key"], "--tls-cert-file " + bad)

    def test_key_of_another_certificate(self):
        self.start_fails(self.pki["server_cert"], self.other["server_key"],
                         "--tls-private-key-file " + self.other["server_key"])


if __name__ == "__main__":
    unittest.main()
