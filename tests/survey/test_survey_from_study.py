import json
from pathlib import Path

from empathybench.survey.build import load_form, load_key
from empathybench.survey.session import SurveySession
from tests.fakes.cli_process import run_cli
from tests.fakes.therapy_study import make_study


def test_a_study_becomes_a_blind_survey_and_its_votes_are_unblinded(tmp_path: Path) -> None:
    study = make_study(tmp_path / "study", models=("mock/alpha", "mock/beta"))
    survey = tmp_path / "survey"
    built = run_cli(
        "survey", "build", str(survey), "--study", str(study.directory), "--k", "2", "--seed", "5"
    )
    assert built.returncode == 0, built.stderr
    form, key = load_form(survey), load_key(survey)
    assert key.sources == ["human", "mock/alpha", "mock/beta"]
    assert len(form.items) == 2 and all(len(item.answers) == 3 for item in form.items)
    form_text = (survey / "form.json").read_text(encoding="utf-8")
    assert all(source not in form_text for source in key.sources)
    # The human answer behind each letter is the study's reference answer.
    references = {q.id: q.reference for q in study.question_set().questions}
    for item in form.items:
        human = next(
            e.letter
            for e in key.entries
            if e.question_id == item.question_id and e.source == "human"
        )
        text = next(a.text for a in item.answers if a.letter == human)
        assert text == references[item.question_id]

    with SurveySession.open(survey) as session:
        for item in form.items:
            by_source = {
                e.source: e.letter for e in key.entries if e.question_id == item.question_id
            }
            session.vote("r1", item.question_id, by_source["mock/alpha"], by_source["human"])
    results = run_cli("survey", "results", str(survey))
    assert results.returncode == 0, results.stderr
    data = json.loads((survey / "results" / "results.json").read_text(encoding="utf-8"))
    shares = {s["source"]: s for s in data["sources"]}
    assert shares["mock/alpha"]["most"]["mean"] == 1.0
    assert shares["human"]["least"]["mean"] == 1.0
    assert shares["mock/beta"]["most"]["mean"] == 0.0


def test_too_many_sources_or_an_unknown_one_is_one_error_line(tmp_path: Path) -> None:
    models = ("mock/a", "mock/b", "mock/c", "mock/d", "mock/e")
    study = make_study(tmp_path / "study", models=models)
    result = run_cli("survey", "build", str(tmp_path / "s"), "--study", str(study.directory))
    assert result.returncode == 2 and "at most 5" in result.stderr
    assert result.stderr.count("\n") == 1
    chosen = run_cli(
        "survey",
        "build",
        str(tmp_path / "s"),
        "--study",
        str(study.directory),
        "--source",
        "human",
        "--source",
        "mock/a",
        "--k",
        "3",
    )
    assert chosen.returncode == 0, chosen.stderr
    unknown = run_cli(
        "survey",
        "build",
        str(tmp_path / "t"),
        "--study",
        str(study.directory),
        "--source",
        "human",
        "--source",
        "mock/zz",
    )
    assert unknown.returncode == 2 and "no source mock/zz" in unknown.stderr
