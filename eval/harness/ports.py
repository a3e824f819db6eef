"""The ports the harness measures, and what each one offers it.

The interface a port provides is described in PORT_INTERFACE.md; this
module is the only code that knows it.  A port that does not provide it
(yet) is reported as missing with the reason, never skipped silently.
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from .config import REPO_ROOT, VARIANTS


@dataclass(frozen=True)
class PortSpec:
    name: str          # key in the results, in migration.json, in eval/results/<name>.json
    title: str         # as people call it
    import_name: str   # what the wheel of every variant installs
    helper: str        # the port's variant module, relative to the repository root
    workloads: str     # the port's benchmark module, relative to the repository root
    paper_row: str     # its row in the paper's tables (paper.toml)


PORTS = (
    PortSpec("ultrajson", "UltraJSON", "ujson", "ports/ultrajson/ujson_port.py",
             "ports/ultrajson/workloads.py", "UltraJson"),
    PortSpec("piconumpy", "PicoNumPy", "piconumpy", "ports/piconumpy/piconumpy_variants.py",
             "ports/piconumpy/workloads.py", "PicoNumPy"),
    PortSpec("kiwi", "Kiwisolver", "kiwisolver", "ports/kiwi/kiwi_port.py",
             "ports/kiwi/workloads.py", "Kiwisolver"),
)

HELPER_NAMES = ("VARIANTS", "wheel_path", "missing_reason", "ensure_site")


@dataclass(frozen=True)
class VariantState:
    status: str            # "ok", "missing" or "failed"
    reason: str | None = None
    site: Path | None = None


@dataclass
class Port:
    spec: PortSpec
    problem: str | None = None            # why nothing of the port can be measured
    helper: ModuleType | None = None
    sizes: dict[str, int] = field(default_factory=dict)   # workload -> repeat
    descriptions: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def workloads_file(self) -> Path:
        return REPO_ROOT / self.spec.workloads


def _load_module(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    # Registered before it runs, as an import would: dataclasses look
    # their module up in sys.modules.
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def load_port(spec: PortSpec, quick: bool) -> Port:
    """The port with its helper and workload sizes, or with the problem."""
    port = Port(spec)
    for relative in (spec.helper, spec.workloads):
        if not (REPO_ROOT / relative).is_file():
            port.problem = f"{relative} does not exist (see eval/harness/PORT_INTERFACE.md)"
            return port
    modules = []
    for relative, name in ((spec.helper, "port"), (spec.workloads, "workloads")):
        try:
            modules.append(_load_module(REPO_ROOT / relative, f"cystck_eval_{name}_{spec.name}"))
        except Exception as error:  # a port's module failing to import is the port's problem
            port.problem = (f"importing {relative} failed: {type(error).__name__}: {error} "
                            "(see eval/harness/PORT_INTERFACE.md)")
            return port
    helper, workloads = modules
    absent = [n for n in HELPER_NAMES if not hasattr(helper, n)]
    absent += [f"{spec.workloads}: {n}" for n in ("WORKLOADS", "SIZES")
               if not hasattr(workloads, n)]
    if absent:
        port.problem = ("the port does not provide " + ", ".join(absent)
                        + " (see eval/harness/PORT_INTERFACE.md)")
        return port
    try:
        sizes = workloads.SIZES[quick]
        port.sizes = {name: int(sizes[name]) for name in workloads.WORKLOADS}
    except (KeyError, TypeError, ValueError) as error:
        port.problem = (f"{spec.workloads}: SIZES[{quick}] must give a repeat count for every "
                        f"workload ({type(error).__name__}: {error})")
        return port
    port.helper = helper
    port.descriptions = {name: " ".join((function.__doc__ or "").split())
                         for name, function in workloads.WORKLOADS.items()}
    return port


def variant_state(port: Port, variant: str) -> VariantState:
    """Whether `variant` of `port` can be measured, and where it is installed."""
    if port.problem:
        return VariantState("missing", port.problem)
    helper = port.helper
    build_error = getattr(helper, "build_error", None)
    try:
        if build_error is not None:
            error = build_error(variant)
            if error:
                return VariantState("failed", f"the build failed: {error}")
        if helper.wheel_path(variant) is None:
            if variant not in helper.VARIANTS:
                return VariantState("missing", f"the port has no {variant} variant "
                                               f"(not in {port.spec.helper}'s VARIANTS)")
            return VariantState("missing", helper.missing_reason(variant))
        return VariantState("ok", site=Path(helper.ensure_site(variant)))
    except Exception as error:
        return VariantState("failed", f"{type(error).__name__}: {error}")


def load_ports(quick: bool, names: list[str] | None = None) -> list[Port]:
    specs = PORTS if names is None else [s for s in PORTS if s.name in names]
    unknown = set(names or ()) - {s.name for s in PORTS}
    if unknown:
        raise SystemExit(f"unknown port(s): {', '.join(sorted(unknown))}; "
                         f"known: {', '.join(s.name for s in PORTS)}")
    return [load_port(spec, quick) for spec in specs]


def variant_states(port: Port, variants: tuple[str, ...] = VARIANTS) -> dict[str, VariantState]:
    return {variant: variant_state(port, variant) for variant in variants}
