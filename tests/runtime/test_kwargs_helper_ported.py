"""Differential: a METH_VARARGS | METH_KEYWORDS method that gives its
keyword dict to a helper (``merge(self->id, into, kwds)``), built as it is
and as cystck-migrate translates it, called with the same keyword
arguments: the same dict afterwards, the same exceptions.  (The translated
method got the keyword names tuple where the helper reads a dict: a
SystemError, immutables' ``MapMutation.update(**kw)``.)"""
import pytest

from cystck.build import load_extension
from cystck.migrate import translate


@pytest.fixture(scope="module")
def exts(build, ext_dir, tmp_path_factory):
    template = (ext_dir / "st_kwargs_helper.c").read_text()
    tmp = tmp_path_factory.mktemp("kwargs_helper")
    stock, ported = tmp / "st_kwargs_helper.c", tmp / "rt_kwargs_helper.c"
    stock.write_text(template.replace("NAME", "st_kwargs_helper"))
    ported.write_text(translate.translate_source(template.replace("NAME", "rt_kwargs_helper")))
    return (load_extension("st_kwargs_helper", build("st_kwargs_helper", [stock], use_cystck=False)),
            load_extension("rt_kwargs_helper", build("rt_kwargs_helper", [ported])))


def _outcome(ext, extra, kwargs):
    into = {}
    try:
        r = ext.Mut().update(into, *extra, **kwargs)
    except Exception as e:       # the exception is part of the outcome
        return type(e), str(e), into
    return r, into


@pytest.mark.parametrize("extra, kwargs", [
    ((), {"z": 2}),
    ((), {}),
    ((), {"a": 1, "b": 2}),
    ((2,), {"a": 1}),             # too many positional arguments
])
def test_same_as_stock(exts, extra, kwargs):
    stock, ported = exts
    got, want = _outcome(ported, extra, kwargs), _outcome(stock, extra, kwargs)
    assert got == want
