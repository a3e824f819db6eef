"""The API table is the single source of the header, the docs and the
translator's mapping: check they agree."""
import pathlib
import re
import subprocess
import sys

import cystck
from cystck import gen_api

INCLUDE = pathlib.Path(cystck.get_include())


REPO = pathlib.Path(__file__).resolve().parents[2]


def test_generated_files_are_up_to_date():
    # Run from the checkout: the generator writes the repository's files.
    out = subprocess.run([sys.executable, "-m", "cystck.gen_api", "--check"], cwd=REPO,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_every_hand_written_function_is_declared():
    headers = "".join(p.read_text() for p in INCLUDE.rglob("*.h"))
    missing = [f.name for f in gen_api.parse() if f.hand and
               not re.search(r"\b%s\s*\(" % re.escape(f.name), headers)]
    assert missing == []


def test_names_are_unique_and_mirror_the_stock_api():
    functions = gen_api.parse()
    names = [f.name for f in functions]
    assert len(names) == len(set(names))
    for f in functions:
        if f.hand:
            continue
        # PyList_Append -> CystckList_Append: the regular mapping that makes
        # migration mechanical.  A private stock function that extensions
        # use (_PyLong_AsByteArray) gets the public name.
        assert f.name.replace("Cystck", "Py", 1) == f.stock.lstrip("_"), f.name


def test_stock_mapping_covers_the_common_api():
    mapping = gen_api.stock_to_cystck()
    for stock in ["PyLong_FromLong", "PyList_Append", "PyDict_SetItem", "PyErr_SetString",
                  "PyArg_ParseTuple", "PyArg_ParseTupleAndKeywords", "PyTuple_SET_ITEM",
                  "PyObject_GetAttr", "PyUnicode_AsUTF8AndSize", "PyModule_Create",
                  "PyModule_AddObject"]:
        assert stock in mapping


# ---- the table and the headers name the same things, with the same types ----

def _headers():
    return "\n".join(p.read_text() for p in sorted(INCLUDE.rglob("*.h")))


def _public(names):
    return {n for n in names if not n.startswith("_")}


def header_functions(text):
    """Public functions the headers declare or define (inline)."""
    decl = re.compile(r"^(?:static (?:inline|CYSTCK_ALWAYS_INLINE)|CYSTCK_INTERNAL)\b[^;{(=]*?\b(Cystck\w+)\s*\(", re.M)
    return _public(decl.findall(text))


def header_macros(text):
    """Public macros (not include guards)."""
    return {n for n in _public(re.findall(r"^#\s*define\s+((?:Cystck|CYSTCK)\w*)", text, re.M))
            if not n.endswith("_H")}


def header_types(text):
    simple = re.findall(r"^typedef\b[^;(]*\b(Cystck\w+)\s*;", text, re.M)
    structs = re.findall(r"}\s*(Cystck\w+)\s*;", text)
    pointers = re.findall(r"^typedef\b[^;]*\(\s*\*\s*(Cystck\w+)\s*\)", text, re.M)
    return _public(simple + structs + pointers)


def test_the_table_lists_every_public_function_of_the_headers_and_no_other():
    table = {f.name for f in gen_api.parse()}
    header = header_functions(_headers())
    assert sorted(header - table) == [], "public in the headers, missing from the table"
    assert sorted(table - header) == [], "in the table, not in the headers"


def test_the_table_lists_every_public_macro_and_type_and_no_other():
    defs = gen_api.parse_definitions()
    functions = {f.name for f in gen_api.parse()}
    text = _headers()
    table_macros = {d.name for d in defs if d.kind in ("const", "macro")}
    header = header_macros(text) - functions      # a function may also be a macro
    assert sorted(header - table_macros) == [] and sorted(table_macros - header) == []
    table_types = {d.name for d in defs if d.kind == "type"}
    assert sorted(header_types(text) ^ table_types) == []


def test_the_table_lists_every_convention_and_slot():
    defs = gen_api.parse_definitions()
    text = _headers()
    assert {d.name for d in defs if d.kind == "conv"} == set(
        re.findall(r"^#define _CYSTCK_FLAGS_(CYSTCK_\w+)", text, re.M))
    assert {d.name for d in defs if d.kind == "slot"} == set(
        re.findall(r"^#define _CYSTCK_SLOTKIND_(\w+)", text, re.M))


def signature_check_source(functions, definitions):
    """C code that redeclares every function with its table prototype and
    every implementation with its documented signature: a mismatch is a
    "conflicting types" error."""
    out = ['#include "Cystck.h"']
    for f in functions:
        name = f.name
        proto = f.prototype().replace(f" {name}(", f" ({name})(", 1)
        out.append(f"{proto};")
    for i, d in enumerate(definitions):
        impl = f"impl_{i}"
        sig = re.sub(r"\bf\(", f"{impl}(", d.signature, count=1)
        if d.kind == "slot":
            out.append(f"CYSTCK_DEF_SLOT(def_{i}, {d.name}, {impl})")
        elif d.kind == "conv":
            out.append(f'CYSTCK_DEF_METH(def_{i}, "m", {impl}, {d.name}, NULL)')
        elif d.name == "CYSTCK_DEF_GET":
            out.append(f'CYSTCK_DEF_GET(def_{i}, "p", {impl}, NULL, NULL)')
        elif d.name == "CYSTCK_DEF_GETSET":
            out.append(f'CYSTCK_DEF_GETSET(def_{i}, "p", getter_{i}, {impl}, NULL, NULL)')
        elif d.name in ("CYSTCK_DEF_DESTROY", "CYSTCK_DEF_CLEAR"):
            out.append(f"{d.name}(def_{i}, {impl})")
        elif d.name == "CYSTCK_DEF_DEALLOC":
            out.append(f"CYSTCK_DEF_DEALLOC_API(def_{i}, {impl})")
        elif d.kind == "type":
            out.append(f"typedef {d.name} type_{i};")
            continue
        elif d.kind in ("const", "macro"):
            out += [f"#ifndef {d.name}", f"#error {d.name} is not defined", "#endif"]
            if d.section in ("Constants", "Type handles", "Exceptions"):
                out.append(f"static Cystck_Object const_{i}(void) {{ return {d.name}; }}")
            continue
        else:
            raise AssertionError(f"no check for {d.kind} {d.name}")
        out.append(f"static {sig};")
    return "\n".join(out) + "\n"


def compile_c(tmp_path, source):
    import shutil
    import sysconfig
    import pytest
    if shutil.which("gcc") is None:
        pytest.skip("gcc not installed")
    src = tmp_path / "signatures.c"
    src.write_text(source)
    return subprocess.run(["gcc", "-fsyntax-only", "-I", str(INCLUDE),
                           "-I", sysconfig.get_paths()["include"], str(src)],
                          capture_output=True, text=True)


def test_every_signature_in_the_table_is_the_headers(tmp_path):
    source = signature_check_source(gen_api.parse(), gen_api.parse_definitions())
    out = compile_c(tmp_path, source)
    assert out.returncode == 0, out.stderr[-3000:]


def test_the_signature_check_catches_a_wrong_signature(tmp_path):
    functions = gen_api.parse()
    wrong = [f for f in functions if f.name == "CystckList_Append"]
    wrong[0].params[1].ctype = "long"
    slot = [d for d in gen_api.parse_definitions() if d.name == "tp_repr"]
    slot[0].signature = "int f(Cystck_State *S, Cystck_Object self, int extra)"
    for checked in ([wrong, []], [[], slot]):
        out = compile_c(tmp_path, signature_check_source(*checked))
        assert out.returncode != 0 and "conflicting types" in out.stderr
