"""The PNG charts of the report (matplotlib, Agg backend).

A variant that is missing or failed gets no bar: its place carries the word
"missing" or "failed" instead, so a gap is never mistaken for zero.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)
from matplotlib.patches import Patch  # noqa: E402

from . import paper  # noqa: E402
from .config import PAPER_APIS, REFERENCE, VARIANT_LABELS  # noqa: E402
from .report import CHARTS  # noqa: E402

COMPONENTS = (("python_s", "python", "Python", "#4c72b0"),
              ("native_s", "native", "native", "#dd8452"),
              ("system_s", "system", "system", "#55a868"))
VARIANT_COLORS = {"stock": "#4c72b0", "hpy_cpython": "#dd8452", "hpy_universal": "#c44e52",
                  "cystck": "#55a868"}
DPI = 110


def _mark_absent(ax, x: float, status: str) -> None:
    ax.text(x, 0, f" {status}", rotation=90, ha="center", va="bottom", fontsize=8,
            color="#a00000")


def _groups(results: dict):
    for port in results["ports"].values():
        for workload, data in port.get("workloads", {}).items():
            yield port, workload, data


def _error(entry: dict) -> list[list[float]] | None:
    if entry["ci95"] is None:
        return None
    low, high = entry["ci95"]
    return [[entry["mean"] - low], [high - entry["mean"]]]


def _legend(ax) -> None:
    """A legend with each label once."""
    handles, labels = ax.get_legend_handles_labels()
    unique = dict(zip(labels, handles, strict=True))
    if unique:
        ax.legend(unique.values(), unique.keys(), fontsize=7)


def _save(fig, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def _empty(path: Path, title: str, message: str) -> None:
    fig, ax = plt.subplots(figsize=(7, 2.5))
    ax.set_title(title)
    ax.text(0.5, 0.5, message, ha="center", va="center", wrap=True, transform=ax.transAxes)
    ax.set_axis_off()
    _save(fig, path)


def table2(results: dict, path: Path) -> None:
    """Stacked Python / native / system seconds per variant, ours on the
    left, the paper's for the same extension on the right."""
    groups = list(_groups(results))
    variants = results["variants"]
    if not groups:
        _empty(path, "Time under Scalene", "No workload was measured.")
        return
    fig, axes = plt.subplots(len(groups), 2, figsize=(10, 3.2 * len(groups)), squeeze=False,
                             gridspec_kw={"width_ratios": [len(variants), len(PAPER_APIS)]})
    for (port, workload, data), (ours, theirs) in zip(groups, axes, strict=True):
        for x, variant in enumerate(variants):
            entry = data["scalene"][variant]
            if entry["status"] != "ok":
                _mark_absent(ours, x, entry["status"])
                continue
            bottom = 0.0
            for key, _, label, color in COMPONENTS:
                value = entry[key]["mean"]
                ours.bar(x, value, bottom=bottom, color=color, label=label)
                bottom += value
            ours.errorbar(x, entry["total_s"]["mean"], yerr=_error(entry["total_s"]), fmt="_",
                          color="black", capsize=4, markersize=14, label="total, 95% CI")
        ours.set_xticks(range(len(variants)), [VARIANT_LABELS[v] for v in variants], fontsize=8)
        ours.set_xlim(-0.6, len(variants) - 0.4)
        ours.set_ylim(bottom=0)
        ours.set_ylabel("seconds")
        ours.set_title(f"{port['title']} {workload} (ours)", fontsize=10)
        _legend(ours)
        table = paper.table2(port["paper_row"])
        if table is None:
            theirs.text(0.5, 0.5, "not in the paper", ha="center", transform=theirs.transAxes)
            theirs.set_axis_off()
            continue
        for x, api in enumerate(PAPER_APIS):
            bottom = 0.0
            for _, metric, _, color in COMPONENTS:
                theirs.bar(x, table[api][metric], bottom=bottom, color=color, hatch="//",
                           edgecolor="white")
                bottom += table[api][metric]
        theirs.set_xticks(range(len(PAPER_APIS)), PAPER_APIS, fontsize=8)
        theirs.set_title(f"{port['paper_row']} (paper, Table 2)", fontsize=10)
    _save(fig, path)


def _grouped_bars(ax, groups: list[tuple[str, dict[str, dict]]], variants: list[str],
                  value) -> None:
    """Bars of value(entry) -> (mean, error) per group and variant."""
    width = 0.8 / len(variants)
    drawn = set()
    for g, (_, entries) in enumerate(groups):
        for i, variant in enumerate(variants):
            x = g + (i - (len(variants) - 1) / 2) * width
            entry = entries[variant]
            measured = value(entry) if entry["status"] == "ok" else None
            if measured is None:
                _mark_absent(ax, x, entry["status"] if entry["status"] != "ok" else "n/a")
                continue
            mean, error = measured
            ax.bar(x, mean, width, yerr=error, capsize=3, color=VARIANT_COLORS[variant])
            drawn.add(variant)
    ax.set_xticks(range(len(groups)), [name for name, _ in groups], fontsize=8)
    ax.set_xlim(-0.6, len(groups) - 0.4)
    ax.set_ylim(bottom=0)  # every charted quantity is positive; a CI may reach below
    if drawn:
        ax.legend(handles=[Patch(color=VARIANT_COLORS[v], label=VARIANT_LABELS[v])
                           for v in variants if v in drawn], fontsize=7)


def figure2(results: dict, path: Path) -> None:
    probe = results["scalene"]["copy_probe"]
    title = "Copy volume under Scalene"
    if not probe["available"]:
        _empty(path, title, f"Unavailable on this machine: {probe['reason']}")
        return
    groups = [(f"{port['title']}\n{workload}", data["scalene"])
              for port, workload, data in _groups(results)]
    if not groups:
        _empty(path, title, "No workload was measured.")
        return
    fig, ax = plt.subplots(figsize=(max(6, 2.2 * len(groups)), 4))
    _grouped_bars(ax, groups, results["variants"],
                  lambda e: (e["copy_mb_s"]["mean"], _error(e["copy_mb_s"])))
    ax.set_ylabel("MB/s copied")
    ax.set_title(f"{title} (mean, 95% CI)\nThe paper's Figure 2 gives no values to show beside",
                 fontsize=10)
    _save(fig, path)


def walltime(results: dict, path: Path) -> None:
    variants = [v for v in results["variants"] if v != REFERENCE]
    groups = [(f"{port['title']}\n{workload}", data["wall"])
              for port, workload, data in _groups(results)]
    title = f"Wall time relative to {VARIANT_LABELS[REFERENCE]}"
    if not groups or not variants:
        _empty(path, title, "Nothing to compare.")
        return
    fig, ax = plt.subplots(figsize=(max(6, 2.2 * len(groups)), 4))

    def ratio(entry):
        if entry.get("ratio") is None:
            return None
        return entry["ratio"]["mean"], _error(entry["ratio"])

    _grouped_bars(ax, groups, variants, ratio)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_ylabel(f"time / {REFERENCE} time")
    ax.set_title(f"{title}\n(geometric mean of paired ratios, 95% CI)", fontsize=10)
    _save(fig, path)


def micro(results: dict, path: Path) -> None:
    data = results["micro"]
    title = "Micro-benchmarks relative to stock"
    if data["status"] != "ok":
        _empty(path, title, f"No micro-benchmark results: {data['reason']}")
        return
    variants = [v for v in results["variants"] if v != REFERENCE]
    groups = []
    for name in data["benchmarks"]:
        entries = {}
        for v in variants:
            ratio = data["ratios"].get(v, {}).get("per_benchmark", {}).get(name)
            if ratio is None:
                entries[v] = data["variants"].get(v, {"status": "missing"})
                if entries[v]["status"] == "ok":
                    entries[v] = {"status": "missing"}
            else:
                entries[v] = {"status": "ok", "mean": ratio["ratio"], "ci95": ratio["ci95"]}
        groups.append((name, entries))
    fig, ax = plt.subplots(figsize=(max(8, 1.1 * len(groups)), 4))
    _grouped_bars(ax, groups, variants, lambda e: (e["mean"], _error(e)))
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_ylabel("time per call / stock")
    ax.set_title(f"{title} (median of paired ratios, 95% CI)", fontsize=10)
    plt.setp(ax.get_xticklabels(), rotation=30, ha="right")
    _save(fig, path)


def write_all(results: dict, directory: Path) -> list[Path]:
    paths = []
    for name, draw in (("table2", table2), ("figure2", figure2), ("walltime", walltime),
                       ("micro", micro)):
        path = directory / CHARTS[name]
        draw(results, path)
        paths.append(path)
    return paths
