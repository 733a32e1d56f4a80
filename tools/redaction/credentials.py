"""Credentials out of messages and logs: the service's own tokens and keys, and their shapes.

`scrub_credentials` is what every message that may quote a remote, a request or a response goes
through before a log line or a user sees it. It hides

- the secrets the caller knows (a GitHub token, an API key), exactly, however short;
- userinfo in a URL (`https://user:secret@host`): a credential even when the bot never put one
  there, since an operator might have, and git repeats URLs in its messages;
- anything shaped like a GitHub token, and any JSON `"token"` field: PyGithub logs the body of
  the installation-token response before the caller even knows the token.
"""

from __future__ import annotations

from collections.abc import Iterable

from tools import linear_re
from tools.linear_re import SPACE
from tools.redaction.marker import REDACTED

# RE2 (linear): under Python's re, the unanchored scheme scanned a run of letters from each of
# its starts (2 s for 20,000 letters). SPACE keeps re's `\s`, so the matches are re's.
_URL_USERINFO = linear_re.compile(rf"(?i)(?P<scheme>[a-z][a-z0-9+.-]*://)[^/@{SPACE[1:-1]}]+@")
_TOKEN_SHAPES = linear_re.compile(r"gh[pousr]_[A-Za-z0-9_]{8,}|github_pat_[A-Za-z0-9_]{8,}")
_JSON_TOKEN = linear_re.compile(rf"""(?P<key>["']token["']{SPACE}*:{SPACE}*["'])[^"']+""")


def scrub_credentials(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with every given secret, URL userinfo and token-shaped string replaced by REDACTED."""
    # Longest first: a secret that contains another is hidden whole, not around the shorter one.
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    text = _URL_USERINFO.sub(lambda m: f"{m['scheme']}{REDACTED}@", text)
    text = _JSON_TOKEN.sub(lambda m: f"{m['key']}{REDACTED}", text)
    return _TOKEN_SHAPES.sub(REDACTED, text)


def has_url_userinfo(url: str) -> bool:
    """Whether `url` starts with a scheme and carries userinfo (`scheme://user[:secret]@...`)."""
    return _URL_USERINFO.match(url.strip()) is not None
