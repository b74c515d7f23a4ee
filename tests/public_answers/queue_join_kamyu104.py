"""LeetCode 1242: eight threads on a queue.Queue, queue.join() to finish, None to stop them.

Source:  https://github.com/kamyu104/LeetCode-Solutions/blob/102151f2f611c9e98a34f57fc41c026313149564/Python/web-crawler-multithreaded.py
         (class Solution2, the file's second answer)
Author:  kamyu104 (repository kamyu104/LeetCode-Solutions)
Licence: the repository is published under MIT (its README's badge); the LICENSE file was not
         readable through this session's index, so that is not verified here.
Adapted: restated with the same design, hostname rule and bugs; Python 2 -> 3 (Queue -> queue,
         xrange); the Condition the answer uses as a plain lock kept; LeetCode's interface
         through leetcode_shim.
"""
# style: queue.join (8 fixed threads, task_done per page, None sentinels), Condition as the lock
# racy: no
# verdict-leetcode: pass
# verdict-interview: fail fragments,fetch-error,max-workers
# revised: threads-exit dropped from verdict-interview when the grader stopped judging threads left by a crawl that never returned (the hang is fetch-error's)
# why-leetcode: check-and-add under one lock; a page's links are put before its task_done, so
#   join() returns only when every page is done; the threads are stopped and joined.
# why-interview: no urldefrag; a raising getUrls skips task_done, so join() never returns
#   (fetch-error) and the seven other non-daemon threads stay in get() (threads-exit); 8 threads
#   whatever max_workers (max-workers).

from __future__ import annotations

import queue
import threading

from leetcode_shim import leetcode_crawl

SCHEME = "http://"
NUMBER_OF_WORKERS = 8


def hostname(url):
    end = url.find("/", len(SCHEME))
    return url if end == -1 else url[:end]


class Solution:
    def crawl(self, startUrl, htmlParser):
        cv = threading.Condition()
        todo = queue.Queue()
        todo.put(startUrl)
        lookup = {startUrl}

        def worker():
            while True:
                from_url = todo.get()
                if from_url is None:
                    break
                name = hostname(from_url)
                for to_url in htmlParser.getUrls(from_url):
                    if name != hostname(to_url):
                        continue
                    with cv:
                        if to_url not in lookup:
                            lookup.add(to_url)
                            todo.put(to_url)
                todo.task_done()

        threads = [threading.Thread(target=worker) for _ in range(NUMBER_OF_WORKERS)]
        for thread in threads:
            thread.start()
        todo.join()
        for _ in threads:
            todo.put(None)
        for thread in threads:
            thread.join()
        return list(lookup)


crawl = leetcode_crawl(Solution)
