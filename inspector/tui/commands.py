"""The command palette: every inspector action, plus "go to turn N" and "diff turn A with B"."""

from __future__ import annotations

import re
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from ctxscope.inspector.tui.screens.main import MainScreen

ACTIONS = (
    ("Mark / unmark this turn as the diff target", "mark"),
    ("Turn diff view", "view('turn')"),
    ("Compaction view", "view('compaction')"),
    ("Tokens view", "view('tokens')"),
    ("Composition view", "view('composition')"),
    ("Cost view: every request's cost, sums per thread and agent", "view('cost')"),
    ("Agents view: the tree of agents and their costs", "view('agents')"),
    ("Search", "search"),
    ("Filter turns", "filter"),
    ("Next world-state change", "world_jump(True)"),
    ("Previous world-state change", "world_jump(False)"),
    ("Copy the highlighted item's JSON", "copy_item"),
    ("Export this turn as markdown", "export"),
    ("Follow new turns on/off", "toggle_follow"),
    ("Keys (help)", "help"),
)
_GO_TO = re.compile(r"^\s*(?:go\s*to\s*)?(?:turn\s*)?(\d+)\s*$", re.I)
_DIFF = re.compile(r"^\s*diff\s*(?:turn\s*)?(\d+)\s*(?:with|vs|and|\s)\s*(?:turn\s*)?(\d+)\s*$", re.I)


class InspectorCommands(Provider):
    """Palette entries for the main screen."""

    def _main(self) -> MainScreen | None:
        screen = self.screen
        return screen if isinstance(screen, MainScreen) else None

    async def discover(self) -> Hits:
        main = self._main()
        if main is None:
            return
        for title, action in ACTIONS:
            yield DiscoveryHit(title, partial(main.run_action, action))

    async def search(self, query: str) -> Hits:
        main = self._main()
        if main is None:
            return
        go_to = _GO_TO.match(query)
        if go_to:
            number = int(go_to.group(1))
            yield Hit(1.0, f"Go to turn {number}", partial(main.go_to_turn, number))
        diff = _DIFF.match(query)
        if diff:
            a, b = int(diff.group(1)), int(diff.group(2))
            yield Hit(1.0, f"Diff turn {a} with turn {b}", partial(main.diff_turns, a, b))
        matcher = self.matcher(query)
        for title, action in ACTIONS:
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), partial(main.run_action, action))


__all__ = ["InspectorCommands"]
