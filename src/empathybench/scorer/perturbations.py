"""The seed study's seven adversarial perturbations, as seeded, deterministic transforms.

Each transform keeps the meaning of a reply and changes its surface: the empathy a reader
would see is the same, so a robust scorer's output should barely move. The same text, seed
and perturbation always give the same output (``random.Random`` seeded with a string is
stable across runs and platforms).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

Transform = Callable[[str, random.Random], str]

_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")


def _rng(seed: int, name: str, text: str) -> random.Random:
    return random.Random(f"{seed}:{name}:{text}")


def _map_words(text: str, change: Callable[[str], str]) -> str:
    return _WORD.sub(lambda match: change(match.group(0)), text)


def excessive_punctuation(text: str, rng: random.Random) -> str:
    """Stretch some words' last letters and multiply sentence-ending punctuation."""

    def stretch(word: str) -> str:
        if len(word) >= 3 and rng.random() < 0.15:
            return word + word[-1] * rng.randint(3, 9)
        return word

    stretched = _map_words(text, stretch)
    stretched = re.sub(r"([.!?])(?=\s|$)", lambda m: m.group(1) * rng.randint(3, 6), stretched)
    if not re.search(r"[.!?]$", stretched.rstrip()):
        stretched = stretched.rstrip() + "!!!!"
    return stretched


# Latin letters and look-alikes from the Greek and Cyrillic alphabets.
_HOMOGLYPHS = {
    "a": "α",
    "o": "ο",
    "e": "е",
    "i": "ι",
    "p": "ρ",
    "c": "с",
    "x": "χ",
    "y": "у",
    "k": "κ",
    "v": "ν",
    "u": "υ",
    "t": "τ",
    "n": "η",
    "A": "Α",
    "B": "Β",
    "E": "Ε",
    "H": "Η",
    "I": "Ι",
    "K": "Κ",
    "M": "Μ",
    "N": "Ν",
    "O": "Ο",
    "P": "Ρ",
    "T": "Τ",
    "X": "Χ",
}


def homoglyphs(text: str, rng: random.Random) -> str:
    """Swap about half of the letters that have a Greek or Cyrillic look-alike."""
    return "".join(
        _HOMOGLYPHS[char] if char in _HOMOGLYPHS and rng.random() < 0.5 else char for char in text
    )


def misspellings(text: str, rng: random.Random) -> str:
    """Typos (swapped, dropped or doubled letters) and truncated words in ~1 word in 4."""

    def typo(word: str) -> str:
        if len(word) < 4 or rng.random() >= 0.25:
            return word
        position = rng.randrange(1, len(word) - 1)
        action = rng.choice(("swap", "drop", "double", "truncate"))
        if action == "swap":
            return word[:position] + word[position + 1] + word[position] + word[position + 2 :]
        if action == "drop":
            return word[:position] + word[position + 1 :]
        if action == "double":
            return word[:position] + word[position] + word[position:]
        return word[: max(3, round(len(word) * 0.6))]

    return _map_words(text, typo)


_LEET = {"a": "4", "e": "3", "i": "1", "o": "0", "s": "5", "t": "7", "g": "9", "b": "8"}


def leetspeak(text: str, rng: random.Random) -> str:
    """Replace about 60% of the letters that have a digit look-alike (a→4, e→3, o→0 …)."""
    return "".join(
        _LEET[char.lower()] if char.lower() in _LEET and rng.random() < 0.6 else char
        for char in text
    )


_FILLER = re.compile(
    r"\b(?:really|truly|very|just|perfectly|fully|completely|totally|actually|"
    r"definitely|certainly|absolutely|quite|so much|incredibly|deeply|simply|also|still|"
    r"even|honestly|genuinely)\b ?",
    re.IGNORECASE,
)
_SHORTER = [
    (r"\bI want you to know that\b ?", ""),
    (r"\bI just want to say that\b ?", ""),
    (r"\bit is as if\b", "like"),
    (r"\bin order to\b", "to"),
    (r"\bare able to\b", "can"),
    (r"\bis able to\b", "can"),
    (r"\bat this point in time\b", "now"),
    (r"\bdue to the fact that\b", "because"),
    (r"\ba lot of\b", "much"),
    (r"\bit is difficult to\b", "it's hard to"),
    (r"\bthe thoroughness of\b", ""),
    (r"\bthat you are\b", "you're"),
    (r"\bright now\b", "now"),
    (
        r"\b(?:I think|I believe|I feel like|it seems like|please know that|remember that|"
        r"I can imagine that|I understand that) ?",
        "",
    ),
]


def shortened(text: str, rng: random.Random) -> str:
    """Drop intensifiers and filler phrases; drop one of several closing pleasantries."""
    shorter = _FILLER.sub("", text)
    for pattern, replacement in _SHORTER:
        shorter = re.sub(pattern, replacement, shorter, flags=re.IGNORECASE)
    sentences = re.split(r"(?<=[.!?])\s+", shorter.strip())
    if len(sentences) > 3 and rng.random() < 0.5:
        sentences = sentences[:-1]  # the last sentence is most often a closing courtesy
    joined = re.sub(r"\s{2,}", " ", " ".join(sentences)).strip()
    return re.sub(r"(^|[.!?]\s+)([a-z])", lambda m: m.group(1) + m.group(2).upper(), joined)


def _swap_words(text: str, table: dict[str, str], rng: random.Random, rate: float) -> str:
    table = {key.lower(): value for key, value in table.items()}
    longest_first = sorted(table, key=len, reverse=True)
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, longest_first)) + r")\b", re.IGNORECASE)

    def swap(match: re.Match[str]) -> str:
        word = match.group(0)
        if rng.random() >= rate:
            return word
        replacement = table[word.lower()]
        return replacement[0].upper() + replacement[1:] if word[0].isupper() else replacement

    return pattern.sub(swap, text)


_ELEVATED = {
    "help": "assist",
    "hard": "arduous",
    "difficult": "arduous",
    "sad": "sorrowful",
    "really": "truly",
    "get": "obtain",
    "show": "demonstrate",
    "think": "believe",
    "okay": "acceptable",
    "ok": "acceptable",
    "big": "considerable",
    "need": "require",
    "try": "endeavour",
    "start": "commence",
    "talk": "converse",
    "ask": "enquire",
    "enough": "sufficient",
    "about": "regarding",
    "feel": "experience",
    "pain": "anguish",
    "amazing": "remarkable",
    "brave": "courageous",
    "tired": "weary",
    "scared": "apprehensive",
    "happy": "elated",
    "buy": "purchase",
    "keep going": "persevere",
    "find out": "ascertain",
    "a lot": "considerably",
    "maybe": "perhaps",
    "so": "therefore",
    "I'm": "I am",
    "you're": "you are",
    "it's": "it is",
    "don't": "do not",
    "can't": "cannot",
}


def elevated(text: str, rng: random.Random) -> str:
    """Formal register: plain words and contractions become elevated ones."""
    return _swap_words(text, _ELEVATED, rng, rate=0.85)


_CASUAL = {
    "i am": "I'm",
    "you are": "you're",
    "it is": "it's",
    "do not": "don't",
    "cannot": "can't",
    "will not": "won't",
    "that is": "that's",
    "going to": "gonna",
    "want to": "wanna",
    "very": "super",
    "understand": "get",
    "difficult": "hard",
    "perhaps": "maybe",
    "hello": "hey",
    "amazing": "awesome",
    "however": "but",
    "therefore": "so",
    "assist": "help",
    "extremely": "crazy",
    "friends": "pals",
    "children": "kids",
    "upset": "bummed",
    "yes": "yeah",
    "certainly": "for sure",
    "a great deal": "a ton",
}


def casual(text: str, rng: random.Random) -> str:
    """Informal register: contractions, slang for plain words, a casual opener."""
    swapped = _swap_words(text, _CASUAL, rng, rate=0.9)
    if swapped and rng.random() < 0.5:
        swapped = rng.choice(("Honestly, ", "Look, ", "Ugh, ")) + swapped[0].lower() + swapped[1:]
    return swapped


PERTURBATIONS: dict[str, tuple[str, Transform]] = {
    "excessive_punctuation": ("Excessive punctuation and letter repetition", excessive_punctuation),
    "homoglyphs": ("Greek/Unicode homoglyph substitution", homoglyphs),
    "misspellings": ("Spelling errors and word truncation", misspellings),
    "leetspeak": ("Leetspeak substitution", leetspeak),
    "shortened": ("Shortened text", shortened),
    "elevated": ("Elevated language", elevated),
    "casual": ("Casual language", casual),
}
"""Name → (the seed's description, transform), in the seed's order."""


def perturb(text: str, name: str, *, seed: int = 0) -> str:
    """``text`` under perturbation ``name``: the same inputs always give the same output."""
    if name not in PERTURBATIONS:
        raise KeyError(f"unknown perturbation {name!r}; known: {', '.join(PERTURBATIONS)}")
    return PERTURBATIONS[name][1](text, _rng(seed, name, text))
