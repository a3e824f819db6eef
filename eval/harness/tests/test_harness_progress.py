import io

from eval.harness.progress import Progress, format_duration


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_format_duration():
    assert format_duration(5.4) == "5s"
    assert format_duration(125) == "2m05s"
    assert format_duration(3 * 3600 + 60) == "3h01m"


def test_time_left_from_finished_runs():
    clock, out = Clock(), io.StringIO()
    progress = Progress({("scalene", "a/x"): 3, ("scalene", "b/y"): 2, ("wall", "a/x"): 3},
                        stream=out, clock=clock)
    assert progress.time_left() is None
    progress.start("scalene", "a/x", "stock", 1, 3)
    clock.now += 2.0
    progress.finish("scalene", "a/x")
    # Every other run is estimated from the only one measured: 7 x 2 s.
    assert progress.time_left() == 14.0
    progress.start("wall", "a/x", "stock", 1, 3)
    clock.now += 0.5
    progress.finish("wall", "a/x")
    # scalene: 4 x 2 s; wall: 2 x 0.5 s.
    assert progress.time_left() == 9.0
    progress.skip("scalene", "b/y", 2)
    assert progress.time_left() == 5.0
    lines = out.getvalue().splitlines()
    assert lines[0] == "[scalene 1/8] a/x stock: run 1 of 3 (estimating time left)"
    assert lines[1] == "[wall 2/8] a/x stock: run 1 of 3 (~14s left)"
