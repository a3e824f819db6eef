"""Differential: a stock type whose method table has METH_CLASS methods,
``__class_getitem__`` = ``Py_GenericAlias`` inside a version conditional,
and an entry compiled out by ``#ifdef``, built as it is and as
cystck-migrate translates it (Cystck_GenericAlias, CYSTCK_DEF_METH_FLAGS,
the conditionals kept around the definitions): the same results."""
import types

import pytest

from cystck.build import load_extension
from cystck.migrate import translate


@pytest.fixture(scope="module")
def exts(build, ext_dir, tmp_path_factory):
    template = (ext_dir / "st_class_getitem.c").read_text()
    tmp = tmp_path_factory.mktemp("class_getitem")
    stock, ported = tmp / "st_class_getitem.c", tmp / "rt_class_getitem.c"
    stock.write_text(template.replace("NAME", "st_class_getitem"))
    ported.write_text(translate.translate_source(template.replace("NAME", "rt_class_getitem")))
    return (load_extension("st_class_getitem", build("st_class_getitem", [stock], use_cystck=False)),
            load_extension("rt_class_getitem", build("rt_class_getitem", [ported],
                                                     extra_compile_args=["-Wall", "-Werror"])))


def _outcome(f):
    try:
        r = f()
    except Exception as e:       # the exception is part of the outcome
        return type(e), str(e)
    if isinstance(r, types.GenericAlias):
        return type(r), r.__origin__.__name__, r.__args__
    return r


@pytest.mark.parametrize("call", [
    lambda B: B[int],
    lambda B: B[int, str],
    lambda B: B.__class_getitem__(()),
    lambda B: B().__class_getitem__(int),     # bound to the class, not the instance
    lambda B: B.kind(),
    lambda B: B().kind(),
    lambda B: type(B.__dict__["__class_getitem__"]).__name__,
    lambda B: hasattr(B, "extra"),             # compiled out
    lambda B: B.__class_getitem__(),
])
def test_same_as_stock(exts, call):
    stock, ported = exts
    got = _outcome(lambda: call(ported.Box))
    assert got == _outcome(lambda: call(stock.Box))
