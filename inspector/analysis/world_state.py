"""World state: the typed values a turn's context carries, and records of what changed between turns.

The state of a turn is the fold of every recognised fragment in its input, in order (Codex appends
only the sections that changed, so a later fragment overrides an earlier one), plus the model and
reasoning effort of the request. What a fragment means for the state is the harness's own
declaration (`FragmentSpec.world`); the state is an all-optional variant of the harness's
`WorldState` with the fields fragment kinds declare (`ctxscope.harness.context.world_fields`), where None
means the context never said. A change is a `StateChange` record; the reports word it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, cast

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError, create_model

from ctxscope.harness.context import ChangeStyle, WorldField, world_fields, world_meaning
from ctxscope.inspector.analysis.items import Item

__all__ = [
    "ObservedState",
    "StateChange",
    "empty_state",
    "fold_items",
    "observed_state_model",
    "state_changes",
    "with_request",
]

# Collections for which "never said" and "said empty" read the same (no AGENTS.md, no skills).
_EMPTY_IS_UNSET = (ChangeStyle.DOCUMENTS, ChangeStyle.MEMBERS, ChangeStyle.SELECTED, ChangeStyle.EVENTS)


class ObservedState(BaseModel):
    """The world state as a recording shows it: one optional field per world-state field.

    The concrete class is `observed_state_model()`, built from the field table, so its fields are
    known only at run time; read them with `value(name)` (or as attributes where the name is known).
    """

    model_config = ConfigDict(frozen=True)

    def value(self, name: str) -> Any:
        """The field's value; None when the context never set it (or there is no such field)."""
        return getattr(self, name, None)

    def values(self) -> dict[str, Any]:
        """Every field by name, None for the unset ones, in field order."""
        if self.__pydantic_extra__:
            return dict(self)
        # what `dict(self)` gives without pydantic's generator over the fields (about 8 µs a turn)
        return dict(self.__dict__)


@dataclass(frozen=True)
class StateChange:
    """One world-state field that differs from the previous turn of the thread.

    field:    the field name (`WorldState`'s, or one a fragment kind declared); its `StateField`
              (`ctxscope.harness.context.world_fields()[field].marker`) says how to tell the change.
    before:   the old value; None when the field was unset, or on a thread's first turn.
    after:    the new value (None: no longer set).
    replaced: a fragment of this turn restated the whole value (AGENTS.md "replaces all
              previous"), so the change is a replacement rather than an edit.
    """

    field: str
    before: Any
    after: Any
    replaced: bool = False


_model_cache: tuple[dict[str, WorldField], type[ObservedState]] | None = None


def observed_state_model() -> type[ObservedState]:
    """The all-optional state model for the current field table (rebuilt when fragments register)."""
    global _model_cache
    fields = world_fields()
    if _model_cache is not None and _model_cache[0] is fields:
        return _model_cache[1]
    definitions: dict[str, Any] = {
        name: (Annotated[f.annotation | None, f.marker], None) for name, f in fields.items()
    }
    model = cast(
        "type[ObservedState]", create_model("ObservedWorldState", __base__=ObservedState, **definitions)
    )
    _model_cache = (fields, model)
    return model


def empty_state() -> ObservedState:
    """A state with nothing said yet (before a thread's first turn)."""
    return observed_state_model()()


def _adapters() -> dict[str, TypeAdapter[Any]]:
    """A validator per field of the current model (rebuilt with it)."""
    global _adapter_cache
    model = observed_state_model()
    if _adapter_cache is None or _adapter_cache[0] is not model:
        fields = world_fields()
        _adapter_cache = (model, {name: TypeAdapter(f.annotation | None) for name, f in fields.items()})
    return _adapter_cache[1]


_adapter_cache: tuple[type[ObservedState], dict[str, TypeAdapter[Any]]] | None = None


def _fitting(updates: dict[str, Any]) -> dict[str, Any]:
    """The updates whose value fits its field's type; the rest (and names that are no field) are
    dropped, so those fields keep their previous value."""
    adapters = _adapters()
    fitting: dict[str, Any] = {}
    for name, value in updates.items():
        adapter = adapters.get(name)
        if adapter is None:
            continue
        try:
            fitting[name] = adapter.validate_python(value)
        except ValidationError:
            continue
    return fitting


def _updated(state: ObservedState, fitting: dict[str, Any]) -> ObservedState:
    model = observed_state_model()
    if type(state) is not model:  # the registry changed since `state` was made
        state = model.model_validate({k: v for k, v in state.values().items() if k in model.model_fields})
    return state.model_copy(update=fitting)


def fold_items(state: ObservedState, items: Iterable[Item]) -> ObservedState:
    """A new state: `state` with every fragment of `items` applied in order."""
    values: dict[str, Any] | None = None
    updates: dict[str, Any] = {}
    for item in items:
        for part in item.fragments:
            meaning = world_meaning(part.kind)
            if meaning is None:
                continue
            if values is None:
                values = state.values()
            try:
                update = _fitting(meaning.project(part.values, values))
            except (KeyError, TypeError, ValueError, AttributeError):
                continue  # a recorded form with odd values says nothing we can read
            values.update(update)  # later fragments read what earlier ones set
            updates.update(update)
    return _updated(state, updates) if updates else state


def with_request(state: ObservedState, body: dict[str, Any]) -> ObservedState:
    """The state completed with the request's own model and reasoning effort (None when unset)."""
    reasoning = body.get("reasoning")
    effort = reasoning.get("effort") if isinstance(reasoning, dict) else None
    request = {"model": None, "reasoning_effort": None}
    return _updated(state, {**request, **_fitting({"model": body.get("model"), "reasoning_effort": effort})})


def _same(field: WorldField, old: Any, new: Any) -> bool:
    if field.marker.style in _EMPTY_IS_UNSET and not old and not new:
        return True
    key = field.marker.key
    if key is not None and isinstance(old, list) and isinstance(new, list):
        return sorted(str(getattr(m, key, m)) for m in old) == sorted(str(getattr(m, key, m)) for m in new)
    return bool(old == new)


def state_changes(before: ObservedState | None, after: ObservedState, added: Sequence[Item]) -> list[StateChange]:
    """Every field that differs between two states, in field order (`before` None: a first turn,
    where only the fields marked `on_first_turn` are changes; the rest is listed as fragments)."""
    fields = world_fields()
    if before is None:
        return [
            StateChange(name, None, after.value(name))
            for name, f in fields.items()
            if f.marker.on_first_turn and after.value(name)
        ]
    if type(before) is type(after) and before.__dict__ == after.__dict__:
        return []  # the usual turn: nothing changed (one C-level comparison)
    replaced = {
        name
        for item in added
        for part in item.fragments
        if (meaning := world_meaning(part.kind)) is not None
        for name in meaning.replaces
    }
    changes: list[StateChange] = []
    for name, f in fields.items():
        old, new = before.value(name), after.value(name)
        if _same(f, old, new):
            continue
        echo = f.marker.echo_of
        if echo is not None and new == after.value(echo) != before.value(echo):
            continue  # only repeats the change of `echo`, which is told already
        changes.append(StateChange(name, old, new, name in replaced))
    return changes
