"""Property-style round trip: for every fragment kind, many seeded random value sets (awkward
characters, multi-line text, empty lists) render and classify back to the same kind and values.

A fixed seed keeps failures reproducible; the loop is bounded. The generators respect each
fragment's documented limits (paths have no backticks or newlines, names are slugs, ...).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from ctxscope.harness.context import FRAGMENT_KINDS, FRAGMENT_SPECS, classify_text, render_fragment

ROUNDS = 400
_TEXT = "abcXYZ019 \n\n<>&\"'`é—#-:()$*_/.\t"
_PATH = "abcXYZ019 ._-&<>'é"
_SLUG = "abcdefxyz0189-_."


# Pieces of the markers themselves, so bodies that quote a wrapper are exercised too.
_TRICKY = [
    "</skill>",
    "<name>",
    "\n</result>",
    "Output:\n",
    "</objective>",
    "</INSTRUCTIONS>",
    "<cwd>",
    "</environment_context>",
    "\n\n",
    "Exit code: 1\n",
    "</plan_mode_reminder>",
    "`x`",
]


def text(rng: random.Random, size: int = 40) -> str:
    pieces = [
        rng.choice(_TRICKY) if rng.random() < 0.05 else rng.choice(_TEXT) for _ in range(rng.randint(1, size))
    ]
    return "".join(pieces).strip() or "x"


def line(rng: random.Random) -> str:
    return " ".join(text(rng, 20).split()) or "x"


def path(rng: random.Random) -> str:
    parts = ["".join(rng.choice(_PATH) for _ in range(rng.randint(1, 8))).strip() or "p" for _ in range(3)]
    return "/" + "/".join(parts)


def slug(rng: random.Random) -> str:
    return rng.choice("abcxyz019") + "".join(rng.choice(_SLUG) for _ in range(rng.randint(0, 10)))


def paths(rng: random.Random) -> list[str]:
    return [path(rng) for _ in range(rng.randint(0, 3))]


def agents_values(rng: random.Random) -> dict[str, Any]:
    """The global text, project texts or both, raw (a file's trailing newline kept); the heading
    names a directory exactly when project texts apply."""

    def raw() -> str:
        return text(rng, 120) + rng.choice(["", "\n"])

    values: dict[str, Any] = {}
    shape = rng.choice(["global", "project", "both"])
    if shape != "project":
        values["global"] = raw()
    if shape != "global":
        values["project"] = "\n\n".join(raw() for _ in range(rng.randint(1, 3)))
    return {"path": path(rng) if "project" in values else None, **values}


GENERATORS: dict[str, Callable[[random.Random], dict[str, Any]]] = {
    "permissions": lambda r: {
        "sandbox_mode": r.choice(["read-only", "workspace-write", "danger-full-access"]),
        "approval_policy": r.choice(["never", "on-request", "untrusted", "on-failure"]),
        "network_enabled": r.random() < 0.5,
        "writable_roots": paths(r),
        **({"sandbox_enforcement": line(r)} if r.random() < 0.5 else {}),
    },
    "collaboration_mode": lambda r: {"mode": r.choice(["plan", "default", "pair"]), "text": text(r, 200)},
    "skills_catalog": lambda r: {
        "skills": [
            {"name": slug(r), "description": line(r), "path": path(r) + "/SKILL.md"}
            for _ in range(r.randint(0, 4))
        ]
    },
    "model_switch": lambda r: {"previous_model": slug(r), "model": slug(r), "instructions": text(r, 200)},
    "personality": lambda r: {"text": text(r, 80)},
    "deferred_tools": lambda r: {
        key: value
        for key in ("namespaces", "removed")
        if (value := [{"name": slug(r), "description": line(r)} for _ in range(r.randint(0, 3))])
    },
    "agents_md": lambda r: agents_values(r),
    "agents_md_replaced": lambda r: agents_values(r),
    "agents_md_removed": lambda r: {},
    "user_instructions": lambda r: {"text": text(r, 120)},
    "environment_context": lambda r: {
        key: value
        for key, value in {
            "cwd": path(r),
            "shell": slug(r),
            "current_date": f"2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}",
            "timezone": r.choice(["UTC", "Europe/Paris", "America/New_York"]),
            "network_enabled": r.random() < 0.5,
            "writable_roots": paths(r),
        }.items()
        if r.random() < 0.6
    },
    "selected_skill": lambda r: {"name": slug(r), "path": path(r) + "/SKILL.md", "text": text(r, 200)},
    "goal": lambda r: {"objective": text(r, 80)},
    "turn_aborted": lambda r: {"reason": text(r, 80)},
    "user_shell_command": lambda r: {
        "command": text(r, 40),
        "exit_code": r.randint(-2, 255),
        "duration_s": round(r.uniform(0, 100), 4),
        "output": text(r, 200) if r.random() < 0.8 else "",
    },
    "plan_mode_reminder": lambda r: {"event": slug(r), "text": text(r, 200)},
    "compaction_summary": lambda r: {"summary": text(r, 300)},
    "compaction_prompt": lambda r: {"source": "ctxscope"},
    "goal_status": lambda r: (
        {"objective": text(r, 80), "status": r.choice(["active", "paused"])}
        if r.random() < 0.5
        else {"status": r.choice(["active", "paused", "complete"])}
    ),
    "goal_continuation": lambda r: (
        {
            "tokens_used": r.randint(0, 10**6),
            "token_budget": None,
            "tokens_remaining": None,
        }
        if r.random() < 0.5
        else {"tokens_used": 5, "token_budget": 100, "tokens_remaining": 95}
    ),
}

ROLE = {spec.kind: spec.roles[0] for spec in FRAGMENT_SPECS}


def test_generators_cover_every_kind() -> None:
    assert set(GENERATORS) == set(FRAGMENT_KINDS)


@pytest.mark.parametrize("kind", FRAGMENT_KINDS)
def test_random_values_round_trip(kind: str) -> None:
    rng = random.Random(f"ctxscope-{kind}")
    for _ in range(ROUNDS):
        values = GENERATORS[kind](rng)
        rendered = render_fragment(kind, values)
        match = classify_text(rendered, ROLE[kind])
        assert match is not None, rendered
        assert (match.kind, match.values) == (kind, values), rendered
