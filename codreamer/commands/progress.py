"""Terminal presentation of a learn-loop: Rich progress bars per step, a results table."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.panel import Panel
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from codreamer.commands.common import cli_command
from codreamer.loop.learn_loop import STEPS, step_slot

STEP_LABELS = {
    "generate": "step 1 generate",
    "score": "step 2 score",
    "train": "step 3 train",
    "kg_weights": "step 4 KG weights",
    "email": "iteration email",
}


class LoopProgress:
    """An event listener that drives one progress bar per step."""

    def __init__(
        self, console: Console, iterations: int, start: int = 0, trainer: str | None = None
    ) -> None:
        self.progress = Progress(
            TextColumn("{task.description:<18}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
        )
        labels = dict(STEP_LABELS)
        if trainer:
            labels["train"] = f"step 3 {'GRPO' if trainer == 'grpo' else trainer}"
        self.tasks = {
            s: self.progress.add_task(labels[s], total=iterations, completed=start) for s in STEPS
        }

    def __enter__(self) -> LoopProgress:
        self.progress.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.progress.__exit__(*exc)

    def __call__(self, event: dict[str, Any]) -> None:
        if event.get("type") == "step_finished" and event.get("step"):
            slot = step_slot(str(event["step"]))
            if slot is not None:
                self.progress.advance(self.tasks[slot])
        elif event.get("type") == "iteration_finished" and event.get("iteration", 0) > 0:
            self.progress.advance(self.tasks["email"])


# What the summary table's columns mean, printed under it.
COLUMNS_EXPLAINED = (
    "mean, median, min, max: rewards of the iteration's sampled emails. greedy: the "
    "reward of the email the policy writes when it takes its most likely choice at "
    "every step (no sampling). best: the best judged email so far. no spread: the "
    "share of groups whose emails all scored the same."
)


def prospect_words(prospect: dict[str, Any] | None) -> str:
    """ "Priya Natarajan (VP Operations, Northfield Dairy)", or "the reader"."""
    if not prospect or not prospect.get("name"):
        return "the reader"
    role = ", ".join(str(prospect[k]) for k in ("title", "company") if prospect.get(k))
    return f"{prospect['name']} ({role})" if role else str(prospect["name"])


def print_summary(console: Console, summary: dict[str, Any]) -> None:
    who = prospect_words(summary.get("final_prospect"))
    table = Table(
        title=f"Run {summary['run_id']}: rewards of the emails to {who}",
        caption=COLUMNS_EXPLAINED,
        caption_justify="left",
        show_lines=False,
    )
    for col in ("iteration", "mean", "median", "min", "max", "greedy", "best", "no spread"):
        table.add_column(col, justify="right")
    for m in summary["iterations"]:
        table.add_row(
            str(m["iteration"]),
            *(f"{m[k]:.3f}" if k in m else "-" for k in ("mean", "median", "min", "max")),
            *(
                f"{m[k]:.3f}" if m.get(k) is not None else "-"
                for k in ("greedy_reward", "best_reward")
            ),
            f"{m['frac_reward_zero_std']:.0%}" if "frac_reward_zero_std" in m else "-",
        )
    console.print(table)
    prospects = len(summary.get("prospects") or [])
    email = summary.get("final_email")
    if email:
        cites = ", ".join(email["citations"])
        subject, text = email["subject"], email["body"]
        body = f"[bold]{subject}[/bold]\n\n{text}\n\n[dim]citations: {cites}[/dim]"
        it = summary.get("final_iteration")
        how = "greedy" if summary.get("final_from_greedy") else "sampled"
        console.print(f"final email to {who}")
        if it is not None:
            console.print(f"the best judged in the run: iteration {it}, {how}")
        console.print(Panel(body, expand=False))
    line = (
        f"final reward {summary['final_reward']:.3f}"
        if summary.get("final_reward") is not None
        else ""
    )
    if summary.get("greedy_reward") is not None:
        line += f"   trained policy's greedy email {summary['greedy_reward']:.3f}"
    if summary.get("stopped_early"):
        line += f"   (converged: stopped after iteration {summary['iterations_run']})"
    if summary.get("oracle_reward") is not None:
        line += f"   oracle {summary['oracle_reward']:.3f}"
    if line:
        console.print(line)
    if prospects > 1:
        console.print(
            f"the run wrote to {prospects} prospects; this is the first one's email: "
            f"`{cli_command()} evaluate --run {summary['run_id']}` shows each one's"
        )
    console.print(f"results: {summary['results_path']}")
