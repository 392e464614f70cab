"""Every command, driven with bad values and bad files, ends in one ``error:`` line and exit 2
(or does the right thing and exits 0) — never a traceback.

Commands are enumerated from the typer app, so a new command is fuzzed without a change here.
The CLI runs in-process (typer's CliRunner) to keep the whole file fast.
"""

from __future__ import annotations

import math
import types
import typing
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.main import get_command
from typer.testing import CliRunner

from empathybench.cli import app

HEAVY = {"score", "audit", "scorer", "probe"}
"""Commands that load torch or train when an input happens to be fine: fuzzed in the slow set."""
BASE_ARGS = {
    "run": ["--model", "mock/fuzz", "--limit", "2", "--no-progress", "--no-judge"],
    "therapy run": ["--model", "mock/fuzz", "--limit", "2", "--no-progress"],
}
"""Arguments that keep a command on the mock model when the fuzzed value happens to be fine."""
CHECK_COMMANDS = {"validate": (1, 2)}
"""Commands that check a file: readable text with bad records is a finding (exit 1)."""
BAD_NUMBERS = {int: ["-1", "-99999999999", "100000000000000"], float: ["nan", "inf", "-1", "1e309"]}
ALWAYS_WRONG = {"file_as_folder", "nan", "inf", "-1", "-99999999999"}
"""Values no parameter accepts: they must end in exit 2 (the others may be fine for some
parameters, e.g. a missing file as an output, a huge --limit)."""
BAD_FILES = ("missing", "folder", "file_as_folder", "not_utf8", "binary", "deep_json", "empty")


def _leaves(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, Any]]:
    commands = getattr(command, "commands", None)
    if commands:
        for name, sub in commands.items():
            yield from _leaves(sub, (*path, name))
    else:
        yield " ".join(path), command


LEAVES = dict(_leaves(get_command(app)))


def _kind(param: Any) -> type | None:
    """The value type of a parameter: Path, int, float or str (None: a flag)."""
    if getattr(param, "is_flag", False):
        return None
    annotation = param.type_descriptor.annotation
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        annotation = next(a for a in typing.get_args(annotation) if a is not type(None))
    if typing.get_origin(annotation) is list:
        annotation = typing.get_args(annotation)[0]
    return annotation if annotation in (Path, int, float, str) else None


def _flag(param: Any) -> str | None:
    if param.param_type_name != "option":
        return None
    return max((o for o in param.opts if o.startswith("--")), key=len, default=param.opts[0])


@pytest.fixture(scope="module")
def bad_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("bad")
    files = {
        "missing": root / "missing" / "nothing.jsonl",
        "folder": root / "a-folder",
        "file_as_folder": root / "plain.txt" / "child",
        "not_utf8": root / "latin1.jsonl",
        "binary": root / "random.bin",
        "deep_json": root / "deep.json",
        "empty": root / "empty.jsonl",
    }
    files["folder"].mkdir()
    (root / "plain.txt").write_text("just text\n")
    files["not_utf8"].write_bytes('{"id": "caf\xe9"}\n'.encode("latin-1"))
    files["binary"].write_bytes(bytes(range(256)) * 8)
    files["deep_json"].write_text("[" * 100_000 + "]" * 100_000 + "\n")
    files["empty"].write_bytes(b"")
    return files


def _base(name: str, command: Any, bad_files: dict[str, Path], skip: Any) -> list[str]:
    """Required parameters filled so that each alone is wrong (a missing file)."""
    if _flag(skip) in BASE_ARGS.get(name, []):
        position = BASE_ARGS[name].index(_flag(skip))
        args = BASE_ARGS[name][:position] + BASE_ARGS[name][position + 2 :]
    else:
        args = list(BASE_ARGS.get(name, []))
    for param in command.params:
        if param is skip or not param.required:
            continue
        value = str(bad_files["missing"])
        args += [_flag(param), value] if _flag(param) else [value]
    return args


def _invoke(args: list[str]) -> Any:
    return CliRunner().invoke(app, args, catch_exceptions=True)


def _check(result: Any, args: list[str], allowed: tuple[int, ...] = (0, 2)) -> None:
    shown = " ".join(args)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"`{shown}` raised {result.exception!r}") from result.exception
    assert "Traceback" not in result.output, shown
    assert result.exit_code in allowed, f"`{shown}` exited {result.exit_code}: {result.output}"
    if result.exit_code == 2 and "error:" in result.output:
        errors = [line for line in result.output.splitlines() if line.startswith("error:")]
        assert len(errors) == 1, result.output


def _cases(*, full: bool, heavy: bool = False) -> Iterator[Any]:
    """(command, parameter, bad value) cases; not ``full``: one bad value per parameter,
    rotating through the kinds so every kind is still met across the commands."""
    turn = 0
    for name, command in LEAVES.items():
        if (name.split()[0] in HEAVY) != heavy:
            continue
        for param in command.params:
            kind = _kind(param)
            values = list(BAD_FILES) if kind is Path else BAD_NUMBERS.get(kind, [])  # type: ignore[call-overload]
            if values and not full:
                strict = [v for v in values if v in ALWAYS_WRONG]
                others = [v for v in values if v not in strict]
                extra = [others[turn % len(others)]] if kind is Path else []
                values, turn = [strict[turn % len(strict)], *extra], turn + 1
            for bad in values:
                yield pytest.param(name, param.name, bad, id=f"{name}-{param.name}-{bad}")


@pytest.fixture(autouse=True)
def _no_server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The web app is never launched: once its settings pass, ``ui`` exits 0."""
    import empathybench.cli.ui_commands as ui_commands

    def settings_passed() -> None:
        raise typer.Exit(0)

    monkeypatch.setattr(ui_commands, "require_gradio", settings_passed)
    monkeypatch.chdir(tmp_path)


def _fuzz(name: str, parameter: str, bad: str, bad_files: dict[str, Path]) -> None:
    command = LEAVES[name]
    param = next(p for p in command.params if p.name == parameter)
    value = str(bad_files[bad]) if bad in bad_files else bad
    args = [*name.split(), *_base(name, command, bad_files, param)]
    args += [_flag(param), value] if _flag(param) else [value]
    allowed = (2,) if bad in ALWAYS_WRONG else CHECK_COMMANDS.get(name, (0, 2))
    _check(_invoke(args), args, allowed)


@pytest.mark.parametrize(("name", "parameter", "bad"), list(_cases(full=False)))
def test_a_bad_value_or_file_is_one_error_line(
    name: str, parameter: str, bad: str, bad_files: dict[str, Path]
) -> None:
    _fuzz(name, parameter, bad, bad_files)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "parameter", "bad"),
    [*_cases(full=True), *_cases(full=True, heavy=True)],
)
def test_every_bad_value_and_file_is_one_error_line(
    name: str, parameter: str, bad: str, bad_files: dict[str, Path]
) -> None:
    _fuzz(name, parameter, bad, bad_files)


def test_every_command_is_fuzzed() -> None:
    fuzzed = {case.values[0] for case in [*_cases(full=False), *_cases(full=True, heavy=True)]}
    with_values = {
        n for n, c in LEAVES.items() if any(_kind(p) in (Path, int, float) for p in c.params)
    }
    assert with_values <= fuzzed
    assert {"run", "judge", "report", "therapy questions", "survey export"} <= fuzzed


RUN_RANGES: dict[str, tuple[float, float]] = {
    "--temperature": (0, 2),
    "--top-p": (1e-300, 1),
    "--max-tokens": (1, math.inf),
    "--max-connections": (1, math.inf),
    "--max-attempts": (1, math.inf),
    "--epochs": (1, 1000),
    "--rpm": (1e-300, math.inf),
    "--seed": (0, 2**32 - 1),
}
INTEGER_OPTIONS = {"--max-tokens", "--max-connections", "--max-attempts", "--epochs", "--seed"}


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    option=st.sampled_from(sorted(RUN_RANGES)),
    number=st.one_of(
        st.floats(allow_nan=True, allow_infinity=True, width=32),
        st.integers(min_value=-(2**40), max_value=2**40),
    ),
)
def test_run_accepts_exactly_the_documented_ranges(option: str, number: float) -> None:
    """Out of range or not finite: exit 2 before any call; in range: the run completes."""
    if option in INTEGER_OPTIONS:
        if isinstance(number, float) and not number.is_integer():
            return  # not an integer: the parser refuses it (covered by click)
        number = int(number) if math.isfinite(number) else number
    low, high = RUN_RANGES[option]
    text = repr(number) if isinstance(number, float) else str(number)
    run_dir = f"r-{uuid.uuid4().hex}"
    args = ["run", *BASE_ARGS["run"], "--limit", "1", "--run-dir", run_dir, option, text]
    result = _invoke(args)
    _check(result, args)
    fine = math.isfinite(number) and low <= number <= high
    assert (result.exit_code == 0) == fine, f"{args}: {result.output}"
    if not fine:
        assert option in result.output
