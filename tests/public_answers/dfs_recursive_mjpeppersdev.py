"""LeetCode 1236 (single-threaded): recursive DFS, host = url[7:].split('/')[0] of the page and its link.

Source:  https://github.com/MJPeppersdev/mjp-leetcode-solutions/blob/dd5ba6260574d3e836eb3ac9f3fcbdf34a1460de/python/1200-1299/1236-web-crawler.py
Author:  MJPeppersdev (repository MJPeppersdev/mjp-leetcode-solutions)
Licence: none stated (no licence file in the search index's copy; not checked on GitHub).
Adapted: restated with the same design and bugs; LeetCode's interface through leetcode_shim.
"""
# style: single-threaded recursive DFS, seen tested on entry
# racy: no
# verdict-leetcode: pass
# verdict-interview: fail deep-chain,fragments,fetch-error
# why-leetcode: a page is added on entry and entered once; a link is followed when its host
#   equals its page's, and every page entered is on the start host, so scope is exact.
#   The recursion limit matters only on deep-chain, which LeetCode's rules do not grade.
# why-interview: a chain of 1,100 pages is 1,100 nested calls: RecursionError (deep-chain);
#   no urldefrag; a raising getUrls ends the crawl.

from __future__ import annotations

from leetcode_shim import leetcode_crawl


class Solution:
    def crawl(self, startUrl, htmlParser):
        def host(url):
            return url[7:].split("/")[0]

        def dfs(url):
            if url in ans:
                return
            ans.add(url)
            for nxt in htmlParser.getUrls(url):
                if host(url) == host(nxt):
                    dfs(nxt)

        ans = set()
        dfs(startUrl)
        return list(ans)


crawl = leetcode_crawl(Solution)
