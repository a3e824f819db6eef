"""The Cystck variant's `Cystck_New` is inlined in every function that
makes an array.  Left to GCC, the port's operators (each inlining the
always-inline `Array_alloc`) shared one out-of-line copy,
`Cystck_New.constprop.0`, which takes the frame's state: every caller's
header then lived in memory (`a + b` 529 instructions instead of 504,
`ports/piconumpy/callgrind_ops.py`; docs/gaps.md, R1).  The runtime now
always inlines it (include/cystck/runtime_api.h); this reads the built
module's symbols."""
import re
import shutil
import subprocess

import pytest

from ports.piconumpy import piconumpy_variants as pv


def test_no_out_of_line_cystck_new():
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("needs nm (binutils)")
    if pv.wheel_path("cystck") is None:
        pytest.skip(pv.missing_reason("cystck"))
    site = pv.ensure_site("cystck")
    modules = sorted(site.glob("piconumpy*.so"))
    assert modules, f"no compiled piconumpy module in {site}"
    symbols = subprocess.run([nm, str(modules[0])], capture_output=True, text=True, check=True).stdout
    copies = [line for line in symbols.splitlines() if re.search(r"\sCystck_New(Zeroed)?(\.\w+)*$", line)]
    assert copies == []
