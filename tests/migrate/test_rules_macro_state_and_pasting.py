"""Macros whose parameters or token pasting hide what their translated
body means (a parameter named like the state S, a global store through
##), translated as whole files, with the constructs to leave alone."""
from cystck.migrate import translate

SRC = ("#include <Python.h>\n"
       "static PyObject *str_a = NULL;\nstatic PyObject *str_b = NULL;\nstatic int count_a;\n"
       "static int init(void)\n{\n"
       "#define DEFINE(S) if (!(str_##S = PyUnicode_FromString(#S))) return -1\n"
       "    DEFINE(a);\n    DEFINE(b);\n"
       "#define ZERO(S) count_##S = 0\n    ZERO(a);\n    return 0;\n}\n")


def test_macro_parameter_named_like_the_state_is_renamed():
    out = translate.translate_source(SRC, "m.c")
    assert "#define DEFINE(S_) if (!(str_##S_ = " in out
    assert "CystckUnicode_FromString(S, #S_)" in out


def test_macro_parameter_named_like_the_state_stays_without_api_use():
    out = translate.translate_source(SRC, "m.c")
    assert "#define ZERO(S) count_##S = 0\n" in out


def test_store_into_a_pasted_global_takes_a_reference():
    out = translate.translate_source(SRC, "m.c")
    assert "str_##S_ = Cystck_ref(S, CystckUnicode_FromString(S, #S_))" in out


def test_store_into_a_pasted_name_that_is_not_always_a_global_stays():
    src = SRC.replace("    DEFINE(b);\n", "    DEFINE(b);\n    DEFINE(c);\n")
    out = translate.translate_source(src, "m.c")
    assert "str_##S_ = CystckUnicode_FromString(S, #S_)" in out
