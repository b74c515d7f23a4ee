# Types for the compiled build (Cython reads this beside retry.py; pure Python never does).

cdef class RetryQueue:
    cdef public list heap

    cpdef add(self, at, fetch_id, host, entry)
    cpdef next_at(self)
    cpdef list due(self, now)
