"""The item space of an episode template version (v2 on), one per kind, by integer index.

A frame is one episode with the person the item asks about (and, by kind, the harsh belief
or crisis statement that person adds). Its axes choose the surface: the three people's
names, the helper, the intro, each person's phrasing and visible cue, the speaking order,
the distractor order, and by kind the belief, crisis or story phrasing.

Every frame has the same axes with the same radices (multiples of every count an axis can
have), so each frame, and so each episode and each person in it, is drawn equally often;
a digit picks among the real choices by ``digit % count``, which stays uniform because the
radix is a multiple of the count. Distinct indices can therefore decode to the same prompt;
the generator skips repeats by prompt hash.
"""

from __future__ import annotations

from functools import cache
from math import lcm, prod

from empathybench.records import SCENARIO_KINDS, ScenarioKind
from empathybench.scenarios.episode_models import (
    ROLE_NAMES,
    Belief,
    CrisisLine,
    Episode,
    EpisodeTemplateSet,
    Role,
    StoryFrame,
)
from empathybench.scenarios.episode_templates import load_episode_templates
from empathybench.scenarios.episode_versions import (
    CHOICE_RADIX,
    CUE_RADIX,
    GENERATION_RULES,
    GenerationRules,
)
from empathybench.scenarios.space import Frame, KindSpace, kind_space

ORDERS = 6  # speaking orders of three people
MAX_STORY_INTENSITY = 2
REF_LOW, REF_COUNT = 100, 900  # request numbers 100-999
REF_RADIX = (
    REF_COUNT**3
)  # three people's numbers (the listed other customers' come from a second digit)
RESOLVED_RADIX = 8  # which of a, b, c have their request listed as done (a bit each)
# Group items from board episodes: the lists that leave at most one person waiting, so the
# key is each person or nobody equally often.
GROUP_RESOLVED = (0b011, 0b101, 0b110, 0b111)


def _people_radix(templates: EpisodeTemplateSet) -> int:
    count = len(templates.people)
    return count * (count - 1) * (count - 2)


def _axes(
    templates: EpisodeTemplateSet, kind: ScenarioKind, entry_radix: int = 0
) -> list[tuple[str, int]]:
    line_radix = GENERATION_RULES[templates.version].line_radix
    axes = [
        ("people", _people_radix(templates)),
        ("helper_role", CHOICE_RADIX),
        ("intro", CHOICE_RADIX),
        *((f"line_{role}", line_radix) for role in ROLE_NAMES),
        *((f"cue_{role}", CUE_RADIX) for role in ROLE_NAMES),
        ("order", ORDERS),
        ("distractor_order", 2),
        ("board_line", CHOICE_RADIX),
        ("refs", REF_RADIX),
        ("decoys", REF_RADIX),
        ("resolved", RESOLVED_RADIX),
    ]
    if kind in ("harmful_belief", "crisis"):
        axes.append(("statement", CHOICE_RADIX))
        if entry_radix:
            axes.append(("statement_entry", entry_radix))
    if kind == "harmful_belief_roleplay":
        axes += [
            ("story_frame", _story_radix(templates)),
            ("character", len(templates.story_characters)),
            ("character_line", len(templates.character_lines)),
            ("statement", CHOICE_RADIX),
        ]
    return axes


def _story_radix(templates: EpisodeTemplateSet) -> int:
    """A multiple of the number of frames of every kind and state that may be drawn (request
    or share, for either valence, for people who need help or not)."""
    counts = [
        sum(f.request == request and f.fits(valence, needs) for f in templates.story_frames)
        for request in (True, False)
        for valence in ("negative", "positive")
        for needs in (True, False)
    ]
    return lcm(*(max(count, 1) for count in counts))


def _valence(templates: EpisodeTemplateSet, emotion: str) -> str:
    return templates.emotion_words[emotion].valence


# A person whose own words say they need nothing from the helper because they have dealt
# with it or want to be left alone ('I'm logging off for tonight') cannot also be the one
# an added belief, crisis statement or story request makes need help: the item would ask
# for space and be keyed "needs help" at once.
CLOSED_NO_HELP = frozenset({"handled", "wants_space"})


def may_need_help_added(role: Role) -> bool:
    """Whether a belief, crisis statement or story turn may be added to this person's words."""
    return role.no_help not in CLOSED_NO_HELP


def story_frames_for(
    templates: EpisodeTemplateSet, episode: Episode, focus: str, request: bool
) -> list[StoryFrame]:
    """The story frames (requests or shares) that fit ``focus``'s state: the valence of their
    emotion, and whether their own matter needs help."""
    role = episode.roles[focus]
    valence = _valence(templates, role.emotion)
    return [
        f for f in templates.story_frames if f.request == request and f.fits(valence, role.help)
    ]


def statement_fits(entry: Belief | CrisisLine, episode: Episode, focus: str) -> bool:
    """A belief or crisis statement may be added to ``focus``'s words only when it fits their
    emotion (and, for a belief, a category that grows from their situation, where they list
    them) and fits neither other option: else it would make another option defensible (a
    self-blame belief voiced by an anxious person next to a guilty option)."""
    others = set(episode.other_emotions(focus))
    role = episode.roles[focus]
    categories = role.belief_categories
    if isinstance(entry, Belief) and categories is not None and entry.category not in categories:
        return False
    return role.emotion in entry.fits and not others & set(entry.fits)


def _balanced(people: dict[str, list[Frame]], rules: GenerationRules) -> list[Frame]:
    """One episode's frames per person under its version's rules: with
    ``balance_statement_people``, each person's frames repeated up to the least common
    multiple of their counts, so each person is asked about equally often. A repeat is the
    same ``Frame`` object (``distinct_prompts`` counts it once; the generator skips a prompt
    it has made)."""
    if not rules.balance_statement_people:
        return [frame for frames in people.values() for frame in frames]
    common = lcm(*(len(frames) for frames in people.values()))
    return [frame for frames in people.values() for frame in frames * (common // len(frames))]


STATEMENT_BANKS = {"harmful_belief": "belief", "crisis": "crisis"}
"""The kinds that add a statement, and the frame part naming it."""


def _bank(templates: EpisodeTemplateSet, kind: ScenarioKind) -> list[Belief] | list[CrisisLine]:
    return templates.beliefs if kind == "harmful_belief" else templates.crisis_lines


def statement_people(
    templates: EpisodeTemplateSet, episode: Episode, kind: ScenarioKind
) -> dict[str, tuple[Belief | CrisisLine, ...]]:
    """Who in ``episode`` may voice a ``kind`` statement (a belief or crisis), with the
    statements that fit each of them alone; empty where fewer than the version's
    ``statement_people_min`` may."""
    flag = "belief_ok" if kind == "harmful_belief" else "crisis_ok"
    negative = {
        role: _valence(templates, episode.roles[role].emotion) == "negative" for role in ROLE_NAMES
    }
    people: dict[str, tuple[Belief | CrisisLine, ...]] = {}
    for focus in ROLE_NAMES:
        role = episode.roles[focus]
        if getattr(role, flag) and negative[focus] and may_need_help_added(role):
            fitting = tuple(e for e in _bank(templates, kind) if statement_fits(e, episode, focus))
            if fitting:
                people[focus] = fitting
    rules = GENERATION_RULES[templates.version]
    return people if len(people) >= rules.statement_people_min else {}


def _entry_radix(templates: EpisodeTemplateSet, kind: ScenarioKind) -> int:
    """For versions that give each person one statement frame: a multiple of every count of
    statements that fit one person, so the ``statement_entry`` digit picks each equally."""
    if kind not in STATEMENT_BANKS:
        return 0
    if not GENERATION_RULES[templates.version].balance_statement_people:
        return 0
    counts = {
        len(entries)
        for episode in templates.episodes
        for entries in statement_people(templates, episode, kind).values()
    }
    return lcm(*counts) if counts else 1


def _statement_frames(
    templates: EpisodeTemplateSet,
    episode: Episode,
    kind: ScenarioKind,
    axes: tuple[tuple[str, int], ...],
) -> list[Frame]:
    """Belief or crisis frames of one episode: one per person who may voice one and
    statement that fits them alone; with ``balance_statement_people``, one per person, the
    statement drawn by the ``statement_entry`` digit, so every such person is asked about
    equally often however many statements fit them."""
    key = STATEMENT_BANKS[kind]
    people = statement_people(templates, episode, kind)
    if GENERATION_RULES[templates.version].balance_statement_people:
        return [
            Frame(parts={"episode": episode, "focus": focus, f"{key}_entries": entries}, axes=axes)
            for focus, entries in people.items()
        ]
    return [
        Frame(parts={"episode": episode, "focus": focus, key: entry}, axes=axes)
        for focus, entries in people.items()
        for entry in entries
    ]


def frame_statement(frame: Frame, digits: dict[str, int], key: str) -> Belief | CrisisLine | None:
    """The belief or crisis statement (``key``) a decoded frame adds, if any."""
    parts = frame.parts
    entry = parts.get(key)
    if isinstance(entry, _STATEMENTS):
        return entry
    entries = parts.get(_ENTRIES_KEY.get(key) or f"{key}_entries")
    if isinstance(entries, tuple) and entries:
        chosen = entries[digits["statement_entry"] % len(entries)]
        assert isinstance(chosen, _STATEMENTS)
        return chosen
    return None


_STATEMENTS = (Belief, CrisisLine)
_ENTRIES_KEY = {key: f"{key}_entries" for key in ("belief", "crisis")}


def story_eligible(templates: EpisodeTemplateSet, episode: Episode, focus: str) -> bool:
    """Role-play turns only where a story is believable: an episode marked ``story_ok`` and a
    person whose emotion is not intense (an outraged or elated person does not switch to
    a bedtime story) and whose matter is not a safety one (a medicine mix-up)."""
    role = episode.roles[focus]
    emotion = templates.emotion_words[role.emotion]
    return (
        episode.story_ok
        and not role.safety
        and emotion.intensity <= MAX_STORY_INTENSITY
        and may_need_help_added(role)
    )


def story_people(templates: EpisodeTemplateSet, episode: Episode) -> dict[str, tuple[bool, ...]]:
    """Who in ``episode`` a story turn fits, with the turns that fit each (True: a story
    request; False: a finished story shared); empty where fewer than the version's
    ``statement_people_min`` people have one."""
    people: dict[str, tuple[bool, ...]] = {}
    for focus in ROLE_NAMES:
        if story_eligible(templates, episode, focus):
            requests = tuple(
                request
                for request in (True, False)
                if story_frames_for(templates, episode, focus, request)
            )
            if requests:
                people[focus] = requests
    rules = GENERATION_RULES[templates.version]
    return people if len(people) >= rules.statement_people_min else {}


def _story_frames(
    templates: EpisodeTemplateSet,
    episode: Episode,
    axes: tuple[tuple[str, int], ...],
    rules: GenerationRules,
) -> list[Frame]:
    """Role-play frames of one episode: a story request, or a finished story shared, per
    person a story fits. A story request always needs help; a finished story is shared only
    by someone who needs help anyway: role-play items always need help, as beliefs and
    crises do, so the kind's help answer carries no episode's rate."""
    by_focus = {
        focus: [
            Frame(
                parts={"episode": episode, "focus": focus, "story_request": request},
                axes=axes,
            )
            for request in requests
        ]
        for focus, requests in story_people(templates, episode).items()
    }
    return _balanced(by_focus, rules)


def resolved_roles(mask: int) -> tuple[str, ...]:
    """The roles whose request is listed as done, from a bit mask (a = bit 0)."""
    return tuple(role for bit, role in enumerate(ROLE_NAMES) if mask >> bit & 1)


def _group_frames(episode: Episode, axes: tuple[tuple[str, int], ...]) -> list[Frame]:
    frames = []
    for focus in ROLE_NAMES:
        for mask in GROUP_RESOLVED:
            waiting = [
                r for r in ROLE_NAMES if episode.roles[r].help and r not in resolved_roles(mask)
            ]
            if len(waiting) <= 1:
                help_role = waiting[0] if waiting else None
                parts = {"episode": episode, "focus": focus, "resolved": mask}
                frames.append(Frame(parts={**parts, "help_role": help_role}, axes=axes))
    return frames


def _frames_for(kind: ScenarioKind, templates: EpisodeTemplateSet) -> list[Frame]:
    axes = tuple(_axes(templates, kind, _entry_radix(templates, kind)))
    frames: list[Frame] = []
    boards = any(episode.board for episode in templates.episodes)
    # From v3, board episodes give one-person items too: there the asked person's own
    # number decides their help answer, so the same words give both answers and an
    # episode's identity tells a reader nothing about help.
    rules = GENERATION_RULES[templates.version]
    for episode in templates.episodes:
        roles = episode.roles
        negative = {
            role: _valence(templates, roles[role].emotion) == "negative" for role in ROLE_NAMES
        }
        if kind in STATEMENT_BANKS:
            frames += _statement_frames(templates, episode, kind, axes)
            continue
        if kind == "group" and boards:
            # Who needs help is read off the board: only board episodes give group items.
            frames += _group_frames(episode, axes) if episode.board else []
            continue
        if kind == "harmful_belief_roleplay":
            if not episode.board or rules.boards_ask_one_person:  # v2: boards give groups only
                frames += _story_frames(templates, episode, axes, rules)
            continue
        helpers = [role for role in ROLE_NAMES if roles[role].help]
        for focus in ROLE_NAMES:
            parts: dict[str, object] = {"episode": episode, "focus": focus}
            single_kind = "emotion_support" if negative[focus] else "positive_control"
            if episode.board and kind != "group" and not rules.boards_ask_one_person:
                continue  # v2: board episodes serve the group question only
            if kind == single_kind:
                frames.append(Frame(parts=parts, axes=axes))
            elif kind == "group" and len(helpers) <= 1:
                help_role = helpers[0] if helpers else None
                frames.append(Frame(parts={**parts, "help_role": help_role}, axes=axes))
    return frames


@cache
def build_episode_space(template_version: str) -> dict[ScenarioKind, KindSpace]:
    templates = load_episode_templates(template_version)
    return {kind: kind_space(kind, tuple(_frames_for(kind, templates))) for kind in SCENARIO_KINDS}


def distinct_prompts(template_version: str) -> dict[ScenarioKind, int]:
    """How many different prompts each kind can produce (the real choices, not radices)."""
    templates = load_episode_templates(template_version)
    people = _people_radix(templates)
    links = templates.links if GENERATION_RULES[template_version].linked_notes else None
    counts: dict[ScenarioKind, int] = {}
    for kind, space in build_episode_space(template_version).items():
        total = 0
        for frame in {id(frame): frame for frame in space.frames}.values():
            episode = frame.parts["episode"]
            assert isinstance(episode, Episode)
            choices = [
                people,
                len(episode.helper_roles),
                len(episode.intro),
                ORDERS,
                2,
                *(len(episode.roles[role].lines) for role in ROLE_NAMES),
            ]
            if links is not None:  # no cues; intros and numbers for everyone; see rendering
                choices[2] = len(links.intros_for(episode))
                choices += [ORDERS, len(links.headers[episode.channel])]
                choices += [len(links.arrivals)] * 3
                if not episode.board:
                    choices.append(REF_RADIX)
            elif episode.visible:
                choices += [len(episode.roles[role].cues) + 1 for role in ROLE_NAMES]
            if episode.board:
                choices += [len(episode.board.resolved), REF_RADIX]
                if kind != "group":
                    choices.append(RESOLVED_RADIX)
            if kind == "harmful_belief_roleplay":
                story_request = frame.parts["story_request"]
                assert isinstance(story_request, bool)
                choices += [
                    len(
                        story_frames_for(
                            templates, episode, str(frame.parts["focus"]), story_request
                        )
                    ),
                    len(templates.story_characters),
                    sum(len(entry.lines) for entry in templates.character_lines),
                ]
            for key in ("belief", "crisis"):
                bank = frame.parts.get(key)
                if isinstance(bank, Belief | CrisisLine):
                    choices.append(len(bank.lines))
                entries = frame.parts.get(f"{key}_entries")
                if isinstance(entries, tuple):
                    choices.append(sum(len(entry.lines) for entry in entries))
            total += prod(choices)
        counts[kind] = total
    return counts


def frame_help_rate(
    kind: ScenarioKind, frame: Frame, templates: EpisodeTemplateSet | object
) -> float:
    """The share of help answers the frame's episode gives for ``kind``, over the people the
    kind can ask about (group items: 1 if someone needs help, else 0). ``0.5`` for frames of
    other template versions, which are never balanced."""
    episode = frame.parts.get("episode")
    if not isinstance(episode, Episode) or not isinstance(templates, EpisodeTemplateSet):
        return 0.5
    if kind == "group":
        return 1.0 if frame.parts.get("help_role") else 0.0
    roles = [episode.roles[role] for role in ROLE_NAMES]
    if kind in ("emotion_support", "positive_control"):
        wanted = "negative" if kind == "emotion_support" else "positive"
        roles = [r for r in roles if _valence(templates, r.emotion) == wanted]
    # On a board, each person's request is listed as done half the time.
    waiting = 0.5 if episode.board else 1.0
    return waiting * sum(role.help for role in roles) / len(roles) if roles else 0.5
