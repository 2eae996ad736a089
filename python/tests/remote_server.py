"""A local HTTP server for the remote-shard tests and benchmark: files from one
folder, with HEAD, Range, ETag and If-Match, a log of every request, and faults
to inject per path, each used once, in order:

  "503", "500", "403", "404"  answer with that status
  "reset"      close the connection before any answer
  "truncate"   send the headers of the whole file, then half of it, then close
  "short"      send half the file as if it were all of it (its Content-Length)
  "corrupt"    send the whole file with one byte of its first tar header changed
  "corrupt_range"  send the answer (a range too) with its byte 100 changed (in
               the tar header it starts with)
  "stall"      send nothing until the client gives up, unstall is set or the
               server stops (stalled is set when one starts)
  "etag"       answer this request as usual, then change the file's ETag
               (as if the object were replaced)

head_status: a status every HEAD gets instead of an answer (a server that
refuses HEAD, as one serving presigned URLs does); get_status: the same for
every GET; ranges = False: Range is
ignored (the whole file, 200). sent: (method, path, range, bytes of body sent)
of every answer that sent a body; peers: the client's address of each request
(one port: one connection, kept alive).

rate (bytes/s, all answers together) and latency (s, added to each request)
throttle the server (the benchmark's); tls=(certfile, keyfile) serves https."""
import email.utils
import hashlib
import http.server
import os
import socket
import threading
import time


class Server:
    def __init__(self, root, rate=0, latency=0.0, tls=None):
        self.root = str(root)
        self.faults = {}        # "/name" -> [fault, ...]
        self.log = []           # (method, path, range or None)
        self.peers = []         # the client's (host, port) of each request, as log
        self.sent = []          # (method, path, range or None, body bytes sent)
        self.head_status = None
        self.get_status = None  # a status every GET gets instead of an answer
        self.ranges = True
        self.etag_salt = {}     # "/name" -> int: bumped by an "etag" fault
        self.files = {}         # path -> ((inode, size, mtime), bytes, hash)
        self.rate, self.latency = rate, latency
        self.next_t = 0.0  # the rate's clock: when the bytes sent so far are due
        self.stop_event = threading.Event()
        self.stalled, self.unstall = threading.Event(), threading.Event()
        self.lock = threading.Lock()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # headers and body go out in several writes: with Nagle on, a kept-alive
            # connection waits on the client's delayed ACK (40 ms) between them
            disable_nagle_algorithm = True

            def log_message(self, *a):
                pass

            def do_HEAD(self):
                outer._serve(self, head=True)

            def do_GET(self):
                outer._serve(self, head=False)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        if tls:
            import ssl  # here only: scripts/test-wheel runs this where the system's OpenSSL is hidden

            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(*map(str, tls))
            self.httpd.socket = ctx.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.stop_event.set()
        self.unstall.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def inject(self, path, *faults):
        with self.lock:
            self.faults.setdefault(path, []).extend(faults)

    def requests(self, method=None):
        with self.lock:
            return [r for r in self.log if method is None or r[0] == method]

    def etag(self, path, digest):
        return '"%s-%d"' % (digest, self.etag_salt.get(path, 0))

    def read(self, fp):
        """The file's bytes and the hash its ETag starts with, read once while its
        inode, size and mtime stay (a ranged GET of a large shard would otherwise
        read and hash the whole shard each time)."""
        st = os.stat(fp)
        key = (st.st_ino, st.st_size, st.st_mtime_ns)
        with self.lock:
            got = self.files.get(fp)
        if got and got[0] == key:
            return got[1], got[2]
        with open(fp, "rb") as f:
            data = f.read()
        digest = hashlib.sha1(data).hexdigest()[:16]
        with self.lock:
            self.files[fp] = (key, data, digest)
        return data, digest

    def _serve(self, h, head):
        path = h.path.split("?")[0]
        with self.lock:
            self.log.append(("HEAD" if head else "GET", path, h.headers.get("Range")))
            self.peers.append(h.client_address)
            queue = self.faults.get(path) or []
            fault = queue.pop(0) if queue else None
        if self.latency:
            time.sleep(self.latency)
        if head and self.head_status:
            fault = str(self.head_status)
        if not head and self.get_status:
            fault = str(self.get_status)
        if fault in ("503", "500", "403", "404", "405"):
            h.send_response(int(fault))
            h.send_header("Content-Length", "0")
            h.end_headers()
            return
        if fault == "reset":
            h.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            h.close_connection = True
            h.connection.close()
            return
        if fault == "stall":
            self.stalled.set()
            self.unstall.wait(60)
            h.close_connection = True
            return
        fp = os.path.join(self.root, path.lstrip("/"))
        if not os.path.isfile(fp):
            h.send_response(404)
            h.send_header("Content-Length", "0")
            h.end_headers()
            return
        data, digest = self.read(fp)
        etag = self.etag(path, digest)
        if fault == "etag":
            with self.lock:
                self.etag_salt[path] = self.etag_salt.get(path, 0) + 1
        im = h.headers.get("If-Match")
        if im and im != "*" and im != etag:
            h.send_response(412)
            h.send_header("Content-Length", "0")
            h.end_headers()
            return
        start, end, code = 0, len(data), 200
        rng = h.headers.get("Range")
        if rng and rng.startswith("bytes=") and self.ranges:
            a, _, b = rng[6:].partition("-")
            start = int(a) if a else max(0, len(data) - int(b))
            end = min(len(data), int(b) + 1) if a and b else len(data)
            code = 206
        body = data[start:end]
        if fault == "short":
            body = body[: len(body) // 2]
        if fault == "corrupt" and start == 0 and len(body) > 100:
            body = body[:100] + bytes([body[100] ^ 0x5A]) + body[101:]
        if fault == "corrupt_range" and len(body) > 100:
            body = body[:100] + bytes([body[100] ^ 0x5A]) + body[101:]
        h.send_response(code)
        h.send_header("Content-Length", str(len(body)))
        h.send_header("ETag", etag)
        h.send_header("Last-Modified", email.utils.formatdate(os.path.getmtime(fp), usegmt=True))
        h.send_header("Accept-Ranges", "bytes")
        if code == 206:
            h.send_header("Content-Range", f"bytes {start}-{end - 1}/{len(data)}")
        h.end_headers()
        if head:
            return
        if fault == "truncate":
            body = body[: len(body) // 2]
        try:
            if self.rate:
                chunk = max(1, min(1 << 16, self.rate // 100))
                for i in range(0, len(body), chunk):
                    part = body[i:i + chunk]
                    with self.lock:
                        now = time.monotonic()
                        self.next_t = max(now, self.next_t) + len(part) / self.rate
                        wait = self.next_t - now
                    if wait > 0:
                        time.sleep(wait)
                    h.wfile.write(part)
            else:
                h.wfile.write(body)
            h.wfile.flush()
            with self.lock:
                self.sent.append(("GET", path, h.headers.get("Range"), len(body)))
        except (BrokenPipeError, ConnectionResetError):
            pass
        if fault == "truncate":
            h.close_connection = True
            h.connection.shutdown(socket.SHUT_RDWR)
