"""What the web app is started with, and the checks that run before gradio is imported.

Kept free of gradio so the CLI can refuse bad options (and a missing gradio) with one clear
line, and tests can check those rules without starting a server.
"""

from __future__ import annotations

import importlib
import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path

from empathybench.errors import ParameterError, UserError
from empathybench.validation import check_file_target

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 7860
DEFAULT_FLAG_FILE = Path("flagged.csv")
GRADIO_MAJOR = 6
INSTALL_HINT = "pip install -e '.[ui]' (or pip install 'gradio>=6,<7')"


@dataclass(frozen=True)
class UiSettings:
    """Options of ``empathybench ui``; ``None`` folders switch their tab to a how-to note."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    runs_dir: Path | None = None
    survey_dir: Path | None = None
    annotation_dir: Path | None = None
    flag_file: Path = DEFAULT_FLAG_FILE
    scorer_head: Path | None = None


def is_loopback(host: str) -> bool:
    """Whether ``host`` only accepts connections from this machine.

    Hostnames other than ``localhost`` count as not loopback: they may resolve to a public
    address, and the warning is cheap while a silent exposure is not.
    """
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip().strip("[]")).is_loopback
    except ValueError:
        return False


def exposure_warning(host: str, local: str = 'host="127.0.0.1"') -> str | None:
    """The line to print when the app would listen beyond this machine; ``local`` says how
    the caller's user listens on this machine only (the CLI: ``--host 127.0.0.1``)."""
    if is_loopback(host):
        return None
    return (
        f"warning: listening on {host}: anyone who can reach this address can use the app, "
        "flag texts, cast survey votes and submit annotations (there is no login); use "
        f"{local} to keep it on this machine"
    )


def require_gradio() -> str:
    """Import gradio (the ``ui`` extra) and return its version, or say how to install it.

    Analytics (and with them gradio's online version check) are switched off first: the app
    must never need a network.
    """
    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
    try:
        gradio = importlib.import_module("gradio")
    except ImportError:
        raise UserError(
            f"the web app needs gradio, which is not installed: {INSTALL_HINT}"
        ) from None
    version = str(getattr(gradio, "__version__", "0"))
    major = version.split(".", 1)[0]
    if not major.isdigit() or int(major) != GRADIO_MAJOR:
        raise UserError(
            f"the web app needs gradio {GRADIO_MAJOR}.x, found {version}: {INSTALL_HINT}"
        )
    return version


def check_settings(settings: UiSettings) -> None:
    """Refuse options that would only fail later, inside the running app."""
    if not 0 < settings.port < 65536:
        raise ParameterError(
            f"port {settings.port}: use a port from 1 to 65535", parameters=["port"]
        )
    if settings.runs_dir is not None and not settings.runs_dir.is_dir():
        raise ParameterError(
            f"runs_dir {settings.runs_dir}: no such folder", parameters=["runs_dir"]
        )
    if settings.survey_dir is not None and not settings.survey_dir.is_dir():
        raise ParameterError(
            f"survey_dir {settings.survey_dir}: no such folder", parameters=["survey_dir"]
        )
    if settings.annotation_dir is not None and not settings.annotation_dir.is_dir():
        raise ParameterError(
            f"annotation_dir {settings.annotation_dir}: no such folder",
            parameters=["annotation_dir"],
        )
    if settings.scorer_head is not None and not settings.scorer_head.is_dir():
        raise ParameterError(
            f"scorer_head {settings.scorer_head}: no such folder (a trained head)",
            parameters=["scorer_head"],
        )
    from empathybench.scorer.heads import check_head_dir

    check_head_dir("scorer_head", settings.scorer_head)
    check_file_target("flag_file", settings.flag_file)
    if settings.flag_file.is_dir():
        raise ParameterError(
            f"flag_file {settings.flag_file}: is a folder; give a .csv file path",
            parameters=["flag_file"],
        )
