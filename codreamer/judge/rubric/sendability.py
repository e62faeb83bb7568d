"""Sendability (DESIGN §4): what would stop a person from sending the email.

Each finding multiplies the total by (1 - its cost) (costs in
`codreamer.judge.rubric.bands`), so a flawed email is still ranked by everything else —
never multiplied by zero (only an empty or non-English email is, by the
`english` gate). The criterion's reason names every finding.
"""

from __future__ import annotations

import re
from collections import Counter

from codreamer.judge.rubric.bands import (
    COST_AI_DISCLAIMER,
    COST_CLAIM,
    COST_CLAIM_MAX,
    COST_CONFUSED,
    COST_CREDENTIALS,
    COST_EXTRA_ASK,
    COST_FOREIGN_PARAGRAPH,
    COST_FRAGMENTS,
    COST_GRAPH_META,
    COST_HOSTILE_MAX,
    COST_IMPERSONAL,
    COST_INSULT,
    COST_NO_ASK,
    COST_PADDING,
    COST_PADDING_PHRASE,
    COST_PASTE,
    COST_PLACEHOLDER,
    COST_PRESSURE,
    COST_REPEAT_MAX,
    COST_REPEAT_NAME,
    COST_REPEAT_PHRASE,
    COST_SHOUTING,
    COST_SIGNATURE_PLACEHOLDER,
    COST_THEIR_BUSINESS,
    COST_THREAT,
    COST_TOO_LONG,
    COST_WORD_SALAD,
    COST_WRONG_PRODUCT,
    FRAGMENT_FREE,
    FRAGMENT_WORDS,
    NAME_USES_FREE,
    PADDING_EMPTY_SHARE,
    PADDING_WORDS,
    PASTE_SENDABLE,
    SALAD_FUNCTION_SHARE,
    TOO_LONG_WORDS,
)
from codreamer.judge.rubric.graph_index import GraphIndex
from codreamer.judge.rubric.language import TOKEN, PhraseSet, concept
from codreamer.judge.rubric.text_criteria import Ask, EmailText, ScenarioInfo, language_shares
from codreamer.judge.rubric.words import (
    AI_DISCLAIMERS,
    CREDENTIALS,
    EN_FUNCTION_WORDS,
    GRAPH_META,
    INSULTS,
    PADDING_PHRASES,
    PLACEHOLDER_NAMES,
    PLACEHOLDER_WORDS,
    PRESSURE,
    SELL_VERBS,
    SPAM_PHRASES,
    THREATS,
)
from codreamer.models import Sender

_LEXICON = PhraseSet(
    {
        "meta": GRAPH_META,
        "insult": INSULTS,
        "threat": THREATS,
        "pressure": PRESSURE,
        "credentials": CREDENTIALS,
        "ai": AI_DISCLAIMERS,
        "filler": PADDING_PHRASES,
        "spam": tuple(p for p in SPAM_PHRASES if p[0].isalnum()),
        "fake name": PLACEHOLDER_NAMES,
    }
)
_BRACKET = re.compile(r"\[([^\]\n]{1,40})\]")
_TEMPLATE = re.compile(
    r"\{\{.*?\}\}|\{[a-z_]+\}|\{%.*?%\}|<[A-Z][A-Z_ ]{1,30}>|\b(?:TODO|TBD|FIXME)\b"
)
_PLACEHOLDER_WORDS = frozenset(PLACEHOLDER_WORDS)
_PLACEHOLDER_LINES = frozenset(
    ("your name", "your company", "your title", "your company name", "your position",
     "your phone number", "your email", "name", "company")
)  # fmt: skip
_HASH_ID = re.compile(r"-[0-9a-f]{8}\b")
_NODE_ID = re.compile(
    r"\b[a-z0-9]+(?:-[a-z0-9]+)*-[0-9a-f]{8}\b|\bCustomer Job\b|\bProduct Feature\b"
)
_URL = re.compile(r"(?:https?://|www\.)[^\s)>\]\"']+", re.IGNORECASE)
_BAD_URL = re.compile(
    r"^http://|^(?:https?://)?(?:\d{1,3}\.){3}\d{1,3}|bit\.ly|tinyurl|goo\.gl|t\.co/|"
    r"login|log-in|signin|sign-in|verify|password|account|secure|reset|"
    r"\.(?:ru|xyz|top|zip|click|tk|cn|info|biz)(?:/|$)",
    re.IGNORECASE,
)
_CAPS_WORD = re.compile(r"\b[A-Z]{4,}\b")
_CAPS_RUN = re.compile(r"[A-Z][A-Z]{3}")  # [A-Z]{4}, written so that `re` skips to capitals
_SELL_VERBS = frozenset(concept(w) for w in SELL_VERBS)
_FIRST_PERSON_SELLER = frozenset(("we", "our", "us"))


def _placeholder(email: EmailText, lex: dict[str, list[str]]) -> str | None:
    for text in (email.subject, email.body):
        found = _placeholder_in(text)
        if found is not None:
            return found
    for line in email.lines:
        if len(line) <= 24 and line.lower().strip(" ,.") in _PLACEHOLDER_LINES:
            return line
    if "fake name" in lex:
        return lex["fake name"][0]
    return "lorem ipsum" if " lorem ipsum " in email.joined else None


# What a signature's slot may leave to fill in at little cost: a way to reach the
# sender. A missing name, company or anything in the body still costs in full.
_CONTACT_SLOT = frozenset(
    ["phone", "number", "email", "mobile", "cell", "tel", "website", "url", "linkedin",
     "calendar", "link", "address", "extension", "ext", "contact", "info", "details"]
)  # fmt: skip


def _in_signature(email: EmailText, placeholder: str) -> bool:
    """Whether `placeholder` is a contact detail left only in the sign-off block."""
    if email.signoff_at is None or placeholder in email.subject:
        return False
    if not set(TOKEN.findall(placeholder.lower())) <= _CONTACT_SLOT:
        return False
    block = "\n".join(email.lines[email.signoff_at :])
    if any(
        not set(TOKEN.findall(m.group(0).lower())) <= _CONTACT_SLOT
        for m in _BRACKET.finditer(block)
    ):
        return False  # "[Phone] | [Your Name]": the name is missing too
    before = "\n".join(email.lines[: email.signoff_at])
    return placeholder not in before and _placeholder_in(before) is None


def _placeholder_in(text: str) -> str | None:
    """A bracketed or templated slot left unfilled in `text`."""
    if "[" in text:
        for m in _BRACKET.finditer(text):
            inner = set(TOKEN.findall(m.group(1).lower()))
            if inner & _PLACEHOLDER_WORDS or inner <= {"x", "xx", "xxx", "..."}:
                return m.group(0)
    if "{" in text or "<" in text or "TODO" in text or "TBD" in text or "FIXME" in text:
        slot = _TEMPLATE.search(text)
        if slot:
            return slot.group(0)
    return None


def _repetition(email: EmailText, info: ScenarioInfo) -> list[tuple[str, float]]:
    out: list[tuple[str, float]] = []
    counts = email.counts
    name_uses = max(counts.get(info.first, 0) if info.first else 0,
                    counts.get(info.last, 0) if info.last else 0)  # fmt: skip
    company_uses = counts.get(info.company_word, 0) if info.company_word else 0
    extra = max(0, name_uses - NAME_USES_FREE) + max(0, company_uses - NAME_USES_FREE)
    if extra:
        cost = min(COST_REPEAT_MAX, COST_REPEAT_NAME * extra)
        out.append((f"name/company used {name_uses + company_uses} times", cost))
    # A phrase used 3+ times has a content word used 3+ times: without one, skip (and
    # without any word used 3+ times, as in most emails, without reading them one by one).
    if not counts or max(counts.values()) < 3:
        return out
    if not any(n >= 3 and t not in EN_FUNCTION_WORDS for t, n in counts.items()):
        return out
    toks = email.prose_tokens
    grams = Counter(zip(toks, toks[1:], toks[2:], toks[3:], strict=False))
    if max(grams.values(), default=0) < 3:
        return out  # no 4-gram used three times: nothing to sort
    repeated = sorted(((n, g) for g, n in grams.items() if n >= 3), reverse=True)
    if repeated:
        most, phrase = repeated[0]
        units = (len(repeated) + 2) // 3  # a long repeated phrase is several 4-grams
        cost = min(
            COST_REPEAT_MAX, COST_REPEAT_PHRASE * (most - 2 + units - 1) + COST_REPEAT_PHRASE
        )
        out.append((f"phrase repeated {most} times ({' '.join(phrase)!r})", cost))
    return out


def _foreign_paragraph(email: EmailText) -> str | None:
    if email.foreign[1] * len(email.tokens) < 4:
        return None  # too few foreign function words for a paragraph of them
    for para in re.split(r"\n\s*\n", email.body):
        toks = TOKEN.findall(para.lower())
        if len(toks) < 8:
            continue
        en, lang, foreign = language_shares(Counter(toks), len(toks))
        if foreign > 0.1 and foreign > en:
            return lang
    return None


def _word_salad(email: EmailText) -> float:
    words = 0
    salad = 0
    for s in email.prose:
        n = len(s.tokens)
        if n < 8:
            words += n
            continue
        fn = sum(map(EN_FUNCTION_WORDS.__contains__, s.tokens))  # a count of Trues
        words += n
        if fn / n < SALAD_FUNCTION_SHARE:
            salad += n
    return salad / words if words else 0.0


def _confused(email: EmailText, info: ScenarioInfo, sender: Sender | None) -> str | None:
    if email.signoff_at is not None:
        block = " ".join(email.lines[email.signoff_at :]).lower()
        btoks = set(TOKEN.findall(block))
        signed_as_prospect = info.first in btoks and (not info.last or info.last in btoks)
        is_sender = sender is not None and info.first in TOKEN.findall(sender.name.lower())
        if info.first and signed_as_prospect and not is_sender:
            return "signed with the prospect's name"
    mentions = (info.first and info.first in email.counts) or (
        info.company_word and info.company_word in email.counts
    )
    if (
        mentions
        and info.writes_as_any is not None
        and info.writes_as_any.found(email.lower)
        and info.writes_as is not None
        and (m := info.writes_as.search(email.lower))
    ):
        return f"writes as the prospect ({m.group(0)!r})"
    if sender is not None and email.greeting:
        g = set(TOKEN.findall(email.lines[0].lower()))
        sfirst = TOKEN.findall(sender.name.lower())[:1]
        if sfirst and sfirst[0] in g and info.first not in g:
            return "greets the sender instead of the prospect"
    return None


def _their_business(email: EmailText, index: GraphIndex) -> bool:
    cj_only = index.customer_job_only
    if len(cj_only) < 3:
        return False
    for s in email.prose:
        if not _FIRST_PERSON_SELLER.intersection(s.tokens) or not (_SELL_VERBS & s.concepts):
            continue
        if len(cj_only & s.concepts) / len(cj_only) >= 0.3:
            return True
    return False


def _informative(email: EmailText, info: ScenarioInfo, index: GraphIndex | None) -> int:
    graph = index.weight if index is not None else {}
    found = 0
    for s in email.prose:
        facts = sum(1 for c in s.concepts if c in graph)
        if facts >= 2 or any(c in info.profile for c in s.concepts) or info.goal & s.concepts:
            found += 1
    return found


def _unknown_names(email: EmailText, known: set[str]) -> list[str]:
    """Capitalised words inside sentences that nothing given explains (product names)."""
    out = []
    for s in email.prose:
        words = s.text.split()
        for w in words[1:]:
            core = w.strip(".,;:!?()\"'")
            if len(core) > 2 and core[0].isupper() and core.lower() not in known:
                out.append(core)
    return out


def sendability(
    email: EmailText,
    info: ScenarioInfo,
    index: GraphIndex | None,
    claim_list: list[str],
    product_shown: bool,
    pasted: float,
    found_asks: list[Ask],
    sender: Sender | None = None,
) -> tuple[float, str, list[tuple[str, float]]]:
    """(multiplier, reason, findings as (what, cost))."""
    found: list[tuple[str, float]] = []
    if not email.tokens:
        return 1.0, "empty", found
    lex = _LEXICON.find(email.token_set, email.joined)
    if (p := _placeholder(email, lex)) is not None:
        if _in_signature(email, p):
            found.append((f"placeholder in the signature {p[:30]!r}", COST_SIGNATURE_PLACEHOLDER))
        else:
            found.append((f"placeholder {p[:30]!r}", COST_PLACEHOLDER))
    meta = lex["meta"][0] if "meta" in lex else None
    body = email.body
    if meta is None and (
        "Customer Job" in body or "Product Feature" in body or _HASH_ID.search(body)
    ):
        m = _NODE_ID.search(body)
        meta = m.group(0) if m else None
    if meta is not None:
        found.append((f"graph talk {meta!r}", COST_GRAPH_META))
    found.extend(_repetition(email, info))
    n_asks = len(found_asks)
    if n_asks > 1:
        found.append((f"{n_asks} asks", min(COST_REPEAT_MAX, COST_EXTRA_ASK * (n_asks - 1))))
    elif not n_asks and "?" not in email.body:
        found.append(("asks for nothing", COST_NO_ASK))
    if not (info.first and info.first in email.counts) and not (
        info.last and info.last in email.counts
    ):
        found.append(("never names the reader", COST_IMPERSONAL))
    prose = email.prose
    if prose:
        frags = sum(1 for s in prose if len(s.tokens) <= FRAGMENT_WORDS)
        share = frags / len(prose)
        if share > FRAGMENT_FREE:
            found.append(
                (
                    f"{frags} sentence fragments",
                    COST_FRAGMENTS * min(1.0, (share - FRAGMENT_FREE) / 0.4),
                )
            )
    hostile = 0.0
    if "insult" in lex:
        hostile += COST_INSULT
        found.append((f"insult {lex['insult'][0]!r}", 0.0))
    if "threat" in lex:
        hostile += COST_THREAT
        found.append((f"threat {lex['threat'][0]!r}", 0.0))
    if "pressure" in lex:
        hostile += COST_PRESSURE * min(2, len(lex["pressure"]))
        found.append((f"pressure {lex['pressure'][0]!r}", 0.0))
    if hostile:
        found.append(("hostile tone", min(COST_HOSTILE_MAX, hostile)))
    bad_url = None
    if "http" in email.lower or "www." in email.lower:
        bad_url = next((u for u in _URL.findall(email.body) if _BAD_URL.search(u)), None)
    if "credentials" in lex or bad_url:
        what = lex["credentials"][0] if "credentials" in lex else bad_url
        found.append((f"credential request or odd link {what!r}", COST_CREDENTIALS))
    if "ai" in lex:
        found.append((f"AI disclaimer {lex['ai'][0]!r}", COST_AI_DISCLAIMER))
    if (lang := _foreign_paragraph(email)) is not None:
        found.append((f"a paragraph in {lang}", COST_FOREIGN_PARAGRAPH))
    if (why := _confused(email, info, sender)) is not None:
        found.append((f"sender/recipient confused: {why}", COST_CONFUSED))
    salad = _word_salad(email)
    if salad > 0.15:
        found.append(
            (f"word salad ({salad:.0%} of the prose)", COST_WORD_SALAD * min(1.0, salad / 0.6))
        )
    words = len(email.tokens)
    if words > TOO_LONG_WORDS:
        found.append(
            (
                f"{words} words: too long to finish",
                COST_TOO_LONG * min(1.0, (words - TOO_LONG_WORDS) / 150),
            )
        )
    if pasted > PASTE_SENDABLE:
        found.append(
            (
                f"{pasted:.0%} pasted from the graph",
                COST_PASTE * (pasted - PASTE_SENDABLE) / (1 - PASTE_SENDABLE),
            )
        )
    both = f"{email.subject}\n{email.body}"
    caps = _CAPS_WORD.findall(both) if _CAPS_RUN.search(both) else []
    spam = lex.get("spam", [])
    if len(caps) > 2 or "!!" in email.body or "!!" in email.subject or spam:
        found.append((f"shouting or spam words {(spam or caps or ['!!'])[0]!r}", COST_SHOUTING))
    if words > PADDING_WORDS and prose:
        empty = 1.0 - _informative(email, info, index) / len(prose)
        if empty > PADDING_EMPTY_SHARE:
            scale = min(1.0, (empty - PADDING_EMPTY_SHARE) / 0.3) * min(
                1.0, (words - PADDING_WORDS) / 100
            )
            found.append((f"padding ({empty:.0%} of sentences say nothing)", COST_PADDING * scale))
    pads = lex.get("filler", [])
    if pads:
        found.append((f"filler {pads[0]!r}", min(0.2, COST_PADDING_PHRASE * len(pads))))
    if claim_list:
        found.append(
            (f"unsupported claims {', '.join(repr(c) for c in claim_list[:3])}",
             min(COST_CLAIM_MAX, COST_CLAIM * len(claim_list)))
        )  # fmt: skip
    if index is not None:
        if _their_business(email, index):
            found.append(("pitches the customer's own business", COST_THEIR_BUSINESS))
        if not product_shown:
            known = set(index.vocab) | set(info.profile)
            known.update(t for t in (info.first, info.last, info.company_word) if t)
            known.update(info.company.split())
            if sender is not None:
                known.update(TOKEN.findall(f"{sender.name} {sender.company or ''}".lower()))
            others = _unknown_names(email, known)
            cost = COST_WRONG_PRODUCT if others else COST_WRONG_PRODUCT / 2
            what = (
                f"pitches {others[0]!r}, not the graph's product"
                if others
                else "never shows the product"
            )
            found.append((what, cost))
    mult = 1.0
    for _, cost in found:
        mult *= 1.0 - cost
    if not found:
        return 1.0, "nothing stops sending it", found
    shown = "; ".join(f"{w} (-{c:.2f})" if c else w for w, c in found)
    return mult, shown, found
