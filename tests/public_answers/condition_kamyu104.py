"""LeetCode 1242: eight threads, one Condition, a deque and a count of busy workers.

Source:  https://github.com/kamyu104/LeetCode-Solutions/blob/102151f2f611c9e98a34f57fc41c026313149564/Python/web-crawler-multithreaded.py
         (class Solution, the first of the file's two answers)
Author:  kamyu104 (repository kamyu104/LeetCode-Solutions)
Licence: the repository is published under MIT (its README's badge); the LICENSE file was not
         readable through this session's index, so that is not verified here.
Adapted: restated in this corpus's words with the same design, hostname rule and bugs (the search
         tool's terms keep third-party code out of commits verbatim); Python 2 -> 3 (xrange,
         notifyAll); state in locals instead of name-mangled attributes; LeetCode's interface
         through leetcode_shim.
"""
# style: condition (threading.Condition + collections.deque + busy count), 8 fixed threads
# racy: no
# verdict-leetcode: pass
# verdict-interview: fail fragments,fetch-error,max-workers
# revised: threads-exit dropped from verdict-interview when the grader stopped judging threads left by a crawl that never returned (the hang is fetch-error's)
# why-leetcode: the seen set is checked and filled under the Condition; the main thread waits
#   until the deque is empty and no worker is busy; the host is the text up to the first '/'
#   after "http://", compared exactly. Eight threads whatever max_workers: no limit in LeetCode.
# why-interview: no urldefrag (fragments); a raising getUrls kills its worker with the busy
#   count raised, so the main thread waits forever (fetch-error) and the other seven threads
#   stay blocked in wait() (threads-exit); 8 threads exceed max_workers 2 and 3 (max-workers).

from __future__ import annotations

import collections
import threading

from leetcode_shim import leetcode_crawl

SCHEME = "http://"
NUMBER_OF_WORKERS = 8


def hostname(url):
    """Everything before the first '/' after the scheme (the scheme included)."""
    end = url.find("/", len(SCHEME))
    return url if end == -1 else url[:end]


class Solution:
    def crawl(self, startUrl, htmlParser):
        cv = threading.Condition()
        todo = collections.deque([startUrl])
        lookup = {startUrl}
        busy = 0

        def worker():
            nonlocal busy
            while True:
                with cv:
                    while not todo:
                        cv.wait()
                    from_url = todo.popleft()
                    if from_url is None:
                        break
                    busy += 1
                name = hostname(from_url)
                for to_url in htmlParser.getUrls(from_url):
                    if hostname(to_url) != name:
                        continue
                    with cv:
                        if to_url not in lookup:
                            lookup.add(to_url)
                            todo.append(to_url)
                            cv.notify_all()
                with cv:
                    busy -= 1
                    if not todo and not busy:
                        cv.notify_all()

        threads = [threading.Thread(target=worker) for _ in range(NUMBER_OF_WORKERS)]
        for thread in threads:
            thread.start()
        with cv:
            while todo or busy:
                cv.wait()
            todo.extend([None] * NUMBER_OF_WORKERS)
            cv.notify_all()
        for thread in threads:
            thread.join()
        return list(lookup)


crawl = leetcode_crawl(Solution)
