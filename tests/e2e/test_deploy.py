"""What an operator meets when deploying the proxy (issue "Deployable as
it stands"): readiness through an upstream outage, SIGHUP, the SIGTERM
drain, --version and the build_info metric, a host name in --listen, the
upstream TLS flags for --server, and the error for http:// against an
HTTPS port.

Each case starts its own bin/fake-apiserver and bin/informer-proxy on
127.0.0.1; an outage is the fake's failNext fault (every request answered
503) with its watches dropped."""
import http.client
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))
import certs  # noqa: E402
import harness as h  # noqa: E402

ROOT = h.ROOT
PROXY = os.path.join(h.BIN, "informer-proxy")


def clean_env():
    """The environment minus anything that would pick another upstream."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("KUBERNETES_") and k != "KUBECONFIG"}
    env["HOME"] = tempfile.mkdtemp(prefix="home-")
    return env


def start_proxy(*args):
    return h.Server("informer-proxy", [PROXY, "--listen", "127.0.0.1:0"] + list(args),
                    env=clean_env())


def wait_for(what, fn, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        v = fn()
        if v:
            return v
        time.sleep(0.1)
    raise AssertionError("timed out waiting for " + what)


def faults(fake, body):
    s, _, out = h.request("POST", fake.url + "/fake/faults", body=body, timeout=10)
    assert s == 200, (s, out)


def get(url, **kw):
    s, _, body = h.request("GET", url, **kw)
    return s, body.decode(errors="replace")


def host_port(url):
    hp = url.split("://", 1)[1]
    host, port = hp.rsplit(":", 1)
    return host, int(port)


class Readiness(unittest.TestCase):
    """/readyz: synced once and serving, whatever the upstream does;
    /readyz/upstream: today's behaviour, failing past --upstream-grace."""

    def test_upstream_outage(self):
        fake, proxy = h.fake_and_proxy(self, "pods,configmaps", "--upstream-grace", "1",
                                       seed="pods=5")
        s, body = get(proxy.url + "/readyz?verbose")
        self.assertEqual(s, 200, body)
        lines = body.splitlines()
        for want in ("[+]ping ok", "[+]shutdown ok", "[+]informer-sync-pods ok",
                     "[+]informer-sync-configmaps ok"):
            self.assertIn(want, lines)
        self.assertRegex(body, r"\[\+\]upstream-pods ok \(last heard from \d+s ago\)\n")
        self.assertEqual(lines[-1], "readyz check passed")
        self.assertEqual(get(proxy.url + "/readyz"), (200, "ok"))
        self.assertEqual(get(proxy.url + "/readyz/upstream"), (200, "ok"))

        # the outage: every upstream request 503, open watches cut
        faults(fake, {"failNext": {"count": 1000000, "code": 503}, "dropWatches": True})
        wait_for("/readyz/upstream to fail",
                 lambda: get(proxy.url + "/readyz/upstream")[0] == 503)
        # past the grace: the cache still serves, so /readyz stays 200
        s, body = get(proxy.url + "/readyz/upstream?verbose")
        self.assertEqual(s, 503, body)
        self.assertRegex(body, r"\[-\]upstream-pods failed: failing for \d+s, past the 1s grace\n")
        self.assertTrue(body.endswith("readyz/upstream check failed"), body)
        s, body = get(proxy.url + "/readyz/upstream")
        self.assertEqual(s, 503)
        self.assertIn("[-]upstream-pods failed: reason withheld\n", body)
        self.assertIn("[+]informer-sync-pods ok\n", body)
        self.assertEqual(get(proxy.url + "/readyz"), (200, "ok"))
        s, body = get(proxy.url + "/readyz?verbose")
        self.assertEqual(s, 200, body)
        self.assertRegex(body, r"\[\+\]upstream-pods ok \(failing for \d+s, past the 1s "
                               r"grace; the cache still serves\)\n")
        s, lst = h.get_json(proxy.url + "/api/v1/pods?resourceVersion=0")
        self.assertEqual((s, len(lst["items"])), (200, 5))

        # the upstream back: both ready again
        faults(fake, {})
        wait_for("/readyz/upstream to pass",
                 lambda: get(proxy.url + "/readyz/upstream")[0] == 200)
        self.assertEqual(get(proxy.url + "/readyz"), (200, "ok"))

    def test_not_ready_before_sync_with_reasons_withheld(self):
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        self.addCleanup(sock.close)
        proxy = start_proxy("--server", "http://127.0.0.1:%d" % sock.getsockname()[1],
                            "--resources", "pods")
        self.addCleanup(proxy.stop)
        s, body = get(proxy.url + "/readyz")
        self.assertEqual(s, 503)
        self.assertEqual(body, "[+]ping ok\n[+]shutdown ok\n"
                               "[-]informer-sync-pods failed: reason withheld\n"
                               "[+]upstream-pods ok\nreadyz check failed")
        s, body = get(proxy.url + "/readyz?verbose")
        self.assertIn("[-]informer-sync-pods failed: not synced yet\n", body)
        self.assertEqual(get(proxy.url + "/livez?verbose"), (200, "[+]ping ok\nlivez check passed"))
        self.assertEqual(get(proxy.url + "/healthz"), (200, "ok"))


class Signals(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="signals-")
        self.token = "sighup-" + secrets.token_hex(12)

    def kubeconfig(self, url, token):
        return certs.kubeconfig(self.dir, url, token=token)

    def test_sighup_rereads_kubeconfig_token(self):
        fake = h.fake("--quiet", "--token", self.token, seed="pods=3")
        self.addCleanup(fake.stop)
        self.addCleanup(h.register(fake.url, None, self.token))
        kc = self.kubeconfig(fake.url, self.token)
        proxy = start_proxy("--kubeconfig", kc, "--resources", "pods")
        self.addCleanup(proxy.stop)
        h.wait_ready(proxy.url)
        # passed through with the proxy's own token: namespaces are not cached
        self.assertEqual(get(proxy.url + "/api/v1/namespaces")[0], 200)

        # a local watch opened before the reloads must live through them
        conn = http.client.HTTPConnection(*host_port(proxy.url), timeout=20)
        conn.request("GET", "/api/v1/namespaces/ns-0/pods?watch=1&resourceVersion=0")
        watch = conn.getresponse()
        self.assertEqual(watch.status, 200)
        watch.readline()  # one ADDED at least

        wrong = "wrong-" + secrets.token_hex(8)
        self.kubeconfig(fake.url, wrong)
        proxy.proc.send_signal(signal.SIGHUP)
        wait_for("the reload", lambda: "SIGHUP: re-read kubeconfig" in proxy.logs())
        self.assertIn("new token", proxy.logs())
        self.assertEqual(get(proxy.url + "/api/v1/namespaces")[0], 401)

        # a kubeconfig that cannot be read keeps the current credentials
        with open(kc, "w") as f:
            f.write("not: [a kubeconfig")
        proxy.proc.send_signal(signal.SIGHUP)
        wait_for("the refused reload",
                 lambda: "cannot re-read the upstream's credentials" in proxy.logs())
        self.assertEqual(get(proxy.url + "/api/v1/namespaces")[0], 401)

        self.kubeconfig(fake.url, self.token)
        proxy.proc.send_signal(signal.SIGHUP)
        wait_for("the third reload",
                 lambda: proxy.logs().count("SIGHUP: re-read kubeconfig") >= 2)
        self.assertEqual(get(proxy.url + "/api/v1/namespaces")[0], 200)

        # still alive, and the watch still delivers
        self.assertIsNone(proxy.proc.poll())
        body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "after-hup"},
                "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
        self.assertEqual(h.request("POST", fake.url + "/api/v1/namespaces/ns-0/pods",
                                   body=body)[0], 201)
        seen = False
        for _ in range(100):
            line = watch.readline()
            if not line:
                break
            if b'"after-hup"' in line:
                seen = True
                break
        self.assertTrue(seen, "the watch opened before SIGHUP missed a later event")
        conn.close()
        logs = proxy.logs()
        for t in (self.token, wrong):
            self.assertNotIn(t, logs)
        self.assertEqual(proxy.stop(), 0)

    def test_sighup_rereads_token_file(self):
        fake = h.fake("--quiet", "--token", self.token, seed="pods=1")
        self.addCleanup(fake.stop)
        tf = os.path.join(self.dir, "token")
        with open(tf, "w") as f:
            f.write(self.token)
        proxy = start_proxy("--server", fake.url, "--token-file", tf, "--resources", "pods")
        self.addCleanup(proxy.stop)
        h.wait_ready(proxy.url)
        self.assertIn("token from --token-file", proxy.logs())
        proxy.proc.send_signal(signal.SIGHUP)
        wait_for("the reload", lambda: "token file %s re-read" % tf in proxy.logs())
        os.unlink(tf)
        proxy.proc.send_signal(signal.SIGHUP)
        wait_for("the failed re-read",
                 lambda: re.search(r"error .*SIGHUP: cannot re-read the upstream's credentials, "
                                   r"keeping the current ones: --token-file %s: No such file"
                                   % re.escape(tf), proxy.logs()))
        self.assertIsNone(proxy.proc.poll(), "SIGHUP ended the process")

    def test_sigterm_drains(self):
        fake = h.fake("--quiet", seed="pods=3")
        self.addCleanup(fake.stop)
        sock = os.path.join(self.dir, "proxy.sock")
        proxy = start_proxy("--server", fake.url, "--resources", "pods",
                            "--unix-socket", sock, "--shutdown-grace", "8")
        self.addCleanup(proxy.stop, check=False)
        h.wait_ready(proxy.url)
        self.assertTrue(os.path.exists(sock))
        host, port = host_port(proxy.url)

        # a local watch, and a passthrough request the upstream is slow with
        conn = http.client.HTTPConnection(host, port, timeout=20)
        conn.request("GET", "/api/v1/pods?watch=1&resourceVersion=0")
        watch = conn.getresponse()
        self.assertEqual(watch.status, 200)
        faults(fake, {"latencyMs": 2500})
        slow = {}

        def passthrough():
            slow["answer"] = get(proxy.url + "/api/v1/namespaces", timeout=30)
        t = threading.Thread(target=passthrough)
        t.start()
        time.sleep(0.8)
        proxy.proc.send_signal(signal.SIGTERM)
        wait_for("the drain to begin", lambda: "draining:" in proxy.logs())

        # no new connection, on either listener; the socket file is gone
        with self.assertRaises(OSError):
            socket.create_connection((host, port), timeout=2).close()
        self.assertFalse(os.path.exists(sock))
        # the watch ends as a timeoutSeconds ends it: a whole chunked stream
        rest = watch.read()  # http.client raises IncompleteRead on a cut
        self.assertIsInstance(rest, bytes)
        conn.close()
        # the request in flight is answered within the grace
        t.join(20)
        self.assertEqual(slow["answer"][0], 200)
        self.assertEqual(proxy.proc.wait(20), 0)
        self.assertIn("drained: no request in flight", proxy.logs())
        self.assertNotIn("Sanitizer", proxy.logs())

    def test_sigterm_grace_runs_out(self):
        fake = h.fake("--quiet", seed="pods=1")
        self.addCleanup(fake.stop)
        proxy = start_proxy("--server", fake.url, "--resources", "pods",
                            "--shutdown-grace", "1")
        self.addCleanup(proxy.stop, check=False)
        h.wait_ready(proxy.url)
        faults(fake, {"latencyMs": 12000})
        t = threading.Thread(target=get, args=(proxy.url + "/api/v1/namespaces",),
                             kwargs={"timeout": 30})
        t.daemon = True
        t.start()
        time.sleep(0.5)
        t0 = time.time()
        proxy.proc.send_signal(signal.SIGTERM)
        self.assertEqual(proxy.proc.wait(20), 0)
        self.assertLess(time.time() - t0, 9, "the 12 s request held the exit")
        self.assertIn("1 request(s) still open after --shutdown-grace 1s", proxy.logs())
        self.assertNotIn("Sanitizer", proxy.logs())
        faults(fake, {})


class CommandLine(unittest.TestCase):
    def test_version_and_build_info(self):
        r = subprocess.run([PROXY, "--version"], capture_output=True, text=True, timeout=10)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(ROOT, "VERSION")) as f:
            version = f.read().strip()
        m = re.fullmatch(r"informer-proxy (\S+)(?: \(commit ([0-9a-f]{40})\))?\n", r.stdout)
        self.assertTrue(m, r.stdout)
        self.assertEqual(m.group(1), version)
        self.assertIsNotNone(m.group(2), "built in a git checkout, the commit is known")
        self.assertIn("--version", subprocess.run([PROXY, "--help"], capture_output=True,
                                                  text=True, timeout=10).stdout)
        _, proxy = h.fake_and_proxy(self, "pods")
        s, body = get(proxy.url + "/metrics")
        self.assertIn('informer_proxy_build_info{version="%s",commit="%s"} 1\n'
                      % (version, m.group(2)), body)
        self.assertIn("# TYPE informer_proxy_build_info gauge\n", body)

    def test_listen_hostname(self):
        fake = h.fake("--quiet", seed="pods=2")
        self.addCleanup(fake.stop)
        proxy = h.Server("informer-proxy", [PROXY, "--listen", "localhost:0", "--server",
                                            fake.url, "--resources", "pods"], env=clean_env())
        self.addCleanup(proxy.stop)
        self.assertTrue(proxy.url.startswith("http://127.0.0.1:"), proxy.url)
        h.wait_ready(proxy.url)
        # a name that is no address is refused with the flag's name
        r = subprocess.run([PROXY, "--listen", "no_such!host:1", "--server", fake.url,
                            "--resources", "pods"], capture_output=True, text=True,
                           timeout=10, env=clean_env())
        self.assertEqual(r.returncode, 1)
        self.assertIn('--listen: "no_such!host" is not an IPv4 address', r.stderr)


class UpstreamTLSFlags(unittest.TestCase):
    """--certificate-authority, --insecure-skip-tls-verify and --token-file
    with --server alone, and http:// against an HTTPS port."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="tlsflags-")
        cls.pki = certs.make_pki(os.path.join(cls.dir, "pki"))
        cls.token = "flags-" + secrets.token_hex(12)
        cls.tf = os.path.join(cls.dir, "token")
        with open(cls.tf, "w") as f:
            f.write(cls.token + "\n")
        cls.fake = h.fake("--quiet", "--tls-cert", cls.pki["server_cert"],
                          "--tls-key", cls.pki["server_key"], "--token", cls.token,
                          seed="pods=4")

    @classmethod
    def tearDownClass(cls):
        cls.fake.stop()

    def run_failing(self, *args):
        r = subprocess.run([PROXY, "--listen", "127.0.0.1:0", "--resources", "pods",
                            "--startup-timeout", "5"] + list(args),
                           capture_output=True, text=True, timeout=30, env=clean_env())
        self.assertNotEqual(r.returncode, 0, r.stderr)
        self.assertNotIn(self.token, r.stderr)
        return r.returncode, r.stderr

    def test_ca_and_token_file(self):
        proxy = start_proxy("--server", self.fake.url, "--certificate-authority",
                            self.pki["ca"], "--token-file", self.tf, "--resources", "pods")
        self.addCleanup(proxy.stop)
        h.wait_ready(proxy.url)
        s, lst = h.get_json(proxy.url + "/api/v1/pods?resourceVersion=0")
        self.assertEqual((s, len(lst["items"])), (200, 4))
        self.assertRegex(proxy.logs(), r"CA: file .*ca\.crt, auth: bearer token from file")
        self.assertNotIn(self.token, proxy.logs())

    def test_insecure(self):
        proxy = start_proxy("--server", self.fake.url, "--insecure-skip-tls-verify",
                            "--token-file", self.tf, "--resources", "pods")
        self.addCleanup(proxy.stop)
        h.wait_ready(proxy.url)
        self.assertIn("WARNING: insecure-skip-tls-verify", proxy.logs())

    def test_refusals(self):
        # no CA: the certificate is not trusted, said at once
        code, err = self.run_failing("--server", self.fake.url, "--token-file", self.tf)
        self.assertEqual(code, 1)
        self.assertIn("cannot verify the upstream", err)
        code, err = self.run_failing("--server", self.fake.url, "--token-file", self.tf,
                                     "--certificate-authority", self.pki["ca"],
                                     "--insecure-skip-tls-verify")
        self.assertEqual(code, 2)
        self.assertIn("--certificate-authority and --insecure-skip-tls-verify exclude "
                      "each other", err)
        code, err = self.run_failing("--server", self.fake.url, "--token-file",
                                     os.path.join(self.dir, "missing"))
        self.assertEqual(code, 2)
        self.assertIn("--token-file %s: No such file" % os.path.join(self.dir, "missing"), err)

    def test_http_to_https_port(self):
        url = "http://" + self.fake.url.split("://", 1)[1]
        code, err = self.run_failing("--server", url, "--token-file", self.tf)
        self.assertEqual(code, 1)
        self.assertIn("the upstream %s speaks HTTPS; use https://%s" % (url, url[7:]), err)
        # and a plain HTTP upstream that refuses a LIST is not mistaken for one
        plain = h.fake("--quiet", "--token", self.token)
        self.addCleanup(plain.stop)
        code, err = self.run_failing("--server", plain.url)
        self.assertIn("401", err)
        self.assertNotIn("speaks HTTPS", err)


if __name__ == "__main__":
    unittest.main()
