"""Judges: the rubric (default, offline), an LLM judge, RULER, and feedback mixing."""
