"""Progress lines for long runs: what runs now, run k of n, time left."""

from __future__ import annotations

import sys
import time
from collections import defaultdict
from typing import TextIO


def format_duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    if minutes:
        return f"{minutes}m{seconds:02d}s"
    return f"{seconds}s"


class Progress:
    """Counts the runs of every (phase, group) and estimates the time left.

    A run that has not happened yet is expected to last as long as the
    mean of the finished runs of its (phase, group), else of its phase,
    else of its group in any phase, else of any run.
    """

    def __init__(self, planned: dict[tuple[str, str], int], stream: TextIO = sys.stderr,
                 clock=time.monotonic):
        self._remaining = dict(planned)
        self._total = sum(planned.values())
        self._done = 0
        self._durations: dict[tuple[str, str], list[float]] = defaultdict(list)
        self._stream = stream
        self._clock = clock
        self._started: float | None = None

    def _estimate(self, phase: str, group: str) -> float | None:
        for matches in (lambda p, g: (p, g) == (phase, group), lambda p, g: p == phase,
                        lambda p, g: g == group, lambda p, g: True):
            durations = [d for (p, g), ds in self._durations.items() if matches(p, g)
                         for d in ds]
            if durations:
                return sum(durations) / len(durations)
        return None

    def time_left(self) -> float | None:
        total = 0.0
        for (phase, group), count in self._remaining.items():
            if count:
                estimate = self._estimate(phase, group)
                if estimate is None:
                    return None
                total += estimate * count
        return total

    def start(self, phase: str, group: str, variant: str, run: int, runs: int) -> None:
        left = self.time_left()
        left_text = "estimating time left" if left is None else f"~{format_duration(left)} left"
        print(f"[{phase} {self._done + 1}/{self._total}] {group} {variant}: "
              f"run {run} of {runs} ({left_text})", file=self._stream, flush=True)
        self._started = self._clock()

    def finish(self, phase: str, group: str) -> None:
        self._durations[(phase, group)].append(self._clock() - self._started)
        self._remaining[(phase, group)] -= 1
        self._done += 1

    def skip(self, phase: str, group: str, count: int) -> None:
        """`count` planned runs will not happen (their variant failed)."""
        self._remaining[(phase, group)] -= count
        self._total -= count
