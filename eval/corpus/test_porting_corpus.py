"""The porting-corpus pipeline (eval/corpus/run.py).

Three layers:
* the recipes are well-formed, and the probe tells a compiled module from
  anything else;
* a tiny sdist made here goes through the whole pipeline offline: its
  stock build passes its test, and its Cystck build fails (the source
  refuses to compile against Cystck.h), which must be recorded with the
  compiler's error, not hidden; a test session that never imports the
  compiled module must be caught; a residual patch removing the refusal
  is counted, applied, and its build passes on the Cystck module;
* the quick run of the real corpus (recipes.QUICK: the extensions whose
  builds and suites are short), downloaded from PyPI once and cached: stock
  builds pass what they passed when the corpus was chosen, with the
  compiled module imported; the translator's output has no --check error;
  each Cystck build, from the untouched output, passes in release and in
  debug mode exactly what its stock build passed in the same run.
"""

import difflib
import importlib.machinery
import importlib.util
import io
import json
import re
import subprocess
import sys
import tarfile
from dataclasses import replace
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def _load(name, filename):
    # By path under private names: eval/micro has a run.py of its own.
    spec = importlib.util.spec_from_file_location(name, HERE / filename)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


corpus_run = _load("_corpus_run_under_test", "run.py")
recipes = corpus_run.recipes
corpus_probe = _load("_corpus_probe_under_test", "probe/corpus_probe.py")


# ---------------------------------------------------------------------------
# recipes and probe
# ---------------------------------------------------------------------------

def test_recipes_are_pinned_and_unique():
    names = [r.name for r in recipes.RECIPES]
    assert len(names) == len(set(names))
    for r in recipes.RECIPES:
        assert re.fullmatch(r"[0-9a-f]{64}", r.sha256), r.name
        assert re.fullmatch(r"[A-Za-z0-9_.-]+==[A-Za-z0-9_.]+", r.requirement), r.name
        assert r.language in ("C", "C++")
        assert r.translate and r.extensions and r.tests
        assert all("==" in req for req in r.requirements), r.name
    assert set(recipes.QUICK) <= set(names)


def test_select_names_unknown_recipes():
    assert [r.name for r in recipes.select("lz4,crc32c")] == ["lz4", "crc32c"]
    assert [r.name for r in recipes.select(None, quick=True)] == list(recipes.QUICK)
    # a recipe left out of the quick run is in the full one
    assert [r.name for r in recipes.RECIPES if r.name not in recipes.QUICK] == \
        [r.name for r in recipes.RECIPES if not r.in_quick_run]
    assert [r.name for r in recipes.select(None)] == [r.name for r in recipes.RECIPES]
    with pytest.raises(KeyError, match="nosuch"):
        recipes.select("crc32c,nosuch")


def test_probe_accepts_only_a_shared_library_from_the_tree():
    compiled = next(name for name, module in sys.modules.items()
                    if getattr(module, "__file__", None)
                    and module.__file__.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)))
    where = Path(sys.modules[compiled].__file__).resolve().parent
    assert corpus_probe.module_origin(compiled, str(where)) == (
        True, str(Path(sys.modules[compiled].__file__).resolve()))
    ok, reason = corpus_probe.module_origin(compiled, str(HERE))
    assert not ok and "outside the tree" in reason
    ok, reason = corpus_probe.module_origin("json", str(Path(json.__file__).parent.parent))
    assert not ok and "not a shared library" in reason
    ok, reason = corpus_probe.module_origin("no_such_module_anywhere", str(HERE))
    assert not ok and "never imported" in reason


def test_update_replaces_only_the_measured_entries_in_recipe_order():
    old = {"date": "d0", "commit": "c0", "extensions": {"lz4": {"v": 1}, "crc32c": {"v": 1}}}
    new = {"date": "d1", "commit": "c1", "quick": False,
           "extensions": {"crc32c": {"v": 2}, "lru-dict": {"v": 2}}}
    merged = corpus_run.updated(old, new)
    assert merged["extensions"] == {"crc32c": {"v": 2}, "lru-dict": {"v": 2}, "lz4": {"v": 1}}
    assert list(merged["extensions"]) == ["crc32c", "lru-dict", "lz4"]
    assert (merged["date"], merged["commit"], merged["updated"]) == ("d0", "c0",
                                                                    ["crc32c", "lru-dict"])


def test_update_keeps_entries_of_recipes_it_does_not_know_after_the_others():
    # A results file written by a newer checkout (a recipe added since this
    # run started): its entry is kept, not lost to a crash.
    old = {"date": "d0", "commit": "c0", "extensions": {"no-such-recipe": {"v": 1}, "lz4": {"v": 1}}}
    new = {"date": "d1", "commit": "c1", "quick": False, "extensions": {"lz4": {"v": 2}}}
    merged = corpus_run.updated(old, new)
    assert list(merged["extensions"]) == ["lz4", "no-such-recipe"]
    assert merged["extensions"]["no-such-recipe"] == {"v": 1}


def test_error_kinds_group_by_cause_and_keep_api_names():
    errors = ["a.c:10:5: error: ‘foo’ undeclared (first use in this function)",
              "b.c:20:1: error: ‘bar’ undeclared (first use in this function)",
              "a.c:11:7: error: incompatible type for argument 2 of ‘CystckList_Append’",
              "error: command '/usr/bin/gcc' failed with exit code 1",
              "a.c:12: warning: unused variable ‘x’"]
    assert corpus_run.error_kinds(errors) == {
        "'_' undeclared (first use in this function)": 2,
        "incompatible type for argument N of 'CystckList_Append'": 1}


# ---------------------------------------------------------------------------
# a tiny sdist, offline
# ---------------------------------------------------------------------------

FAKE_C = r"""
#include <Python.h>
#ifdef CYSTCK_H
#error "fakeext refuses to build against Cystck"
#endif
static PyObject *answer(PyObject *self, PyObject *unused) { return PyLong_FromLong(42); }
static PyMethodDef methods[] = {{"answer", answer, METH_NOARGS, NULL}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "fakeext._fake", NULL, -1, methods};
PyMODINIT_FUNC PyInit__fake(void) { return PyModule_Create(&def); }
"""
FAKE_FILES = {
    "setup.py": "from setuptools import setup, Extension\n"
                "setup(name='fakeext', version='1', packages=['fakeext'],\n"
                "      ext_modules=[Extension('fakeext._fake', ['fakeext/_fake.c'])])\n",
    "fakeext/__init__.py": "",
    "fakeext/_fake.c": FAKE_C,
    "tests/test_fake.py": "from fakeext import _fake\n\ndef test_answer():\n"
                          "    assert _fake.answer() == 42\n",
    "tests/test_pure.py": "def test_nothing_compiled():\n    assert True\n",
}


@pytest.fixture(scope="module")
def fake(tmp_path_factory):
    """(recipe, build root, cache root) of a tiny sdist in a private cache."""
    root = tmp_path_factory.mktemp("corpus")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for rel, text in FAKE_FILES.items():
            data = text.encode()
            info = tarfile.TarInfo(f"fakeext-1/{rel}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    cache = root / "cache" / "fakeext"
    cache.mkdir(parents=True)
    sdist = cache / "fakeext-1.tar.gz"
    sdist.write_bytes(buffer.getvalue())
    recipe = recipes.Recipe(
        name="fakeext", requirement="fakeext==1", sha256=corpus_run.portkit.sha256_of(sdist),
        language="C", exercises="nothing", translate=("fakeext/_fake.c",),
        extensions=("fakeext._fake",), tests=("tests/test_fake.py",), stock_reference=(1, 0, 0),
        requirements=())
    return recipe, root / "build", root / "cache"


@pytest.fixture(scope="module")
def fake_entry(fake):
    recipe, build_root, cache_root = fake
    return corpus_run.run_one(recipe, quick=False, build_root=build_root, cache_root=cache_root)


def test_fake_stock_build_passes_on_the_compiled_module(fake_entry):
    stock = fake_entry["stock"]
    assert stock["build"]["ok"], stock["build"]
    tests = stock["tests"]
    assert tests["finished"] and (tests["passed"], tests["failed"], tests["skipped"]) == (1, 0, 0)
    assert tests["compiled_imported"]
    assert tests["modules"]["fakeext._fake"]["where"].endswith(
        tuple(importlib.machinery.EXTENSION_SUFFIXES))


def test_fake_cystck_build_failure_is_recorded(fake_entry):
    assert fake_entry["migrate"]["ok"] and fake_entry["migrate"]["exit_status"] in (0, 1)
    build = fake_entry["cystck"]["build"]
    assert not build["ok"]
    assert build["error_count"] >= 1
    assert any("fakeext refuses to build against Cystck" in line for line in build["errors"])
    assert "release" not in fake_entry["cystck"] and "debug" not in fake_entry["cystck"]


def test_a_session_without_the_compiled_module_is_caught(fake, fake_entry):
    recipe, build_root, _ = fake
    work = build_root / recipe.name
    tests = corpus_run.run_tests(replace(recipe, tests=("tests/test_pure.py",)), work / "stock",
                                 work / "deps", work / "logs", "pure", quick=False)
    assert tests["finished"] and tests["passed"] == 1
    assert not tests["compiled_imported"]
    assert tests["modules"]["fakeext._fake"]["reason"] == "never imported by the test session"


REFUSAL = ("#ifdef CYSTCK_H\n", "#error \"fakeext refuses to build against Cystck\"\n",
           "#endif\n")


def test_a_residual_patch_is_counted_applied_and_tested(fake, fake_entry, tmp_path):
    """A patch that removes the refusal: counted in changed lines, applied
    to the translator's output, and the patched build passes the test on
    the compiled Cystck module, in release and debug mode."""
    recipe, build_root, _ = fake
    work = build_root / recipe.name
    translated = work / "migrate" / "output"
    text = (translated / "fakeext/_fake.c").read_text().splitlines(keepends=True)
    start = text.index(REFUSAL[0])
    assert tuple(text[start:start + 3]) == REFUSAL
    patched_text = text[:start] + text[start + 3:]
    patch = tmp_path / f"{recipe.name}.patch"
    patch.write_text("".join(difflib.unified_diff(text, patched_text, "a/fakeext/_fake.c",
                                                  "b/fakeext/_fake.c")))
    assert corpus_run.residual_patch(recipe, tmp_path)["lines"] == 3
    patched = corpus_run.cystck_variant(recipe, work / "upstream" / "fakeext-1", translated,
                                        work / "patched", work / "deps", work / "logs", "patched",
                                        quick=False, patch=patch)
    assert patched["build"]["ok"], patched["build"]
    for mode in ("release", "debug"):
        tests = patched[mode]
        assert (tests["passed"], tests["failed"]) == (1, 0), tests
        assert tests["compiled_imported"], tests


def test_a_patch_that_does_not_apply_is_a_recorded_build_failure(fake, fake_entry, tmp_path):
    recipe, build_root, _ = fake
    work = build_root / recipe.name
    patch = tmp_path / "stale.patch"
    patch.write_text("--- a/fakeext/_fake.c\n+++ b/fakeext/_fake.c\n@@ -1,1 +1,1 @@\n"
                     "-no such line\n+anything\n")
    result = corpus_run.cystck_variant(recipe, work / "upstream" / "fakeext-1",
                                       work / "migrate" / "output", work / "stale", work / "deps",
                                       work / "logs", "stale", quick=False, patch=patch)
    assert not result["build"]["ok"] and "does not apply" in result["build"]["reason"]


def test_an_sdist_without_setup_py_builds_from_its_pyproject(fake, tmp_path):
    """An sdist whose extensions are declared only in pyproject.toml
    ([tool.setuptools] ext-modules) builds through the stand-in setup.py,
    stock and with Cystck's plumbing alike."""
    recipe, _, _ = fake
    tree = tmp_path / "tree"
    for rel, text in FAKE_FILES.items():
        if rel != "setup.py":
            (tree / rel).parent.mkdir(parents=True, exist_ok=True)
            (tree / rel).write_text(text)
    (tree / "pyproject.toml").write_text(
        "[project]\nname = 'fakeext'\nversion = '1'\n[tool.setuptools]\npackages = ['fakeext']\n"
        "ext-modules = [{name = 'fakeext._fake', sources = ['fakeext/_fake.c']}]\n")
    assert corpus_run.setup_script(tree) == corpus_run.PYPROJECT_SETUP
    result = corpus_run.build(recipe, tree, tmp_path / "deps", tmp_path / "logs", cystck=False)
    assert result["ok"], result
    assert result["modules"]["fakeext._fake"]


def test_the_report_shows_the_failure(fake_entry):
    results = {"schema": corpus_run.SCHEMA, "date": "d", "commit": "c", "quick": False,
               "python": "3", "machine": "m", "cpus": 2, "extensions": {"fakeext": fake_entry}}
    text = corpus_run.corpus_report.render(results)
    assert "| fakeext | 1/0/0 |" in text
    assert "no (" in text and "fakeext refuses to build against Cystck" in text


# ---------------------------------------------------------------------------
# the quick run of the real corpus
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def quick_results(tmp_path_factory):
    out = tmp_path_factory.mktemp("corpus-quick") / "corpus-quick.json"
    subprocess.run([sys.executable, str(HERE / "run.py"), "--quick", "--json", str(out)],
                   check=True, timeout=2400)
    return json.loads(out.read_text())


def test_quick_results_are_complete(quick_results):
    assert quick_results["schema"] == corpus_run.SCHEMA and quick_results["quick"] is True
    assert list(quick_results["extensions"]) == list(recipes.QUICK)
    assert str(corpus_run.REPO_ROOT) not in json.dumps(quick_results)


@pytest.mark.parametrize("name", recipes.QUICK)
def test_quick_stock_passes_as_when_chosen(quick_results, name):
    entry = quick_results["extensions"][name]
    assert "setup_error" not in entry, entry.get("setup_error")
    assert entry["stock"]["build"]["ok"], entry["stock"]["build"]
    tests = entry["stock"]["tests"]
    assert tests["finished"] and tests["compiled_imported"], tests
    if recipes.by_name()[name].quick_tests is None:   # a subset counts fewer
        assert [tests["passed"], tests["failed"], tests["skipped"]] == \
            list(entry["stock_reference"].values())


@pytest.mark.parametrize("name", recipes.QUICK)
def test_quick_translation_ratchets(quick_results, name):
    migrate = quick_results["extensions"][name]["migrate"]
    assert migrate["ok"], migrate
    # Its time is recorded, not tested: speed is a benchmark's to report.
    assert migrate["cpu_seconds"] is not None
    assert migrate["check_errors"] == 0, migrate
    assert migrate["escape_hatches"] == len(migrate["escape_hatch_list"])
    assert migrate["leftovers"] == len(migrate["leftover_list"])


@pytest.mark.parametrize("name", recipes.QUICK)
def test_quick_patched_build_passes_like_stock(quick_results, name):
    """An extension with a residual patch passes, patched, what its stock
    build passes, in release and debug mode."""
    entry = quick_results["extensions"][name]
    if not entry.get("residual_patch"):
        return
    patched = entry["patched"]
    assert patched["build"]["ok"], patched["build"]
    for label in ("release", "debug"):
        tests = patched[label]
        assert tests["finished"] and tests["compiled_imported"], tests
        assert (tests["passed"], tests["failed"]) == (entry["stock"]["tests"]["passed"], 0), tests


@pytest.mark.parametrize("name", recipes.QUICK)
def test_quick_untouched_cystck_build_passes_like_stock(quick_results, name):
    """Built from the translator's untouched output, the extension passes,
    in release and debug mode, what its stock build passed in this run
    (and fails what it failed: immutables' mypy test fails on both)."""
    entry = quick_results["extensions"][name]
    cystck, stock = entry["cystck"], entry["stock"]["tests"]
    assert cystck["build"]["ok"], cystck["build"]
    for label in ("release", "debug"):
        tests = cystck[label]
        assert tests["finished"] and tests["compiled_imported"], tests
        assert (tests["passed"], tests["failed"]) == (stock["passed"], stock["failed"]), (label, tests)


def test_a_file_kept_stock_counts_as_one_escape_hatch(tmp_path):
    """A file the translator kept stock as a whole (its first line's mark)
    is one use of the escape hatch, listed at that line, and so is each
    marked call, however many handles it lends and whether or not its
    result gets a handle; a handle lent without a mark (a marked call's
    next line) and a file without either count nothing."""
    (tmp_path / "kept.cc").write_text("/* cystck-migrate: kept stock */ // stock\nint f(void);\n")
    (tmp_path / "lent.c").write_text(
        "x = Cystck_FromNewPyObject(S, /* cystck-migrate: escape hatch */ PyX_Y(Cystck_AsPyObject(S, a),\n"
        "    Cystck_AsPyObject(S, b)));\n"
        "/* cystck-migrate: escape hatch */ PyX_Z();\n")
    (tmp_path / "plain.c").write_text("int g(void);\n")
    found = corpus_run.escape_hatches(tmp_path, {"kept.cc": 2, "lent.c": 3, "plain.c": 1})
    assert found == ["kept.cc:1", "lent.c:1", "lent.c:3"]
    assert corpus_run.kept_stock_lines(tmp_path, {"kept.cc": 2, "lent.c": 1, "plain.c": 1}) == 2
    cell = corpus_run.corpus_report.escape_cell
    assert cell({"escape_hatches": 2, "escape_hatches_per_kloc": 500.0, "kept_stock_lines": 2}) == \
        "2 (500.0/kloc; 2 lines kept stock)"
    assert cell({"escape_hatches": 1, "escape_hatches_per_kloc": 1.0, "kept_stock_lines": 0}) == "1 (1.0/kloc)"


def test_files_the_build_generates_are_found_by_check_only_once_built(tmp_path):
    """A header setup.py writes before compiling (not in the sdist) is taken
    from the stock build's tree, beside the others in its sdist folder, and
    --check finds it through one -I; one the build did not write is listed
    as missing and gets no flag (the include stays a --check error); a
    recipe that generates nothing adds no flag."""
    recipe = replace(recipes.by_name()["crc32c"], generated=("src/version.hh", "src/gone.hh"))
    built = tmp_path / "stock"
    (built / "src").mkdir(parents=True)
    (built / "src" / "version.hh").write_text('#define VERSION "1"\n')
    flags, missing = corpus_run.generated_includes(recipe, built, tmp_path / "migrate")
    copy = tmp_path / "migrate" / "generated" / "src" / "version.hh"
    assert flags == [f"-I{copy.parent}"] and missing == ["src/gone.hh"]
    assert copy.read_text() == '#define VERSION "1"\n'
    assert not (tmp_path / "migrate" / "generated" / "src" / "gone.hh").exists()
    plain = corpus_run.generated_includes(replace(recipe, generated=()), built, tmp_path / "plain")
    assert plain == ([], [])


def test_check_compiles_with_the_generated_header(tmp_path):
    """translate() gives --check the generated header: a source including it
    checks clean, and the results say where it came from."""
    upstream, built = tmp_path / "upstream", tmp_path / "stock"
    for tree in (upstream, built):
        (tree / "src").mkdir(parents=True)
        (tree / "src" / "m.c").write_text(
            '#include <Python.h>\n#include "version.hh"\n'
            "static PyObject *v(PyObject *self, PyObject *unused) { return PyUnicode_FromString(VERSION); }\n"
            'static PyMethodDef methods[] = {{"v", v, METH_NOARGS, NULL}, {NULL, NULL, 0, NULL}};\n'
            'static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "m", NULL, -1, methods};\n'
            "PyMODINIT_FUNC PyInit_m(void) { return PyModule_Create(&def); }\n")
    (built / "src" / "version.hh").write_text('#define VERSION "1"\n')
    recipe = replace(recipes.by_name()["crc32c"], translate=("src/m.c",), generated=("src/version.hh",))
    result = corpus_run.translate(recipe, upstream, tmp_path / "migrate", built=built)
    assert result["ok"] and result["check_errors"] == 0, result.get("check_failures")
    assert result["generated"]["missing"] == []
    unbuilt = corpus_run.translate(recipe, upstream, tmp_path / "unbuilt", built=upstream)
    assert unbuilt["check_errors"] >= 1 and unbuilt["generated"]["missing"] == ["src/version.hh"]


def test_the_escape_hatch_marks_are_the_translators():
    """The corpus counts the marks the installed translator writes."""
    from cystck.migrate.rules import escape
    assert (corpus_run.ESCAPE_MARK, corpus_run.KEPT_STOCK_MARK) == (escape.MARK, escape.KEPT_MARK)


OWN_BUILD_EXTENSION_SETUP = """from setuptools import setup, Extension
from setuptools.command.build_ext import build_ext


class BuildExt(build_ext):
    # compiles and links by itself, never calling its parent's
    def build_extension(self, ext):
        objects = self.compiler.compile(ext.sources, output_dir=self.build_temp,
                                        include_dirs=ext.include_dirs)
        self.compiler.link_shared_object(objects, self.get_ext_fullpath(ext.name),
                                         build_temp=self.build_temp)


setup(name='fakeext', version='1', packages=['fakeext'], cmdclass={'build_ext': BuildExt},
      ext_modules=[Extension('fakeext._fake', ['fakeext/_fake.c'])])
"""


def test_a_build_ext_compiling_by_itself_gets_the_cystck_plumbing(fake, tmp_path):
    """A setup.py whose build_ext subclass compiles each extension itself
    (without its parent's build_extension) still gets Cystck's include
    directories and runtime sources for the recipe's extensions."""
    recipe, _, _ = fake
    tree = tmp_path / "tree"
    files = {**FAKE_FILES, "setup.py": OWN_BUILD_EXTENSION_SETUP,
             "fakeext/_fake.c": '#include "Cystck.h"\n' + FAKE_C.split("#endif", 1)[1]}
    for rel, text in files.items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text(text)
    result = corpus_run.build(recipe, tree, tmp_path / "deps", tmp_path / "logs", cystck=True)
    assert result["ok"], result
    assert result["modules"]["fakeext._fake"]
