"""LeetCode 1236 (single-threaded): BFS whose hostname is url.lstrip("http://").split("/")[0].

Source:  https://github.com/threemonks/leetcode/blob/5dd4d83a48e694dba5cdc4a20f5f33add17f5c63/leetcode/lc1236_web-crawler.py
         (class Solution, the file's final answer)
Author:  threemonks (repository threemonks/leetcode)
Licence: none stated (no licence file in the search index's copy; not checked on GitHub).
Adapted: restated with the same design and bugs; LeetCode's interface through leetcode_shim.
"""
# style: single-threaded BFS (deque), a seen set for every link and an answer set for in-scope ones
# racy: no
# verdict-leetcode: fail host-scope
# verdict-interview: fail host-scope,fragments,fetch-error
# why-leetcode: str.lstrip("http://") strips any leading 'h', 't', 'p', ':' and '/', not the
#   prefix: http://pa.com/ and http://ta.com/t both become "a.com", so their pages (and what
#   they link) are crawled as a.com's.
# why-interview: also no urldefrag; a raising getUrls ends the crawl.

from __future__ import annotations

from collections import deque

from leetcode_shim import leetcode_crawl


def get_hostname(url):
    if url:
        return url.lstrip("http://").split("/")[0]
    return None


class Solution:
    def crawl(self, startUrl, htmlParser):
        hostname = get_hostname(startUrl)
        urls = deque([startUrl])
        seen = {startUrl}
        ans = {startUrl}
        while urls:
            url = urls.popleft()
            while url:
                for u in htmlParser.getUrls(url):
                    if u not in seen:
                        seen.add(u)
                        if get_hostname(u) == hostname:
                            ans.add(u)
                            urls.append(u)
                url = urls.popleft() if urls else None
        return list(ans)


crawl = leetcode_crawl(Solution)
