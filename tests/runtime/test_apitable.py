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
