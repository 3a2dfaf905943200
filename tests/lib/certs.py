"""certs: a throwaway test PKI made with the openssl CLI at test time.

make_pki(dir) writes a CA, a server certificate (for 127.0.0.1, ::1,
localhost and any extra names, e.g. a tls-server-name to test) and a
client certificate signed by that CA, and returns their paths. Keys are
created in the given (temporary) directory and never committed. Also
kubeconfig(...) writes a kubeconfig that uses them, with the material as
files or as base64 *-data fields.

    from certs import make_pki, kubeconfig
    pki = make_pki(tmpdir, names=["api.internal"])
    kc = kubeconfig(tmpdir, "https://127.0.0.1:%d" % port, pki, token="t")
"""
import base64
import os
import subprocess


def _openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def make_pki(d, names=(), client_cn="informer-proxy-test",
             client_org="system:masters", days=2, only_names=None):
    """CA, server and client certificates under d; returns a dict of
    absolute paths: ca, ca_key, server_cert, server_key, client_cert,
    client_key. only_names: the server certificate's DNS names instead of
    127.0.0.1, ::1, localhost and names (its CN the first of them)."""
    d = os.path.abspath(d)
    os.makedirs(d, exist_ok=True)
    p = {k: os.path.join(d, f) for k, f in [
        ("ca", "ca.crt"), ("ca_key", "ca.key"),
        ("server_cert", "server.crt"), ("server_key", "server.key"),
        ("client_cert", "client.crt"), ("client_key", "client.key")]}
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
          "-nodes"]
    _openssl("req", "-x509", *ec, "-keyout", p["ca_key"], "-out", p["ca"],
             "-days", str(days), "-subj", "/CN=informer-proxy-test-ca",
             "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=d)
    san = ",".join(["IP:127.0.0.1", "IP:::1", "DNS:localhost"] +
                   ["DNS:" + n for n in names])
    server_cn = "localhost"
    if only_names:
        san = ",".join("DNS:" + n for n in only_names)
        server_cn = only_names[0]
    for kind, subj, ext in [
            ("server", "/CN=" + server_cn,
             ["subjectAltName=" + san, "extendedKeyUsage=serverAuth"]),
            ("client", "/O=%s/CN=%s" % (client_org, client_cn),
             ["extendedKeyUsage=clientAuth"])]:
        csr = os.path.join(d, kind + ".csr")
        extfile = os.path.join(d, kind + ".ext")
        with open(extfile, "w") as f:
            f.write("\n".join(ext + ["basicConstraints=CA:FALSE"]) + "\n")
        _openssl("req", "-new", *ec, "-keyout", p[kind + "_key"], "-out",
                 csr, "-subj", subj, cwd=d)
        _openssl("x509", "-req", "-in", csr, "-CA", p["ca"], "-CAkey",
                 p["ca_key"], "-CAcreateserial", "-out", p[kind + "_cert"],
                 "-days", str(days), "-extfile", extfile, cwd=d)
    for k in ("ca_key", "server_key", "client_key"):
        os.chmod(p[k], 0o600)
    return p


def _b64(path):
    with open(path, "rb") as f:
        return base64.b64encode(f.read()).decode()


def kubeconfig(d, server, pki=None, token=None, token_file=None,
               client_cert=False, inline=False, tls_server_name=None,
               name="kubeconfig"):
    """Write d/name and return its path. inline=True embeds the CA, client
    certificate and key as *-data fields instead of file paths."""
    cluster = ["    server: " + server]
    if pki and inline:
        cluster.append("    certificate-authority-data: " + _b64(pki["ca"]))
    elif pki:
        cluster.append("    certificate-authority: " + pki["ca"])
    if tls_server_name:
        cluster.append("    tls-server-name: " + tls_server_name)
    user = []
    if token:
        user.append("    token: " + token)
    if token_file:
        user.append("    tokenFile: " + token_file)
    if client_cert and inline:
        user.append("    client-certificate-data: " + _b64(pki["client_cert"]))
        user.append("    client-key-data: " + _b64(pki["client_key"]))
    elif client_cert:
        user.append("    client-certificate: " + pki["client_cert"])
        user.append("    client-key: " + pki["client_key"])
    text = "\n".join([
        "apiVersion: v1", "kind: Config", "current-context: test",
        "clusters:", "- name: test", "  cluster:", *cluster,
        "users:", "- name: test", "  user:" + ("" if user else " {}"), *user,
        "contexts:", "- name: test", "  context: {cluster: test, user: test}",
        ""])
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o600)
    return path
