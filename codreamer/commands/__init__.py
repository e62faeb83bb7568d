"""The `codreamer` commands, by topic; `codreamer.cli` builds the app from them.

Each module has a `register` function that adds its commands to the shared Typer
apps, and imports its heavy modules inside the commands, so `codreamer --help`
answers at once.
"""
