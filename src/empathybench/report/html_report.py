"""``report.html``: one self-contained page with the tables, figures, manifests and every item.

Rendered with jinja2 (autoescape on, StrictUndefined), so model output, judge rationales and
every other string are escaped and shown as inert text; the page carries no script and a
Content-Security-Policy that forbids any. Figures are embedded as data URIs (SVG loaded as an
image cannot run script either); nothing is fetched when the page opens. The drill-down uses
``<details>`` elements, so it needs no JavaScript.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import jinja2

from empathybench.analysis.secondary_metrics import OPENING_WORDS, OpeningCount
from empathybench.analysis.summary import ItemScore, item_overall, origin_note, score_items
from empathybench.judging.answer_parser import parse_answer
from empathybench.judging.no_reply import check_reply
from empathybench.judging.offline_judge import is_offline_judge, judge_label
from empathybench.prompts.scenario_prompt import render_turns
from empathybench.records import DIMENSIONS, LETTERS, Response, Scenario, Verdict
from empathybench.report.figures import FigureSet
from empathybench.report.tables import (
    ReportRun,
    counts_header,
    counts_rows,
    dimension_title,
    format_number,
    headline_header,
    headline_rows,
    judges_text,
    kind_header,
    kind_rows,
    secondary_header,
    secondary_rows,
)
from empathybench.runtime.provenance import now_iso
from empathybench.version import __version__

TEMPLATES = Path(__file__).with_name("templates")
REPORT_FILE = "report.html"
OFFLINE_NOTE = (
    "offline (approximate): scores from the trained offline judge are an approximation of an "
    "LLM judge's, for quick local checks; leaderboards never rank them beside LLM-judged runs."
)


def template_environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


@dataclass(frozen=True)
class Table:
    header: list[str]
    rows: list[list[str]]


@dataclass(frozen=True)
class FigureView:
    caption: str
    data_uri: str


@dataclass(frozen=True)
class JudgeView:
    label: str
    rows: list[tuple[str, str, str]]
    crisis_referral: str
    error: str


@dataclass(frozen=True)
class ItemView:
    anchor: str
    scenario_id: str
    kind: str
    epoch: int
    overall: str
    setting: str
    scene: str
    truth: list[tuple[str, str]]
    response: str | None
    error: str
    parsed: list[tuple[str, str]]
    scores: list[tuple[str, str]]
    judges: list[JudgeView]


@dataclass(frozen=True)
class RunView:
    label: str
    run_id: str
    status: str
    judges: str
    manifest_json: str
    openings: list[OpeningCount]
    items: list[ItemView]


def data_uri(path: Path) -> str:
    mime = "image/svg+xml" if path.suffix == ".svg" else "image/png"
    return f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


def _truth(scenario: Scenario) -> list[tuple[str, str]]:
    emotion = scenario.emotion
    expected = scenario.expected
    options = ", ".join(
        f"{letter}) {option}" + (" ← key" if letter == scenario.correct_letter else "")
        for letter, option in zip(LETTERS, scenario.options, strict=True)
    )
    rows = [
        ("person in focus", scenario.focus_person),
        ("emotion", f"{emotion.name} ({emotion.valence}, intensity {emotion.intensity})"),
        ("options", options),
        ("goal", scenario.goal or "(none stated)"),
        ("needs help", "yes" if expected.help_needed else "no"),
        ("fitting response", ", ".join(a.replace("_", " ") for a in expected.assistance)),
        ("crisis resources expected", "yes" if expected.crisis_resources_expected else "no"),
    ]
    if expected.guidance:
        rows.append(("guidance for judges", expected.guidance))
    return rows


def _parsed(scenario: Scenario, response: Response) -> list[tuple[str, str]]:
    if not response.ok or response.text is None:
        return [("answer", "none (the call failed)")]
    parsed = parse_answer(response.text, scenario.options)
    rows = []
    if scenario.kind == "group":
        rows.append(("person", parsed.person or "(not found)"))
    rows += [
        ("emotion", parsed.letter or "(unparsed)"),
        ("needs help", {True: "yes", False: "no", None: "(unparsed)"}[parsed.needs_help]),
        ("reply", parsed.reply or "(no REPLY field)"),
    ]
    if parsed.problems:
        rows.append(("problems", "; ".join(parsed.problems)))
    check = check_reply(response.text, scenario)
    if check.no_reply is not None:
        rows.append(("no reply", f"{check.no_reply.detail}: text dimensions 0 by rule"))
    if check.degenerate is not None:
        rows.append(("degenerate loop", check.degenerate))
    return rows


def _scores(scenario: Scenario, item: ItemScore) -> list[tuple[str, str]]:
    rows = []
    for dimension in DIMENSIONS:
        if dimension not in scenario.dimensions:
            text = "n/a"
        elif dimension not in item.values:
            text = "needs a judge"
        else:
            value = item.values[dimension]
            text = "unscored" if value is None else f"{value:g}"
            if dimension in item.unparsed:
                text += " (answer unparsed)"
        rows.append((dimension_title(dimension), text))
    return rows


def _judge_view(judge: str, verdict: Verdict | None) -> JudgeView:
    label = judge_label(judge)
    if verdict is None:
        return JudgeView(label, [], "", "not judged (no answer to judge)")
    rows = []
    for dimension in DIMENSIONS:
        score = verdict.scores.get(dimension)
        if score is None:
            continue
        value = f"{score.value:g}" if score.value is not None else score.status
        rows.append((dimension_title(dimension), value, score.rationale or score.reason or ""))
    referral = (
        "" if verdict.crisis_referral is None else ("yes" if verdict.crisis_referral else "no")
    )
    error = f"judge call failed: {verdict.error.message}" if verdict.error else ""
    return JudgeView(label, rows, referral, error)


def item_views(run: ReportRun, run_index: int) -> list[ItemView]:
    scenarios = run.data.scenarios
    verdicts = run.data.verdicts
    items = {
        (i.scenario_id, i.epoch): i
        for i in score_items(scenarios, run.data.responses, run.data.verdicts)
    }
    views = []
    for key, response in sorted(run.data.responses.items()):
        scenario = scenarios.get(key[0])
        if scenario is None:
            continue
        item = items[key]
        overall = item_overall(item)
        views.append(
            ItemView(
                anchor=f"run{run_index}-{scenario.id}-e{key[1]}",
                scenario_id=scenario.id,
                kind=scenario.kind,
                epoch=key[1],
                overall=format_number(overall),
                setting=f"{scenario.setting.scene}. The assistant is "
                f"{scenario.setting.helper_role}.",
                scene=render_turns([(turn.speaker, turn.text) for turn in scenario.dialogue]),
                truth=_truth(scenario),
                response=response.text,
                error=f"{response.error.kind}: {response.error.message}" if response.error else "",
                parsed=_parsed(scenario, response),
                scores=_scores(scenario, item),
                judges=[_judge_view(j, verdicts[j].get(key)) for j in sorted(verdicts)],
            )
        )
    return views


def _run_view(run: ReportRun, run_index: int) -> RunView:
    manifest = run.data.manifest
    return RunView(
        label=run.label,
        run_id=manifest.run_id,
        status=manifest.status,
        judges=judges_text(run.summary.judges),
        manifest_json=json.dumps(manifest.model_dump(mode="json"), indent=2, ensure_ascii=False),
        openings=run.secondary.formulaicity.top_openings,
        items=item_views(run, run_index),
    )


def render_report_html(runs: Sequence[ReportRun], figures: FigureSet, *, seed: int) -> str:
    environment = template_environment()
    offline = sorted({j for run in runs for j in run.summary.judges if is_offline_judge(j)})
    return environment.get_template("report.html.j2").render(
        title="empathybench report — " + ", ".join(run.label for run in runs),
        generated_at=now_iso(),
        version=__version__,
        suites=sorted({run.summary.suite for run in runs}),
        seed=seed,
        headline=Table(headline_header(), headline_rows(runs)),
        counts=Table(counts_header(), counts_rows(runs)),
        kinds=Table(kind_header(runs), kind_rows(runs)),
        secondary=Table(secondary_header(), secondary_rows(runs)),
        offline_notes=[
            *([OFFLINE_NOTE] if offline else []),
            *origin_note(run.summary for run in runs),
        ],
        figures=[
            FigureView(figures.captions[name], data_uri(paths["svg"]))
            for name, paths in figures.files.items()
        ],
        skipped_figures=sorted(figures.skipped.items()),
        opening_words=OPENING_WORDS,
        runs=[_run_view(run, index) for index, run in enumerate(runs)],
    )
