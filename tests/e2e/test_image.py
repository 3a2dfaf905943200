"""make image: the OCI image built offline by scripts/image.sh.

The test builds the arm64 binary (make, a no-op once built) and the image
three times into temporary files: twice alike (IMAGE_SOURCE set, the
commit's time), which must give the same bytes and digests, and once
with no IMAGE_SOURCE and another SOURCE_DATE_EPOCH, which must differ and
carry that time and no source label. It reads the OCI layout with its own
code (index, image index, manifests, configs, layers, every blob checked
against its digest) and unpacks each architecture's layers into a root
filesystem: the binary, exactly the shared libraries the loader names
(and the symlinks to them), the CA bundle, passwd and group entries for
65532, no shell; the SPDX SBOM names the Debian package and version of
every copied file, and each package's copyright file and dpkg entry is
in the image. skopeo (the documented way to push it) reads it too. Then
it runs the amd64 binary from its root with chroot, as user 65532,
against the fake apiserver on 127.0.0.1 (a chroot shares the network
namespace) until /readyz is 200, and uses the binary's own exec probe as
the chart does; and the arm64 binary under qemu-aarch64-static with the
arm64 root as its library prefix, until /readyz is 200 and a LIST is
answered. Needs root (chroot), as make test runs; runner.py counts a
skip here as a failure."""
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
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))
import harness as h  # noqa: E402

ROOT = h.ROOT
BIN = os.path.join(h.BIN, "informer-proxy")
ARM64_BIN = os.path.join(ROOT, "build", "arm64", "bin", "informer-proxy")
CHROOT = shutil.which("chroot") or "/usr/sbin/chroot"
QEMU = shutil.which("qemu-aarch64-static") or "/usr/bin/qemu-aarch64-static"
MAX_BYTES = 40 << 20  # the image's budget, both architectures
SOURCE = "https://example.com/informer-proxy.git"
ARCHES = ("amd64", "arm64")
MANIFEST = "application/vnd.oci.image.manifest.v1+json"
INDEX = "application/vnd.oci.image.index.v1+json"


def ldd(path, arch="amd64"):
    """The absolute paths the loader names for path: libraries and the
    loader itself (arm64: the arm64 loader's --list under qemu)."""
    cmd = ["ldd", path] if arch == "amd64" else [QEMU, "/lib/ld-linux-aarch64.so.1",
                                                   "--list", path]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    paths = []
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 3 and f[1] == "=>" and f[2].startswith("/"):
            paths.append(f[2])
        elif f and f[0].startswith("/"):
            paths.append(f[0])
    return paths


def dpkg_owner(path):
    """The package (NAME:ARCH) dpkg says owns path, under either spelling."""
    bare = path[4:] if path.startswith("/usr/") else path
    for q in (path, bare, "/usr" + bare):
        p = subprocess.run(["dpkg", "-S", q], capture_output=True, text=True)
        lines = [ln for ln in p.stdout.splitlines() if not ln.startswith("diversion")]
        if p.returncode == 0 and lines:
            return lines[0].split(": ")[0]
    raise AssertionError("no package owns " + path)


def build(out, env):
    e = {k: v for k, v in os.environ.items()
         if k not in ("IMAGE_SOURCE", "SOURCE_DATE_EPOCH")}
    e.update(env)
    p = subprocess.run([os.path.join(ROOT, "scripts", "image.sh"), out], capture_output=True,
                       text=True, timeout=900, env=e)
    if p.returncode != 0:
        raise RuntimeError("scripts/image.sh: " + p.stderr + p.stdout)
    return p.stdout


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


class Layout:
    """An OCI layout unpacked from a tar, read and checked with our own code."""

    def __init__(self, tar, into):
        self.dir = into
        os.mkdir(into)
        with tarfile.open(tar) as t:
            t.extractall(into)
        with open(os.path.join(into, "oci-layout")) as f:
            assert json.load(f)["imageLayoutVersion"] == "1.0.0"
        with open(os.path.join(into, "index.json")) as f:
            self.index = json.load(f)

    def blob(self, desc):
        algo, hexd = desc["digest"].split(":")
        with open(os.path.join(self.dir, "blobs", algo, hexd), "rb") as f:
            data = f.read()
        assert algo == "sha256" and hashlib.sha256(data).hexdigest() == hexd, desc
        assert len(data) == desc["size"], desc
        return data

    def tagged(self, tag):
        found = [m for m in self.index["manifests"]
                 if m.get("annotations", {}).get("org.opencontainers.image.ref.name") == tag]
        assert len(found) == 1, (tag, self.index)
        return found[0]

    def manifest(self, version, arch):
        """The manifest for arch, found through the image index VERSION,
        and the same as the tag VERSION-arch."""
        top = self.tagged(version)
        assert top["mediaType"] == INDEX, top
        idx = json.loads(self.blob(top))
        assert idx["mediaType"] == INDEX, idx
        assert sorted(m["platform"]["architecture"] for m in idx["manifests"]) == list(ARCHES)
        desc = [m for m in idx["manifests"] if m["platform"]["architecture"] == arch][0]
        assert desc["mediaType"] == MANIFEST and desc["platform"]["os"] == "linux", desc
        assert desc["digest"] == self.tagged(version + "-" + arch)["digest"]
        return json.loads(self.blob(desc))

    def config(self, version, arch):
        return json.loads(self.blob(self.manifest(version, arch)["config"]))

    def layers(self, version, arch):
        """Each layer as an open tarfile."""
        for layer in self.manifest(version, arch)["layers"]:
            data = self.blob(layer)
            if layer["mediaType"].endswith("+gzip"):
                data = gzip.decompress(data)
            yield tarfile.open(fileobj=io.BytesIO(data))


class Image(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="image-")
        with open(os.path.join(ROOT, "VERSION")) as f:
            cls.version = f.read().strip()
        cls.commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"],
                                    capture_output=True, text=True).stdout.strip()
        cls.epoch = int(subprocess.run(["git", "-C", ROOT, "log", "-1", "--format=%ct"],
                                       capture_output=True, text=True).stdout.strip() or 0)
        # the arm64 proxy alone, cross-compiled (make test-build and make
        # image do the same; a no-op then), told the suite's mode so that
        # make keeps that mode's stamp and does not relink bin/ later
        mode = {"asan": ["SANITIZE=1"], "tsan": ["SANITIZE=thread"]}.get(
            os.environ.get("TEST_MODE", "release"), [])
        p = subprocess.run(["make", "--no-print-directory", "-C", ROOT, "INNER=1", "-j2"] + mode
                           + ["build/arm64/bin/informer-proxy"], capture_output=True, text=True,
                           timeout=1200)
        if p.returncode != 0:
            raise RuntimeError("make build/arm64/bin/informer-proxy: " + p.stderr + p.stdout)
        tars = []
        for name, env in (("a", {"IMAGE_SOURCE": SOURCE}), ("b", {"IMAGE_SOURCE": SOURCE}),
                          ("c", {"SOURCE_DATE_EPOCH": "86400"})):
            d = os.path.join(cls.tmp, name)
            os.mkdir(d)
            tar = os.path.join(d, "informer-proxy-%s.oci.tar" % cls.version)
            build(tar, env)
            tars.append(tar)
        cls.tar, cls.tar_again, cls.tar_other = tars
        cls.layout = Layout(cls.tar, os.path.join(cls.tmp, "layout"))
        cls.rootfs = {}
        cls.mounted = False

    @classmethod
    def tearDownClass(cls):
        if cls.mounted:
            subprocess.run(["umount", os.path.join(cls.rootfs["amd64"], "proc")])
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def unpack(cls, arch):
        """arch's layers, in order, into a root filesystem (once); its path."""
        if arch in cls.rootfs:
            return cls.rootfs[arch]
        r = os.path.join(cls.tmp, "rootfs-" + arch)
        os.mkdir(r)
        for t in cls.layout.layers(cls.version, arch):
            with t:
                names = t.getnames()
                assert not [n for n in names if "/.wh." in "/" + n], "whiteouts in a fresh image"
                t.extractall(r, numeric_owner=True)
        cls.rootfs[arch] = r
        return r

    def sbom_of(self, arch):
        with open(os.path.join(self.unpack(arch), "usr/share/doc/informer-proxy/sbom.spdx.json"),
                  "rb") as f:
            return f.read()

    def test_reproducible(self):
        """The same commit gives the same digests, bytes for bytes; another
        SOURCE_DATE_EPOCH gives another image carrying that time."""
        again = Layout(self.tar_again, os.path.join(self.tmp, "layout-again"))
        other = Layout(self.tar_other, os.path.join(self.tmp, "layout-other"))
        self.assertEqual(self.layout.tagged(self.version)["digest"],
                         again.tagged(self.version)["digest"])
        for arch in ARCHES:
            tag = self.version + "-" + arch
            self.assertEqual(self.layout.tagged(tag)["digest"], again.tagged(tag)["digest"])
        with open(self.tar, "rb") as a, open(self.tar_again, "rb") as b:
            self.assertEqual(hashlib.sha256(a.read()).digest(), hashlib.sha256(b.read()).digest())
        for arch in ARCHES:
            base = self.tar[:-len(".oci.tar")]
            with open("%s-%s.spdx.json" % (base, arch), "rb") as a, \
                    open("%s-%s.spdx.json" % (self.tar_again[:-len(".oci.tar")], arch), "rb") as b:
                self.assertEqual(a.read(), b.read())
        self.assertNotEqual(self.layout.tagged(self.version)["digest"],
                            other.tagged(self.version)["digest"])
        # every time in it is SOURCE_DATE_EPOCH: config, history, files
        for lay, epoch in ((self.layout, self.epoch), (other, 86400)):
            stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))
            for arch in ARCHES:
                cfg = lay.config(self.version, arch)
                self.assertEqual(cfg["created"], stamp)
                self.assertTrue(cfg["history"])
                self.assertEqual({hh["created"] for hh in cfg["history"]}, {stamp})
                for t in lay.layers(self.version, arch):
                    with t:
                        members = t.getmembers()
                        self.assertEqual({m.mtime for m in members}, {epoch})
                        self.assertEqual({(m.uid, m.gid) for m in members}, {(0, 0)})
                        names = [m.name for m in members]
                        self.assertEqual(names, sorted(names))
        # the source label only from IMAGE_SOURCE: never a path
        labels = other.config(self.version, "amd64")["config"]["Labels"]
        self.assertNotIn("org.opencontainers.image.source", labels)

    def test_refuses_a_wrong_binary_or_epoch(self):
        """A binary of the other architecture, or a SOURCE_DATE_EPOCH that
        is no number, stops the build before anything is written."""
        out = os.path.join(self.tmp, "refused", "x.oci.tar")
        for env, why in (({"BIN": ARM64_BIN}, "is for AArch64, not amd64"),
                         ({"BIN_ARM64": BIN}, "not arm64"),
                         ({"SOURCE_DATE_EPOCH": "yesterday"}, "is not a number")):
            with self.subTest(env=env):
                with self.assertRaises(RuntimeError) as cm:
                    build(out, env)
                self.assertIn(why, str(cm.exception))
                self.assertFalse(os.path.exists(out))

    def test_index(self):
        """VERSION is an image index of linux/amd64 and linux/arm64."""
        top = self.layout.tagged(self.version)
        self.assertEqual(top["mediaType"], INDEX)
        idx = json.loads(self.layout.blob(top))
        self.assertEqual(sorted((m["platform"]["os"], m["platform"]["architecture"])
                                for m in idx["manifests"]),
                         [("linux", "amd64"), ("linux", "arm64")])
        self.assertEqual(idx["annotations"]["org.opencontainers.image.version"], self.version)

    def test_config(self):
        for arch in ARCHES:
            with self.subTest(arch=arch):
                m = self.layout.manifest(self.version, arch)
                self.assertEqual(m["config"]["mediaType"],
                                 "application/vnd.oci.image.config.v1+json")
                cfg = self.layout.config(self.version, arch)
                self.assertEqual((cfg["os"], cfg["architecture"]), ("linux", arch))
                c = cfg["config"]
                self.assertEqual(c["User"], "65532:65532")
                self.assertEqual(c["Entrypoint"], ["/usr/local/bin/informer-proxy"])
                self.assertIn("PATH=/usr/local/bin", c["Env"])
                labels = c["Labels"]
                self.assertEqual(labels["org.opencontainers.image.version"], self.version)
                self.assertEqual(labels["org.opencontainers.image.licenses"], "Apache-2.0")
                self.assertEqual(labels["org.opencontainers.image.title"], "informer-proxy")
                self.assertEqual(labels["org.opencontainers.image.source"], SOURCE)
                self.assertEqual(labels["org.opencontainers.image.revision"], self.commit)
                self.assertRegex(self.commit, r"^[0-9a-f]{40}$")
                self.assertEqual(len(m["layers"]), 1)
                self.assertEqual(len(cfg["rootfs"]["diff_ids"]), 1)
        size = os.path.getsize(self.tar)
        self.assertLess(size, MAX_BYTES, "the image is %d bytes" % size)
        print("\n    image %s: %d bytes (%.1f MiB)" % (os.path.basename(self.tar), size,
                                                       size / 1048576.0), end=" ")

    def test_contents(self):
        for arch, binary in (("amd64", BIN), ("arm64", ARM64_BIN)):
            with self.subTest(arch=arch):
                self.check_contents(arch, binary)

    def check_contents(self, arch, binary):
        r = self.unpack(arch)
        # the binary, as the entrypoint names it, for its architecture
        exe = os.path.join(r, "usr/local/bin/informer-proxy")
        self.assertTrue(os.path.isfile(exe) and os.access(exe, os.X_OK))
        with open(exe, "rb") as f:
            elf = f.read(20)
        self.assertEqual(int.from_bytes(elf[18:20], "little"),
                         {"amd64": 62, "arm64": 183}[arch])
        # exactly the loader's libraries: each path resolves inside the
        # root to the same file as on the host, and no other shared object
        want = {}
        for lib in ldd(binary, arch):
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
        self.assertEqual(have, set(want), "shared objects beyond the loader's, or missing")
        # nothing else executable: no shell, no package manager
        for sh in ("bin/sh", "usr/bin/sh", "bin/bash"):
            self.assertFalse(os.path.lexists(os.path.join(r, sh)), sh)
        with open(os.path.join(r, "etc/passwd")) as f:
            self.assertIn("nonroot:x:65532:65532:", f.read())
        with open(os.path.join(r, "etc/group")) as f:
            self.assertIn("nonroot:x:65532:", f.read())
        with open(os.path.join(r, "etc/ssl/certs/ca-certificates.crt")) as f:
            self.assertIn("BEGIN CERTIFICATE", f.read())
        with open(os.path.join(r, "etc/os-release")) as f:
            self.assertIn("ID=debian", f.read())
        self.assertEqual(os.stat(os.path.join(r, "tmp")).st_mode & 0o7777, 0o1777)
        with open(os.path.join(r, "usr/share/doc/informer-proxy/LICENSE")) as f:
            self.assertIn("Apache License", f.read())

    def test_sbom(self):
        for arch in ARCHES:
            with self.subTest(arch=arch):
                self.check_sbom(arch)

    def check_sbom(self, arch):
        """The SBOM parses as SPDX 2.3, names every copied file's Debian
        package with dpkg's version, and the image carries each package's
        copyright file (the LGPL notices) and dpkg status entry."""
        r = self.unpack(arch)
        raw = self.sbom_of(arch)
        with open("%s-%s.spdx.json" % (self.tar[:-len(".oci.tar")], arch), "rb") as f:
            self.assertEqual(f.read(), raw, "the SBOM beside the tarball is the image's")
        doc = json.loads(raw)
        self.assertEqual(doc["spdxVersion"], "SPDX-2.3")
        self.assertEqual(doc["SPDXID"], "SPDXRef-DOCUMENT")
        self.assertTrue(doc["documentNamespace"].startswith("https://"))
        pkgs = {p["SPDXID"]: p for p in doc["packages"]}
        self.assertEqual(len(pkgs), len(doc["packages"]), "SPDXIDs are unique")
        for p in doc["packages"]:
            self.assertRegex(p["SPDXID"], r"^SPDXRef-[A-Za-z0-9.-]+$")
        me = pkgs["SPDXRef-Package-informer-proxy"]
        self.assertEqual(me["versionInfo"], self.version)
        self.assertEqual(me["licenseDeclared"], "Apache-2.0")
        with open(os.path.join(r, "usr/local/bin/informer-proxy"), "rb") as f:
            self.assertEqual(me["checksums"], [{"algorithm": "SHA256",
                                                "checksumValue": hashlib.sha256(f.read()).hexdigest()}])
        rel = {(x["spdxElementId"], x["relationshipType"], x["relatedSpdxElement"])
               for x in doc["relationships"]}
        self.assertIn(("SPDXRef-DOCUMENT", "DESCRIBES", "SPDXRef-Package-informer-proxy"), rel)
        debs = {p["name"]: p for p in doc["packages"] if p["SPDXID"] != me["SPDXID"]}
        # every regular file the image copied from a Debian package:
        # the loader's libraries, found again here with dpkg -S
        binary = BIN if arch == "amd64" else ARM64_BIN
        owners = {dpkg_owner(os.path.realpath(lib)) for lib in ldd(binary, arch)}
        owners.add("ca-certificates")
        self.assertIn("libgnutls30:" + arch, owners)  # LGPL, linked by libmicrohttpd
        for owner in sorted(owners):
            name = owner.split(":")[0]
            self.assertIn(name, debs, "%s is not in the SBOM" % owner)
            p = debs[name]
            want = subprocess.run(["dpkg-query", "-W", "-f=${Version} ${Architecture}", owner],
                                  capture_output=True, text=True, check=True).stdout.split()
            self.assertEqual(p["versionInfo"], want[0], owner)
            self.assertIn("pkg:deb/debian/%s@" % name,
                          p["externalRefs"][0]["referenceLocator"])
            self.assertIn("arch=" + want[1], p["externalRefs"][0]["referenceLocator"])
            self.assertIn(("SPDXRef-Package-informer-proxy", "DEPENDS_ON", p["SPDXID"]), rel)
            copyright = os.path.join(r, "usr/share/doc", name, "copyright")
            self.assertTrue(os.path.isfile(copyright), "%s: no copyright file" % owner)
            with open(copyright, "rb") as a, \
                    open(os.path.join("/usr/share/doc", name, "copyright"), "rb") as b:
                self.assertEqual(a.read(), b.read(), owner)
            with open(os.path.join(r, "var/lib/dpkg/status.d", name)) as f:
                status = f.read()
            self.assertIn("Package: %s\n" % name, status)
            self.assertIn("Version: %s\n" % want[0], status)
        self.assertEqual(set(debs), {o.split(":")[0] for o in owners},
                         "packages in the SBOM that no copied file came from")
        with open(os.path.join(r, "usr/share/doc/libgnutls30/copyright")) as f:
            self.assertIn("LGPL", f.read())

    def test_skopeo_reads_the_archive(self):
        """The documented way to push it (skopeo copy oci-archive:...) reads
        the archive: inspect each platform, and copy both to a local
        directory, offline."""
        ref = "oci-archive:%s:%s" % (self.tar, self.version)
        for arch in ARCHES:
            p = subprocess.run(["skopeo", "--override-arch", arch, "inspect", ref],
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(p.returncode, 0, p.stderr)
            info = json.loads(p.stdout)
            self.assertEqual(info["Labels"]["org.opencontainers.image.version"], self.version)
            self.assertEqual((info["Os"], info["Architecture"]), ("linux", arch))
            self.assertEqual(len(info["Layers"]), 1)
        out = os.path.join(self.tmp, "copied")
        p = subprocess.run(["skopeo", "copy", "--all", ref, "dir:" + out], capture_output=True,
                           text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(out, "manifest.json")) as f:
            self.assertEqual(json.load(f)["mediaType"], INDEX)
        # a tag the archive does not have is refused
        p = subprocess.run(["skopeo", "inspect", "oci-archive:%s:nosuchtag" % self.tar],
                           capture_output=True, text=True, timeout=120)
        self.assertNotEqual(p.returncode, 0)

    def chroot(self, *args, **kw):
        env = {"PATH": "/usr/local/bin"}
        env.update(kw.pop("env", {}))
        return [CHROOT, "--userspec=65532:65532", self.rootfs["amd64"]] + list(args), env

    def test_runs_from_the_root_filesystem(self):
        r = self.unpack("amd64")
        extra_env = {}
        if os.environ.get("TEST_MODE", "release") != "release":
            # a sanitizer runtime reads /proc/self/maps
            os.makedirs(os.path.join(r, "proc"), exist_ok=True)
            if not type(self).mounted:
                subprocess.run(["mount", "-t", "proc", "proc", os.path.join(r, "proc")],
                               check=True)
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

    def test_arm64_runs_under_qemu(self):
        """The arm64 proxy, run by qemu-aarch64-static with the arm64 root
        as its prefix (the image's own loader and libraries), answers
        /readyz and a LIST from the fake apiserver."""
        r = self.unpack("arm64")
        exe = os.path.join(r, "usr/local/bin/informer-proxy")
        p = subprocess.run([QEMU, "-L", r, exe, "--version"], capture_output=True, text=True,
                           timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(p.stdout.startswith("informer-proxy %s" % self.version), p.stdout)

        fake = h.fake("--quiet", seed="pods=5")  # amd64, on 127.0.0.1
        self.addCleanup(fake.stop)
        proxy = h.Server("informer-proxy (arm64 image)",
                         [QEMU, "-L", r, exe, "--listen", "127.0.0.1:0", "--server", fake.url,
                          "--resources", "pods"], timeout=120, env={"PATH": "/usr/local/bin"})
        self.addCleanup(proxy.stop)
        h.wait_ready(proxy.url, timeout=120)
        s, lst = h.get_json(proxy.url + "/api/v1/pods?resourceVersion=0")
        self.assertEqual((s, len(lst["items"])), (200, 5))
        # the libraries it runs on are the image's, not this machine's
        with open("/proc/%d/maps" % proxy.proc.pid) as f:
            libs = {ln.split()[-1] for ln in f if re.search(r"\.so(\.|\s|$)", ln)}
        arm = [x for x in libs if "aarch64" in x]
        self.assertTrue(arm, libs)
        self.assertEqual([x for x in arm if not x.startswith(r + "/")], [])


if __name__ == "__main__":
    unittest.main()
