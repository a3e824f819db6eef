import copy
import gc
import pickle
import sys


def norm(x):
    """Objects of the extension's types by their repr (the two builds'
    classes differ); containers element by element."""
    if isinstance(x, (list, tuple)):
        return type(x)(norm(i) for i in x)
    if isinstance(x, dict):
        return {k: norm(v) for k, v in x.items()}
    if type(x).__module__ == "tills":
        return ("tills", repr(x))
    return x


def outcome(f, *args, **kwargs):
    try:
        return f(*args, **kwargs)
    except Exception as e:
        return type(e).__name__, str(e)


def error_attrs(f, *args):
    try:
        f(*args)
    except Exception as e:
        return (type(e).__name__, [c.__name__ for c in type(e).__mro__],
                getattr(e, "left", None), getattr(e, "right", None), getattr(e, "missing", None))
    return None


def check_money_values(m):
    a, b = m.Money(1250, "EUR"), m.Money(-75, "EUR")
    return norm([repr(a), str(a), str(b), a.cents, a.currency, repr(m.Money(5)),
            a + b, a - b, repr(a + b), outcome(lambda: a + 1), outcome(lambda: a * 2),
            a == m.Money(1250, "EUR"), a != b, a < b, a >= b, a == 1250,
            a == m.Money(1250, "USD"), hash(a) == hash(m.Money(1250, "EUR")),
            len({a, m.Money(1250, "EUR"), b}), outcome(lambda: a < m.Money(1, "USD")),
            outcome(m.Money, 1, "eur"), outcome(m.Money, 1, "EURO"), outcome(m.Money, 1, 5),
            outcome(m.Money, "x"), outcome(m.Money), outcome(setattr, a, "cents", 3)])


def check_money_errors_carry_attributes(m):
    a, b = m.Money(1, "EUR"), m.Money(1, "GBP")
    w = m.Wallet()
    w += m.Money(100, "USD")

    def take():
        nonlocal w
        w -= m.Money(250, "USD")
    return [error_attrs(lambda: a + b), error_attrs(lambda: a > b), error_attrs(take),
            m.TillsError.__doc__, m.CurrencyMismatch.__doc__, issubclass(m.TillsError, ValueError),
            m.InsufficientFunds.missing, m.TillsError.__module__, m.InsufficientFunds.__name__]


def check_class_and_static_methods(m):
    class Sub(m.Money):
        pass
    return [repr(m.Money.parse("12.50 EUR")), repr(Sub.parse("-3.05 GBP")), type(Sub.parse("1 USD")).__name__,
            outcome(m.Money.parse, "12.50"), outcome(m.Money.parse, "1 EUR x"), outcome(m.Money.parse, 5),
            m.Money.round_cents(2.345), m.Money.round_cents(-1.005), m.Money(1).round_cents(3),
            outcome(m.Money.round_cents), outcome(m.Money.round_cents, "x"),
            type(Sub(3, "EUR") + Sub(4, "EUR")).__name__]


def check_split_fastcall_keywords(m):
    a = m.Money(1001, "JPY")
    return [[repr(x) for x in a.split(3)], [x.cents for x in a.split(3, remainder_first=False)],
            [x.cents for x in a.split(4, remainder_first=0)], outcome(a.split), outcome(a.split, 0),
            outcome(a.split, 2, 3), outcome(a.split, 2, rounding=1), outcome(a.split, "2"),
            outcome(a.split, m.MAX_PARTS + 1), len(a.split(m.MAX_PARTS))]


def check_pickle_and_copy(m):
    # pickle finds the class by its module's name: the build under test is
    # "tills" while the check runs (both builds are loaded side by side)
    saved = sys.modules.get("tills")
    sys.modules["tills"] = m
    try:
        return _pickle_and_copy(m)
    finally:
        if saved is None:
            del sys.modules["tills"]
        else:
            sys.modules["tills"] = saved


def _pickle_and_copy(m):
    a = m.Money(42, "GBP")

    class Sub(m.Money):
        pass
    s = Sub(7, "EUR")
    return [pickle.loads(pickle.dumps(a)) == a, repr(pickle.loads(pickle.dumps(a, 0))), repr(copy.copy(a)),
            repr(copy.deepcopy(a)),
            norm(a.__reduce__()[1]), a.__reduce__()[0] is m.Money, s.__reduce__()[0] is Sub, s.__reduce__()[1]]


def check_installments_iterator(m):
    it = m.Money(1000, "USD").installments(3)
    first = [repr(x) for x in it]
    it2 = m.Money(10, "EUR").installments(4)
    out = [first, iter(it2) is it2, next(it2).cents]
    got = []

    def gen():
        r = yield from m.Money(7, "EUR").installments(2)
        got.append(r)
    out.append([x.cents for x in gen()])
    out.append(got)
    try:
        next(it)
    except StopIteration as e:
        out.append(e.value)
    out += [outcome(m.Money(1).installments, 0), outcome(m.Money(1).installments), list(m.Money(0).installments(2))]
    return norm(out)


def check_wallet_inplace_and_context(m):
    w = m.Wallet(owner="ann")
    w2 = w
    w += m.Money(500, "USD")
    w += m.Money(300, "EUR")
    w -= m.Money(100, "USD")
    out = [w is w2, w.owner, dict(w.balances), outcome(lambda: w + m.Money(1)), outcome(m.Wallet, "x")]
    try:
        w += 5
    except TypeError as e:
        out.append(str(e))
    with w as same:
        same += m.Money(1, "USD")
    out.append((same is w, dict(w.balances)))
    with w:
        w += m.Money(1000, "GBP")
        w -= m.Money(99999, "USD")        # InsufficientFunds: swallowed, rolled back
    out.append(dict(w.balances))
    try:
        with w:
            w += m.Money(5, "USD")
            raise KeyError("boom")
    except KeyError as e:
        out.append(("propagated", str(e), dict(w.balances)))
    out += [outcome(w.__exit__, None, None, None), outcome(w.__enter__) is w, outcome(w.__enter__),
            outcome(w.__exit__, None, None), w.__exit__(None, None, None), outcome(hash, w),
            m.Wallet().owner]
    return out


def check_wallet_describe_and_total(m):
    w = m.Wallet()
    w += m.Money(250, "USD")
    w += m.Money(100, "EUR")
    caps = m.rates()
    mine = m.rates({"USD": 1.0, "EUR": 2.0})
    return norm([w.describe(), w.describe(sep=" | "), w.describe("; ", "W: "), w.describe(prefix="x"),
            outcome(w.describe, 5), outcome(w.describe, "a", b"b"), w.describe(sep="é"),
            repr(w.total("USD", caps)), repr(w.total("EUR", rates=mine)), outcome(w.total, "USD"),
            outcome(w.total, "GBP", mine), outcome(w.total, "USD", 5), outcome(w.total, "usd"),
            outcome(m.rates, {"usd": 1}), outcome(m.rates, {"USD": "x"}), outcome(m.rates, {"USD": -1.0}),
            outcome(m.rates, [1]), type(caps).__name__, repr(m.Wallet().total("JPY"))])


def check_module_total_and_state(m):
    m.clear()
    out = [repr(m.total([m.Money(1), m.Money(2), m.Money(3)])), repr(m.total([])),
           repr(m.total(iter([m.Money(5, "EUR"), None, m.Money(7, "GBP")]))),
           repr(m.total([m.Money(1)], start=m.Money(10))), outcome(m.total, [m.Money(1, "EUR"), m.Money(1)]),
           outcome(m.total, 5), outcome(m.total, [], m.Money(1)), outcome(m.total, [], start=5),
           outcome(m.total, [m.Money(1), 3])]
    out += [m.register("EUR", "€"), m.register("GBP", "£"), outcome(m.register, "EUR", "E"),
            m.register("EUR", "E", replace=True), outcome(m.register, "EUR", 5), outcome(m.register, "EU", "x"),
            str(m.Money(-1234, "EUR")), str(m.Money(5, "GBP")), str(m.Money(5, "JPY"))]
    info = m.info()
    out += [sorted(info), info["registered"], info["default"], info["version"], info["ratio"], info["symbols"],
            info["tag"], info["mark"], info["money"] is m.Money, info["kinds"], info["big"], info["half"]]
    m.clear()
    info = m.info()
    out += [info["registered"], info["default"], info["operations"], info["symbols"], str(m.Money(5, "EUR")),
            m.DEFAULT_CURRENCY, m.CENTS, m.MAX_PARTS]
    return norm(out)


def check_objects_released(m):
    class Owner:
        pass
    o = Owner()
    gc.collect()
    before = len(gc.get_objects())
    for i in range(200):
        w = m.Wallet(owner=o)
        w += m.Money(i, "USD")
        with w:
            pass
        del w
    gc.collect()
    return [sys.getrefcount(o), abs(len(gc.get_objects()) - before) < 50]


CHECKS = [check_money_values, check_money_errors_carry_attributes, check_class_and_static_methods,
          check_split_fastcall_keywords, check_pickle_and_copy, check_installments_iterator,
          check_wallet_inplace_and_context, check_wallet_describe_and_total, check_module_total_and_state,
          check_objects_released]
