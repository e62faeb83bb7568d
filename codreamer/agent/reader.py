"""Who reads the email, as far as a title and an industry tell: seniority, function,
and whether the industry is a regulated, formal one.

Two parts use it and must agree: the embedded policy (its style inputs: the
reader's seniority and function are what a style choice is learned against) and
the rubric's `fit` criterion (DESIGN §4: an email pitched at the wrong level for
its reader gets fewer replies). It is a pure function of the prospect; nothing
here is learned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

SENIORITY = ("executive", "director", "manager", "individual")
FUNCTIONS = ("technical", "operations", "finance", "compliance", "commercial")

_SENIORITY_WORDS = (
    (
        "executive",
        r"\b(chief|c[etfoi]o|ciso|cdo|cpo|cro|vp|vice president|president|founder|co-founder|"
        r"owner|partner|general manager|managing director|svp|evp)\b",
    ),
    ("director", r"\b(director|head)\b"),
    ("manager", r"\b(manager|lead|supervisor|principal)\b"),
)
_FUNCTION_WORDS = (
    (
        "technical",
        r"\b(engineer\w*|technolog\w*|cto|cio|it|data|platform|software|devops|"
        r"ml|ai|machine learning|architect\w*|developer|digital|systems?|security|research\w*|"
        r"scientist|analytic\w*|analyst|bi|business intelligence|insights?)\b",
    ),
    (
        "operations",
        r"\b(operations?|logistics|supply|fleet|dispatch|warehouse|coo|maintenance|"
        r"transport\w*|distribution|procurement|production|plant)\b",
    ),
    ("finance", r"\b(financ\w*|finops|cfo|controller|accounting|treasur\w*|budget)\b"),
    (
        "compliance",
        r"\b(quality|safety|compliance|audit\w*|risk|regulat\w*|legal|counsel|"
        r"assurance|qa|privacy|protection|gdpr)\b",
    ),
    (
        "commercial",
        r"\b(sales|marketing|revenue|growth|customer|commercial|account\w*|"
        r"partnerships?|product|business development|ceo)\b",
    ),
)
# Industries where a stranger writes "Dear …" (and a chatty "Hi" reads as careless).
_FORMAL_INDUSTRY = re.compile(
    r"\b(pharma\w*|bank\w*|insur\w*|legal|law|government|public sector|healthcare|health care|"
    r"hospital\w*|medical|clinical|financial services|defen[cs]e|regulat\w*|utilit\w*)\b"
)
_SENIORITY_RE = tuple((name, re.compile(p)) for name, p in _SENIORITY_WORDS)
_FUNCTION_RE = tuple((name, re.compile(p)) for name, p in _FUNCTION_WORDS)


@dataclass(frozen=True, slots=True)
class Reader:
    seniority: str | None  # one of SENIORITY; None when there is no title
    functions: frozenset[str]  # a subset of FUNCTIONS
    formal_industry: bool

    @property
    def senior(self) -> float:
        """1 for an executive down to 0 for an individual contributor (0.5 unknown)."""
        if self.seniority is None:
            return 0.5
        return {"executive": 1.0, "director": 2 / 3, "manager": 1 / 3}.get(self.seniority, 0.0)

    @property
    def formal(self) -> bool | None:
        """Whether a formal register is expected (True), a peer one (False), or either."""
        if self.formal_industry:
            return True
        if self.seniority == "executive" and "technical" not in self.functions:
            return True
        if "technical" in self.functions or self.seniority in ("manager", "individual"):
            return False
        return None


@lru_cache(maxsize=4096)
def reader(title: str | None, industry: str | None) -> Reader:
    t = (title or "").lower()
    level: str | None = None
    if t.strip():
        level = "individual"
        for name, pattern in _SENIORITY_RE:
            if pattern.search(t):
                level = name
                break
    functions = frozenset(name for name, pattern in _FUNCTION_RE if pattern.search(t))
    formal = bool(_FORMAL_INDUSTRY.search((industry or "").lower()))
    return Reader(level, functions, formal)
