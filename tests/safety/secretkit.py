"""Fake secrets of every kind earnest redacts, built at run time (no key-shaped literal sits in
the repository for a scanner to flag). None of them is a real credential."""

from __future__ import annotations

import random

_R = random.Random(20261201)
_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def _s(n: int, alphabet: str = _ALNUM) -> str:
    return "".join(_R.choice(alphabet) for _ in range(n))


def _hex(n: int) -> str:
    return _s(n, "0123456789abcdef")


AWS_SECRET = _s(18) + "/" + _s(10) + "+" + _s(10)  # 40 characters, as AWS prints them

SECRETS: dict[str, str] = {
    "openai-project": "sk-" + "proj-" + _s(74) + "T3Blbk" + "FJ" + _s(74),
    "openai-legacy": "sk-" + _s(20) + "T3Blbk" + "FJ" + _s(20),
    "openai-short": "sk-" + "proj-" + _s(32),
    "anthropic": "sk-" + "ant-api03-" + _s(93) + "AA",
    "anthropic-admin": "sk-" + "ant-admin01-" + _s(93) + "AA",
    "openrouter": "sk-" + "or-v1-" + _hex(64),
    "github-pat": "gh" + "p_" + _s(36),
    "github-oauth": "gh" + "o_" + _s(36),
    "github-fine-grained": "github" + "_pat_" + _s(22) + "_" + _s(59),
    "gitlab": "gl" + "pat-" + _s(20),
    "aws-key-id": "AK" + "IA" + _s(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"),
    "slack-bot": "xo" + "xb-" + _s(12, "0123456789") + "-" + _s(13, "0123456789") + "-" + _s(24),
    "slack-user": "xo" + "xp-" + _s(12, "0123456789") + "-" + _s(12, "0123456789") + "-" + _s(32),
    "google": "AI" + "za" + _s(35),
    "huggingface": "h" + "f_" + _s(34, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"),
    "npm": "np" + "m_" + _s(36),
    "stripe": "sk" + "_live_" + _s(24),
    "sendgrid": "S" + "G." + _s(22) + "." + _s(43),
    "groq": "gs" + "k_" + _s(52),
    "jwt": "ey" + "J" + _s(30) + ".ey" + "J" + _s(40) + "." + _s(43),
    "twilio": "S" + "K" + _hex(32),
    "digitalocean": "do" + "p_v1_" + _hex(64),
}
"""Kind → a fake secret of that kind."""

AWS_LINE = f"aws_access_key_id = {SECRETS['aws-key-id']}\naws_secret_access_key = {AWS_SECRET}"
PRIVATE_KEY = (
    "-----BEGIN "
    + "RSA PRIVATE KEY-----\n"
    + _s(64)
    + "\n"
    + _s(64)
    + "\n-----END RSA PRIVATE KEY-----"
)
BEARER = "Authorization: Bearer " + _s(40)


def everything() -> str:
    """One text holding every secret, as an agent's transcript would (env dumps, configs)."""
    lines = [f"export KEY_{n.upper().replace('-', '_')}={v}" for n, v in SECRETS.items()]
    return "\n".join([*lines, AWS_LINE, PRIVATE_KEY, BEARER])


def raw_secrets() -> list[str]:
    """Every secret string that must not appear in redacted output."""
    return [*SECRETS.values(), AWS_SECRET, PRIVATE_KEY.splitlines()[1], BEARER.split()[-1]]
