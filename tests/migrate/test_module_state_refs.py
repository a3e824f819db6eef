"""The module-state-refs rule on the shapes a module definition comes in:
no defines array (one is made), a state named by its struct tag, and
(negative) a defines array it cannot read, left alone."""
from cystck.migrate import engine, translate

RULE = {r.name: r for r in engine.all_rules()}["module-state-refs"]
STATE = "#include <Python.h>\nstruct spam_state { Cystck_Ref cache; };\n"


def _alone(text):
    return translate.translate_source(text, "example.c", [RULE()])


def test_a_definition_without_defines_gets_an_array():
    out = _alone(STATE + "static CystckModuleDef spam = {\"spam\", NULL, sizeof(struct spam_state), NULL};\n")
    assert "    struct spam_state *st = (struct spam_state *)state;\n" in out
    assert ("CYSTCK_DEF_MOD_TRAVERSE(spam_state_refs_def, spam_state_refs_traverse)\n"
            "static CystckDef *spam_defines[] = {&spam_state_refs_def, NULL};\n"
            "static CystckModuleDef spam = {\"spam\", NULL, sizeof(struct spam_state), spam_defines};\n") in out
    assert _alone(out) == out


def test_a_defines_array_without_its_null_terminator_is_left_alone():
    src = (STATE + "#define END NULL\nstatic CystckDef *defs[] = {&f_def, END};\n"
           "static CystckModuleDef spam = {\"spam\", NULL, sizeof(struct spam_state), defs};\n")
    assert _alone(src) == src
