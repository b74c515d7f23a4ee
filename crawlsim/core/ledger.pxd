# Types for the compiled build (Cython reads this beside ledger.py; pure Python never does).

cdef class PageLedger:
    cdef public object _stats, _page_of, _content
    cdef public bint track, dedup_content
    cdef public dict _claimed, failures, content_duplicate_of

    cpdef tuple identity(self, url)
    cpdef record(self, fetch, failure)
