"""Pin the whole resolved dependency set, transitive too, in pyproject.toml.

    uv sync --extra art --extra celery && uv run python scripts/pin_dependencies.py \
        && uv sync --extra art --extra celery

writes every installed distribution of the project's environment (the default
install, the `art` and `celery` extras and the dev group: what `.ci/run` installs) as
`name==version` into `[tool.uv] constraint-dependencies`. uv applies those to every
resolution, so an install months from now gets the same starlette, h11, anyio,
urllib3... as today. Unlike a lock file this records no download addresses, only
names and versions, so any PyPI mirror serves it. tests/test_pins.py fails when the
installed set drifts from the pins (a new transitive dependency, another version):
then run this again and commit the result.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
BEGIN = "# BEGIN pins (scripts/pin_dependencies.py)"
END = "# END pins"


def frozen() -> list[str]:
    out = subprocess.run(
        ["uv", "pip", "freeze", "--exclude-editable", "--python", sys.executable],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    pins = sorted(
        (line.strip() for line in out.splitlines() if "==" in line),
        key=lambda p: p.split("==")[0].lower(),
    )
    if not pins:
        raise SystemExit(
            "uv pip freeze listed nothing: run `uv sync --extra art --extra celery` first"
        )
    return pins


def render(pins: list[str]) -> str:
    body = "\n".join(f'  "{p}",' for p in pins)
    return f"constraint-dependencies = [\n  {BEGIN}\n{body}\n  {END}\n]"


def main() -> None:
    text = PYPROJECT.read_text()
    block = render(frozen())
    pattern = re.compile(r"constraint-dependencies = \[\n  # BEGIN pins.*?# END pins\n\]", re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _: block, text)
    elif "[tool.uv]" in text:
        text = text.replace("[tool.uv]\n", f"[tool.uv]\n{block}\n", 1)
    else:
        text = text.rstrip("\n") + f"\n\n[tool.uv]\n{block}\n"
    PYPROJECT.write_text(text)
    print(f"pinned {block.count('==')} distributions in {PYPROJECT.name}")


if __name__ == "__main__":
    main()
