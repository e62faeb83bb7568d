"""CoDreamer: reinforcement-learned, knowledge-grounded sales outreach."""

__version__ = "0.1.0"
