# Types for the compiled build (Cython reads this beside retry.py; pure Python never does).

cdef class RetryQueue:
    cdef public list heap
