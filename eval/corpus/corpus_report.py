"""The corpus results as Markdown: one table row per extension, then the
details of each (build errors, --check failures, left-overs, escape-hatch
uses with file:line).  Reads only the results dict written by run.py."""

from __future__ import annotations

COLUMNS = ("extension", "stock (p/f/s)", "translator s", "C lines", "--check errors",
           "left-overs", "escape hatch", "builds untouched", "Cystck release (p/f/s)",
           "Cystck debug (p/f/s)", "residual patch")
MISSING = "–"


def tests_cell(tests: dict | None) -> str:
    """passed/failed/skipped, marked when the session did not finish or did
    not import the compiled module."""
    if not tests:
        return MISSING
    if not tests.get("finished"):
        return f"did not finish ({tests.get('reason', '?')})"
    cell = f"{tests['passed']}/{tests['failed']}/{tests['skipped']}"
    if not tests.get("compiled_imported"):
        cell += " (compiled module not imported!)"
    return cell


def builds_cell(cystck: dict | None) -> str:
    if not cystck:
        return MISSING
    build = cystck["build"]
    if build["ok"]:
        return "yes"
    count = build.get("error_count", 0)
    return f"no ({count} error{'' if count == 1 else 's'})"


def row(name: str, entry: dict) -> list[str]:
    if "setup_error" in entry:
        return [name, f"setup failed: {entry['setup_error']}"] + [MISSING] * (len(COLUMNS) - 2)
    stock = entry.get("stock", {})
    stock_cell = tests_cell(stock.get("tests")) if stock.get("build", {}).get("ok") else \
        f"build failed ({stock.get('build', {}).get('reason', '?')})"
    migrate = entry.get("migrate", {})
    cystck = entry.get("cystck")
    patch = entry.get("residual_patch")
    if migrate.get("ok"):
        translator = [f"{migrate['seconds']:.2f}", str(migrate["c_lines"]),
                      f"{migrate['check_errors']} in {migrate['check_files_failed']}/"
                      f"{migrate['check_files']} files",
                      str(migrate["leftovers"]),
                      escape_cell(migrate)]
    else:
        translator = [f"failed: {migrate.get('reason', '?')}"] + [MISSING] * 4
    return [name, stock_cell, *translator, builds_cell(cystck),
            tests_cell((cystck or {}).get("release")), tests_cell((cystck or {}).get("debug")),
            patch_cell(patch, entry.get("patched"))]


def escape_cell(migrate: dict) -> str:
    cell = f"{migrate['escape_hatches']} ({migrate['escape_hatches_per_kloc']}/kloc"
    kept = migrate.get("kept_stock_lines")
    return cell + (f"; {kept} lines kept stock)" if kept else ")")


def patch_cell(patch: dict | None, patched: dict | None) -> str:
    if not patch:
        return "none"
    if not patched:
        return f"{patch['lines']} lines"
    return (f"{patch['lines']} lines: builds {builds_cell(patched)}, release "
            f"{tests_cell(patched.get('release'))}, debug {tests_cell(patched.get('debug'))}")


def table(results: dict) -> list[str]:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + " --- |" * len(COLUMNS)]
    for name, entry in results["extensions"].items():
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in row(name, entry)) + " |")
    return lines


def details(name: str, entry: dict) -> list[str]:
    out = [f"### {name}", "", f"`{entry['requirement']}` ({entry['language']}): {entry['exercises']}."
           + (f" Measured {entry['date']} at {entry['commit']}." if "date" in entry else ""), ""]
    ref = entry["stock_reference"]
    out.append(f"Stock reference when the corpus was chosen: {ref['passed']}/{ref['failed']}/"
               f"{ref['skipped']} passed/failed/skipped.")
    if "setup_error" in entry:
        return out + ["", f"Setup failed: {entry['setup_error']}", ""]
    for label, tests in (("stock", entry["stock"].get("tests")),
                         ("Cystck release", (entry.get("cystck") or {}).get("release")),
                         ("Cystck debug", (entry.get("cystck") or {}).get("debug")),
                         ("patched release", (entry.get("patched") or {}).get("release")),
                         ("patched debug", (entry.get("patched") or {}).get("debug"))):
        if tests:
            out.append(f"{label} tests ({' '.join(tests['tests'])}): {tests_cell(tests)} in "
                       f"{tests['seconds']} s; log `{tests['log']}`.")
            for module, where in (tests.get("modules") or {}).items():
                out.append(f"  - `{module}`: " + (f"imported from `{where['where']}`"
                                                   if where["compiled"] else where["reason"]))
            for failure in tests.get("failures", [])[:5]:
                out.append(f"  - {failure}")
    for label, build in (("Stock build", entry["stock"]["build"]),
                         ("Cystck build", (entry.get("cystck") or {}).get("build")),
                         ("Patched build", (entry.get("patched") or {}).get("build"))):
        if build and not build["ok"]:
            count = build.get("error_count", 0)
            out += ["", f"{label} failed ({build['reason']}, {count} compiler "
                        f"error{'' if count == 1 else 's'}; log `{build.get('log', '–')}`), "
                        "first error lines:", "", "```"]
            out += build["errors"][:10]
            out.append("```")
            if build.get("error_kinds"):
                out += ["", "By kind:", ""] + [f"- {n} × {kind}" for kind, n in
                                               list(build["error_kinds"].items())[:10]]
    migrate = entry.get("migrate", {})
    if migrate.get("ok"):
        out += ["", f"Translator: {migrate['seconds']} s ({migrate['wall_seconds']} s with start-up "
                    f"and --check; {migrate.get('cpu_seconds')} s of CPU translating alone, "
                    f"start-up included), {migrate['transformations']} transformations, "
                    f"{migrate['warnings']} warnings, {migrate['c_lines']} lines in "
                    f"{migrate['files']} files using the API; report `{migrate['report']}`."]
        for failure in migrate["check_failures"]:
            out.append(f"  - --check {failure['file']}: {failure['errors']} errors, first: "
                       f"`{failure['first_error']}`")
        if migrate["leftover_list"]:
            out += ["", "Left-overs:", ""] + [f"- {item}" for item in migrate["leftover_list"]]
        if migrate["escape_hatch_list"]:
            out += ["", "Escape-hatch uses: " + ", ".join(migrate["escape_hatch_list"])]
    elif migrate:
        out += ["", f"Translator failed: {migrate.get('reason')}"]
    return out + [""]


def error_kinds_overall(results: dict) -> list[str]:
    """The Cystck builds' compiler errors of every extension, by kind."""
    total: dict[str, list] = {}
    for name, entry in results["extensions"].items():
        build = (entry.get("cystck") or {}).get("build") or {}
        for kind, n in (build.get("error_kinds") or {}).items():
            count, names = total.setdefault(kind, [0, []])
            total[kind] = [count + n, names + [name]]
    ranked = sorted(total.items(), key=lambda item: -item[1][0])
    return [f"| {n} | {kind.replace('|', chr(92) + '|')} | {', '.join(names)} |"
            for kind, (n, names) in ranked[:25]]


def one_line(entry: dict) -> str:
    """A progress line for the terminal."""
    return "; ".join(f"{c}: {v}" for c, v in zip(COLUMNS[1:], row("", entry)[1:]))


def render(results: dict) -> str:
    mode = "quick run" if results["quick"] else "full suites"
    out = ["# The porting corpus", "",
           f"Measured {results['date']} at commit {results['commit']} ({mode}; Python "
           f"{results['python']}, {results['machine']}, {results['cpus']} CPUs) by "
           "`make corpus` (eval/corpus/, described in eval/README.md)."
           + (f" Measured again later (`--update`): {', '.join(results['updated'])}."
              if results.get("updated") else ""), "",
           "p/f/s = passed/failed/skipped tests; failed counts errors too. Each test session "
           "checks that the compiled module was imported from the build under test.", ""]
    out += table(results)
    kinds = error_kinds_overall(results)
    if kinds:
        out += ["", "## Cystck build errors by kind", "",
                "Compiler diagnostics of the failed Cystck builds, the extension's own names "
                "blanked ('_'), the API's kept; the 25 commonest.", "",
                "| errors | kind | extensions |", "| --- | --- | --- |"] + kinds
    out += ["", "## Details", ""]
    for name, entry in results["extensions"].items():
        out += details(name, entry)
    return "\n".join(out).rstrip("\n") + "\n"
