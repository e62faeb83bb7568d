"""The rubric judge (DESIGN §4): explainable criteria and a total fitted on readers' grades.

`judge.py` holds `RubricJudge`; each criterion lives in a module of its own; the
fitted total (`total.py`) reads its parameters from `total.json`.
"""

from codreamer.judge.rubric.bands import *  # noqa: F403
from codreamer.judge.rubric.judge import (
    CRITERIA,
    FEATURES,
    GATES,
    GRAPH_CRITERIA,
    WEIGHTED,
    RubricJudge,
    combine,
    criterion,
)

__all__ = [
    "CRITERIA",
    "FEATURES",
    "GATES",
    "GRAPH_CRITERIA",
    "WEIGHTED",
    "RubricJudge",
    "combine",
    "criterion",
]
