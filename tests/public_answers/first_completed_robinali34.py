"""LeetCode 1242: ThreadPoolExecutor(32) and wait(FIRST_COMPLETED); workers test-and-add under one lock.

Source:  https://github.com/robinali34/blog_leetcode_python/blob/13c2bb840eb9fdd8e0b2f106ce7c4e247080504d/_posts/2025-09-24-medium-1242-web-crawler-multithreaded.md
         (the post's second "Solution in Python", the one that is Python)
Author:  robinali34 (repository robinali34/blog_leetcode_python)
Licence: none stated (no licence file in the search index's copy; not checked on GitHub).
Adapted: restated with the same design and bugs; LeetCode's interface through leetcode_shim.
"""
# style: ThreadPoolExecutor(32), wait(FIRST_COMPLETED), worker-side locked seen set
# racy: no
# verdict-leetcode: pass
# verdict-interview: fail fragments,fetch-error,max-workers
# why-leetcode: the test and the add are one step under the lock, and a worker returns only the
#   links it added, so each is submitted once; the loop ends when no future is pending. A fixed
#   pool of 32 is bounded, and LeetCode's statement sets no thread limit.
# why-interview: no urldefrag; fut.result() re-raises getUrls' error; 32 threads whatever
#   max_workers.

from __future__ import annotations

from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from threading import Lock

from leetcode_shim import leetcode_crawl


class Solution:
    def crawl(self, startUrl, htmlParser):
        def host(u):
            return u.split("/")[2]

        base = host(startUrl)
        visited = {startUrl}
        lock = Lock()

        def worker(url):
            next_urls = []
            for u in htmlParser.getUrls(url):
                if host(u) == base:
                    with lock:
                        if u in visited:
                            continue
                        visited.add(u)
                    next_urls.append(u)
            return next_urls

        with ThreadPoolExecutor(max_workers=32) as ex:
            pending = {ex.submit(worker, startUrl)}
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    for nxt in fut.result():
                        pending.add(ex.submit(worker, nxt))
        return list(visited)


crawl = leetcode_crawl(Solution)
