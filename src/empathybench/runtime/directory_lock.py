"""An exclusive lock per working directory (a run, a therapy study, a survey).

Two processes writing one run directory would each answer every item (double the spend on
a paid API) and interleave their records. ``hold_directory(path)`` takes an exclusive
``flock`` on ``path/.empathybench.lock`` without waiting; a second process gets
``DirectoryInUse`` (``error: DIR is in use by process N``). The lock belongs to the open
file, so the operating system releases it when the process ends, killed or not: a stale
lock file is harmless and is simply locked again.

Holding is re-entrant within a process (a ``run`` command holds its directory, and the
runner and the judges inside it take it again); the lock is released when the outermost
holder exits. ``directory_in_use(path)`` tells a reader (a leaderboard) whether another
process is writing a directory right now, and which.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from empathybench.errors import UserError

LOCK_FILE = ".empathybench.lock"

try:  # POSIX
    import fcntl

    def _try_lock(handle: IO[str]) -> bool:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(handle: IO[str]) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

except ImportError:  # pragma: no cover - Windows
    import msvcrt

    def _try_lock(handle: IO[str]) -> bool:
        try:
            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]
        except OSError:
            return False
        return True

    def _unlock(handle: IO[str]) -> None:
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)  # type: ignore[attr-defined]


class DirectoryInUse(UserError):
    """Another process holds the directory's lock."""

    def __init__(self, directory: Path, pid: int | None) -> None:
        self.directory = directory
        self.pid = pid
        who = f"process {pid}" if pid is not None else "another process"
        super().__init__(f"{directory} is in use by {who}; wait for it to finish or stop it")


@dataclass
class _Held:
    handle: IO[str]
    depth: int


_held: dict[Path, _Held] = {}
_guard = threading.Lock()


def lock_path(directory: Path) -> Path:
    return directory / LOCK_FILE


def _recorded_pid(path: Path) -> int | None:
    try:
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None


def _acquire(directory: Path) -> IO[str]:
    if directory.exists() and not directory.is_dir():
        raise UserError(f"{directory}: is a file, expected a folder")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UserError(f"{directory}: cannot create the folder ({error.strerror})") from None
    path = lock_path(directory)
    handle = path.open("a+", encoding="ascii")
    if not _try_lock(handle):
        handle.close()
        raise DirectoryInUse(directory, _recorded_pid(path))
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return handle


def acquire_directory(directory: Path) -> None:
    """Take (or re-enter) this process's lock on ``directory``; see ``release_directory``."""
    key = directory.resolve()
    with _guard:
        held = _held.get(key)
        if held is not None:
            held.depth += 1
            return
        _held[key] = _Held(_acquire(directory), 1)


def release_directory(directory: Path) -> None:
    key = directory.resolve()
    with _guard:
        held = _held.get(key)
        if held is None:
            return
        held.depth -= 1
        if held.depth == 0:
            del _held[key]
            _unlock(held.handle)
            held.handle.close()


@contextmanager
def hold_directory(directory: Path) -> Iterator[None]:
    """Hold the exclusive lock on ``directory`` (created if missing) for the block."""
    acquire_directory(directory)
    try:
        yield
    finally:
        release_directory(directory)


def directory_in_use(directory: Path) -> int | None:
    """The process id writing ``directory`` now (-1 if unknown), or None when nobody is.

    This process's own holds do not count.
    """
    path = lock_path(directory)
    if not path.is_file() or directory.resolve() in _held:
        return None
    try:
        handle = path.open("a+", encoding="ascii")
    except OSError:
        return None
    try:
        if _try_lock(handle):
            _unlock(handle)
            return None
    finally:
        handle.close()
    pid = _recorded_pid(path)
    return pid if pid is not None else -1
