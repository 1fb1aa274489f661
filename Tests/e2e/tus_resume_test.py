#!/usr/bin/env python3
"""Resumable uploads against a real `attach serve`, with tuspy (the tus client from PyPI) and a
raw tus client written here.

Silent cuts, as a phone leaving Wi-Fi makes them: at 25 %, 50 % and 75 % of the 16 MB corpus
photo, the relay drops the client's side of the connection while the server's side stays open
and hears nothing more. The server's request still holds the upload; the client's next request
must take it over (the lock handover) instead of being told 423 until the dead connection times
out. For each client and each cut: the first answer after the client reconnects comes within 2 s
and none is 423, the client sends under 1.1x the file in all, and the attachment is
byte-identical.

The same silent cut for a client of the IETF resumable-upload draft written here (raw HTTP, as
iOS's URLSession speaks it, interop versions 3 and 6): the 104 interim answer names the upload's
address, HEAD there says where to continue, PATCH sends the rest.

Then two cuts, each while tuspy sends the photo through the relay:
  1. the relay drops every connection once three quarters of the photo have passed it;
  2. the server is killed (SIGKILL) at the same point, then started again on the same store.
At the cut the relay first holds the bytes back until the server's offset stops growing (so
what the server had read is on disk, and the count does not depend on how full the socket
buffers happened to be), then cuts. Each time tuspy resumes from the offset the server reports,
the relay counts what the client sent in all — about one file's worth: only the piece the
server had not yet written goes twice; starting again from zero would be 1.75x — and the
attachment is byte-identical.

Usage: tus_resume_test.py ATTACH_BINARY CORPUS_DIR
"""
import base64
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

from tusclient import client as tus

from relay import Relay

ATTACH, CORPUS = sys.argv[1], sys.argv[2]
PHOTO = os.path.join(CORPUS, "special", "large-16mb.jpg")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, store, port):
        self.store, self.port, self.process = store, port, None

    def start(self):
        self.log = open(os.path.join(os.path.dirname(self.store), f"serve-{time.time()}.log"), "w")
        self.process = subprocess.Popen([ATTACH, "serve", "--store", self.store, "--port", str(self.port), "--log-level", "warning"],
                                        stdout=self.log, stderr=subprocess.STDOUT)
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=1)
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("attach serve did not start")

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait()


def api(port, method, path, body=None):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method, data=body,
                                     headers={"Content-Type": "application/json"} if body else {})
    with urllib.request.urlopen(request) as response:
        return response.read()


def offset(port, url):
    path = url[url.index("/api/uploads/"):]
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method="HEAD", headers={"Tus-Resumable": "1.0.0"})
    with urllib.request.urlopen(request) as response:
        return int(response.headers["Upload-Offset"])


def upload_with_cut(name, cut):
    work = tempfile.mkdtemp(prefix="tus-")
    server = Server(os.path.join(work, "store"), free_port())
    server.start()
    try:
        size = os.path.getsize(PHOTO)
        note = json.loads(api(server.port, "POST", "/api/notes", json.dumps({"title": name}).encode()))["id"]
        state = {"cut": False}

        def cut_when_settled():
            # Hold the bytes back until the server has written what it read, then cut.
            relay.flowing.clear()
            last, stable = -1, 0
            while stable < 5:
                time.sleep(0.1)
                now = offset(server.port, uploader.url)
                stable = stable + 1 if now == last else 0
                last = now
            cut(relay, server)
            relay.flowing.set()

        def on_bytes(total):
            if not state["cut"] and total > size * 3 // 4:
                state["cut"] = True
                threading.Thread(target=cut_when_settled, daemon=True).start()

        relay = Relay(server.port, on_bytes)
        client = tus.TusClient(f"http://127.0.0.1:{relay.port}/api/uploads")
        uploader = client.uploader(PHOTO, metadata={"noteId": note, "filename": "large-16mb.jpg"},
                                   retries=20, retry_delay=1, store_url=False)
        uploader.upload()
        assert state["cut"], "the connection was never cut"
        attachments = json.loads(api(server.port, "GET", f"/api/notes/{note}/attachments"))["attachments"]
        assert len(attachments) == 1, f"{len(attachments)} attachments, expected 1"
        original = api(server.port, "GET", f"/api/attachments/{attachments[0]['id']}/original")
        with open(PHOTO, "rb") as f:
            expected = f.read()
        assert hashlib.sha256(original).digest() == hashlib.sha256(expected).digest(), "the attachment differs from the photo"
        ratio = relay.sent / size
        print(f"tus {name}: {size} bytes, the client sent {relay.sent} in all ({ratio:.2f}x), attachment byte-identical")
        # About one file's worth: what was in flight at the cut is sent twice, never the whole file.
        assert ratio < 1.25, f"the client sent {ratio:.2f}x the file: the upload restarted instead of resuming"
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


SILENT_CUTS = (0.25, 0.50, 0.75)


class SilentCut:
    """Cuts the relay silently once `fraction` of the file has passed it, and judges the resume."""

    def __init__(self, size, fraction):
        self.size, self.fraction, self.cut_at, self.relay = size, fraction, None, None

    def on_bytes(self, total):
        if self.cut_at is None and total > self.size * self.fraction:
            # Noted before the cut: the client may see its link die before silence_all returns.
            self.cut_at = time.monotonic()
            self.relay.silence_all()

    def judge(self, name):
        relay = self.relay
        assert self.cut_at is not None, "the connection was never cut"
        reconnected = min(t for t in relay.accepted if t > self.cut_at)
        after = [(t, status) for t, status in relay.answers if t > reconnected]
        assert after, "no answer after the client reconnected"
        waited = after[0][0] - reconnected
        statuses = sorted({status for _, status in after})
        ratio = relay.sent / self.size
        print(f"tus silent cut at {self.fraction:.0%} ({name}): first answer {waited:.2f} s after reconnecting, "
              f"statuses {statuses}, the client sent {ratio:.3f}x the file, attachment byte-identical")
        assert waited < 2, f"the first answer after reconnecting took {waited:.2f} s"
        assert 423 not in statuses, "the client was told the upload is locked"
        assert ratio < 1.1, f"the client sent {ratio:.2f}x the file"


def check_attachment(port, note):
    attachments = json.loads(api(port, "GET", f"/api/notes/{note}/attachments"))["attachments"]
    assert len(attachments) == 1, f"{len(attachments)} attachments, expected 1"
    original = api(port, "GET", f"/api/attachments/{attachments[0]['id']}/original")
    with open(PHOTO, "rb") as f:
        assert hashlib.sha256(original).digest() == hashlib.sha256(f.read()).digest(), "the attachment differs from the photo"


def tuspy_silent_cut(fraction):
    work = tempfile.mkdtemp(prefix="tus-")
    server = Server(os.path.join(work, "store"), free_port())
    server.start()
    try:
        size = os.path.getsize(PHOTO)
        note = json.loads(api(server.port, "POST", "/api/notes", json.dumps({"title": "tuspy"}).encode()))["id"]
        cut = SilentCut(size, fraction)
        cut.relay = Relay(server.port, cut.on_bytes)
        client = tus.TusClient(f"http://127.0.0.1:{cut.relay.port}/api/uploads")
        uploader = client.uploader(PHOTO, metadata={"noteId": note, "filename": "large-16mb.jpg"},
                                   retries=5, retry_delay=0.5, store_url=False)
        uploader.upload()
        check_attachment(server.port, note)
        cut.judge("tuspy")
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


def http_exchange(port, head, body=b"", answer_timeout=30):
    """Sends one request on a new connection through `port`; its status and headers."""
    with socket.create_connection(("127.0.0.1", port), timeout=answer_timeout) as connection:
        connection.sendall(head + body)
        received = b""
        while b"\r\n\r\n" not in received:
            chunk = connection.recv(65536)
            if not chunk:
                raise ConnectionError("closed before the answer")
            received += chunk
        lines = received.split(b"\r\n\r\n")[0].decode().split("\r\n")
        headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
        return int(lines[0].split()[1]), headers


def request_head(method, path, headers):
    return "\r\n".join([f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", "Tus-Resumable: 1.0.0", *headers, "", ""]).encode()


def raw_silent_cut(fraction):
    """A tus client in a few lines: PATCH the rest; when the link dies, HEAD and PATCH again."""
    work = tempfile.mkdtemp(prefix="tus-")
    server = Server(os.path.join(work, "store"), free_port())
    server.start()
    try:
        with open(PHOTO, "rb") as f:
            data = f.read()
        size = len(data)
        note = json.loads(api(server.port, "POST", "/api/notes", json.dumps({"title": "raw"}).encode()))["id"]
        metadata = f"noteId {base64.b64encode(note.encode()).decode()},filename {base64.b64encode(b'large-16mb.jpg').decode()}"
        status, headers = http_exchange(server.port, request_head("POST", "/api/uploads", [
            f"Upload-Length: {size}", f"Upload-Metadata: {metadata}", "Content-Length: 0"]))
        assert status == 201, f"creating the upload answered {status}"
        path = headers["location"]
        cut = SilentCut(size, fraction)
        cut.relay = Relay(server.port, cut.on_bytes)
        offset, done = 0, False
        for attempt in range(10):
            if attempt > 0:
                status, headers = http_exchange(cut.relay.port, request_head("HEAD", path, []))
                assert status == 200, f"HEAD answered {status}"
                offset = int(headers["upload-offset"])
            head = request_head("PATCH", path, ["Content-Type: application/offset+octet-stream",
                                                f"Upload-Offset: {offset}", f"Content-Length: {size - offset}"])
            try:
                with socket.create_connection(("127.0.0.1", cut.relay.port), timeout=30) as connection:
                    connection.sendall(head)
                    for start in range(offset, size, 65536):
                        connection.sendall(data[start:start + 65536])
                    answer = connection.recv(65536)
                    if not answer:
                        raise ConnectionError("closed before the answer")
                    status = int(answer.split(b" ", 2)[1])
                    assert status == 204, f"PATCH answered {status}"
                    done = True
                    break
            except OSError:
                time.sleep(0.5)  # the link died: come back a moment later, as a client would
        assert done, "the upload did not finish in 10 attempts"
        check_attachment(server.port, note)
        cut.judge("raw client")
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


def read_answer(connection):
    """One answer's status and headers (not its body), as the bytes arrive."""
    received = b""
    while b"\r\n\r\n" not in received:
        chunk = connection.recv(1)
        if not chunk:
            raise ConnectionError("closed before the answer")
        received += chunk
    lines = received.decode().split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:] if ":" in line)}
    return int(lines[0].split()[1]), headers


def ietf_draft_silent_cut(fraction, version):
    """A client of the IETF resumable-upload draft, as iOS's URLSession speaks it: the file is
    POSTed as usual with Upload-Draft-Interop-Version; the server's 104 names the upload's
    address; when the link dies the client asks HEAD for the offset and PATCHes the rest."""
    work = tempfile.mkdtemp(prefix="tus-")
    server = Server(os.path.join(work, "store"), free_port())
    server.start()
    try:
        with open(PHOTO, "rb") as f:
            data = f.read()
        size = len(data)
        note = json.loads(api(server.port, "POST", "/api/notes", json.dumps({"title": "ietf"}).encode()))["id"]
        complete = ["Upload-Complete: ?1"] if version >= 5 else ["Upload-Incomplete: ?0"]
        draft = [f"Upload-Draft-Interop-Version: {version}"]
        cut = SilentCut(size, fraction)
        cut.relay = Relay(server.port, cut.on_bytes)
        location, interim = None, None
        try:
            with socket.create_connection(("127.0.0.1", cut.relay.port), timeout=30) as connection:
                head = "\r\n".join([f"POST /api/notes/{note}/attachments?filename=large-16mb.jpg HTTP/1.1", "Host: 127.0.0.1",
                                     "Content-Type: image/jpeg", f"Content-Length: {size}", *draft, *complete, "", ""]).encode()
                connection.sendall(head)
                interim, headers = read_answer(connection)
                location = headers.get("location")
                for start in range(0, size, 65536):
                    connection.sendall(data[start:start + 65536])
                read_answer(connection)
        except OSError:
            pass  # the cut: the client's link died
        assert interim == 104, f"the first answer was {interim}, not 104 Upload Resumption Supported"
        assert location and location.startswith("/api/uploads/"), f"the 104 named no upload address: {location}"
        assert cut.cut_at is not None, "the connection was never cut"
        time.sleep(0.5)  # the link comes back
        status, headers = http_exchange(cut.relay.port, "\r\n".join([f"HEAD {location} HTTP/1.1", "Host: 127.0.0.1", *draft, "", ""]).encode())
        assert status == 204, f"HEAD answered {status}"
        offset = int(headers["upload-offset"])
        assert 0 < offset < size, f"HEAD said {offset} of {size}"
        with socket.create_connection(("127.0.0.1", cut.relay.port), timeout=30) as connection:
            content_type = "application/partial-upload" if version >= 6 else "application/octet-stream"
            head = "\r\n".join([f"PATCH {location} HTTP/1.1", "Host: 127.0.0.1", f"Content-Type: {content_type}",
                                 f"Upload-Offset: {offset}", f"Content-Length: {size - offset}", *draft, *complete, "", ""]).encode()
            connection.sendall(head + data[offset:])
            status, headers = read_answer(connection)
        assert status == 201, f"the last PATCH answered {status}"
        check_attachment(server.port, note)
        cut.judge(f"IETF draft, interop version {version}, resumed at {offset}")
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


def drop_connections(relay, server):
    relay.drop_all()


def restart_server(relay, server):
    server.kill()
    relay.drop_all()
    server.start()


for fraction in SILENT_CUTS:
    tuspy_silent_cut(fraction)
    raw_silent_cut(fraction)
ietf_draft_silent_cut(0.5, version=3)
ietf_draft_silent_cut(0.5, version=6)
upload_with_cut("relay cut midway", drop_connections)
upload_with_cut("server killed midway and restarted", restart_server)
print(f"tus: {2 * len(SILENT_CUTS) + 4} passed")
