"""`ctxscope bisect`: delta debugging over a recorded turn's context, to find what flips the answer.

`ddmin` is the search, `predicates` what it asks of an answer, `search` the loop over a backend,
`command` the CLI. The units come from `ctxscope.inspector.analysis.units`.
"""

from __future__ import annotations

from ctxscope.bisect.ddmin import DdminResult, ddmin
from ctxscope.bisect.predicates import Predicate, parse_predicate, python_predicate

__all__ = ["DdminResult", "Predicate", "ddmin", "parse_predicate", "python_predicate"]
