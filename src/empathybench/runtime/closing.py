"""``with thing:`` for the package's objects that hold a file or a connection: entering gives
the object back, leaving (also on an error) calls its ``close``."""

from __future__ import annotations

from types import TracebackType
from typing import TypeVar

ClosingT = TypeVar("ClosingT", bound="Closing")


class Closing:
    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self: ClosingT) -> ClosingT:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
