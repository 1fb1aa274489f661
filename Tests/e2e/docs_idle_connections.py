#!/usr/bin/env python3
"""Idle connections from one address, for the sample of docs/api.md ("Connections are shared
fairly") that Tests/e2e/docs_samples.py runs: opens COUNT TCP connections from FROM to the server
at URL, sends nothing on them, prints "holding COUNT" and keeps them open until it is stopped.

Usage: docs_idle_connections.py http://127.0.0.1:PORT COUNT [--from 127.0.0.2]
"""
import argparse
import socket
import time
from urllib.parse import urlparse


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("count", type=int)
    parser.add_argument("--from", dest="source", default="127.0.0.2")
    args = parser.parse_args()
    url = urlparse(args.url)
    held = [socket.create_connection((url.hostname, url.port), timeout=10, source_address=(args.source, 0))
            for _ in range(args.count)]
    print(f"holding {len(held)}", flush=True)
    while True:
        time.sleep(60)


if __name__ == "__main__":
    main()
