"""asyncio: the 500 Lines or Less crawler (A. Jesse Jiryu Davis, Guido van Rossum), workers on an asyncio Queue.

Source:  https://github.com/aosabook/500lines/blob/2447aac72ff79d3088e7ba32912cf3f7cb93ee04/crawler/code/crawling.py
Author:  A. Jesse Jiryu Davis and Guido van Rossum (repository aosabook/500lines)
Licence: MIT for the book's code (the repository's README: "all code by the MIT License").
Adapted: restated with the same design and bugs. The HTTP part goes: get_urls(url) stands for
         session.get + parse_links' href scan (so no redirects, statuses or content types), and
         the retry loop catches any exception get_urls raises where the original caught
         aiohttp.ClientError (every network failure of its HTTP client). max_tasks = max_workers;
         the crawl returns seen_urls. Python 3.5 coroutines -> async def.
"""
# style: asyncio, max_tasks worker tasks on an asyncio.Queue, q.join(), workers cancelled;
#   a URL is marked seen when it is queued; up to 4 tries per URL
# racy: no
# verdict-leetcode: pass
# verdict-interview: pass
# why-leetcode: one event loop: links.difference(seen_urls) is queued and seen_urls updated with
#   no await in between, so each URL is queued once; the host test is literal equality after
#   lowercasing (or the same host with/without "www."); at most max_tasks calls in flight;
#   join() returns when every queued URL is done, then the workers are cancelled.
# why-interview: urldefrag on every link; a raising get_urls is tried again, at most 4 times in
#   all, then recorded and the crawl goes on, its URL kept in seen_urls (retries are not
#   duplicate fetches); no recursion.

from __future__ import annotations

import asyncio
import re
import urllib.parse
from collections import namedtuple

FetchStatistic = namedtuple("FetchStatistic", ["url", "exception", "num_urls", "num_new_urls"])


class Crawler:
    """Crawl a set of URLs: 'seen_urls' is every URL queued, 'done' a FetchStatistic per fetch."""

    def __init__(self, roots, get_urls, exclude=None, max_tries=4, max_tasks=10):
        self.roots = roots
        self.get_urls = get_urls
        self.exclude = exclude
        self.max_tries = max_tries
        self.max_tasks = max_tasks
        self.q = asyncio.Queue()
        self.seen_urls = set()
        self.done = []
        self.root_domains = set()
        for root in roots:
            parts = urllib.parse.urlparse(root)
            host, port = urllib.parse.splitport(parts.netloc)
            if not host:
                continue
            self.root_domains.add(host if re.match(r"\A[\d\.]*\Z", host) else host.lower())
        for root in roots:
            self.add_url(root)

    def host_okay(self, host):
        """A literal match (after lowercasing), or the same host give or take a leading 'www.'."""
        host = host.lower()
        if host in self.root_domains:
            return True
        if re.match(r"\A[\d\.]*\Z", host):
            return False
        host = host[4:] if host.startswith("www.") else "www." + host
        return host in self.root_domains

    def url_allowed(self, url):
        if self.exclude and re.search(self.exclude, url):
            return False
        parts = urllib.parse.urlparse(url)
        if parts.scheme not in ("http", "https"):
            return False
        host, port = urllib.parse.splitport(parts.netloc)
        return self.host_okay(host)

    async def fetch(self, url):
        """Fetch one URL, up to max_tries times; queue its new links."""
        tries = 0
        exception = None
        while tries < self.max_tries:
            try:
                hrefs = await self.get_urls(url)
                break
            except Exception as error:  # adapted: aiohttp.ClientError in the original
                exception = error
            tries += 1
        else:
            self.done.append(FetchStatistic(url, exception, 0, 0))
            return
        links = set()
        for href in hrefs:
            normalized = urllib.parse.urljoin(url, href)
            defragmented, _frag = urllib.parse.urldefrag(normalized)
            if self.url_allowed(defragmented):
                links.add(defragmented)
        self.done.append(FetchStatistic(url, None, len(links), len(links - self.seen_urls)))
        for link in links.difference(self.seen_urls):
            self.q.put_nowait(link)
        self.seen_urls.update(links)

    async def work(self):
        """Process queue items forever."""
        try:
            while True:
                url = await self.q.get()
                assert url in self.seen_urls
                await self.fetch(url)
                self.q.task_done()
        except asyncio.CancelledError:
            pass

    def add_url(self, url):
        self.seen_urls.add(url)
        self.q.put_nowait(url)

    async def crawl(self):
        """Run the crawler until all finished."""
        workers = [asyncio.ensure_future(self.work()) for _ in range(self.max_tasks)]
        await self.q.join()
        for w in workers:
            w.cancel()


async def crawl(start_url, get_urls, max_workers):
    crawler = Crawler([start_url], get_urls, max_tasks=max_workers)
    await crawler.crawl()
    return list(crawler.seen_urls)
