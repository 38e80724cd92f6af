"""The process-wide settings a run changes (plans/ir/dialect.py `_run_settings`): the
recursion limit raised and the heap frozen while any run is on, both put back by the last
run to end, and no garbage lost to the freeze."""

from __future__ import annotations

import gc
import sys
import threading
import weakref

from sparkfold.optimizer import optimize
from sparkfold.plans.ir.dialect import deep_stack


class _Cycle:
    def __init__(self):
        self.me = self


def _settings():
    return sys.getrecursionlimit(), gc.get_freeze_count()


def test_a_run_puts_the_settings_back():
    before = _settings()
    assert before[1] == 0
    inside = deep_stack(_settings)
    assert inside[0] > before[0] and inside[1] > 0  # raised, frozen
    optimize("SELECT a FROM t WHERE a = NULL", {"t": {"a": "int"}})
    assert _settings() == before


def test_garbage_is_collected_during_and_after_a_run():
    old = _Cycle()  # there before the run: frozen with the heap
    old_ref = weakref.ref(old)

    def run():
        nonlocal old
        new = _Cycle()  # made during the run: collected as usual
        new_ref = weakref.ref(new)
        del new
        old = None  # garbage now, but frozen until the run ends
        gc.collect()
        return new_ref() is None, old_ref() is None

    new_collected, old_collected_inside = deep_stack(run)
    assert new_collected and not old_collected_inside
    gc.collect()
    assert old_ref() is None


def test_a_freeze_of_the_program_is_left_alone():
    gc.freeze()  # a pre-fork server's
    try:
        frozen = gc.get_freeze_count()
        assert deep_stack(gc.get_freeze_count) == frozen
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


def test_overlapping_runs_keep_the_settings_until_the_last_ends():
    before = _settings()
    both_in, first_ended = threading.Barrier(2), threading.Event()

    def first():
        deep_stack(both_in.wait)
        first_ended.set()

    def second():
        both_in.wait()
        assert first_ended.wait(60)
        return _settings()  # the first run ended: still raised and frozen for this one

    t = threading.Thread(target=first)
    t.start()
    during = deep_stack(second)
    t.join()
    assert during[0] > before[0] and during[1] > 0
    assert _settings() == before
