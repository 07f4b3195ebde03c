"""Run by `test_core_install.py` inside a fresh venv holding only `pip install <checkout>` and openai 3.x.

Not a test module (pytest does not collect it): a script that proves, in that venv, that the core
imports without mitmproxy or Textual and that openai 3.x on httpx2 is replayed in-process, strictly,
sync and async, streaming and not. Prints one JSON line of what it saw; exits non-zero on a failure.

    python openai3_replay.py CASSETTE MODEL CUT_BODY
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import json
import sys

CORE = (
    "ctxscope.proxy.replay",
    "ctxscope.proxy.replay.transport",
    "ctxscope.proxy.pytest_plugin",
    "ctxscope.pytest_plugin",
    "ctxscope.inspector.analysis",
    "ctxscope.harness.runtime",
)


def main(cassette: str, model: str, cut_body: str) -> None:
    missing = {name: importlib.util.find_spec(name) is None for name in ("mitmproxy", "textual")}
    for module in CORE:
        importlib.import_module(module)
    heavy = sorted(m for m in ("mitmproxy", "textual") if m in sys.modules)

    import httpx2
    import openai

    from ctxscope.proxy.replay import CassetteTransport

    transport = CassetteTransport(cassette, match="strict")
    seen: list[str] = []
    with openai.OpenAI(
        base_url="http://cassette.invalid/v1",
        api_key="x",
        max_retries=0,
        http_client=httpx2.Client(transport=transport),
    ) as client:
        seen.append([e.type for e in client.responses.create(model=model, input="hi", stream=True)][-1])
        seen.append(client.responses.create(model=model, input="again").output_text)

    async def run_async() -> None:
        async with openai.AsyncOpenAI(
            base_url="http://cassette.invalid/v1",
            api_key="x",
            max_retries=0,
            http_client=httpx2.AsyncClient(transport=transport),
        ) as client:
            stream = await client.responses.create(model=model, input="async hi", stream=True)
            seen.append([e.type async for e in stream][-1])
            answer = await client.responses.create(model=model, input="async again")
            seen.append(answer.output_text)

    asyncio.run(run_async())
    # a recorded cut replays as a cut, in httpx2's own error type
    with httpx2.Client(transport=transport) as raw:
        with raw.stream("POST", "http://cassette.invalid/v1/responses", json=json.loads(cut_body)) as cut:
            try:
                list(cut.iter_bytes())
                seen.append("not cut")
            except httpx2.RemoteProtocolError:
                seen.append("cut")
    report = transport.report
    print(
        json.dumps(
            {
                "python": sys.version.split()[0],
                "openai": openai.__version__,
                "not_installed": missing,
                "imported_heavy": heavy,
                "seen": seen,
                "served": report.served,
                "problems": report.problems(),
            }
        )
    )


if __name__ == "__main__":
    main(*sys.argv[1:])
