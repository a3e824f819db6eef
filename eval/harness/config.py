"""What the harness measures, how often, and where things live."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
HARNESS_DIR = Path(__file__).resolve().parent
RESULTS_DIR = REPO_ROOT / "eval" / "results"
REPORT_DIR = REPO_ROOT / "eval" / "report"
# Scratch space: the last Scalene profile of every measured combination
# (for a closer look with `scalene view`), worker result files.
WORK_DIR = REPO_ROOT / "build" / "eval"

#: The measured program (see its docstring) and the copy-volume probe.
DRIVER = HARNESS_DIR / "driver" / "run_workload.py"
COPY_PROBE = HARNESS_DIR / "driver" / "copy_probe.py"

#: Every port is expected in each of these variants; one it does not build
#: is reported as missing.  Wheels of variant v live in dist/<v>/.
VARIANTS = ("stock", "hpy_cpython", "hpy_universal", "cystck")
REFERENCE = "stock"
#: The one name of each variant in every table, chart and summary.
VARIANT_LABELS = {
    "stock": "C API",
    "hpy_cpython": "HPy (CPython ABI)",
    "hpy_universal": "HPy (universal ABI)",
    "cystck": "Cystck",
}

#: The paper's Table 2 columns (as paper.toml names them) and the name the
#: report gives each: ours, except HPy, for the paper has a single HPy
#: column and does not say which ABI.
PAPER_APIS = ("C API", "HPy", "CyStck")
PAPER_API_LABELS = {"C API": VARIANT_LABELS["stock"], "HPy": "HPy (ABI not stated)",
                    "CyStck": VARIANT_LABELS["cystck"]}


#: Scalene's options for every profiled run (a Plan may add its sampling
#: interval).
#: --no-stacks: in Scalene 2.4.0 the native stack sampler installs its own
#:   SIGPROF handler, which swallows the memcpy sampler's SIGPROF, so copy
#:   volume reads 0 MB/s unless stack collection is off.
#: --program-path: profile every file of the repository (the port's
#:   workload module, where the time is spent, and the driver), none of the
#:   standard library's or the environment's.
#: --cpu-percent-threshold 0: keep every profiled file in the JSON, so the
#:   percentages add up over the whole program.
SCALENE_OPTIONS = ("--no-stacks", "--memory", "--cpu-percent-threshold", "0",
                   "--program-path", str(REPO_ROOT))


@dataclass(frozen=True)
class Plan:
    """How many times each (port, workload, variant) runs, per phase.

    The paper's method: 15 runs, the first 5 dropped, statistics over the
    other 10.  Wall-time runs follow the same plan.
    """

    runs: int
    dropped: int
    quick: bool
    #: Scalene's CPU sampling interval in seconds (None: its default, 0.01).
    sampling_interval: float | None = None

    @property
    def scalene_options(self) -> tuple[str, ...]:
        if self.sampling_interval is None:
            return SCALENE_OPTIONS
        return (*SCALENE_OPTIONS, "--cpu-sampling-rate", str(self.sampling_interval))


FULL = Plan(runs=15, dropped=5, quick=False)
# Quick runs last a fraction of a second: sampled every 10 ms, one in ten
# or so came out with no sample at all.
QUICK = Plan(runs=3, dropped=1, quick=True, sampling_interval=0.002)
