"""The realisation: a plan rendered into an email through the Jinja2 templates in
`templates/` (sentence frames in `sentences.j2`, the layout in `email.j2`).

Which wording a slot takes is a stable hash of the prospect, the walk and the
slot, so the same inputs give the same email and different prospects read
different sentences. Every rendered sentence passes the final check
(`check.py`): repaired when it can be, re-framed or dropped when it cannot.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import jinja2

from codreamer.agent.style import EmailStyle
from codreamer.agent.writer.check import problems, repair
from codreamer.agent.writer.grammar import wordset
from codreamer.agent.writer.notes import is_role, notes_told, prefers_formal
from codreamer.agent.writer.plan import Plan, Step, overlap, stems
from codreamer.agent.writer.subject import id_topic, shares_content_word, subject_topic
from codreamer.agent.writer.text import for_customer, named_product, sentences
from codreamer.agent.writer.voice import agree, plain
from codreamer.graph.memo import per_graph
from codreamer.models import FinalEmail, Scenario, Sender

if TYPE_CHECKING:
    from codreamer.graph.store import GraphStore

_ENV = jinja2.Environment(
    loader=jinja2.PackageLoader("codreamer.agent.writer", "templates"),
    autoescape=False,  # plain-text email; HTML escaping is the dashboard's job
    undefined=jinja2.StrictUndefined,
    trim_blocks=False,
    keep_trailing_newline=False,
)
_EMAIL = _ENV.get_template("email.j2")


_CYCLE = 840  # every option list has 2..8 wordings: v % 840 picks as v does


class _Frames:
    """The macros of sentences.j2, memoised as frames: a macro is rendered once per
    choice of wording with stand-ins for the facts (which only ever fill a slot),
    then the facts are put in. The templates stay the one source of wording, and a
    run's thousands of emails cost a dict lookup per sentence."""

    def __init__(self, module: Any) -> None:
        self._module = module
        self._memo: dict[tuple[Any, ...], str] = {}

    def __getattr__(self, name: str) -> Any:
        macro = getattr(self._module, name)
        memo = self._memo

        def call(*args: Any) -> str:
            slots: list[str] = []
            key_args: list[Any] = []
            for a in args:
                if isinstance(a, str) and " " in a:
                    key_args.append(f"\x00{len(slots)}\x00")
                    slots.append(a)
                elif isinstance(a, int) and not isinstance(a, bool):
                    key_args.append(a % _CYCLE)
                else:
                    key_args.append(a)
            key = (name, *key_args)
            frame = memo.get(key)
            if frame is None:
                if len(memo) >= 100_000:
                    memo.clear()
                frame = memo[key] = str(macro(*key_args))
            for i, text in enumerate(slots):
                frame = frame.replace(f"\x00{i}\x00", text)
            return frame

        self.__dict__[name] = call  # looked up once per name
        return call


_S: Any = _Frames(_ENV.get_template("sentences.j2").module)

# Prospect names that mean "no one in particular" (the neutral reader of a run on
# a graph of its own): greeted without a name.
NEUTRAL_NAMES = frozenset({"there", "reader", "colleague"})
_HONORIFICS = {"dr": "Dr.", "mr": "Mr", "mrs": "Mrs", "ms": "Ms", "mx": "Mx", "prof": "Professor"}
_SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv", "phd", "md", "esq", "cpa", "mba"})
_WS = re.compile(r"\s+")
_NOTES_BEAR = 2  # stems a notes sentence shares with the facts told, to be told
_SAID_BEFORE = 0.6  # share of a fact's stems an earlier sentence already holds: not told again
_NEEDS_BEFORE = re.compile(r"^(?:it|this|these|they|that|then|also)\b", re.IGNORECASE)
_GOAL_VERB = re.compile(
    r"^(?:secure|book|schedule|arrange|set\s+up|get|land|start|run|organi[sz]e|hold|plan|"
    r"propose|request|win|obtain|confirm|have)\s+(?=(?:a|an|the|one|two|three|\d)\b)",
    re.IGNORECASE,
)
_ALWAYS_LOWER = wordset(
    """
    a an the most many every each some any all no one two three several few without with
    during when while if once after before since because as in on at for from by to of
    there this these those it its you your our their
    """
)


@lru_cache(maxsize=65536)
def _hash(key: str, slot: str) -> int:
    return int.from_bytes(hashlib.blake2b(f"{key}|{slot}".encode(), digest_size=4).digest(), "big")


_MEETING = re.compile(
    r"^(?:a|an)\s+(?:(?P<n>\d+)-minute\s+)?(?P<kind>[\w-]+\s+)?(?P<what>call|demo|meeting|chat)\b"
    r"(?P<rest>.*)$",
    re.IGNORECASE,
)


def _an(phrase: str) -> str:
    """The phrase with its indefinite article: "an intro call", "a demo"."""
    return ("an " if phrase[:1].lower() in "aeiou" else "a ") + phrase


@lru_cache(maxsize=4096)
def goal_variants(obj: str) -> tuple[str, ...]:
    """Ways to say the goal's object that keep its facts (length, kind, audience):
    a goal shared by many prospects is not one stock phrase in every email."""
    m = _MEETING.match(obj)
    if not m:
        return (obj,)
    n, kind, what, rest = (
        m.group("n"),
        (m.group("kind") or "").strip(),
        m.group("what"),
        m.group("rest"),
    )
    out = [obj]
    kind_what = f"{kind} {what}" if kind else what
    if n:
        # "of ..." belongs to the kind ("a demo of video redaction"): never "a
        # conversation of video redaction" nor "a demo of 45 minutes of video ..."
        of_what = rest.lstrip().lower().startswith("of ")
        out += [
            f"{n} minutes on a {what}{rest}",
            f"a short {n}-minute {what}{rest}",
            *(
                [f"a {n}-minute conversation{rest}"]
                if what.lower() in ("call", "chat", "meeting") and not of_what
                else []
            ),
            f"{_an(kind_what)} ({n} minutes){rest}",
            *([f"a {what} of {n} minutes{rest}"] if not of_what else []),
            f"a quick {n}-minute {what}{rest}",
        ]
        if not rest.lstrip().startswith("for "):
            out.append(f"{n} minutes for {_an(kind_what)}{rest}")  # not "for a demo for the team"
        if what in ("call", "chat", "meeting") and not rest.strip():
            out.append(f"{n} minutes to talk it through{rest}")
    elif kind:
        out += [f"a short {kind_what}{rest}", f"a quick {kind_what}{rest}"]
    return tuple(dict.fromkeys(out))


# "Get agreement to a two-week pilot": what the reader is asked to agree to is the
# object ("Would you be open to a two-week pilot ...?"), not the agreement.
_AGREE_TO = re.compile(
    r"^(?:(?:get|secure|win|obtain|reach)\s+(?:(?:an?\s+)?agreement|a yes|sign-off|buy-in|"
    r"approval|(?:a\s+)?commitment|(?:a\s+)?go-ahead)\s+(?:to|for|on)|"
    r"(?:get\s+(?:them|him|her)\s+to\s+)?agree\s+(?:to|on))\s+"
    r"(?=(?:a|an|the|one|two|three|\d))",
    re.IGNORECASE,
)
# The goal speaks of the reader in the third person ("a meeting with her and the head
# of engineering"); the email speaks to them.
# "her"/"his" before a noun is theirs ("an introduction to her VP" -> "your VP"); "her"
# or "him" as an object is them ("a meeting with her and ..." -> "with you and ...")
_THEIR_OWN = re.compile(
    r"\b(?:his|her)\b(?=\s+(?!(?:and|or|to|at|for|with|in|on|about|before|after)\b)[A-Za-z])",
    re.IGNORECASE,
)
_THEM = re.compile(r"\b(?:her|him)\b", re.IGNORECASE)
_TIMED = re.compile(
    r"\b(?:before|by|next|this|within|ahead of|during|after|until|tomorrow|today|"
    r"monday|tuesday|wednesday|thursday|friday|january|february|march|april|may|june|"
    r"july|august|september|october|november|december|q[1-4])\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=4096)
def goal_object(goal: str) -> str:
    """'Secure a 20-minute discovery call' -> 'a 20-minute discovery call' ('' if no match)."""
    g = _WS.sub(" ", goal).strip().rstrip(".!?")
    m = _AGREE_TO.match(g) or _GOAL_VERB.match(g)
    return _THEM.sub("you", _THEIR_OWN.sub("your", g[m.end() :])) if m else ""


_C_TITLE = re.compile(r"\bchief (\w+) officer\b", re.IGNORECASE)
_THEIR_FIRM = re.compile(r"\bthe (?:company|firm|district|group|organi[sz]ation)['’]s\b")


def reader_in_goal(obj: str, title: str, name: str = "") -> str:
    """The goal's object with the reader in the second person: "a meeting with the CEO
    and CFO", sent to the CEO, is "a meeting with you and your CFO"; "the company's head
    of compliance" is "your head of compliance"; "a meeting with Mr. Castellanos and
    his VP", sent to Robert Castellanos, is "a meeting with you and your VP" (blind
    readers: "asks the CEO to meet the CEO", "as if we'd introduce him to his own
    colleague", "asks Mr. Castellanos for a meeting with Mr. Castellanos")."""
    if not obj:
        return obj
    obj = _THEIR_FIRM.sub("your", obj)
    # a goal is written about the reader: "before their March budget deadline" is theirs
    obj = re.sub(r"\btheir\b", "your", obj)
    words = re.findall(r"[A-Z][\w'’-]+", name or "")
    if words:
        forms = [
            rf"(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof)\.?\s+{re.escape(words[-1])}",
            re.escape(" ".join(words)),
        ]
        hit = re.search(rf"\b(?:{'|'.join(forms)})\b", obj)
        if hit:
            rest = re.sub(r"^(\s+and)\s+(?:his|her|their|the)\s+", r"\1 your ", obj[hit.end() :])
            return obj[: hit.start()] + "you" + rest
    names = {title.strip().lower()} if title.strip() else set()
    names |= {f"c{c.group(1)[0]}o".lower() for c in _C_TITLE.finditer(title)}
    names |= {w.lower() for w in re.findall(r"\b(C[A-Z]O)\b", title)}
    for name in sorted(names - {""}, key=len, reverse=True):
        owned = re.search(rf"\bthe {re.escape(name)}['’]s\b", obj, re.IGNORECASE)
        if owned:  # "a demo for the controller's office": "for your office"
            return obj[: owned.start()] + "your" + obj[owned.end() :]
        hit = re.search(rf"\bthe {re.escape(name)}\b", obj, re.IGNORECASE)
        if hit:
            rest = obj[hit.end() :]
            # "with you and the CFO": the others named after the reader are theirs
            rest = re.sub(r"^(\s+and)\s+(?:the\s+)?(?=[A-Za-z])", r"\1 your ", rest)
            return obj[: hit.start()] + "you" + rest
    return obj


def timed(obj: str) -> bool:
    """Whether the ask may add when ("next Tuesday or Wednesday"): a meeting whose goal
    names no time of its own ("a call before the October renewal" has one)."""
    return bool(_MEETING.match(obj)) and not _TIMED.search(obj)


_WORD = re.compile(r"(?<![\w@./])[A-Za-z][\w'-]*(?![\w@]|\.\w)")


def _bare(word: str) -> str:
    """The word without the punctuation around it and a possessive "'s"."""
    w = word.strip(",.;:!?'\"()")
    return w[:-2] if w.endswith(("'s", "’s")) else w


def _common_shape(word: str) -> bool:
    """An adverb, a participle or a gerund is never a name ("Efficiently", "Rushed")."""
    return word.endswith(("ly", "ing", "ed")) and len(word) > 4


class Vocabulary:
    """What the graph's own text says about case: a word seen in lower case is a
    common word (safe to lower-case after a lead-in); one only ever capitalised is a
    name (kept as written, and never flagged by the check)."""

    def __init__(self, texts: list[str], names: list[str]) -> None:
        lower: set[str] = set()
        caps: set[str] = set()
        for t in texts:
            # not inside an address or a domain ("reviewly.io" is still Reviewly)
            found = list(_WORD.finditer(t))
            lower.update(m.group() for m in found if m.group()[0].islower())
            for m in found[1:]:
                w = m.group()
                # capitalised where no sentence starts ("volume. Front-desk" is a start)
                if w[0].isupper() and not t[: m.start()].rstrip().endswith((".", "!", "?", ":")):
                    caps.add(w.removesuffix("'s"))
        self.lower = frozenset(w.lower() for w in lower)
        self.caps = frozenset(caps)
        self._proper: dict[str, bool] = {}
        self._with_names: dict[tuple[str, ...], Vocabulary] = {}
        self.checked: dict[str, str] = {}  # sentence -> repaired, or "" when broken
        self.plans: dict[tuple[tuple[str, ...], int, str, str], Plan] = {}  # per graph
        self.names = frozenset(w for n in names for w in n.split() if w)

    def proper(self, word: str) -> bool:
        hit = self._proper.get(word)
        if hit is None:
            hit = self._proper[word] = self._is_proper(word)
        return hit

    def _is_proper(self, word: str) -> bool:
        if self.known_name(word):
            return True
        low = _bare(word).lower()
        if "-" in low.strip("-") and not self._common(low):
            # "Front-desk" opening the notes: a compound of common words is common
            parts = [x for x in low.split("-") if x]
            return not all(self._common(x) for x in parts)
        return not self._common(low)

    def _common(self, low: str) -> bool:
        return low in self.lower or low in _ALWAYS_LOWER or _common_shape(low)

    def known_name(self, word: str) -> bool:
        """A name by its own shape or the graph's say-so (an acronym, "McKinsey", a
        person's name, a word capitalised mid-sentence in the graph), not merely a
        word the graph never wrote in lower case."""
        w = _bare(word)
        return (
            w in self.names
            or w in self.caps  # capitalised mid-sentence somewhere in the graph
            or (len(w) > 1 and (w.isupper() or any(c.isupper() for c in w[1:])))
        )

    def for_names(self, names: list[str]) -> Vocabulary:
        """This graph's vocabulary with the names of one email's people and companies
        (memoised: a run writes to the same few prospects over and over)."""
        key = tuple(names)
        hit = self._with_names.get(key)
        if hit is None:
            if len(self._with_names) >= 1024:
                self._with_names.clear()
            hit = Vocabulary([], names)
            hit.lower, hit.caps = self.lower, self.caps
            self._with_names[key] = hit
        return hit

    def lowered(self, sentence: str) -> str:
        """The sentence with its first word in lower case, or "" when it is a name."""
        first = sentence.split(" ", 1)[0]
        if not first or self.proper(first):
            return ""
        return sentence[0].lower() + sentence[1:]


@per_graph
def graph_facts(store: GraphStore) -> tuple[Vocabulary, frozenset[str]]:
    """Per graph, once: its vocabulary, and the rationales it repeats on three or more
    edges (boilerplate such as "the next problem follows", not a reason)."""
    texts: list[str] = []
    counts: dict[str, int] = {}
    for nid, node in store.nodes.items():
        texts.append(node.content)
        for nb in store.out_neighbours(nid):
            r = nb.rationale.strip()
            texts.append(r)
            counts[r] = counts.get(r, 0) + 1
    vocab = Vocabulary(texts, [])
    repeated = frozenset(r for r, c in counts.items() if c >= 3)
    return vocab, repeated


def _greeting_name(name: str, formal: bool, notes: str = "") -> str:
    """First name; formally, title and surname when the name carries a title, or when
    the seller's notes call the reader by one ("Mr. Castellano leads ..."): a
    stranger's gender is never guessed, so no title is made up (and "Dear Richard
    Castellano" reads stiff to readers). A suffix ("III", "Jr.") is never a name."""
    words = [w for w in name.split() if w.rstrip(".,").lower() not in _SUFFIXES]
    if not words:
        return name
    if formal and len(words) > 1 and words[0].rstrip(".").lower() not in _HONORIFICS:
        called = re.search(rf"\b(Mr|Mrs|Ms|Mx|Dr|Prof)\.?\s+{re.escape(words[-1])}\b", notes or "")
        if called:
            return f"{_HONORIFICS[called.group(1).lower()]} {words[-1]}"
    title = _HONORIFICS.get(words[0].rstrip(".").lower())
    if title and len(words) > 1:
        return (
            f"{title} {words[-1]}"
            if formal
            else (words[1] if len(words) > 2 else f"{title} {words[-1]}")
        )
    return words[0]


class Realiser:
    """Renders one plan; holds what every sentence needs (names, hash key, vocabulary)."""

    def __init__(
        self,
        store: GraphStore,
        path: list[str],
        scenario: Scenario,
        style: EmailStyle,
        sender: Sender,
        vocab: Vocabulary,
    ) -> None:
        p = scenario.prospect
        self.store, self.path, self.scenario, self.style, self.sender = (
            store,
            path,
            scenario,
            style,
            sender,
        )
        self.neutral = p.first_name.lower() in NEUTRAL_NAMES
        self.company = (p.company or "").strip()
        self.seller = (sender.company or "").strip()
        self.key = f"{p.name}|{self.company}|{'/'.join(path)}|{style}"
        names = [p.name, self.company, sender.name, self.seller]
        self.vocab = vocab.for_names(names)
        # notes that ask for formal address overrule the style's register
        self.formal = style.formal or prefers_formal(scenario.prospect.notes or "")

    def v(self, slot: str) -> int:
        return _hash(self.key, slot)

    def proper(self, word: str) -> bool:
        return self.vocab.proper(word)

    def _ok(self, sentence: str) -> str:
        """The sentence repaired, or "" when it is still broken."""
        memo = self.vocab.checked
        hit = memo.get(sentence)
        if hit is None:
            s = repair(sentence, self.proper)
            hit = memo[sentence] = "" if problems(s, self.proper) else s
        return hit

    def _forms(self, text: str) -> tuple[str, str]:
        text = text.strip().rstrip(".")
        cap = text[:1].upper() + text[1:]
        return self.vocab.lowered(cap), cap

    def step_sentence(self, step: Step) -> str:
        """A fact as its own sentence: no stock lead-in, no connective the graph does
        not support (the order of the facts carries the argument)."""
        _, cap = self._forms(step.fact.text)
        return self._ok(cap + ".")

    def notes_sentences(self, plan: Plan) -> list[str]:
        """What the seller knows of the reader, told to them: the one notes sentence
        that bears most on the facts told. One hook, not a dossier: never a sentence
        that only says who the reader is (`notes.is_role`), nor one that leans on the
        sentence before it ("This ...") when that one is not told."""
        told = notes_told(self.scenario.prospect.notes or "", self.scenario.prospect.name)
        if not told:
            return []
        facts = " ".join(
            [st.fact.text for st in plan.steps]
            + ([plan.change.fact.text] if plan.change is not None else [])
            # the walk's problems the email cites but does not spell out (a product
            # that answers "rubrics for reviewers" bears on notes about a rubric)
            + [self.store.content(n) for n in self.path[1:-1] if n in self.store]
        )
        want = stems(facts)
        fit = [
            i
            for i, t in enumerate(told)
            if not is_role(t) and (i == 0 or not _NEEDS_BEFORE.match(t))
        ]
        scores = {i: len(stems(told[i]) & want) for i in fit}
        if not scores or max(scores.values()) < _NOTES_BEAR:
            # notes the facts do not bear on are not told: an incident named and then
            # left for another topic reads worse than a plain email, and echoing them
            # would make every walk look relevant to the judge that trains the policy
            return []
        t = told[max(scores, key=lambda i: (scores[i], -i))]
        # the reader's own situation, owned as what the seller heard; a sentence that
        # cannot take the lead-in is not told bare
        low = "y" + t[1:] if t.startswith(("You ", "Your ")) else self.vocab.lowered(t)
        if not low and self.vocab.known_name(t.split(" ", 1)[0]):
            low = t  # "I understand EMR rose ...": a name stays as written
        s = self._ok(str(_S.notes_opening(self.v("notes"), low, t)))
        return [s] if s else []

    def product_sentence(self, ch: Step) -> str:
        if not ch.fact.ok:
            return ""
        f, cap = self._forms(ch.fact.text)
        seller = self.seller
        brand = seller.split(" ", 1)[0] if seller else ""
        named = bool(brand) and brand in " ".join(cap.split()[:4])
        first = cap.split(" ", 1)[0]
        if ch.fact.kind == "noun" and not named and not self.proper(first):
            options = [_S.product_noun(self.v("product"), f or cap), cap + "."]
        elif named or not f:
            options = [cap + "."]
        else:
            options = [_S.product_clause(self.v("product"), f, cap, seller), cap + "."]
        if ch.fact.kind == "noun":
            clause, offered = named_product(cap, seller)
            if clause:  # a sentence before a noun phrase
                options.insert(0, clause + ".")
            elif offered:  # the seller speaks for a product named otherwise
                options.insert(0, str(_S.product_noun(0, offered)))
        for c in options:
            out = self._ok(str(c))
            if out:
                return out
        return ""

    def render(self, plan: Plan) -> FinalEmail:
        paras: list[str] = []
        notes = self.notes_sentences(plan)
        if notes:
            paras.append(" ".join(notes))
        facts = _not_said_before(
            [x for x in (self.step_sentence(st) for st in plan.steps) if x], notes
        )
        if facts:
            paras.append(" ".join(facts))
        if plan.change is not None:
            prod = self.product_sentence(plan.change)
            proof = self._ok(self._forms(plan.change.reason)[1] + ".") if plan.change.reason else ""
            text = " ".join(x for x in (prod, proof) if x)
            if not text:  # never an email that is only the ask
                text = self._fallback_product(plan.change.node)
            if text:
                paras.append(text)
        if not paras:
            paras.append(str(_S.no_product(self.v("noproduct"))))
        paras.append(self.ask())
        p = self.scenario.prospect
        body = _EMAIL.render(
            greeting=str(
                _S.greeting(
                    self.formal,
                    self.v("greet"),
                    _greeting_name(p.name, self.formal, p.notes or ""),
                    self.neutral,
                )
            ),
            paragraphs=paras,
            signoff=str(_S.signoff(self.formal, self.v("signoff"))),
            signature=self.sender.signature(),
        )
        return FinalEmail(subject=self.subject(plan), body=body, citations=list(self.path))

    def _fallback_product(self, node: str) -> str:
        """Any whole sentence of the product's text that passes the check, as written."""
        for raw in sentences(self.store.content(node)):
            sent = for_customer(raw)
            if sent is None:
                continue  # a note for the graph's author, never for the customer
            s = self._ok(agree(plain(sent.rstrip(".!? "))) + ".")
            if s and not _NEEDS_BEFORE.match(s):
                return s
        return ""

    def ask(self) -> str:
        goal = _WS.sub(" ", self.scenario.goal).strip().rstrip(".!?")
        p = self.scenario.prospect
        obj = reader_in_goal(goal_object(goal), p.title or "", p.name or "")
        if obj:
            options = goal_variants(obj)
            obj = options[self.v("goal") % len(options)]
        g = goal[:1].lower() + goal[1:] if goal else "find a time to talk"
        # a direct ask books a meeting; a trial or an introduction is offered
        direct = self.style.ask == 1 and bool(_MEETING.match(obj))
        return str(_S.ask(direct, self.formal, self.v("ask"), self.v("when"), obj, g, timed(obj)))

    def subject(self, plan: Plan) -> str:
        p = self.scenario.prospect
        topic = subject_topic(
            self.store,
            plan.topic_node,
            [s.node for s in plan.steps] or ([plan.change.node] if plan.change else []),
            p.notes or "",
            # A walk none of whose facts is told (each a lecture, say) may name its
            # topic only when the body speaks of it: a subject about a fact the body
            # never mentions misleads (blind readers, panel Y: "subject about
            # precision/recall, body is just one product line").
            self.path if plan.steps else _spoken_of(self.path, plan),
        )
        company = "" if self.neutral else self.company
        cap = topic[:1].upper() + topic[1:]
        q = self.style.subject == 1
        s = str(_S.subject(q, self.v("subject"), topic, cap, company))
        if len(s.split()) > 9:  # a long company name: keep the topic
            s = str(_S.subject(q, 0, topic, cap, ""))
        return s


def _spoken_of(path: tuple[str, ...] | list[str], plan: Plan) -> tuple[str, ...]:
    """The walk's nodes whose topic shares a content word with what the email tells."""
    told = plan.change.fact.text if plan.change else ""
    return tuple(n for n in path if shares_content_word(id_topic(n), told))


def _not_said_before(facts: list[str], earlier: list[str]) -> list[str]:
    """The facts less any that says again what an earlier sentence said: the notes and
    a node often state the same need, and readers mark a point made twice."""
    seen = [stems(t) for t in earlier]
    out = []
    for f in facts:
        s = stems(f)
        if len(s) >= 4 and any(overlap(s, o) >= _SAID_BEFORE for o in seen):
            continue
        seen.append(s)
        out.append(f)
    return out
