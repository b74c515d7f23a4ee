# Types for the compiled build (Cython reads this beside frontier.py; pure Python never does).
# A key, a URL, a depth or a time stays a Python object; only counts and flags are C.
# HostState is a plain Python dataclass (slots=True), not declared here.
cimport cython

cdef class PerHostFrontier:
    cdef public Py_ssize_t per_host, size
    cdef public list ready, waiting

    cpdef push(self, host, entry, now)
    cpdef reconsider(self, host, now)
    @cython.locals(ready=list)
    cpdef pop(self, now)
    @cython.locals(waiting=list)
    cpdef _wake(self, now)
