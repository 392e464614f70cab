"""The vocabularies and patterns behind the episode template rules (docs/templates-v2.md).

``episode_checks`` applies them to a template set; they live apart so that each rule's
wording can be read (and extended) in one place.
"""

from __future__ import annotations

import re

# What each emotion needs of the appraisal (the checker's reading of appraisal theory): a
# role whose appraisal contradicts its emotion is rejected. Missing keys are unconstrained.
NEGATIVE_GOALS = {"blocked", "lost", "threatened", "changed"}
POSITIVE_GOALS = {"achieved", "changed", "unaffected"}
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
MAX_LINE_WORDS = 60
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
