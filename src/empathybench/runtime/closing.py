"""``with thing:`` for the package's objects that hold a file or a connection: entering gives
the object back, leaving (also on an error) calls its ``close``."""

from __future__ import annotations

from abc import ABC, abstractmethod
from types import TracebackType
from typing import TypeVar

ClosingT = TypeVar("ClosingT", bound="Closing")


class Closing(ABC):
    @abstractmethod
    def close(self) -> None:
        """Release the file or connection (called once, on leaving ``with``)."""

    def __enter__(self: ClosingT) -> ClosingT:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
