"""LeetCode 1242: multiprocessing.pool.ThreadPool(18), one pool.map() per BFS round over a shared set.

Source:  a public GitHub file that this session's code index returned without naming its
         repository (index file id 45301122494, read 2026-12-06); searching the index for its text
         found no named copy, so its author and repository are unknown here.
Licence: unknown (repository unknown).
Adapted: restated with the same design and bugs; LeetCode's interface through leetcode_shim.
"""
# style: multiprocessing.pool.ThreadPool(18), pool.map per round, never closed
# racy: no
# verdict-leetcode: pass
# verdict-interview: fail fragments,fetch-error,max-workers
# why-leetcode: the threads test-and-add `res` without a lock, but a link both threads pass is
#   added to `to_process`, a set, within one round, so it is fetched once in the next; no URL
#   leaves `res`, so none comes back. map() blocks until its round is done. The pool is never
#   closed, but its threads are daemons. 18 threads is no fault under LeetCode.
# why-interview: no urldefrag; map() re-raises getUrls' error in the crawl; 18 threads whatever
#   max_workers.

from __future__ import annotations

from multiprocessing.pool import ThreadPool

from leetcode_shim import leetcode_crawl


class Solution:
    def __init__(self):
        self.to_process = set()
        self.res = set()

    def crawl(self, startUrl, htmlParser):
        self.res.add(startUrl)
        self.to_process.add(startUrl)

        def getHost(url):
            return url.split("/")[2]

        host = getHost(startUrl)

        def helper(url):
            self.to_process.remove(url)
            for u in htmlParser.getUrls(url):
                if getHost(u) == host and u not in self.res:
                    self.res.add(u)
                    self.to_process.add(u)

        pool = ThreadPool(18)
        while self.to_process:
            pool.map(helper, list(self.to_process))
        return list(self.res)


crawl = leetcode_crawl(Solution)
