"""Facts about the environment a run was made in, for the manifest."""

from __future__ import annotations

import platform
import subprocess
import sys
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

TRACKED_PACKAGES = (
    "empathybench",
    "pydantic",
    "openai",
    "anthropic",
    "torch",
    "transformers",
    "gguf",
    "tenacity",
)


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def package_versions() -> dict[str, str]:
    found = {}
    for name in TRACKED_PACKAGES:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            continue
    return found


def git_revision() -> str | None:
    """The commit of the empathybench source, when it is a git checkout."""
    source = Path(__file__).resolve().parent
    try:
        result = subprocess.run(
            ["git", "-C", str(source), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout.strip() or None if result.returncode == 0 else None


def python_version() -> str:
    return sys.version.split()[0]


def platform_name() -> str:
    return platform.platform()
