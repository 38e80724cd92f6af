"""The garbage collector during optimize(): its youngest generation is collected less
often while a run lasts, and the program's own setting comes back afterwards."""

from __future__ import annotations

import gc
import threading

import pytest
from sparkfold import optimize
from sparkfold.optimizer import api

SCHEMA = {"t": {"a": "int", "b": "int not null"}}


@pytest.fixture
def thresholds():
    saved = gc.get_threshold()
    yield
    gc.set_threshold(*saved)


def _run_doing(monkeypatch, action) -> None:
    """optimize() once, with `action()` done inside the run."""
    original = api._optimize

    def doing(*args, **kwargs):
        action()
        return original(*args, **kwargs)

    monkeypatch.setattr(api, "_optimize", doing)
    optimize("SELECT count(b) FROM t WHERE a = NULL", SCHEMA)
    monkeypatch.setattr(api, "_optimize", original)


def _threshold_during_a_run(monkeypatch) -> tuple[int, ...]:
    seen = []
    _run_doing(monkeypatch, lambda: seen.append(gc.get_threshold()))
    return seen[0]


def test_the_young_generation_is_collected_less_often_during_a_run(thresholds, monkeypatch):
    gc.set_threshold(700, 10, 10)
    assert _threshold_during_a_run(monkeypatch) == (api._fewer_young_collections.YOUNG, 10, 10)
    assert gc.get_threshold() == (700, 10, 10)


def test_a_higher_threshold_or_a_disabled_collector_is_left_alone(thresholds, monkeypatch):
    gc.set_threshold(500_000, 5, 5)
    assert _threshold_during_a_run(monkeypatch) == (500_000, 5, 5)
    gc.set_threshold(0)
    assert _threshold_during_a_run(monkeypatch)[0] == 0
    assert gc.get_threshold()[0] == 0


def test_overlapping_runs_put_back_the_first_threshold_when_the_last_ends(thresholds):
    gc.set_threshold(700, 10, 10)
    barrier = threading.Barrier(4)
    errors = []

    def work():
        try:
            barrier.wait()
            for i in range(20):
                optimize(f"SELECT count(b) FROM t WHERE a = {i} OR a = NULL", SCHEMA)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert gc.get_threshold() == (700, 10, 10)
    assert api._fewer_young_collections._active == 0


def test_a_threshold_the_program_sets_during_a_run_is_kept(thresholds, monkeypatch):
    gc.set_threshold(700, 10, 10)
    _run_doing(monkeypatch, lambda: gc.set_threshold(1234, 10, 10))
    assert gc.get_threshold() == (1234, 10, 10)
