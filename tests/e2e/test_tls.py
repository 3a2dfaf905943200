"""The proxy reaches the fake apiserver over HTTPS with each kind of
kubeconfig credential, and refuses a bad one at startup.

Every case starts bin/fake-apiserver over HTTPS (token auth unless it
says otherwise) and bin/informer-proxy configured through a kubeconfig
written by certs.kubeconfig (or by hand for the fields it does not
write). A throwaway PKI is made at test time with the openssl CLI; no key
is committed.

Good paths: CA file, CA data, tokenFile (and its rotation on disk, used on
the next request without a restart), client certificate and key (files
and -data), in-cluster style. Failures: a wrong CA, a certificate
for another host name, a wrong token, a missing token file / CA file /
kubeconfig, an exec plugin; each exits non-zero at startup with one clear
error line, and no warning before it. insecure-skip-tls-verify
syncs with a warning. After every case, no token and no private-key text
may appear in the proxy's log.
"""
import base64
import json
import os
import secrets
import ssl
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))
sys.path.insert(0, HERE)
import certs  # noqa: E402
import harness  # noqa: E402

PROXY = os.path.join(harness.BIN, "informer-proxy")
SEED = "pods=12"
NPODS = 12
STARTUP_TIMEOUT = "3"   # --startup-timeout for every proxy
EXIT_WITHIN = 15        # seconds a failing proxy gets to exit
VERBOSITY = "10"        # the most talkative logs, for the secrets check


def clean_env(**extra):
    """The environment minus anything that would pick another upstream."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("KUBERNETES_") and k != "KUBECONFIG"}
    env.update(extra)
    return env


def https_req(url, ctx, token=None, method="GET", body=None, timeout=20):
    hdrs = {}
    if token:
        hdrs["Authorization"] = "Bearer " + token
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        hdrs["Content-Type"] = "application/json"
    r = urllib.request.Request(url, data=data, method=method, headers=hdrs)
    try:
        with urllib.request.urlopen(r, context=ctx, timeout=timeout) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def error_lines(text):
    return [ln for ln in text.splitlines() if " error " in ln]


class TLSProxyCase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="proxy-tls-")
        cls.pki = certs.make_pki(os.path.join(cls.tmp, "pki"))
        cls.other = certs.make_pki(os.path.join(cls.tmp, "other"))
        # Random, so that a hit in a log can only be a leak.
        cls.token = "tls-tok-" + secrets.token_hex(16)
        cls.token2 = "tls-tok-new-" + secrets.token_hex(16)
        cls.wrong = "tls-tok-wrong-" + secrets.token_hex(16)
        cls.ctx = ssl.create_default_context(cafile=cls.pki["ca"])
        cls.cert_ctx = ssl.create_default_context(cafile=cls.pki["ca"])
        cls.cert_ctx.load_cert_chain(cls.pki["client_cert"],
                                     cls.pki["client_key"])
        # Every piece of key text that must never be logged: each base64
        # line of each private key, and each key file as *-data base64.
        cls.key_text = ["PRIVATE KEY"]
        for p in (cls.pki, cls.other):
            for k in ("ca_key", "server_key", "client_key"):
                with open(p[k], "rb") as f:
                    raw = f.read()
                cls.key_text.append(base64.b64encode(raw).decode()[:40])
                cls.key_text += [ln for ln in raw.decode().splitlines()
                                 if ln and not ln.startswith("-----")]

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix=self._testMethodName[:40] + "-",
                                    dir=self.tmp)
        self.servers = []
        self.logs = []          # proxy logs to check for secrets

    def tearDown(self):
        for s in reversed(self.servers):
            if s.name == "informer-proxy":
                self.logs.append(s.logs())
            s.stop()
        self.servers = []
        for text in self.logs:
            self.assert_no_secrets(text)

    # ---- helpers --------------------------------------------------------

    def assert_no_secrets(self, text):
        for t in (self.token, self.token2, self.wrong):
            self.assertNotIn(t, text, "a token appears in the proxy's log")
        for k in self.key_text:
            self.assertNotIn(k, text, "private-key text appears in the proxy's log")

    def start_fake(self, *extra, token=True):
        args = ["--tls-cert", self.pki["server_cert"],
                "--tls-key", self.pki["server_key"]]
        if token:
            args += ["--token", self.token]
        s = harness.fake(*(args + list(extra)), seed=SEED)
        self.servers.append(s)
        self.assertTrue(s.url.startswith("https://127.0.0.1:"), s.url)
        return s

    def start_proxy(self, kubeconfig=None, env=None, *extra):
        args = [PROXY, "--listen", "127.0.0.1:0", "--resources", "pods",
                "--startup-timeout", STARTUP_TIMEOUT, "-v", VERBOSITY]
        if kubeconfig:
            args += ["--kubeconfig", kubeconfig]
        s = harness.Server("informer-proxy", args + list(extra),
                           env=env or clean_env())
        self.servers.append(s)
        return s

    def run_failing(self, kubeconfig=None, env=None, *extra):
        """Run a proxy that must give up at startup, with exactly one
        error line; returns (exit code, that line, the whole log)."""
        args = [PROXY, "--listen", "127.0.0.1:0", "--resources", "pods",
                "--startup-timeout", STARTUP_TIMEOUT, "-v", VERBOSITY]
        if kubeconfig:
            args += ["--kubeconfig", kubeconfig]
        t0 = time.time()
        try:
            r = subprocess.run(args + list(extra), env=env or clean_env(),
                               stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=EXIT_WITHIN)
        except subprocess.TimeoutExpired as e:
            out = (e.output or b"").decode(errors="replace")
            self.logs.append(out)
            self.fail("the proxy did not exit within %ds:\n%s" %
                      (EXIT_WITHIN, out[-3000:]))
        out = r.stdout.decode(errors="replace")
        self.logs.append(out)
        self.assertNotEqual(r.returncode, 0, out)
        for bad in ("Sanitizer", "runtime error:"):
            self.assertNotIn(bad, out)
        self.assertLess(time.time() - t0, EXIT_WITHIN)
        errs = error_lines(out)
        self.assertEqual(len(errs), 1, "want one error line, got:\n" + out)
        # the first: no warning before it that is the same failure retried
        before = out[:out.index(errs[0])]
        self.assertNotIn(" warning ", before, "a warning before the error:\n" + out)
        return r.returncode, errs[0], out

    def fake_items(self, fake, ctx=None, token=None):
        code, body = https_req(fake.url + "/api/v1/pods", ctx or self.ctx,
                               token=token)
        self.assertEqual(code, 200, body[:300])
        return json.loads(body)["items"]

    @staticmethod
    def by_key(items):
        return {(o["metadata"].get("namespace"), o["metadata"]["name"]): o
                for o in items}

    def assert_synced_and_equal(self, proxy, fake, ctx=None, token=None,
                                n=NPODS):
        """/readyz 200 and an RV-less LIST through the proxy equals the
        fake's LIST (every item, resourceVersions included)."""
        harness.wait_ready(proxy.url, timeout=10)
        want = self.by_key(self.fake_items(fake, ctx, token))
        self.assertEqual(len(want), n)
        got = None

        def same():
            nonlocal got
            st, body = harness.get_json(proxy.url + "/api/v1/pods")
            got = self.by_key(body["items"]) if st == 200 else (st, body)
            return got == want
        try:
            harness.wait_until(same, timeout=5, what="proxy LIST == fake LIST")
        except AssertionError:
            self.assertEqual(got, want)

    def upstream_line(self, proxy):
        lines = [ln for ln in proxy.logs().splitlines() if "upstream: " in ln]
        self.assertEqual(len(lines), 1, proxy.logs())
        return lines[0]

    def write(self, name, text, mode=0o600):
        path = os.path.join(self.dir, name)
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.chmod(tmp, mode)
        os.rename(tmp, path)    # a new inode, as the kubelet swaps it
        return path

    def kubeconfig(self, fake_url, **kw):
        return certs.kubeconfig(self.dir, fake_url, **kw)

    # ---- 1, 2: CA file and CA data with a token ------------------------

    def test_ca_file_and_token(self):
        fake = self.start_fake()
        kc = self.kubeconfig(fake.url, pki=self.pki, token=self.token)
        proxy = self.start_proxy(kc)
        self.assert_synced_and_equal(proxy, fake, token=self.token)
        line = self.upstream_line(proxy)
        self.assertIn(fake.url, line)
        self.assertIn(self.pki["ca"], line)
        self.assertIn("bearer token", line)

    def test_ca_data_and_token(self):
        fake = self.start_fake()
        kc = self.kubeconfig(fake.url, pki=self.pki, token=self.token,
                             inline=True)
        proxy = self.start_proxy(kc)
        self.assert_synced_and_equal(proxy, fake, token=self.token)
        self.assertNotIn(self.pki["ca"], self.upstream_line(proxy))

    # ---- 3: tokenFile, and its rotation on disk -----------------------

    def test_token_file_and_rotation(self):
        fake_tokens = self.write("fake-tokens",
                                 self.token + "\n" + self.token2 + "\n")
        fake = self.start_fake("--token-file", fake_tokens, token=False)
        tf = self.write("token", self.token + "\n")
        kc = self.kubeconfig(fake.url, pki=self.pki, token_file=tf)
        proxy = self.start_proxy(kc)
        self.assert_synced_and_equal(proxy, fake, token=self.token)
        self.assertIn("bearer token from file " + tf, self.upstream_line(proxy))

        # Rotate: the proxy's file first, then the fake accepts only the
        # new token. A request with an unknown token makes the fake
        # re-read its file; then the old token must be refused.
        self.write("token", self.token2 + "\n")
        self.write("fake-tokens", self.token2 + "\n")
        https_req(fake.url + "/api/v1/pods", self.ctx, token=self.wrong)
        code, _ = https_req(fake.url + "/api/v1/pods", self.ctx,
                            token=self.token)
        self.assertEqual(code, 401, "the fake still accepts the old token")

        # Force new upstream requests: close the watch (it reconnects) and
        # LIST with no resourceVersion (the proxy probes upstream).
        def stats():
            _, body = https_req(fake.url + "/fake/stats", self.ctx)
            return json.loads(body)["resources"]["pods"]
        watches_before = stats()["watch"]
        code, body = https_req(fake.url + "/fake/faults", self.ctx,
                               method="POST", body={"dropWatches": True})
        self.assertEqual(code, 200, body)
        harness.wait_until(lambda: stats()["watch"] > watches_before and
                           stats()["watchOpen"] >= 1, timeout=10,
                           what="the proxy's watch to reconnect with the new token")

        # A change made upstream now reaches the proxy over that watch.
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": "rotated", "namespace": "ns-0"},
               "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
        code, body = https_req(fake.url + "/api/v1/namespaces/ns-0/pods",
                               self.ctx, token=self.token2, method="POST",
                               body=pod)
        self.assertEqual(code, 201, body)
        harness.wait_until(
            lambda: harness.request(
                "GET", proxy.url + "/api/v1/namespaces/ns-0/pods/rotated"
                "?resourceVersion=0")[0] == 200,
            timeout=10, what="the new pod in the proxy")
        self.assert_synced_and_equal(proxy, fake, token=self.token2,
                                     n=NPODS + 1)
        st, _, body = harness.request("GET", proxy.url + "/api/v1/pods")
        self.assertEqual(st, 200, body[:300])
        self.assertIsNone(proxy.proc.poll(), "the proxy restarted or exited")

    # ---- 4: client certificate, no token -------------------------------

    def test_token_file_gone_after_start(self):
        # The token file disappears while running: the proxy keeps serving
        # the cache, and a request it would pass through gets a clear 503
        # Status instead of being sent without credentials.
        fake = self.start_fake()
        tf = self.write("token", self.token + "\n")
        kc = self.kubeconfig(fake.url, pki=self.pki, token_file=tf)
        proxy = self.start_proxy(kc)
        self.assert_synced_and_equal(proxy, fake, token=self.token)
        os.unlink(tf)
        st, _, raw = harness.request("GET", proxy.url + "/api/v1/namespaces/ns-0/configmaps")
        body = json.loads(raw)
        self.assertEqual((st, body["kind"], body["reason"]), (503, "Status", "ServiceUnavailable"))
        st, _, _ = harness.request("GET", proxy.url + "/api/v1/pods?resourceVersion=0")
        self.assertEqual(st, 200)
        self.assertIn(tf, proxy.logs())

    def check_client_cert(self, inline):
        fake = self.start_fake("--client-ca", self.pki["ca"], token=False)
        code, _ = https_req(fake.url + "/api/v1/pods", self.ctx)
        self.assertEqual(code, 401, "the fake lets a client without a certificate in")
        kc = self.kubeconfig(fake.url, pki=self.pki, client_cert=True,
                             inline=inline)
        proxy = self.start_proxy(kc)
        self.assert_synced_and_equal(proxy, fake, ctx=self.cert_ctx)
        line = self.upstream_line(proxy)
        self.assertIn("client certificate", line)
        self.assertNotIn("bearer", line)

    def test_client_cert_files(self):
        self.check_client_cert(inline=False)

    def test_client_cert_data(self):
        self.check_client_cert(inline=True)

    # ---- 5: in-cluster style -------------------------------------------

    # How a test points the in-cluster loader at another root: a function
    # root -> (extra args, extra env).
    INCLUSTER_ROOT_OVERRIDE = staticmethod(lambda root: (["--serviceaccount-dir", root], {}))

    def test_in_cluster_overridden_root(self):
        if self.INCLUSTER_ROOT_OVERRIDE is None:
            self.skipTest("informer-proxy has no way to override the "
                          "in-cluster root from its flags or environment")
        fake = self.start_fake()
        root = os.path.join(self.dir, "serviceaccount")
        os.makedirs(root)
        with open(self.pki["ca"]) as f:
            ca = f.read()
        with open(os.path.join(root, "ca.crt"), "w") as f:
            f.write(ca)
        with open(os.path.join(root, "token"), "w") as f:
            f.write(self.token)
        port = fake.url.rsplit(":", 1)[1]
        args, env = self.INCLUSTER_ROOT_OVERRIDE(root)
        proxy = self.start_proxy(None, clean_env(
            KUBERNETES_SERVICE_HOST="127.0.0.1",
            KUBERNETES_SERVICE_PORT=port, **env), *args)
        self.assert_synced_and_equal(proxy, fake, token=self.token)
        self.assertIn("in-cluster", self.upstream_line(proxy))

    def test_in_cluster_default_root_missing(self):
        """In-cluster mode is chosen from the environment alone, and
        without the mounted service account it names the file."""
        default = "/var/run/secrets/kubernetes.io/serviceaccount"
        if os.path.exists(default):
            self.skipTest(default + " exists on this machine")
        _, line, _ = self.run_failing(None, clean_env(
            KUBERNETES_SERVICE_HOST="127.0.0.1",
            KUBERNETES_SERVICE_PORT="1"))
        self.assertIn("in-cluster", line)
        self.assertIn(default + "/ca.crt", line)

    # ---- 6: failures at startup ----------------------------------------

    def test_wrong_ca(self):
        fake = self.start_fake()
        kc = self.kubeconfig(fake.url, pki=self.other, token=self.token)
        _, line, _ = self.run_failing(kc)
        self.assertIn("cannot verify", line)
        self.assertIn("certificate-authority", line)

    def test_host_name_mismatch(self):
        """A certificate the CA signed, for another name: the error says
        host name mismatch with the names on both sides, not CA."""
        named = certs.make_pki(os.path.join(self.dir, "named"),
                               only_names=["other.example"])
        s = harness.fake("--tls-cert", named["server_cert"],
                         "--tls-key", named["server_key"], "--token", self.token,
                         seed=SEED)
        self.servers.append(s)
        self.assertTrue(s.url.startswith("https://127.0.0.1:"), s.url)
        kc = self.kubeconfig(s.url, pki=named, token=self.token)
        _, line, _ = self.run_failing(kc)
        self.assertIn("host name mismatch", line)
        self.assertIn("DNS:other.example", line)
        self.assertIn('not for "127.0.0.1"', line)
        self.assertNotIn("certificate-authority", line)

    def test_host_name_mismatch_in_discovery(self):
        """A name that needs discovery (po) meets the same certificate
        first: said at once, not retried until --startup-timeout."""
        named = certs.make_pki(os.path.join(self.dir, "named"),
                               only_names=["other.example"])
        s = harness.fake("--tls-cert", named["server_cert"],
                         "--tls-key", named["server_key"], "--token", self.token,
                         seed=SEED)
        self.servers.append(s)
        kc = self.kubeconfig(s.url, pki=named, token=self.token)
        t0 = time.time()
        _, line, _ = self.run_failing(kc, None, "--resources", "po",
                                      "--startup-timeout", "60")
        self.assertLess(time.time() - t0, EXIT_WITHIN)
        self.assertIn("host name mismatch", line)
        self.assertIn("DNS:other.example", line)

    def test_tls_server_name_mismatch(self):
        """The same with the kubeconfig's tls-server-name: the name asked
        for is that one, and the message says where it came from."""
        fake = self.start_fake()
        kc = self.kubeconfig(fake.url, pki=self.pki, token=self.token,
                             tls_server_name="wrong.example")
        _, line, _ = self.run_failing(kc)
        self.assertIn("host name mismatch", line)
        self.assertIn("DNS:localhost", line)
        self.assertIn("IP Address:127.0.0.1", line)
        self.assertIn('not for "wrong.example" (the kubeconfig\'s tls-server-name)',
                      line)

    def test_wrong_token(self):
        fake = self.start_fake()
        kc = self.kubeconfig(fake.url, pki=self.pki, token=self.wrong)
        _, line, _ = self.run_failing(kc)
        self.assertIn("401", line)
        self.assertIn("rejected the credentials", line)
        self.assertIn("check the token", line)

    def test_missing_token_file(self):
        fake = self.start_fake()
        missing = os.path.join(self.dir, "no-such-token")
        kc = self.kubeconfig(fake.url, pki=self.pki, token_file=missing)
        _, line, _ = self.run_failing(kc)
        self.assertIn(missing, line)
        self.assertIn("kubeconfig", line)

    def test_missing_ca_file(self):
        fake = self.start_fake()
        pki = dict(self.pki, ca=os.path.join(self.dir, "no-such-ca.crt"))
        kc = self.kubeconfig(fake.url, pki=pki, token=self.token)
        _, line, _ = self.run_failing(kc)
        self.assertIn(pki["ca"], line)
        self.assertIn("kubeconfig", line)

    def test_missing_kubeconfig(self):
        missing = os.path.join(self.dir, "no-such-kubeconfig")
        _, line, _ = self.run_failing(missing)
        self.assertIn(missing, line)
        self.assertIn("kubeconfig", line)

    def test_exec_plugin(self):
        fake = self.start_fake()
        kc = self.write("kc-exec", "\n".join([
            "apiVersion: v1", "kind: Config", "current-context: test",
            "clusters:", "- name: test", "  cluster:",
            "    server: " + fake.url,
            "    certificate-authority: " + self.pki["ca"],
            "users:", "- name: test", "  user:", "    exec:",
            "      apiVersion: client.authentication.k8s.io/v1",
            "      command: /bin/echo",
            "      interactiveMode: Never",
            "contexts:", "- name: test",
            "  context: {cluster: test, user: test}", ""]))
        _, line, _ = self.run_failing(kc)
        self.assertIn("exec", line)

    def test_insecure_skip_tls_verify(self):
        fake = self.start_fake()
        kc = self.write("kc-insecure", "\n".join([
            "apiVersion: v1", "kind: Config", "current-context: test",
            "clusters:", "- name: test", "  cluster:",
            "    server: " + fake.url,
            "    insecure-skip-tls-verify: true",
            "users:", "- name: test", "  user:", "    token: " + self.token,
            "contexts:", "- name: test",
            "  context: {cluster: test, user: test}", ""]))
        proxy = self.start_proxy(kc)
        self.assert_synced_and_equal(proxy, fake, token=self.token)
        warn = [ln for ln in proxy.logs().splitlines()
                if "insecure-skip-tls-verify" in ln]
        self.assertTrue(warn, proxy.logs())
        self.assertIn("WARNING", warn[0].upper())


if __name__ == "__main__":
    unittest.main()
