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
