"""Shards by https:// from a local server whose certificate no system CA
signed: feed-fetch checks it (the download fails, naming the URL and the
certificate), and takes the CA certificates from $SSL_CERT_FILE or
$CURL_CA_BUNDLE (as OpenSSL and curl do) where set. Without them it uses
libcurl's default bundle where that exists, else the first of the bundles
Linux distributions keep (src/remote/fetch_http.c): the wheel carries
Debian's libcurl, whose default Fedora, RHEL and SUSE do not have."""
import os
import shutil
import subprocess

import pytest

from conftest import build_path
from remote_server import Server
from test_remote import assert_same, cache, load, shards  # noqa: F401 (fixtures)

import libfeed

pytestmark = [
    pytest.mark.skipif(not os.access(build_path("bin", "feed-fetch"), os.X_OK),
                       reason="no feed-fetch in this build (libcurl not found)"),
    pytest.mark.skipif(not shutil.which("openssl"),
                       reason="no openssl command to make a certificate (scripts/deps.sh installs it)"),
]


@pytest.fixture(scope="module")
def cert(tmp_path_factory):
    """A self-signed certificate for 127.0.0.1: (certfile, keyfile)."""
    d = tmp_path_factory.mktemp("tls")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(d / "key.pem"), "-out", str(d / "cert.pem")],
                   check=True, capture_output=True, timeout=120)
    return d / "cert.pem", d / "key.pem"


@pytest.fixture
def https(shards, cert):
    s = Server(shards, tls=cert)
    yield s
    s.close()


def test_https_certificate_checked_and_ca_from_the_environment(make_loader, shards, https, cert, cache,
                                                               monkeypatch):
    for v in ("SSL_CERT_FILE", "CURL_CA_BUNDLE"):
        monkeypatch.delenv(v, raising=False)
    with pytest.raises(libfeed.FeedError) as e:  # no CA this system trusts signed it
        make_loader(https.url + "/s-{0..2}.tar", cache_dir=cache, fetch_retries=3)
    assert f"{https.url}/s-" in str(e.value) and "certificate" in str(e.value), e.value
    assert "tried" not in str(e.value), e.value  # refused once is refused: not tried again
    ref = load(make_loader, str(shards / "s-{0..2}.tar"))
    for i, var in enumerate(("SSL_CERT_FILE", "CURL_CA_BUNDLE")):
        monkeypatch.setenv(var, str(cert[0]))
        assert_same(load(make_loader, https.url + "/s-{0..2}.tar", cache_dir=f"{cache}-{i}"), ref)
        monkeypatch.delenv(var)
    gets = sorted(p for m, p, _ in https.requests("GET"))
    assert gets == sorted([f"/s-{i}.tar" for i in range(3)] * 2), gets  # each time by https
