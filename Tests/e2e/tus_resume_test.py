#!/usr/bin/env python3
"""Resumable uploads against a real `attach serve`, with tuspy (the tus client from PyPI).

Two cuts, each while tuspy sends the 16 MB corpus photo through a relay this test runs:
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
import hashlib
import json
import os
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


def drop_connections(relay, server):
    relay.drop_all()


def restart_server(relay, server):
    server.kill()
    relay.drop_all()
    server.start()


upload_with_cut("relay cut midway", drop_connections)
upload_with_cut("server killed midway and restarted", restart_server)
print("tus: 2 passed")
