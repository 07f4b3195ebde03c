"""A generated-looking token next to a credential word in prose is a credential.

"the API key is 3hF9…", "token: `Qm8x…`", "your password was Tr0…", "the secret ends in …": no assignment
syntax, only a word. The word (`key`, `token`, `secret`, `password`, `credential`, `pat`, `api key`,
`access key`, …) must come at most a few short words before the value, and the value must look
generated: 16 characters or more of a token's charset with letters and digits, random by
`values.looks_random` (for the weak word `key`, mixed case too: `cache key 5f4d…` is a hash), not a
UUID, a documented example or a public key's prefix. An identifier, a hash in a hash's place (`commit
a6d8…`, `sha256: …`) or a word has none of these words before it, or is not random.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .values import credential_like, is_documented_example, looks_random
from .vendors import PUBLIC_PREFIXES, random_key

__all__ = ["find_in_prose"]

Found = tuple[int, int, str]

_WORD = (
    r"api[ _-]?keys?|access[ _-]?keys?|secret(?:[ _-]keys?)?s?|tokens?|passwords?|passwd|passphrase|credentials?"
    r"|pats?|auth[ _-]?tokens?|keys?"
)
_GAP_WORD = (
    r"(?:is|was|were|are|it|its|the|a|an|of|for|in|ends|end|starts|start|begins|with|value|reads|here|set|to"
    r"|now|still|as|you|your|my|our|this|that|new|old|full)"
)
# between the word and the value: up to six separators or short words, each consuming something, the
# blanks atomically (a run of blanks is one step, never split: no backtracking over its ways to split)
_GAP = rf"(?:(?>[ \t]+)|[:=,(]|\*\*|->|—|–|{_GAP_WORD}(?![\w-]))"
_PROSE_RE = re.compile(
    rf"(?i)(?<![\w-])(?P<word>{_WORD})(?![\w-])(?:{_GAP}){{1,6}}?[`'\"“‘(]?"
    r"(?P<value>[A-Za-z0-9_+/=.~-]{16,256})"
)
_UUID_RE = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")
# where a credential word can start: the regex is tried only there (one `find` per start, not a pattern
# tried at every character)
_STARTS = ("key", "token", "secret", "password", "passwd", "passphrase", "credential", "pat", "api", "access", "auth")


def _credential(value: str, word: str) -> bool:
    value = value.rstrip(".,;:")
    if not credential_like(value) or not looks_random(value) or is_documented_example(value):
        return False
    if _UUID_RE.search(value) or value.startswith(PUBLIC_PREFIXES):
        return False
    if not (any(c.isdigit() for c in value) and any(c.isalpha() for c in value)):
        return False
    weak = word.lower().rstrip("s") in ("key", "pat")
    return random_key(value) if weak else True


def find_in_prose(text: str) -> Iterator[Found]:
    """Spans (start, end, kind) of generated-looking tokens next to a credential word."""
    lowered = text.lower()
    starts: set[int] = set()
    for word in _STARTS:
        at = lowered.find(word)
        while at >= 0:
            starts.add(at)
            at = lowered.find(word, at + len(word))
    covered = 0
    for at in sorted(starts):
        if at < covered:
            continue
        match = _PROSE_RE.match(text, at)
        if match is None:
            continue
        value = match.group("value")
        covered = match.end()
        if _credential(value, match.group("word")):
            start = match.start("value")
            yield start, start + len(value.rstrip(".,;:")), "secret"
