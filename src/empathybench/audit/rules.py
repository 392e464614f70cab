"""Rule baselines: memorised cue lines, scene valence, majority classes, option and person
positions. Each is tiny on purpose: when one of them beats chance, the items leak that cue.
"""

from __future__ import annotations

from abc import abstractmethod
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from functools import lru_cache

from empathybench.audit.baseline import Baseline, best_candidate, check_training, majority
from empathybench.audit.keys import NO, NOBODY, YES
from empathybench.audit.visible import VisibleItem

NEGATIVE_SENTIMENT = -0.05
"""VADER's usual cut: a compound score at or below it is negative."""


@lru_cache(maxsize=65536)
def _sentiment(text: str) -> float:
    from empathybench.analysis.secondary_metrics import sentiment

    return sentiment(text)


def scene_is_negative(item: VisibleItem) -> bool:
    """VADER's compound score of the setting and dialogue (not questions or options)."""
    return _sentiment(item.scene) <= NEGATIVE_SENTIMENT


def _people(item: VisibleItem) -> list[str]:
    return [candidate for candidate in item.candidates if candidate != NOBODY]


# ---------------------------------------------------------------------------- cue lines


class CueLines(Baseline):
    name = "cue-lines"
    description = (
        "memorise each dialogue line (names masked) → its majority key; vote over the lines"
    )

    def __init__(self) -> None:
        self._memory: dict[str, str] = {}
        self._prior: Counter[str] = Counter()

    def fit(self, items: Sequence[VisibleItem], keys: Sequence[str]) -> None:
        check_training(items, keys)
        seen: defaultdict[str, Counter[str]] = defaultdict(Counter)
        for item, key in zip(items, keys, strict=True):
            for text in {item.masked(line.text) for line in item.lines}:
                seen[text][key] += 1
        self._memory = {text: majority(counts.elements()) or "" for text, counts in seen.items()}
        self._prior = Counter(keys)

    def predict(self, item: VisibleItem) -> str:
        votes: Counter[str] = Counter()
        for line in item.lines:
            key = self._memory.get(item.masked(line.text))
            if key in item.candidates:
                votes[key] += 1
        return best_candidate(item.candidates, {k: float(v) for k, v in votes.items()}, self._prior)


def _vote(counts: Counter[bool] | None) -> int:
    """+1 when a memorised line was mostly keyed true, -1 mostly false, 0 unseen or tied."""
    if not counts or counts[True] == counts[False]:
        return 0
    return 1 if counts[True] > counts[False] else -1


class CueLinesWho(Baseline):
    name = "cue-lines"
    description = (
        "memorise each line from a person's view (SELF/OTHER) → was that person keyed; "
        "sum the votes per person"
    )

    def __init__(self) -> None:
        self._person: defaultdict[str, Counter[bool]] = defaultdict(Counter)
        self._nobody: defaultdict[str, Counter[bool]] = defaultdict(Counter)
        self._positions: Counter[int] = Counter()
        self._nobody_keys = 0

    def fit(self, items: Sequence[VisibleItem], keys: Sequence[str]) -> None:
        check_training(items, keys)
        self._person.clear()
        self._nobody.clear()
        self._positions = Counter()
        self._nobody_keys = sum(key == NOBODY for key in keys)
        for item, key in zip(items, keys, strict=True):
            people = _people(item)
            if key in people:
                self._positions[people.index(key)] += 1
            for line in item.lines:
                self._nobody[item.masked(line.text)][key == NOBODY] += 1
                for person in line.people:
                    self._person[item.masked(line.text, person)][person == key] += 1

    def predict(self, item: VisibleItem) -> str:
        """Nobody when the lines vote for it, or when every person's lines vote against
        them; else the person with the most votes; without any votes, the training
        majority (nobody, or the most often keyed position)."""
        people = _people(item)
        scores = {
            person: float(
                sum(
                    _vote(self._person.get(item.masked(line.text, person)))
                    for line in item.lines_about(person)
                )
            )
            for person in people
        }
        if NOBODY in item.candidates:
            nobody = sum(_vote(self._nobody.get(item.masked(line.text))) for line in item.lines)
            top = max(scores.values(), default=-1.0)
            no_votes = top == 0 and min(scores.values(), default=0.0) == 0 and nobody == 0
            prior_nobody = self._nobody_keys > max(self._positions.values(), default=0)
            if nobody > 0 or top < 0 or (no_votes and prior_nobody) or not people:
                return NOBODY
        by_position = Counter({p: self._positions[i] for i, p in enumerate(people)})
        return best_candidate(people, scores, by_position)


# ------------------------------------------------------------------------------ valence


class ValenceEmotion(Baseline):
    name = "valence"
    description = "the first option whose valence matches the scene's VADER sentiment"

    def __init__(self, valences: Mapping[str, str]) -> None:
        self._valences = dict(valences)

    def fit(self, items: Sequence[VisibleItem], keys: Sequence[str]) -> None:
        check_training(items, keys)

    def predict(self, item: VisibleItem) -> str:
        wanted = "negative" if scene_is_negative(item) else "positive"
        matching = [o for o in item.candidates if self._valences.get(o) == wanted]
        return (matching or list(item.candidates))[0]


class ValenceHelp(Baseline):
    name = "valence"
    description = "yes iff the scene's VADER sentiment is negative"

    def fit(self, items: Sequence[VisibleItem], keys: Sequence[str]) -> None:
        check_training(items, keys)

    def predict(self, item: VisibleItem) -> str:
        return YES if scene_is_negative(item) else NO


# ---------------------------------------------------------------- majority and positions


class AlwaysYes(Baseline):
    name = "always-yes"
    description = "always yes"

    def fit(self, items: Sequence[VisibleItem], keys: Sequence[str]) -> None:
        check_training(items, keys)

    def predict(self, item: VisibleItem) -> str:
        return YES


class MajorityKey(Baseline):
    name = "majority"
    description = "the key most frequent in training"

    def __init__(self) -> None:
        self._prior: Counter[str] = Counter()

    def fit(self, items: Sequence[VisibleItem], keys: Sequence[str]) -> None:
        check_training(items, keys)
        self._prior = Counter(keys)

    def predict(self, item: VisibleItem) -> str:
        return best_candidate(item.candidates, {}, self._prior)


class MajorityLetter(Baseline):
    name = "majority-letter"
    description = "the option position (letter) most often correct in training"

    def __init__(self) -> None:
        self._position = 0

    def fit(self, items: Sequence[VisibleItem], keys: Sequence[str]) -> None:
        check_training(items, keys)
        positions = Counter(item.options.index(key) for item, key in zip(items, keys, strict=True))
        self._position = min(positions, key=lambda p: (-positions[p], p)) if positions else 0

    def predict(self, item: VisibleItem) -> str:
        return item.candidates[min(self._position, len(item.candidates) - 1)]


class LongestOption(Baseline):
    name = "longest-option"
    description = "the longest option (characters; ties: the earlier)"

    def fit(self, items: Sequence[VisibleItem], keys: Sequence[str]) -> None:
        check_training(items, keys)

    def predict(self, item: VisibleItem) -> str:
        return best_candidate(item.candidates, {o: float(len(o)) for o in item.candidates})


class ShortestOption(Baseline):
    name = "shortest-option"
    description = "the shortest option (characters; ties: the earlier)"

    def fit(self, items: Sequence[VisibleItem], keys: Sequence[str]) -> None:
        check_training(items, keys)

    def predict(self, item: VisibleItem) -> str:
        return best_candidate(item.candidates, {o: -float(len(o)) for o in item.candidates})


class _PersonRule(Baseline):
    """A who-rule that needs no training; it never answers nobody."""

    def fit(self, items: Sequence[VisibleItem], keys: Sequence[str]) -> None:
        check_training(items, keys)

    def predict(self, item: VisibleItem) -> str:
        people = _people(item)
        if not people:
            return item.candidates[0]
        return self.choose(item, people) or people[0]

    @abstractmethod
    def choose(self, item: VisibleItem, people: list[str]) -> str | None:
        """The rule's pick among ``people`` (None: fall back to the first)."""


def _speakers(item: VisibleItem, people: list[str]) -> list[str]:
    return [line.speaker for line in item.lines if line.speaker in people]


class FirstSpeaker(_PersonRule):
    name = "first-speaker"
    description = "the first person who speaks (else the first named)"

    def choose(self, item: VisibleItem, people: list[str]) -> str | None:
        speakers = _speakers(item, people)
        return speakers[0] if speakers else None


class LastSpeaker(_PersonRule):
    name = "last-speaker"
    description = "the last person who speaks (else the first named)"

    def choose(self, item: VisibleItem, people: list[str]) -> str | None:
        speakers = _speakers(item, people)
        return speakers[-1] if speakers else None


class MostWords(_PersonRule):
    name = "most-words"
    description = "the person with the most words in the lines they say or are named in"

    def choose(self, item: VisibleItem, people: list[str]) -> str | None:
        words = {
            person: float(sum(len(line.text.split()) for line in item.lines_about(person)))
            for person in people
        }
        return best_candidate(people, words)


class FirstNamed(_PersonRule):
    name = "first-named"
    description = "the person the scene names first"

    def choose(self, item: VisibleItem, people: list[str]) -> str | None:
        return people[0]
