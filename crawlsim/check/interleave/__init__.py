"""Deterministic race finding: run a crawler's threads one at a time on seeded schedules.

Why: under the GIL a thread is switched out every 5 ms, so an unlocked
check-then-add on a shared ``seen`` set (``if link not in seen: seen.add(link)``)
overlaps only by luck and a checker that relies on real threads flips its
verdict from run to run.  Systematic concurrency testers (CHESS's iterative
context bounding, Coyote, Loom) take the scheduling away from the OS: one
thread runs at a time, the tester decides where to switch, and every schedule
is named by a seed, so a failing schedule is replayed exactly.

Use
---
    report = find_duplicate_fetches(crawl, web={url: [links]}, start_url=url,
                                    files=[user_file], max_workers=3)
    report.first        # DuplicateFetch | None: seed, url, fetches, race
    str(report.first)   # "/x was fetched 2 times (seed 4): thread 2 (worker) ran
                        #  line 21 (`if link not in seen:`) with /x while thread 1
                        #  (worker), also with /x, was between line 21 (...) and
                        #  line 22 (`seen.add(link)`) (seed 4)"
    find_duplicate_fetches(..., seeds=[4])   # replays seed 4 (calibration + 1 schedule)

The general form, for targets with their own counters:

    result = explore(target, seeds=None, files=[user_file])   # ExploreResult
    for s in result.schedules:  # Schedule: seed, outcome, value, error, steps,
        ...                     # switches, preemptions, notes, problems, leftover,
                                # thread_errors, nondeterministic, seconds
        s.race_on("/x")         # Race | None: the two interleaved lines
    replay(target, 4, files=[user_file], horizon=result.horizon)   # one schedule

Inside the target, ``note(text)`` marks the schedule's log (e.g. each fetch).
Import the user's module inside ``install_for_import()`` so its module-level
locks and queues are cooperative.  ``explore`` is not re-entrant (one per
process at a time) and patches process-wide state while it runs: run it in
the checker's throwaway child process, with ``PYTHONHASHSEED`` fixed.

Design
------
* **One baton.**  ``explore`` runs ``target()`` in a fresh thread ("main").
  Every thread it starts (``threading.Thread.start`` is patched) is
  registered before ``start`` returns and then waits for the baton; exactly
  one registered thread runs at a time.  The calling thread only watches.
* **Switch points.**  ``sys.settrace`` line events in frames whose file is in
  ``files`` (the user's code: a switch can land between any two of its
  lines), and every blocking operation.  Code outside ``files`` (the stdlib,
  the checker's fake ``get_urls``) is never interrupted.
* **Cooperative blocking.**  While installed, ``threading.Lock`` /
  ``threading._allocate_lock`` are replaced by :class:`CoopLock`, the C
  ``RLock`` is switched off (``threading._CRLock = None``, so RLock is the
  pure-Python one built on ``Lock``), and ``queue.SimpleQueue`` by a
  ``queue.Queue`` subclass.  So Condition, Event, Semaphore, Barrier,
  ``queue.Queue``, ``Future.result``, ``concurrent.futures.wait`` and
  ``ThreadPoolExecutor``'s work queue all block cooperatively: the thread is
  marked blocked on a predicate and the baton passes on.  So do
  ``multiprocessing.connection.wait`` (its selector is patched) and so
  ``multiprocessing.pool.ThreadPool``, whose worker handler waits on a pipe.  ``Thread.join``
  waits for the joined thread's record.  A thread not registered with the
  schedule (or the watcher) gets the plain blocking behaviour, so these
  objects stay valid locks before and after a schedule.
* **Virtual time.**  For registered threads ``time.monotonic/time/
  perf_counter`` read a virtual clock (one microsecond per step, and one
  per read, so a stdlib loop polling it until a deadline ends) and
  ``time.sleep`` blocks until it passes; when every thread is blocked the
  clock jumps to the earliest timeout.  Timeouts are therefore
  deterministic, and simulated latency costs no real time.
* **Strategy** (seeded, like PCT with a preemption bound).  Each thread gets a
  random priority; at a blocking point the highest-priority runnable thread
  runs.  A preemption demotes the running thread below all others.  A first
  *calibration* schedule (no preemptions) lists the *preemptible points*:
  user lines reached while another thread could run, with how often.  Seed
  ``s`` preempts at point ``s mod len(points)`` (so ``len(points)``
  consecutive seeds try every point once) -- at its second hit in the first
  round of seeds, at a random hit later -- plus up to
  ``preemption_bound - 1`` random extra preemptions.  A preemption is
  armed at its occurrence and fires at the first hit of that line from
  then on at which another thread can run.  CHESS found most bugs within two
  preemptions.
* **Fairness.**  A thread that runs ``SPIN_STEPS`` user lines without
  blocking or being switched (``while running > 0: pass``) is presumed to
  spin and yields, as under CHESS's fair scheduling (loom and Shuttle treat
  a spin as a yield): it is demoted below all others, and if none can run
  the clock jumps to the earliest timeout, as the spin would wait it out.
  A yield is no preemption (the bound does not count it, nor is it race
  evidence), so even the calibration gets past a spinning coordinator.
* **Determinism.**  Same target, files, seed and calibration => same
  switch log.  Threads are named by start order ("main", "thread 1 (worker)"),
  not by the global ``Thread-N`` counter; ``concurrent.futures.Future`` and
  ``threading.Thread`` objects made under control hash by creation order
  within the schedule (a set of futures, or ThreadPoolExecutor's set of
  threads, iterates the same way every run, not by memory address); cyclic
  GC is paused during ``explore``.  asyncio Tasks still hash by address.  String
  hashing is salted per process, so across processes set iteration order of
  strings is the same only with a fixed ``PYTHONHASHSEED`` (the checker's
  child process should set it).
* **Never hangs.**  A schedule stops at ``max_steps`` switch points
  (outcome ``step-limit``: an endless loop or livelock that yielding did not
  end; ``find_duplicate_fetches`` reports it as its ``limit``), when every thread is
  blocked (``deadlock``, naming each thread's line), or after
  ``schedule_timeout`` real seconds (``timeout``, a safety net only).  If the
  running thread makes no progress for ``stall_timeout`` real seconds and is
  not runnable (on Linux its ``/proc`` state says it sleeps in the kernel; a
  thread that is merely waiting for a CPU on a loaded machine is left alone)
  it is presumed blocked outside the controller (a lock created before ``explore``,
  a socket) and the baton passes on; that schedule is marked
  ``nondeterministic``.  A watch during which the watcher itself woke late
  (the process waited for a CPU) does not count towards a stall, so a
  loaded machine does not make one.  Stopping a schedule raises a private
  ``_ScheduleAborted`` (a ``BaseException``, so ``except Exception`` does not swallow it) in
  every thread at its next blocking call or user line; all managed threads
  are daemons.  Patches are always removed when ``explore`` returns.

Explaining a race
-----------------
Each preemption records the paused thread's line just run (``after``), the
line it is about to run (``before``) and the string values in its locals;
while it is paused, every other thread's hit of the ``after`` line is
recorded with its string locals.  ``Schedule.race_on("/x")`` finds the
preemption where another thread ran the same line with the same value:
"thread 2 ran line 21 with /x while thread 1 was paused between line 21 and
line 22".  Targets can add their own marks with :func:`note`.

Limits
------
* Switches happen between *lines*: a check-then-add written on one line
  (``if x not in s: s.add(x)``) is not split and its race is not found
  (opcode events could split it, at several times the cost; not done).
* The strategy is randomised per seed, not exhaustive: the default seeds try
  every preemptible point three times (second hit, then random hits); a race that needs a
  particular occurrence of a rarely-hit line may need more seeds.
* A thread looping in code outside ``files`` without calling anything
  blocking is stopped only by ``schedule_timeout`` and then cannot be
  unwound: it is reported and left running as a daemon thread.
* Threads started with ``_thread.start_new_thread`` are not controlled;
  locks/queues created before ``explore`` (e.g. at module import) are real
  C locks and only reach the stall fallback.  Load the user's module after
  calling :func:`install_for_import` or inside the target where possible.
* An exception that kills a worker thread is recorded in
  ``Schedule.thread_errors`` and not passed to ``threading.excepthook``.
* ``sys.settrace`` in managed threads replaces a debugger's or coverage's
  tracer there.
* asyncio is controlled at await points only: the event loop's selector
  waits in virtual time (``selectors.DefaultSelector`` is patched, so loops
  created under control get it) and each loop iteration runs its ready
  callbacks in a seeded order (FIFO in calibration; the seed shuffles, as
  trio's scheduler does on purpose).  There is no preemption bound there:
  every iteration may reorder.  A task whose user line follows another
  task's is recorded as a pause of that task, so ``race_on`` names the
  check and the await ("task 3 was between line 16 and line 18").  Only
  loops run by a managed thread (``asyncio.run`` inside ``target``) are
  controlled.
"""

from __future__ import annotations

# The package is split along its concepts, each module importing only those
# before it: real (the primitives saved before any patch), results (what a
# schedule leaves), strategy (where a seed preempts), threads (what is read
# off a thread's frames), baton (the controlled scheduler and its threads'
# records), controller (the switch points), state (the one schedule
# running: its only owner), primitives (the cooperative stand-ins and their
# patching), search (explore/replay) and duplicates (the checker's
# question).  Everything a caller needs is importable from here.
from .duplicates import DuplicateFetch, RaceReport, find_duplicate_fetches
from .primitives import CoopLock, install_for_import
from .results import (
    ExploreResult,
    Horizon,
    Location,
    Note,
    Overlap,
    Preemption,
    Race,
    Schedule,
    Step,
    Switch,
)
from .baton import AFTER_RETURN_STEPS, QUANTUM, SPIN_STEPS
from .search import SEEDS_PER_POINT, explore, note, replay
# The real primitives and a stand-in, so a caller can check the patches came off:
from .primitives import _CoopSimpleQueue as _CoopSimpleQueue
from .real import _orig_start as _orig_start
from .real import _real_monotonic as _real_monotonic
from .real import _real_sleep as _real_sleep

__all__ = [
    "AFTER_RETURN_STEPS", "QUANTUM", "SEEDS_PER_POINT", "SPIN_STEPS",
    "CoopLock", "DuplicateFetch", "ExploreResult", "Horizon", "Location", "Note", "Overlap", "Preemption",
    "Race", "RaceReport", "Schedule", "Step", "Switch",
    "explore", "find_duplicate_fetches", "install_for_import", "note", "replay",
]
