"""What every fake HTTP server of the tests shares: a threaded server on 127.0.0.1 at an
ephemeral port, started and always stopped (a context manager), with its base URL.

A fake subclasses ``LoopbackServer`` and names its request handler; the handler reaches the
fake through ``self.server.fake``::

    class FakeThing(LoopbackServer):
        handler = _Handler

    with FakeThing() as fake:
        ... fake.url ...
"""

from __future__ import annotations

import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, ClassVar, TypeVar

S = TypeVar("S", bound="LoopbackServer")


class LoopbackHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # a burst of concurrent connects must not overflow the backlog
    fake: Any
    """The ``LoopbackServer`` this server answers for."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        # a client that gave up (timeout) makes the late write fail: expected, stay quiet
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class LoopbackServer:
    handler: ClassVar[type[BaseHTTPRequestHandler]]
    """The request handler class of the fake (subclasses set it)."""
    server_class: ClassVar[type[LoopbackHTTPServer]] = LoopbackHTTPServer
    """A subclass only narrows ``fake``'s type for its handler."""

    def __init__(self) -> None:
        self._server: LoopbackHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError(f"the {type(self).__name__} is not running")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def openai_base_url(self) -> str:
        return f"{self.url}/v1"

    def start(self: S) -> S:
        self._server = self.server_class(("127.0.0.1", 0), self.handler)
        self._server.fake = self
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            daemon=True,
            kwargs={"poll_interval": 0.05},
            name=type(self).__name__,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None

    def __enter__(self: S) -> S:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
