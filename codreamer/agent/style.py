"""How an email is written, apart from which facts it uses: the style part of the
embedded policy's action (DESIGN §3). The writer (agent/writer/) turns it into
wording; the policy learns which option suits which reader.

Each choice is an index into a small list of options:

    angle     0 risk: lead with what goes wrong    1 outcome: lead with what changes
              2 how: walk through how it works
    register  0 peer: first name, "Hi"/"Best"     1 formal: "Dear", title and surname
              when the name carries one, "Kind regards"
    length    0 brief (the facts' core clauses)   1 standard (the product's reason)
              2 detailed (every step's reason)
    ask       0 soft: a question that leaves room 1 direct: the goal with a time
    subject   0 the reader's problem as a topic   1 the problem as a question to them
"""

from __future__ import annotations

from dataclasses import dataclass

ANGLES = ("risk", "outcome", "how")
REGISTERS = ("peer", "formal")
LENGTHS = ("brief", "standard", "detailed")
ASKS = ("soft", "direct")
SUBJECTS = ("topic", "question")
STYLE_CHOICES: tuple[tuple[str, int], ...] = (
    ("angle", len(ANGLES)),
    ("register", len(REGISTERS)),
    ("length", len(LENGTHS)),
    ("ask", len(ASKS)),
    ("subject", len(SUBJECTS)),
)


@dataclass(frozen=True, slots=True)
class EmailStyle:
    """The style part of the embedded policy's action: an index per choice."""

    angle: int = 0
    register: int = 0
    length: int = 1
    ask: int = 0
    subject: int = 0

    def __post_init__(self) -> None:
        for name, n in STYLE_CHOICES:
            value = getattr(self, name)
            if not 0 <= value < n:
                raise ValueError(f"EmailStyle.{name} must be in [0, {n - 1}], got {value}")

    def as_dict(self) -> dict[str, int]:
        return {name: getattr(self, name) for name, _ in STYLE_CHOICES}

    @property
    def angle_name(self) -> str:
        return ANGLES[self.angle]

    @property
    def formal(self) -> bool:
        return REGISTERS[self.register] == "formal"


DEFAULT_STYLE = EmailStyle()


def _all_styles() -> tuple[EmailStyle, ...]:
    out = [EmailStyle()]
    for name, n in STYLE_CHOICES:
        out = [EmailStyle(**{**s.as_dict(), name: k}) for s in out for k in range(n)]
    return tuple(out)


ALL_STYLES: tuple[EmailStyle, ...] = _all_styles()
