# Types for the compiled build (Cython reads this beside frontier.py; pure Python never does).
# A key, a URL, a depth or a time stays a Python object; only counts, indexes and flags are C.
cimport cython

cdef class HostState:
    cdef public object name
    cdef public list heap, fifo_urls
    cdef public object fifo_keys, fifo_depths
    cdef public Py_ssize_t fifo_head, in_flight, pages
    cdef public object ready_at, robots_status, policy, crawl_delay
    cdef public bint polite
    cdef public object filed, filed_key


cdef class PerHostFrontier:
    cdef public Py_ssize_t per_host, size
    cdef public list ready, waiting

    cpdef push_page(self, HostState host, key, url, depth, now)
    @cython.locals(heap=list, head=object)
    cpdef reconsider(self, HostState host, now)
    @cython.locals(host=HostState, i=Py_ssize_t, ready=list, waiting=list, heap=list, urls=list)
    cpdef take(self, now)
