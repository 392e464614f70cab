"""The per-directory lock: exclusive across processes, re-entrant within one, gone on a kill."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from empathybench.errors import UserError
from empathybench.runtime.directory_lock import (
    LOCK_FILE,
    DirectoryInUse,
    directory_in_use,
    hold_directory,
)

pytestmark = pytest.mark.skipif(os.name != "posix", reason="flock is POSIX")

HOLDER = """
import sys, time
from pathlib import Path
from empathybench.runtime.directory_lock import hold_directory
with hold_directory(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(60)
"""


def hold_in_child(directory: Path) -> subprocess.Popen[str]:
    child = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(directory)], stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "held"
    return child


def test_a_second_process_is_refused_and_the_lock_dies_with_the_holder(tmp_path: Path) -> None:
    directory = tmp_path / "run"
    child = hold_in_child(directory)
    try:
        assert directory_in_use(directory) == child.pid
        in_use = pytest.raises(DirectoryInUse, match=rf"is in use by process {child.pid}")
        with in_use, hold_directory(directory):
            pass
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
    assert (directory / LOCK_FILE).exists()  # a stale file is harmless
    assert directory_in_use(directory) is None
    with hold_directory(directory):
        assert (directory / LOCK_FILE).read_text().strip() == str(os.getpid())


def test_holding_is_reentrant_within_a_process(tmp_path: Path) -> None:
    directory = tmp_path / "run"
    with hold_directory(directory):
        with hold_directory(directory):
            pass
        assert directory_in_use(directory) is None  # our own hold does not count
        child = subprocess.run(
            [sys.executable, "-c", HOLDER, str(directory)],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert child.returncode != 0 and "DirectoryInUse" in child.stderr
    started = time.monotonic()
    child_process = hold_in_child(directory)  # released after the outer block
    child_process.send_signal(signal.SIGKILL)
    child_process.wait(timeout=10)
    assert time.monotonic() - started < 30


def test_a_file_where_the_folder_belongs_is_a_user_error(tmp_path: Path) -> None:
    path = tmp_path / "file"
    path.write_text("x")
    with pytest.raises(UserError, match="is a file"), hold_directory(path):
        pass
