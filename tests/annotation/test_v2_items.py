"""Annotation of real template-v2 items: raters are asked the v2 questions and keyed on
who needs help, including nobody."""

from __future__ import annotations

from empathybench.annotation.items import form_item, key_item
from empathybench.annotation.records import NOBODY
from empathybench.scenarios.generator import generate


def test_v2_group_items_offer_nobody_and_key_the_help_person() -> None:
    groups = [item for item in generate(120, 5, template_version="v2") if item.kind == "group"]
    assert groups
    keyed_nobody = keyed_person = 0
    for item in groups:
        form, key = form_item(item), key_item(item)
        assert form.who_choices[-1] == NOBODY
        assert item.focus_person in form.emotion_question
        assert form.who_question is not None and "nobody" in form.who_question
        if item.expected.help_needed:
            assert key.who == item.expected.help_person
            keyed_person += 1
        else:
            assert key.who == NOBODY
            keyed_nobody += 1
    assert keyed_nobody and keyed_person
