"""`ctxscope.harness.context`, `ctxscope.harness.tools` and `ctxscope.harness.modes.plan` load their names on first use.

The inspector reads recordings with the harness's fragment definitions, the plan-mode parser and the
tool gate's recogniser; importing those must not bring in the context builder, every tool, the plan
controller or the agent events (the report commands' start-up, see benchmarks/bench_report_startup.py).
"""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from tests.lazy_exports_support import lazy_names, type_checking_imports

PACKAGES = ("ctxscope.harness.context", "ctxscope.harness.tools", "ctxscope.harness.modes.plan")


@pytest.mark.parametrize("package", PACKAGES)
def test_every_exported_name_resolves_and_is_typed(package: str) -> None:
    module = importlib.import_module(package)
    for name in module.__all__:
        assert getattr(module, name) is not None, name
    assert sorted(dir(module)) == sorted(module.__all__)
    # Names loaded on first use are imported for type checkers from the module they load from.
    assert type_checking_imports(package) == lazy_names(package)
    with pytest.raises(AttributeError):
        module.not_a_thing  # noqa: B018


def test_only_the_name_that_shares_its_module_name_loads_eagerly() -> None:
    import ctxscope.harness.context as context

    eager = set(context.__all__) - set(lazy_names("ctxscope.harness.context"))
    assert eager == {"WorldField", "world_fields", "world_meaning"}
    assert callable(context.world_fields) and context.world_fields() == context.world_fields()


def test_what_the_inspector_imports_from_the_harness_stays_small() -> None:
    code = (
        "import sys\n"
        "import ctxscope.harness.context.fragments, ctxscope.harness.context.goal_fragments\n"
        "import ctxscope.harness.modes.plan.parser\n"
        "import ctxscope.harness.modes.plan.texts\n"
        "from ctxscope.harness.context import ChangeStyle, StateField, WorldField, world_fields, world_meaning\n"
        "from ctxscope.harness.tools import recognise_still_planning\n"
        "from ctxscope.harness.tools.gate import UPDATE_PLAN_IN_PLAN_MODE\n"
        "heavy = ['ctxscope.harness.context.builder', 'ctxscope.harness.context.collect',\n"
        "         'ctxscope.harness.context.skills', 'ctxscope.harness.tools.router',\n"
        "         'ctxscope.harness.tools.exec_command', 'ctxscope.harness.modes.plan.controller',\n"
        "         'ctxscope.harness.events', 'httpx']\n"
        "print([m for m in heavy if m in sys.modules])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"
