# Types for the compiled build (Cython reads this beside slots.py; pure Python never does).

cdef class WorkerSlots:
    cdef public list free
    cdef public Py_ssize_t next

    cpdef take(self)
    cpdef give_back(self, lane)
