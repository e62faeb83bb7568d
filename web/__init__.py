"""CoDreamer dashboard: the webhook receiver and the live page (DESIGN §8).

Deploys on its own: nothing here imports from `codreamer/`; it talks to the
backend only over HTTP.
"""
