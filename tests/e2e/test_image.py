"""make image: the OCI image built offline by scripts/image.sh.

The test builds the image from bin/informer-proxy into a temporary file,
reads the OCI layout with its own code (index, manifest, config, layers,
every blob checked against its digest), unpacks the layers into a root
filesystem and checks what is in it: the binary, exactly the shared
libraries ldd names (and the symlinks to them), the CA bundle, passwd and
group entries for 65532, no shell; skopeo (the documented way to push
it) reads it too. Then it runs the binary from that root
with chroot, as user 65532, against the fake apiserver on 127.0.0.1 (a
chroot shares the network namespace) until /readyz is 200, and uses the
binary's own exec probe as the chart does. Needs root (chroot), as make
test runs; runner.py counts a skip here as a failure."""
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))
import harness as h  # noqa: E402

ROOT = h.ROOT
BIN = os.path.join(h.BIN, "informer-proxy")
CHROOT = shutil.which("chroot") or "/usr/sbin/chroot"
MAX_BYTES = 40 << 20  # the image's budget


def ldd(path):
    """The absolute paths ldd names for path: libraries and the loader."""
    out = subprocess.run(["ldd", path], capture_output=True, text=True, check=True).stdout
    paths = []
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 3 and f[1] == "=>" and f[2].startswith("/"):
            paths.append(f[2])
        elif f and f[0].startswith("/"):
            paths.append(f[0])
    return paths


def resolve_in(root, path, depth=0):
    """path inside root with every symlink followed inside root (an
    absolute target is taken from root, as in a chroot); None if missing."""
    assert depth < 40, "symlink loop at " + path
    parts = [p for p in path.split("/") if p]
    cur = ""
    for i, part in enumerate(parts):
        nxt = cur + "/" + part
        full = root + nxt
        if os.path.islink(full):
            target = os.readlink(full)
            base = target if target.startswith("/") else cur + "/" + target
            return resolve_in(root, os.path.normpath(base + "/" + "/".join(parts[i + 1:])),
                              depth + 1)
        if not os.path.lexists(full):
            return None
        cur = nxt
    return cur or "/"


class Image(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="image-")
        with open(os.path.join(ROOT, "VERSION")) as f:
            cls.version = f.read().strip()
        cls.tar = os.path.join(cls.tmp, "informer-proxy-%s.oci.tar" % cls.version)
        p = subprocess.run([os.path.join(ROOT, "scripts", "image.sh"), cls.tar],
                           capture_output=True, text=True, timeout=300)
        if p.returncode != 0:
            raise RuntimeError("scripts/image.sh: " + p.stderr + p.stdout)
        cls.built = p.stdout
        cls.layout = os.path.join(cls.tmp, "layout")
        os.mkdir(cls.layout)
        with tarfile.open(cls.tar) as t:
            t.extractall(cls.layout)
        cls.rootfs = os.path.join(cls.tmp, "rootfs")
        cls.mounted = False

    @classmethod
    def tearDownClass(cls):
        if cls.mounted:
            subprocess.run(["umount", os.path.join(cls.rootfs, "proc")])
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def blob(cls, desc):
        algo, hexd = desc["digest"].split(":")
        with open(os.path.join(cls.layout, "blobs", algo, hexd), "rb") as f:
            data = f.read()
        assert algo == "sha256" and hashlib.sha256(data).hexdigest() == hexd, desc
        assert len(data) == desc["size"], desc
        return data

    @classmethod
    def manifest(cls):
        with open(os.path.join(cls.layout, "index.json")) as f:
            index = json.load(f)
        with open(os.path.join(cls.layout, "oci-layout")) as f:
            assert json.load(f)["imageLayoutVersion"] == "1.0.0"
        tagged = [m for m in index["manifests"]
                  if m.get("annotations", {}).get("org.opencontainers.image.ref.name") == cls.version]
        assert len(tagged) == 1, index
        assert tagged[0]["mediaType"] == "application/vnd.oci.image.manifest.v1+json"
        return json.loads(cls.blob(tagged[0]))

    @classmethod
    def unpack(cls):
        """The layers, in order, into cls.rootfs (once)."""
        if os.path.isdir(cls.rootfs):
            return
        os.mkdir(cls.rootfs)
        for layer in cls.manifest()["layers"]:
            data = cls.blob(layer)
            if layer["mediaType"].endswith("+gzip"):
                data = gzip.decompress(data)
            with tarfile.open(fileobj=io.BytesIO(data)) as t:
                names = t.getnames()
                assert not [n for n in names if "/.wh." in "/" + n], "whiteouts in a fresh image"
                t.extractall(cls.rootfs, numeric_owner=True)

    def test_config(self):
        m = self.manifest()
        self.assertEqual(m["config"]["mediaType"], "application/vnd.oci.image.config.v1+json")
        cfg = json.loads(self.blob(m["config"]))
        self.assertEqual((cfg["os"], cfg["architecture"]), ("linux", "amd64"))
        c = cfg["config"]
        self.assertEqual(c["User"], "65532:65532")
        self.assertEqual(c["Entrypoint"], ["/usr/local/bin/informer-proxy"])
        self.assertIn("PATH=/usr/local/bin", c["Env"])
        labels = c["Labels"]
        self.assertEqual(labels["org.opencontainers.image.version"], self.version)
        self.assertEqual(labels["org.opencontainers.image.licenses"], "Apache-2.0")
        self.assertEqual(labels["org.opencontainers.image.title"], "informer-proxy")
        self.assertTrue(labels["org.opencontainers.image.source"])
        self.assertRegex(labels["org.opencontainers.image.revision"], r"^([0-9a-f]{40})?$")
        self.assertEqual(len(m["layers"]), 1)
        self.assertEqual(len(cfg["rootfs"]["diff_ids"]), 1)
        size = os.path.getsize(self.tar)
        self.assertLess(size, MAX_BYTES, "the image is %d bytes" % size)
        print("\n    image %s: %d bytes (%.1f MiB)" % (os.path.basename(self.tar), size,
                                                       size / 1048576.0), end=" ")

    def test_contents(self):
        self.unpack()
        r = self.rootfs
        # the binary, as the entrypoint names it
        exe = os.path.join(r, "usr/local/bin/informer-proxy")
        self.assertTrue(os.path.isfile(exe) and os.access(exe, os.X_OK))
        # exactly ldd's libraries: each path resolves inside the root to
        # the same file as on the host, and no other shared object is there
        want = {}
        for lib in ldd(BIN):
            got = resolve_in(r, lib)
            self.assertIsNotNone(got, "%s is missing from the image" % lib)
            self.assertEqual(got, os.path.realpath(lib), lib)
            with open(r + got, "rb") as a, open(os.path.realpath(lib), "rb") as b:
                self.assertEqual(a.read(), b.read(), lib)
            want[got] = lib
        have = set()
        for d, _, files in os.walk(r):
            for f in files:
                p = os.path.join(d, f)
                if not os.path.islink(p) and re.search(r"\.so(\.|$)", f):
                    have.add("/" + os.path.relpath(p, r))
        self.assertEqual(have, set(want), "shared objects beyond ldd's, or missing")
        # nothing else executable: no shell, no package manager
        for sh in ("bin/sh", "usr/bin/sh", "bin/bash"):
            self.assertFalse(os.path.lexists(os.path.join(r, sh)), sh)
        with open(os.path.join(r, "etc/passwd")) as f:
            self.assertIn("nonroot:x:65532:65532:", f.read())
        with open(os.path.join(r, "etc/group")) as f:
            self.assertIn("nonroot:x:65532:", f.read())
        with open(os.path.join(r, "etc/ssl/certs/ca-certificates.crt")) as f:
            self.assertIn("BEGIN CERTIFICATE", f.read())
        self.assertEqual(os.stat(os.path.join(r, "tmp")).st_mode & 0o7777, 0o1777)
        with open(os.path.join(r, "usr/share/doc/informer-proxy/LICENSE")) as f:
            self.assertIn("Apache License", f.read())

    def test_skopeo_reads_the_archive(self):
        """The documented way to push it (skopeo copy oci-archive:...) reads
        the archive: inspect, and copy to a local directory, offline."""
        ref = "oci-archive:%s:%s" % (self.tar, self.version)
        p = subprocess.run(["skopeo", "inspect", ref], capture_output=True, text=True,
                           timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        info = json.loads(p.stdout)
        self.assertEqual(info["Labels"]["org.opencontainers.image.version"], self.version)
        self.assertEqual((info["Os"], info["Architecture"]), ("linux", "amd64"))
        self.assertEqual(len(info["Layers"]), 1)
        out = os.path.join(self.tmp, "copied")
        p = subprocess.run(["skopeo", "copy", ref, "dir:" + out], capture_output=True,
                           text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(os.path.isfile(os.path.join(out, "manifest.json")))
        # a tag the archive does not have is refused
        p = subprocess.run(["skopeo", "inspect", "oci-archive:%s:nosuchtag" % self.tar],
                           capture_output=True, text=True, timeout=120)
        self.assertNotEqual(p.returncode, 0)

    def chroot(self, *args, **kw):
        env = {"PATH": "/usr/local/bin"}
        env.update(kw.pop("env", {}))
        return [CHROOT, "--userspec=65532:65532", self.rootfs] + list(args), env

    def test_runs_from_the_root_filesystem(self):
        self.unpack()
        extra_env = {}
        if os.environ.get("TEST_MODE", "release") != "release":
            # a sanitizer runtime reads /proc/self/maps
            os.makedirs(os.path.join(self.rootfs, "proc"), exist_ok=True)
            if not type(self).mounted:
                subprocess.run(["mount", "-t", "proc", "proc",
                                os.path.join(self.rootfs, "proc")], check=True)
                type(self).mounted = True
            extra_env = {k: v for k, v in os.environ.items() if k.endswith("SAN_OPTIONS")}
        args, env = self.chroot("informer-proxy", "--version", env=extra_env)
        p = subprocess.run(args, env=env, capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(p.stdout.startswith("informer-proxy %s" % self.version), p.stdout)

        fake = h.fake("--quiet", seed="pods=7")  # listens on 127.0.0.1
        self.addCleanup(fake.stop)
        args, env = self.chroot("/usr/local/bin/informer-proxy", "--listen", "127.0.0.1:0",
                                "--server", fake.url, "--resources", "pods",
                                env=extra_env)
        proxy = h.Server("informer-proxy (image)", args, env=env)
        self.addCleanup(proxy.stop)
        h.wait_ready(proxy.url)
        s, lst = h.get_json(proxy.url + "/api/v1/pods?resourceVersion=0")
        self.assertEqual((s, len(lst["items"])), (200, 7))
        # it runs as 65532, as the config says
        with open("/proc/%d/status" % proxy.proc.pid) as f:
            uids = [ln.split()[1:] for ln in f if ln.startswith("Uid:")][0]
        self.assertEqual(set(uids), {"65532"})
        # the chart's exec probe, from inside the image, found through PATH
        args, env = self.chroot("informer-proxy", "--probe", proxy.url + "/readyz",
                                env=extra_env)
        self.assertEqual(subprocess.run(args, env=env, timeout=30).returncode, 0)
        args, env = self.chroot("informer-proxy", "--probe", "http://127.0.0.1:9/readyz",
                                env=extra_env)
        self.assertEqual(subprocess.run(args, env=env, capture_output=True,
                                        timeout=30).returncode, 1)


if __name__ == "__main__":
    unittest.main()
