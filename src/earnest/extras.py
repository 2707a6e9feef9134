"""How to install an optional extra, said the same way by every message that needs one.

earnest is installed from an index (``pip install earnest``) or from a checkout
(``pip install -e .``); an extra's install line differs between the two, so every "needs X"
message gives both.

Example:
    >>> install_hint("dask")
    "pip install 'earnest[dask]' (from a checkout: pip install -e '.[dask]')"
"""

from __future__ import annotations


def install_hint(extra: str) -> str:
    """The install line for ``extra``, in its index form and its checkout form."""
    return f"pip install 'earnest[{extra}]' (from a checkout: pip install -e '.[{extra}]')"


__all__ = ["install_hint"]
