"""What the mask looks for, for one Secret value: literal spellings, and canonical strings whose
every eight characters in a row are masked (grams.py).

A value is one of three kinds:

- an atom: one line, not a JSON document (a password, a token, a connection string, a
  passphrase). Its canonical form (canonical.py), that form reversed, and its base64 at each of
  the three byte alignments go to the gram index: any eight of its letters and digits in order,
  however escaped, separated, cased, reversed, cut or base64-encoded (alone or inside a larger
  base64 blob), are masked.
- a document: several lines, a JSON object or array on one line, or a URL (a config file, a
  kubeconfig, a certificate, `.dockerconfigjson`, a database URL with its password). Its words
  are mostly the vocabulary of every manifest ("apiVersion", "password", "receiver"): indexing
  them would mask those words everywhere. So a document is masked whole, and its tokens that
  look like credentials - at least eight letters and digits, mixing both (a key, a password, a
  line of a certificate, a base64 `auth`) - go to the gram index, as atoms do; the lines
  holding one (of at least `MIN_LINE_LENGTH` characters) are masked whole too, in every
  literal spelling. A passphrase of words alone inside a config file is found only with the
  whole file.
- a short atom: fewer than eight letters and digits, or fewer than twelve that do not mix
  letters and digits (grams.py's `telling`: eight letters alone are as often a word as a
  secret). It is masked only whole, in every literal spelling below, and only from
  `MIN_VALUE_LENGTH` characters: a one- to three-character value ("1", "yes", "dev") occurs
  all over any diff, masking it would black out unrelated text, and a value that short protects
  nothing anyway. A boolean or null spelled as a string ("true", "no", "null", any case) is
  never masked: it hides nothing and is in every manifest.

The literal spellings: as written (without surrounding whitespace: masking a file's trailing
newline would swallow the next line's start), JSON's and YAML's double-quoted escapes (Go's
`\\u003c`/`\\u003e`/`\\u0026` too), YAML's single quotes (`''`), shell single quotes, Python's
repr, Slack's escapes of each, and base64 (standard and URL-safe, padded or not).
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass, field

from tools import linear_re
from tools.redaction.canonical import canonical, squeeze
from tools.redaction.grams import GRAM, telling

MIN_VALUE_LENGTH = 4
# A document's lines shorter than this are its structure ("apiVersion: v1", "kind: Config"), the
# same in every manifest: masking them would blank those lines everywhere.
MIN_LINE_LENGTH = 16
# Booleans and nulls spelled as strings: never a secret, everywhere in manifests.
NOT_SECRET = frozenset({"true", "false", "yes", "no", "on", "off", "null", "none"})
# Where a document's tokens end: whitespace, quotes and the punctuation of YAML, JSON and INI.
_TOKEN_BREAK = linear_re.compile(r"""[\s"'{}\[\],:=;]+""")
# A URL's parts too: its scheme, host, path and query are the vocabulary of every manifest.
_URL_BREAK = linear_re.compile(r"""[\s"'{}\[\],:=;/@?&#]+""")


@dataclass(slots=True)
class Forms:
    """What to look for: literal spellings, and canonical strings for the gram index."""

    literals: set[str] = field(default_factory=set)
    canonical: set[str] = field(default_factory=set)

    def __ior__(self, other: Forms) -> Forms:
        self.literals |= other.literals
        self.canonical |= other.canonical
        return self

    def __le__(self, other: Forms) -> bool:
        return self.literals <= other.literals and self.canonical <= other.canonical


def plain_forms(value: str) -> Forms:
    """The forms of a plain value (a `stringData` value, a decoded `data` value)."""
    stripped = value.strip()
    if len(stripped) < MIN_VALUE_LENGTH or stripped.lower() in NOT_SECRET:
        return Forms()
    if _is_document(stripped):
        split = (_URL_BREAK if "://" in stripped else _TOKEN_BREAK).split
        tokens = [t for t in split(stripped) if _looks_like_a_credential(t)]
        lines = [line.strip() for line in stripped.splitlines()]
        kept = [
            line
            for line in lines
            if len(line) >= MIN_LINE_LENGTH and any(map(_looks_like_a_credential, split(line)))
        ]
        return Forms(
            literals={f for text in (stripped, *kept) for f in spellings(text)}
            | _escaped(value)
            | _base64_whole(value, stripped),
            canonical=_base64_meanings(value) | {c for t in tokens for c in meanings(t)},
        )
    if not telling(canonical(stripped)):
        return Forms(literals=spellings(stripped) | _base64_whole(value, stripped))
    # The value as written also literally: a run of its letters and digits leaves out its
    # punctuation at either end (a trailing `!`), and its surrounding spaces.
    written = {stripped} | (_escaped(value) if value != stripped else set())
    written |= _base64_whole(value, stripped)  # its padding and a final `+`, `/`, `-` or `_`
    return Forms(literals=written, canonical=meanings(value))


def encoded_forms(value: str) -> Forms:
    """The forms of a base64 value as in a Secret's `data`: its decoded text's, and itself."""
    compact = "".join(value.split())
    try:
        decoded = base64.b64decode(compact, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):  # not base64, or binary: only the value as written
        written = {f for f in (value.strip(), compact) if len(f) >= MIN_VALUE_LENGTH}
        return Forms(literals=written)
    forms = plain_forms(decoded)
    if forms.literals or forms.canonical:
        forms.literals |= {compact, compact.rstrip("=")}
    return forms


def spellings(text: str) -> set[str]:
    """`text` as the engine's encoders, shells, Python and Slack write it."""
    as_json = json.dumps(text, ensure_ascii=False)[1:-1]
    written = {
        text,
        as_json,
        json.dumps(text)[1:-1],  # \u00e9 for non-ASCII
        _go_json(as_json),
        text.replace("'", "''"),  # YAML single-quoted
        text.replace("'", "'\\''"),  # shell: close, escaped quote, reopen
        text.replace("'", "'\"'\"'"),
        repr(text)[1:-1],
    }
    return written | {_slack(w) for w in written}


def meanings(text: str) -> set[str]:
    """Canonical strings of `text` for the gram index: as written and with its escapes decoded,
    each reversed too, and its base64 at every alignment; those long enough to hold a gram."""
    found = {squeeze(text), canonical(text)}
    found |= {c[::-1] for c in found}
    return {c for c in found | _base64_meanings(text) if len(c) >= GRAM}


def _base64_meanings(text: str) -> set[str]:
    found: set[str] = set()
    for written in {text, text.strip()}:
        found |= _base64_pieces(written.encode("utf-8", "surrogatepass"))
    return found


def _base64_pieces(raw: bytes) -> set[str]:
    """The canonical base64 of `raw` alone, and the part of it that stays the same wherever
    `raw` sits inside a larger base64 blob: after 0, 1 or 2 bytes of anything, base64 writes
    the same characters for `raw` but for the first few and the last few, which mix in its
    neighbours' bits."""
    pieces = {squeeze(base64.b64encode(raw).decode("ascii"))}
    for offset in range(3):
        encoded = base64.b64encode(bytes(offset) + raw).decode("ascii")
        first = -(-8 * offset // 6)  # the first character holding none of the offset's bits
        last = 8 * (offset + len(raw)) // 6  # the last holding only `raw`'s bits, exclusive
        pieces.add(squeeze(encoded[first:last]))
    return pieces


def _escaped(value: str) -> set[str]:
    """`value` with its surrounding whitespace, as JSON and Python escape it: a trailing newline
    written as `\\n` swallows no line break."""
    return {json.dumps(value, ensure_ascii=False)[1:-1], repr(value)[1:-1]}


def _base64_whole(value: str, stripped: str) -> set[str]:
    forms: set[str] = set()
    for text in {value, stripped}:
        raw = text.encode("utf-8", "surrogatepass")
        for encoded in (base64.b64encode(raw), base64.urlsafe_b64encode(raw)):
            forms |= {encoded.decode("ascii"), encoded.decode("ascii").rstrip("=")}
    return forms


def _is_document(stripped: str) -> bool:
    if "\n" in stripped or "://" in stripped:
        return True
    if stripped[0] not in "{[":
        return False
    try:
        return isinstance(json.loads(stripped), dict | list)
    except ValueError:
        return False


def _looks_like_a_credential(token: str) -> bool:
    meaning = canonical(token)
    return (
        len(meaning) >= GRAM
        and any(c.isdigit() for c in meaning)
        and any(not c.isdigit() for c in meaning)
    )


def _go_json(as_json: str) -> str:
    """Go's encoding/json escapes these for HTML safety (tanka_eval and tk eval print it)."""
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        as_json = as_json.replace(char, escaped)
    return as_json.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _slack(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
