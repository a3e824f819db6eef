"""CystckType_HasFeature and CystckModule_HasDef against the stock code
they replace (docs/gaps.md T15): tests/runtime/ext/st_moddef_tests.c asks
whether a type is a heap type and whether a module was made from its own
definition, as wrapt's proxy check does; built as it is and as
cystck-migrate translates it (the rules api-calls and module-def-tests,
no escape hatch), both answer the same."""
import sys
import types

import pytest


@pytest.fixture(scope="module")
def exts(stock_and_ported):
    return stock_and_ported("moddef_tests", ported_flags=["-Wall", "-Werror"])


class Plain:
    pass


def answers(ext):
    class Sub(ext.Thing):
        pass
    made_here = [ext.made_here(o) for o in (ext.Thing(), Sub(), 1, Plain(), Plain)]
    heap = [ext.is_heap_type(t) for t in (int, object, Plain, ext.Thing, Sub, type)]
    foreign = [ext.foreign(m) for m in (ext, sys, types.ModuleType("x"), types)]
    return made_here, heap, foreign


def test_same_answers_as_stock(exts):
    stock, ported = exts
    assert answers(stock) == ([True, True, False, False, False],
                              [False, False, True, True, True, False],
                              [False, True, True, True])
    assert answers(ported) == answers(stock)


def test_another_extensions_module_is_foreign(exts):
    stock, ported = exts
    assert stock.foreign(ported) and ported.foreign(stock)
    assert not stock.made_here(ported.Thing()) and not ported.made_here(stock.Thing())
