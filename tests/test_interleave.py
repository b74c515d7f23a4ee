"""crawlsim.check.interleave: seeded one-thread-at-a-time schedules find races every run."""

from __future__ import annotations

import _thread
import collections
import functools
import importlib.util
import queue
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crawlsim.check import interleave as il

ROOT = Path(__file__).resolve().parent.parent
CRAWLERS = ROOT / "tests" / "fixtures" / "interleave" / "crawlers.py"
REFERENCE = ROOT / "examples" / "interview" / "reference_threadpool.py"
SEEDS = range(40)


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


crawlers = _load(CRAWLERS, "interleave_fixture_crawlers")
reference = _load(REFERENCE, "interleave_fixture_reference")


def _complete_web(n: int) -> dict[str, list[str]]:
    pages = [f"http://a.com/p{i}" for i in range(n)]
    return {p: [q for q in pages if q != p] for p in pages}


def _crawl_target(crawl, web: dict[str, list[str]], start: str, workers: int = 3):
    """A target that builds fresh state per schedule and returns (result, fetch counts)."""

    def target():
        calls: collections.Counter[str] = collections.Counter()

        def get_urls(url: str) -> list[str]:
            calls[url] += 1
            il.note(f"get_urls {url}")
            return list(web.get(url, []))

        return crawl(start, get_urls, workers), calls

    return target


def _duplicates(schedule: il.Schedule) -> list[str]:
    if schedule.value is None:
        return []
    return sorted(url for url, n in schedule.value[1].items() if n > 1)


def _line_text(path: Path, marker: str) -> str:
    """The stripped line equal to ``marker``, else the first that starts with it."""
    lines = [line.strip() for line in path.read_text().splitlines()]
    return marker if marker in lines else next(line for line in lines if line.startswith(marker))


def test_unlocked_check_then_add_is_caught_with_the_two_lines_named():
    web = _complete_web(6)
    target = _crawl_target(crawlers.crawl_unlocked, web, "http://a.com/p0")
    result = il.explore(target, seeds=SEEDS, files=[str(CRAWLERS)])
    caught = [s for s in result.schedules if _duplicates(s)]
    assert caught, "no schedule fetched a page twice"
    check = _line_text(CRAWLERS, "if link not in seen:  # check")
    add = _line_text(CRAWLERS, "seen.add(link)  # add")
    for schedule in caught:
        url = _duplicates(schedule)[0]
        race = schedule.race_on(url)
        assert race is not None, f"seed {schedule.seed}: duplicate {url} without a named interleaving"
        assert (race.after.text, race.before.text, race.other_at.text) == (check, add, check)
        assert race.paused_thread != race.other_thread
        assert race.seed == schedule.seed
        assert f"seed {schedule.seed}" in str(race) and url in str(race)
        # the note log shows the page fetched twice
        assert [n.text for n in schedule.notes].count(f"get_urls {url}") == 2
    # the same seeds catch it again: not luck
    again = il.explore(target, seeds=SEEDS, files=[str(CRAWLERS)])
    assert [s.seed for s in again.schedules if _duplicates(s)] == [s.seed for s in caught]


def test_replaying_a_failing_seed_reproduces_it_exactly():
    web = _complete_web(5)
    target = _crawl_target(crawlers.crawl_unlocked, web, "http://a.com/p0")
    result = il.explore(target, seeds=SEEDS, files=[str(CRAWLERS)])
    failing = next(s for s in result.schedules if _duplicates(s))
    replayed = il.replay(target, failing.seed, files=[str(CRAWLERS)], horizon=result.horizon)
    assert _duplicates(replayed) == _duplicates(failing)
    assert replayed.switches == failing.switches
    assert replayed.steps == failing.steps
    # without the horizon, replay calibrates again and still gets the same schedule
    assert il.replay(target, failing.seed, files=[str(CRAWLERS)]).switches == failing.switches


@pytest.mark.parametrize(
    ("crawl", "path"),
    [
        (crawlers.crawl_locked, CRAWLERS),
        (crawlers.crawl_condition, CRAWLERS),
        (reference.crawl, REFERENCE),
    ],
    ids=["lock-around-check-then-add", "condition-and-in-flight-count", "threadpool-coordinator"],
)
def test_correct_crawlers_are_never_flagged(crawl, path):
    web = _complete_web(6)
    target = _crawl_target(crawl, web, "http://a.com/p0")
    result = il.explore(target, seeds=SEEDS, files=[str(path)])
    assert len(result.schedules) == len(SEEDS)
    assert any(s.preemptions for s in result.schedules), "no schedule preempted: nothing was explored"
    for schedule in [result.calibration, *result.schedules]:
        assert schedule.outcome == "returned", (schedule.seed, schedule.problems, schedule.error)
        assert schedule.value[0] == sorted(web)
        assert _duplicates(schedule) == []
        assert not schedule.nondeterministic


# Each example below explores whole thread schedules (seconds of CPU):
# README's command tries a few, the exhaustive step (-m exhaustive) the
# full count, through the same test body.
LOCKED_WEBS = {
    "edges": st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=30),
    "seed": st.integers(0, 10_000),
    "workers": st.integers(1, 4),
}


@settings(max_examples=5)
@given(**LOCKED_WEBS)
def test_locked_crawler_fetches_each_reachable_page_once_under_any_seed(edges, seed, workers):
    web: dict[str, list[str]] = {f"/{i}": [] for i in range(8)}
    for a, b in edges:
        web[f"/{a}"].append(f"/{b}")
    reachable, stack = {"/0"}, ["/0"]
    while stack:
        for link in web[stack.pop()]:
            if link not in reachable:
                reachable.add(link)
                stack.append(link)
    target = _crawl_target(crawlers.crawl_locked, web, "/0", workers)
    schedule = il.explore(target, seeds=[seed], files=[str(CRAWLERS)]).schedules[0]
    assert schedule.outcome == "returned"
    assert schedule.value[0] == sorted(reachable)
    assert dict(schedule.value[1]) == dict.fromkeys(reachable, 1)


@pytest.mark.exhaustive
@settings(max_examples=15)
@given(**LOCKED_WEBS)
def test_locked_crawler_fetches_each_reachable_page_once_under_any_seed_exhaustive(edges, seed, workers):
    test_locked_crawler_fetches_each_reachable_page_once_under_any_seed.hypothesis.inner_test(edges, seed, workers)


SEEDS_AND_SIZES = {"seed": st.integers(0, 10_000), "n": st.integers(2, 6)}


@settings(max_examples=2)
@given(**SEEDS_AND_SIZES)
def test_same_seed_gives_the_same_switch_log(seed, n):
    target = _crawl_target(crawlers.crawl_unlocked, _complete_web(n), "http://a.com/p0")
    first = il.explore(target, seeds=[seed, seed], files=[str(CRAWLERS)])
    a, b = first.schedules
    second = il.replay(target, seed, files=[str(CRAWLERS)], horizon=first.horizon)
    assert a.switches == b.switches == second.switches
    assert a.steps == b.steps == second.steps
    assert [(p.step, p.thread, p.before) for p in a.preemptions] == [(p.step, p.thread, p.before) for p in second.preemptions]
    assert _duplicates(a) == _duplicates(second)


@pytest.mark.exhaustive
@settings(max_examples=10)
@given(**SEEDS_AND_SIZES)
def test_same_seed_gives_the_same_switch_log_exhaustive(seed, n):
    test_same_seed_gives_the_same_switch_log.hypothesis.inner_test(seed, n)


def test_switch_log_names_threads_files_and_lines():
    target = _crawl_target(crawlers.crawl_unlocked, _complete_web(4), "http://a.com/p0")
    schedule = il.explore(target, seeds=[3], files=[str(CRAWLERS)]).schedules[0]
    assert schedule.switches
    names = {s.from_thread for s in schedule.switches} | {s.to_thread for s in schedule.switches}
    assert "main" in names and "thread 1 (worker)" in names
    for switch in schedule.switches:
        if switch.where is not None:
            assert switch.where.file == str(CRAWLERS)
            assert switch.where.text == CRAWLERS.read_text().splitlines()[switch.where.line - 1].strip()


def test_a_lock_order_deadlock_is_stopped_and_named():
    result = il.explore(crawlers.lock_order_deadlock, seeds=SEEDS, files=[str(CRAWLERS)])
    outcomes = collections.Counter(s.outcome for s in [result.calibration, *result.schedules])
    assert set(outcomes) <= {"returned", "deadlock"}
    assert outcomes["deadlock"] > 0 and outcomes["returned"] > 0
    stuck = next(s for s in result.schedules if s.outcome == "deadlock")
    assert stuck.value is None
    assert "deadlock" in stuck.problems[0]
    assert "with a:" in stuck.problems[0] and "with b:" in stuck.problems[0]


def test_joining_a_queue_nobody_serves_is_a_deadlock_not_a_hang():
    schedule = il.explore(crawlers.join_a_queue_nobody_serves, seeds=[0], files=[str(CRAWLERS)]).schedules[0]
    assert schedule.outcome == "deadlock"
    assert "q.join()" in schedule.problems[0]


def test_an_endless_loop_stops_at_the_step_limit():
    result = il.explore(crawlers.spin_forever, seeds=[0], files=[str(CRAWLERS)], max_steps=500)
    for schedule in [result.calibration, *result.schedules]:
        assert schedule.outcome == "step-limit"
        message = schedule.problems[0]
        assert "500 steps" in message and ("n += 1" in message or "while True" in message)


@pytest.mark.parametrize("lock_seen", [False, True], ids=["racy-workers", "locked-workers"])
def test_a_coordinator_that_spins_lets_the_workers_run(lock_seen):
    """``while owed > 0: pass`` never blocks: the spinner yields to the
    workers (no preemption needed, so even the calibration returns) and
    their check-then-add is explored like any other."""
    web = _complete_web(5)
    crawl = functools.partial(crawlers.crawl_spinning_coordinator, lock_seen=lock_seen)
    target = _crawl_target(crawl, web, "http://a.com/p0")
    result = il.explore(target, seeds=SEEDS, files=[str(CRAWLERS)], max_steps=20_000)
    assert result.calibration.preemptions == []
    assert any(switch.reason == "spin" for switch in result.calibration.switches)
    for schedule in [result.calibration, *result.schedules]:
        assert schedule.outcome == "returned", (schedule.seed, schedule.problems)
        assert schedule.value[0] == sorted(web)
    caught = [s for s in result.schedules if _duplicates(s)]
    if lock_seen:
        assert caught == []
    else:
        assert caught, "no schedule fetched a page twice"
        race = caught[0].race_on(_duplicates(caught[0])[0])
        assert race is not None
        assert (race.after.text, race.before.text) == (_line_text(CRAWLERS, "if link in seen:  # spin check"),
                                                       _line_text(CRAWLERS, "seen.add(link)  # spin add"))


def test_a_search_stopped_at_the_step_limit_is_reported_as_the_explorers_limit():
    """A thread that spins with nothing to end it: no schedule gets past it,
    so finding no duplicate proves nothing and the report says so."""
    report = il.find_duplicate_fetches(lambda start_url, get_urls, workers: crawlers.spin_forever(),
                                       web=_complete_web(3), start_url="http://a.com/p0", files=[str(CRAWLERS)],
                                       seeds=[0], max_steps=500)
    assert report.first is None
    assert report.limit == ("2 schedule(s) stopped at the step limit: a thread ran on without blocking "
                            "and the others could not end it")


def test_thread_pool_queue_lock_condition_semaphore_event_work_under_control():
    files = [str(CRAWLERS)]
    squares = il.explore(lambda: crawlers.pool_squares(10), seeds=range(5), files=files)
    assert {s.outcome for s in squares.schedules} == {"returned"}
    assert all(s.value == [i * i for i in range(10)] for s in squares.schedules)
    peaks = il.explore(lambda: crawlers.semaphore_peak(5, 2), seeds=range(10), files=files)
    assert {s.value for s in peaks.schedules} == {2}  # virtual sleeps overlap: the limit is reached, never passed
    events = il.explore(crawlers.event_and_timeouts, seeds=range(5), files=files)
    assert all(s.value == [False, True, "empty"] for s in events.schedules)


def test_a_dead_worker_is_recorded_with_its_exception():
    schedule = il.explore(crawlers.worker_raises, seeds=[0], files=[str(CRAWLERS)]).schedules[0]
    assert schedule.outcome == "returned" and schedule.value == "joined"
    [(name, exc)] = schedule.thread_errors
    assert name == "thread 1 (boom)" and isinstance(exc, ValueError)


def test_daemon_workers_left_blocked_are_stopped_and_listed():
    target = _crawl_target(crawlers.crawl_unlocked, _complete_web(3), "http://a.com/p0")
    schedule = il.explore(target, seeds=[0], files=[str(CRAWLERS)]).schedules[0]
    assert schedule.outcome == "returned"
    assert len(schedule.leftover) == 3 and all("url = q.get()" in line for line in schedule.leftover)
    assert schedule.problems == []


def test_a_lock_made_before_explore_falls_back_and_is_marked_nondeterministic():
    real = _thread.allocate_lock()  # a C lock the controller cannot see

    def target():
        def holder():
            with real:
                time.sleep(1)  # virtual: blocks cooperatively while holding the C lock

        t = threading.Thread(target=holder)
        t.start()
        time.sleep(0.5)
        with real:  # blocks in C while the holder waits for the baton
            pass
        t.join()
        return "done"

    schedule = il.explore(target, seeds=[0], files=[__file__], stall_timeout=0.05).schedules[0]
    assert schedule.outcome == "returned" and schedule.value == "done"
    assert schedule.nondeterministic
    assert any("no progress" in p for p in schedule.problems)
    assert any(s.reason == "stall" for s in schedule.switches)


def test_patches_are_removed_even_when_the_target_raises():
    def target():
        raise RuntimeError("boom")

    result = il.explore(target, seeds=[0], files=[__file__])
    assert result.schedules[0].outcome == "raised"
    assert isinstance(result.schedules[0].error, RuntimeError)
    assert threading.Lock is _thread.allocate_lock
    assert queue.SimpleQueue.__module__ in {"_queue", "queue"} and queue.SimpleQueue is not il._CoopSimpleQueue
    assert time.sleep is il._real_sleep and time.monotonic is il._real_monotonic
    assert threading.Thread.start is il._orig_start


def test_files_must_be_a_collection_not_a_string():
    with pytest.raises(TypeError, match="files"):
        il.explore(lambda: None, seeds=[0], files=str(CRAWLERS))


def test_closure_variables_rebound_by_other_threads_are_not_lost():
    # CPython 3.11 writes a traced frame's locals back after each trace call;
    # a thread that waited inside one must not restore a stale `total`
    result = il.explore(lambda: crawlers.closure_counter(3, 4), seeds=range(20), files=[str(CRAWLERS)])
    assert any(s.preemptions for s in result.schedules)
    assert {s.value for s in [result.calibration, *result.schedules]} == {12}


ASYNC_REFERENCE = ROOT / "examples" / "interview" / "reference_asyncio.py"
async_reference = _load(ASYNC_REFERENCE, "interleave_fixture_reference_asyncio")


def _async_target(crawl, web: dict[str, list[str]], start: str, workers: int = 3):
    def target():
        import asyncio

        calls: collections.Counter[str] = collections.Counter()

        async def get_urls(url: str) -> list[str]:
            calls[url] += 1
            il.note(f"get_urls {url}")
            await asyncio.sleep(0.05)  # virtual: costs no real time
            return list(web.get(url, []))

        return asyncio.run(crawl(start, get_urls, workers)), calls

    return target


def test_asyncio_check_await_add_is_caught_and_named():
    web = _complete_web(4)
    result = il.explore(_async_target(crawlers.crawl_async_check_await_add, web, "http://a.com/p0"),
                        seeds=range(10), files=[str(CRAWLERS)])
    check = _line_text(CRAWLERS, "if url in seen:")
    fetch = _line_text(CRAWLERS, "links = await get_urls(url)")
    for schedule in [result.calibration, *result.schedules]:
        assert schedule.outcome == "returned"
        dup = _duplicates(schedule)[0]
        race = schedule.race_on(dup)
        assert race is not None
        assert (race.after.text, race.before.text, race.other_at.text) == (check, fetch, check)
        assert race.paused_thread.startswith("task ") and race.other_thread.startswith("task ")


def test_asyncio_reference_is_never_flagged_and_seeds_reorder_it():
    web = _complete_web(6)
    target = _async_target(async_reference.crawl, web, "http://a.com/p0")
    result = il.explore(target, seeds=SEEDS, files=[str(ASYNC_REFERENCE)])
    for schedule in [result.calibration, *result.schedules]:
        assert schedule.outcome == "returned", schedule.problems
        assert schedule.value[0] == sorted(web) and _duplicates(schedule) == []
    # which task fetched which page depends on the order tasks resume in
    orders = {tuple((n.thread, n.text) for n in s.notes) for s in result.schedules}
    assert len(orders) > 1, "every seed ran the tasks in the same order: await points were not explored"
    again = il.replay(target, 7, files=[str(ASYNC_REFERENCE)], horizon=result.horizon)
    assert again.notes == result.schedules[7].notes


@pytest.mark.parametrize(
    ("crawl", "check", "add"),
    [
        (crawlers.crawl_unlocked, "if link not in seen:  # check", "seen.add(link)  # add"),
        (crawlers.crawl_pool_recursive, "if nxt not in seen and host_of(nxt) == hostname:", "seen.add(nxt)"),
        (crawlers.crawl_idle_timeout_workers, "if link in seen:", "seen.add(link)"),
    ],
    ids=["queue-workers", "pool-threads-submit-more", "idle-timeout-workers-with-helpers"],
)
def test_default_seeds_catch_public_solution_shapes(crawl, check, add):
    report = il.find_duplicate_fetches(crawl, web=_complete_web(6), start_url="http://a.com/p0",
                                       files=[str(CRAWLERS)])
    assert report.problems == []
    assert report.first is not None, "the race was not found with the default seeds"
    assert report.schedules > 1 and report.steps > 0
    named = [d for d in report.duplicates if d.race is not None]
    assert named, "no failing schedule names its interleaving"
    texts = {(d.race.after.text, d.race.other_at.text) for d in named}
    assert (_line_text(CRAWLERS, check), _line_text(CRAWLERS, check)) in texts
    assert any(d.race.before.text == _line_text(CRAWLERS, add) for d in named)
    assert str(report.first).startswith(f"{report.first.url} was fetched 2 times (seed {report.first.seed})")


def test_find_duplicate_fetches_reports_nothing_for_the_reference():
    report = il.find_duplicate_fetches(reference.crawl, web=_complete_web(6), start_url="http://a.com/p0",
                                       files=[str(REFERENCE)])
    assert report.duplicates == [] and report.problems == [] and report.first is None
    assert report.schedules >= 9


_REPLAY_SCRIPT = """
import json, sys
sys.path.insert(0, {fixtures!r})
import crawlers
from crawlsim.check import interleave as il
pages = [f"http://a.com/p{{i}}" for i in range(5)]
web = {{p: [q for q in pages if q != p] for p in pages}}
report = il.find_duplicate_fetches(crawlers.crawl_unlocked, web=web, start_url=pages[0],
                                   files=[crawlers.__file__], seeds=range(12))
print(json.dumps([[d.seed, d.url, str(d.race), [list(map(str, (s.step, s.reason, s.from_thread, s.to_thread, s.where)))
                   for s in d.schedule.switches]] for d in report.duplicates]))
"""


def test_a_seed_replays_the_same_way_in_another_process(tmp_path):
    import os
    import subprocess
    import sys

    script = tmp_path / "replay.py"
    script.write_text(_REPLAY_SCRIPT.format(fixtures=str(CRAWLERS.parent)))
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    runs = [subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, check=True).stdout
            for _ in range(2)]
    assert runs[0] == runs[1]
    assert '"http://a.com/p' in runs[0]  # it found the race, and named it the same way both times


_MODULE_LEVEL_LOCK = '''
import queue
import threading

LOCK = threading.Lock()


def crawl(start_url, get_urls, max_workers=3):
    seen = {start_url}
    q = queue.Queue()
    q.put(start_url)

    def worker():
        while True:
            url = q.get()
            for link in get_urls(url):
                with LOCK:
                    fresh = link not in seen
                    seen.add(link)
                if fresh:
                    q.put(link)
            q.task_done()

    for _ in range(max_workers):
        threading.Thread(target=worker, daemon=True).start()
    q.join()
    return sorted(seen)
'''


def test_a_module_imported_under_install_for_import_keeps_its_lock_cooperative(tmp_path):
    path = tmp_path / "module_lock_crawler.py"
    path.write_text(_MODULE_LEVEL_LOCK)
    with il.install_for_import():
        module = _load(path, "interleave_fixture_module_lock")
    assert isinstance(module.LOCK, il.CoopLock)
    report = il.find_duplicate_fetches(module.crawl, web=_complete_web(5), start_url="http://a.com/p0",
                                       files=[str(path)], seeds=range(20))
    assert report.duplicates == [] and report.problems == []
    # outside a schedule it is an ordinary lock
    assert module.LOCK.acquire() and module.LOCK.locked() and not module.LOCK.acquire(False)
    module.LOCK.release()
    assert threading.Lock is _thread.allocate_lock


@pytest.mark.parametrize(
    ("crawl", "path"),
    [(reference.crawl, REFERENCE), (crawlers.crawl_pool_recursive, CRAWLERS)],
    ids=["threadpool-coordinator", "pool-threads-submit-more"],
)
def test_thread_pool_schedules_do_not_depend_on_memory_addresses(crawl, path):
    # sets of futures and of pool threads iterate by hash; by default that is
    # the object's address, which differs from run to run
    target = _crawl_target(crawl, _complete_web(6), "http://a.com/p0")
    logs = []
    for shift in (0, 1000, 3000):
        ballast = [object() for _ in range(shift)]  # moves where the next objects land
        result = il.explore(target, seeds=range(20), files=[str(path)])
        logs.append([(s.switches, s.notes) for s in result.schedules])
        del ballast
    assert logs[0] == logs[1] == logs[2]


def test_a_thread_still_looping_after_the_target_returns_is_listed_not_blamed():
    schedule = il.explore(crawlers.returns_while_a_poller_runs, seeds=[0], files=[str(CRAWLERS)]).schedules[0]
    assert (schedule.outcome, schedule.value) == ("returned", "returned")
    assert schedule.problems == []
    [line] = schedule.leftover
    assert line.startswith("thread 1 (poll) at line")


def test_a_check_then_add_on_one_line_is_split_after_its_condition():
    report = il.find_duplicate_fetches(crawlers.crawl_one_line_check_then_add, web=_complete_web(6),
                                       start_url="http://a.com/p0", files=[str(CRAWLERS)])
    assert report.first is not None and report.problems == []
    line = _line_text(CRAWLERS, "if link not in seen: seen.add(link); q.put(link)")
    race = next(d.race for d in report.duplicates if d.race is not None)
    assert race.after.text == race.before.text == race.other_at.text == line
    assert race.before.after_condition and not race.after.after_condition
    assert "after its condition" in str(race)


RACY_CRAWLS = {
    "crawl": st.sampled_from([crawlers.crawl_unlocked, crawlers.crawl_one_line_check_then_add,
                              crawlers.crawl_pool_recursive, crawlers.crawl_idle_timeout_workers]),
    "pages": st.integers(3, 9),
    "workers": st.integers(2, 5),
}


@settings(max_examples=2)  # every shape by name above; many webs in the exhaustive step
@given(**RACY_CRAWLS)
def test_default_seeds_catch_the_race_on_any_complete_web(crawl, pages, workers):
    # every page links every other, so two pages in flight always share links:
    # the race is there to find, whatever the size and the number of workers
    report = il.find_duplicate_fetches(crawl, web=_complete_web(pages), start_url="http://a.com/p0",
                                       files=[str(CRAWLERS)], max_workers=workers)
    assert report.problems == []
    assert any(d.race is not None for d in report.duplicates)


@pytest.mark.exhaustive
@settings(max_examples=8)
@given(**RACY_CRAWLS)
def test_default_seeds_catch_the_race_on_any_complete_web_exhaustive(crawl, pages, workers):
    test_default_seeds_catch_the_race_on_any_complete_web.hypothesis.inner_test(crawl, pages, workers)


def test_a_watcher_held_up_by_a_loaded_machine_never_calls_a_stall(monkeypatch):
    """The stall fallback must not depend on machine speed: when the
    watcher itself wakes late (here every time: its clock jumps a second per
    read, as if the process waited that long for a CPU), no thread could run
    meanwhile, so a holder blocked in C is not presumed stalled; the
    schedule's real-time safety net stops it instead."""
    from crawlsim.check.interleave import search

    real = _thread.allocate_lock()
    jumps = iter(range(1, 1_000_000))
    monkeypatch.setattr(search, "_real_monotonic", lambda: il._real_monotonic() + next(jumps))

    def target():
        def holder():
            with real:
                time.sleep(1)

        t = threading.Thread(target=holder)
        t.start()
        time.sleep(0.5)
        with real:
            pass
        t.join()
        return "done"

    schedule = il.explore(target, seeds=[0], files=[__file__], stall_timeout=0.05, schedule_timeout=30).schedules[0]
    assert schedule.outcome == "timeout"
    assert not schedule.nondeterministic and not any("no progress" in p for p in schedule.problems)
