"""LeetCode 1242: 5 daemon threads, a locked count of pages owed, and a main thread that spins on it.

Source:  https://github.com/MOMOKO606/Leetcode/blob/4c961c154d1b592abea490b251010f633936e76f/1368-web-crawler-multithreaded/1368-web-crawler-multithreaded.py
Author:  MOMOKO606 (repository MOMOKO606/Leetcode; the file has 39 LeetHub commits, several designs)
Licence: none stated (the repository has a README and no licence file).
         (LeetHub recorded this version at 2478 ms, the slowest of the file's history.)
Adapted: restated with the same design and bugs; LeetCode's interface through leetcode_shim.
"""
# style: raw daemon threads + queue.Queue, termination by busy-waiting `while running > 0: pass`
# racy: yes
# verdict-leetcode: fail check-then-add
# also-leetcode: seen-race
# verdict-interview: fail check-then-add,fragments,fetch-error,max-workers
# also-interview: seen-race
# why-leetcode: the count is right (links added before the page is counted done, under a lock),
#   and the spin only wastes CPU; but the test-and-add of `visited` is unlocked (a race).
# why-interview: no urldefrag; a raising getUrls kills its worker before it lowers the count, so
#   the main thread spins forever (fetch-error); 5 threads (max-workers).

from __future__ import annotations

import queue
import threading

from leetcode_shim import leetcode_crawl


class Solution:
    def crawl(self, startUrl, htmlParser):
        def _crawl():
            nonlocal running
            while True:
                url = cur_queue.get()
                if url is None:
                    break
                found = []
                for new_url in htmlParser.getUrls(url):
                    if new_url.split("http://")[1].split("/")[0] == domain and new_url not in visited:
                        found.append(new_url)
                        visited.add(new_url)
                with lock:
                    for new_url in found:
                        cur_queue.put(new_url)
                        running += 1
                    running -= 1
                next_queue.put(found)

        cur_queue, next_queue = queue.Queue(), queue.Queue()
        visited, domain = {startUrl}, startUrl.split("http://")[1].split("/")[0]
        cur_queue.put(startUrl)
        lock = threading.Lock()
        running = 1
        threads = [threading.Thread(target=_crawl, daemon=True) for _ in range(5)]
        for thread in threads:
            thread.start()
        while running > 0:
            pass
        for _ in range(5):
            cur_queue.put(None)
        for thread in threads:
            thread.join()
        return list(visited)


crawl = leetcode_crawl(Solution)
