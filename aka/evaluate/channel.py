"""One JSON message per line over a socket, between the judge and the candidate's process.

The judge sends commands and reads observations with a deadline and a size cap; what comes back
is data to check, never a verdict. A closed socket, a line that is not a JSON object, one that is
too long or one that does not come in time is the candidate's failure (`ChannelError`).
"""

from __future__ import annotations

import json
import select
import socket
import time
from typing import Any

LINE_MAX_BYTES = 4 << 20


class ChannelError(Exception):
    """The other side closed, hung past the deadline, or sent something that is not a message."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind
        """'closed', 'timeout' or 'garbled'."""


class Channel:
    """A line-delimited JSON channel over a connected socket."""

    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.buf = b""

    def send(self, message: dict[str, Any]) -> None:
        data = (json.dumps(message, default=str) + "\n").encode()
        try:
            self.sock.sendall(data)
        except OSError as exc:
            raise ChannelError("closed", f"the other side is gone ({exc.strerror or exc})") from None

    def receive(self, deadline: float | None = None) -> dict[str, Any]:
        """The next message; `deadline` is a time.monotonic() value (None: wait for ever)."""
        while b"\n" not in self.buf:
            if len(self.buf) > LINE_MAX_BYTES:
                raise ChannelError("garbled", f"a message longer than {LINE_MAX_BYTES} bytes")
            wait = None if deadline is None else deadline - time.monotonic()
            if wait is not None and wait <= 0:
                raise ChannelError("timeout", "no answer before the time limit")
            ready, _, _ = select.select([self.sock], [], [], wait)
            if not ready:
                continue
            try:
                chunk = self.sock.recv(1 << 16)
            except OSError as exc:
                raise ChannelError("closed", f"the other side is gone ({exc.strerror or exc})") from None
            if not chunk:
                raise ChannelError("closed", "the other side closed the channel")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        try:
            message = json.loads(line)
        except ValueError:
            raise ChannelError("garbled", f"not a JSON message: {line[:200]!r}") from None
        if not isinstance(message, dict):
            raise ChannelError("garbled", f"not a JSON object: {line[:200]!r}")
        return message

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass
