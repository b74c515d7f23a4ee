# Types for the compiled build (Cython reads this beside scheduler.py; pure Python never does).
# Every attribute that holds a number the crawl computes with stays a Python object: only
# counters and flags, and containers of known type, are C-typed here.
cimport cython
from crawlsim.core.frontier cimport CrawlOrder, HostState
from crawlsim.core.gate cimport RobotsGate
from crawlsim.core.ledger cimport PageLedger
from crawlsim.core.plain cimport checked_status, materialize, plain_number, plain_str
from crawlsim.core.retry cimport RetryQueue
from crawlsim.core.slots cimport WorkerSlots

cdef class Scheduler:
    cdef public object options, stats, _route
    cdef public list _events
    cdef public bint _record, _seen_are_canonical
    cdef public dict _hosts, _in_flight, _attempts
    cdef public object _frontier
    cdef public WorkerSlots _slots
    cdef public RetryQueue _retries
    cdef public PageLedger _pages
    cdef public object _rng, _politeness
    cdef public RobotsGate _robots
    cdef public Py_ssize_t _next_id
    cdef public bint _done_emitted
    cdef public object _open, _now
    cdef public object _steps, _seen, _seen_set, _seen_add, _already_canonical
    cdef public object _scope
    cdef public CrawlOrder _order
    cdef public object _batch
    cdef public Py_ssize_t _workers, _per_host
    cdef public object _depth_limit, _max_pages, _max_per_host, _accepted, _retry_statuses

    cpdef list poll(self, now)
    cpdef next_wakeup(self)
    cpdef _skip(self, now, url, parent, reason, href=*)
    cpdef HostState _host(self, url)
    cpdef _canonical_link(self, href, base, now)
    cpdef bint _accept(self, url, parent, depth, now)
    @cython.locals(host=HostState)
    cpdef bint _admit(self, url, parent, depth, now)
    cpdef _check_idle(self)
    cpdef _checked_all(self, fetch_id, now, status=*, links=*, headers=*, body=*, content=*, final_url=*)
    cpdef tuple _checked_response(self, fetch_id, now, status, links)
    cpdef tuple _checked_extras(self, status, headers, body, content, final_url)
    cpdef _expand(self, base, links, depth, now, bint new_batch=*)
    cpdef _start(self, HostState host, entry, now)
    cpdef tuple _count_start(self, url, kind)
    @cython.locals(host=HostState)
    cpdef HostState _finish(self, tuple flight)
    cpdef _respond(self, tuple flight, now, status, hrefs, retry_after, body, content, final_url)
    cpdef _respond_head(self, tuple flight, now, status, hrefs, retry_after, body, content, final_url)
    cpdef _respond_tail(self, tuple flight, now, status, links, new, dup)
    cpdef _finished(self, now, fetch, status, links, new, dup)
    cpdef _maybe_done(self, now)
    cpdef _flight_of(self, fetch_id)
    cpdef _check_now(self, now)
    cpdef bint _retry_response(self, tuple flight, host, status, retry_after, now)
    cpdef _fail_finally(self, tuple flight, now, reason)
    cpdef bint _retry(self, tuple flight, now, reason, retry_after)
    cpdef _release_retries(self, now)
