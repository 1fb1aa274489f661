#!/usr/bin/env python3
"""A peer that lies, for the sample of docs/user-guide.md ("Against a peer that lies") that
Tests/e2e/docs_samples.py runs: its change feed holds one valid note and three changes a store
must refuse (a note whose id is a script, a clock stamp a thousand years ahead, a tombstone of an
unknown kind). It answers `GET /sync/changes` and nothing else.

Usage: docs_hostile_peer.py --port PORT   (prints "listening on 127.0.0.1:PORT" once it listens)
"""
import argparse
import json
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

PEER = str(uuid.uuid4())


def batch(since):
    now = int(time.time() * 1000)
    note = {"id": str(uuid.uuid4()), "title": "From a peer that lies", "body": "", "createdAt": now,
            "updatedAt": now, "clock": f"{now}-000000-{PEER}"}
    changes = [
        {"kind": "note", "note": note},
        {"kind": "note", "note": dict(note, id="<script>alert(1)</script>")},
        {"kind": "note", "note": dict(note, id=str(uuid.uuid4()), clock="3057007094791-000000-hostile-peer")},
        {"kind": "tombstone", "tombstone": {"entity": "user", "id": str(uuid.uuid4()), "clock": f"{now}-000001-{PEER}"}},
    ]
    return {"peerID": PEER, "changes": changes if since == 0 else [], "nextSequence": len(changes), "hasMore": False}


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        url = urlparse(self.path)
        if url.path != "/sync/changes":
            self.answer(404, {"error": {"code": "not_found", "message": "a peer that lies answers only /sync/changes"}})
            return
        since = int(parse_qs(url.query).get("since", ["0"])[0])
        self.answer(200, batch(since))

    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    port = parser.parse_args().port
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(f"listening on 127.0.0.1:{port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
