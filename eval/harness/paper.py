"""The paper's figures (paper.toml), for the report to show beside ours."""

from __future__ import annotations

from functools import cache

import tomllib

from .config import HARNESS_DIR

PAPER_FILE = HARNESS_DIR / "paper.toml"
TABLE2_METRICS = ("native", "system", "python", "total")


@cache
def load() -> dict:
    with open(PAPER_FILE, "rb") as f:
        return tomllib.load(f)


def table2(row: str) -> dict[str, dict[str, float]] | None:
    """{api: {metric: seconds}} for a row of Table 2, None if the paper has no such row."""
    data = load()["table2"]
    values = data["rows"].get(row)
    if values is None:
        return None
    return {api: {metric: values[metric][i] for metric in TABLE2_METRICS}
            for i, api in enumerate(data["apis"])}


def migration(row: str) -> dict | None:
    return load()["migration"].get(row)


def figure2() -> dict:
    return load()["figure2"]


def method() -> dict:
    return load()["method"]
