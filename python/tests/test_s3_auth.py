"""s3:// shards from stores that check every signature, in two ways.

moto with authentication on: moto's server in a child process, switched to
IAM authentication (its /moto-api/reset-auth, as INITIAL_NO_AUTH_ACTION_COUNT=0
does) after the setup. moto signs each request again (botocore's
S3SigV4Auth, with the secret of the key id the request names) and answers 403
SignatureDoesNotMatch or InvalidAccessKeyId where it differs, checks the
session token of temporary credentials (sts:AssumeRole's; it keeps no record
of sts:GetSessionToken's, so those cannot be checked), and allows only what
the key's policies allow (s3:GetObject, s3:ListBucket here). But it signs
again over the URL as its web server decoded and re-quoted it, not as it was
sent: a key with '+', '=' or '&', or a listing whose prefix has a '/'
(prefix=train%2F, as S3 wants it and boto3 sends it), fails its check even
from boto3. So the moto tests use keys and listings that survive that: plain
keys, keys with spaces, a listing at the bucket's root.

A checking proxy for the rest: an HTTP server in this process that checks
the signature of each request as S3 defines it (the canonical URI and query
rebuilt from the decoded key and parameters, URI-encoded once; every x-amz-*
header signed; the credential scope's key id, region and service; the session
token), with botocore's signer as the reference, then passes the request to
a second moto (authentication off). It verifies what moto cannot: keys with
' ', '+', '=' and '&', a listing with a prefix, a listing of two pages (the
continuation-token in the signed query), the region (AWS_REGION).

Each store is a child process (not ThreadedMotoServer): moto's
authentication switch and its backends are the process's, and
test_remote.py's moto stays as it is."""
import hashlib
import http.client
import http.server
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request

import pytest

from conftest import NIMG, build_path
from test_remote import NSHARDS, shards  # noqa: F401 (the fixture: s-0.tar .. s-2.tar)
from test_tar import all_batches

import libfeed

pytestmark = pytest.mark.skipif(not os.access(build_path("bin", "feed-fetch"), os.X_OK),
                                reason="no feed-fetch in this build (libcurl not found)")

PAGE = 1000  # S3's (and moto's) page of a listing
BUCKET = "feed-auth"
REGION = "eu-west-1"
# Keys that need URI-encoding: ' ', '+' (a form decoder's space), '=' and '&'
# (a query's separators). moto checks only the spaces right.
SPACE_KEYS = [f"with space/s {i}.tar" for i in range(NSHARDS)]
ODD_KEYS = [f"odd dir+x=1&y/s {i}+a b.tar" for i in range(NSHARDS)]
READ_POLICY = json.dumps({
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Action": ["s3:GetObject", "s3:ListBucket"],
                   "Resource": [f"arn:aws:s3:::{BUCKET}", f"arn:aws:s3:::{BUCKET}/*"]}],
})
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Moto:
    """moto's server in a child process on 127.0.0.1; admin: boto3 clients
    with any key (moto lets anyone do anything until auth is switched on)."""

    def __init__(self, log):
        import boto3

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
        with open(log, "w") as f:  # a file: a full pipe would stop the server
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
                env=env, stdout=f, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while True:  # until it accepts (bounded; its exit is an error)
            if self.proc.poll() is not None:
                raise AssertionError(f"moto's server exited ({self.proc.returncode}): {log.read_text()[-2000:]}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, f"moto's server did not accept on {self.port} in 60 s"
                time.sleep(0.05)
        kw = dict(endpoint_url=self.url, region_name="us-east-1", aws_access_key_id="AKIAADMIN0000000000",
                  aws_secret_access_key="admin")
        self.iam, self.sts, self.s3 = (boto3.client(n, **kw) for n in ("iam", "sts", "s3"))

    def put_shards(self, shards, keys):
        for i, key in enumerate(keys):
            self.s3.upload_file(str(shards / f"s-{i}.tar"), BUCKET, key)

    def auth_on(self):
        req = urllib.request.Request(f"{self.url}/moto-api/reset-auth", data=b"0", method="POST",
                                     headers={"Content-Type": "text/plain"})  # not a form: the body is read
        with urllib.request.urlopen(req, timeout=30) as r:
            assert json.load(r)["status"] == "ok"

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def start_moto(tmp_path_factory, name):
    pytest.importorskip("moto.server", reason="moto[server] is not installed (pip install 'moto[server]')")
    pytest.importorskip("boto3", reason="boto3 is not installed (pip install 'moto[server]')")
    return Moto(tmp_path_factory.mktemp(name) / "server.log")


@pytest.fixture(scope="module")
def moto_auth(shards, tmp_path_factory):
    """moto with authentication on: the bucket with the shards (plain keys,
    keys with spaces, and at its root), a user allowed to read it and its
    key, a role allowed the same and credentials from assuming it."""
    m = start_moto(tmp_path_factory, "moto-auth")
    try:
        m.iam.create_user(UserName="reader")
        m.iam.put_user_policy(UserName="reader", PolicyName="read", PolicyDocument=READ_POLICY)
        key = m.iam.create_access_key(UserName="reader")["AccessKey"]
        trust = json.dumps({"Version": "2012-10-17", "Statement": [{
            "Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::123456789012:root"},
            "Action": "sts:AssumeRole"}]})
        role = m.iam.create_role(RoleName="reader-role", AssumeRolePolicyDocument=trust)["Role"]
        m.iam.put_role_policy(RoleName="reader-role", PolicyName="read", PolicyDocument=READ_POLICY)
        m.temp = m.sts.assume_role(RoleArn=role["Arn"], RoleSessionName="feed")["Credentials"]
        m.s3.create_bucket(Bucket=BUCKET)
        m.put_shards(shards, [f"train/s-{i}.tar" for i in range(NSHARDS)])
        m.put_shards(shards, SPACE_KEYS)
        m.put_shards(shards, [f"s-{i}.tar" for i in range(NSHARDS)])
        m.s3.put_object(Bucket=BUCKET, Key="notes.txt", Body=b"not a shard")
        m.id, m.secret = key["AccessKeyId"], key["SecretAccessKey"]
        m.auth_on()  # from here on every request is authenticated and authorized
        yield m
    finally:
        m.stop()


# ---- the checking proxy ------------------------------------------------------------

def s3_error(h, status, code, message):
    body = (f'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>{code}</Code>'
            f'<Message>{message}</Message></Error>').encode()
    h.send_response(status)
    h.send_header("Content-Type", "application/xml")
    h.send_header("Content-Length", str(0 if h.command == "HEAD" else len(body)))
    h.end_headers()
    if h.command != "HEAD":
        h.wfile.write(body)


def check_sigv4(method, raw_path, headers, key_id, secret, region, token):
    """None where the request is signed as S3 wants it, else (code, why)."""
    from botocore.auth import S3SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    auth = headers.get("Authorization", "")
    if not auth.startswith("AWS4-HMAC-SHA256 "):
        return "AccessDenied", "not signed with SigV4"
    fields = dict(p.strip().split("=", 1) for p in auth[len("AWS4-HMAC-SHA256 "):].split(","))
    cred = fields["Credential"].split("/")
    if cred[0] != key_id:
        return "InvalidAccessKeyId", f"unknown key id {cred[0]}"
    if cred[2:] != [region, "s3", "aws4_request"]:
        return "AuthorizationHeaderMalformed", f"the scope is {'/'.join(cred[2:])}, not {region}/s3/aws4_request"
    signed = fields["SignedHeaders"].split(";")
    names = {k.lower() for k in headers.keys()}
    unsigned = [n for n in names if (n.startswith("x-amz-") or n == "host") and n not in signed]
    if unsigned:
        return "AccessDenied", f"headers not signed: {unsigned}"
    if (headers.get("x-amz-security-token") or None) != token:
        return "InvalidToken", "the session token is not the one issued"
    if headers.get("x-amz-content-sha256") != EMPTY_SHA256:
        return "XAmzContentSHA256Mismatch", "the payload's hash is not an empty body's"
    # The canonical URI and query as S3 rebuilds them: the key and the
    # parameters decoded, then each URI-encoded once ('/' kept in the path).
    path, _, query = raw_path.partition("?")
    canon_path = urllib.parse.quote(urllib.parse.unquote(path), safe="/~")
    pairs = [p.partition("=") for p in query.split("&") if p]
    canon_query = "&".join(sorted(
        urllib.parse.quote(urllib.parse.unquote(k), safe="-_.~") + "=" +
        urllib.parse.quote(urllib.parse.unquote(v), safe="-_.~") for k, _, v in pairs))
    req = AWSRequest(method=method, url=f"http://{headers['Host']}{canon_path}" + ("?" + canon_query if pairs else ""),
                     headers={k: v for k, v in headers.items() if k.lower() in signed})
    req.context["timestamp"] = headers["X-Amz-Date"]
    signer = S3SigV4Auth(Credentials(key_id, secret, token), "s3", region)
    want = signer.signature(signer.string_to_sign(req, signer.canonical_request(req)), req)
    if fields["Signature"] != want:
        return "SignatureDoesNotMatch", "the request signature we calculated does not match"
    return None


class CheckingProxy:
    """Checks each request's signature (check_sigv4) against the credentials
    it holds, answers 403 where it fails, else passes it on to the store."""

    def __init__(self, store_port, key_id, secret, region=REGION, token=None):
        self.creds = (key_id, secret, region, token)
        self.log = []  # (method, raw path, None or the error code)
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_HEAD(self):
                outer.serve(self, store_port)

            do_GET = do_HEAD

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def serve(self, h, store_port):
        bad = check_sigv4(h.command, h.path, h.headers, *self.creds)
        self.log.append((h.command, h.path, bad and bad[0]))
        if bad:
            s3_error(h, 403, *bad)
            return
        conn = http.client.HTTPConnection("127.0.0.1", store_port, timeout=60)
        try:
            conn.request(h.command, h.path, headers={k: v for k, v in h.headers.items() if k.lower() != "host"})
            r = conn.getresponse()
            body = r.read()
        finally:
            conn.close()
        h.send_response(r.status)
        for k, v in r.getheaders():
            if k.lower() not in ("transfer-encoding", "connection", "server", "date"):
                h.send_header(k, v)
        h.end_headers()
        if h.command != "HEAD":
            h.wfile.write(body)

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def moto_open(shards, tmp_path_factory):
    """A second moto, authentication off, behind checking proxies: the
    shards under train/, under keys that need encoding, and after a page of
    other objects (paged/)."""
    m = start_moto(tmp_path_factory, "moto-open")
    try:
        m.s3.create_bucket(Bucket=BUCKET)
        m.put_shards(shards, [f"train/s-{i}.tar" for i in range(NSHARDS)])
        m.put_shards(shards, ODD_KEYS)
        m.s3.put_object(Bucket=BUCKET, Key="train/notes.txt", Body=b"not a shard")
        for i in range(PAGE):  # before the shards: only the second page has them
            m.s3.put_object(Bucket=BUCKET, Key=f"paged/a-{i:04d}.txt", Body=b"")
        m.put_shards(shards, [f"paged/z-{i}.tar" for i in range(NSHARDS)])
        yield m
    finally:
        m.stop()


@pytest.fixture
def proxy(moto_open):
    """A checking proxy to moto_open: proxy(key_id, secret, region=REGION, token=None)."""
    made = []

    def make(*creds, **kw):
        p = CheckingProxy(moto_open.port, *creds, **kw)
        made.append(p)
        return p

    yield make
    for p in made:
        p.close()


# ---- the tests -----------------------------------------------------------------------

@pytest.fixture
def aws(monkeypatch):
    """Sets what feed-fetch reads: aws(endpoint, key id, secret, token=None, region=REGION)."""
    for v in ("AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL_S3", "AWS_DEFAULT_REGION", "AWS_PROFILE"):
        monkeypatch.delenv(v, raising=False)

    def set_env(endpoint, key_id, secret, token=None, region=REGION):
        monkeypatch.setenv("AWS_ENDPOINT_URL", endpoint)
        monkeypatch.setenv("AWS_REGION", region)
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", key_id)
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", secret)
        if token is None:
            monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
        else:
            monkeypatch.setenv("AWS_SESSION_TOKEN", token)

    return set_env


def load(make_loader, source, **kw):
    L = make_loader(source, epochs=1, augment="val", shuffle=False, **kw)
    out = all_batches(L)
    L.close()
    return out


@pytest.fixture
def ref(make_loader, shards):
    """The shards read from disk."""
    return load(make_loader, str(shards / "s-{0..2}.tar"))


def assert_same(got, ref):
    assert sorted(got[2]) == list(range(NIMG))  # every sample, once
    assert (got[1] == ref[1]).all()
    assert (got[0] == ref[0]).all()


def wrong(secret):
    return secret[:-1] + ("A" if secret[-1] != "A" else "B")


def test_moto_checks_signatures(moto_auth):
    """The premise: this moto refuses a request signed with the wrong secret
    (else the moto tests would test no signature)."""
    import boto3
    from botocore.exceptions import ClientError

    kw = dict(endpoint_url=moto_auth.url, region_name=REGION, aws_access_key_id=moto_auth.id)
    good = boto3.client("s3", aws_secret_access_key=moto_auth.secret, **kw)
    assert good.head_object(Bucket=BUCKET, Key="train/s-0.tar")["ContentLength"] > 0
    bad = boto3.client("s3", aws_secret_access_key=wrong(moto_auth.secret), **kw)
    with pytest.raises(ClientError) as e:
        bad.list_objects_v2(Bucket=BUCKET)
    assert e.value.response["Error"]["Code"] == "SignatureDoesNotMatch"


def test_moto_signed_pattern_and_listing(make_loader, aws, moto_auth, ref, tmp_path):
    aws(moto_auth.url, moto_auth.id, moto_auth.secret)
    for i, src in enumerate([f"s3://{BUCKET}/train/s-{{0..2}}.tar", f"s3://{BUCKET}/with space/s {{0..2}}.tar",
                             f"s3://{BUCKET}/*.tar"]):
        assert_same(load(make_loader, src, cache_dir=str(tmp_path / str(i))), ref)


@pytest.mark.parametrize("what", ["secret", "key id"])
def test_moto_wrong_credentials_fail_naming_the_url(make_loader, aws, moto_auth, tmp_path, what):
    if what == "secret":
        aws(moto_auth.url, moto_auth.id, wrong(moto_auth.secret))
    else:
        aws(moto_auth.url, "AKIA" + "Z" * 16, moto_auth.secret)
    with pytest.raises(libfeed.FeedDatasetError) as e:
        make_loader(f"s3://{BUCKET}/train/s-{{0..2}}.tar", cache_dir=str(tmp_path / "a"))
    assert f"s3://{BUCKET}/train/s-" in str(e.value) and "HTTP 403 (forbidden" in str(e.value), e.value
    with pytest.raises(libfeed.FeedDatasetError) as e:
        make_loader(f"s3://{BUCKET}/*.tar", cache_dir=str(tmp_path / "b"))
    code = "SignatureDoesNotMatch" if what == "secret" else "InvalidAccessKeyId"
    assert f"listing s3://{BUCKET}/*.tar: HTTP 403" in str(e.value) and code in str(e.value), e.value


def test_moto_temporary_credentials(make_loader, aws, moto_auth, ref, tmp_path):
    temp = moto_auth.temp
    assert not temp["AccessKeyId"].startswith("AKIA")  # moto checks the token of such a key
    aws(moto_auth.url, temp["AccessKeyId"], temp["SecretAccessKey"], temp["SessionToken"])
    assert_same(load(make_loader, f"s3://{BUCKET}/train/s-{{0..2}}.tar", cache_dir=str(tmp_path / "a")), ref)
    assert_same(load(make_loader, f"s3://{BUCKET}/*.tar", cache_dir=str(tmp_path / "b")), ref)


@pytest.mark.parametrize("token", ["wrong", None], ids=["wrong-token", "no-token"])
def test_moto_temporary_credentials_need_their_token(make_loader, aws, moto_auth, tmp_path, token):
    temp = moto_auth.temp
    aws(moto_auth.url, temp["AccessKeyId"], temp["SecretAccessKey"], token and wrong(temp["SessionToken"]))
    with pytest.raises(libfeed.FeedDatasetError) as e:
        make_loader(f"s3://{BUCKET}/*.tar", cache_dir=str(tmp_path / "a"))
    # S3 (and moto) answer a token that is not the issued one with 400 InvalidToken
    want = "HTTP 400" if token else "HTTP 403"
    assert f"listing s3://{BUCKET}/*.tar: {want}" in str(e.value), e.value
    assert ("InvalidToken" if token else "InvalidAccessKeyId") in str(e.value), e.value


def test_checked_prefix_listing_and_keys_that_need_encoding(make_loader, aws, proxy, ref, tmp_path):
    p = proxy("AKIAFEEDTEST00000001", "secret/with+chars=")
    aws(p.url, "AKIAFEEDTEST00000001", "secret/with+chars=")
    odd = "odd dir+x=1&y/"
    for i, src in enumerate([f"s3://{BUCKET}/train/s-{{0..2}}.tar", f"s3://{BUCKET}/train/*.tar",
                             f"s3://{BUCKET}/{odd}s {{0..2}}+a b.tar", f"s3://{BUCKET}/{odd}*.tar"]):
        assert_same(load(make_loader, src, cache_dir=str(tmp_path / str(i))), ref)
    assert not [r for r in p.log if r[2]], [r for r in p.log if r[2]]
    paths = {r[1] for r in p.log}
    # the keys and the prefix went URI-encoded, and each was checked
    assert f"/{BUCKET}/odd%20dir%2Bx%3D1%26y/s%201%2Ba%20b.tar" in paths, paths
    assert any("prefix=odd%20dir%2Bx%3D1%26y%2F" in q for q in paths), paths


def test_checked_listing_of_two_pages(make_loader, aws, proxy, ref, tmp_path):
    p = proxy("AKIAFEEDTEST00000001", "s3cret")
    aws(p.url, "AKIAFEEDTEST00000001", "s3cret")
    assert_same(load(make_loader, f"s3://{BUCKET}/paged/*.tar", cache_dir=str(tmp_path / "a")), ref)
    lists = [r for r in p.log if "list-type=2" in r[1]]
    assert len(lists) == 2 and "continuation-token=" in lists[1][1], lists
    assert not [r for r in p.log if r[2]]


def test_checked_region_and_session_token(make_loader, aws, proxy, ref, tmp_path):
    p = proxy("ASIAFEEDTEST00000001", "s3cret", region="ap-southeast-2", token="tok/en+==")
    aws(p.url, "ASIAFEEDTEST00000001", "s3cret", token="tok/en+==", region="ap-southeast-2")
    assert_same(load(make_loader, f"s3://{BUCKET}/train/*.tar", cache_dir=str(tmp_path / "a")), ref)
    assert not [r for r in p.log if r[2]]
    aws(p.url, "ASIAFEEDTEST00000001", "s3cret", token="tok/en+==", region="eu-west-1")
    with pytest.raises(libfeed.FeedDatasetError) as e:
        make_loader(f"s3://{BUCKET}/train/*.tar", cache_dir=str(tmp_path / "b"))
    assert "AuthorizationHeaderMalformed" in str(e.value), e.value


def test_checked_wrong_secret_fails(make_loader, aws, proxy, tmp_path):
    p = proxy("AKIAFEEDTEST00000001", "s3cret")
    aws(p.url, "AKIAFEEDTEST00000001", "s3creT")
    with pytest.raises(libfeed.FeedDatasetError) as e:
        make_loader(f"s3://{BUCKET}/train/s-{{0..2}}.tar", cache_dir=str(tmp_path / "a"))
    assert f"s3://{BUCKET}/train/s-" in str(e.value) and "HTTP 403" in str(e.value), e.value
    assert {r[2] for r in p.log} == {"SignatureDoesNotMatch"}
