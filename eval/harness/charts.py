"""The PNG charts of the report (matplotlib, Agg backend).

A variant that is missing or failed gets no bar: its place carries the word
"missing" or "failed" instead, so a gap is never mistaken for zero.
Ratios to the C API are drawn on a log scale (0.5 and 2 equally far from
1) as bars from the labelled 1.0 line; a chart of quick-mode numbers says
so on its face.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import FixedLocator, NullFormatter  # noqa: E402

from . import paper  # noqa: E402
from .config import PAPER_API_LABELS, REFERENCE, VARIANT_LABELS  # noqa: E402
from .report import CHARTS, QUICK_WARNING  # noqa: E402

VARIANT_COLORS = {"stock": "#4c72b0", "hpy_cpython": "#dd8452", "hpy_universal": "#c44e52",
                  "cystck": "#55a868"}
#: The bars of a group: our variants, and the paper's APIs (hatched).
SLOTS = {v: (color, None, VARIANT_LABELS[v]) for v, color in VARIANT_COLORS.items()}
SLOTS.update({f"paper:{api}": (color, "//", f"{PAPER_API_LABELS[api]}, paper")
              for api, color in (("HPy", "#8c8c8c"), ("CyStck", VARIANT_COLORS["cystck"]))})
#: Tick values of a ratio axis, as many of them as fall within its limits:
#: finer within a range of less than 100x.
RATIO_TICKS = tuple(m * 10.0 ** e for e in range(-3, 4) for m in (1, 2, 5))
FINE_RATIO_TICKS = tuple(m * 10.0 ** e for e in range(-3, 4) for m in (1, 1.5, 2, 3, 5, 7))
DPI = 110


def _mark_absent(ax, x: float, y: float, status: str) -> None:
    ax.text(x, y, f" {status}", rotation=90, ha="center", va="bottom", fontsize=8,
            color="#a00000")


def _groups(results: dict):
    for port in results["ports"].values():
        for workload, data in port.get("workloads", {}).items():
            yield port, workload, data


def _error(entry: dict) -> list[list[float]] | None:
    if entry["ci95"] is None:
        return None
    low, high = entry["ci95"]
    return [[entry["median"] - low], [high - entry["median"]]]


def _save(fig: Figure, path: Path, quick: bool) -> Figure:
    """Write the chart; quick-mode numbers carry the warning on the chart
    itself.  Returns the (closed) figure, for the tests to inspect."""
    if quick:
        fig.text(0.5, 0.995, QUICK_WARNING.replace("`", ""), ha="center", va="top",
                 fontsize=8, weight="bold", color="#a00000", wrap=True)
        fig.tight_layout(rect=(0, 0, 1, 0.93))
    else:
        fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return fig


def _empty(path: Path, title: str, message: str, quick: bool) -> Figure:
    fig, ax = plt.subplots(figsize=(7, 2.5))
    ax.set_title(title)
    ax.text(0.5, 0.5, message, ha="center", va="center", wrap=True, transform=ax.transAxes)
    ax.set_axis_off()
    return _save(fig, path, quick)


def _grouped_bars(ax, groups: list[tuple[str, dict[str, dict]]], value,
                  base: float = 0.0) -> list[float]:
    """Bars from `base` to value(entry) -> (height, error) for each group's
    slots (keys of SLOTS); returns every value drawn, error bars' ends
    included, for the axis limits."""
    width = 0.8 / max(len(entries) for _, entries in groups)
    drawn: dict[str, None] = {}
    values = []
    for g, (_, entries) in enumerate(groups):
        for i, (slot, entry) in enumerate(entries.items()):
            x = g + (i - (len(entries) - 1) / 2) * width
            measured = value(entry) if entry["status"] == "ok" else None
            if measured is None:
                _mark_absent(ax, x, base, entry["status"] if entry["status"] != "ok" else "n/a")
                continue
            height, error = measured
            color, hatch, _ = SLOTS[slot]
            ax.bar(x, height - base, width, bottom=base, yerr=error, capsize=3, color=color,
                   hatch=hatch, edgecolor="white" if hatch else None)
            if base:  # a ratio: its value, since a bar near 1.0 is hard to see
                ax.text(x, height, f"{height:.2f}", ha="center", va="bottom" if height >= base
                        else "top", fontsize=6, zorder=4,
                        bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.7, "pad": 0.5})
            values.append(height)
            if error is not None:
                values += [height - error[0][0], height + error[1][0]]
            drawn[slot] = None
    ax.set_xticks(range(len(groups)), [name for name, _ in groups], fontsize=8)
    ax.set_xlim(-0.6, len(groups) - 0.4)
    if drawn:
        ax.legend(handles=[Patch(facecolor=SLOTS[s][0], hatch=SLOTS[s][1], edgecolor="white",
                                 label=SLOTS[s][2]) for s in drawn], fontsize=7)
    return values


def _ratio_axis(ax, values: list[float], what: str) -> None:
    """A log-scale y axis symmetric about the labelled 1.0 line of the C API."""
    reference = VARIANT_LABELS[REFERENCE]
    ax.set_yscale("log")
    positive = [v for v in values if v > 0]
    low, high = min([0.9, *positive]) / 1.25, max([1.1, *positive]) * 1.25
    ax.set_ylim(low, high)
    ticks = RATIO_TICKS if high / low > 100 else FINE_RATIO_TICKS
    ax.yaxis.set_major_locator(FixedLocator([t for t in ticks if low <= t <= high]))
    ax.yaxis.set_major_formatter(lambda v, _: f"{v:g}")
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.axhline(1.0, color="black", linewidth=1.0, zorder=3)
    ax.text(1.005, 1.0, f"1.0 =\n{reference}", transform=ax.get_yaxis_transform(),
            ha="left", va="center", fontsize=8, clip_on=False)
    ax.set_ylabel(f"{what} / {reference} (log scale)")


def table2(results: dict, path: Path) -> Figure:
    """Total time under Scalene as a ratio to the C API's, ours for every
    workload beside the paper's Table 2 for the same extension, one scale."""
    title = f"Time under Scalene relative to {VARIANT_LABELS[REFERENCE]}, ours beside the paper's"
    variants = [v for v in results["variants"] if v != REFERENCE]
    groups = []
    for port in results["ports"].values():
        if not port.get("workloads"):
            continue  # nothing of ours to set beside the paper's row
        for workload, data in port["workloads"].items():
            groups.append((f"{port['title']}\n{workload}", _total_ratios(data["scalene"],
                                                                          variants)))
        table = paper.table2(port["paper_row"])
        if table is not None:
            groups.append((f"{port['paper_row']}\n(paper, Table 2)",
                           {f"paper:{api}": {"status": "ok", "median": table[api]["total"]
                                             / table["C API"]["total"], "ci95": None}
                            for api in ("HPy", "CyStck")}))
    if not groups or not variants:
        return _empty(path, title, "Nothing to compare.", results["quick"])
    fig, ax = plt.subplots(figsize=(max(7, 1.5 * len(groups)), 4.5))
    values = _grouped_bars(ax, groups, lambda e: (e["median"], _error(e)), base=1.0)
    _ratio_axis(ax, values, "total time")
    ax.set_title(f"{title}\n(ratio of total times: medians here; the paper's, means on its "
                 "own machine and benchmarks)", fontsize=10)
    return _save(fig, path, results["quick"])


def _total_ratios(scalene: dict[str, dict], variants: list[str]) -> dict[str, dict]:
    """Each variant's median total time under Scalene over the reference's,
    as the paper's Table 2 allows for its own rows (it gives means only)."""
    reference = scalene[REFERENCE]
    entries = {}
    for v in variants:
        entry = scalene[v]
        if entry["status"] != "ok":
            entries[v] = entry
        elif reference["status"] != "ok":
            entries[v] = {"status": f"no {VARIANT_LABELS[REFERENCE]}"}
        else:
            entries[v] = {"status": "ok", "ci95": None,
                          "median": entry["total_s"]["median"] / reference["total_s"]["median"]}
    return entries


def figure2(results: dict, path: Path) -> Figure:
    probe = results["scalene"]["copy_probe"]
    title = "Copy volume under Scalene"
    if not probe["available"]:
        return _empty(path, title, f"Unavailable on this machine: {probe['reason']}",
                      results["quick"])
    groups = [(f"{port['title']}\n{workload}", {v: data["scalene"][v]
                                                for v in results["variants"]})
              for port, workload, data in _groups(results)]
    if not groups:
        return _empty(path, title, "No workload was measured.", results["quick"])
    fig, ax = plt.subplots(figsize=(max(6, 2.2 * len(groups)), 4))
    _grouped_bars(ax, groups, lambda e: (e["copy_mb_s"]["median"], _error(e["copy_mb_s"])))
    ax.set_ylim(bottom=0)  # copy volume is positive; a CI may reach below
    ax.set_ylabel("MB/s copied")
    ax.set_title(f"{title} (median, 95% CI)\nThe paper's Figure 2 gives no values to show beside",
                 fontsize=10)
    return _save(fig, path, results["quick"])


def walltime(results: dict, path: Path) -> Figure:
    variants = [v for v in results["variants"] if v != REFERENCE]
    groups = [(f"{port['title']}\n{workload}", {v: data["wall"][v] for v in variants})
              for port, workload, data in _groups(results)]
    title = f"Wall time relative to {VARIANT_LABELS[REFERENCE]}"
    if not groups or not variants:
        return _empty(path, title, "Nothing to compare.", results["quick"])
    fig, ax = plt.subplots(figsize=(max(6, 2.2 * len(groups)), 4.5))

    def ratio(entry):
        if entry.get("ratio") is None:
            return None
        return entry["ratio"]["median"], _error(entry["ratio"])

    values = _grouped_bars(ax, groups, ratio, base=1.0)
    _ratio_axis(ax, values, "time")
    ax.set_title(f"{title}\n(median of paired ratios, 95% CI)", fontsize=10)
    return _save(fig, path, results["quick"])


def micro(results: dict, path: Path) -> Figure:
    data = results["micro"]
    title = f"Micro-benchmarks relative to {VARIANT_LABELS[REFERENCE]}"
    if data["status"] != "ok":
        return _empty(path, title, f"No micro-benchmark results: {data['reason']}", False)
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
                entries[v] = {"status": "ok", "median": ratio["ratio"], "ci95": ratio["ci95"]}
        groups.append((name, entries))
    fig, ax = plt.subplots(figsize=(max(8, 1.1 * len(groups)), 4.5))
    values = _grouped_bars(ax, groups, lambda e: (e["median"], _error(e)), base=1.0)
    _ratio_axis(ax, values, "time per call")
    ax.set_title(f"{title} (median of paired ratios, 95% CI)", fontsize=10)
    plt.setp(ax.get_xticklabels(), rotation=30, ha="right")
    # The micro-benchmarks have their own mode (micro.json), not the harness run's.
    return _save(fig, path, data["quick"])


def write_all(results: dict, directory: Path) -> list[Path]:
    paths = []
    for name, draw in (("table2", table2), ("figure2", figure2), ("walltime", walltime),
                       ("micro", micro)):
        path = directory / CHARTS[name]
        draw(results, path)
        paths.append(path)
    return paths
