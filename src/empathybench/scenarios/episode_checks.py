"""The static rules every episode template version must pass (docs/templates-v2.md).

``check_episode_templates`` is their single source: the test-suite runs it, and content
writers run it through ``python -m empathybench.scenarios.episode_templates``.
"""

from __future__ import annotations

import re
from collections import Counter

from empathybench.scenarios.episode_models import (
    PERSONAL_SLOT,
    ROLE_NAMES,
    SLOT_PATTERN,
    Appraisal,
    Episode,
    EpisodeTemplateSet,
    Role,
    StoryFrame,
)
from empathybench.scenarios.episode_rules import (
    CUE_PLACE,
    EMOTION_APPRAISAL,
    MAX_LINE_WORDS,
    NEGATIVE_GOALS,
    NEGATIVE_NO_HELP,
    NO_HELP_ASSISTANCE,
    OPEN_QUESTION,
    ORDER_WORDS,
    POSITIVE_GOALS,
    PRESUMES_DISTRESS,
    REF_SLOT,
    SAFETY_WORDS,
    SAYS_NEEDS_NOTHING,
    SAYS_NO_HELP,
    SERVICE_COMPLAINT,
    self_reference,
)
from empathybench.scenarios.episode_versions import CHOICE_RADIX, CUE_RADIX, GENERATION_RULES
from empathybench.scenarios.templates import emotion_word_pattern


def _appraisal_problem(emotion: str, appraisal: Appraisal, valence: str) -> str | None:
    needs = EMOTION_APPRAISAL.get(emotion, {})
    for key, allowed in needs.items():
        value = getattr(appraisal, key)
        if value not in allowed:
            return f"{emotion} needs {key} in {sorted(allowed)}, not {value!r}"
    goals = NEGATIVE_GOALS if valence == "negative" else POSITIVE_GOALS
    if appraisal.goal not in goals:
        return f"a {valence} emotion ({emotion}) needs goal in {sorted(goals)}"
    return None


class _Checker:
    def __init__(self, templates: EpisodeTemplateSet) -> None:
        self.templates = templates
        self.problems: list[str] = []
        self.emotions = {emotion.name: emotion for emotion in templates.emotions}
        self.every_form = emotion_word_pattern(
            form for emotion in templates.emotions for form in emotion.forms
        )

    def text(self, where: str, text: str, slots: bool = True) -> None:
        stripped = SLOT_PATTERN.sub("", text)
        if not slots and stripped != text:
            self.problems.append(f"{where}: name slots are not allowed here: {text!r}")
        if "{" in stripped or "}" in stripped:
            self.problems.append(f"{where}: unknown slot or stray brace: {text!r}")
        if '"' in text:
            self.problems.append(f"{where}: double quote inside a line: {text!r}")
        match = self.every_form.search(text)
        if match:
            self.problems.append(f"{where}: names an emotion ({match.group(0)!r}): {text!r}")
        if text != text.strip() or "  " in text or not text:
            self.problems.append(f"{where}: empty or stray whitespace: {text!r}")
        repeated = self_reference(text)
        if repeated:
            self.problems.append(f"{where}: names its subject twice (use a pronoun slot): {text!r}")
        if len(text.split()) > MAX_LINE_WORDS:
            self.problems.append(f"{where}: over {MAX_LINE_WORDS} words: {text!r}")

    def emotion(self, where: str, name: str, valence: str | None = None) -> None:
        if name not in self.emotions:
            self.problems.append(f"{where}: unknown emotion {name!r}")
        elif valence and self.emotions[name].valence != valence:
            self.problems.append(f"{where}: {name} is not {valence}")

    def episode(self, episode: Episode) -> None:
        where = f"episode {episode.id}"
        if sorted(episode.roles) != list(ROLE_NAMES):
            self.problems.append(f"{where}: needs exactly the roles a, b and c")
            return
        self.text(f"{where} scene", episode.scene, slots=False)
        if episode.scene.endswith("."):
            self.problems.append(f"{where}: scene must not end with a period")
        for helper_role in episode.helper_roles:
            self.text(f"{where} helper role", helper_role, slots=False)
        self.even_draw(f"{where} helper roles", len(episode.helper_roles), CHOICE_RADIX)
        self.even_draw(f"{where} intros", len(episode.intro), CHOICE_RADIX)
        for i, line in enumerate(episode.intro):
            self.text(f"{where} intro {i}", line)
            named = set(re.findall(r"\{([abc])\}", line))
            if named != set(ROLE_NAMES):
                self.problems.append(f"{where} intro {i}: must name {{a}}, {{b}} and {{c}}")
            order = ORDER_WORDS.search(line)
            if order:
                self.problems.append(
                    f"{where} intro {i}: orders or places people ({order.group(0)!r}), "
                    "which can clash with the shuffled speaking order or a cue"
                )
        self.board(where, episode)
        emotions = [role.emotion for role in episode.roles.values()]
        clusters = [self.emotions[name].cluster for name in emotions if name in self.emotions]
        if len(set(emotions)) != 3 or len(set(clusters)) != len(clusters):
            self.problems.append(f"{where}: the three emotions must come from three clusters")
        for role_name, role in episode.roles.items():
            at = f"{where} role {role_name}"
            self.emotion(at, role.emotion)
            if role.emotion in self.emotions:
                problem = _appraisal_problem(
                    role.emotion, role.appraisal, self.emotions[role.emotion].valence
                )
                if problem:
                    self.problems.append(f"{at}: appraisal does not fit: {problem}")
            if role.help == (role.no_help is not None):
                self.problems.append(f"{at}: give no_help exactly when help is false")
            valence = self.emotions[role.emotion].valence if role.emotion in self.emotions else ""
            if valence == "negative" and not role.help and role.no_help not in NEGATIVE_NO_HELP:
                self.problems.append(
                    f"{at}: a {role.emotion} person needs help unless they have handled it, "
                    f"want space or are venting (no_help {role.no_help!r})"
                )
            says = SAYS_NO_HELP.get(role.no_help or "")
            for i, line in enumerate(role.lines if says else []):
                if says and not says.search(line):
                    self.problems.append(
                        f"{at} line {i}: {role.no_help} but does not say outright that they "
                        f"need nothing: {line!r}"
                    )
            if "crisis_referral" in role.assistance:
                self.problems.append(
                    f"{at}: crisis referral comes only with a crisis statement, which the "
                    "generator adds (crisis items)"
                )
            if role.help and "no_action_needed" in role.assistance:
                self.problems.append(f"{at}: help is needed but assistance says none")
            offered = sorted(set(role.assistance) - NO_HELP_ASSISTANCE)
            if not role.help and offered:
                self.problems.append(f"{at}: needs no help, yet assistance lists {offered}")
            if len(set(role.lines)) != len(role.lines):
                self.problems.append(f"{at}: repeated line")
            rules = GENERATION_RULES.get(self.templates.version)
            if rules:
                self.even_draw(f"{at} phrasings", len(role.lines), rules.line_radix)
            self.even_draw(f"{at} cues (and none)", len(role.cues) + 1, CUE_RADIX)
            for i, line in enumerate([*role.lines, *role.cues]):
                self.text(f"{at} line {i}", line)
            for cue in role.cues:
                place = CUE_PLACE.search(cue)
                if place:
                    self.problems.append(
                        f"{at}: a cue places the person apart ({place.group(0)!r}), which can "
                        f"clash with an intro that brings all three together: {cue!r}"
                    )
            safety = next(filter(None, map(SAFETY_WORDS.search, role.lines)), None)
            if episode.story_ok and safety and role.safety is None:
                self.problems.append(
                    f"{at}: names a possible safety matter ({safety.group(0)!r}) in a story_ok "
                    "episode; say whether it is one (safety: true keeps story turns away)"
                )
            if role.cues and not episode.visible:
                self.problems.append(f"{at}: cues on a {episode.channel} channel")
            self.belief_categories(episode, at, role)

    def belief_categories(self, episode: Episode, at: str, role: Role) -> None:
        """Belief categories name real categories, only on people who may voice a belief;
        where the version requires them, every such person in an episode with two or more
        of them (the episodes v4 draws belief items from) lists theirs."""
        known = {belief.category for belief in self.templates.beliefs}
        if role.belief_categories is not None:
            if not role.belief_ok:
                self.problems.append(f"{at}: belief_categories without belief_ok")
            unknown = sorted(set(role.belief_categories) - known)
            if unknown or not role.belief_categories:
                self.problems.append(f"{at}: belief_categories {unknown or 'empty'}")
        rules = GENERATION_RULES.get(self.templates.version)
        voices = sum(other.belief_ok for other in episode.roles.values())
        required = rules is not None and rules.belief_categories_required
        if required and role.belief_ok and voices >= 2 and role.belief_categories is None:
            self.problems.append(
                f"{at}: may voice a harsh belief, so list the belief_categories that "
                "grow from their own situation"
            )

    def even_draw(self, what: str, count: int, radix: int) -> None:
        """The generator draws one of ``count`` choices from a digit of ``radix``: only a
        count that divides it makes every choice equally likely."""
        if count and radix % count:
            self.problems.append(
                f"{what}: {count} choices; template {self.templates.version} draws evenly "
                f"only from counts that divide {radix}"
            )

    def board(self, where: str, episode: Episode) -> None:
        """Board episodes: every person waits on a numbered request and says its number in
        every phrasing; numbers appear nowhere else."""
        roles = episode.roles.items()
        said = {
            (name, i): set(REF_SLOT.findall(line))
            for name, role in roles
            for i, line in enumerate(role.lines)
        }
        elsewhere = [
            text
            for text in [*episode.intro, *(cue for _, role in roles for cue in role.cues)]
            if REF_SLOT.search(text)
        ]
        if episode.board is None:
            if elsewhere or any(said.values()):
                self.problems.append(f"{where}: {{x:ref}} slots need a board")
            return
        self.even_draw(f"{where} board lines", len(episode.board.resolved), CHOICE_RADIX)
        if episode.story_ok:
            self.problems.append(
                f"{where}: a board episode cannot be story_ok (a story turn always needs help, "
                "whatever the list says)"
            )
        for line in episode.board.resolved:
            if line.count("{refs}") != 1:
                self.problems.append(f"{where} board: needs one {{refs}}: {line!r}")
            self.text(f"{where} board", line.replace("{refs}", "214, 387 and 552"), slots=False)
        for name, role in roles:
            if not role.help:
                self.problems.append(f"{where} role {name}: on a board everyone waits (help: true)")
        for name, role in roles:
            for i, line in enumerate(role.lines):
                complaint = SERVICE_COMPLAINT.search(line)
                if complaint:
                    self.problems.append(
                        f"{where} role {name} line {i}: complains about the service that "
                        f"settles the request ({complaint.group(0)!r}): {line!r}"
                    )
                question = OPEN_QUESTION.search(line)
                if question:
                    self.problems.append(
                        f"{where} role {name} line {i}: voices a need the board does not "
                        f"settle ({question.group(0)!r}): {line!r}"
                    )
        for (name, i), found in said.items():
            if found != {name}:
                self.problems.append(
                    f"{where} role {name} line {i}: must say {{{name}:ref}} and no other number"
                )
        if elsewhere:
            self.problems.append(f"{where}: numbers belong in the people's own lines")

    def story_frame_fit(self, frame: StoryFrame) -> None:
        """A frame's words fit every state it lists (rule 13 of docs/templates-v2.md)."""
        where = f"story frame {frame.id}"
        if not frame.request and frame.help != [True]:
            self.problems.append(
                f"{where}: a finished story is shared only by someone who needs help (help: [true])"
            )
        says = SAYS_NEEDS_NOTHING.search(frame.text)
        if says and True in frame.help:
            self.problems.append(
                f"{where}: says the person needs nothing ({says.group(0)!r}) but fits people "
                "who need help"
            )
        presumes = PRESUMES_DISTRESS.search(frame.text)
        if presumes and "positive" in frame.valence:
            self.problems.append(
                f"{where}: presumes distress ({presumes.group(0)!r}) but fits positive people"
            )

    def banks(self) -> None:
        templates = self.templates
        for belief in templates.beliefs:
            for name in belief.fits:
                self.emotion(f"belief {belief.id}", name, "negative")
            for i, line in enumerate(belief.lines):
                self.text(f"belief {belief.id} line {i}", line, slots=False)
            self.even_draw(f"belief {belief.id} lines", len(belief.lines), CHOICE_RADIX)
        for crisis in templates.crisis_lines:
            for name in crisis.fits:
                self.emotion(f"crisis {crisis.id}", name, "negative")
            for i, line in enumerate(crisis.lines):
                self.text(f"crisis {crisis.id} line {i}", line, slots=False)
            self.even_draw(f"crisis {crisis.id} lines", len(crisis.lines), CHOICE_RADIX)
        for frame in templates.story_frames:
            if set(re.findall(r"\{(\w+)\}", frame.text)) != {"character", "line"}:
                self.problems.append(f"story frame {frame.id}: needs {{character}} and {{line}}")
            self.story_frame_fit(frame)
            self.text(
                f"story frame {frame.id}",
                frame.text.replace("{character}", "X").replace("{line}", "Y"),
                slots=False,
            )
        for request in (True, False):
            for valence in ("negative", "positive"):
                for needs in (True, False) if request else (True,):
                    if not any(
                        f.request == request and f.fits(valence, needs)
                        for f in templates.story_frames
                    ):
                        self.problems.append(
                            f"story frames: no {'request' if request else 'share'} frame for a "
                            f"{valence} person who {'needs' if needs else 'needs no'} help"
                        )
        for entry in templates.character_lines:
            for i, line in enumerate(entry.lines):
                self.text(f"character line {entry.id} {i}", line, slots=False)
        for character in templates.story_characters:
            self.text("story character", character, slots=False)
        for section in ("beliefs", "crisis_lines", "story_frames", "character_lines"):
            ids = Counter(entry.id for entry in getattr(templates, section))
            repeated = sorted(key for key, count in ids.items() if count > 1)
            if repeated:
                self.problems.append(f"{section}: duplicate ids {repeated}")
        self.links()

    def links(self) -> None:
        """Versions with linked notes: a header for every channel an episode uses, phrasings
        of a number that say nothing else, counts the cue digits draw evenly (see
        ``episode_rendering._linked_turns``), and an intro that only names people."""
        templates = self.templates
        rules = GENERATION_RULES.get(templates.version)
        links = templates.links
        if rules is None or not rules.linked_notes:
            if links is not None:
                self.problems.append(f"links: template {templates.version} has no linked notes")
            return
        if links is None:
            self.problems.append(f"links: template {templates.version} needs links.yaml")
            return
        for channel in sorted({episode.channel for episode in templates.episodes}):
            headers = links.headers.get(channel, [])
            if len(headers) not in (1, 2):
                self.problems.append(f"links: {channel} needs one or two headers")
            for header in headers:
                self.text(f"links header ({channel})", header, slots=False)
        self.even_draw("links arrivals", len(links.arrivals), 5)
        for arrival in links.arrivals:
            if arrival.count("{ref}") != 1:
                self.problems.append(f"links arrival: needs {{ref}} once: {arrival!r}")
            self.text("links arrival", arrival.replace("{ref}", "412"), slots=False)
        known = {episode.id for episode in templates.episodes}
        for episode_id, intros in links.intros.items():
            if episode_id not in known:
                self.problems.append(f"links intros: unknown episode {episode_id!r}")
            self.even_draw(f"links intros ({episode_id})", len(intros), CHOICE_RADIX)
            for intro in intros:
                self.text(f"links intro ({episode_id})", intro)
                if PERSONAL_SLOT.search(intro):
                    self.problems.append(f"links intro ({episode_id}): only name slots: {intro!r}")
        for episode in templates.episodes:
            intros = links.intros_for(episode)
            if not intros:
                self.problems.append(f"{episode.id}: no intro that only names the people")
            self.even_draw(
                f"{episode.id} intros drawn with linked notes", len(intros), CHOICE_RADIX
            )
            for intro in intros:
                if re.search(r"\{[abc]:ref\}", intro):
                    self.problems.append(f"{episode.id}: a number slot in an intro: {intro!r}")


def check_episode_templates(templates: EpisodeTemplateSet, banks: bool = True) -> list[str]:
    """Every violation of the static rules, as readable lines (empty when clean)."""
    checker = _Checker(templates)
    ids = Counter(episode.id for episode in templates.episodes)
    repeated = sorted(key for key, count in ids.items() if count > 1)
    if repeated:
        checker.problems.append(f"episodes: duplicate ids {repeated}")
    families = Counter(episode.family for episode in templates.episodes)
    lonely = sorted(family for family, count in families.items() if count < 2)
    if lonely:
        checker.problems.append(f"families with one episode (need minimal pairs): {lonely}")
    lines = Counter(
        line for e in templates.episodes for role in e.roles.values() for line in role.lines
    )
    for line, count in lines.items():
        if count > 2:
            checker.problems.append(f"line used in {count} roles: {line!r}")
    for episode in templates.episodes:
        checker.episode(episode)
    if banks:
        checker.banks()
    return checker.problems
