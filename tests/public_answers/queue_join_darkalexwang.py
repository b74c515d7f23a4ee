"""LeetCode 1242: the queue.join() pool again, host found by scanning to the first '/'.

Source:  https://github.com/DarkAlexWang/leetcode/blob/HEAD/Facebook/1242.web-crawler-multithreaded.py
Author:  DarkAlexWang (repository DarkAlexWang/leetcode)
Licence: none stated (no licence file in the search index's copy; not checked on GitHub).
Adapted: restated with the same design and bugs; LeetCode's interface through leetcode_shim.
         The design is the one queue_join_hzhu3142.py has (both follow a well-known LeetCode
         discussion post); this answer's own part is the hand-written hostname scan.
"""
# style: queue.join, raw threads, double-checked locking, hostname by a character loop
# racy: no
# verdict-leetcode: pass
# verdict-interview: fail fragments,fetch-error,max-workers
# revised: threads-exit dropped from verdict-interview when the grader stopped judging threads left by a crawl that never returned (the hang is fetch-error's)
# why-leetcode: as queue_join_hzhu3142; the loop stops at the first '/' after "http://", so
#   the hostname compared is exact (with any port and user info, which only strict grades).
# why-interview: as queue_join_hzhu3142: no urldefrag, a raising getUrls hangs join() and
#   leaves seven threads in get(), 8 threads whatever max_workers.

from __future__ import annotations

import queue
import threading

from leetcode_shim import leetcode_crawl


class Solution:
    def crawl(self, startUrl, htmlParser):
        def hostname(url):
            start = len("http://")
            i = start
            while i < len(url) and url[i] != "/":
                i += 1
            return url[start:i]

        todo = queue.Queue()
        seen = {startUrl}
        start_hostname = hostname(startUrl)
        seen_lock = threading.Lock()

        def worker():
            while True:
                url = todo.get()
                if url is None:
                    return
                for next_url in htmlParser.getUrls(url):
                    if next_url not in seen and hostname(next_url) == start_hostname:
                        seen_lock.acquire()
                        if next_url not in seen:
                            seen.add(next_url)
                            todo.put(next_url)
                        seen_lock.release()
                todo.task_done()

        num_workers = 8
        todo.put(startUrl)
        workers = []
        for _ in range(num_workers):
            thread = threading.Thread(target=worker)
            thread.start()
            workers.append(thread)
        todo.join()
        for _ in range(num_workers):
            todo.put(None)
        for thread in workers:
            thread.join()
        return list(seen)


crawl = leetcode_crawl(Solution)
