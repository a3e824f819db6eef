"""CystckLong_NumBits against the stock _PyLong_NumBits it replaces:
tests/runtime/ext/st_long_bits.c built as it is (``st``) and as
cystck-migrate translates it (``rt``, with no escape hatch) answers alike
for ints; given another object, where the stock function reads it as an
int anyway, the ported one raises SystemError."""
import pytest

INTS = [0, 1, -1, 2, 3, -3, 255, 256, 2**63 - 1, -2**63, 2**64, 10**100, -10**100, True, False]


@pytest.fixture(scope="module")
def modules(stock_and_ported):
    return stock_and_ported("long_bits")


def test_stock_and_ported_agree(modules):
    st, rt = modules
    for i in INTS:
        assert rt.bits(i) == st.bits(i) == rt.bits_unchecked(i) == abs(i).bit_length(), i
    with pytest.raises(TypeError):
        rt.bits(1.5)


def test_another_object_is_a_system_error_not_a_misread(modules):
    _, rt = modules
    for o in (1.5, "12", None):
        with pytest.raises(SystemError, match="CystckLong_NumBits"):
            rt.bits_unchecked(o)


def test_the_translation_uses_the_api_not_the_escape_hatch(ext_dir):
    from cystck.migrate import translate
    from cystck.migrate.rules.escape import MARK
    ported = translate.translate_source((ext_dir / "st_long_bits.c").read_text())
    assert MARK not in ported
    assert ported.count("CystckLong_NumBits(S, o)") == 2
