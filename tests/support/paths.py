"""Where the tests find the checkout, its sample data and the reference graphs."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "data"
# Screenshots and other files a human looks at after a browser test.
ARTIFACTS = REPO / "test-artifacts"
# The reference graphs sit beside the checkout (../shared/kg); a git worktree one
# level deeper (wt/<name>) finds them one level further up.
SHARED = next(
    (p for p in (REPO.parent / "shared", REPO.parents[1] / "shared") if (p / "kg").is_dir()),
    REPO.parent / "shared",
)
KG = SHARED / "kg"
