"""Enough English grammar to tell a clause from a noun phrase, with no parser.

A node may state a fact as a sentence ("Refrigeration units fail from worn
compressors"), a noun phrase ("Methods used to grow a data set") or a predicate
without a subject ("Validates data quality by ..."); each needs a different frame
to read as a complete sentence. A closed list of common verbs and a few rules
(a finite verb is not inside a relative clause, not after "to" or a determiner)
tell them apart well enough, and the final check catches what slips through.
"""

from __future__ import annotations

import re
from functools import lru_cache


def wordset(text: str) -> frozenset[str]:
    """A set of words written as one string (long lists stay readable)."""
    return frozenset(text.split())


# --- verbs: enough English to tell a clause from a noun phrase ----------------------
AUX = wordset(
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
    queue prioritise prioritize triage match learn explain own rate score ingest correlate
    estimate locate connect push bring install oversee employ cover staff host fund lease
    direct recommend suggest assemble enrich summarise summarize transcribe translate
    classify categorise categorize simulate visualise visualize optimise optimize
    standardise standardize centralise centralize unify consolidate shorten warn remind
    confirm reschedule recruit negotiate reimburse insure underwrite investigate deny
    certify replenish allocate navigate migrate configure publish maintain decrease
    recover reclaim recoup supervise explain observe rewrite encrypt redact delete purge
    restore diagnose pinpoint simplify postpone defer remember coordinate organise
    organize collaborate communicate empower equip uncover teach adapt evolve hear listen
    finish invite refer settle rebook restock
    """
)
# Not verbs here: words that are as often plural nouns in a graph's text ("data
# models", "text messages", "service groups") would read a noun phrase as a clause.
_IRREGULAR_3SG = {"has": "have", "does": "do", "goes": "go", "is": "be"}
RELATIVE = frozenset(
    {"that", "which", "who", "whom", "whose", "where", "when", "to", "being", "been"}
)
DETERMINERS = wordset(
    """
    a an the its their our your his her this that these those some many every each of
    for with by on in at from any no more most less fewer own
    """
)
_ADVERB = re.compile(
    r"^(?:often|usually|still|also|never|always|typically|commonly|rarely|"
    r"sometimes|only|already|frequently|quickly|slowly|\w+ly)$"
)
_PREPOSITIONS = wordset(
    """
    of for with by on in at from to into over under about across after before during
    """
)
_PRONOUN_SUBJ = frozenset({"they", "we", "you", "i", "teams", "people"})


def base_form(word: str) -> str | None:
    """The base form if `word` is a present-tense form of a known verb."""
    w = word.lower()
    if w in _IRREGULAR_3SG:
        return _IRREGULAR_3SG[w]
    if w in VERBS:
        return w
    for suf, add in (("ies", "y"), ("es", ""), ("s", "")):
        if w.endswith(suf) and (w[: -len(suf)] + add) in VERBS:
            return w[: -len(suf)] + add
    # "re-" makes verbs of verbs ("Brieflane rebuilds Slack messages into ..."): a
    # product's first sentence read as a noun phrase was dropped for its second.
    if w.startswith("re") and len(w) > 6 and w[2] != "-":
        rest = base_form(w[2:])
        if rest is not None:
            return "re" + rest
    return None


def _words(text: str) -> list[str]:
    return [w.strip(",.;:!?()\"'") for w in text.split()]


# Past forms that are never participles ("rose", "took"): a finite verb wherever they
# stand after a subject. A past form in -ed may be a participle ("Methods used to ..."),
# unless the sentence says when it happened ("... last year required reviewing ...").
_PURE_PAST = wordset(
    """
    rose took ran grew fell began wrote saw went came ate drove gave spoke broke chose
    knew threw flew froze stole rode sank rang drew wore tore shook forgot arose swore
    """
)
_PAST_OR_PARTICIPLE = wordset(
    """
    lost paid spent made built sold hit had left kept found won held told brought bought
    caught felt met sent set put cut shut hired fired missed
    """
)
_WHEN_PAST = re.compile(
    r"\b(?:last (?:year|quarter|month|week|spring|summer|fall|autumn|winter)|ago|yesterday|"
    r"in (?:19|20)\d\d|in (?:january|february|march|april|may|june|july|august|september|"
    r"october|november|december)|this (?:spring|summer|fall|autumn|winter|year|quarter)|"
    r"over the past (?:year|quarter|month|\w+ (?:years|months|quarters)))\b",
    re.IGNORECASE,
)


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
        if prev in RELATIVE and j > 0:  # "That is ..." opens a sentence: not a relative
            continue
        if w in AUX:
            return True
        if (
            i >= 1
            and prev not in DETERMINERS
            and (
                w in _PURE_PAST
                or (
                    (w in _PAST_OR_PARTICIPLE or (w.endswith("ed") and len(w) > 4))
                    and _WHEN_PAST.search(text)
                )
            )
        ):
            return True  # "Cycle time rose from 11 to 17 days", "Their team lost ... last year"
        if (
            i >= 1
            and words[i - 1][:1].isupper()
            and w.endswith("s")
            and not w.endswith(("ss", "us", "is", "ics"))
            and i + 1 < len(lows)
            and lows[i + 1] in DETERMINERS | {"every", "each", "all"}
        ):
            return True  # a name and a verb: "Brieflane ranks every document"
        base = base_form(w)
        if base is None or prev in DETERMINERS or i == 0:
            continue
        if w != base:  # a third-person form after a subject
            return True
        if prev.endswith("s") or prev in _PRONOUN_SUBJ:  # base form after a plural subject
            return True
        if (
            prev not in _PREPOSITIONS
            and prev not in AUX
            and any(x.endswith("s") and not x.endswith("ss") for x in lows[:j])
        ):
            return True  # "Common metrics for model evaluation include accuracy"
    return False


def is_predicate(text: str) -> bool:
    """A subject-less third-person predicate: "Validates data quality by ..."."""
    words = _words(text)
    if len(words) < 2:
        return False
    first, second = words[0].lower(), words[1].lower()
    return first != base_form(first) and base_form(first) is not None and second not in AUX
