"""Commands for scenarios: generate, validate, suites, show, space."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from empathybench.cli.console import console, err_console
from empathybench.errors import UserError
from empathybench.jsonl import canonical_json
from empathybench.records import LETTERS, SCENARIO_KINDS, ScenarioKind
from empathybench.runtime.output_guard import check_output_file, has_fields, path_parser
from empathybench.scenarios.generator import (
    KIND_CODES,
    MAX_GENERATE,
    generate_records,
    space_report,
)
from empathybench.scenarios.suites import (
    bundled_suites,
    file_sha256,
    load_suite,
    suites_dir,
    write_scenarios,
)
from empathybench.scenarios.templates import DEFAULT_TEMPLATE_VERSION
from empathybench.scenarios.validation import validate_file
from empathybench.validation import (
    check_count,
    check_file_target,
    check_seed,
)

MAX_KIND_WEIGHT = 1e6
"""Weights are relative; anything larger only risks float overflow in the shares."""


def parse_kinds(text: str | None) -> dict[ScenarioKind, float] | None:
    """``a,b`` (equal weights) or ``a=3,b=1`` (weights) into a kind mix (None: the default
    composition of the template version)."""
    if text is None:
        return None
    if not text.strip():
        raise UserError("--kinds is empty: name one or more kinds, or leave the option out")
    mix: dict[ScenarioKind, float] = {}
    for part in text.split(","):
        name, _, weight = part.strip().partition("=")
        if name not in SCENARIO_KINDS:
            raise UserError(f"unknown kind {name!r}; known kinds: {', '.join(SCENARIO_KINDS)}")
        if name in mix:
            raise UserError(f"kind {name} is given twice in --kinds")
        try:
            value = float(weight) if weight else 1.0
        except ValueError:
            raise UserError(f"kind weight {weight!r} for {name} is not a number") from None
        if not math.isfinite(value) or value > MAX_KIND_WEIGHT:
            raise UserError(f"kind weight for {name} must be a number up to {MAX_KIND_WEIGHT:g}")
        if value < 0:
            raise UserError(f"kind weight for {name} must not be negative")
        mix[name] = value
    return mix


def _generate(
    n: Annotated[int, typer.Option("--n", help="Number of scenarios.")] = 1000,
    seed: Annotated[int, typer.Option(help="Seed; the same seed gives the same bytes.")] = 0,
    kinds: Annotated[
        str | None,
        typer.Option(
            help="Kind mix: 'emotion_support,crisis' or 'emotion_support=3,crisis=1'. "
            "Default: the standard composition."
        ),
    ] = None,
    output: Annotated[
        Path,
        typer.Option("-o", "--output", help="JSONL file to write.", parser=path_parser("-o")),
    ] = Path("scenarios.jsonl"),
    template_version: Annotated[
        str, typer.Option(help="Template version (default: the newest).")
    ] = (DEFAULT_TEMPLATE_VERSION),
    force: Annotated[
        bool, typer.Option("--force", help="Replace an -o file that is not a suite.")
    ] = False,
) -> None:
    """Generate N distinct scenarios as JSONL (streamed; memory stays flat)."""
    check_count("n", n, maximum=MAX_GENERATE)
    check_seed("seed", seed)
    check_file_target("output", output)
    check_output_file(
        output, kind="suite (scenario JSONL)", same_kind=has_fields("id", "kind"), force=force
    )
    mix = parse_kinds(kinds)
    scenarios = generate_records(n, seed, mix, template_version)
    first = next(scenarios)  # surfaces input errors before any file or progress bar appears
    output.parent.mkdir(parents=True, exist_ok=True)  # so does a folder that cannot be made
    with Progress(
        TextColumn("generating"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err_console,
        transient=True,
    ) as progress:
        task = progress.add_task("generate", total=n)

        def counted() -> Iterator[dict[str, Any]]:
            yield first
            for done, scenario in enumerate(scenarios, start=2):
                if done % 500 == 0:
                    progress.update(task, completed=done)
                yield scenario

        summary = write_scenarios(output, counted())
    kinds_text = ", ".join(f"{kind} {count}" for kind, count in sorted(summary.kinds.items()))
    letters_text = " ".join(f"{letter}={summary.letters[letter]}" for letter in LETTERS)
    console.print(f"wrote {summary.n:,} scenarios to {output}")
    console.print(f"kinds: {kinds_text}")
    console.print(f"correct letters: {letters_text}")
    console.print(f"sha256: {summary.sha256}")


def _validate(
    file: Annotated[Path, typer.Argument(help="Scenario JSONL file to check.")],
) -> None:
    """Check a scenario file: schema, unique ids and prompts, consistency of every item."""
    report = validate_file(file)
    for problem in report.problems:
        console.print(f"{file}:{problem}", highlight=False, soft_wrap=True)
    if report.ok:
        console.print(f"ok: {report.checked:,} scenarios, no problems")
        return
    console.print(
        f"{len(report.problems)} problem(s) in {report.checked:,} scenarios"
        + (" (first 200 shown)" if len(report.problems) >= 200 else "")
    )
    raise typer.Exit(1)


def _suites() -> None:
    """List the bundled suites with their counts and hashes (and verify the hashes)."""
    table = Table(title="bundled suites")
    for column in ("name", "items", "kinds", "template", "sha256", "file check"):
        table.add_column(column)
    for info in bundled_suites().values():
        actual = file_sha256(suites_dir() / info.file)
        code_of: dict[str, str] = {str(k): v for k, v in KIND_CODES.items()}
        kinds = " ".join(f"{code_of.get(kind, kind)}={count}" for kind, count in info.kinds.items())
        table.add_row(
            info.name,
            str(info.n),
            kinds,
            info.template_version,
            info.sha256,
            "ok" if actual == info.sha256 else "[red]MODIFIED[/]",
        )
    console.print(table)
    codes = ", ".join(f"{code}={kind}" for kind, code in KIND_CODES.items())
    console.print(f"kinds: {codes}", highlight=False)


def _show(
    suite: Annotated[str, typer.Argument(help="Bundled suite name or JSONL file.")],
    scenario_id: Annotated[str, typer.Argument(help="Scenario id (or its 1-based line).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the raw record.")] = False,
) -> None:
    """Show one scenario: the scene, the hidden truth and the exact prompt."""
    loaded = load_suite(suite)
    found = [s for s in loaded.scenarios if s.id == scenario_id]
    if not found and scenario_id.isdigit() and 1 <= int(scenario_id) <= len(loaded.scenarios):
        found = [loaded.scenarios[int(scenario_id) - 1]]
    if not found:
        raise UserError(f"no scenario {scenario_id!r} in {suite} ({len(loaded.scenarios)} items)")
    scenario = found[0]
    if as_json:
        console.print_json(canonical_json(scenario))
        return
    console.rule(f"{scenario.id}  ({scenario.kind})")
    console.print(
        f"[bold]hidden emotion[/]: {scenario.emotion.name} ({scenario.emotion.valence}, "
        f"intensity {scenario.emotion.intensity}); correct option "
        f"{scenario.correct_letter} of {scenario.options}",
        highlight=False,
    )
    console.print(f"[bold]hidden goal[/]: {scenario.goal or '-'}", highlight=False)
    expected = scenario.expected
    console.print(
        f"[bold]expected[/]: help needed {'yes' if expected.help_needed else 'no'}; "
        f"{', '.join(expected.assistance)}; crisis resources "
        f"{'expected' if expected.crisis_resources_expected else 'not expected'}",
        highlight=False,
    )
    if expected.guidance:
        console.print(f"[bold]guidance[/]: {expected.guidance}", highlight=False)
    console.print(f"[bold]dimensions[/]: {', '.join(scenario.dimensions)}", highlight=False)
    console.print(
        f"[bold]templates[/]: {json.dumps(scenario.provenance.templates)}", highlight=False
    )
    for message in scenario.messages:
        console.rule(message.role)
        console.print(message.content, highlight=False, markup=False)


def _space(
    template_version: Annotated[
        str, typer.Option(help="Template version (default: the newest).")
    ] = (DEFAULT_TEMPLATE_VERSION),
) -> None:
    """Report the size of the scenario space per kind."""
    table = Table(title=f"scenario space, template {template_version}")
    table.add_column("kind")
    table.add_column("content frames", justify="right")
    table.add_column("distinct prompts", justify="right")
    total = frames = 0
    for kind, (kind_frames, distinct) in space_report(template_version).items():
        table.add_row(kind, f"{kind_frames:,}", _count(distinct))
        total += distinct
        frames += kind_frames
    table.add_row("[bold]all[/]", f"{frames:,}", _count(total))
    console.print(table)
    console.print(
        "content frames: distinct content choices (v1: situation/belief × location × goal × "
        "emotion; v2-v5: episode × person asked about × belief/crisis; v6: family × person "
        "asked about × the outcome they get × who needs help); distinct prompts also vary "
        "names, roles, phrasings, cues (v5, v6: request numbers and how people give them; v6: "
        "which outcome each person wants, dreads or never tried, and every other person's "
        "outcome and place), speaking order and options (a lower bound for v6)."
    )


def _count(value: int) -> str:
    """A count with thousands separators, or in powers of ten past a trillion (v5's request
    numbers make prompt counts too long for a terminal table)."""
    return f"{value:,}" if value < 10**12 else f"{value:.2e}"


def register(app: typer.Typer) -> None:
    app.command("generate")(_generate)
    app.command("validate")(_validate)
    app.command("suites")(_suites)
    app.command("show")(_show)
    app.command("space")(_space)
