# Types for the compiled build (Cython reads this beside scheduler.py; pure Python never does).
# Every attribute that holds a number the crawl computes with stays a Python object: only
# counters and flags, and containers of known type, are C-typed here.
cimport cython
from crawlsim.core.frontier cimport HostState
from crawlsim.core.ledger cimport PageLedger
from crawlsim.core.retry cimport RetryQueue
from crawlsim.core.slots cimport WorkerSlots

cdef class Scheduler:
    cdef public object options, stats, _route
    cdef public list _events
    cdef public bint _record
    cdef public dict _hosts, _in_flight, _attempts
    cdef public object _frontier
    cdef public list _ready_heap, _waiting_heap
    cdef public WorkerSlots _slots
    cdef public RetryQueue _retries
    cdef public PageLedger _pages
    cdef public object _rng, _politeness, _robots
    cdef public Py_ssize_t _next_id
    cdef public bint _done_emitted
    cdef public object _open, _now
    cdef public object _steps, _seen, _seen_set, _seen_add, _already_canonical
    cdef public bint _rfc3986, _seen_first, _scope_all
    cdef public object _scope, _order, _next_key, _count, _batch
    cdef public Py_ssize_t _workers, _per_host
    cdef public object _depth_limit, _max_pages, _max_per_host, _accepted, _retry_statuses

    cpdef _emit(self, event)
    cpdef _skip(self, now, url, parent, reason, href=*)
    cpdef HostState _host(self, name, url)
    @cython.locals(host=HostState)
    cpdef bint _admit(self, url, parent, depth, now)
    cpdef bint _accept(self, url, parent, depth, now)
    cpdef _note_frontier_size(self)
    cpdef _check_idle(self)
    cpdef _checked_all(self, fetch_id, now, status=*, links=*, headers=*, body=*, content=*, final_url=*)
    cpdef tuple _checked_response(self, fetch_id, now, status, links)
    cpdef tuple _checked_extras(self, status, headers, body, content, final_url)
    @cython.locals(new=Py_ssize_t)
    cpdef _expand(self, base, links, depth, now, bint new_batch=*)
    @cython.locals(in_flight=dict, stats=object)
    cpdef _start(self, HostState host, key, url, depth, kind, now)
    @cython.locals(host=HostState)
    cpdef HostState _finish(self, tuple flight)
    cpdef _respond(self, tuple flight, now, status, hrefs, retry_after, body, content, final_url)
    @cython.locals(host=HostState)
    cpdef _respond_head(self, tuple flight, now, status, hrefs, retry_after, body, content, final_url)
    cpdef _respond_tail(self, tuple flight, now, status, links, new, dup)
    @cython.locals(started=list, in_flight=dict, ready=list, waiting=list, host=HostState)
    cpdef list _poll(self, now)
