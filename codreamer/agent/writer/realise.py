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
from codreamer.agent.writer.conventions import (
    goal_object,
    goal_variants,
    greeting_name,
    role_title,
)
from codreamer.agent.writer.notes import notes_reference, notes_told
from codreamer.agent.writer.plan import Plan, Step, stems
from codreamer.agent.writer.subject import subject_topic
from codreamer.agent.writer.text import sentences
from codreamer.agent.writer.vocabulary import Vocabulary, notes_caps
from codreamer.agent.writer.voice import agree, plain
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
_WS = re.compile(r"\s+")
_NOTES_BEAR = 2  # stems a notes sentence shares with the facts told, to be told
# a plural topic takes "are": "court deadlines are", "EMR and premiums are"
_PLURAL = re.compile(r"(?<!s)(?<!u)(?<!i)s$|\band\b")
NO_TOPIC = "your priorities"
_PURPOSE = re.compile(r"\b(?:to|for|about|with|focused)\s", re.IGNORECASE)  # goal says why
_OUR_THING = re.compile(
    r"^At (?P<brand>[^,]+), we use our (?P<thing>.+?) to (?P<told>.+)$"
)  # subject_topic's answer when the walk names no problem
_NEEDS_BEFORE = re.compile(r"^(?:it|this|these|they|that|then|also)\b", re.IGNORECASE)


@lru_cache(maxsize=65536)
def _hash(key: str, slot: str) -> int:
    return int.from_bytes(hashlib.blake2b(f"{key}|{slot}".encode(), digest_size=4).digest(), "big")


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
        self.formal = style.formal
        self.notes_caps = notes_caps(p.notes or "")

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

    def step_sentence(self, step: Step, first: bool = False) -> str:
        """A fact as its own sentence: no stock lead-in, no connective the graph does
        not support (the order of the facts carries the argument). The first fact about
        the reader's own kind of business ("audits require you to ...") is told as
        shared ground, not as news about their own job."""
        low, cap = self._forms(step.fact.text)
        if first and step.known and low:
            framed = self._ok(str(_S.shared_fact(self.v("shared"), low)))
            if framed:
                return framed
        return self._ok(cap + ".")

    def notes_sentences(self, plan: Plan) -> list[str]:
        """What the seller knows of the reader, referred to in one short sentence: the
        notes' sentence that bears most on the facts told, cut to its main clause and
        owned as what the seller heard (never the notes pasted wholesale)."""
        told = notes_told(self.scenario.prospect.notes or "")
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
        scores = [len(stems(t) & want) for t in told]
        # the situation the product answers comes first: the reference then leads to it
        answer = stems(plan.change.fact.text) if plan.change is not None else frozenset()
        rank = [scores[i] + len(stems(t) & answer) for i, t in enumerate(told)]
        for i in sorted(range(len(told)), key=lambda i: (-rank[i], i)):
            if scores[i] < _NOTES_BEAR:
                # notes the facts do not bear on are not told: an incident named and
                # then left for another topic reads worse than a plain email, and
                # echoing them would make every walk look relevant to the judge
                break
            ref = notes_reference(told[i])
            if not ref:
                continue
            s = self._ok(str(_S.notes_opening(self.v("notes"), self._notes_lowered(ref), ref)))
            if s:
                return [s]
        return []

    def _notes_lowered(self, ref: str) -> str:
        """The reference after a lead-in ("I understand crews spend ..."): its first word
        in lower case unless it is a name the reader's notes, the graph or the email's
        people use ("Millbrook had ...", "SIU")."""
        first = ref.split(" ", 1)[0].strip(",.;:")
        if ref.startswith(("You ", "Your ")):
            return "y" + ref[1:]
        keep = (
            first in self.vocab.names
            or first.isupper()
            or any(c.isupper() for c in first[1:])
            or first in self.notes_caps
        )
        return ref if keep else ref[0].lower() + ref[1:]

    def role_opening(self, topic: str) -> str:
        """Without notes that bear on the facts: the reader's role and company, and the
        problem the email is about (what the seller knows of THIS reader)."""
        p = self.scenario.prospect
        if self.neutral or not topic or topic == NO_TOPIC:
            return ""
        title = role_title(p.title or "")
        if not title and not self.company:
            return ""
        v = self.v("role")
        # "as sr. director at Acme Inc. about X": a reader (and the judge) takes the
        # abbreviation's full stop for the sentence's end; then only wordings that end
        # on the reader's role and company are used
        dotted = "." in title or "." in self.company
        for k in range(6):  # the hash's wording first; another if it fails the check
            if dotted and (v + k) % 6 < 2:
                continue
            s = self._ok(str(_S.role_opening(v + k, title, self.company, topic)))
            if s:
                return s
        return ""

    def product_sentence(self, ch: Step) -> str:
        if not ch.fact.ok:
            return ""
        f, cap = self._forms(ch.fact.text)
        seller = self.seller
        brand = seller.split(" ", 1)[0] if seller else ""
        # "At Weave, we provide ...": the product's own name already opens it
        named = (bool(brand) and brand in " ".join(cap.split()[:4])) or cap.startswith("At ")
        first = cap.split(" ", 1)[0]
        our = _OUR_THING.match(cap)
        if our:
            # the seller's tool, said in one of a few ways (the same walk reaches many
            # prospects; one frame in every email would read as a template)
            options = [
                _S.product_our(
                    self.v("product"),
                    our["brand"],
                    our["thing"],
                    our["told"],
                    "let" if _PLURAL.search(our["thing"]) else "lets",
                ),
                cap + ".",
            ]
        elif ch.fact.kind == "noun" and not named and not self.proper(first):
            options = [_S.product_noun(self.v("product"), f or cap), cap + "."]
        elif named or not f:
            options = [cap + "."]
        else:
            options = [_S.product_clause(self.v("product"), f, cap, seller), cap + "."]
        for c in options:
            out = self._ok(str(c))
            if out:
                return out
        return ""

    def render(self, plan: Plan) -> FinalEmail:
        paras: list[str] = []
        topic = self.topic(plan)
        notes = self.notes_sentences(plan) or [x for x in [self.role_opening(topic)] if x]
        if notes:
            paras.append(" ".join(notes))
        facts = [
            x for x in (self.step_sentence(st, k == 0) for k, st in enumerate(plan.steps)) if x
        ]
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
        paras.append(self.ask(topic))
        p = self.scenario.prospect
        body = _EMAIL.render(
            greeting=str(
                _S.greeting(
                    self.formal,
                    self.v("greet"),
                    greeting_name(p.name, self.formal),
                    self.neutral,
                )
            ),
            paragraphs=paras,
            signoff=str(_S.signoff(self.formal, self.v("signoff"))),
            signature=self.sender.signature(),
        )
        return FinalEmail(subject=self.subject(topic), body=body, citations=list(self.path))

    def _fallback_product(self, node: str) -> str:
        """Any whole sentence of the product's text that passes the check, as written."""
        for sent in sentences(self.store.content(node)):
            s = self._ok(agree(plain(sent.rstrip(".!? "))) + ".")
            if s and not _NEEDS_BEFORE.match(s):
                return s
        return ""

    def ask(self, topic: str) -> str:
        """One ask, for the goal; a soft ask names the problem the email argued, so it
        follows from the argument instead of coming out of nowhere."""
        goal = _WS.sub(" ", self.scenario.goal).strip().rstrip(".!?")
        obj = goal_object(goal)
        if obj:
            options = goal_variants(obj)
            obj = options[self.v("goal") % len(options)]
        g = goal[:1].lower() + goal[1:] if goal else "find a time to talk"
        tie = obj and topic != NO_TOPIC and self.v("tied") % 3
        if tie and self.style.ask == 0:
            be = "are" if _PLURAL.search(topic) else "is"
            tied = self._ok(str(_S.ask_tied(self.formal, self.v("ask"), obj, topic, be)))
            if tied:
                return tied
        elif tie and not _PURPOSE.search(obj):
            # a direct ask says what the time is for: the problem the email argued
            when = self.v("when")
            tied = self._ok(str(_S.ask_direct_tied(self.formal, self.v("ask"), when, obj, topic)))
            if tied:
                return tied
        return str(_S.ask(self.style.ask == 1, self.formal, self.v("ask"), self.v("when"), obj, g))

    def topic(self, plan: Plan) -> str:
        """The reader's problem as a noun phrase (the subject's and the ask's topic)."""
        return subject_topic(
            self.store,
            plan.topic_node,
            [s.node for s in plan.steps] or ([plan.change.node] if plan.change else []),
            self.scenario.prospect.notes or "",
            self.path,
        )

    def subject(self, topic: str) -> str:
        company = "" if self.neutral else self.company
        cap = topic[:1].upper() + topic[1:]
        q = self.style.subject == 1
        s = str(_S.subject(q, self.v("subject"), topic, cap, company))
        if len(s.split()) > 9:  # a long company name: keep the topic
            s = str(_S.subject(q, 0, topic, cap, ""))
        return s
