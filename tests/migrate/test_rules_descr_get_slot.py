"""A tp_descr_get slot is a Cystck slot: its function gets the slot's
signature and pushes its result; an unsupported slot is still reported."""
from cystck.migrate import translate

SRC = ("#include <Python.h>\n"
       "static PyObject *D_get(PyObject *self, PyObject *inst, PyObject *cls)\n{\n"
       "    if (inst == NULL)\n        return Py_NewRef(self);\n"
       "    return PyTuple_Pack(2, inst, cls);\n}\n"
       "static int D_set(PyObject *self, PyObject *inst, PyObject *value) { return 0; }\n"
       "static PyType_Slot D_slots[] = {\n    {Py_tp_descr_get, D_get},\n"
       "    {Py_tp_descr_set, D_set},\n    {0, NULL}\n};\n"
       "static PyType_Spec D_spec = {\"m.D\", 0, 0, Py_TPFLAGS_DEFAULT, D_slots};\n")


def test_descr_get_slot_is_translated():
    out = translate.translate_files({"m.c": SRC})["m.c"]
    assert "static int D_get(Cystck_State *S, Cystck_Object self, Cystck_Object inst, Cystck_Object cls)" in out.text
    assert "if (Cystck_IsNull(inst))\n        return Cystck_Return(S, self);" in out.text
    assert "CYSTCK_DEF_SLOT(D_slots_tp_descr_get, tp_descr_get, D_get)" in out.text


def test_descr_set_slot_is_still_reported():
    out = translate.translate_files({"m.c": SRC})["m.c"]
    assert any("slot tp_descr_set = D_set has no Cystck counterpart" in n.message for n in out.notes)
    assert not any("tp_descr_get" in n.message for n in out.notes)
