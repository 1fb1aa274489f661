"""A TCP relay for the end-to-end tests: it counts the bytes a client sends through it, can hold
them back, and cuts the network in the two ways the field does — every connection dropped at
once, or a silent cut: the client's side dropped while the server's side stays open and hears
nothing more (a phone leaving Wi-Fi). It also notes when connections arrive and what status each
answer from the server carries, so a test can tell how soon a client was served again."""
import socket
import threading
import time


class Relay:
    """A TCP relay that counts the bytes a client sends and can cut every connection."""

    def __init__(self, upstream_port, on_bytes=lambda total: None):
        self.upstream_port = upstream_port
        self.on_bytes = on_bytes
        self.sent = 0
        self.lock = threading.Lock()
        self.connections = []  # (client socket, server socket) pairs
        self.silent = set()  # server sockets of silently cut connections: kept open, never written
        self.accepted = []  # time.monotonic() of each connection
        self.answers = []  # (time.monotonic(), status) of each answer's first line from the server
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
                self.connections.append((client, server))
                self.accepted.append(time.monotonic())
            threading.Thread(target=self.pipe, args=(client, server, True), daemon=True).start()
            threading.Thread(target=self.pipe, args=(server, client, False), daemon=True).start()

    def pipe(self, source, target, counted):
        try:
            while True:
                data = source.recv(16384)
                if not data:
                    break
                if counted:
                    # What the client sent, whether or not it gets through.
                    with self.lock:
                        self.sent += len(data)
                        total = self.sent
                    self.flowing.wait()
                    with self.lock:
                        if target in self.silent:
                            break
                else:
                    self.note_answers(data)
                target.sendall(data)
                if counted:
                    self.on_bytes(total)
        except OSError:
            pass
        finally:
            with self.lock:
                sockets = [s for s in (source, target) if s not in self.silent]
            for s in sockets:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def note_answers(self, data):
        """Records the status of every HTTP answer that starts in `data` (answers are small here:
        each starts at the beginning of a read)."""
        if data.startswith(b"HTTP/1.1 "):
            with self.lock:
                self.answers.append((time.monotonic(), int(data[9:12])))

    def drop_all(self):
        """Closes both sides of every connection: the client and the server both see the cut."""
        with self.lock:
            connections, self.connections = self.connections, []
        for pair in connections:
            for s in pair:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                    s.close()
                except OSError:
                    pass

    def silence_all(self):
        """A silent cut: each client's side is dropped (the client sees its link die), and each
        server's side stays open and receives nothing more, never closed — until the server
        gives up on it. Returns the time of the cut."""
        with self.lock:
            connections, self.connections = self.connections, []
            for _, server in connections:
                self.silent.add(server)
        for client, _ in connections:
            try:
                client.shutdown(socket.SHUT_RDWR)
                client.close()
            except OSError:
                pass
        return time.monotonic()
