"""Helper-library packs: the core modules of the translator name no
library's identifiers; what they need to know of a library (which files use
it, its cast macros) the library's pack registers with
``migrate/libraries.py``."""
import dataclasses
import pathlib

import regex

from cystck.migrate import libraries, translate

MIGRATE = pathlib.Path(__file__).resolve().parents[2] / "migrate"

# Written over kiwi's cppy, as kiwisolver is: its smart pointer and error
# helper, and its cast macros in a functor, a slot table, a type object
# kept as a class static and a module function.
CPPY_SOURCE = (
    "#include <Python.h>\n"
    "#include <cppy/cppy.h>\n"
    "\n"
    "struct Box\n"
    "{\n"
    "    PyObject_HEAD\n"
    "    PyObject* items;\n"
    "    double scale;\n"
    "    static PyType_Spec TypeObject_Spec;\n"
    "    static PyTypeObject* TypeObject;\n"
    "    static bool Ready();\n"
    "};\n"
    "\n"
    "struct Scale\n"
    "{\n"
    "    PyObject* operator()( Box* first, double value )\n"
    "    {\n"
    "        if( !pyobject_cast( first ) )\n"
    "            return 0;\n"
    "        return PyTuple_Pack( 2, first->items, first );\n"
    "    }\n"
    "};\n"
    "\n"
    "static PyObject* Box_new( PyTypeObject* type, PyObject* args, PyObject* kwargs )\n"
    "{\n"
    "    cppy::ptr pybox( PyType_GenericNew( type, args, kwargs ) );\n"
    "    if( !pybox )\n"
    "        return 0;\n"
    "    return pybox.release();\n"
    "}\n"
    "\n"
    "static PyObject* Box_scaled( Box* self, PyObject* value )\n"
    "{\n"
    "    if( !PyFloat_Check( value ) )\n"
    "        return cppy::type_error( value, \"float\" );\n"
    "    return Scale()( self, PyFloat_AS_DOUBLE( value ) );\n"
    "}\n"
    "\n"
    "static PyObject* make_box( PyObject* mod )\n"
    "{\n"
    "    return PyType_GenericNew( pytype_cast( Box::TypeObject ), 0, 0 );\n"
    "}\n"
    "\n"
    "static PyMethodDef Box_methods[] = {\n"
    "    { \"scaled\", ( PyCFunction )Box_scaled, METH_O, \"\" },\n"
    "    { 0 }\n"
    "};\n"
    "\n"
    "static PyType_Slot Box_Type_slots[] = {\n"
    "    { Py_tp_new, void_cast( Box_new ) },\n"
    "    { Py_tp_methods, void_cast( Box_methods ) },\n"
    "    { Py_tp_doc, cast_py_tp_doc( \"A box.\" ) },\n"
    "    { 0, 0 },\n"
    "};\n"
    "\n"
    "PyTypeObject* Box::TypeObject = NULL;\n"
    "\n"
    "PyType_Spec Box::TypeObject_Spec = {\n"
    "    \"m.Box\", sizeof( Box ), 0, Py_TPFLAGS_DEFAULT, Box_Type_slots\n"
    "};\n"
    "\n"
    "bool Box::Ready()\n"
    "{\n"
    "    TypeObject = pytype_cast( PyType_FromSpec( &TypeObject_Spec ) );\n"
    "    return TypeObject != 0;\n"
    "}\n"
    "\n"
    "static PyMethodDef module_methods[] = {\n"
    "    { \"make_box\", ( PyCFunction )make_box, METH_NOARGS, \"\" },\n"
    "    { 0 }\n"
    "};\n")
CPPY_TRANSLATION = (
    "#include \"Cystck.h\"\n"
    "\n"
    "struct Box\n"
    "{\n"
    "    Cystck_Field items;\n"
    "    double scale;\n"
    "    static CystckType_Spec TypeObject_Spec;\n"
    "    static Cystck_Ref TypeObject;\n"
    "    static bool Ready(Cystck_State *S);\n"
    "};\n"
    "typedef struct Box Box;\n"
    "CYSTCK_TYPE_HELPERS(Box)\n"
    "\n"
    "struct Scale\n"
    "{\n"
    "    Cystck_Object operator()( Cystck_State *S, Box* first, double value )\n"
    "    {\n"
    "        if( Cystck_IsNull(Cystck_FromStruct(S, first)) )\n"
    "            return Cystck_NULL;\n"
    "        return CystckTuple_Pack(S,  2, CystckField_Load(S, Cystck_FromStruct(S, first), first->items), Cystck_FromStruct(S, first) );\n"
    "    }\n"
    "};\n"
    "\n"
    "static int Box_new(Cystck_State *S, Cystck_Object type, const Cystck_Object *args, Cystck_ssize_t nargs, Cystck_Object kwargs)\n"
    "{\n"
    "    Cystck_Object pybox = CystckType_GenericNew(S, type);\n"
    "    if( Cystck_IsNull(pybox) )\n"
    "        return -1;\n"
    "    return Cystck_Return(S, pybox);\n"
    "}\n"
    "\n"
    "static int Box_scaled(Cystck_State *S, Cystck_Object self, Cystck_Object value)\n"
    "{\n"
    "    if( !CystckFloat_Check(S,  value ) )\n"
    "        return Cystck_Return(S, CystckErr_Format(S, CystckExc_TypeError, \"Expected object of type `%s`. Got object of type `%s` instead.\", \"float\", CystckType_GetName(S, CystckObject_Type(S, value))));\n"
    "    return Cystck_Return(S, Scale()( S, self, CystckFloat_AS_DOUBLE(S,  value ) ));\n"
    "}\n"
    "\n"
    "static int make_box(Cystck_State *S, Cystck_Object mod)\n"
    "{\n"
    "    return Cystck_Return(S, CystckType_GenericNew(S,  Cystck_deref(S, Box::TypeObject), 0, 0 ));\n"
    "}\n"
    "\n"
    "CYSTCK_DEF_METH(Box_scaled_def, \"scaled\", Box_scaled, CYSTCK_O, \"\")\n"
    "\n"
    "CYSTCK_DEF_SLOT(Box_Type_slots_tp_new, tp_new, Box_new)\n"
    "static CystckDef *Box_Type_slots[] = {\n"
    "    &Box_Type_slots_tp_new,\n"
    "    &Box_scaled_def,\n"
    "    NULL\n"
    "};\n"
    "\n"
    "Cystck_Ref Box::TypeObject = NULL;\n"
    "\n"
    "CystckType_Spec Box::TypeObject_Spec = {\n"
    "    \"m.Box\", sizeof( Box ), 0, Py_TPFLAGS_DEFAULT, Box_Type_slots\n"
    "};\n"
    "\n"
    "bool Box::Ready(Cystck_State *S)\n"
    "{\n"
    "    TypeObject = Cystck_ref(S, CystckType_FromSpec(S, &TypeObject_Spec, Cystck_NULL));\n"
    "    return TypeObject != 0;\n"
    "}\n"
    "\n"
    "CYSTCK_DEF_METH(make_box_def, \"make_box\", make_box, CYSTCK_NOARGS, \"\")\n"
    "static CystckDef *module_methods[] = {\n"
    "    &make_box_def,\n"
    "    NULL\n"
    "};\n")


def library_identifiers(lib):
    """The names a library's pack knows and the core must not: the
    library's own name and its cast macros."""
    return {lib.name, *lib.casts}


def core_mentions(migrate_dir, lib):
    """``file:line`` of every mention of one of the library's identifiers
    in a module of the translator other than the library's pack."""
    pattern = regex.compile(r"\b(?:" + "|".join(map(regex.escape, sorted(library_identifiers(lib)))) + r")\b")
    pack = migrate_dir / "rules" / f"{lib.name}.py"
    found = []
    for path in sorted(migrate_dir.rglob("*.py")):
        if path == pack:
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if pattern.search(line):
                found.append(f"{path.relative_to(migrate_dir)}:{n}: {line.strip()}")
    return found


def test_every_library_has_a_pack_of_its_name():
    assert libraries.registered()
    for lib in libraries.registered():
        assert (MIGRATE / "rules" / f"{lib.name}.py").is_file(), lib.name


def test_core_modules_name_no_identifier_of_a_library():
    for lib in libraries.registered():
        assert core_mentions(MIGRATE, lib) == [], lib.name


def test_pack_registration_gives_the_kiwi_translation():
    assert translate.translate_source(CPPY_SOURCE, "box.cpp") == CPPY_TRANSLATION


def test_without_its_cast_macros_registered_the_casts_stay():
    """The registration is what the core rules go by: with cppy's cast
    macros unknown, every cast-macro site translates differently (the
    tables and functors keep the macros)."""
    (cppy,) = [lib for lib in libraries.registered() if lib.name == "cppy"]
    libraries.register(dataclasses.replace(cppy, casts={}))
    try:
        out = translate.translate_source(CPPY_SOURCE, "box.cpp")
    finally:
        libraries.register(cppy)
    assert "if( !pyobject_cast( first ) )" in out
    assert "pytype_cast( Cystck_deref(S, Box::TypeObject) )" in out
    assert "CYSTCK_DEF_SLOT(Box_Type_slots_tp_new" not in out
    assert translate.translate_source(CPPY_SOURCE, "box.cpp") == CPPY_TRANSLATION
