"""A minimal Debug Adapter Protocol client, as VS Code talks to debugpy (for the tests).

Messages are JSON with a ``Content-Length`` header.  :meth:`Client.request`
sends a request and returns its response; events that arrive meanwhile are
kept for :meth:`Client.event`.
"""
import json
import socket
import time


class Client:
    def __init__(self, port, timeout=600):
        deadline = time.time() + 60
        while True:
            try:
                self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.2)
        self.buffer = b""
        self.seq = 0
        self.events = []
        self.responses = {}

    def close(self):
        self.sock.close()

    def send(self, command, **arguments):
        self.seq += 1
        body = json.dumps({"seq": self.seq, "type": "request", "command": command, "arguments": arguments})
        data = body.encode("utf-8")
        self.sock.sendall(b"Content-Length: %d\r\n\r\n%s" % (len(data), data))
        return self.seq

    def _read(self):
        while b"\r\n\r\n" not in self.buffer:
            self._receive()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length")))
        while len(self.buffer) < length:
            self._receive()
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        message = json.loads(body)
        if message["type"] == "event":
            self.events.append(message)
        elif message["type"] == "response":
            self.responses[message["request_seq"]] = message

    def _receive(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise EOFError("the debug adapter closed the connection")
        self.buffer += chunk

    def response(self, seq):
        while seq not in self.responses:
            self._read()
        message = self.responses.pop(seq)
        if not message["success"]:
            raise RuntimeError("%s failed: %s" % (message["command"], message.get("message")))
        return message.get("body", {})

    def request(self, command, **arguments):
        return self.response(self.send(command, **arguments))

    def event(self, *names):
        """The next event of one of ``names`` (earlier events of other names are dropped)."""
        while True:
            while self.events:
                message = self.events.pop(0)
                if message["event"] in names:
                    return message
            self._read()
