"""earnest: check whether an LLM agent's word is backed by its behaviour.

Two halves share one stance, *no credit without evidence*:

- ``earnest.pressure``: do an agent's written rules hold under stacked pressure?
- ``earnest.effects``: does "done" mean something verifiable happened?

The CLI (``earnest``) is a thin layer over these packages.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
