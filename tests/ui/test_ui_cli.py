"""``empathybench ui`` before any server starts: missing gradio, exposure warning, bad options."""

import sys
import types
from pathlib import Path
from typing import Any

import pytest

from empathybench.cli import main
from empathybench.errors import UserError
from empathybench.ui.settings import UiSettings, exposure_warning, is_loopback, require_gradio


class FakeApp:
    """Stands in for ``empathybench.ui.app``: records what the CLI would launch."""

    def __init__(self) -> None:
        self.launched: list[UiSettings] = []
        self.module = types.ModuleType("empathybench.ui.app")
        self.module.build_app = lambda settings: ("app", settings)  # type: ignore[attr-defined]
        self.module.launch_app = self.launch  # type: ignore[attr-defined]

    def launch(self, app: Any, settings: UiSettings, *, block: bool = True) -> str:
        assert app == ("app", settings) and block
        self.launched.append(settings)
        return f"http://{settings.host}:{settings.port}/"


@pytest.fixture
def fake_app(monkeypatch: pytest.MonkeyPatch) -> FakeApp:
    fake = FakeApp()
    monkeypatch.setitem(sys.modules, "empathybench.ui.app", fake.module)
    monkeypatch.setattr("empathybench.cli.ui_commands.require_gradio", lambda: "6.0.0")
    return fake


def run_main(argv: list[str]) -> int:
    try:
        main(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    return 0


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.0.0.2", True),
        ("localhost", True),
        ("LOCALHOST", True),
        ("::1", True),
        ("[::1]", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.20", False),
        ("example.org", False),
    ],
)
def test_loopback_hosts(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback
    assert (exposure_warning(host) is None) is loopback


def test_missing_gradio_is_one_line_saying_how_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "gradio", None)  # ``import gradio`` now raises ImportError
    with pytest.raises(UserError, match=r"pip install -e '\.\[ui\]'"):
        require_gradio()
    code = run_main(["ui", "--flag-file", str(tmp_path / "flags.csv")])
    error = capsys.readouterr().err
    assert code == 2
    assert error.count("\n") == 1 and error.startswith("error: ")
    assert "gradio" in error and ".[ui]" in error
    assert "Traceback" not in error


def test_another_gradio_major_version_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gradio", types.SimpleNamespace(__version__="5.49.1"))
    with pytest.raises(UserError, match=r"needs gradio 6\.x, found 5\.49\.1"):
        require_gradio()
    monkeypatch.setitem(sys.modules, "gradio", types.SimpleNamespace(__version__="6.31.0"))
    assert require_gradio() == "6.31.0"


def test_loopback_by_default_and_settings_passed_through(
    fake_app: FakeApp, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "runs").mkdir()
    code = run_main(
        ["ui", "--port", "7999", "--runs", str(tmp_path / "runs"), "--flag-file", "f.csv"]
    )
    assert code == 0
    [settings] = fake_app.launched
    assert settings == UiSettings(
        host="127.0.0.1", port=7999, runs_dir=tmp_path / "runs", flag_file=Path("f.csv")
    )
    assert "warning" not in capsys.readouterr().err


def test_a_non_loopback_host_prints_a_warning(
    fake_app: FakeApp, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_main(["ui", "--host", "0.0.0.0"]) == 0
    assert fake_app.launched[0].host == "0.0.0.0"
    error = capsys.readouterr().err
    assert "warning: listening on 0.0.0.0" in " ".join(error.split())
    assert "--host 127.0.0.1" in " ".join(error.split())


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--runs", "missing-folder"], "--runs missing-folder: no such folder"),
        (["--survey", "missing-folder"], "--survey missing-folder: no such folder"),
        (["--annotations", "missing-folder"], "--annotations missing-folder: no such folder"),
        (["--scorer", "missing-folder"], "--scorer missing-folder: no such folder"),
        (["--port", "70000"], "--port 70000: use a port from 1 to 65535"),
    ],
)
def test_bad_options_are_refused_before_starting(
    option: list[str],
    message: str,
    fake_app: FakeApp,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert run_main(["ui", *option]) == 2
    assert message in capsys.readouterr().err
    assert fake_app.launched == []
