# Types for the compiled build (Cython reads this beside frontier.py; pure Python never does).
# A key, a URL, a depth or a time stays a Python object; only counts and flags are C.
cimport cython

cdef class HostState:
    cdef public object name
    cdef public list queue
    cdef public Py_ssize_t in_flight, pages
    cdef public object ready_at, robots_status, policy, crawl_delay
    cdef public bint polite
    cdef public object filed, filed_key

cdef class CrawlOrder:
    cdef public object _order, _priority
    cdef public Py_ssize_t _seq

    cpdef key(self, url, depth, batch)

cdef class PerHostFrontier:
    cdef public Py_ssize_t per_host, size
    cdef public list ready, waiting

    cpdef push(self, HostState host, entry, now)
    cpdef reconsider(self, HostState host, now)
    @cython.locals(ready=list, host=HostState)
    cpdef pop(self, now, free=*)
    @cython.locals(waiting=list, host=HostState)
    cpdef _wake(self, now)
