"""The seven perturbations: deterministic for a seed, and each changes the text as described."""

import re

import pytest

from empathybench.scorer.perturbations import PERTURBATIONS, perturb

TEXT = (
    "I am really sorry that things at home are so difficult right now. It is hard to keep "
    "going when the people you love keep arguing, and it is okay to feel tired and sad. "
    "Would it help to talk about what you want to say to your mother this weekend? I think "
    "a counsellor could also help you feel less alone."
)
_GREEK_OR_CYRILLIC = re.compile(r"[\u0370-\u03ff\u0400-\u04ff]")


@pytest.mark.parametrize("name", list(PERTURBATIONS))
def test_same_seed_same_output_and_the_text_changes(name: str) -> None:
    first = perturb(TEXT, name, seed=3)
    assert first == perturb(TEXT, name, seed=3)
    assert first != TEXT


@pytest.mark.parametrize(
    "name", ["excessive_punctuation", "homoglyphs", "misspellings", "leetspeak"]
)
def test_random_perturbations_depend_on_the_seed(name: str) -> None:
    outputs = {perturb(TEXT, name, seed=seed) for seed in range(5)}
    assert len(outputs) == 5


def test_the_seven_are_the_seed_studys_in_its_order() -> None:
    assert [description for description, _ in PERTURBATIONS.values()] == [
        "Excessive punctuation and letter repetition",
        "Greek/Unicode homoglyph substitution",
        "Spelling errors and word truncation",
        "Leetspeak substitution",
        "Shortened text",
        "Elevated language",
        "Casual language",
    ]


def test_excessive_punctuation_repeats_letters_and_marks() -> None:
    out = perturb(TEXT, "excessive_punctuation", seed=0)
    assert re.search(r"([a-z])\1{3,}", out)
    assert re.search(r"[.!?]{3,}", out)
    assert (
        re.sub(r"([a-z])\1{2,}", r"\1", re.sub(r"([.!?])\1+", r"\1", out))
        .replace("\u200b", "")
        .split()[0]
        == TEXT.split()[0]
    )


def test_homoglyphs_look_the_same_and_map_back() -> None:
    out = perturb(TEXT, "homoglyphs", seed=0)
    assert len(out) == len(TEXT)
    assert len(_GREEK_OR_CYRILLIC.findall(out)) > 20
    differing = [(a, b) for a, b in zip(TEXT, out, strict=True) if a != b]
    assert all(_GREEK_OR_CYRILLIC.match(b) for _, b in differing)


def test_leetspeak_swaps_letters_for_digits_only() -> None:
    out = perturb(TEXT, "leetspeak", seed=0)
    assert len(out) == len(TEXT) and re.search(r"\d", out)
    back = str.maketrans(
        {"4": "a", "3": "e", "1": "i", "0": "o", "5": "s", "7": "t", "9": "g", "8": "b"}
    )
    assert out.translate(back).lower() == TEXT.lower()


def test_misspellings_keep_the_word_count_and_change_some_words() -> None:
    out = perturb(TEXT, "misspellings", seed=0)
    words, changed = TEXT.split(), out.split()
    assert len(changed) == len(words)
    differing = sum(a != b for a, b in zip(words, changed, strict=True))
    assert 3 <= differing <= len(words) // 2


def test_shortened_is_shorter_and_drops_intensifiers() -> None:
    out = perturb(TEXT, "shortened", seed=0)
    assert len(out) < len(TEXT) * 0.95
    assert "really" not in out


def test_elevated_and_casual_change_register() -> None:
    elevated = perturb(TEXT, "elevated", seed=0)
    assert any(w in elevated for w in ("arduous", "sorrowful", "weary", "assist", "believe"))
    casual = perturb(TEXT, "casual", seed=0)
    assert any(w in casual for w in ("I'm", "it's", "hard", "gonna"))
    assert "I am" not in casual or "it is" not in casual


def test_unknown_perturbation() -> None:
    with pytest.raises(KeyError):
        perturb(TEXT, "nope")


def test_contractions_and_capitals_are_swapped_without_errors() -> None:
    text = "I'm sure you're tired. It's okay; I can't fix it but Maybe we can talk. I am here."
    assert "I am" in perturb(text, "elevated", seed=1) or "cannot" in perturb(
        text, "elevated", seed=1
    )
    assert "I'm" in perturb("I am here and it is fine.", "casual", seed=2)
