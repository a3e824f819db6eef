"""Each rule's before/after example, translated with that rule alone; and
translating translated code changes nothing."""
import pytest

from cystck.migrate import engine, translate

RULES = engine.all_rules()


@pytest.mark.parametrize("rule", RULES, ids=[r.name for r in RULES])
def test_rule_example(rule):
    assert rule.__doc__ and rule.before and rule.after, f"{rule.name} lacks a docstring or an example"
    path = "example.cpp" if rule.library else "example.c"
    assert translate.translate_source(rule.before, path, [rule()]) == rule.after


@pytest.mark.parametrize("rule", RULES, ids=[r.name for r in RULES])
def test_rule_example_is_stable_under_all_rules(rule):
    """Translating a rule's example with every rule, then translating the
    result again, changes nothing the second time."""
    path = "example.cpp" if rule.library else "example.c"
    once = translate.translate_source(rule.before, path)
    assert translate.translate_source(once, path) == once


def test_rule_names_and_precedences_are_unique():
    names = [r.name for r in RULES]
    assert len(names) == len(set(names))
    assert [r.precedence for r in RULES] == sorted(r.precedence for r in RULES)


def test_member_functions_follow_their_definitions():
    """C++ member functions are functions: a declaration in the class body
    gets the state when its out-of-line definition does, an inline member
    that uses the API gets it too, and so do their callers."""
    header = ("#include <Python.h>\n"
              "struct Box\n{\n    PyObject_HEAD\n    static PyTypeObject* TypeObject;\n"
              "    static bool Ready();\n"
              "    static bool TypeCheck( PyObject* obj )\n    {\n"
              "        return PyObject_TypeCheck( obj, TypeObject ) != 0;\n    }\n};\n")
    body = ('#include "box.h"\n'
            "PyTypeObject* Box::TypeObject = NULL;\n"
            "bool Box::Ready()\n{\n    return PyErr_Occurred() == NULL;\n}\n"
            "static int is_box(PyObject *o)\n{\n    return Box::TypeCheck( o );\n}\n")
    out = translate.translate_files({"box.h": header, "box.cpp": body})
    assert "static bool Ready(Cystck_State *S);" in out["box.h"].text
    assert "static bool TypeCheck( Cystck_State *S, Cystck_Object obj )" in out["box.h"].text
    assert "CystckObject_TypeCheck(S,  obj, Cystck_deref(S, TypeObject) )" in out["box.h"].text
    assert "bool Box::Ready(Cystck_State *S)" in out["box.cpp"].text
    assert "Box::TypeCheck(S,  o )" in out["box.cpp"].text
