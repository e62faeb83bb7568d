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


def wordset(text: str) -> frozenset[str]:
    """A set of words written as one string (long lists stay readable)."""
    return frozenset(text.split())


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
    r"\bbuyers?\b|\buseful for [\w-]+ (?:buyers|readers|prospects|leaders)|\blead with\b|"
    r"worth mentioning|selling point|value prop|\bprospects?\b|\bthe reader\b)",
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
_BOUNDARY = re.compile(r",\s|;\s|\s—\s|\s(?=(?:and|which|so|while|because|but|including)\s)")
_EXAMPLES_TAIL = re.compile(r",?\s+(?:including|such as|e\.g\.|for example)\s[^;]*$", re.I)

# --- verbs: enough English to tell a clause from a noun phrase ----------------------
_AUX = wordset(
    """
    is are was were be been am has have had can could will would must may might shall
    should does do did isn't aren't wasn't weren't can't cannot won't doesn't don't
    didn't hasn't haven't
    """
)
VERBS = wordset(
    """
    accelerate accept account achieve act add address adjust affect aggregate align
    allow alert analyse analyze answer appear apply arrive ask assess assign attract
    audit automate avoid balance become begin block boost break bring build buy
    calculate call capture carry catch cause change charge check choose claim clean
    close collect combine come compare complain complete comply compute connect consume
    contain continue control convert cost count cover create cut deal decide decline
    define delay deliver demand depend deploy describe design detect determine develop
    differ discover drift drive drop earn ease eliminate enable encourage end enforce
    ensure enter erase escalate estimate evaluate exceed expand expect expose face fail
    fall feed feel fill find fit fix flag follow force forget form frustrate gain
    generate get give go grow guarantee handle happen help hide hire hit hold identify
    ignore improve include increase inflate inform involve keep know lack last lead
    learn leave let limit link lose make manage match matter measure meet mimic miss
    monitor move need notice occur offer open operate outpace own pay perform pile plan
    predict prefer prepare prevent produce protect prove provide push raise reach read
    receive reduce rely remain remove repeat replace report require reserve resolve
    respond restrict result return reveal rise risk run save scale see sell send serve
    set share shift show shrink sit slip slow solve spend spread stack stand start stay
    stem stop store streamline struggle submit suffer supply support take tell tend test
    think track trace train trigger turn undermine understand use validate vary verify
    wait want waste watch wear work worsen write rank retrain flag route draft document
    review schedule stage waive list justify log sign forecast price book cancel inspect
    permit pick leak repair signal slip ship load unload tag scan sort count print email
    post notify escalate absorb cascade compound drag erode hurt lag outgrow overrun pay
    penalise penalize recur refund reject renew resell retain skip spike stall strain
    surface tie undercut breach default churn expire lapse overbook overlook underprice
    burn bill file audit request respond reply answer upgrade downgrade onboard
    integrate sync export import label fill reconcile approve assign dispatch forward
    queue prioritise prioritize triage match learn explain own
    """
)
_IRREGULAR_3SG = {"has": "have", "does": "do", "goes": "go", "is": "be"}
_RELATIVE = frozenset({"that", "which", "who", "whom", "whose", "where", "when", "to"})
_DETERMINERS = wordset(
    """
    a an the its their our your his her this that these those some many every each of
    for with by on in at from any no more most less fewer own
    """
)
_ADVERB = re.compile(
    r"^(?:often|usually|still|also|never|always|typically|commonly|rarely|"
    r"sometimes|only|already|frequently|quickly|slowly|\w+ly)$"
)
_PRONOUN_SUBJ = frozenset({"they", "we", "you", "i", "teams", "people"})


def _base(word: str) -> str | None:
    """The base form if `word` is a present-tense form of a known verb."""
    w = word.lower()
    if w in _IRREGULAR_3SG:
        return _IRREGULAR_3SG[w]
    if w in VERBS:
        return w
    for suf, add in (("ies", "y"), ("es", ""), ("s", "")):
        if w.endswith(suf) and (w[: -len(suf)] + add) in VERBS:
            return w[: -len(suf)] + add
    return None


def _words(text: str) -> list[str]:
    return [w.strip(",.;:!?()\"'") for w in text.split()]


@lru_cache(maxsize=65536)
def has_finite_verb(text: str) -> bool:
    """Whether a sentence has a finite verb outside a relative clause: a heuristic
    that tells "Refrigeration units fail from worn compressors" (a clause) from
    "Methods used to increase the size of a data set" (a noun phrase)."""
    words = _words(text)
    lows = [w.lower() for w in words]
    for i, w in enumerate(lows):
        if not w:
            continue
        j = i - 1
        while j >= 0 and _ADVERB.match(lows[j] or "x"):
            j -= 1
        prev = lows[j] if j >= 0 else ""
        if prev in _RELATIVE:
            continue
        if w in _AUX:
            return True
        if (
            i >= 1
            and words[i - 1][:1].isupper()
            and w.endswith("s")
            and not w.endswith(("ss", "us", "is", "ics"))
            and i + 1 < len(lows)
            and lows[i + 1] in _DETERMINERS | {"every", "each", "all"}
        ):
            return True  # a name and a verb: "Brieflane ranks every document"
        base = _base(w)
        if base is None or prev in _DETERMINERS or i == 0:
            continue
        if w != base:  # a third-person form after a subject
            return True
        if prev.endswith("s") or prev in _PRONOUN_SUBJ:  # base form after a plural subject
            return True
    return False


def is_predicate(text: str) -> bool:
    """A subject-less third-person predicate: "Validates data quality by ..."."""
    words = _words(text)
    if len(words) < 2:
        return False
    first, second = words[0].lower(), words[1].lower()
    return first != _base(first) and _base(first) is not None and second not in _AUX


def is_meta(sentence: str) -> bool:
    return bool(META.search(sentence) or _QUOTED.search(sentence))


def _clean(text: str) -> str:
    t = _WS.sub(" ", text).strip()
    t = _TANGENT.sub("", t).strip()
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


def _cut(text: str, limit: int) -> str:
    """About `limit` words, cut only at a clause boundary and never just before a
    contrast or a cause ("while popular ones run short" is the point)."""
    if len(text.split()) <= limit:
        return text
    t = _EXAMPLES_TAIL.sub("", text)  # examples go first: they are not the point
    if len(t.split()) <= limit and len(t.split()) >= 10:
        return t
    if len(t.split()) < 10:
        t = text
    ok: list[int] = []
    for m in _BOUNDARY.finditer(t):
        rest = t[m.end() :].lstrip()
        if _KEEP_AFTER.match(rest):
            continue
        head = t[: m.start()]
        before = head.rsplit(",", 1)
        if t[m.start()] == "," and len(before) == 2 and len(before[1].split()) <= 3:
            continue  # inside a list ("collection, preprocessing, training")
        if re.match(r"^(?:and|or)\s+\w+(?:,|\s(?:and|or)\s)", rest):
            continue
        if t[m.start()] == "," and re.match(r"^\S+(?:\s+\S+){0,2}?(?:,|\s(?:and|or)\s)", rest):
            continue  # a list goes on after this item
        if rest.startswith(("and ", "or ")):
            # "and reliability of AI models" ends a noun phrase; only a new clause may go
            nxt = _BOUNDARY.search(rest[4:])
            if not has_finite_verb(rest[4 : 4 + nxt.start()] if nxt else rest[4:]):
                continue
        n = len(head.split())
        if 6 <= n <= limit and has_finite_verb(head) == has_finite_verb(t):
            ok.append(m.start())
    return t[: ok[-1]] if ok else t


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


@lru_cache(maxsize=65536)
def customer_fact(content: str, limit: int = 24) -> Fact:
    """The node's clearest sentence for a customer, tangents and author's notes out,
    shortened to about `limit` words without losing a contrast or a cause."""
    best: tuple[float, str] | None = None
    for i, s in enumerate(sentences(content)):
        if is_meta(s):
            continue
        s = _clean(_AUTHOR_TAIL.sub("", s.rstrip(".!? ")))
        n = len(s.split())
        if n < 4:
            continue
        # The first sentence usually states the fact; a later one qualifies it. A
        # full clause of a readable length beats a long one or a fragment.
        score = -0.6 * i - max(0, n - limit) * 0.08 + (0.5 if has_finite_verb(s) else 0.0)
        if best is None or score > best[0]:
            best = (score, s)
    if best is None:
        return _EMPTY
    t = _cut(best[1], limit)
    if is_predicate(t):
        return Fact(t, "predicate")
    return Fact(t, "clause" if has_finite_verb(t) else "noun")


@lru_cache(maxsize=65536)
def reason_clause(rationale: str, limit: int = 22) -> str:
    """An edge rationale as a reason a customer reads ("" when it talks about the graph
    or the product's positioning, or is not a full clause)."""
    for s in sentences(rationale)[:2]:
        if is_meta(s):
            continue
        s = _clean(_AUTHOR_TAIL.sub("", s.rstrip(".!? ")))
        if len(s.split()) < 5 or not has_finite_verb(s):
            continue
        s = _cut(s, limit)
        if len(s.split()) <= int(limit * 1.4):
            return s
    return ""


# --- the reader's situation ---------------------------------------------------------
_GENERIC_CLASS = ("companies", "company", "organisations", "organizations", "businesses",
                  "firms", "teams")  # fmt: skip
_SUBJECT_HEAD = re.compile(r"^(?:[A-Z][\w-]*\s+|[a-z][\w-]*\s+){0,3}?([a-z][\w-]*s)\b")


@lru_cache(maxsize=4096)
def customer_class(job: str) -> tuple[str, ...]:
    """The plural nouns a graph uses for its customers, from the Customer Job's
    subject ("Regional food distributors move ..." -> ("distributors", ...))."""
    out = list(_GENERIC_CLASS)
    m = _SUBJECT_HEAD.match(_WS.sub(" ", job).strip())
    if m and _base(m.group(1)) is None:
        out.insert(0, m.group(1).lower())
    return tuple(out)


def _singular(plural: str) -> str:
    if plural.endswith("ies"):
        return plural[:-3] + "y"
    return plural[:-1]


_SUBJ_NEXT = wordset(
    """
    must can need needs have has are is still often usually typically run rely struggle
    face depend to will should may cannot
    """
)
_NOT_MODIFIER = _DETERMINERS | _RELATIVE | frozenset({"and", "or", "but", "than", "as"})


def _you(words: list[str], i: int, plural: bool) -> list[str] | None:
    """Replace the noun phrase ending at words[i] (a customer class noun) by the reader."""
    nxt = words[i + 1].lower() if i + 1 < len(words) else ""
    if nxt not in _SUBJ_NEXT and not (not plural and nxt != _base(nxt) and _base(nxt)):
        return None
    j = i
    # adjectives before the noun ("regional food distributors"), never a verb
    while j > 0:
        w = words[j - 1].lower().strip(",")
        if words[j - 1].endswith(",") or w in _NOT_MODIFIER or _base(w) or w in _AUX:
            break
        j -= 1
    if j > 0 and words[j - 1].lower() in ("a", "an", "the", "each", "every", "many", "most"):
        j -= 1
    if not plural and (j == i or words[j].lower() not in ("a", "an", "the", "each", "every")):
        return None
    who = "you" if plural else "your team"
    return words[:j] + [who] + words[i + 1 :]


@lru_cache(maxsize=65536)
def to_reader(text: str, classes: tuple[str, ...]) -> str:
    """Tell a fact about the product's customers to one of them: "Distributors must
    prove ..." -> "you must prove ...", "a distributor has to name" -> "your team has
    to name". Only the customers' own class nouns are replaced; nothing is added."""
    words = text.split()
    for i, w in enumerate(words):
        low = w.lower()
        for plural in classes:
            if low == plural or low == _singular(plural):
                out = _you(words, i, low == plural)
                if out is not None:
                    t = " ".join(out)
                    if low == plural:
                        t = re.sub(r"\btheir\b", "your", t, count=1)
                    return t
    return text


# Plain words for wordy ones: a paraphrase a reader prefers, and less of the graph's
# wording copied verbatim.
_PLAIN = tuple(
    (re.compile(rf"(?<!\w){a}(?!\w)", re.IGNORECASE), b)
    for a, b in (
        ("in order to", "to"),
        ("a large share of", "many of"),
        ("a large number of", "many"),
        ("a number of", "several"),
        ("is able to", "can"),
        ("are able to", "can"),
        ("approximately", "about"),
        ("utili[sz]ed", "used"),
        ("utili[sz]es", "uses"),
        ("utili[sz]e", "use"),
        ("prior to", "before"),
        ("as soon as", "the moment"),
        ("every day", "daily"),
        ("commonly", "typically"),
        ("in addition to", "besides"),
        ("a variety of", "many"),
        ("various", "many"),
        ("significantly", "markedly"),
        ("numerous", "many"),
        ("additionally", "also"),
        ("assists", "helps"),
        ("assist", "help"),
        ("obtain", "get"),
        ("purchase", "buy"),
        ("sufficient", "enough"),
        ("individuals", "people"),
        ("methodologies", "methods"),
        ("usually", "typically"),
        ("often", "frequently"),
        ("every", "each"),
        ("quickly", "fast"),
        ("discovered", "found"),
        ("a single", "one"),
        ("several", "a number of"),
        ("many of", "a lot of"),
        ("important", "significant"),
        ("difficult", "hard"),
        ("has to", "must"),
        ("have to", "must"),
        ("needs to", "has to"),
        ("need to", "have to"),
        ("don't", "do not"),
        ("doesn't", "does not"),
        ("isn't", "is not"),
        ("aren't", "are not"),
        ("can't", "cannot"),
        ("won't", "will not"),
        ("because", "since"),
        (", but", ", yet"),
        (", while", ", whereas"),
        (", so", ", which means"),
        ("reduces", "cuts"),
        ("reduce", "cut"),
        ("begins", "starts"),
        ("problems", "issues"),
        ("problem", "issue"),
        ("requires", "needs"),
        ("require", "need"),
        ("provides", "gives"),
        ("receives", "gets"),
        ("receive", "get"),
        ("nearly", "almost"),
        ("roughly", "about"),
        ("entire", "whole"),
        ("additional", "extra"),
        ("rapidly", "fast"),
        ("immediately", "at once"),
        ("currently", "today"),
        ("customers", "clients"),
        ("large", "big"),
    )
)


_PLAIN_ONE = re.compile("|".join(f"(?:{p.pattern})" for p, _ in _PLAIN), re.IGNORECASE)


def _swap(m: re.Match[str]) -> str:
    hit = m.group(0)
    for pat, repl in _PLAIN:
        if pat.fullmatch(hit):
            return repl[:1].upper() + repl[1:] if hit[:1].isupper() else repl
    return hit


@lru_cache(maxsize=65536)
def plain(text: str) -> str:
    """Plain words for wordy ones, and one-word swaps that keep the meaning: the
    reader gets a paraphrase, not the graph's sentence pasted."""
    return _PLAIN_ONE.sub(_swap, text)


_IRREGULAR_BASE = {"has": "have", "does": "do", "goes": "go", "is": "are", "was": "were"}


@lru_cache(maxsize=65536)
def you_form(predicate: str) -> str:
    """A subject-less third-person predicate told to the reader: "validates X and
    defines Y" -> "validate X and define Y" ("" when a verb's base form is unknown)."""
    words = predicate.split()

    def base(w: str) -> str | None:
        low = w.lower()
        if low in _IRREGULAR_BASE:
            return _IRREGULAR_BASE[low]
        b = _base(low)
        return b if b and b != low else None

    first = base(words[0])
    if first is None:
        return ""
    words[0] = first
    # "defines and manages": the coordinated verb too
    if len(words) > 2 and words[1].lower() in ("and", "or"):
        second = base(words[2])
        if second is not None:
            words[2] = second
    return " ".join(words)


_NAME_VERB = re.compile(r"^(?P<name>[A-Z][\w&-]*(?:\s[A-Z][\w&-]*){0,2})\s(?P<rest>[a-z].*)$")
_NAME_POSS = re.compile(r"^(?P<name>[A-Z][\w&-]*(?:\s[A-Z][\w&-]*){0,2})['’]s\s(?P<rest>[a-z].*)$")


@lru_cache(maxsize=65536)
def seller_voice(text: str) -> str:
    """The product's fact in the seller's voice: "Brieflane flags X" -> "with Brieflane,
    we flag X"; "Frostline's probes record X" -> "at Frostline, our probes record X"
    ("" when the fact does not open on the product's name)."""
    m = _NAME_POSS.match(text)
    if m and has_finite_verb(m.group("rest")):
        return f"at {m.group('name')}, our {m.group('rest')}"
    m = _NAME_VERB.match(text)
    if m and is_predicate(m.group("rest")):
        told = you_form(m.group("rest"))
        if told:
            return f"with {m.group('name')}, we {told}"
    return ""
