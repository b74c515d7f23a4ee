# Types for the compiled build (Cython reads this beside driver.py; pure Python never does).
# Times and latencies stay Python floats (the same arithmetic as the pure build); only
# counts and flags, and containers of known type, are C-typed here.
cimport cython


cdef class _HostTally:
    cdef public object sample
    cdef public Py_ssize_t fetches, robots_fetches
    cdef public object page_busy, robots_busy, fastest, fastest_page, smallest_gap, last_page_start


cdef class _LaneTimer:
    cdef public object fetch, started, took
    cdef public _HostTally tally


cdef class _Crawl:
    cdef public object opts, sched, env, rng, latency_for, page_latency
    cdef public bint tracing, series, measure_gaps, dedup_content
    cdef public dict tallies, samplers, host_states
    cdef public list completed, lanes, due, queue
    cdef public object events, points, wasted, finish, wake_at
    cdef public Py_ssize_t deepest, busy, workers
    cdef public object eid, timeout, poll, next_wakeup, response, plain
    cdef public object robots_txt, woken, client

    @cython.locals(due=list, queue=list, entry=tuple)
    cpdef run_events(self)
    cpdef arm(self, _LaneTimer timer, priority, delay)
    @cython.locals(tally=_HostTally, lanes=list, due=list, timer=_LaneTimer)
    cpdef dispatch(self, now, list fetches)
    @cython.locals(tally=_HostTally)
    cpdef on_done(self, _LaneTimer timer)
