"""LeetCode 1242: 5 daemon threads; each page's new links go back on a results queue the main thread counts.

Source:  https://github.com/MOMOKO606/Leetcode/blob/ad6dc63e6f81af48cffea86caae40c483b15250b/1368-web-crawler-multithreaded/1368-web-crawler-multithreaded.py
Author:  MOMOKO606 (repository MOMOKO606/Leetcode; the file has 39 LeetHub commits, several designs)
Licence: none stated (the repository has a README and no licence file).
Adapted: restated with the same design and bugs; LeetCode's interface through leetcode_shim.
"""
# style: raw daemon threads + two queue.Queue (work in, one result list per page out), a count
# racy: yes
# verdict-leetcode: fail check-then-add
# also-leetcode: seen-race
# verdict-interview: fail check-then-add,fragments,fetch-error,max-workers
# also-interview: seen-race,threads-exit
# why-leetcode: the count of pages owed a result is right (one result list per page), but the
#   workers test-and-add `visited` with no lock: two pages returning the same links at once can
#   both queue one link. The daemon threads left in get() do not keep a program alive.
# why-interview: no urldefrag; a raising getUrls kills its worker before it puts a result, so
#   the main thread waits on next_queue forever (fetch-error); 5 threads (max-workers).

from __future__ import annotations

from queue import Queue
from threading import Thread

from leetcode_shim import leetcode_crawl


class Solution:
    def crawl(self, startUrl, htmlParser):
        def _crawl():
            while True:
                found = []
                for url in htmlParser.getUrls(cur_queue.get()):
                    if url.split("http://")[1].split("/")[0] == domain and url not in visited:
                        visited.add(url)
                        found.append(url)
                next_queue.put(found)

        cur_queue, next_queue, running, visited = Queue(), Queue(), 1, {startUrl}
        domain = startUrl.split("http://")[1].split("/")[0]
        cur_queue.put(startUrl)
        for _ in range(5):
            Thread(target=_crawl, daemon=True).start()
        while running:
            for url in next_queue.get():
                cur_queue.put(url)
                running += 1
            running -= 1
        return list(visited)


crawl = leetcode_crawl(Solution)
