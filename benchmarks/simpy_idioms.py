"""SimPy's own cost per fetch, in isolation: the driver's idiom against a process per worker.

    python benchmarks/simpy_idioms.py

300,000 ``Timeout`` events of random latency through 64 workers, nothing
else: ``callbacks`` makes one ``Timeout`` per fetch and hangs a callback on
it (what ``crawlsim/sim/driver.py`` does); ``processes`` runs a SimPy
process per worker that yields one ``Timeout`` per fetch.  CPU time, the
two alternated in one process, best of 3: what the simulated crawl pays
SimPy per fetch, and whether another public idiom pays less.
"""

from __future__ import annotations

import random
import time

import simpy

FETCHES, WORKERS = 300_000, 64


def callbacks() -> None:
    """One ``Timeout`` per fetch, its callback starting the next."""
    env = simpy.Environment()
    rng = random.Random(1)
    left = [FETCHES - WORKERS]

    def done(event: simpy.Event) -> None:
        if left[0] > 0:
            left[0] -= 1
            env.timeout(rng.expovariate(1.0), event.value).callbacks.append(done)

    for lane in range(WORKERS):
        env.timeout(rng.expovariate(1.0), lane).callbacks.append(done)
    env.run()


def processes() -> None:
    """A process per worker, yielding one ``Timeout`` per fetch."""
    env = simpy.Environment()
    rng = random.Random(1)
    left = [FETCHES]

    def worker():  # type: ignore[no-untyped-def]
        while left[0] > 0:
            left[0] -= 1
            yield env.timeout(rng.expovariate(1.0))

    for _ in range(WORKERS):
        env.process(worker())
    env.run()


def main() -> None:
    times: dict[str, list[float]] = {"callbacks": [], "processes": []}
    for _ in range(3):
        for run in (callbacks, processes):
            start = time.process_time()
            run()
            times[run.__name__].append(time.process_time() - start)
    for name, cpu in times.items():
        print(f"{name}: best {min(cpu):.3f} s CPU, {min(cpu) / FETCHES * 1e6:.2f} us per fetch")
    print(f"processes / callbacks, best: {min(times['processes']) / min(times['callbacks']):.2f}")


if __name__ == "__main__":
    main()
