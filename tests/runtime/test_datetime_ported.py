"""Differential: datetime's C API (PyDate_Check, PyDateTime_GET_YEAR, ...,
PyDateTime_FromDateAndTime), built as it is and as cystck-migrate
translates it (CystckDate_Check, CystckDateTime_GET_YEAR, ...): the same
results, errors included, for dates, datetimes, times, subclasses and
other objects."""
import datetime

import pytest

from differential import outcome


class MyDate(datetime.date):
    pass


@pytest.fixture(scope="module")
def exts(stock_and_ported):
    return stock_and_ported("datetime")


@pytest.mark.parametrize("value", [
    datetime.date(2024, 2, 29), datetime.datetime(1999, 12, 31, 23, 59, 58, 999999),
    datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc), datetime.time(1, 2, 3, 4),
    MyDate(1, 1, 1), 42, "2020-01-01", None])
def test_fields_same_as_stock(exts, value):
    stock, ported = exts
    assert ported.fields(value) == stock.fields(value)


@pytest.mark.parametrize("args", [
    (2024, 2, 29), (2023, 2, 29), (1, 2, 3, 4), (25, 0, 0, 0),
    (2020, 1, 2, 3, 4, 5, 6), (2020, 13, 1, 0, 0, 0, 0)])
def test_make_same_as_stock(exts, args):
    stock, ported = exts
    assert outcome(ported.make, *args) == outcome(stock.make, *args)



@pytest.mark.parametrize("args", [
    (0, 0, 0), (1, 2, 3), (0, 86400, 0), (0, -1, 0), (0, 0, 1_000_001), (-5, 3600, -7),
    (999999999, 86399, 999999), (999999999, 86400, 0), (-999999999, -1, 0)])
def test_delta_same_as_stock(exts, args):
    """PyDelta_FromDSU -> CystckDelta_FromDSU: normalized the same way,
    the same OverflowError out of range."""
    stock, ported = exts
    assert outcome(ported.delta, *args) == outcome(stock.delta, *args)


def test_delta_is_translated_without_the_escape_hatch():
    from cystck.migrate import translate
    src = ("#include <Python.h>\n#include <datetime.h>\n"
           "static PyObject *f(PyObject *self, PyObject *o) { return PyDelta_FromDSU(1, 2, 3); }\n"
           "static PyMethodDef m[] = {{\"f\", f, METH_O, NULL}, {NULL}};\n")
    out = translate.translate_source(src, "m.c")
    assert "return Cystck_Return(S, CystckDelta_FromDSU(S, 1, 2, 3));" in out
    assert "escape hatch" not in out
