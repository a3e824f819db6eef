"""REPORT.md from the results (results.json); the charts come from charts.py.

Every cell of a missing or failed variant says so and points to a note
with the reason; no number is ever shown for it.
"""

from __future__ import annotations

import math

from . import paper
from .config import PAPER_API_LABELS, PAPER_APIS, REFERENCE, VARIANT_LABELS

SCALENE_COLUMNS = (("native_s", "Native"), ("system_s", "System"), ("python_s", "Python"),
                   ("total_s", "Total"))
PAPER_METRIC = {"native_s": "native", "system_s": "system", "python_s": "python",
                "total_s": "total"}
MIGRATION_ROWS = (("additions", "Additions (+)"), ("deletions", "Deletions (-)"),
                  ("files_modified", "Files modified (#)"),
                  ("transformations", "Number of transformations"))
CHARTS = {
    "table2": "table2.png",
    "figure2": "figure2.png",
    "walltime": "walltime.png",
    "micro": "micro.png",
}
QUICK_WARNING = ("Quick mode (`make eval QUICK=1`): few runs and small inputs; these numbers "
                 "check that the pipeline works and support no conclusion.")
#: The verdict's columns: Cystck first, the variant the report is about.
VERDICT_VARIANTS = ("cystck", "hpy_cpython", "hpy_universal")


def decimals(value: float) -> int:
    """Decimal places that show three significant digits of `value`."""
    if value == 0:
        return 3
    return max(0, 2 - math.floor(math.log10(abs(value))))


def estimate(entry: dict) -> str:
    """'median [low, high]' of a stats.estimate dict, to the decimal places
    of three significant digits of the median."""
    places = decimals(entry["median"])
    if entry["ci95"] is None:
        return f"{entry['median']:.{places}f}"
    low, high = entry["ci95"]
    return f"{entry['median']:.{places}f} [{low:.{places}f}, {high:.{places}f}]"


def interval(entry: dict) -> str:
    """'median [low, high]' to three decimals (for ratios)."""
    if entry["ci95"] is None:
        return f"{entry['median']:.3f}"
    low, high = entry["ci95"]
    return f"{entry['median']:.3f} [{low:.3f}, {high:.3f}]"


class Notes:
    """Numbered reasons, each distinct reason numbered once."""

    def __init__(self):
        self._numbers: dict[str, int] = {}

    def cite(self, reason: str | None) -> str:
        reason = reason or "no reason recorded"
        number_ = self._numbers.setdefault(reason, len(self._numbers) + 1)
        return f"[{number_}]"

    def status_cell(self, entry: dict) -> str:
        return f"{entry['status']} {self.cite(entry.get('reason'))}"

    def render(self) -> list[str]:
        if not self._numbers:
            return []
        lines = ["## Notes", ""]
        for reason, number_ in self._numbers.items():
            text = reason.replace("\n", " / ")
            lines.append(f"{number_}. {text}")
        return lines + [""]


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return lines + [""]


def _groups(results: dict):
    """(port, workload name, workload) of every measured workload."""
    for port in results["ports"].values():
        for workload, data in port.get("workloads", {}).items():
            yield port, workload, data


def _runs(count: int) -> str:
    return "run is" if count == 1 else f"{count} runs are"


def _verdict_cell(data: dict, variant: str, notes: Notes) -> str:
    """A variant's wall-time ratio to the reference with its interval, or
    why there is none."""
    entry = data["wall"].get(variant)
    if entry is None:
        return f"missing {notes.cite(f'{VARIANT_LABELS[variant]} was not measured in this run')}"
    if entry["status"] != "ok":
        return notes.status_cell(entry)
    if entry["ratio"] is None:
        return f"— {notes.cite(entry.get('ratio_reason'))}"
    return interval(entry["ratio"])


def _micro_line(micro: dict, notes: Notes) -> str:
    if micro["status"] != "ok":
        return f"Micro-benchmarks: {notes.status_cell(micro)}"
    mode = ", quick mode" if micro["quick"] else ""
    ratios = "; ".join(f"{VARIANT_LABELS[v]} {micro['ratios'][v]['geomean']:.2f}"
                       if v in micro["ratios"] else f"{VARIANT_LABELS[v]} missing"
                       for v in VERDICT_VARIANTS)
    return (f"Micro-benchmarks, geometric mean of the per-call time ratios to the "
            f"{VARIANT_LABELS[REFERENCE]}: {ratios} (`{micro['file']}`, {micro['date']}{mode}).")


def _corpus_line(corpus: dict | None, notes: Notes) -> str:
    if corpus is None:
        corpus = {"status": "missing", "reason": "this results.json has no corpus entry"}
    if corpus["status"] != "ok":
        return f"Porting corpus: {notes.status_cell(corpus)}"
    mode = ", quick subset" if corpus["quick"] else ""
    return (f"Porting corpus: of {corpus['extensions']} extensions, "
            f"{corpus['build_untouched']} build untouched with Cystck after `cystck-migrate`, "
            f"{corpus['pass']} pass their own tests (release and debug, no failure, on the "
            f"compiled module) (`{corpus['file']}`, {corpus['date']}{mode}; "
            "eval/report/corpus.md).")


def _verdict_section(results: dict, notes: Notes) -> list[str]:
    """The answer first: each workload's wall time of Cystck and of HPy,
    as ratios to the C API."""
    reference = VARIANT_LABELS[REFERENCE]
    lines = ["## Verdict", ""]
    if results["quick"]:
        lines += [f"**{QUICK_WARNING}**", ""]
    lines += [f"Wall time as a ratio to the {reference}: median of the ratios of runs "
              "made in the same round, 95% confidence interval in brackets; below 1 is faster "
              f"than the {reference}, an interval that contains 1 shows no difference.", ""]
    rows = [[f"{port['title']} `{workload}`"]
            + [_verdict_cell(data, v, notes) for v in VERDICT_VARIANTS]
            for port, workload, data in _groups(results)]
    if rows:
        header = ["Workload", f"{VARIANT_LABELS['cystck']} ÷ {reference} (95% interval)"]
        header += [f"{VARIANT_LABELS[v]} ÷ {reference}" for v in VERDICT_VARIANTS[1:]]
        lines += _table(header, rows)
    else:
        lines += ["No workload was measured.", ""]
    lines += [f"- {_micro_line(results['micro'], notes)}",
              f"- {_corpus_line(results.get('corpus'), notes)}", ""]
    return lines


def _header(results: dict) -> list[str]:
    machine = results["machine"]
    plan = results["plan"]
    scalene = results["scalene"]
    lines = [
        "## How these numbers were made", "",
        f"Generated {results['created']} by `make eval`. Machine: {machine['cpu']}, "
        f"{machine['cpu_count']} cores, {machine['platform']}; Python {machine['python']}; "
        f"Scalene {scalene['version'] or 'not installed'}. "
        f"Each workload ran {plan['runs']} times per variant and phase, the variants "
        f"interleaved; the first {_runs(plan['dropped'])} dropped, medians and 95% "
        f"confidence intervals are over the other {plan['runs'] - plan['dropped']}. "
        "`eval/README.md` explains the method and every number; `results.json` beside this "
        "file holds every run.",
        "",
    ]
    return lines


def _status_section(results: dict, variants: list[str], notes: Notes) -> list[str]:
    lines = ["## Ports and variants", ""]
    rows = []
    for port in results["ports"].values():
        cells = []
        for variant in variants:
            state = port["variants"][variant]
            cells.append("built" if state["status"] == "ok" else notes.status_cell(state))
        workloads = ", ".join(f"`{w}` ({d['repeat']})"
                              for w, d in port.get("workloads", {}).items())
        rows.append([port["title"], *cells, workloads or "—"])
    lines += _table(["Port", *[VARIANT_LABELS[v] for v in variants], "Workloads (repeat)"], rows)
    for port, workload, data in _groups(results):
        if data["description"]:
            lines.append(f"- {port['title']} `{workload}`: {data['description']}")
    return lines + [""]


def _scalene_cell(entry: dict, metric: str, notes: Notes) -> str:
    if entry["status"] != "ok":
        return notes.status_cell(entry)
    value = entry[metric]
    return "unavailable" if value is None else estimate(value)


def _table2_section(results: dict, variants: list[str], notes: Notes) -> list[str]:
    lines = [
        "## Time under Scalene (the paper's Table 2)", "",
        "Seconds, median [95% confidence interval]. Python, native and "
        "system time are Scalene's percentages of the elapsed time times the elapsed time; "
        "total is the elapsed time of the profiled program. Scalene's *system* time is the "
        "elapsed time the process did not spend on a core in user mode: time in the kernel, "
        "and waiting (I/O, page faults, a core taken by other load on the machine).", "",
    ]
    header = ["Extension / workload"] + [f"{label}: {VARIANT_LABELS[v]}"
                                         for _, label in SCALENE_COLUMNS for v in variants]
    rows = []
    attribution = []
    for port, workload, data in _groups(results):
        row = [f"{port['title']} `{workload}`"]
        for metric, _ in SCALENE_COLUMNS:
            row += [_scalene_cell(data["scalene"][v], metric, notes) for v in variants]
        rows.append(row)
        for v in variants:
            entry = data["scalene"][v]
            if entry["status"] == "ok" and entry["attributed_percent"] < 99.0:
                attribution.append(f"{port['title']} `{workload}` {VARIANT_LABELS[v]}: "
                                   f"{entry['attributed_percent']:.1f}%")
    if rows:
        lines += _table(header, rows)
    else:
        lines += ["No workload was measured.", ""]
    if attribution:
        lines += ["Scalene attributed less than 99% of the elapsed time to source lines in: "
                  + "; ".join(attribution) + ". Python + native + system is then less "
                  "than the total.", ""]
    retried = [f"{port['title']} `{workload}` {VARIANT_LABELS[v]}, {retry}"
               for port, workload, data in _groups(results) for v in variants
               for retry in data["scalene"][v].get("retries", [])]
    if retried:
        lines += ["Profiled runs that failed and were tried again (eval/README.md, "
                  "\"Retries\"): " + "; ".join(r.replace("\n", " / ") for r in retried) + ".",
                  ""]

    lines += ["The paper's Table 2 for the same extensions (seconds; one HPy column, ABI not "
              f"stated; {paper.method()['machine']}):", ""]
    header = ["Extension"] + [f"{label}: {PAPER_API_LABELS[api]}"
                              for _, label in SCALENE_COLUMNS for api in PAPER_APIS]
    rows = []
    for port in results["ports"].values():
        table = paper.table2(port["paper_row"])
        if table:
            # As printed in the paper (its own precision).
            rows.append([port["paper_row"]] + [f"{table[api][PAPER_METRIC[metric]]:g}"
                                               for metric, _ in SCALENE_COLUMNS
                                               for api in PAPER_APIS])
    lines += _table(header, rows)
    lines += [f"![Time under Scalene, ours beside the paper's]({CHARTS['table2']})", ""]
    return lines


def _figure2_section(results: dict, variants: list[str], notes: Notes) -> list[str]:
    probe = results["scalene"]["copy_probe"]
    lines = ["## Copy volume (the paper's Figure 2)", ""]
    if probe["available"]:
        lines += [f"MB/s copied (memcpy) as sampled by Scalene, median [95% confidence "
                  f"interval]. Check on this machine: a probe copying "
                  f"{probe['copied_mb']} MB was measured at {probe['measured_mb']:.0f} MB.", ""]
    else:
        lines += [f"**Copy volume is unavailable on this machine**: {probe['reason']}. "
                  "The table shows no value rather than a wrong one.", ""]
    rows = []
    for port, workload, data in _groups(results):
        rows.append([f"{port['title']} `{workload}`"]
                    + [_scalene_cell(data["scalene"][v], "copy_mb_s", notes) for v in variants])
    if rows:
        lines += _table(["Extension / workload", *[VARIANT_LABELS[v] for v in variants]], rows)
    figure = paper.figure2()
    lines += [f"The paper's Figure 2: {figure['reason']}:", ""]
    lines += [f"> - {statement}" for statement in figure["statements"]]
    lines += ["", f"![Copy volume]({CHARTS['figure2']})", ""]
    return lines


def _wall_section(results: dict, variants: list[str], notes: Notes) -> list[str]:
    lines = [
        "## Wall time without the profiler", "",
        "Seconds per run of the workload (timed inside the process, after a short warm-up), "
        f"median [95% confidence interval]. Ratio to {VARIANT_LABELS[REFERENCE]}: "
        "median of the ratios of runs made in the same round, with its 95% "
        "confidence interval; above 1 is slower.", "",
    ]
    rows = []
    for port, workload, data in _groups(results):
        for v in variants:
            entry = data["wall"][v]
            if entry["status"] != "ok":
                rows.append([f"{port['title']} `{workload}`", VARIANT_LABELS[v],
                             notes.status_cell(entry), "", ""])
                continue
            if v == REFERENCE:
                ratio = "1 (reference)"
            elif entry["ratio"] is None:
                ratio = f"— {notes.cite(entry.get('ratio_reason'))}"
            else:
                ratio = interval(entry["ratio"])
            rows.append([f"{port['title']} `{workload}`", VARIANT_LABELS[v],
                         estimate(entry["seconds"]), ratio, str(entry["seconds"]["n"])])
    if rows:
        lines += _table(["Extension / workload", "Variant", "Seconds", f"Ratio to {VARIANT_LABELS[REFERENCE]}",
                         "Runs kept"], rows)
    lines += [f"![Wall time relative to {VARIANT_LABELS[REFERENCE]}]({CHARTS['walltime']})", ""]
    return lines


def _micro_section(results: dict, variants: list[str], notes: Notes) -> list[str]:
    micro = results["micro"]
    lines = ["## Micro-benchmarks", ""]
    if micro["status"] != "ok":
        return lines + [f"No micro-benchmark results: {notes.status_cell(micro)}", ""]
    mode = " (quick mode)" if micro["quick"] else ""
    lines += [f"From `{micro['file']}` ({micro['date']}{mode}; method in eval/micro/README.md): "
              f"median ns per call; in brackets the ratio to {VARIANT_LABELS[REFERENCE]} "
              "(median of per-round ratios) and its 95% confidence interval.", ""]
    rows = []
    for name, bench in micro["benchmarks"].items():
        row = [f"`{name}`"]
        for v in variants:
            result = bench["results"].get(v)
            if result is None:
                state = micro["variants"].get(v, {"status": "missing",
                                                  "reason": f"{v} is not in {micro['file']}"})
                row.append(notes.status_cell(state))
                continue
            cell = f"{result['median_ns']:.1f}"
            ratio = micro["ratios"].get(v, {}).get("per_benchmark", {}).get(name)
            if ratio and v != REFERENCE:
                low, high = ratio["ci95"]
                cell += f" ({ratio['ratio']:.2f} [{low:.2f}, {high:.2f}])"
            row.append(cell)
        rows.append(row)
    rows.append(["geometric mean of ratios"]
                + [f"{micro['ratios'][v]['geomean']:.3f}" if v in micro["ratios"] else "—"
                   for v in variants])
    lines += _table(["Benchmark", *[VARIANT_LABELS[v] for v in variants]], rows)
    return lines + [f"![Micro-benchmarks relative to {VARIANT_LABELS[REFERENCE]}]({CHARTS['micro']})", ""]


def _migration_section(results: dict, notes: Notes) -> list[str]:
    lines = [
        "## Migration (the paper's Tables 4–8)", "",
        "Lines added and deleted and files modified with respect to the upstream source. "
        "Ours: *manual* is the final, working port (the translator's output plus the "
        "residual hand edits), *automated* is `cystck-migrate`'s output alone; coverage is the "
        "share of the final port's changed lines that the translator produced "
        "(`eval/harness/coverage.py`). The paper's figures for the same extension beside "
        "ours.", "",
    ]
    for name, port in results["ports"].items():
        ours = results["migration"][name]
        theirs = paper.migration(port["paper_row"])
        title = port["title"]
        if theirs:
            title += f" (paper: Table {theirs['table']})"
        lines += [f"### {title}", ""]
        if ours["status"] != "ok":
            lines += [f"Our metrics: {notes.status_cell(ours)}", ""]
        rows = []
        for key, label in MIGRATION_ROWS:
            row = [label]
            if ours["status"] == "ok":
                row += [str(ours["manual"][key]) if key in ours["manual"] else "-",
                        str(ours["automated"][key])]
            if theirs:
                row += [str(theirs["manual"][key]) if key in theirs["manual"] else "-",
                        str(theirs["automated"][key])]
            rows.append(row)
        coverage = ["Coverage"]
        if ours["status"] == "ok":
            coverage += ["", "n/a (no changed line)" if ours["coverage"] is None
                         else f"{ours['coverage']:.0%}"]
        if theirs:
            coverage += ["", f"≈{theirs['coverage']:.0%}"]
        rows.append(coverage)
        header = ["Metric"]
        if ours["status"] == "ok":
            header += ["Manual (ours)", "Automated (ours)"]
        if theirs:
            header += ["Manual (paper)", "Automated (paper)"]
        if len(header) > 1:
            lines += _table(header, rows)
    return lines


def render(results: dict) -> str:
    variants = results["variants"]
    notes = Notes()
    lines = ["# Cystck evaluation report", ""]
    lines += _verdict_section(results, notes)
    lines += _header(results)
    lines += _status_section(results, variants, notes)
    lines += _table2_section(results, variants, notes)
    lines += _figure2_section(results, variants, notes)
    lines += _wall_section(results, variants, notes)
    lines += _micro_section(results, variants, notes)
    lines += _migration_section(results, notes)
    lines += notes.render()
    return "\n".join(lines).rstrip() + "\n"
