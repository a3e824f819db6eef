"""Migration metrics: the coverage definition of DESIGN.md "Ports"."""
import json

from eval.harness import coverage


def _tree(root, text):
    root.mkdir()
    (root / "m.c").write_text(text)
    return root


def test_coverage_counts_residual_lines_as_manual(tmp_path):
    up = _tree(tmp_path / "up", "a\nb\nc\n")
    tr = _tree(tmp_path / "tr", "a\nB\nc\nd\n")        # the tool: -b +B +d
    fin = _tree(tmp_path / "fin", "a\nB\nC\nd\n")      # the patch: -c +C
    m = coverage.metrics(up, tr, fin)
    assert m["tool"] == {"additions": 2, "deletions": 1, "files_modified": 1}
    assert m["final_port"] == {"additions": 3, "deletions": 2, "files_modified": 1}
    assert m["residual_patch"]["changed_lines"] == 2
    assert m["coverage"] == 0.6


def test_empty_patch_is_full_coverage_and_results_are_merged(tmp_path):
    up = _tree(tmp_path / "up", "x\n")
    tr = _tree(tmp_path / "tr", "y\n")
    out = tmp_path / "migration.json"
    out.write_text(json.dumps({"other": {"coverage": 0.5}}))
    coverage.update_results(out, "demo", coverage.metrics(up, tr, tr))
    data = json.loads(out.read_text())
    assert data["demo"]["coverage"] == 1.0 and data["other"] == {"coverage": 0.5}


def test_long_files_with_repeated_lines_are_aligned_exactly(tmp_path):
    # Over 200 lines, difflib's autojunk treats frequent lines ("}") as
    # junk and misaligns; one changed line must count as one change.
    body = "".join(f"int f{i}(void)\n{{\n    return {i};\n}}\n\n" for i in range(100))
    up = _tree(tmp_path / "up", body)
    fin = _tree(tmp_path / "fin", body.replace("return 50;", "return -50;"))
    assert coverage.diff_stats(up, fin) == {"additions": 1, "deletions": 1, "files_modified": 1}
