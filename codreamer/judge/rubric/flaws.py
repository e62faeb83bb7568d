"""Three criteria that catch what makes a reader distrust an email (DESIGN §4):

    deception  a fake reply or forward thread, fake urgency or scarcity, a subject
               that is not about the body, guarantees, a wrong name or company
    tone       passive-aggression, shaming, guilt-tripping, condescension, insults
    grammar    fragments, a capital mid-sentence after "because" or a colon,
               dangling connectors, run-ons, agreement errors, lower-case starts

Each is a score in [0, 1] (1: nothing found) with a reason naming what was found.
They look for patterns of wording (families of forms, not single phrases), so a
reworded instance is caught as long as it keeps the pattern; what they cannot see
is written in the README. The fitted total (`total.py`) decides how much each
costs, from readers' grades.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from functools import lru_cache

from codreamer.agent.writer.check import TITLE_OF  # one list of job titles for both
from codreamer.judge.rubric.first_pass import any_of
from codreamer.judge.rubric.language import LIST_ITEM
from codreamer.judge.rubric.text_criteria import EmailText, ScenarioInfo
from codreamer.judge.rubric.words import CALENDAR_WORDS

_I = re.IGNORECASE

# -- deception ---------------------------------------------------------------------

_THREAD_SUBJECT = re.compile(r"^\s*(?:re|fwd?|aw|tr)\s*(?:\[\d+\])?\s*:", _I)
_THREAD_BODY = re.compile(
    r"\b(?:as (?:we )?(?:discussed|promised|agreed|mentioned on (?:our|the) call)|"
    r"(?:per|following|further to|as a follow[- ]up to|after) (?:our|your|my) "
    r"(?:call|conversation|chat|meeting|talk|discussion|last email|previous email|"
    r"email last week|note last week)|"
    r"(?:great|good|nice|lovely) (?:speaking|talking|chatting|meeting) (?:with|to) you|"
    r"thanks (?:again )?for (?:your time|taking the time|the call|the chat|"
    r"(?:the|our) (?:conversation|meeting))|"
    r"you (?:asked|requested) (?:me|us|for)|"
    r"(?:forwarding|looping you in|see (?:the )?(?:thread|below))|"
    r"-{2,} ?(?:original|forwarded) message)",
)
_URGENCY = re.compile(
    r"\b(?:only (?:\w+ )?(?:\d+|one|two|three|four|five|a few|a handful of) "
    r"(?:\w+ )?(?:spots?|slots?|seats?|places?|licen[cs]es?|openings?|days?|hours?)"
    r"(?: (?:are )?(?:left|remain\w*))?|"
    r"(?:spots?|slots?|seats?|places?|availability) (?:are |is )?(?:filling|going) "
    r"(?:up )?fast|"
    r"(?:offer|discount|pricing|price|deal|promotion|rate) (?:\w+ )?(?:expires?|ends?|"
    r"runs? out|goes? away|closes?|is only valid)|"
    r"(?:expires?|ends?) (?:today|tonight|tomorrow|this week|on (?:mon|tues|wednes|"
    r"thurs|fri|satur|sun)day|(?:mon|tues|wednes|thurs|fri|satur|sun)day|at midnight)|"
    r"(?:before|by) (?:the end of )?(?:today|tonight|tomorrow|midnight|(?:mon|tues|wednes|"
    r"thurs|fri|satur|sun)day)\b[^.?!]{0,40}(?:or|to (?:lock|secure|claim|keep|get))|"
    r"last chance|act (?:now|fast|quickly|today)|don'?t miss (?:out|this)|"
    r"limited[- ]time|time is running out|running out of time|(?:urgent|urgently|asap)|"
    r"(?:won'?t|will not) last|first come,? first served|"
    r"price (?:goes|will go) up|before (?:it'?s|it is) too late|"
    r"need (?:an answer|to hear back|your decision) (?:by|today|within)|"
    r"(?:within|in the next) (?:24|48|72) hours)",
)
_GUARANTEE = re.compile(
    r"\b(?:guarantee[ds]?|guaranteeing|money[- ]back|risk[- ]free|"
    r"100\s?% (?:sure|certain|accurate|success|satisfaction|of the time)|"
    r"(?:i|we) promise (?:you )?(?:will|that|to)|will definitely (?:cut|save|reduce|double|"
    r"increase|eliminate)|(?:never|zero) (?:fail|miss|downtime) again|"
    r"eliminate[sd]? (?:all|every)|or (?:your|you get your) money)",
)
_CLICKBAIT = re.compile(
    r"(?:you won'?t believe|shocking|secret|this one (?:trick|thing)|can'?t miss|"
    r"don'?t ignore|important notice|action required|final notice|your (?:invoice|"
    r"account|order|payment|package|refund)|congratulations|you(?:'ve| have) (?:won|been "
    r"selected)|free\b|urgent|!!|\?\?|open (?:this|now|immediately)|last chance|"
    r"\b(?:refund|invoice|overdue|payment (?:due|failed|received)|account (?:suspended|"
    r"locked)|prize|winner|password|security alert|delivery (?:failed|notice))|"
    # Official or transactional news the seller cannot have: a payment, a legal
    # notice, a complaint, a rating or contract under review, an award.
    r"payment (?:has been |was |is )?(?:released|sent|approved|processed|on hold|pending)|"
    r"(?:legal|litigation) (?:hold|notice)|lawsuit|subpoena|"
    r"\bcomplaint (?:filed|against|about|regarding|received|re\b|[-–—:])|"
    r"(?:osha|formal|legal|regulatory|customer|guest|patient) complaint\b|"
    r"you(?:'ve| have) been (?:nominated|shortlisted|chosen|named|flagged)|"
    r"(?:rating|license|licence|permit|certification|accreditation) (?:is )?(?:under review|"
    r"downgraded|suspended|revoked|at risk)|"
    r"(?:plan|contract|subscription|renewal|policy) (?:change|cancel+ed|cancel+ation|"
    r"expir\w*|terminat\w*|update required)|"
    # A calendar, HR or IT system's notice, which a stranger's email cannot be.
    r"\binvitation:|\b(?:accepted|declined|tentative|canceled|cancelled):|"
    r"@ (?:mon|tue|wed|thu|fri|sat|sun)[a-z]* \d|request (?:has been |was |is )?(?:approved|"
    r"denied|declined|rejected)|new sign-?in|sign-?in (?:attempt|alert|detected)|"
    r"verify your|your (?:pto|leave|timesheet|expense|benefits|badge|mailbox)\b|"
    # News about the reader's organisation that the seller cannot have.
    r"(?:named|cited|listed|mentioned|flagged) in (?:a |an |the )?(?:[\w-]+ ){0,3}"
    r"(?:investigation|probe|lawsuit|inquiry|enquiry|indictment)|"
    # A meeting or a talk that never happened, and a report nobody asked for (round
    # 12's packet V: "Great catching up at the site walk Tuesday", "Your complimentary
    # review-spend report is ready").
    r"(?:great|good|nice|lovely|fun) (?:catching up|chatting|speaking|talking|meeting|"
    r"seeing you|connecting|to meet|to see you|to connect)|"
    r"(?:loved|enjoyed|following up on|after|re) your (?:talk|session|panel|post|"
    r"presentation|keynote|webinar|comment|question)|"
    r"following up (?:on|from) (?:our|my|the|tuesday|monday|wednesday|thursday|friday|"
    r"last week|yesterday)|as (?:promised|discussed)|per our|"
    r"your (?:[\w-]+ ){0,2}(?:report|audit|assessment|results|analysis|quote|proposal|scorecard) "
    r"(?:is|are) (?:ready|attached|inside|here|waiting))",
)
# Its first pass: the long alternation, tried at every character of the subject,
# costs more than the grouped scan that rules most subjects out.
_ANY_CLICKBAIT = any_of(_CLICKBAIT)
# Any of the three, as a first pass (none has an anchor or a lookaround, so a match
# of one in the body is a match of this in the subject and body).
_ANY_DECEIT = any_of(_THREAD_BODY, _URGENCY, _GUARANTEE)
_GREETING_NAME = re.compile(
    r"^(?:hi|hello|hey|dear|good (?:morning|afternoon|evening))[ ,]+"
    r"((?:dr|mr|mrs|ms|prof)\.? )?([A-Z][\w'-]+)(?: ([A-Z][\w'-]+))?",
    _I,
)


def _greeted_wrong(email: EmailText, info: ScenarioInfo) -> str | None:
    if not email.greeting or not email.lines or not info.first:
        return None
    m = _GREETING_NAME.match(email.lines[0])
    if m is None:
        return None
    names = {w.lower() for w in (m.group(2), m.group(3)) if w}
    names -= {"team", "there", "all", "everyone", "folks", "sir", "madam", "friend"}
    if not names:
        return None
    if names & {info.first, info.last}:
        return None
    # a double-barrelled name ("Dear Dr. Marsh-Pryor" for Evelyn Marsh-Pryor) is
    # written whole in the greeting and split into words in the reader's name
    parts = {p for n in names for p in re.split(r"[-'’]", n) if p}
    if parts & {info.first, info.last}:
        return None
    return m.group(2)


_OTHER_COMPANY = re.compile(r"\b(?:at|for|to) ([A-Z][\w&'-]+(?: [A-Z][\w&'-]+){0,2})(?:'s)?")


_READERS_COMPANY = re.compile(
    r"\b(?:your (?:team|teams|people|colleagues|group|folks) (?:at|in)|"
    r"(?:everyone|teams?|people|folks) at|here at|over at) "
    r"([A-Z][\w&'-]+(?: [A-Z][\w&'-]+){0,2})"
)
_READERS_COMPANY_ANY = any_of(_READERS_COMPANY)


def _wrong_company(email: EmailText, info: ScenarioInfo, known: str) -> str | None:
    """A company named as the reader's ('your team at X', 'X's audit') that is neither
    theirs nor anything the graph, the sender or the scenario mention."""
    if not info.company_word:
        return None
    if not _READERS_COMPANY_ANY.found(email.body):
        return None
    for m in _READERS_COMPANY.finditer(email.body):
        name = m.group(1)
        low = name.lower()
        if info.company_word in low or low.split()[0] in known:
            continue
        return name
    return None


# Words of a greeting or a sign-off, capitalised where they open a line: "Hello Ben,"
# is not "Helio" misspelt (round 12: a tuning email to Helio Home Energy lost 0.6 of
# its deception score, and most of its total, to its greeting).
_SALUTATIONS = frozenset(
    [
        "hello",
        "hallo",
        "hey",
        "hiya",
        "dear",
        "greetings",
        "thanks",
        "thank",
        "cheers",
        "regards",
        "best",
        "sincerely",
        "warmly",
        "warm",
        "kind",
        "yours",
    ]
)


@lru_cache(maxsize=1024)
def _near_names(target: str) -> re.Pattern[str]:
    """The tokens `_misspelt_company` would weigh against the company word `target`,
    found in an email's `joined` (" tok tok | tok "): its first letter, 4+ letters and
    at most 2 more or fewer than it, not it. Starting with a literal, a scan of the
    tokens skips to the few with that letter (made once per company)."""
    lo, hi = max(len(target) - 2, 4) - 1, len(target) + 1
    first, rest = re.escape(target[0]), re.escape(target[1:])
    return re.compile(rf" {first}(?!{rest} )[^ ]{{{lo},{hi}}}(?= )")


def _misspelt_company(email: EmailText, info: ScenarioInfo, known: str) -> str | None:
    """A word that is nearly the reader's company name but not it ("Lumen" for "Lumio")."""
    target = info.company_word
    if len(target) < 4:
        return None
    if _near_names(target).search(email.joined) is None:
        return None  # no token to weigh: most emails
    for tok in email.token_set:
        if tok == target or tok[0] != target[0] or abs(len(tok) - len(target)) > 2:
            continue
        if len(tok) < 4 or tok in known or tok in _SALUTATIONS:
            continue
        # A name is written with a capital: "suit you" is not "Summit" misspelt.
        if not any(
            m.group(0)[0].isupper()
            for m in re.finditer(rf"(?<!\w){re.escape(tok)}(?!\w)", email.body, re.IGNORECASE)
        ):
            continue
        if SequenceMatcher(None, tok, target).ratio() >= 0.6:
            return tok
    return None


def deception(
    email: EmailText,
    info: ScenarioInfo,
    subject_fit: float | None,
    known: str,
    maybe_phrases: bool = True,
) -> tuple[float, str]:
    """(score, reason). `subject_fit`: how close the subject is to the body in meaning
    (None when not measured); `known`: lower-case text of everything the email may
    name (graph, scenario, sender); `maybe_phrases`: False when a shared first pass
    (`screens.screen`) found none of the body patterns in the subject and body."""
    found: list[tuple[str, float]] = []
    subject = email.subject or ""
    if _THREAD_SUBJECT.match(subject):
        found.append((f"a reply/forward subject {subject[:30]!r} on a first email", 0.7))
    low = f"{subject}\n{email.body}".lower()
    # One scan for the three body patterns; only an email it matches is read with
    # each (the body's lower case is the tail of `low`, after a newline).
    if maybe_phrases and _ANY_DECEIT.found(low):
        if (m := _THREAD_BODY.search(email.lower)) is not None:
            found.append((f"pretends an earlier exchange {m.group(0)[:40]!r}", 0.6))
        urgent = [m.group(0) for m in _URGENCY.finditer(low)]
        if urgent:
            found.append((f"fake urgency {urgent[0][:40]!r}", min(0.8, 0.5 + 0.15 * len(urgent))))
        if (m := _GUARANTEE.search(low)) is not None:
            found.append((f"guarantees {m.group(0)[:30]!r}", 0.5))
    low_subject = subject.lower()
    bait = _CLICKBAIT.search(low_subject) if _ANY_CLICKBAIT.found(low_subject) else None
    if bait is not None:
        found.append((f"clickbait subject {bait.group(0)[:30]!r}", 0.6))
    elif subject_fit is not None and subject.strip() and subject_fit < 0.0:
        found.append(("the subject is not about the body", 0.5 * min(1.0, -subject_fit / 0.1)))
    if (who := _greeted_wrong(email, info)) is not None:
        found.append((f"greets {who!r}, not the reader", 0.8))
    if (typo := _misspelt_company(email, info, known)) is not None:
        found.append((f"misspells the reader's company ({typo!r})", 0.6))
    if (co := _wrong_company(email, info, known)) is not None:
        found.append((f"names {co!r} as the reader's company", 0.6))
    return _score(found, "nothing deceptive")


# -- tone -----------------------------------------------------------------------------

_PASSIVE_AGGRESSIVE = re.compile(
    r"\b(?:as i'?m sure you(?:'re| are)? (?:already )?(?:know|aware)|as you (?:surely|"
    r"should|must|probably) (?:know|be aware)|i(?:'ve| have) (?:reached out|written|emailed|"
    r"tried to reach you|contacted you|sent)[^.?!]{0,30}(?:several|multiple|a few|many|"
    r"three|four|numerous|\d+) times|(?:per|see) my (?:last|previous|earlier) (?:email|"
    r"note|message)|i (?:still )?haven'?t heard back|not sure (?:if|whether) you (?:saw|"
    r"read|got)|(?:in case|since) you (?:missed|ignored|didn'?t (?:read|see|reply|respond))|"
    r"still waiting|i(?:'m| am) (?:a (?:bit|little) )?surprised (?:you|that you|nobody)|"
    r"(?:i guess|i assume|i suppose|presumably) you(?:'re| are)? (?:too )?(?:busy|not "
    r"interested)|if you (?:actually|really|even|truly) care|with all due respect|"
    r"no offen[cs]e|(?:just|simply) (?:bumping|checking) (?:this|in) (?:again|once more)|"
    r"(?:unless|if) (?:of course )?you(?:'re| are) (?:happy|fine|okay|content) "
    r"(?:to keep|with) (?:losing|wasting|falling)|"
    r"my (?:last|previous|earlier|other) (?:\w+ )?(?:emails?|notes?|messages?)|"
    r"(?:went|gone|go|got|get|been) (?:unanswered|buried|lost|ignored)|"
    r"(?:i'?m sure|i know|no doubt) you(?:'re| are)? (?:very |so |really |well )?"
    r"(?:busy|aware)|as you (?:no doubt|already|surely|must|should|well) (?:\w+ )?know|"
    r"(?:i'?ll|i will) (?:just )?(?:be here|keep trying|try (?:once|one more time|again))|"
    r"no (?:pressure|worries),? (?:of course|if not)|i'?d have thought|"
    r"if you ever (?:find|want|get|have)|circling back,? (?:again|one more time|once more)|"
    r"\(again\)|maybe this time|i'?m sure you have your own|two different things)",
)
_SHAMING = re.compile(
    r"\b(?:(?:frankly|honestly),? (?:it'?s|that'?s|this is) (?:embarrassing|unacceptable|"
    r"irresponsible|negligent|inexcusable|surprising)|(?:embarrassing|unacceptable|"
    r"irresponsible|negligent|inexcusable|shameful|careless) (?:for|that|how|to)|"
    r"your (?:team|people|staff|department|operation|company)(?:'s)? (?:is|are|keeps?|"
    r"has been|have been) (?:clearly |still |obviously )?(?:failing|behind|losing|"
    r"struggling|dropping the ball|asleep|careless|negligent|wasting)|"
    r"(?:you|your team) (?:should|ought to) (?:be|feel) (?:ashamed|embarrassed|worried)|"
    r"(?:you|your team) (?:keep|kept) (?:failing|losing|missing|wasting)|"
    r"(?:you(?:'re| are)|your team is) (?:behind the times|still in the dark ages|"
    r"stuck in the past|being left behind)|how (?:can|could) you (?:still|possibly)|"
    r"(?:everyone|every(?:one)? else|all your (?:peers|competitors)) (?:has|have) "
    r"(?:already )?(?:moved|switched|fixed|solved)|"
    r"let (?:your|the) (?:customers|patients|clients|guests|team|board) down|"
    r"(?:can|could) you (?:really )?(?:afford|justify) (?:to )?(?:keep|another)|"
    r"it'?s (?:your|on you)[^.?!]{0,20}fault|(?:you|your team) dropped the ball|"
    # Comparisons that belittle: "most teams moved past this years ago".
    r"(?:grew|grown|moved|stopped|closed|fixed|solved|abandoned|left)\b[^.?!]{0,50}"
    r"(?:years ago|a while ago|long ago|long before)|"
    r"(?:hard|difficult|tough|awkward) to (?:explain|justify) to|"
    r"(?:time|rest of the market|rest of the industry)[^.?!]{0,25}(?:caught|catch(?:es)?) up|"
    r"catch up with (?:the rest|everyone|your peers)|"
    r"(?:suggests|means|shows|tells me) (?:that )?(?:your|the|nobody|no one)\b[^.?!]{0,40}"
    r"(?:isn'?t|is not|aren'?t|hasn'?t|haven'?t|simply|mostly|guessing|reacting|nobody|"
    r"no one|not (?:watching|paying|managing|keeping))|"
    r"(?:nobody|no one|without anyone) (?:on|at|in) (?:your|\w+)\b[^.?!]{0,30}"
    r"(?:notic|watch|look|check|catch|connect|spot|see)|"
    # Blame for how the reader's work is set up: "who designed that process", "I'd have
    # assumed a director would have had it in place long before now".
    r"(?:fair|reasonable|worth|natural) to ask (?:who|why|how)|"
    r"(?:i'?d|i would) have (?:assumed|expected)|(?:in place|sorted|fixed) long before now|"
    r"(?:do|doing) (?:this|it|things) properly|well-run (?:site|team|company|firm|"
    r"operation|utility|hotel|clinic|business)|shouldn'?t (?:happen|be happening)|"
    r"avoidable mistakes|worst \w+ (?:i'?ve|i have) (?:ever )?seen|"
    # Guilt and blame: the reader owes it, someone deserved better, on their watch.
    r"you owe it to|deserved better|on your watch|"
    r"(?:is|was|isn'?t|wasn'?t) (?:not )?(?:an accident|bad luck)\b(?! waiting)|"
    r"(?:management|leadership|risk management) (?:failure|outcome)|"
    # Belittling: their way belongs to another era, or never stood a chance.
    r"(?:a generation|decades) ago|last century|stone age|"
    r"(?:was|were|is|are) never going to (?:work|move|fix|cut|solve|catch|scale|help)|"
    r"help (?:you|your team) catch up|quite (?:a|the) (?:system|setup|process|approach)|"
    r"no judg(?:e)?ment|"
    # Round 12's packet V (tuning graphs): shaming said politely. A backhanded compliment
    # ("impressive for a team your size"), mild surprise at the reader's setup, peers
    # who "decided a while back", readiness to "catch up" or "take this seriously", and
    # the blame placed on the reader ("that lands on leadership").
    r"(?:impressive|good|not bad|decent|admirable) for a \w+ (?:of )?your size|"
    r"(?:a (?:little|bit) |somewhat |rather |quite )surprising,? (?:though,? )?that|"
    r"i(?:'m| am) (?:honestly |frankly |genuinely |a (?:little|bit) )?surprised (?:a |an |"
    r"that |the |your |to see )|priorities differ|i'?d gently point out|"
    r"(?:nobody|no one)(?:'s| is| was| has been| seems to be) (?:really )?(?:watching|"
    r"minding|paying attention|checking)|(?:hard|tough|difficult) (?:\w+ )?to defend|"
    r"(?:doesn'?t|does not|didn'?t|did not) happen by accident|"
    r"lands? (?:on|with) (?:leadership|management|the board)|"
    r"(?:ready|decide|decides) (?:it'?s time )?to (?:take (?:this|it) seriously|catch up|"
    r"modernize|modernise|join the rest)|"
    r"(?:decided|realised|realized|figured out|learned|learnt)\b[^.?!]{0,40}"
    r"(?:a while back|some time ago|a long time ago|years back)|"
    r"(?:left|moved|grew|got) (?:\w+ )?(?:behind|past|out of)[^.?!]{0,20}(?:a long time ago|"
    r"some time ago|a while back)|most serious (?:\w+ )?(?:teams|companies|firms|shops|"
    r"operators|organi[sz]ations|leaders)|"
    r"not (?:every|all) \w+ (?:gets?|get|moves?|makes?) (?:there|it)|"
    r"(?:i )?admire (?:\w+ )?(?:people|teams|coordinators|managers|folks|anyone|those) who "
    r"still|(?:you(?:'ve| have)|you'?re|you are) (?:been )?putting up with|"
    r"(?:might|may|will|could) finally (?:do something|get|stick|fix)|finally sticks|"
    r"plenty of \w+ are (?:comfortable|happy|fine|content) with (?:that|this|it)|"
    r"(?:frankly|to be blunt|i'?ll be (?:honest|direct|blunt|straight)|honestly|"
    r"let'?s be (?:straight|honest|blunt))[,:])",
)
_CONDESCENDING = re.compile(
    r"\b(?:let me (?:explain|spell (?:it|this) out)|(?:it'?s|this is) not rocket science|"
    r"even (?:you|your team) (?:can|could|should)|(?:simply|obviously|clearly) you "
    r"(?:need|should|don'?t)|you (?:probably|may) not (?:understand|realise|realize|"
    r"know) (?:this|that|how)|in (?:simple|plain) terms for you|"
    r"(?:surely|obviously) you (?:know|realise|realize|understand|can see))",
)
_INSULTS = re.compile(
    r"\b(?:amateur(?:ish)?|incompetent|clueless|stupid|idiot(?:s|ic)?|pathetic|lazy|"
    r"useless|dumb|ridiculous|laughable|sloppy|moron(?:s|ic)?|worthless|inept|dinosaurs?|"
    r"a joke|a mess|no idea what (?:you|they)|have no clue|don'?t have a clue)\b",
)
_THREAT = re.compile(
    r"\b(?:or else|you(?:'ll| will) regret|(?:let|tell) your (?:board|boss|ceo|manager)|"
    r"cc(?:'?ing)? your (?:ceo|boss|board)|legal action|name and shame|"
    r"(?:i|we)(?:'ll| will| would)? report you|"
    r"(?:there will be|face the) consequences|if you don'?t (?:respond|reply|act)[^.?!]{0,40}"
    r"(?:will|i'?ll|we'?ll)|"
    # Pressure: deadlines for a reply, calls threatened, going over the reader's head.
    r"(?:reply|respond|answer|get back to me|hear (?:back )?from you)[^.?!]{0,20}"
    r"(?:by|before|no later than) (?:today|tonight|tomorrow|end of (?:day|business)|eod|"
    r"close of business|noon|5 ?pm)|"
    r"(?:i'?ll|i will|we'?ll|we will) (?:keep )?(?:call(?:ing)?|ring(?:ing)?|chas(?:e|ing)|"
    r"follow(?:ing)? up)[^.?!]{0,30}(?:every day|daily|until|each day|again tomorrow|"
    r"first thing)|"
    r"(?:go|escalate|reach out|write|speak|talk) (?:directly )?(?:to|over) (?:your|the) "
    r"(?:gm|general manager|manager|boss|ceo|cfo|coo|board|superior|director|head)|"
    r"over your head|(?:need|expect|want|require) (?:an answer|a reply|a response|your "
    r"answer|a decision|a yes)[^.?!]{0,15}(?:today|now|immediately|by|asap)|"
    r"(?:this is|it'?s) (?:on you|your responsibility|your fault)|"
    r"every day you wait|each day you wait|(?:you|your team) (?:will|could) be "
    r"(?:held )?(?:responsible|liable|blamed)|"
    r"(?:reply|respond|answer|get back to me|write back)\s+(?:to me\s+)?(?:today|tonight|"
    r"now|immediately|asap|right away|within)|"
    r"(?:i'?ll|i will|we'?ll|we will) (?:call|ring|phone|drop by|stop by|visit|try) "
    r"(?:you|your)[^.?!]{0,30}(?:tomorrow|today|tonight|at \d|again|first thing)|"
    r"\bi need (?:\d+|a few|some|ten|fifteen|twenty|thirty) minutes|"
    r"(?:going to|will|is going to) ask (?:you )?why|"
    r"(?:teams|companies|people|those|leaders) (?:that|who) wait (?:on|for|end)|"
    r"can'?t (?:afford to )?wait)",
)


_TONES = (
    ("insult", _INSULTS, 0.8),
    ("threat", _THREAT, 0.8),
    ("shaming", _SHAMING, 0.6),
    ("passive-aggressive", _PASSIVE_AGGRESSIVE, 0.55),
    ("condescending", _CONDESCENDING, 0.5),
)
# A learning policy and the oracle write the same sentences again and again (the same
# facts in other frames): each sentence's tone is read once. The patterns never span
# sentences, so reading sentence by sentence finds what reading the text would.
_TONE_MEMO: dict[str, tuple[tuple[str, str], ...]] = {}
_MEMO_MAX = 100_000


def _tone_hits(sentence: str) -> tuple[tuple[str, str], ...]:
    hit = _TONE_MEMO.get(sentence)
    if hit is None:
        low = sentence.lower()
        hit = tuple((name, m.group(0)) for name, rx, _ in _TONES for m in rx.finditer(low))
        if len(_TONE_MEMO) >= _MEMO_MAX:
            _TONE_MEMO.clear()
        _TONE_MEMO[sentence] = hit
    return hit


# Every tone pattern at once: most emails match none, and one pass over their new
# sentences together (`any_of`, a few times faster than the patterns one by one)
# decides whether each sentence is read. Joined by newlines (a non-word, uncased
# character, like a string's edge to `\b` and to `lower`), a sentence matching some
# pattern makes the whole match, so a miss here is a miss for every sentence. None
# of the patterns has an anchor or a lookaround.
_ANY_TONE = any_of(*(rx for _, rx, _ in _TONES))


def tone(email: EmailText) -> tuple[float, str]:
    texts = (email.subject, *(s.text for s in email.sentences))
    new = [t for t in texts if t not in _TONE_MEMO]
    if new and not _ANY_TONE.found("\n".join(new).lower()):
        if len(_TONE_MEMO) + len(new) >= _MEMO_MAX:
            _TONE_MEMO.clear()
        _TONE_MEMO.update(dict.fromkeys(new, ()))
    hits: dict[str, list[str]] = {}
    for text in texts:
        for name, what in _tone_hits(text):
            hits.setdefault(name, []).append(what)
    found = [
        (f"{name} {hits[name][0][:40]!r}", min(0.9, cost + 0.15 * (len(hits[name]) - 1)))
        for name, _, cost in _TONES
        if name in hits
    ]
    return _score(found, "courteous")


# -- grammar and completeness ----------------------------------------------------------

_CAP_AFTER = re.compile(
    r"\b(?:because|since|that|which|and|but|so|while|when|as|or|of|the|a|an|to|is|are)"
    r"[ ]+(?!I\b|I'|CEO|CFO|COO|CTO|VP|AI|API|SLA|OK)([A-Z][a-z]{2,})\b"
)
# The capitalised word goes on into a name ("Pennsylvania and New York", "Long Beach")
_NAME_GOES_ON = re.compile(r" [A-Z][a-z]+")
_LOWER_AFTER_COLON = re.compile(r": (?:[A-Z][a-z]+ ){0,1}")
_CAP_AFTER_COLON_CLAUSE = re.compile(
    r"\b(?:matters because|reason is|this is why|the point is|problem is|which means)"
    r"[: ]+([A-Z][a-z]+)"
)
# Either capital pattern, as a first pass: most sentences have neither.
_ANY_CAP = any_of(_CAP_AFTER, _CAP_AFTER_COLON_CLAUSE)
_DANGLING_END = re.compile(
    # A preposition may end an English sentence ("what we built it for."); these
    # words may not.
    r"\b(?:and|or|but|because|which|the|a|an|while|since|leads to|such as|including|"
    r"by then|at the same time as|so that)\s*[.!?]?\s*$",
)
_ANY_DANGLING = any_of(_DANGLING_END)
_AGREEMENT_FORMS = (
    r"(?:we|they|you) (?:is|was|has|does|doesn'?t|helps|makes|gets|wants|needs|saves|"
    r"cuts|reduces|provides|offers|works|knows)|"
    r"i (?:is|are|has|does|doesn'?t|helps|makes|gets|wants|needs|knows)|"
    r"(?:he|she|it|this|our (?:tool|product|platform|system|software|solution)) "
    r"(?:are|were|do|don'?t|help|make|reduce|provide|offer|give|save|cut|work)\b|"
    r"(?:can|could|will|would|should|must|may|might) (?:to \w+|\w+s|\w+ed|\w+ing)\b|"
    r"(?:more|most) (?:better|worse|faster|easier|cheaper|bigger)|"
    r"a (?:[aeio]\w+)|an (?:[bcdfgjklmnpqrstvwxz]\w+)|"
    r"(?:don'?t|doesn'?t|didn'?t) \w+ed\b|"
    r"(?:me and (?:my|the) team|me and \w+) (?:can|will|would)"
)
# A modal or an auxiliary just before "it"/"they" + verb: a question or a
# causative, where the bare verb is right ("Would it help if we ...?").
_INVERTED = re.compile(
    r"\b(?:would|could|should|will|can|may|might|must|does|did|do|let|lets|make|makes|"
    r"made|helps?|to)\s+$"
)
# "owners who miss it are locked in": "it" is the object of a relative clause's verb
_OBJECT_IT = re.compile(r"\b(?:who|that|which)\s+\w+\s+$")
_AGREEMENT = re.compile(rf"\b(?:{_AGREEMENT_FORMS}|(\w{{3,}}) \1)\b")
# A first pass for it: the forms (no back-reference) grouped by `any_of`, and the
# repeated word ("the the") searched from the non-word character before it.
_ANY_AGREEMENT = any_of(re.compile(rf"\b(?:{_AGREEMENT_FORMS})\b"))
_REPEATED_WORD = re.compile(r"\W(\w{3,}) \1\b")  # in " " + text, as `any_of` reads
# The same on an ASCII text, where `\W` and `\w` are these classes (and `\b` reads
# them alike): `re` tests an ASCII class with a bitmap, not a Unicode lookup.
_REPEATED_WORD_ASCII = re.compile(r"[^a-zA-Z0-9_]([a-zA-Z0-9_]{3,}) \1\b")


def _repeated_word(low: str) -> bool:
    """Whether a word of three or more characters comes twice in a row."""
    rx = _REPEATED_WORD_ASCII if low.isascii() else _REPEATED_WORD
    return rx.search(" " + low) is not None


# Words that end in -s/-ed/-ing without being a wrong verb form after a modal.
_MODAL_OK = re.compile(
    r"(?:can|could|will|would|should|must|may|might) (?:\w*eed|\w*ss|\w*us|\w*is|this|"
    r"always|perhaps|sometimes|nevertheless|afterwards|towards|as|us|bring|spring|string|"
    r"sing|ring|nothing|something|anything|everything|bias|red|shed|bed|wed|embed|led|"
    r"shred|sled)\b",
    _I,
)
_ARTICLE_OK = re.compile(
    r"(?:a (?:one|once|unit|uni\w+|use\w*|user\w*|usual\w*|euro\w*|eu\w+|u\.)|"
    r"an (?:hour\w*|honest\w*|honou?r\w*|heir\w*|x\w*))\b",
    _I,
)
_RUN_ON_WORDS = 45
_FRAGMENT_VERBLESS = re.compile(
    r"\b(?:is|are|was|were|be|been|has|have|had|do|does|did|can|could|will|would|should|"
    r"may|might|must|\w+(?:s|ed|es))\b",
    _I,
)


# (problem, the capitalised word when the problem is a capital mid-sentence)
_Problem = tuple[str, str | None]
_PROBLEM_MEMO: dict[tuple[str, frozenset[str]], list[_Problem]] = {}


def _sentence_problems(text: str, common: frozenset[str]) -> list[_Problem]:
    """Memoised per sentence and graph vocabulary (a policy repeats its sentences; a
    frozenset keeps its hash, so the key costs one string hash)."""
    key = (text, common)
    hit = _PROBLEM_MEMO.get(key)
    if hit is None:
        hit = _sentence_problems_of(text, common)
        if len(_PROBLEM_MEMO) >= _MEMO_MAX:
            _PROBLEM_MEMO.clear()
        _PROBLEM_MEMO[key] = hit
    return hit


def _read_new_sentences(texts: list[str], common: frozenset[str]) -> None:
    """Memoise the problems of the sentences not yet read, with the capital and
    agreement first passes run once over them all, joined by newlines: none of those
    patterns reads a newline (like a text's edge to `\b`), so where the whole has
    no match no sentence has one."""
    new = [t for t in dict.fromkeys(texts) if (t, common) not in _PROBLEM_MEMO]
    if not new:
        return
    joined = "\n".join(new)
    low = joined.lower()
    cap = _ANY_CAP.found(joined)
    agreement = _ANY_AGREEMENT.found(low) or _repeated_word(low)
    if len(_PROBLEM_MEMO) + len(new) >= _MEMO_MAX:
        _PROBLEM_MEMO.clear()
    for t in new:
        _PROBLEM_MEMO[(t, common)] = _sentence_problems_of(t, common, cap, agreement)


def _sentence_problems_of(
    text: str, common: frozenset[str], cap: bool = True, agreement: bool = True
) -> list[_Problem]:
    """`cap`, `agreement`: False when a first pass over this sentence (and maybe
    others) found no capital or agreement problem, so their patterns are not read."""
    probs: list[_Problem] = []
    words = text.split()
    if not words:
        return probs
    first = words[0].lstrip("\"'(“‘")
    if first[:1].isalpha() and first[:1].islower():
        probs.append((f"starts lower-case {text[:25]!r}", None))
    if (
        cap
        and _ANY_CAP.found(text)
        and (
            (m := _CAP_AFTER.search(text)) is not None
            and not _proper_noun(m.group(1), common)
            and not _NAME_GOES_ON.match(text, m.end(1))
            and TITLE_OF.search(text, 0, m.end(1)) is None
            or (m := _CAP_AFTER_COLON_CLAUSE.search(text)) is not None
            and not _proper_noun(m.group(1), common)
        )
    ):
        probs.append((f"capital mid-sentence {m.group(0)[:30]!r}", m.group(1).lower()))
    low = text.lower()
    if len(words) > 2 and _ANY_DANGLING.found(low):
        probs.append((f"ends on a connector {text[-25:]!r}", None))
    if len(words) > _RUN_ON_WORDS:
        probs.append((f"run-on ({len(words)} words)", None))
    agreement = agreement and (_ANY_AGREEMENT.found(low) or _repeated_word(low))
    for m in _AGREEMENT.finditer(low) if agreement else ():
        span = text[m.start() : m.end()]
        if _MODAL_OK.match(span) or _ARTICLE_OK.match(span):
            continue
        if span[:3].lower() == "an " and span[3:].split()[0].isupper():
            continue  # "an SLA", "an MRI": a letter name that starts with a vowel sound
        if _INVERTED.search(low, 0, m.start()) or _OBJECT_IT.search(low, 0, m.start()):
            continue  # "Would it help ...?", "Does it work", "let it help": no subject-verb pair
        probs.append((f"ungrammatical {span[:25]!r}", None))
        break
    return probs


# Capitalised words that are ordinary mid-sentence: names of days, months, languages.
_PROPER_COMMON = CALENDAR_WORDS | frozenset(
    [
        "english",
        "european",
        "american",
        "british",
    ]
)
_PROPER_NOUNS: set[str] = set()


def _proper_noun(word: str, common: frozenset[str]) -> bool:
    """A capitalised word read as a name: anything but a common word in sentence case.
    Common words are those written in lower case in the email or the graph
    (`common`), or a short built-in list of function words."""
    low = word.lower()
    if low in _PROPER_COMMON:
        return True
    return low not in _COMMON_LOWER and low not in common


_COMMON_LOWER = frozenset(
    [
        "much",
        "many",
        "most",
        "some",
        "the",
        "this",
        "that",
        "these",
        "those",
        "there",
        "their",
        "they",
        "our",
        "your",
        "every",
        "each",
        "knowing",
        "understanding",
        "standard",
        "standards",
        "managing",
        "tracking",
        "keeping",
        "making",
        "using",
        "having",
        "being",
        "getting",
        "finding",
        "building",
        "running",
        "reducing",
        "improving",
        "ensuring",
        "providing",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "how",
        "why",
        "it",
        "its",
        "if",
        "in",
        "on",
        "at",
        "by",
        "for",
        "from",
        "with",
        "without",
        "about",
        "after",
        "before",
        "during",
        "into",
        "through",
        "over",
        "under",
        "between",
        "against",
        "among",
        "across",
        "all",
        "any",
        "both",
        "few",
        "more",
        "other",
        "such",
        "only",
        "own",
        "same",
        "so",
        "than",
        "too",
        "very",
        "can",
        "will",
        "just",
        "should",
        "now",
        "also",
        "because",
        "but",
        "and",
        "or",
        "not",
        "no",
        "nor",
        "yet",
        "as",
        "an",
        "a",
        "one",
        "two",
        "three",
    ]
)


_LOWER_WORD = re.compile(r"(?<![.!?:]\s)\b([a-z][a-z'-]+)\b")


def lower_words(text: str) -> frozenset[str]:
    """Words a text writes in lower case (so are not names when capitalised)."""
    return frozenset(_LOWER_WORD.findall(text))


def grammar(email: EmailText, common: frozenset[str] = frozenset()) -> tuple[float, str]:
    """Problems per prose sentence; a sentence counts once. `common`: words the graph
    writes in lower case."""
    prose = email.prose
    if not prose:
        return (1.0, "no prose") if not email.tokens else (0.3, "no sentences")
    in_body: frozenset[str] | None = None  # read only for a capital mid-sentence
    _read_new_sentences([s.text.strip() for s in prose], common)
    bad: list[str] = []
    for s in prose:
        # A capitalised word this very email writes in lower case elsewhere is a
        # common word, not a name: read against the email as well as the graph.
        probs = []
        for p, word in _sentence_problems(s.text.strip(), common):
            if word is not None:
                if in_body is None:
                    in_body = lower_words(email.body)
                if word in in_body:
                    continue
            probs.append(p)
        # A prose line with no end mark, unless it is the last line before a sign-off
        # or an item of a list ("- Tags alert the worker and the operator"), which
        # needs none (round 12: LLM-written emails lost their grammar score to theirs).
        text = s.text.strip()
        unended = (
            text[-1:] not in ".!?:)\"'”" and len(s.tokens) > 3 and LIST_ITEM.match(text) is None
        )
        if not probs and unended and s is not prose[-1]:
            probs = [f"no end mark {s.text[-20:]!r}"]
        if probs:
            bad.append(probs[0])
    if not bad:
        return 1.0, "complete sentences"
    share = len(bad) / len(prose)
    score = max(0.0, 1.0 - 0.35 * len(bad) - 0.5 * share)
    return score, f"{len(bad)} of {len(prose)} sentences broken: {bad[0]}"


def _score(found: list[tuple[str, float]], clean: str) -> tuple[float, str]:
    if not found:
        return 1.0, clean
    s = 1.0
    for _, cost in found:
        s *= 1.0 - cost
    return s, "; ".join(w for w, _ in found)
