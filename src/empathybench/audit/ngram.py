"""Bag-of-n-grams baselines: TF-IDF word 1-2 grams (sublinear tf) + logistic regression.

``NgramChoice`` (emotion, help) learns the key from the whole prompt, names masked, and
picks the item's candidate with the highest predicted probability (a candidate never seen
as a key in training scores 0). ``NgramAsked`` (emotion, help) learns it from the lines of
the person the prompt asks about alone (their name as SELF, the others as OTHER): what a
reader who looks only at that person's words and memorises them gets. ``NgramLinkedNote``
(emotion, help) reads the note filed under the number the asked person says (template v5
puts each person's words there): a reader that links, then memorises. ``NgramLinkedBoard``
and ``NgramLinkedNoteBoard`` (emotion, help) read template v6's closing announcement entry
under that number, alone and with the note: still a bag of words, so a key that follows from
whether the two match stays out of their reach. ``NgramWho`` scores
each person of a group item from the lines that person says or is named in (their name as
SELF, the others as OTHER), and asks a second classifier, over the whole scene, whether
nobody needs help.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from empathybench.audit.baseline import Baseline, best_candidate, check_training
from empathybench.audit.keys import NOBODY
from empathybench.audit.visible import VisibleItem

RANDOM_STATE = 0
INVERSE_REGULARISATION = 10.0
"""scikit-learn's ``C``: weak regularisation, because the audit wants the strongest simple
surface model (on 2,000 v1 items, C=10 reaches 96% on emotion where the default C=1 reaches
84%, in the same time). The newton-cg solver fits the 40-class emotion model in under half
the time of the default lbfgs, to the same predictions."""
BLAS_THREADS = 1
"""These problems are small: one BLAS thread is as fast alone and far faster on a busy
machine (threads contending for shared cores slowed the emotion model threefold)."""


class _TextClassifier:
    """TF-IDF + logistic regression over strings; a single training class predicts itself."""

    def __init__(self, ngram_max: int = 2) -> None:
        self._ngram_max = ngram_max
        self._vectorizer: Any = None
        self._model: Any = None
        self._only: str | None = None

    def fit(self, texts: Sequence[str], labels: Sequence[str]) -> None:
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import LogisticRegression

        distinct = sorted(set(labels))
        if len(distinct) < 2:
            self._only = distinct[0] if distinct else None
            self._model = None
            return
        from threadpoolctl import threadpool_limits

        self._vectorizer = TfidfVectorizer(ngram_range=(1, self._ngram_max), sublinear_tf=True)
        features = self._vectorizer.fit_transform(texts)
        self._model = LogisticRegression(
            C=INVERSE_REGULARISATION,
            solver="newton-cg",
            max_iter=2000,
            random_state=RANDOM_STATE,
        )
        with threadpool_limits(BLAS_THREADS):
            self._model.fit(features, list(labels))

    def probabilities(self, texts: Sequence[str]) -> list[dict[str, float]]:
        """Each text's probability per training label."""
        if self._model is None:
            return [{self._only: 1.0} if self._only else {} for _ in texts]
        if not texts:
            return []
        rows = self._model.predict_proba(self._vectorizer.transform(texts))
        classes = [str(label) for label in self._model.classes_]
        return [dict(zip(classes, (float(p) for p in row), strict=True)) for row in rows]


class NgramChoice(Baseline):
    name = "ngram"
    description = "TF-IDF word 1-2 grams of the prompt (names masked) + logistic regression"

    def __init__(self) -> None:
        self._classifier = _TextClassifier()
        self._prior: Counter[str] = Counter()

    def _text(self, item: VisibleItem) -> str:
        """What the classifier reads of an item."""
        return item.masked_prompt

    def _readable(self, item: VisibleItem) -> bool:
        """Whether the item holds that text (else the training prior decides)."""
        return True

    def fit(self, items: Sequence[VisibleItem], keys: Sequence[str]) -> None:
        check_training(items, keys)
        self._prior = Counter(keys)
        self._classifier.fit([self._text(item) for item in items], keys)

    def predict(self, item: VisibleItem) -> str:
        return self.predict_many([item])[0]

    def predict_many(self, items: Sequence[VisibleItem]) -> list[str]:
        scores = self._classifier.probabilities([self._text(item) for item in items])
        return [
            best_candidate(item.candidates, score if self._readable(item) else {}, self._prior)
            for item, score in zip(items, scores, strict=True)
        ]


def _person_text(item: VisibleItem, person: str) -> str:
    return "\n".join(item.masked(line.text, person) for line in item.lines_about(person))


class NgramAsked(NgramChoice):
    name = "asked-person"
    description = (
        "TF-IDF + logistic regression on the lines of the person the question names "
        "(their name as SELF, the others as OTHER)"
    )

    def _text(self, item: VisibleItem) -> str:
        """The lines the asked person says or is named in; empty where the prompt asks
        about nobody by name."""
        return _person_text(item, item.asked) if item.asked is not None else ""

    def _readable(self, item: VisibleItem) -> bool:
        return item.asked is not None


NOTE_LINE = re.compile(r'^(\d{3}): "')
NUMBER = re.compile(r"\b\d{3}\b")


def _numbers_said(item: VisibleItem, person: str) -> set[str]:
    """The request numbers ``person`` says in the scene (templates v5 and v6)."""
    return {n for line in item.lines if line.speaker == person for n in NUMBER.findall(line.text)}


def _linked_note_text(item: VisibleItem, person: str) -> str:
    """The notes filed under a number the person says (template v5's linked notes), with
    numbers replaced by one token: empty where the person says no note's number."""
    said = _numbers_said(item, person)
    notes = [
        line.text
        for line in item.lines
        if line.speaker is None and (match := NOTE_LINE.match(line.text)) and match[1] in said
    ]
    return NUMBER.sub("xnum", "\n".join(item.masked(text, person) for text in notes))


class NgramLinkedNote(NgramChoice):
    name = "linked-note"
    description = (
        "TF-IDF + logistic regression on the note filed under the number the asked person "
        "says (a reader that links numbers, then memorises; template v5)"
    )

    def _text(self, item: VisibleItem) -> str:
        return _linked_note_text(item, item.asked) if item.asked is not None else ""

    def _readable(self, item: VisibleItem) -> bool:
        return bool(self._text(item))

    def fit(self, items: Sequence[VisibleItem], keys: Sequence[str]) -> None:
        """Learns from the items that have a linked note (none before v5: the prior)."""
        check_training(items, keys)
        self._prior = Counter(keys)
        pairs = [
            (text, key) for item, key in zip(items, keys, strict=True) if (text := self._text(item))
        ]
        self._classifier.fit([text for text, _ in pairs], [key for _, key in pairs])


ENTRY = re.compile(r"(?:^|;\s*|:\s)(\d{3}):\s*([^;]*)")


def _board_entry_text(item: VisibleItem, person: str) -> str:
    """The entry of a closing announcement filed under the number the person says (template
    v6's board: ``… 214: lates at Mill Lane; 387: …``), without the number: empty where the
    scene ends on no such entry."""
    said = _numbers_said(item, person)
    last = item.lines[-1] if item.lines else None
    if not said or last is None or last.speaker is not None or NOTE_LINE.match(last.text):
        return ""
    board = item.lines[-1].text.rstrip(".")
    return " ".join(entry.strip() for number, entry in ENTRY.findall(board) if number in said)


class NgramLinkedBoard(NgramLinkedNote):
    name = "linked-board"
    description = (
        "TF-IDF + logistic regression on the announcement's entry under the number the asked "
        "person says (template v6: what they were given)"
    )

    def _text(self, item: VisibleItem) -> str:
        return _board_entry_text(item, item.asked) if item.asked is not None else ""


class NgramLinkedNoteBoard(NgramLinkedNote):
    name = "linked-note+board"
    description = (
        "TF-IDF + logistic regression on the asked person's note and announcement entry "
        "together (a reader that links both, then memorises; template v6)"
    )

    def _text(self, item: VisibleItem) -> str:
        if item.asked is None:
            return ""
        entry = _board_entry_text(item, item.asked)
        if not entry:
            return ""
        marked = " ".join(f"board_{word}" for word in re.findall(r"\w+", entry.lower()))
        return f"{_linked_note_text(item, item.asked)}\n{marked}"


COUNT_CAP = 4
_WORD = re.compile(r"\w+")


class WordCounts(NgramChoice):
    name = "word-counts"
    description = (
        "logistic regression on how many times each word occurs in the prompt (one feature "
        f"per word and count, 1 to {COUNT_CAP}+; names masked): a count that matters only "
        "when it is 1 rather than 0 or 2, which word weights cannot express"
    )

    def __init__(self) -> None:
        super().__init__()
        self._classifier = _TextClassifier(ngram_max=1)

    def _text(self, item: VisibleItem) -> str:
        words = Counter(_WORD.findall(NUMBER.sub("xnum", item.masked_prompt).lower()))
        return " ".join(f"{w}_c{min(n, COUNT_CAP)}" for w, n in sorted(words.items()))


def _people(item: VisibleItem) -> list[str]:
    return [candidate for candidate in item.candidates if candidate != NOBODY]


class NgramWho(Baseline):
    name = "ngram"
    description = (
        "TF-IDF + logistic regression on each person's lines (P(needs help)); "
        "a second one on the scene for nobody"
    )

    def __init__(self) -> None:
        self._person = _TextClassifier()
        self._nobody = _TextClassifier()

    def fit(self, items: Sequence[VisibleItem], keys: Sequence[str]) -> None:
        check_training(items, keys)
        texts, labels = [], []
        for item, key in zip(items, keys, strict=True):
            for person in _people(item):
                texts.append(_person_text(item, person))
                labels.append("yes" if person == key else "no")
        self._person.fit(texts, labels)
        self._nobody.fit(
            [item.masked(item.scene) for item in items],
            ["yes" if key == NOBODY else "no" for key in keys],
        )

    def predict(self, item: VisibleItem) -> str:
        people = _people(item)
        if NOBODY in item.candidates:
            nobody = self._nobody.probabilities([item.masked(item.scene)])[0].get("yes", 0.0)
            if nobody >= 0.5 or not people:
                return NOBODY
        scores = self._person.probabilities([_person_text(item, person) for person in people])
        return best_candidate(
            people, {p: s.get("yes", 0.0) for p, s in zip(people, scores, strict=True)}
        )
