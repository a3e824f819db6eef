import pytest

from eval.harness import paper
from eval.harness.config import PAPER_APIS
from eval.harness.ports import PORTS

ROWS = ("UltraJson", "PicoNumPy", "NumPy", "MatPlotLib", "Kiwisolver")


@pytest.mark.parametrize("row", ROWS)
def test_table2_components_add_up_to_the_total(row):
    # The check behind the reading of the four cells with a stray digit.
    table = paper.table2(row)
    assert set(table) == set(PAPER_APIS)
    for api, cells in table.items():
        assert cells["native"] + cells["system"] + cells["python"] == pytest.approx(
            cells["total"], abs=0.011), (row, api)


def test_every_port_has_its_rows_in_the_paper():
    for spec in PORTS:
        assert paper.table2(spec.paper_row) is not None
        assert paper.migration(spec.paper_row) is not None


@pytest.mark.parametrize("row", ROWS)
def test_migration_tables_are_complete(row):
    table = paper.migration(row)
    assert set(table["manual"]) == {"additions", "deletions", "files_modified"}
    assert set(table["automated"]) == {"additions", "deletions", "files_modified",
                                       "transformations"}
    assert 0 < table["coverage"] < 1


def test_figure2_has_no_values_only_statements():
    figure = paper.figure2()
    assert figure["values_available"] is False
    assert figure["statements"]
    assert paper.table2("NoSuchExtension") is None
