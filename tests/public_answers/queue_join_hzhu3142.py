"""LeetCode 1242: queue.join() pool of 8 threads, a double-checked lock, host = url.split('/')[2].

Source:  https://github.com/hzhu3142/Leetcode/blob/HEAD/1242.py
Author:  hzhu3142 (repository hzhu3142/Leetcode)
Licence: none stated (no licence file in the search index's copy; not checked on GitHub).
Adapted: restated with the same design, hostname rule and bugs; LeetCode's interface through
         leetcode_shim.
"""
# style: queue.join, raw threads, double-checked locking (test outside the lock, again inside)
# racy: no
# verdict-leetcode: pass
# verdict-interview: fail fragments,fetch-error,max-workers
# revised: threads-exit dropped from verdict-interview when the grader stopped judging threads left by a crawl that never returned (the hang is fetch-error's)
# why-leetcode: the unlocked first test only skips work; the add happens after a second test
#   under the lock, so no URL is queued twice; join() then sentinels, threads joined.
#   split('/')[2] keeps a port, which only --rules strict grades.
# why-interview: no urldefrag; getUrls raising skips task_done: join() never returns
#   (fetch-error), seven non-daemon workers stay in get() (threads-exit); 8 threads (max-workers).

from __future__ import annotations

import queue
import threading

from leetcode_shim import leetcode_crawl


class Solution:
    def crawl(self, startUrl, htmlParser):
        hostname = lambda url: url.split("/")[2]  # noqa: E731 -- as the answer writes it
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
        workers = [threading.Thread(target=worker) for _ in range(num_workers)]
        for thread in workers:
            thread.start()
        todo.join()
        for _ in range(num_workers):
            todo.put(None)
        for thread in workers:
            thread.join()
        return list(seen)


crawl = leetcode_crawl(Solution)
