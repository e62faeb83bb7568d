"""Word lists the rubric judge uses, kept apart so the rubric reads as rules."""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Common English function words. Their share of an email's words tells English
# prose from other languages; they are also the stop-words of content overlap.
EN_FUNCTION_WORDS = _words(
    """
    a about above across after again against all almost also although am among an and
    another any anyone anything are around as at be because been before being below
    between both but by can cannot could did do does doing done down during each either
    enough even ever every few for from further had has have having he her here hers him
    his how however i if in into is it its itself just least less let like may me might
    more most much must my myself neither no nor not now of off often on once one only
    onto or other others our ours out over own per perhaps quite rather same she should
    since so some something still such than that the their theirs them themselves then
    there these they this those though through thus to too toward towards under unless
    until up upon us very via was we well were what whatever when where whether which
    while who whom whose why will with within without would yet you your yours yourself
    s t m d ll re ve
    """
)

# Function words of languages an LLM most often slips into. Words that are also
# English (e.g. German "die", French "on") are left out.
FOREIGN_FUNCTION_WORDS: dict[str, frozenset[str]] = {
    "French": _words(
        """le la les des du est et une un pour dans qui que avec sur pas nous vous votre vos
        au aux ce cette ces sont je mais ou où par plus leur leurs très être été avons avez
        ne se sa son ses mon ma mes notre nos elle ils elles lui y en"""
    ),
    "German": _words(
        """der das und ist nicht mit für sie ich wir ein eine einen einem einer zu den dem
        auf auch es sich bei ihr ihre ihren oder wie sind uns werden wird haben hat sehr
        kann können unser unsere unseren ihnen über nach vom zum zur"""
    ),
    "Spanish": _words(
        """el los las y del por para con una que su sus lo como más pero nuestro nuestra
        usted ustedes es está están son muy sobre también le les se mi tu"""
    ),
}

# Words and phrases that add a step to an argument ("A, which means B"). The judge
# counts those the writer added on top of the cited content.
CONNECTIVE_WORDS = _words("because therefore thus hence so consequently")
CONNECTIVE_PHRASES = (
    "so that",
    "which means",
    "that means",
    "this means",
    "as a result",
    "in turn",
    "that is why",
    "that's why",
    "which is why",
    "this is why",
    "leads to",
    "lead to",
    "led to",
    "brings us to",
    "this is where",
    "that is where",
    "which is where",
    "on top of that",
    "building on",
    "given that",
    "due to",
    "driven by",
    "in other words",
)

# Phrases spam filters and readers both dislike (matched as whole words, lower case).
SPAM_PHRASES = (
    "act now",
    "buy now",
    "click here",
    "limited time",
    "limited offer",
    "order now",
    "risk-free",
    "risk free",
    "100% free",
    "100% guaranteed",
    "100% satisfied",
    "guarantee",
    "guaranteed",
    "no obligation",
    "once in a lifetime",
    "don't miss out",
    "dont miss out",
    "don't miss this",
    "exclusive deal",
    "special promotion",
    "urgent",
    "winner",
    "earn money",
    "earn cash",
    "extra cash",
    "extra income",
    "free gift",
    "free trial",
    "cash bonus",
    "amazing deal",
    "amazing offer",
    "incredible deal",
    "incredible offer",
    "best price",
    "lowest price",
    "apply now",
    "call now",
    "sign up now",
    "sign up today",
    "what are you waiting for",
    "double your",
    "$$",
)
