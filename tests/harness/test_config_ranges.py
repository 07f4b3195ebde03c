"""Config values are checked against their ranges when loaded: one line naming the key, not a later hang."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxscope.harness.config import load_config
from ctxscope.proxy.errors import ConfigError


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ("idle_timeout = 0", r"\[retry\] idle_timeout must be more than 0"),
        ("connect_timeout = -1.0", r"\[retry\] connect_timeout must be more than 0"),
        ("max_retries = -3", r"\[retry\] max_retries must be at least 0"),
        ("backoff_base = -0.5", r"\[retry\] backoff_base must be at least 0"),
        ("idle_timeout = nan", r"\[retry\] idle_timeout must be more than 0"),
    ],
)
def test_out_of_range_retry_values_are_refused(tmp_path: Path, table: str, message: str) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f"[retry]\n{table}\n")
    with pytest.raises(ConfigError, match=message):
        load_config(config)


def test_values_in_range_load(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[retry]\nmax_retries = 0\nidle_timeout = 0.5\nbackoff_base = 0\n")
    retry = load_config(config).retry
    assert (retry.max_retries, retry.idle_timeout, retry.backoff_base) == (0, 0.5, 0.0)
