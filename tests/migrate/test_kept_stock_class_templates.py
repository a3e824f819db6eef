"""Files no rule can port stay stock as a whole (translate.kept_stock): a C++
class template whose instantiations are types of their own, and every file
compiled with it.  And C++ headers spelled .hh are sources like .hpp ones:
collected, translated, never compiled alone by --check."""
import json

from cystck.migrate import analysis, cli, translate
from cystck.migrate.rules import escape

# A class template that is the instance layout of a type per instantiation.
TEMPLATE_HEADER = (
    "#include <Python.h>\n"
    "template <typename T>\n"
    "class Vec {\n"
    "public:\n"
    "    static bool check(PyObject *o) { return Py_TYPE(o) == &pytype; }\n"
    "private:\n"
    "    PyObject_VAR_HEAD\n"
    "    T items[1];\n"
    "    static PyTypeObject pytype;\n"
    "};\n")
USES_IT = ('#include "vec.hh"\n'
           "static PyObject *is_vec(PyObject *self, PyObject *o)\n{\n"
           "    return PyBool_FromLong(Vec<long>::check(o));\n}\n")
HELPER = '#include "helper.hh"\n'
HELPER_HEADER = ("#include <Python.h>\n"
                 "static PyObject *none(PyObject *self)\n{\n    Py_RETURN_NONE;\n}\n")
UNRELATED = ("#include <Python.h>\n"
             "static PyObject *one(PyObject *self)\n{\n    return PyLong_FromLong(1);\n}\n")


def test_class_template_with_a_type_member_keeps_its_files_stock():
    """Before: the rules rewrote the files around such a class into code
    that mixes handles and the class's stock object pointers and does not
    compile.  After: the header, the files including it and the headers
    they include stay stock, each marked on its first line (line numbers
    unchanged) with one left-over saying why."""
    files = {"vec.hh": TEMPLATE_HEADER, "vec_ops.cc": USES_IT + HELPER, "helper.hh": HELPER_HEADER,
             "other.cc": UNRELATED}
    units = translate.translate_files(files)
    for path in ("vec.hh", "vec_ops.cc", "helper.hh"):
        unit = units[path]
        assert unit.text == f"{escape.KEPT_MARK} {files[path]}"
        notes = unit.finish_notes()
        assert [n.rule for n in notes] == ["kept-stock"]
        assert analysis.analyse(unit) == []
    (origin,) = units["vec.hh"].notes
    assert origin.line == 2 and "class template 'Vec'" in origin.message
    assert "compiled with vec.hh" in units["vec_ops.cc"].notes[0].message
    # a file compiled apart from it is translated as ever
    assert "CystckLong_FromLong(S, 1)" in units["other.cc"].text
    assert not units["other.cc"].kept_stock


def test_plain_classes_and_templates_without_a_type_member_are_translated():
    """Negative: a class (not a template) with a static type object member
    (the cpp pack's class-type-statics) and a template without one (a
    functor) are ported by the rules, not kept stock."""
    plain = ("#include <Python.h>\n"
             "struct Box\n{\n    PyObject_HEAD\n    static PyTypeObject* TypeObject;\n};\n"
             "static PyObject *none(PyObject *self)\n{\n    Py_RETURN_NONE;\n}\n")
    functor = ("#include <Python.h>\n"
               "template <typename T>\nstruct Twice\n{\n"
               "    PyObject* operator()( PyObject* value ) { return PyNumber_Add( value, value ); }\n};\n")
    for text in (plain, functor):
        unit = translate.translate_files({"m.cc": text})["m.cc"]
        assert not unit.kept_stock
        assert escape.KEPT_MARK not in unit.text
        assert "Cystck" in unit.text


def test_hh_headers_are_translated_and_not_compiled_alone(tmp_path):
    """Before: a .hh header was copied untranslated (not a source suffix),
    so the translated .cc that includes it saw stock declarations of its
    own translated functions; --check compiled it alone once it was
    collected.  After: it is translated with its includer and --check
    compiles only the .cc file."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "half.hh").write_text("#include <Python.h>\nPyObject *half(PyObject *o);\n")
    (src / "m.cc").write_text('#include "half.hh"\n'
                              "PyObject *half(PyObject *o)\n{\n"
                              "    return PyNumber_TrueDivide(o, PyLong_FromLong(2));\n}\n")
    out, report = tmp_path / "out", tmp_path / "r.json"
    assert cli.main([str(src), "-o", str(out), "-q", "--no-cppcheck", "--check", "--report", str(report)]) == 0
    assert "Cystck_Object half(Cystck_State *S, Cystck_Object o);" in (out / "half.hh").read_text()
    assert json.loads(report.read_text())["check"]["total"] == 1


def test_functions_of_kept_files_stay_stock_where_other_files_declare_them():
    """Before: a file compiled apart that declares a function of a kept
    file by itself got the declaration and the call in Cystck form, which
    in C links to the stock definition with the wrong arguments.  After:
    the declaration stays stock and the call lends its handle through the
    escape hatch.  Negative: the file's own functions are translated."""
    defines = ('#include "vec.hh"\n'
               'extern "C" int vec_ndim(PyObject *o)\n{\n    return Py_SIZE(o) < 0 ? 2 : 1;\n}\n')
    caller = ("#include <Python.h>\n"
              "int vec_ndim(PyObject *o);\n"
              "static PyObject *ndim(PyObject *self, PyObject *o)\n{\n"
              "    return PyLong_FromLong(vec_ndim(o));\n}\n")
    units = translate.translate_files({"vec.hh": TEMPLATE_HEADER, "vec.cc": defines, "other.c": caller})
    out = units["other.c"].text
    assert "int vec_ndim(PyObject *o);" in out
    assert f"CystckLong_FromLong(S, {escape.MARK} vec_ndim(Cystck_AsPyObject(S, o)))" in out
    assert "static Cystck_Object ndim(Cystck_State *S, Cystck_Object self, Cystck_Object o)" in out


def test_a_function_of_the_same_name_defined_apart_is_translated():
    """Negative: a file compiled apart that defines its own function under
    the name of a kept file's function translates it as its own."""
    defines = ('#include "vec.hh"\n'
               'extern "C" int vec_ndim(PyObject *o)\n{\n    return 1;\n}\n')
    own = ("#include <Python.h>\n"
           "static int vec_ndim(PyObject *o)\n{\n    return PyObject_Length(o);\n}\n")
    units = translate.translate_files({"vec.hh": TEMPLATE_HEADER, "vec.cc": defines, "other.c": own})
    assert "static int vec_ndim(Cystck_State *S, Cystck_Object o)" in units["other.c"].text
