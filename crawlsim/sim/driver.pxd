# Types for the compiled build (Cython reads this beside driver.py; pure Python never does).
# Times and latencies stay Python floats (the same arithmetic as the pure build); only
# counts and flags, and containers of known type, are C-typed here.
cimport cython
from crawlsim.core.scheduler cimport Scheduler


cdef class _HostTally:
    cdef public object sample
    cdef public Py_ssize_t fetches, robots_fetches
    cdef public object page_busy, robots_busy, fastest, fastest_page, smallest_gap, last_page_start, contention


cdef class _Lane:
    cdef public object fetch, started, took
    cdef public _HostTally tally


cdef class _Crawl:
    cdef public object opts, env, rng, latency_for, page_latency, contention
    cdef public Scheduler sched
    cdef public bint tracing, series, measure_gaps, dedup_content
    cdef public dict tallies, samplers, host_states
    cdef public list completed, lanes
    cdef public object events, points, wasted, finish, wake_at
    cdef public Py_ssize_t deepest, busy, workers
    cdef public object response, plain
    cdef public object robots_txt, client

    cpdef arm(self, _Lane lane, delay)
    @cython.locals(tally=_HostTally, lanes=list, lane=_Lane, depth=Py_ssize_t, slot=Py_ssize_t)
    cpdef dispatch(self, now, list fetches)
    @cython.locals(lane=_Lane, tally=_HostTally)
    cpdef on_done(self, event)
    cpdef _wake_when_due(self, now)
