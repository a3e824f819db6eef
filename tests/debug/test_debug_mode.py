"""Debug mode (CYSTCK_DEBUG=1) on a corpus of deliberately buggy extensions.

Each test runs one misuse in a subprocess and checks the exception: its
type, the API function it names, what went wrong, and the file:line of the
offending call (found by its ``/* @marker */`` comment in corpus/*.c).
"""
import re

import pytest

from debug_harness import DEBUG_TAG, HAVE_ADDR2LINE, build_one, location, run

# Fresh int objects, not cached small ints or code constants; MEDIUM
# squared still fits a long long.
BIG = 'int("1" * 21)'
MEDIUM = 'int("1" * 9)'


def assert_reported(outcome, message, module=None, marker=None, function=None):
    """outcome is a SystemError whose message starts with ``message`` (a
    regex), names the marked line of module (when addr2line is available)
    and carries the debug-mode tag."""
    assert outcome.get("error") == "SystemError", outcome
    text = outcome["message"]
    assert re.match(message, text), text
    if marker is not None and HAVE_ADDR2LINE:
        assert re.search(r", at " + location(module, marker, function), text), text
    assert text.endswith(DEBUG_TAG), text


def chain(outcome):
    """The messages of the exception and of its cause."""
    return [m for m in (outcome.get("message"), outcome.get("cause")) if m]


USED_AFTER_RELEASE = (r"handle used after it was released \(by Cystck_Drop, a closed scope "
                      r"gate, or a function that consumes it\)")
NOT_OWNED = r"the handle is not owned by this call \(an argument, a constant or a reference\)"


# ---- handles used after their call, scope or release ----

KEEP_FIRST = f"m.keep_first([{BIG}])\noutcome(m.negate_kept)\n"


# keep_after_pushes: the frame is checked (its stack outgrew the inline one)
# before its first handle, which must still leave the inline slots for the
# debug record's (_CYSTCK_DEBUG_FIRST in Cystck.h).  keep_new: the first
# handle is Cystck_New's of a plain type, which a release-mode runtime makes
# without debug mode's test (a debug-mode runtime does not give its types
# the inline allocator: mark_plain, cystck/src/types.c).
@pytest.mark.parametrize("maker", ["keep_first", "keep_after_pushes", "keep_new"])
def test_handle_kept_past_its_call(ext, maker):
    r = run(ext["dbg_keep_handle"], KEEP_FIRST.replace("keep_first", maker), debug=True)
    assert_reported(r.outcome,
                    r"CystckNumber_Negative: handle used after the call that created it "
                    rf"returned \(a handle of {maker} kept past its frame\)",
                    "dbg_keep_handle", "use", "negate_kept")


KEEP_LAST = f"m.keep_last([{BIG} + i for i in range(100)])\noutcome(m.negate_kept)\n"


def test_handle_kept_past_a_call_with_many_handles(ext):
    # 100 handles: past the debug frame's inline slots, in a heap chunk.
    r = run(ext["dbg_keep_handle"], KEEP_LAST, debug=True)
    assert_reported(r.outcome,
                    r"CystckNumber_Negative: handle used after the call that created it returned",
                    "dbg_keep_handle", "use", "negate_kept")


def test_handle_kept_past_a_call_with_many_handles_names_that_call(ext):
    r = run(ext["dbg_keep_handle"], KEEP_LAST, debug=True)
    assert "(a handle of keep_last kept past its frame)" in r.outcome.get("message", ""), r.outcome


def test_handle_used_after_drop(ext):
    r = run(ext["dbg_use_after_drop"], f"outcome(m.square, {MEDIUM})\n", debug=True)
    assert_reported(r.outcome, "CystckLong_AsLongLong: " + USED_AFTER_RELEASE,
                    "dbg_use_after_drop", "use", "square")


NEGATED = f"outcome(m.negated, {BIG})\n"


def test_handle_used_after_drop_in_a_function_not_inlined(ext):
    r = run(ext["dbg_not_inlined"], NEGATED, debug=True)
    assert_reported(r.outcome, "Cystck_Return: " + USED_AFTER_RELEASE)


def test_handle_used_after_drop_in_a_function_not_inlined_is_located(ext):
    r = run(ext["dbg_not_inlined"], NEGATED, debug=True)
    assert_reported(r.outcome, "Cystck_Return: " + USED_AFTER_RELEASE,
                    "dbg_not_inlined", "use", "negated")


CACHE_SQUARE = f"outcome(m.cache_square, {MEDIUM})\n"


def test_handle_used_after_drop_by_a_runtime_function(ext):
    r = run(ext["dbg_use_after_drop"], CACHE_SQUARE, debug=True)
    assert_reported(r.outcome, "Cystck_ref: ")


def test_handle_used_after_drop_by_a_runtime_function_is_located(ext):
    r = run(ext["dbg_use_after_drop"], CACHE_SQUARE, debug=True)
    assert_reported(r.outcome, "Cystck_ref: " + USED_AFTER_RELEASE,
                    "dbg_use_after_drop", "ref", "cache_square")


def test_handle_used_after_its_scope_closed(ext):
    r = run(ext["dbg_use_after_scope"], "outcome(m.last_str, [1, 2, 3])\n", debug=True)
    assert_reported(r.outcome, "Cystck_Return: " + USED_AFTER_RELEASE,
                    "dbg_use_after_scope", "use", "last_str")


def test_handle_used_after_it_was_consumed(ext):
    r = run(ext["dbg_use_consumed"], f"outcome(m.boxed_repr, {BIG})\n", debug=True)
    assert_reported(r.outcome, "CystckObject_Repr: " + USED_AFTER_RELEASE,
                    "dbg_use_consumed", "use", "boxed_repr")


# ---- releasing what the call does not own ----

def test_drop_of_an_argument(ext):
    scenario = "outcome(m.length, [1, 2, 3])\n"
    r = run(ext["dbg_drop_argument"], scenario, debug=True)
    assert_reported(r.outcome, "Cystck_Drop: " + NOT_OWNED, "dbg_drop_argument", "drop", "length")
    # Release mode: the drop is a no-op and the function works.
    assert run(ext["dbg_drop_argument"], scenario, debug=False).outcome == {"value": "3"}


BAG_LEN = "outcome(len, m.Bag(1, 2))\n"


def test_drop_of_an_argument_in_a_slot_returning_a_c_value(ext):
    r = run(ext["dbg_drop_argument"], BAG_LEN, debug=True)
    assert r.outcome.get("error") == "SystemError", r.outcome
    assert any(msg.startswith("Cystck_Drop: ") for msg in chain(r.outcome)), r.outcome


def test_drop_of_an_argument_in_a_slot_returning_a_c_value_is_the_error(ext):
    r = run(ext["dbg_drop_argument"], BAG_LEN, debug=True)
    assert_reported(r.outcome, "Cystck_Drop: " + NOT_OWNED, "dbg_drop_argument", "slot_drop",
                    "Bag_len")


def test_drop_of_a_constant(ext):
    scenario = "outcome(m.or_none, 0)\n"
    r = run(ext["dbg_drop_constant"], scenario, debug=True)
    assert_reported(r.outcome, "Cystck_Drop: " + NOT_OWNED, "dbg_drop_constant", "drop", "or_none")
    assert run(ext["dbg_drop_constant"], scenario, debug=False).outcome == {"value": "None"}


def test_drop_twice(ext):
    r = run(ext["dbg_drop_twice"], 'outcome(m.count_words, "a b c")\n', debug=True)
    assert_reported(r.outcome, "Cystck_Drop: " + USED_AFTER_RELEASE,
                    "dbg_drop_twice", "drop", "count_words")


# ---- the return stack and scope gates ----

@pytest.mark.parametrize("debug", [True, False], ids=["debug", "release"])
@pytest.mark.parametrize("function, pushed", [("forgot_push", "0 values"),
                                              ("pushed_two", "2 values")])
def test_returned_count_does_not_match_the_pushes(ext, debug, function, pushed):
    # Checked in every mode: the trampoline compares the count anyway.
    r = run(ext["dbg_wrong_count"], f"outcome(m.{function}, 7)\n", debug=debug)
    assert r.outcome == {
        "error": "SystemError", "cause": None,
        "message": f"{function} returned 1 but pushed {pushed} on the return stack"}


SCOPE_LEFT_OPEN = ("find returned with 1 scope gate(s) still open "
                   "(Cystck_OpenScope without Cystck_CloseScope) " + DEBUG_TAG)
FIND = "outcome(m.find, [1, 2, 3], 2)\n"


def test_scope_gate_left_open(ext):
    r = run(ext["dbg_open_scope"], FIND, debug=True)
    assert r.outcome.get("error") == "SystemError", r.outcome
    assert SCOPE_LEFT_OPEN in chain(r.outcome)
    assert run(ext["dbg_open_scope"], FIND, debug=False).outcome == {"value": "1"}


def test_scope_gate_left_open_is_the_error(ext):
    r = run(ext["dbg_open_scope"], FIND, debug=True)
    assert r.outcome == {"error": "SystemError", "message": SCOPE_LEFT_OPEN, "cause": None}


def test_scope_gate_left_open_in_a_setter(ext):
    scenario = ("acc = m.Acc()\n"
                "def assign():\n"
                "    acc.total = [1, 2, 0, 4]\n"
                "outcome(assign)\n")
    r = run(ext["dbg_open_scope"], scenario, debug=True)
    assert r.outcome == {"error": "SystemError", "cause": None, "message":
                         SCOPE_LEFT_OPEN.replace("find", "Acc_set_total")}, r.describe()


# An error return (-1) with a gate open is the translation of the stock
# early exit `if (x == NULL) return NULL;` inside a loop: not reported.
@pytest.mark.parametrize("debug", [True, False], ids=["debug", "release"])
def test_scope_gate_open_at_an_error_return_lets_the_error_through(ext, debug):
    r = run(ext["dbg_scope_open_at_error"], "outcome(m.int_sum, [1, 2, 'x', 4])\n", debug=debug)
    assert r.outcome == {"error": "TypeError", "cause": None,
                         "message": "'str' object cannot be interpreted as an integer"}, r.outcome


@pytest.mark.parametrize("debug", [True, False], ids=["debug", "release"])
def test_scope_gate_open_at_an_error_return_without_exception(ext, debug):
    r = run(ext["dbg_scope_open_at_error"], "outcome(m.positive_sum, [1, -2])\n", debug=debug)
    assert r.outcome == {"error": "SystemError", "cause": None, "message":
                         "<built-in function positive_sum> returned NULL without setting an exception"}


@pytest.mark.parametrize("debug", [True, False], ids=["debug", "release"])
def test_scope_gate_open_at_the_end_of_an_iteration(ext, debug):
    r = run(ext["dbg_scope_open_at_error"], "outcome(list, m.Upto(3))\n", debug=debug)
    assert r.outcome == {"value": "[0, 1, 2]"}, r.outcome


def test_scope_gate_closed_twice(ext):
    r = run(ext["dbg_close_scope_twice"], "outcome(m.strs, [1, 2])\n", debug=True)
    assert_reported(r.outcome, "Cystck_CloseScope: ", "dbg_close_scope_twice", "close", "strs")


def test_scope_gates_closed_out_of_order(ext):
    r = run(ext["dbg_crossed_scopes"], "outcome(m.pairs, [1, 2])\n", debug=True)
    assert_reported(r.outcome, "Cystck_CloseScope: ", "dbg_crossed_scopes", "close", "pairs")


# ---- references ----

def test_reference_released_twice(ext):
    scenario = "m.set_callback(print)\nm.clear_callback()\noutcome(m.clear_callback)\n"
    r = run(ext["dbg_double_unref"], scenario, debug=True)
    assert_reported(r.outcome, "Cystck_unref: reference released twice",
                    "dbg_double_unref", "unref", "clear_callback")
    if HAVE_ADDR2LINE:
        created = location("dbg_double_unref", "created", "set_callback")
        assert re.search(r"\(created at " + created + r"\)", r.outcome["message"]), r.outcome


def leak_report(module, marker, function):
    return re.compile(r"^ResourceWarning: Cystck reference never released \(created by Cystck_ref "
                      r"in " + (location(module, marker, function) if HAVE_ADDR2LINE else r".*")
                      + r"\) " + re.escape(DEBUG_TAG) + "$", re.M)


def test_references_never_released_are_reported_at_exit(ext):
    # remember keeps the last 4 values: 6 calls overwrite 2 references.
    scenario = "for i in range(6):\n    m.remember(object())\nm.forget()\n"
    report = leak_report("dbg_leaked_ref", "created", "remember")
    r = run(ext["dbg_leaked_ref"], scenario, debug=True)
    assert r.returncode == 0, r.describe()
    assert len(report.findall(r.stderr)) == 2, r.stderr
    released = run(ext["dbg_leaked_ref"], scenario, debug=False)
    assert released.returncode == 0 and "never released" not in released.stderr


def test_references_released_are_not_reported(ext):
    r = run(ext["dbg_leaked_ref"], "for i in range(4):\n    m.remember(object())\nm.forget()\n",
            debug=True)
    assert r.returncode == 0 and r.stderr == "", r.describe()


def test_module_lifetime_reference_is_not_reported(ext):
    r = run(ext["dbg_global_ref"], "outcome(m.new_counter)\n", debug=True)
    assert r.outcome["value"].startswith("<dbg_global_ref.Counter object"), r.outcome
    assert r.stderr == "", r.stderr


CACHE_THEN_POP = "m.set_cached([1])\noutcome(m.pop_cached)\n"
CLEARED_CACHE = "m.set_cached([1])\nm.clear_cached()\noutcome(m.cached_repr)\n"


def test_handle_of_a_reference_used_after_unref(ext):
    r = run(ext["dbg_released_ref"], CACHE_THEN_POP, debug=True)
    assert_reported(r.outcome, "Cystck_Return: ", "dbg_released_ref", "use_handle", "pop_cached")


def test_handle_of_a_reference_used_after_unref_says_so(ext):
    r = run(ext["dbg_released_ref"], CACHE_THEN_POP, debug=True)
    assert_reported(r.outcome, r"Cystck_Return: .*released by Cystck_unref",
                    "dbg_released_ref", "use_handle", "pop_cached")


def test_deref_of_a_released_reference(ext):
    r = run(ext["dbg_released_ref"], CLEARED_CACHE, debug=True)
    assert_reported(r.outcome, "Cystck_deref: ", "dbg_released_ref", "deref", "cached_repr")


def test_deref_of_a_released_reference_says_so(ext):
    r = run(ext["dbg_released_ref"], CLEARED_CACHE, debug=True)
    assert_reported(r.outcome, r"Cystck_deref: .*released by Cystck_unref",
                    "dbg_released_ref", "deref", "cached_repr")


# ---- fields and native memory ----

def test_released_handle_stored_in_a_field(ext):
    scenario = "t = m.Tag()\noutcome(t.set_label, 'x')\n"
    r = run(ext["dbg_stale_field"], scenario, debug=True)
    assert_reported(r.outcome, "CystckField_Store: " + USED_AFTER_RELEASE,
                    "dbg_stale_field", "store", "Tag_set_label")


DEAD_BLOCK = "block used after its last policy was released"


@pytest.mark.parametrize("function, api", [("greeting", "CystckMem_AsMemoryView"),
                                           ("free_twice", "CystckMem_Free")])
def test_native_block_used_after_its_last_policy(ext, function, api):
    r = run(ext["dbg_block_after_free"], f"outcome(m.{function})\n", debug=True)
    assert r.outcome.get("error") == "SystemError", r.outcome
    assert r.outcome["message"].startswith(f"{api}: {DEAD_BLOCK}"), r.outcome


@pytest.mark.parametrize("function, api, marker", [("greeting", "CystckMem_AsMemoryView", "use"),
                                                   ("free_twice", "CystckMem_Free", "free")])
def test_native_block_used_after_its_last_policy_is_located(ext, function, api, marker):
    r = run(ext["dbg_block_after_free"], f"outcome(m.{function})\n", debug=True)
    assert_reported(r.outcome, f"{api}: {DEAD_BLOCK}", "dbg_block_after_free", marker, function)


# ---- module init and the switch itself ----

IMPORT = "outcome(load, sys.argv[1], sys.argv[2])\n"


def test_misuse_in_module_init(ext):
    r = run(ext["dbg_module_init"], IMPORT, debug=True, load=False)
    assert_reported(r.outcome, "Cystck_Drop: " + NOT_OWNED)
    assert run(ext["dbg_module_init"], "outcome(m.answer)\n", debug=False).outcome == {"value": "42"}


def test_misuse_in_module_init_is_located(ext):
    r = run(ext["dbg_module_init"], IMPORT, debug=True, load=False)
    assert_reported(r.outcome, "Cystck_Drop: " + NOT_OWNED, "dbg_module_init", "drop")


@pytest.mark.parametrize("value, checked", [("1", True), ("yes", True), ("0", False),
                                            ("", False), (None, False)])
def test_the_variable_switches_an_extension_without_rebuilding_it(ext, value, checked):
    r = run(ext["dbg_drop_argument"], "outcome(m.length, [1, 2, 3])\n", debug=False,
            env={"CYSTCK_DEBUG": value})
    if checked:
        assert r.outcome.get("message", "").startswith("Cystck_Drop: "), r.outcome
    else:
        assert r.outcome == {"value": "3"}


# ---- every kind of entry point runs checked (its trampoline's debug twin) ----

# Each call reaches one kind of trampoline; in release mode each returns this.
EVERY_TRAMPOLINE = {
    "m.noargs()": "True", "m.one(5)": "True", "m.varargs(5)": "True", "m.keywords(5)": "True",
    "m.Box.__new__(m.Box, 5)": "Box", "m.Box.__init__(b)": "None", "b()": "True",
    "repr(b)": "'Box'", "next(b)": "True", "b + 5": "True", "pow(b, 5, 7)": "True",
    "b == 5": "True", "hash(b)": "7", "len(b)": "3", "bool(b)": "True", "b[0]": "True",
    "b.__setitem__(0, 1)": "None", "b.__setitem__('k', 1)": "None", "5 in b": "True",
    "b.value": "True", "setattr(b, 'value', 5)": "None",
}
EVERY_TRAMPOLINE_SCENARIO = "b = m.Box.__new__(m.Box)\n" + "".join(
    f"outcome(lambda: {call})\n" for call in EVERY_TRAMPOLINE)


@pytest.fixture(scope="module")
def every_trampoline_with_twins(tmp_path_factory):
    # CYSTCK_DEBUG_TWINS: each entry point gets a release trampoline with
    # the constant inline room and a debug twin (defs.h, _CYSTCK_TWINS).
    return build_one("dbg_every_trampoline", tmp_path_factory.mktemp("twins"),
                     [("CYSTCK_DEBUG_TWINS", None)])


@pytest.mark.parametrize("twins", [False, True], ids=["first-handle test", "twins"])
def test_every_kind_of_trampoline_is_checked(ext, every_trampoline_with_twins, twins):
    # With twins, debug mode replaces each trampoline in the method, getset
    # and slot tables by its debug twin when it makes the module or type:
    # one missed kind would run unchecked, its misuse unreported.  Without,
    # each frame's first handle finds debug mode (_Cystck_Own's object test).
    path = every_trampoline_with_twins if twins else ext["dbg_every_trampoline"]
    r = run(path, EVERY_TRAMPOLINE_SCENARIO, debug=True)
    assert len(r.outcomes) == len(EVERY_TRAMPOLINE), r.describe()
    for call, outcome in zip(EVERY_TRAMPOLINE, r.outcomes):
        assert outcome.get("error") == "SystemError", (call, outcome)
        assert re.match("CystckObject_IsTrue: " + USED_AFTER_RELEASE, outcome["message"]), (call, outcome)
        assert outcome["message"].endswith(DEBUG_TAG), (call, outcome)
    r = run(path, EVERY_TRAMPOLINE_SCENARIO, debug=False)
    assert [o.get("value") for o in r.outcomes] == list(EVERY_TRAMPOLINE.values()), r.describe()


def test_misuse_in_a_helper_inlined_by_the_debug_twin_is_located_in_the_helper(every_trampoline_with_twins):
    # The twin inlines the implementation and the helpers it calls: the
    # location is the innermost line of the extension's code in the chain of
    # inlined calls (the helper's), not the implementation's call of it.
    r = run(every_trampoline_with_twins, "b = m.Box.__new__(m.Box)\noutcome(len, b)\n", debug=True)
    assert_reported(r.outcome, "CystckObject_IsTrue: " + USED_AFTER_RELEASE,
                    "dbg_every_trampoline", "use", "stale_truth")
