# Types for the compiled build (Cython reads this beside gate.py; pure Python never does).
# The scheduler asks refuses() of every page queued and started: a C call (scheduler.pxd).

cdef class RobotsGate:
    cdef public bint enabled
    cdef public object _user_agent, _politeness, _key, _frontier, _emit, _skip
    cdef public set blocked

    cpdef first_sight(self, host, scheme, now)
    cpdef bint refuses(self, host, url, parent, now)
