"""From a node's text to prose for the customer.

Graph text is written for the graph's author as often as for a customer: a node
may be a noun phrase ("Methods used to grow a data set"), a subject-less
predicate ("Validates data quality by ..."), carry a whimsical tangent ("just
like how ..."), or a sentence about the graph itself ("This node explores ...",
"understanding X is crucial"). This module picks each node's clearest sentence
for a customer, keeps notes for the author out, shortens a fact without cutting
its contrast or its cause, and tells a fact about "distributors" to the
distributor reading it ("you"). It invents nothing: every word it adds is a
pronoun or a connective.

Pure and memoised: the same node text recurs in every rollout.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from codreamer.agent.writer.grammar import AUX, base_form, has_finite_verb, is_predicate, wordset

_WS = re.compile(r"\s+")
_SENTENCES = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")

# Sentences about the graph or for its author, never for a customer.
META = re.compile(
    r"\bnodes?\b|current[_ ]node|\bthis concept\b|need/challenge|product'?s capabilities|"
    r"\b(?:understanding|exploring|knowing|identifying|recogni[sz]ing|considering)\b[^.]{0,120}?"
    r"\b(?:is|are|was|helps?|will|can|could|provides?)\b[^.]{0,40}?"
    r"\b(?:crucial|essential|important|key|vital|critical|useful|relevant|necessary|help)|"
    r"\b(?:explores?|delves?|introduces? the concept|moves? the graph|graph exploration|"
    r"bridg(?:es|ing) the|position (?:the product|\w+ \w+ as)|better position|"
    r"product-market fit|potential overlaps?|this (?:new )?(?:step|link|edge|connection|path)|"
    r"directly (?:relates?|related|aligns?) (?:to|with) (?:the|its)? ?(?:product|customer)|"
    r"the customer\b|is relevant to|this connects|connects to the product|"
    r"(?:a |the )?direct use case|core concern that|aims to address|"
    r"in the context of (?:this|the) (?:graph|analysis)|^(?:by )?(?:understanding|exploring)\b|"
    r"\banother (?:crucial|key|important|fundamental)\b|\bextending from\b|"
    r"\b(?:achieving|addressing|doing) this\b|directly applicable|\bthe product\b|"
    r"provides a pathway|\bwe can\b|^it'?s (?:important|crucial|key|worth|useful) to "
    r"(?:show|note|highlight|emphasi[sz]e|mention|stress|point out)|\bpitch\b|resonat|"
    r"talking point|\bmessaging\b|\bthe \w+ angle\b|\bsales (?:rep|team)s? should\b|"
    r"same logic as|the point to make|\bin (?:the |an |this )?emails?\b|differentiator|"
    r"\bbuyers?\b(?!['’])|\buseful for [\w-]+ (?:buyers|readers|prospects|leaders)|\blead with\b|"
    r"worth mentioning|selling point|value prop|\bprospects?\b|\bthe reader\b|"
    r"\bhighlight\b|takeaway|for the author|worth making clear|\bmake (?:it )?clear\b|"
    r"\bkey point\b|note to self|\bremember to\b|^worth \w+ing\b|positioning|"
    r"should be (?:mentioned|raised|paired|told|named)|\bmentioned alongside\b|"
    r"most direct (?:path|route|link)|worth noting|\bthe argument\b|\bthe (?:idea|logic) "
    r"(?:here )?is\b|\bthis is why (?:we|the)\b|\bin this (?:graph|map)\b|"
    r"\b(?:is |it'?s )?worth (?:making|stressing|adding|pointing|flagging|saying|"
    r"emphasi[sz]ing|underlining|repeating|calling)\b|\bwhere (?:the |our )?(?:main )?"
    r"product (?:fits|comes in)\b|\bproduct fits\b|\bwe (?:want|need|should|would like) "
    r"to\b|\b(?:the )?alternative we\b|\bhand in hand\b|\bto contrast (?:with|it)\b|"
    r"\bthe (?:main |core )?(?:hook|story|narrative|framing)\b|\bframe (?:it|this)\b|"
    # why the node is in the graph ("Included since staffing is the pain ...")
    r"^(?:included|added|listed|kept|chosen|picked|linked)\s+(?:here\s+)?"
    r"(?:since|because|as|so|to|for)\b|"
    # advice to whoever writes the email: "It is important to connect X to Y",
    # "Highlighting X is useful because", "Useful context: ...", "Framing note: ...",
    # "Mention that ...", "the cost to emphasise", "This is the direct answer to ..."
    r"^(?:it is|it's|it helps|it can help) (?:\w+ )?to (?:connect|explain|link|tie|frame|"
    r"show|say|position|establish|make)\b|"
    r"^(?:highlighting|linking|connecting|framing|tying|showing|mentioning|stressing|"
    r"emphasi[sz]ing|explaining|noting)\b[^.]{0,100}?\b(?:is|are)\s+(?:\w+\s+)?(?:useful|"
    r"key|important|helpful|worth|essential|crucial|good)\b|"
    r"^(?:useful |helpful |some |more )?(?:context|framing|background)(?: note)?(?: for \w+)?\s*:|"
    r"^(?:framing|context|author'?s?) note\b|^(?:mention|note|explain|stress|say) that\b|"
    r"\bto (?:emphasi[sz]e|stress|mention|highlight)\b|"
    r"^this (?:captures|is the (?:direct |main )?answer|covers the|reflects the)\b|"
    # the email or the graph as a document: "this paragraph", "the subject line",
    # "note for the writer", "the next step is to show ..."
    r"\bthis (?:paragraph|section|bullet|sentence|draft|email|message|sequence)\b|"
    r"\bsubject lines?\b|\b(?:for |to )?the (?:email )?writer\b|^note (?:for|to) \w+|"
    r"^the next step is to\b|"
    # advice in any words: "It is important to quantify X before ...", "... should be
    # framed as a procurement win", "..., so open with the statistic", "Avoid jargon
    # when writing to ...", "the clearest way to tie X to Y", "will land with owners"
    r"^(?:it is|it's) (?:\w+ )?(?:important|crucial|key|essential|vital|useful|helpful|"
    r"wise|advisable|best|better) to (?!\w+ (?:every|each|at least|within|before the)\b)|"
    r"\bfram(?:ed|ing) (?:it |this |them )?as (?:an? |the )?[\w-]+ (?:win|problem|issue|"
    r"story|gain|play|opportunity|saving|question)\b|\bframe (?:it|this|them)\b|"
    r",? so (?:open|lead|start|keep|avoid|frame|focus|translate|mention|stress|"
    r"emphasi[sz]e|say|use|put|position|talk|tie|link)\b|"
    r"^(?:avoid|open with|lead with|close with|end with|keep the|start with|focus on|tie|"
    r"translate|quantify|reserve|make sure|do not|don't)\b|"
    r"^(?:stress|frame|emphasi[sz]e|highlight|mention|pitch|position)\s+(?:the|a|an|our|"
    r"their|its|this|that|how|why|[\w-]+(?:\s+[\w-]+){0,2}?\s+(?:over|rather than|around|"
    r"as|because))\b|^the (?:main |best |right )?angle\b|\b(?:lets|helps|allows) us\b|"
    r"\bthe (?:whole |entire |first |opening )?(?:email|message) (?:should|must|needs)\b|"
    r"\bthe (?:emphasis|focus|tone|angle|message|opening|close) (?:for [\w-]+(?: [\w-]+)? |"
    r"here )?should\b|"
    r"\bway to (?:tie|link|connect|frame|introduce|open|bring in)\b|"
    r"\b(?:will|would|should|to) land (?:well )?with\b|\b(?:key|main|core|central) message\b|"
    r"\bthe (?:[\w-]+ ){1,3}(?:figure|statistic|stat|number|claim|example|point|angle) "
    r"(?:should|suggests|illustrates|works best|is (?:a |the )?(?:secondary|main|key|"
    r"strongest|clearest|best|number to))\b|"
    r"\bis (?:the right|a good|the best) (?:match|fit) for (?:this|the)\b|"
    r"\bthe (?:tone|angle) (?:here )?should\b|\bwhy [^.]{0,60}?\bmatters? to [\w-]+ "
    r"(?:\w+ )?(?:engineers|managers|directors|leaders|owners|readers|teams|buyers|heads)\b|"
    r"\b(?:is|are) (?:\w+ )?advisable\b|\bthe [\w-]+ angle\b)",
    re.IGNORECASE,
)
# A trailing clause that tells the author why the link matters ("..., highlighting a
# direct need for X's feedback system"): the clause before it may still be a fact.
_AUTHOR_TAIL = re.compile(
    r",?\s+(?:highlighting|suggesting|indicating|pointing to|which points to|making it|"
    r"thus|thereby|underscoring|emphasi[sz]ing|demonstrating|showing)\b.*$",
    re.IGNORECASE,
)
# Tangents and analogies a customer would find odd ("..., just like how waffles ...").
_TANGENT = re.compile(
    r",?\s+(?:just\s+(?:like|as)|much\s+like|similar\s+to|akin\s+to|as\s+one\s+might|"
    r"like\s+how|which\s+can\s+(?:also\s+)?be\s+(?:enjoyed|complemented)|"
    r"and\s+(?:it|they)?\s*(?:can|could)\s+also\s+be|which\s+can\s+also\s+be|"
    r"(?:which\s+)?can\s+be\s+complemented)\b.*$",
    re.IGNORECASE,
)
_QUOTED = re.compile(r"(?<!\w)['\"‘“][^'\"’”]{3,}['\"’”](?!\w)")

# Connectives that carry a fact's point: a cut never falls just before one.
_KEEP_AFTER = re.compile(
    r"^(?:while|but|whereas|although|though|yet|because|since|so|unless|which means|"
    r"as a result|meaning|even|only|until|instead)\b",
    re.IGNORECASE,
)
_COST_TAIL = re.compile(
    r"\d|\$|%|\b(?:hours?|days?|weeks?|months?|costs?|lost|loses|delays?|revenue|money)\b",
    re.IGNORECASE,
)
_RESULT = re.compile(r"\d\s?%|%|\$\s?\d|\b\d+(?:\.\d+)?x\b")
_BOUNDARY = re.compile(r",\s|;\s|\s—\s|\s(?=(?:and|which|so|while|because|but|including)\s)")
_NO_END = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "to",
        "for",
        "with",
        "by",
        "from",
        "about",
        "on",
        "in",
        "at",
        "into",
        "over",
        "under",
        "between",
        "within",
        "across",
        "per",
        "via",
        "like",
        "and",
        "or",
        "but",
        "than",
        "as",
        "that",
        "which",
        "who",
        "whose",
        "their",
        "its",
        "our",
        "your",
    ]
)
# Verbs whose object may be a "which ..." question ("cannot say which events ran")
_ASKS_WHICH = wordset(
    """
    say says said know knows knew tell tells told see sees saw decide decides decided
    show shows showed check checks ask asks explain explains predict predicts choose
    chooses track tracks verify verifies confirm confirms prove proves find finds
    learn learns determine determines understand understands identify identifies
    """
)
_CLAUSE_START = frozenset(
    [
        "the",
        "a",
        "an",
        "most",
        "many",
        "some",
        "it",
        "they",
        "we",
        "you",
        "this",
        "these",
        "those",
        "each",
        "every",
        "all",
        "no",
        "its",
        "their",
        "our",
        "your",
        "one",
        "few",
        "several",
    ]
)
_EXAMPLES_TAIL = re.compile(r",?\s+(?:including|such as|e\.g\.|for example)\s[^;]*$", re.I)


def is_meta(sentence: str) -> bool:
    """A note for the graph's author, not a fact for the customer. A quoted phrase
    in a node's fact is a term of the trade ("so-called "ghost visits""), so quotes
    count only in an edge's rationale (`reason_clause`), where they are the author
    quoting the graph ("The company's claim of 'high quality' implies ...")."""
    return bool(META.search(sentence))


# A note to the graph's author wrapped around a fact for the customer ("Worth making
# clear that Pickwise sits on top of the WMS ..."): the fact stands without its
# wrapper, so it is kept, not thrown away with the note.
_AUTHOR_LEAD = re.compile(
    r"^(?:it(?:'s| is) )?(?:worth|important|useful|key) (?:making clear|explaining|"
    r"noting|stressing|pointing out|mentioning|flagging|saying|adding|emphasi[sz]ing|"
    r"to (?:note|stress|explain|mention|make clear))"
    r"(?: to (?:the |a )?(?:prospect|reader|customer|buyer)s?)?,?\s+"
    r"(?:(?:here|again|also|first|too),?\s+)?(?:that\s+)?",
    re.IGNORECASE,
)


def for_customer(sentence: str) -> str | None:
    """The sentence as a customer may read it: as it is, or without an author's
    lead-in ("Worth making clear that ..."); None when it is a note through and
    through."""
    s = sentence.strip()
    if not is_meta(s):
        return s
    bare = _AUTHOR_LEAD.sub("", s, count=1)
    if bare != s and len(bare.split()) >= 4 and not is_meta(bare):
        return bare[:1].upper() + bare[1:]
    return None


_MID_EXAMPLES = re.compile(r",\s+(?:such as|including|like|e\.g\.)\s")


def _drop_mid_examples(t: str) -> str:
    """ "Struck-by incidents, such as being hit by a loader or a falling load, are the
    second leading cause ..." -> "Struck-by incidents are the second leading cause ...":
    a list of examples between the subject and its verb goes, never the verb."""
    m = _MID_EXAMPLES.search(t)
    if not m:
        return t
    for c in re.finditer(r",\s+(\S+)", t[m.end() :]):
        w = c.group(1).lower()
        if w in AUX or (base_form(w) is not None and base_form(w) != w):
            return t[: m.start()] + " " + t[m.end() + c.start(1) :]
    return t


def _clean(text: str) -> str:
    t = _WS.sub(" ", text).strip()
    t = _TANGENT.sub("", t).strip()
    t = _drop_mid_examples(t)
    return t.rstrip(",;: ")


_ABBREV = re.compile(
    r"(?:\b(?:v|vs|e\.g|i\.e|etc|dr|mr|mrs|ms|prof|inc|ltd|co|corp|no|st|approx|cf|al|fig)"
    r"|\b[A-Z])\.$",
    re.IGNORECASE,
)


def sentences(text: str) -> list[str]:
    """Sentences, not split after an abbreviation ("Da Silva Moore v. Peck", "e.g.")."""
    t = _WS.sub(" ", text).strip()
    out: list[str] = []
    for part in _SENTENCES.split(t) if t else []:
        if out and _ABBREV.search(out[-1]):
            out[-1] = f"{out[-1]} {part}"
        elif part.strip():
            out.append(part.strip())
    return out


# A head that ends inside an aside opened after a conjunction ("... and, in states")
_OPEN_ASIDE = re.compile(r"\b(?:and|or|but),\s[^,]*$")


def _cut(text: str, limit: int) -> str:
    """About `limit` words, cut only at a clause boundary and never just before a
    contrast or a cause ("while popular ones run short" is the point)."""
    if len(text.split()) <= limit:
        return text
    t = _EXAMPLES_TAIL.sub("", text)  # examples go first: they are not the point
    if _OPEN_ASIDE.search(t):
        t = text  # the examples sat in an aside: "under the FLSA and, in states | such as"
    if len(t.split()) <= limit and len(t.split()) >= 10:
        return t
    if len(t.split()) < 10:
        t = text
    ok: list[int] = []
    last_resort: list[int] = []  # cuts inside what may be a list of long items
    for m in _BOUNDARY.finditer(t):
        rest = t[m.end() :].lstrip()
        if _KEEP_AFTER.match(rest) or (
            rest.lower().startswith("which ") and _COST_TAIL.search(rest)
        ):
            continue  # a contrast, a cause, or what it costs ("which takes two hours a day")
        if _RESULT.search(rest) and not _RESULT.search(t[: m.start()]):
            continue  # the only result in figures ("raising accuracy to 99.9%") is the point
        head = t[: m.start()]
        last = head.rsplit(" ", 1)[-1].lower()
        if last in _NO_END:
            continue  # "evidence about" cannot end a sentence
        if last in _ASKS_WHICH and rest.lower().startswith("which "):
            continue  # "cannot say | which events ran": the verb's object, not a relative
        if _OPEN_ASIDE.search(head):
            continue  # inside an aside: "under the FLSA and, in states | such as ..."
        opened = list(_OPENS_CLAUSE.finditer(head))
        if opened and not has_finite_verb(head[opened[-1].end() :]):
            continue  # "a justification that a PI | and an administrator must sign"
        before = head.rsplit(",", 1)
        if t[m.start()] == "," and len(before) == 2 and len(before[1].split()) <= 3:
            continue  # inside a list ("collection, preprocessing, training")
        if re.match(r"^(?:and|or)\s+\w+(?:,|\s(?:and|or)\s)", rest):
            continue
        if t[m.start()] == "," and re.match(r"^\S+(?:\s+\S+){0,2}?(?:,|\s(?:and|or)\s)", rest):
            continue  # a list goes on after this item
        n = len(head.split())
        if t[m.start()] == "," and re.match(r"^\S+(?:\s+\S+){3,4}?(?:,|\s(?:and|or)\s)", rest):
            # maybe a list of longer items ("combines soil moisture probes, | local ET
            # weather data and pivot telemetry into ...": cut there, the verb's object
            # is one item of three): cut there only when nothing else keeps the
            # sentence short enough to read
            if 6 <= n <= limit and has_finite_verb(head) == has_finite_verb(t):
                last_resort.append(m.start())
            continue
        if rest.startswith(("and ", "or ")) and len(before) == 2 and len(before[1].split()) <= 3:
            continue  # the "and" closes a list ("from A, B and C"): "from A, B." is cut short
        if rest.startswith(("and ", "or ")):
            # "and reliability of AI models" ends a noun phrase; only a new clause may go
            # ("and dispatcher the moment a load drifts" too): a new clause opens on
            # its own subject, a determiner or a pronoun
            after = rest.split(" ", 1)[1] if " " in rest else ""
            nxt = _BOUNDARY.search(after)
            first = after.split(" ", 1)[0].lower()
            if first not in _CLAUSE_START or not has_finite_verb(
                after[: nxt.start()] if nxt else after
            ):
                continue
        if 6 <= n <= limit and has_finite_verb(head) == has_finite_verb(t):
            ok.append(m.start())
    if ok:
        return t[: ok[-1]]
    if last_resort and len(t.split()) > _LONGEST:
        return t[: last_resort[-1]]
    return t


@dataclass(frozen=True, slots=True)
class Fact:
    """A node's text for the customer: `text` without its final full stop, and what
    shape it has: "clause" (a sentence), "predicate" (no subject: "validates X")
    or "noun" (a noun phrase: "methods used to grow a data set")."""

    text: str
    kind: str

    @property
    def ok(self) -> bool:
        return bool(self.text)


_EMPTY = Fact("", "noun")
# A clause opened and not yet given its verb: a cut inside it leaves it unfinished.
_OPENS_CLAUSE = re.compile(r"\b(?:that|which|who|whom|whose|because|since|although|if)\b", re.I)
_ANAPHOR = re.compile(
    r"^(?:it|this|these|those|they|that|such|by then|then|there|here|also|instead|"
    r"otherwise|in that case|at that point|reports|alerts|the rest|the others|"
    r"the remainder|the remaining|the latter|the former|both|neither)\b|"
    r"\bat the same time\b|"
    r"\b(?:as well|too)$",
    re.IGNORECASE,
)
# "A temperature excursion is any period when ...", "NRW is water that ...": a
# definition, which an expert reads as a lecture.
_DEFINITION = re.compile(
    r"^(?:an?\s+|the\s+)?[\w-]+(?:\s+[\w-]+){0,4}\s+(?:is|are|refers? to|means)\s+"
    r"(?:(?:(?:any|an?|the)\s+)?(?:[\w-]+\s+){0,3}?(?:that|when|where|which|in which|"
    r"used|paid|held|charged|collected|owed|set aside)|"
    r"(?:any|an?|the)\s+(?!(?:leading|biggest|largest|main|most|second|third|first|top|"
    r"single|primary|number|same|share)\b)(?:[\w-]+\s+){1,3}?of)\b",
    re.IGNORECASE,
)


def is_definition(text: str) -> bool:
    t = text.strip()
    return bool(_DEFINITION.match(t)) and not re.match(
        r"^(?:the\s+)?(?:problem|issue|reason|result|point|catch|risk|cost)\b", t, re.I
    )


# A statement of how a field works, with nobody in trouble: what a thing involves or
# includes, what it can be used for, what role it plays, what it measures ("The
# development of a model involves stages like ...", "Sensor data can be combined to
# ...", "Rotation and cropping are typically used to augment ..."). Told to someone
# who works in that field, it is a textbook lecture (blind readers: "explains X to
# an X company", graded 1). The subject is a general noun phrase, not the reader.
_TEXTBOOK = re.compile(
    r"^(?!(?:you|your|we|our|they|their|most|many|some|few|it|this|these|those)\b)"
    r"(?:the\s+|an?\s+)?[\w'-]+(?:,?\s+(?:and\s+|or\s+)?[\w'-]+){0,7}?\s+"
    r"(?P<verb>(?:(?:typically|usually|often|commonly|generally|frequently|also|normally)\s+)?"
    r"(?:involves?|includes?|consists? (?:\w+ly )?of|comprises?|encompass(?:es)?|covers?|contains?|"
    r"can be (?:\w+ed|used|made|built|seen|thought of|grown|run|done|applied|split)\b|"
    r"(?:is|are) (?:(?:typically|usually|often|commonly|generally|widely|also|normally)\s+)?"
    r"(?:used|applied|employed|leveraged|generated|created|designed|calculated|computed|"
    r"divided|expressed|maintained|characteri[sz]ed|achieved|structured|classified|"
    r"defined|measured|split|grouped|organi[sz]ed|based|composed|determined|derived|"
    r"made up)\s+(?:to|for|in|by|as|when|across|into|from|on|of|using|with)\b|"
    r"(?:is|are) (?:an?\s+|the\s+|one of the\s+)?(?:[\w-]+\s+){0,2}?(?:step|part|process|"
    r"method|technique|practice|component|form|type|kind|way|stage|phase|field|"
    r"discipline|approach|aspect|area|branch|subset|category|class|family|measure|"
    r"metric|framework|standard|model|tool|set|collection|combination)s?\b|"
    r"plays? (?:an?\s+)?(?:[\w-]+\s+)?role|"
    r"(?:is|are) (?:essential|crucial|important|critical|key|fundamental|vital|central|"
    r"necessary|common|widely used|popular)\s+(?:to|for|in|when)\b|"
    r"reli(?:es|y) on|depends? on|works? by|serves? as|refers? to|falls? into|spans?|"
    r"(?:is|are) (?:(?:commonly|typically|usually|generally|broadly|often)\s+)?"
    r"(?:grouped|divided|split|classified|sorted|organi[sz]ed) into|"
    r"(?:moves?|proceeds?|progresses?|passes?) through|separates?|"
    r"can be (?:\w+ly\s+)\w+ed\b|"
    # "X is a/the Y ...": a term said to be a kind of thing (not "the leading cause")
    r"(?:is|are) (?:an?|the)\s+(?!(?:leading|biggest|largest|main|most|second|third|"
    r"first|top|single|primary|number|same|share|only|best|worst|fastest|slowest|"
    r"majority|bulk|rest)\b)|"
    r"measures?|assess(?:es)?|quantif(?:y|ies)|represents?|denotes?|describes?|creates?|"
    r"uses?|ranks?|combines?|enables?|allows?|helps?|classif(?:y|ies)|adjusts?|"
    r"estimates?|identif(?:y|ies)|specif(?:y|ies)|stores?|collects?|compares?|"
    r"minimi[sz]es?|maximi[sz]es?|defines?|converts?|translates?|links?|"
    r"breaks? down|verif(?:y|ies)|distinguish(?:es)?|determines?))\b",
    re.IGNORECASE,
)
# "There are several standard delivery methods, including ...": a list of the kinds.
_THERE_ARE_KINDS = re.compile(
    r"^there are (?:several|many|a number of|various|two|three|four|five|six|seven|"
    r"\d+) (?:\w+ ){0,2}?(?:types|kinds|methods|approaches|stages|phases|categories|"
    r"classes|forms|ways|levels|models|techniques|components|groups|tiers|grades|sizes)\b",
    re.IGNORECASE,
)
# "In freight forwarding, a bill of lading serves as ...": the field named first.
_FIELD_LEAD = re.compile(r"^(?:in|within|for|across)\s+(?:[\w'-]+\s+){0,5}?[\w'-]+,\s+", re.I)
# Trouble words that are only the names of things here ("mean squared error", "a loss
# function", "risk scores", "failure modes"): no one is in trouble.
_TERM = re.compile(
    r"\b(?:(?:mean squared|mean absolute|root mean squared?|squared|absolute|standard|"
    r"cross-entropy|log|hinge|type (?:i|ii|1|2))\s+(?:error|loss)|"
    r"(?:loss|risk|error|failure|cost|waste|churn|bias)\s+(?:functions?|scores?|modes?|"
    r"ratios?|rates?|centres?|centers?|matri(?:x|ces)|models?|assessments?|analys[ie]s|"
    r"management|registers?|appetite|terms?|profiles?|categor(?:y|ies)|types?|"
    r"weighting|adjustment|pools?)|cost per \w+|yield loss|value at risk|at risk|"
    r"types of waste)\b",
    re.IGNORECASE,
)
# What makes a general statement worth telling after all: somebody's trouble, a
# figure, a limit ("Challenges in X include ...", "can be slow", "cannot ..."). A
# digit inside a name ("F1", "p99") is no figure.
_TROUBLE = re.compile(
    r"(?<![\w-])\d|%|\$|€|£|\b(?:not|no|never|without|nobody|none|rarely|cannot|can't|too|"
    r"challeng\w*|problems?|issues?|risks?|fail\w*|errors?|mistakes?|slow\w*|delay\w*|"
    r"late|costs?|costly|expensive|lost|loss\w*|los(?:e|es|ing)|wast\w*|miss\w*|manual\w*|"
    r"by hand|hard|difficult\w*|struggl\w*|bottlenecks?|backlogs?|outages?|breach\w*|"
    r"fines?|penalt\w*|complain\w*|churn\w*|scarce|scarcity|shortages?|limit\w*|bias\w*|"
    r"drift\w*|gaps?|inconsisten\w*|unreliab\w*|stale|overrun\w*|pressure|burden\w*|"
    r"overspen\w*|overpa(?:y|ys|id|ying)|tedious|error-prone|time-consuming|"
    r"labou?r-intensive|unless|only if|whereas|but|"
    r"yet|while|although|however)\b",
    re.IGNORECASE,
)


def is_textbook(text: str) -> bool:
    """A general statement of how a field works that puts nobody in trouble (see
    `_TEXTBOOK`): background the reader knows, not a fact for a cold email."""
    # Two general statements set side by side ("X measures A, while Y measures B")
    # are still two general statements.
    parts = _CONTRAST.split(text.strip())
    return all(_one_textbook(p) for p in parts)


def _one_textbook(text: str) -> bool:
    t = _FIELD_LEAD.sub("", text, count=1)
    m = _TEXTBOOK.match(t) or _THERE_ARE_KINDS.match(t)
    if m is None or _verb_before(t, m.start("verb") if "verb" in m.groupdict() else 0):
        return False
    # The trouble that counts is in the statement, not in the conditions under which a
    # technique applies ("..., especially where real data is scarce"), nor in a term
    # that only names a thing ("minimises a loss function").
    said = _HYPHENATED.sub(_keep_trouble_compound, _TERM.sub("", _CONDITION_TAIL.sub("", t)))
    if _TROUBLE.search(said):
        return False
    # A name in the subject ("Data sets generated by Pearls of Wisdom are used ..."):
    # a statement about somebody, not about the field.
    return _NAME_IN_SUBJECT.search(t, 1, m.end()) is None


_HYPHENATED = re.compile(r"\b\w+(?:-\w+)+\b")
_TROUBLE_COMPOUNDS = frozenset({"error-prone", "time-consuming", "labour-intensive",
                                "labor-intensive"})  # fmt: skip


def _keep_trouble_compound(m: re.Match[str]) -> str:
    """A hyphenated compound names a thing ("causes-of-loss forms", "non-core"), unless
    it is itself a complaint ("error-prone")."""
    return m.group(0) if m.group(0).lower() in _TROUBLE_COMPOUNDS else ""


def _verb_before(t: str, end: int) -> bool:
    """Whether the subject the pattern read holds a verb already ("Firms must collect
    ...", "Evaluating X requires tooling to collect ..."): then the describing verb it
    found is not the sentence's own."""
    words = [w.strip(",;:").lower() for w in t[:end].split()]
    if "such" in words or "including" in words:
        return True  # "Soft fraud, such as inflating a repair estimate": not the subject
    for i, w in enumerate(words):
        b = base_form(w)
        if w in AUX and w not in ("is", "are", "can", "be"):
            return True
        if b is not None and b != w and not w.endswith("ing") and i < len(words) - 1:
            # a third-person verb ("requires", "makes"); the word just before the
            # describing verb is the subject's own noun ("Access logs are ...")
            return True
    return False


_CONTRAST = re.compile(r",?\s+(?:while|whereas)\s+")
_CONDITION_TAIL = re.compile(
    r",?\s+(?:especially|particularly|notably)?\s*(?:when|where|whenever|if|in (?:cases|"
    r"scenarios|situations|settings) (?:with|where)|for (?:cases|scenarios|situations) "
    r"(?:with|where))\s.*$",
    re.IGNORECASE,
)


_NAME_IN_SUBJECT = re.compile(r"\b[A-Z][a-z]+")


# A convention of the field: what a term stands for, how a quantity is measured or
# expressed, what a standard size is ("CMYK stands for ...", "Diameter at breast height
# is measured 1.3 metres above the ground", "A standard parking stall is about 9 feet
# wide", "First-call resolution is the share of issues resolved on first contact").
# Its figures and its trouble words belong to the definition, so unlike a general
# statement it stays a lecture with them.
_CONVENTION = re.compile(
    r"^(?!(?:you|your|we|our|they|their|most|many|some|few|it|this|these|those)\b)"
    r"(?:the\s+|an?\s+)?[\w'-]+(?:,?\s+(?:and\s+|or\s+)?[\w'-]+){0,7}?,?\s+"
    r"(?P<verb>stands? for|refers? to|(?:is|are) (?:defined|known) as|(?:is|are) short for|"
    r"(?:is|are) (?:(?:usually|typically|commonly|generally|normally)\s+)?(?:measured|"
    r"expressed|calculated|quoted|graded|rated|classified|sized|reported) "
    r"(?:in|as|on|by|at|from|using|per|\d)|"
    r"(?:is|are) (?:(?:the|an?) )?[\w\s-]{0,40}? divided by|"
    r"(?:is|are) (?:the|an?) (?:(?:standard|basic|usual|common|main) )?(?:number|share|"
    r"percentage|proportion|ratio|fraction|total|sum|count|average|amount|unit|measure|"
    r"abbreviation|acronym) (?:of|for|that)\b)",
    re.IGNORECASE,
)
_STANDARD = re.compile(
    r"^(?:(?:an?|the) )?(?:standard|typical|regulation|full-size|full) [\w -]{2,40}?\b"
    r"(?:is|are|measures?|holds?|weighs?|runs?|consists? of|contains?)\s+(?:about\s+|roughly\s+)?"
    r"(?:\d|one|two|three|four|five|six|seven|eight|nine|ten|twelve)",
    re.IGNORECASE,
)


def is_convention(text: str) -> bool:
    t = _FIELD_LEAD.sub("", text.strip(), count=1)
    if _STANDARD.match(t):
        return True
    m = _CONVENTION.match(t)
    return (
        m is not None
        and not _verb_before(t, m.start("verb"))
        and _NAME_IN_SUBJECT.search(t, 1, m.start("verb")) is None
    )


def is_lecture(text: str) -> bool:
    """A definition, a convention or a textbook statement: to a reader in the field, a
    lecture."""
    # an abbreviation's expansion or an aside ("An intraoral scanner (IOS) is a ...")
    # is not part of the sentence's shape
    t = _ASIDE.sub("", text.strip())
    return is_definition(_FIELD_LEAD.sub("", t, count=1)) or is_convention(t) or is_textbook(t)


_ASIDE = re.compile(r"\s*\([^()]*\)")


@lru_cache(maxsize=65536)
def customer_fact(content: str, limit: int = 24, first: bool = False) -> Fact:
    """The node's clearest sentence for a customer, tangents and author's notes out,
    shortened to about `limit` words without losing a contrast or a cause. `first`:
    the first sentence wins unless it is unusable (a product's first sentence names
    it; a later one leans on it: "The cab unit alerts at the same time")."""
    best: tuple[float, str] | None = None
    defined = ""  # the term a definition before this sentence defined
    name = ""  # the product's name, from its first sentence's subject
    what_it_is = False  # the product's first sentence says what it is, not what it does
    what_it_does = ""  # its first "It flags ..." sentence, named
    for i, raw in enumerate(sentences(content)):
        kept = for_customer(raw)
        if kept is None:
            continue
        s = _clean(_AUTHOR_TAIL.sub("", kept.rstrip(".!? ")))
        n = len(s.split())
        if n < 4:
            continue
        if defined and len(_IT.findall(s)) == 1:
            # "Claim leakage is money paid out that ... . Industry studies estimate it at
            # 5 to 10%": "it" is the term defined, so the sentence stands alone.
            s = _named(s, defined)
        bare = _ASIDE.sub("", s)
        if not first and (m := _DEFINED.match(bare)) is not None and is_definition(bare):
            # "Vertical transportation (VT) is ...": the term; "A PMS is ...": with "a"
            defined = _term(m.group(2))
            if m.group(1) and m.group(1).strip().lower() in ("a", "an"):
                defined = f"the {defined}"
        if first and i == 0 and (m := _PRODUCT_NAME.match(s)) is not None:
            name = m.group(1)
        elif first and name and (m := _IT_DOES.match(s)) is not None:
            # "It flags developing door problems 3-10 days ahead": the product's own
            # "it", named, stands alone
            # named, it stands alone: "also" pointed back at the sentence before
            s = f"{name} {_THEN.sub('', s[m.end(1) :].lstrip())}"
            what_it_does = what_it_does or s
        if i > 0:
            # "FinCEN guidance also expects ...": "also" after the subject adds to a
            # sentence that may not be told (blind readers: "opens with a dangling
            # 'also'"); the fact stands without it
            s = drop_subject_also(s)
        if first and i > 0 and _ANAPHOR.match(s):
            # "It also re-ranks ...", unnamed: an email that never names what it sells
            # (blind readers, 1 of 5: "'It also' refers to nothing")
            continue
        # The first sentence usually states the fact; a later one qualifies it. A
        # full clause of a readable length beats a long one or a fragment.
        score = -(3.0 if first else 0.6) * i - max(0, n - limit) * 0.08
        score += 0.5 if has_finite_verb(s) else 0.0
        if _ANAPHOR.match(s) or (i > 0 and (_SHORT_VERDICT.match(s) or _SIMILAR.search(s))):
            # "It ranges from ..." needs the sentence before it; so do "Middle schools
            # run highest." and "... follow similar rules" (blind readers, round 15:
            # "an orphan fragment", "'similar rules' refers to nothing")
            score -= 1.0
        elif i > 0 and _POINTS_BACK.search(s):
            # "When that supervisor is out, ...", "Reconstructing that trail ...": "that"
            # names something only the sentence before it said (blind readers: "'that
            # supervisor' lacks an antecedent")
            score -= 2.0
        if not first and is_lecture(s):
            score -= 5.0  # a definition is never told: another sentence of the node may be
        if first and _GENERAL_OPENING.match(s):
            score -= 4.0  # "Efficiently evaluating X needs tooling": a platitude, no product
        elif first and _DOES.search(s):
            score += 1.0  # "Weave provides a feedback system ...": what the product does
        elif first and _SELF_DESCRIBED.match(s) and not _DOES_AFTER_KIND.search(s):
            # "LiftSense is a non-proprietary IoT sensor kit that mounts on ...": what
            # it is and how it is fitted, not what changes for the reader
            score -= 2.5
            what_it_is = what_it_is or i == 0
        if best is None or score > best[0]:
            best = (score, s)
    if best is None:
        return _EMPTY
    if (
        what_it_is
        and what_it_does
        and best[1] != what_it_does
        and not _DOES.search(best[1])
        and len(_cut(what_it_does, limit).split()) <= _LONGEST
    ):
        # what it does over what it is (blind readers: "never explains how monitoring
        # reduces return trips"), when it can be said in a sentence of readable length
        best = (best[0], what_it_does)
    t = _cut(best[1], limit)
    if len(t.split()) > _RUN_ON:
        t = _drop_last_item(t)
    if first and name and name.split()[0] not in t and has_finite_verb(t):
        # a later sentence of the product's that never names it ("Captured quantities
        # are reconciled ..."): told alone, the reader cannot tell what is sold
        # (blind readers, round 15: "product and company never named")
        t = f"With {name}, {_lower_first(t, content)}"
    if is_predicate(t):
        return Fact(t, "predicate")
    return Fact(t, "clause" if has_finite_verb(t) else "noun")


_IT = re.compile(r"\b[Ii]t\b(?!')")
_POINTS_BACK = re.compile(
    r"\b(?:when|if|once|until|since|because|after|before|with|without|of|for|in|on|at|"
    r"from|by|to|\w+ing)\s+(?:that|this|these|those)\s+"
    r"(?!is\b|are\b|was\b|were\b|will\b|can\b|would\b|could\b|may\b|might\b)[a-z]",
    re.IGNORECASE,
)
_LONGEST = 40  # words: a longer sentence reads as a run-on (the judge marks 45)
_RUN_ON = 45
# A short sentence that ends on a verdict compared with something unsaid
_SHORT_VERDICT = re.compile(r"^(?:\S+\s+){1,4}\S*(?:est|most|least|worst|best)$", re.IGNORECASE)
_SIMILAR = re.compile(
    r"\b(?:similar|the same|comparable)\s+(?:\w+\s+)?(?:rules|policies|requirements|"
    r"steps|measures|problems|issues|results|numbers|practices)\b",
    re.IGNORECASE,
)
_VERB_ITEM = re.compile(r", (?=([a-z]+s) (\w+))")
_OBJECT_START = wordset("them it the a an each every all its their your")


def _lower_first(t: str, content: str) -> str:
    """`t` with its first word in lower case, unless the content writes that word
    capitalised mid-sentence too (a name: "Esri", "GPS-tagged")."""
    word = t.split(" ", 1)[0]
    if not word[1:].islower() or re.search(rf"(?<=[a-z,] ){re.escape(word)}\b", content):
        return t
    return t[:1].lower() + t[1:]


def _drop_last_item(t: str) -> str:
    """A run-on that is a list of what something does ("... that pulls X, sequences Y,
    and recalculates Z"), less its last item, the two left joined by "and" ("...
    that pulls X and sequences Y"); unchanged when it is not such a list."""
    i = t.rfind(", and ")
    if i < 0:
        return t
    head = t[:i]
    items = [
        m
        for m in _VERB_ITEM.finditer(head)
        if ((b := base_form(m.group(1))) is not None and b != m.group(1))
        or m.group(2).lower() in _OBJECT_START
    ]
    if not items:
        return t
    m = items[-1]
    out = head[: m.start()] + " and " + head[m.end() :]
    return out if len(out.split()) >= 12 and has_finite_verb(out) else t


_PRODUCT_NAME = re.compile(
    r"^([A-Z][\w&.'+-]*(?:\s+(?:by|and|&|of|for|[A-Z0-9][\w&.'+-]*))*?)"
    r"\s+(?:is|are|has|have|[a-z]+s)\b"
)
_THEN = re.compile(r"^(?:also|then|now)\s+")
# "also" after a short subject ("FinCEN guidance also expects", "Insurers also raise")
_SUBJECT_ALSO = re.compile(r"^((?:[A-Za-z][\w'’-]*\s+){1,4})also\s+(?=[a-z])")


def drop_subject_also(s: str) -> str:
    """ "FinCEN guidance also expects ..." -> "FinCEN guidance expects ..."; "It is also
    common" keeps its "also" (after a verb, it is not the subject's)."""
    m = _SUBJECT_ALSO.match(s)
    if m is None or any(w.lower() in AUX for w in m.group(1).split()):
        return s
    return m.group(1) + s[m.end() :]


_IT_DOES = re.compile(r"^(It)\s+(?:also\s+|then\s+|now\s+)?[a-z][a-z-]*s\b")
# "... is an AI yard-planning layer that predicts each container's pickup date": what
# it is, then what it does for the reader; "... a sensor kit that mounts on the car
# top" says only how it is fitted.
_DOES_AFTER_KIND = re.compile(
    r"\b(?:that|which)\s+(?!(?:mounts?|installs?|connects?|integrates?|plugs?|sits?|"
    r"attaches?|clips?|runs? on|works? with|fits?|bolts?|is|are)\b)[a-z]+s\b"
)
_SELF_DESCRIBED = re.compile(r"^[A-Z][\w&.'+-]*(?:\s+\S+){0,4}?\s+(?:is|are)\s+an?\s")
_DEFINED = re.compile(r"^(an?\s+|the\s+)?(.+?)\s+(?:is|are|refers? to|means)\s", re.IGNORECASE)


def _named(sentence: str, term: str) -> str:
    """The sentence's one "it" replaced by the term it stands for."""
    m = _IT.search(sentence)
    assert m is not None
    told = term if m.group(0) == "it" else term[:1].upper() + term[1:]
    return sentence[: m.start()] + told + sentence[m.end() :]


def _term(words: str) -> str:
    """A defined term as it reads mid-sentence ("Claim leakage" -> "claim leakage";
    "NRW" and "Da Silva" keep their capitals)."""
    first, _, rest = words.partition(" ")
    low = first.lower() if first[1:].islower() else first
    return f"{low} {rest}".strip()


# What a product's customers got from it, in figures: "teams reach 80% recall after
# reviewing 20-30% of the collection", "carriers in pilots typically cut false-positive
# referrals by 30 to 50%". Blind readers name a concrete result as what lifts an email
# from sendable to good ("concrete 30-50% claim"); the email says it only when the
# graph does.
_OUTCOME_VERB = re.compile(
    r"\b(?:cut|cuts|cutting|reduc\w*|lower\w*|rais\w*|increas\w*|sav(?:e|es|ed|ing)|"
    r"reach\w*|halv\w*|doubl\w*|improv\w*|drop\w*|shorten\w*|fewer|faster|recover\w*|"
    r"boost\w*|gain\w*|fell|falls?|rose|rises?|instead of)\b",
    re.IGNORECASE,
)
_FIGURE = re.compile(r"\d|\bpercent\b|\b(?:a|one) (?:third|half|quarter)\b", re.IGNORECASE)


@lru_cache(maxsize=8192)
def product_outcome(content: str, limit: int = 30) -> str:
    """The product node's sentence of what its customers got, in figures (without
    its full stop), when a sentence after its first says one; "" otherwise."""
    for raw in sentences(content)[1:]:
        kept = for_customer(raw)
        if kept is None:
            continue
        s = _clean(_AUTHOR_TAIL.sub("", kept.rstrip(".!? ")))
        n = len(s.split())
        if not 6 <= n <= limit or _ANAPHOR.match(s) or not has_finite_verb(s):
            continue  # "It also drafts ...": leans on the sentence before it
        if _OUTCOME_VERB.search(s) and _FIGURE.search(s):
            return s
    return ""


# A product node's sentence about the field rather than the product ("Efficiently
# evaluating LLM applications requires robust tooling ..."): a gerund subject.
_GENERAL_OPENING = re.compile(r"^(?:[A-Z][a-z]+ly\s+[a-z]+ing|[A-Z][a-z]+ing)\s", re.ASCII)
_DOES = re.compile(
    r"\b(?:provides?|offers?|lets|allows?|gives?|enables?|helps?|flags?|scores?|routes?|"
    r"alerts?|tracks?|ranks?|checks?|records?|turns?|detects?|shows?|sends?)\b"
)


# A product named, then what it has, as a noun phrase ("Waffles and Bagels, featuring a
# UI for feedback", "Tagline, a platform for field crews"): the same claim as a clause.
_NAMED_NOUN = re.compile(
    r"^(?P<name>[A-Z][\w&.'+-]*(?:\s+(?:and|&|of|for|[A-Z0-9][\w&.'+-]*))*),\s+"
    r"(?P<rel>featuring|with|offering|including|providing|an?|the)\s+(?P<rest>\S.*)$"
)
_NAMED_VERB = {"featuring": "has", "with": "comes with", "offering": "offers",
               "including": "includes", "providing": "provides"}  # fmt: skip


def named_product(text: str, seller: str = "") -> tuple[str, str]:
    """A named product's noun phrase, as (clause, offered); both "" when it is not one.
    Named as the seller ("Tagline, a platform for X" from Tagline), or by any name when
    the seller is unknown, it is a clause that keeps the name ("Waffles and Bagels,
    featuring a UI for feedback" -> "Waffles and Bagels has a UI for feedback"). A
    name the sender's signature does not carry reads as someone else's product (a
    Weights & Biases rep pitching "Waffles and Bagels" baffled every blind reader):
    then only what is offered ("a UI for feedback"), for the seller to speak for."""
    m = _NAMED_NOUN.match(text.strip())
    if m is None or m.group("name").split()[-1] in _NAME_GLUE:
        return "", ""
    name, rel, rest = m.group("name"), m.group("rel"), m.group("rest")
    if seller and not (_name_words(name) & _name_words(seller)):
        return "", rest if rel not in ("a", "an", "the") else f"{rel} {rest}"
    return f"{name} {_NAMED_VERB.get(rel, f'is {rel}')} {rest}", ""


_NAME_GLUE = frozenset({"and", "&", "of", "for"})


def _name_words(name: str) -> set[str]:
    """A name's words, lower case, without its glue ("Pickwise Voice" ~ "Pickwise")."""
    return {w.lower() for w in re.findall(r"[A-Za-z0-9&]+", name)} - _NAME_GLUE


@lru_cache(maxsize=65536)
def reason_clause(rationale: str, limit: int = 22) -> str:
    """An edge rationale as a reason a customer reads ("" when it talks about the graph
    or the product's positioning, or is not a full clause)."""
    for s in sentences(rationale)[:2]:
        if is_meta(s) or _QUOTED.search(s):
            continue
        s = _clean(_AUTHOR_TAIL.sub("", s.rstrip(".!? ")))
        if len(s.split()) < 5 or not has_finite_verb(s):
            continue
        s = _cut(s, limit)
        if len(s.split()) <= int(limit * 1.4):
            return s
    return ""
