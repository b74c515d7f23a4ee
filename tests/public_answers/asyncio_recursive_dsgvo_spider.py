"""asyncio: each page's coroutine starts a task per new link and awaits them; a Semaphore made fresh per page.

Source:  https://github.com/1core0/DSGVO-Spider/blob/HEAD/crawler.py
Author:  1core0 (repository 1core0/DSGVO-Spider)
Licence: none stated (no licence file in the search index's copy; not checked on GitHub).
Adapted: restated with the same design and bugs. get_urls(url) stands for the aiohttp GET and
         BeautifulSoup's <a href> scan (the `except asyncio.TimeoutError` around it kept); the
         recursive coroutine renamed spider (the original is also called crawl) and given
         get_urls; crawl(start_url, get_urls, max_workers) added: it clears the module's two
         sets, passes urlparse(start_url).netloc as the domain and max_workers as async_limit,
         and returns visited_urls; the progress prints dropped.
"""
# style: asyncio, recursive task per link (create_task + as_completed), asyncio.Semaphore misused
# racy: yes (one event loop, but whether two responses land in one tick varies from run to run)
# verdict-leetcode: fail host-scope
# revised: max-workers dropped from verdict-leetcode when it became an interview rule (LeetCode's statement has no max_workers)
# also-leetcode: seen-race,check-then-add,basic,diamond-50,large-graph,slow-service,termination,cycle,pool-2,pool-3,many-hosts
# verdict-interview: fail host-scope,max-workers,fragments,fetch-error
# also-interview: seen-race,check-then-add,basic,diamond-50,large-graph,slow-service,termination,cycle,pool-2,pool-3,many-hosts,deep-chain
# why-leetcode: netloc.endswith(domain) keeps pa.com, ta.com, xa.com, evil-a.com and blog.a.com
#   (host-scope); `async with asyncio.Semaphore(n)` builds a new semaphore each time and holds it
#   only while tasks are created, so nothing bounds the calls in flight: twelve at once on
#   pool-2 (max-workers). A URL joins visited_urls when its task starts, not when it is
#   created, and the shared sublinks set is cleared per page, so two pages whose responses are
#   handled before the first new task runs both start a task for one link (a possible double
#   fetch, in the also list).
# why-interview: also no urldefrag; only asyncio.TimeoutError is caught, so get_urls' error
#   propagates through as_completed and ends the crawl.

from __future__ import annotations

import asyncio
from urllib.parse import urljoin, urlparse

visited_urls = set()
sublinks_queue = set()


async def spider(url, domain, async_limit, get_urls):
    visited_urls.add(url)
    try:
        hrefs = await get_urls(url)
    except asyncio.TimeoutError:
        return
    for href in hrefs:
        if href is None:
            continue
        abs_url = urljoin(url, href)
        parsed_url = urlparse(abs_url)
        if parsed_url.netloc.endswith(domain) and abs_url not in visited_urls and abs_url not in sublinks_queue:
            sublinks_queue.add(abs_url)
    tasks = []
    async with asyncio.Semaphore(async_limit):
        for sublink in sublinks_queue:
            if sublink not in visited_urls:
                tasks.append(asyncio.create_task(spider(sublink, domain, async_limit, get_urls)))
    sublinks_queue.clear()
    for coro in asyncio.as_completed(tasks):
        await coro


async def crawl(start_url, get_urls, max_workers):
    visited_urls.clear()
    sublinks_queue.clear()
    await spider(start_url, urlparse(start_url).netloc, max_workers, get_urls)
    return list(visited_urls)
