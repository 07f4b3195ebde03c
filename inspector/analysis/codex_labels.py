"""Codex's own part labels, checked against ours.

Codex 0.169 labels every content part of the messages it sends (`content_item_kinds` in the item's
`internal_chat_message_metadata_passthrough`): `environments.environment_context`,
`agents_md.instructions`, `user.text`, ... The fragment specs declare which of their kinds Codex calls
what (`FragmentSpec.codex_label`, one definition in the harness); the labels that name no fragment are
listed here: the base prompt, the person's own text, and `unknown` (Codex does not say).

`codex_labels(item)` reads an item's labels; `label_checks(item)` pairs each part with Codex's label
and says where the two disagree, or where Codex names a part our recognisers do not know (the part is
then shown by Codex's label). The passthrough is metadata, never content: see `normalise.PASSTHROUGH`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ctxscope.harness.context.fragments import fragment_specs
from ctxscope.inspector.analysis.items import Item
from ctxscope.inspector.analysis.normalise import PASSTHROUGH

__all__ = ["LabelCheck", "codex_labels", "label_checks"]

UNKNOWN = "unknown"
"""Codex's label for a part it does not classify (assistant messages re-sent after a resume)."""
PLAIN_LABELS: dict[str, frozenset[str]] = {
    # the base prompt: no fragment, but marked `instructions` by `instructions.mark_base_prompt`
    "model.base_instructions": frozenset({"instructions", "text"}),
    "user.text": frozenset({"text", "image"}),
}
"""Codex labels that name no fragment → the part kinds of ours that agree with them."""


@dataclass(frozen=True)
class LabelCheck:
    """One content part: Codex's label beside the kind we recognised."""

    part: int
    codex: str
    ours: str
    agrees: bool
    """False where Codex names the part as one thing and we recognised another (or nothing)."""

    def note(self) -> str:
        """One line for a view: what disagrees, in both vocabularies."""
        if self.ours in ("text", "unknown_part"):
            return f"part {self.part}: Codex labels it {self.codex}; not recognised here (shown by its label)"
        return f"part {self.part}: Codex labels it {self.codex}, recognised here as {self.ours}"


def codex_labels(item: Item) -> tuple[str, ...]:
    """Codex's `content_item_kinds` for the item's parts, in order; () when it sent none."""
    raw: Any = item.raw
    meta = raw.get(PASSTHROUGH) if isinstance(raw, dict) else None
    kinds = meta.get("content_item_kinds") if isinstance(meta, dict) else None
    if not isinstance(kinds, list):
        return ()
    return tuple(str(k) for k in kinds)


def _agreeing(label: str) -> frozenset[str] | None:
    """Our part kinds that agree with Codex's `label`; None when the label says nothing (unknown)."""
    if label == UNKNOWN:
        return None
    kinds = {spec.kind for spec in fragment_specs() if spec.codex_label == label}
    return frozenset(kinds) | PLAIN_LABELS.get(label, frozenset())


def label_checks(item: Item) -> list[LabelCheck]:
    """Each part with a Codex label, paired with our kind (parts Codex calls `unknown` are skipped)."""
    checks: list[LabelCheck] = []
    for part, label in zip(item.parts, codex_labels(item), strict=False):
        agreeing = _agreeing(label)
        if agreeing is None:
            continue
        checks.append(LabelCheck(part.index, label, part.kind, part.kind in agreeing))
    return checks
