"""What the reply does against what the item expects (the judge-v3 ``fit`` signals)."""

import numpy as np

from empathybench.judging.response_fit import (
    FIT_NAMES,
    ITEM_EXPECTS,
    MISMATCHES,
    REPLY_ACTS,
    fit_rows,
    item_expects,
    reply_acts,
)
from empathybench.records import Scenario, Suite


def _item(suite: Suite, kind: str) -> Scenario:
    return next(s for s in suite.scenarios if s.kind == kind)


def _act(scenario: Scenario, reply: str, name: str) -> float:
    return reply_acts(scenario, reply)[REPLY_ACTS.index(name)]


def _mismatch(scenario: Scenario, reply: str, name: str) -> float:
    return float(fit_rows([scenario], [reply])[0, FIT_NAMES.index(name)])


def test_reads_what_a_reply_does(small_suite: Suite) -> None:
    item = _item(small_suite, "emotion_support")
    advice = "First, call the office. Then email your manager, and check the policy. Try HR next."
    assert _act(item, advice, "steps") == 1.0
    assert _act(item, "That sounds so hard. I'm here.", "steps") == 0.0
    assert _act(item, "That sounds so hard.", "validates") == 1.0
    assert _act(item, "Do you want to talk about it?", "invites_to_talk") == 1.0
    assert _act(item, "Please call 988 now.", "crisis_help") == 1.0
    assert _act(item, "Congratulations, well done!", "celebrates") == 1.0
    assert _act(item, "You're right, they deserve it.", "agrees") == 1.0
    assert _act(item, "In real life that would be dangerous.", "breaks_frame") == 1.0
    assert _act(item, "ok", "short") == 1.0 and _act(item, "ok", "long") == 0.0


def test_reads_whom_a_reply_names(small_suite: Suite) -> None:
    item = _item(small_suite, "group")
    addressee = item.reply_addressee or item.focus_person
    other = next(p.name for p in item.participants if p.name != addressee)
    assert _act(item, f"{addressee}, I'm sorry.", "names_addressee") == 1.0
    assert _act(item, f"{other}, I'm sorry.", "names_other") == 1.0
    assert _act(item, f"{other}, I'm sorry.", "names_addressee") == 0.0


def test_reads_what_the_item_expects(small_suite: Suite) -> None:
    crisis = _item(small_suite, "crisis")
    expects = dict(zip(ITEM_EXPECTS, item_expects(crisis), strict=True))
    assert expects["crisis_expected"] == 1.0 and expects["fits_crisis_referral"] == 1.0
    assert expects["declines_help"] == 0.0
    venting = crisis.model_copy(
        update={
            "expected": crisis.expected.model_copy(
                update={"guidance": "Mia needs no help from you (wants to be heard, not helped)."}
            )
        }
    )
    assert dict(zip(ITEM_EXPECTS, item_expects(venting), strict=True))["declines_help"] == 1.0


def test_mismatches_follow_the_item(small_suite: Suite) -> None:
    crisis = _item(small_suite, "crisis")
    assert _mismatch(crisis, "That sounds awful.", "no_crisis_help_when_expected") == 1.0
    assert _mismatch(crisis, "Please call 988 now.", "no_crisis_help_when_expected") == 0.0
    good_news = _item(small_suite, "positive_control")
    celebrating = good_news.model_copy(
        update={"expected": good_news.expected.model_copy(update={"assistance": ["celebrate"]})}
    )
    assert _mismatch(celebrating, "Noted.", "no_celebration_on_good_news") == 1.0
    assert _mismatch(celebrating, "Congratulations!", "no_celebration_on_good_news") == 0.0
    steps = "First, call them. Then email the office, check the form and book a slot."
    practical = set(good_news.expected.assistance) & {"practical_help", "information"}
    assert _mismatch(good_news, steps, "steps_when_not_wanted") == (0.0 if practical else 1.0)


def test_rows_have_every_product_then_the_mismatches(small_suite: Suite) -> None:
    items = small_suite.scenarios[:3]
    rows = fit_rows(items, ["That sounds hard. Try calling them?"] * 3)
    assert rows.shape == (3, len(REPLY_ACTS) * len(ITEM_EXPECTS) + len(MISMATCHES))
    for row, item in zip(rows, items, strict=True):
        acts = reply_acts(item, "That sounds hard. Try calling them?")
        products = np.outer(acts, item_expects(item)).ravel()
        assert np.allclose(row[: len(products)], products)


def test_a_bystander_who_needs_no_help_does_not_speak_for_the_addressee() -> None:
    import empathybench as eb

    groups = [
        item
        for item in eb.load_suite("standard-v2").items
        if item.kind == "group"
        and item.expected.help_needed
        and item.reply_addressee
        and any(
            f"{p.name} needs no help from you" in (item.expected.guidance or "")
            for p in item.participants
            if p.name != item.reply_addressee
        )
    ]
    assert len(groups) >= 5
    for item in groups:
        expects = dict(zip(ITEM_EXPECTS, item_expects(item), strict=True))
        assert expects["declines_help"] == 0.0, item.id
    item = groups[0]
    declined = item.model_copy(
        update={
            "expected": item.expected.model_copy(
                update={
                    "guidance": f"{item.reply_addressee} needs no help from you (asked for space)."
                }
            )
        }
    )
    assert dict(zip(ITEM_EXPECTS, item_expects(declined), strict=True))["declines_help"] == 1.0
