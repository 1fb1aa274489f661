"""A TCP relay for the end-to-end tests: it counts the bytes a client sends through it, can hold
them back, and can drop every connection at once — a network cut the test controls."""
import socket
import threading


class Relay:
    """A TCP relay that counts the bytes a client sends and can drop every connection."""

    def __init__(self, upstream_port, on_bytes=lambda total: None):
        self.upstream_port = upstream_port
        self.on_bytes = on_bytes
        self.sent = 0
        self.lock = threading.Lock()
        self.connections = []
        self.flowing = threading.Event()
        self.flowing.set()
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            client, _ = self.listener.accept()
            try:
                server = socket.create_connection(("127.0.0.1", self.upstream_port))
            except OSError:
                client.close()
                continue
            with self.lock:
                self.connections += [client, server]
            threading.Thread(target=self.pipe, args=(client, server, True), daemon=True).start()
            threading.Thread(target=self.pipe, args=(server, client, False), daemon=True).start()

    def pipe(self, source, target, counted):
        try:
            while True:
                data = source.recv(16384)
                if not data:
                    break
                if counted:
                    self.flowing.wait()
                target.sendall(data)
                if counted:
                    with self.lock:
                        self.sent += len(data)
                        total = self.sent
                    self.on_bytes(total)
        except OSError:
            pass
        finally:
            for s in (source, target):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def drop_all(self):
        with self.lock:
            connections, self.connections = self.connections, []
        for s in connections:
            try:
                s.shutdown(socket.SHUT_RDWR)
                s.close()
            except OSError:
                pass
