# Types for the compiled build (Cython reads this beside plain.py; pure Python never does).
# cpdef: the scheduler cimports these (scheduler.pxd), so its calls on every link and
# response are C calls; Python callers see the same functions.

cpdef plain_number(value)
cpdef plain_str(value)
cpdef list materialize(items, name)
cpdef checked_status(status)
cpdef check_headers(headers)
