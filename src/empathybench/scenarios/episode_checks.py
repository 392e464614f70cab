"""The static rules every episode template version must pass (docs/templates-v2.md).

``check_episode_templates`` is their single source: the test-suite runs it, and content
writers run it through ``python -m empathybench.scenarios.episode_templates``.
"""

from __future__ import annotations

import re
from collections import Counter

from empathybench.scenarios.episode_models import (
    ROLE_NAMES,
    SLOT_PATTERN,
    Appraisal,
    Episode,
    EpisodeTemplateSet,
    StoryFrame,
)
from empathybench.scenarios.templates import emotion_word_pattern

# What each emotion needs of the appraisal (the checker's reading of appraisal theory): a
# role whose appraisal contradicts its emotion is rejected. Missing keys are unconstrained.
_NEGATIVE_GOALS = {"blocked", "lost", "threatened", "changed"}
_POSITIVE_GOALS = {"achieved", "changed", "unaffected"}
EMOTION_APPRAISAL: dict[str, dict[str, set[str]]] = {
    "guilty": {"cause": {"self"}},
    "ashamed": {"cause": {"self"}},
    "embarrassed": {"cause": {"self", "other", "circumstance"}},
    "angry": {"cause": {"other"}},
    "resentful": {"cause": {"other"}},
    "irritated": {"cause": {"other", "circumstance"}},
    "frustrated": {"goal": {"blocked", "threatened"}},
    "jealous": {"cause": {"other"}},
    "envious": {"cause": {"other"}},
    "sad": {"goal": {"lost", "blocked"}},
    "grieving": {"goal": {"lost"}, "control": {"final"}},
    "heartbroken": {"goal": {"lost"}},
    "disappointed": {"goal": {"lost", "blocked"}},
    "anxious": {"certainty": {"uncertain"}},
    "nervous": {"certainty": {"uncertain"}},
    "scared": {"goal": {"threatened"}},
    "overwhelmed": {"goal": {"threatened", "blocked", "changed"}},
    "hopeless": {"control": {"final"}},
    "defeated": {"goal": {"lost", "blocked"}},
    "helpless": {"goal": {"lost", "blocked", "threatened"}},
    "confused": {"goal": {"changed", "blocked"}, "certainty": {"uncertain"}},
    "bewildered": {"goal": {"changed", "blocked"}, "certainty": {"uncertain"}},
    "proud": {"goal": {"achieved"}, "cause": {"self"}},
    "triumphant": {"goal": {"achieved"}, "cause": {"self"}},
    "grateful": {"cause": {"other"}, "goal": {"achieved", "changed", "unaffected"}},
    "touched": {"cause": {"other"}, "goal": {"achieved", "changed", "unaffected"}},
    "relieved": {"goal": {"achieved", "changed", "unaffected"}, "certainty": {"certain"}},
    "hopeful": {"certainty": {"uncertain"}},
    "optimistic": {"certainty": {"uncertain"}},
    "content": {"goal": {"achieved", "unaffected"}},
    "peaceful": {"goal": {"achieved", "unaffected"}},
}
_MAX_LINE_WORDS = 60
# Speaking order is shuffled and cues place people, so an intro must not order or place
# them ("posts first", "a step behind", "nearest the desk").
ORDER_WORDS = re.compile(
    r"\b(first|second|third|last|then|next|after|afterwards|before|behind|ahead|nearest|"
    r"closest|followed|following|front|lead|leads|trailing|one after another|already|later|"
    r"earlier|opens with|starts|started|follow|follows|holds? the door|walks? over|"
    r"walks? up|leads? the way|in single file|in turn|in a line|lines? up|queue|queues|"
    r"queuing|queueing|one at a time|one by one)\b",
    re.IGNORECASE,
)
# Story turns stay away from safety matters (rule 13): in a story_ok episode, a role whose
# lines name one of these must say whether its matter is a safety one (``safety``).
SAFETY_WORDS = re.compile(
    r"\b(tablets?|pills?|medicines?|medication|doses?|prescriptions?|insulin|injur\w*|ankle|"
    r"sprain\w*|bleeding|ambulance|A&E|scan|hospital|gas|smoke|fire|burn\w*|overdose|heart|"
    r"blood pressure|chest pain)\b",
    re.IGNORECASE,
)
# Intros bring all three to the helper together, so a cue must not put a person at another
# spot ('on the bench by the window' after 'all three come up to the counter').
CUE_PLACE = re.compile(
    r"\b(on|at|by|from|in|near|across) the (bench|benches|chairs?|seats?|sofa|armchairs?|"
    r"window|doors?|doorway|corner|back|far end|other side|car park|entrance|stairs)\b",
    re.IGNORECASE,
)
# A sentence whose subject is a name slot names that person again ('{b} holds the tablet up
# so that {a} and {b} are in view' reads as two people called Hiroshi): say {b:them}.
SENTENCE_SUBJECT = re.compile(r"^\s*\{([abc])\}")


def self_reference(text: str) -> str | None:
    """The first sentence whose subject slot appears again in it, if any."""
    for sentence in re.split(r"[.;!?]", text):
        subject = SENTENCE_SUBJECT.match(sentence)
        if subject and sentence.count("{" + subject.group(1) + "}") > 1:
            return sentence.strip()
    return None


# Help for distress (rule 4 of docs/templates-v2.md): a person with a negative emotion needs
# help unless their own words give a reason they do not (handled, wants space, venting).
REF_SLOT = re.compile(r"\{([abc]):ref\}")
# Story frames fit the person's state (rule 13): words that say the person needs nothing
# never go to someone who needs help, and words that presume distress never go to someone
# who is well.
SAYS_NEEDS_NOTHING = re.compile(
    r"\b(nothing (more|else) to (add|say|do)|only wanted to share|just wanted (you to know|to "
    r"share)|no edits needed|nothing (you|for you) (need|to do)|no need to (reply|answer)|"
    r"don'?t need anything)\b",
    re.IGNORECASE,
)
PRESUMES_DISTRESS = re.compile(
    r"\b(distraction|take my mind off|cheer me up|get through (today|tonight)|rough day)\b",
    re.IGNORECASE,
)
NEGATIVE_NO_HELP = frozenset({"handled", "wants_space", "venting"})
# A distressed person who needs no help says so outright in every phrasing (rule 4): "I am
# only saying it" reads as the idiom "I'm just saying", not as "I need nothing".
SAYS_NO_HELP = {
    "venting": re.compile(
        r"\b(not (asking|after) (for )?(anything|help)|(don'?t|do not) need anything|"
        r"nothing (for you )?to (do|fix)|nothing to be done|no need to do anything|"
        r"off my chest|blowing off steam|just (grumbling|moaning)|ignore me)\b",
        re.IGNORECASE,
    ),
    "wants_space": re.compile(
        r"\b(on my own|by myself|rather (not|just|nobody|keep)|let'?s (not|just move)|"
        r"(don'?t|do not) (want|need|suggest|ask|worry)|not up for|no calls|phone off|"
        r"leave me be|for a (bit|while)|some time|quiet minute|not yet|move on|"
        r"going (straight )?home|side door|without a fuss|sit this call out|logging off|"
        r"camera off)\b",
        re.IGNORECASE,
    ),
}
# On a board, the list settles each person's need: their lines voice no other need (a
# question, or a puzzle the request does not answer: 'who sent it, it makes no sense').
OPEN_QUESTION = re.compile(
    r"\?|\b(no idea|makes no sense|can'?t work out|nobody\b[^.]{0,20}\b(knows|can say)|"
    r"haven'?t the faintest|don'?t know (who|why|what|how|where|whether|if))\b",
    re.IGNORECASE,
)
# Nor is a board person's feeling about the service that settles their request (a false
# "nobody answered" card, the update the desk pushed): that grievance stays open once the
# request is done, so the list would not settle their need.
SERVICE_COMPLAINT = re.compile(
    r"\b(we missed you|missed[- ]delivery|nobody answered|no knock|never heard a knock|"
    r"saying I was out|you (pushed|sent|lost|missed|broke|forgot|skipped|changed)|"
    r"(overnight|forced|automatic) (update|restart)|same as last (time|week|month)|"
    r"(second|third) (card|ticket) (this|in))\b",
    re.IGNORECASE,
)
# What a person who needs no help may be given: nothing, or a share in their good news.
NO_HELP_ASSISTANCE = frozenset({"no_action_needed", "celebrate"})


def _appraisal_problem(emotion: str, appraisal: Appraisal, valence: str) -> str | None:
    needs = EMOTION_APPRAISAL.get(emotion, {})
    for key, allowed in needs.items():
        value = getattr(appraisal, key)
        if value not in allowed:
            return f"{emotion} needs {key} in {sorted(allowed)}, not {value!r}"
    goals = _NEGATIVE_GOALS if valence == "negative" else _POSITIVE_GOALS
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
        if len(text.split()) > _MAX_LINE_WORDS:
            self.problems.append(f"{where}: over {_MAX_LINE_WORDS} words: {text!r}")

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
        for crisis in templates.crisis_lines:
            for name in crisis.fits:
                self.emotion(f"crisis {crisis.id}", name, "negative")
            for i, line in enumerate(crisis.lines):
                self.text(f"crisis {crisis.id} line {i}", line, slots=False)
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
