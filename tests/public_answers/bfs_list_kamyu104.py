"""LeetCode 1236 (single-threaded): BFS over the result list itself, hostname = scheme + host.

Source:  https://github.com/kamyu104/LeetCode-Solutions/blob/5e0e7529c95cd3fc9639bf060d7fdca7f378aa3a/Python/web-crawler.py
Author:  kamyu104 (repository kamyu104/LeetCode-Solutions)
Licence: the repository is published under MIT (its README's badge); the LICENSE file was not
         readable through this session's index, so that is not verified here.
Adapted: restated with the same design and bugs; LeetCode's interface through leetcode_shim.
"""
# style: single-threaded BFS (iterating a list that grows)
# racy: no
# verdict-leetcode: pass
# verdict-interview: fail fragments,fetch-error
# why-leetcode: a link is appended once, when first seen on the same "http://host"; the for loop
#   over the growing list is a BFS. No concurrency: below L4, but LeetCode's rules are met.
# why-interview: no urldefrag; a raising getUrls ends the crawl. Iterative, so deep-chain passes.

from __future__ import annotations

from leetcode_shim import leetcode_crawl

SCHEME = "http://"


class Solution:
    def crawl(self, startUrl, htmlParser):
        def hostname(url):
            end = url.find("/", len(SCHEME))
            return url[: len(url) if end == -1 else end]

        result = [startUrl]
        lookup = set(result)
        for from_url in result:
            name = hostname(from_url)
            for to_url in htmlParser.getUrls(from_url):
                if to_url not in lookup and name == hostname(to_url):
                    result.append(to_url)
                    lookup.add(to_url)
        return result


crawl = leetcode_crawl(Solution)
