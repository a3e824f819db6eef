import pathlib

import pytest

from cystck.build import load_extension

EXT = pathlib.Path(__file__).resolve().parent / "ext"
WARNINGS = ["-Wall", "-Wextra", "-Werror"]


@pytest.fixture(scope="session")
def build_rt(build):
    """Builds tests/runtime/ext/NAME.c with the warnings every runtime test
    extension is held to.  (Test modules take paths and flags from here, as
    fixtures: `from conftest import ...` finds whichever conftest pytest
    imported first when several folders are collected.)"""
    return lambda name: build(name, [EXT / f"{name}.c"], extra_compile_args=WARNINGS)


@pytest.fixture(scope="session")
def stock_and_ported(build, tmp_path_factory):
    """For differential tests of the translator: the stock extension
    tests/runtime/ext/st_NAME.c (its module name spelled NAME in the
    source) built as it is, and as cystck-migrate translates it, loaded as
    st_NAME and rt_NAME."""
    from cystck.migrate import translate

    def stock_and_ported(name, ported_flags=()):
        template = (EXT / f"st_{name}.c").read_text()
        tmp = tmp_path_factory.mktemp(name)
        stock, ported = tmp / f"st_{name}.c", tmp / f"rt_{name}.c"
        stock.write_text(template.replace("NAME", f"st_{name}"))
        ported.write_text(translate.translate_source(template.replace("NAME", f"rt_{name}")))
        return (load_extension(f"st_{name}", build(f"st_{name}", [stock], use_cystck=False)),
                load_extension(f"rt_{name}", build(f"rt_{name}", [ported],
                                                   extra_compile_args=list(ported_flags))))
    return stock_and_ported


@pytest.fixture(scope="session")
def run_all_in_debug_mode():
    """run_all_in_debug_mode(test_module, paths): a differential test
    module's ``run_all(paths)`` (the stock and the ported extension, as
    (name, path) pairs) run again in a child interpreter with
    CYSTCK_DEBUG=1, which must pass and report no reference never released."""
    import os
    import subprocess
    import sys

    def _run(test_module, paths):
        code = (f"import sys; sys.path.insert(0, {str(EXT.parent)!r}); import {test_module} as t; "
                f"t.run_all({paths!r})")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env=dict(os.environ, CYSTCK_DEBUG="1"))
        assert out.returncode == 0, out.stderr[-3000:]
        assert "never released" not in out.stderr
    return _run


@pytest.fixture(scope="session")
def rt_path(build):
    return build("rt_basic", [EXT / "rt_basic.c", EXT / "rt_extern.c"], extra_compile_args=WARNINGS)


@pytest.fixture(scope="session")
def grow_path(build):
    return build("rt_grow", [EXT / "rt_grow.c"], extra_compile_args=WARNINGS)


@pytest.fixture(scope="session")
def rt(rt_path):
    return load_extension("rt_basic", rt_path)


@pytest.fixture(scope="session")
def ext_dir():
    return EXT


@pytest.fixture(scope="session")
def rt_types_path(build):
    return build("rt_types", [EXT / "rt_types.c"], extra_compile_args=WARNINGS)


@pytest.fixture(scope="session")
def st_types_path(build):
    """rt_types' stock counterpart (-Wextra would flag Python.h's idioms)."""
    return build("st_types", [EXT / "st_types.c"], use_cystck=False,
                 extra_compile_args=["-Wall", "-Werror"])
