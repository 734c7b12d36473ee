#!/usr/bin/env python3
"""A real origin server for the http fetch-handler tests: HTTP/1.1 on 127.0.0.1.

    origin_server.py READY_FILE ROOT

Writes its port to READY_FILE once listening. Appends one line per request to ROOT/requests.log:
"METHOD PATH if-none-match=... if-modified-since=..." and, for /slow, "slow cancelled" or
"slow completed".

    GET /feed/NAME         the file ROOT/NAME, with an ETag (its SHA-1) and Last-Modified;
                           304 when If-None-Match matches
    GET /status/CODE       that status, a short body
    GET /slow/S            answers after S seconds; notices a client that goes away
    GET /big/N             N bytes
    GET /redirect/N        302 to /redirect/N-1; /redirect/0 answers 200
    GET /toport/P          302 to http://127.0.0.1:P/ (a port no connection can use, for P over 65535)
    GET /drop/X            closes the connection without an answer
    GET /blob/N            N bytes (byte i is i % 251) with an ETag and Last-Modified; 304 when
                           If-None-Match matches; honours Range with If-Range (206). Query:
                           rate=B (bytes a second), fail=K&cut=C&name=X (the first K requests
                           for X send C bytes, then close the connection), status=S (answer S),
                           validators=modified (Last-Modified alone; 304 when If-Modified-Since matches),
                           short=K&name=X (the first K ranged answers for X are a 206 of 1000 bytes at
                           most: a shorter range than asked, as Content-Range says)
    PUT /moved/N/NAME, PUT /moved301/N/NAME
                           N redirects (307, or 301), then the upload as NAME
    POST /seeother/NAME    303 to /then307/NAME, whose GET is a 307 to /landed/NAME; a GET of /landed/NAME
                           logs "landed NAME bytes=N" (N: the body it came with)
    PUT or POST /upload/NAME
                           reads the body; logs "upload METHOD NAME bytes=N sha256=H"; answers 201
                           {"name", "bytes", "sha256"}
    POST /task/success     a background task's run: logs "POST PATH identifier=ID", answers {"success": true}
    POST /task/fail        the same, answering {"success": false}
    POST /task/slow/S      answers {"success": true} after S seconds; notices a client that goes away
    POST /task/transfer    answers {"success": true, "transfers": [{"session": S, "url": U}]} (query:
                           session=S&url=U); a urlSession relaunch's run gets {"success": true}, and
                           logs "relaunch session=S files=N bytes=B" (B: the first file's)
"""
import hashlib
import json
import os
import select
import socket
import sys
import threading
import time
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

READY, ROOT = sys.argv[1], sys.argv[2]
LOG_LOCK = threading.Lock()
FAILURES = {}
SHORTS = {}
FAILURES_LOCK = threading.Lock()
BLOB_MODIFIED = formatdate(1_700_000_000, usegmt=True)


def blob(start, end):
    """Bytes start..<end of a blob: byte i is i % 251."""
    pattern = bytes(range(251))
    first = start % 251
    out = bytearray()
    out += pattern[first:]
    while len(out) < end - start:
        out += pattern
    return bytes(out[: end - start])


def log(line):
    with LOG_LOCK, open(os.path.join(ROOT, "requests.log"), "a") as f:
        f.write(line + "\n")


class Origin(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body=b"", headers=None):
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)

    def do_GET(self):
        url = urlparse(self.path)
        log(f"{self.command} {self.path} if-none-match={self.headers.get('If-None-Match')} "
            f"if-modified-since={self.headers.get('If-Modified-Since')}")
        parts = url.path.strip("/").split("/")
        if parts[0] == "feed" and len(parts) == 2:
            path = os.path.join(ROOT, parts[1])
            if not os.path.isfile(path):
                return self.send(404, b"no such feed\n")
            body = open(path, "rb").read()
            etag = '"' + hashlib.sha1(body).hexdigest() + '"'
            modified = formatdate(os.path.getmtime(path), usegmt=True)
            if self.headers.get("If-None-Match") == etag:
                return self.send(304, headers={"ETag": etag, "Last-Modified": modified})
            return self.send(200, body, {"ETag": etag, "Last-Modified": modified, "Content-Type": "application/json"})
        if parts[0] == "status" and len(parts) == 2:
            return self.send(int(parts[1]), b"status\n", {"Content-Type": "text/plain"})
        if parts[0] == "slow" and len(parts) == 2:
            end = time.monotonic() + float(parts[1])
            while time.monotonic() < end:
                readable, _, _ = select.select([self.connection], [], [], 0.05)
                if readable and self.connection.recv(1, 0x2) == b"":  # MSG_PEEK: EOF means the client left
                    log("slow cancelled")
                    self.close_connection = True
                    return
            log("slow completed")
            return self.send(200, b"finally\n", {"Content-Type": "text/plain"})
        if parts[0] == "big" and len(parts) == 2:
            return self.send(200, b"x" * int(parts[1]), {"Content-Type": "application/octet-stream"})
        if parts[0] == "redirect" and len(parts) == 2:
            n = int(parts[1])
            if n == 0:
                return self.send(200, b"arrived\n", {"Content-Type": "text/plain"})
            return self.send(302, headers={"Location": f"/redirect/{n - 1}"})
        if parts[0] == "then307" and len(parts) == 2:
            return self.send(307, b"moved\n", {"Location": f"/landed/{parts[1]}"})
        if parts[0] == "landed" and len(parts) == 2:
            sent = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            log(f"landed {parts[1]} bytes={len(sent)}")
            return self.send(200, b"landed\n", {"Content-Type": "text/plain"})
        if parts[0] == "toport" and len(parts) == 2:
            return self.send(302, headers={"Location": f"http://127.0.0.1:{parts[1]}/"})
        if parts[0] == "blob" and len(parts) == 2:
            return self.blob(int(parts[1]), parse_qs(url.query))
        if parts[0] == "drop":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.send(404, b"not found\n")

    def blob(self, size, query):
        # ?validators=modified: Last-Modified alone, no ETag, and If-Modified-Since honoured.
        only_modified = query.get("validators", [""])[0] == "modified"
        etag = None if only_modified else f'"blob-{size}"'
        status = int(query.get("status", ["200"])[0])
        if etag is not None and self.headers.get("If-None-Match") == etag:
            return self.send(304, headers={"ETag": etag, "Last-Modified": BLOB_MODIFIED})
        if only_modified and self.headers.get("If-Modified-Since") == BLOB_MODIFIED:
            return self.send(304, headers={"Last-Modified": BLOB_MODIFIED})
        start = 0
        ranged = self.headers.get("Range", "")
        if ranged.startswith("bytes=") and ranged.endswith("-") and self.headers.get("If-Range") in (etag or BLOB_MODIFIED, BLOB_MODIFIED):
            start = int(ranged[6:-1])
            if start >= size:
                # Nothing at or past the end: 416, with the body's whole length.
                log(f"blob {size} unsatisfiable from={start}")
                return self.send(416, b"", {"Content-Range": f"bytes */{size}"})
        cut = None
        end_at = size
        name = query.get("name", [None])[0]
        if name is not None:
            with FAILURES_LOCK:
                done = FAILURES.get(name, 0)
                if done < int(query.get("fail", ["0"])[0]):
                    FAILURES[name] = done + 1
                    cut = int(query.get("cut", ["0"])[0])
                shortened = SHORTS.get(name, 0)
                if start > 0 and shortened < int(query.get("short", ["0"])[0]):
                    SHORTS[name] = shortened + 1
                    end_at = min(size, start + 1000)
        log(f"blob {size} from={start} cut={cut}" + (f" to={end_at}" if end_at < size else ""))
        self.send_response(206 if start > 0 else status)
        if etag is not None:
            self.send_header("ETag", etag)
        self.send_header("Last-Modified", BLOB_MODIFIED)
        self.send_header("Content-Type", "application/octet-stream")
        if start > 0:
            self.send_header("Content-Range", f"bytes {start}-{end_at - 1}/{size}")
        self.send_header("Content-Length", str(end_at - start))
        self.end_headers()
        size = end_at
        rate = float(query.get("rate", ["0"])[0])
        sent = start
        chunk = 64 * 1024 if rate == 0 else max(1, int(rate / 20))
        began = time.monotonic()
        try:
            while sent < size:
                if cut is not None and sent >= cut:
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                end = min(size, sent + chunk, cut if cut is not None and cut > sent else size)
                self.wfile.write(blob(sent, end))
                sent = end
                if rate > 0:
                    ahead = (sent - start) / rate - (time.monotonic() - began)
                    if ahead > 0:
                        time.sleep(ahead)
        except (BrokenPipeError, ConnectionResetError):
            log(f"blob {size} left at {sent}")
            self.close_connection = True

    def wait(self, seconds):
        """Waits `seconds`; False if the client went away meanwhile."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            readable, _, _ = select.select([self.connection], [], [], 0.05)
            if readable and self.connection.recv(1, 0x2) == b"":  # MSG_PEEK: EOF means the client left
                return False
        return True

    def do_PUT(self):
        url = urlparse(self.path)
        parts = url.path.strip("/").split("/")
        if parts[0] == "upload" and len(parts) == 2:
            return self.upload(parts[1])
        if parts[0] in ("moved", "moved301") and len(parts) == 3:
            # /moved/N/NAME: N 307s (the body read and dropped), then the upload as NAME;
            # /moved301/N/NAME the same with 301s.
            left = int(parts[1])
            if left == 0:
                return self.upload(parts[2])
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            log(f"moved {left} {parts[2]}")
            status = 307 if parts[0] == "moved" else 301
            return self.send(status, b"moved\n", {"Location": f"/{parts[0]}/{left - 1}/{parts[2]}"})
        self.send(404, b"not found\n")

    def upload(self, name):
        """Reads the body a chunk at a time; logs its size and SHA-256; answers 201 with both."""
        left = int(self.headers.get("Content-Length") or 0)
        digest = hashlib.sha256()
        received = 0
        while left > 0:
            chunk = self.rfile.read(min(left, 64 * 1024))
            if not chunk:
                break
            digest.update(chunk)
            received += len(chunk)
            left -= len(chunk)
        log(f"upload {self.command} {name} bytes={received} sha256={digest.hexdigest()}")
        answer = json.dumps({"name": name, "bytes": received, "sha256": digest.hexdigest()}).encode()
        self.send(201, answer, {"Content-Type": "application/json"})

    def do_POST(self):
        url = urlparse(self.path)
        if url.path.startswith("/upload/") and url.path.count("/") == 2:
            return self.upload(url.path.split("/")[2])
        if url.path.startswith("/seeother/") and url.path.count("/") == 2:
            # 303 to /then307/NAME, whose GET is a 307 to /landed/NAME.
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            return self.send(303, b"see other\n", {"Location": "/then307/" + url.path.split("/")[2]})
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            posted = json.loads(body)
        except ValueError:
            posted = {}
        identifier = posted.get("identifier") if isinstance(posted, dict) else None
        log(f"POST {url.path} identifier={identifier}")
        parts = url.path.strip("/").split("/")
        answer = {"Content-Type": "application/json"}
        if parts[:2] == ["task", "success"]:
            return self.send(200, b'{"success": true}', answer)
        if parts[:2] == ["task", "fail"]:
            return self.send(200, b'{"success": false}', answer)
        if parts[:2] == ["task", "transfer"]:
            if posted.get("kind") == "urlSession":
                files = posted.get("files") or []
                log(f"relaunch session={posted.get('session')} files={len(files)} bytes={files[0].get('bytes') if files else None}")
                return self.send(200, b'{"success": true}', answer)
            query = parse_qs(url.query)
            transfer = {"session": query.get("session", ["T"])[0], "url": query.get("url", [""])[0]}
            return self.send(200, json.dumps({"success": True, "transfers": [transfer]}).encode(), answer)
        if parts[:2] == ["task", "slow"] and len(parts) == 3:
            if not self.wait(float(parts[2])):
                log("slow task cancelled")
                self.close_connection = True
                return
            return self.send(200, b'{"success": true}', answer)
        self.send(404, b"not found\n")


class Server(ThreadingHTTPServer):
    # A CDN takes many connections at once: the default backlog of 5 would drop the rest's SYNs.
    request_queue_size = 128


server = Server(("127.0.0.1", 0), Origin)
server.daemon_threads = True
with open(READY + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(READY + ".tmp", READY)
server.serve_forever()
