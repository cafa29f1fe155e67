#!/usr/bin/env python3
"""The Python bridge's speed in one Python session (./headscope bench python [--model M] [--calls N]):

- open: from headscope.open() to the server's greeting (the JVM starts and loads the model);
- the first attention() after open (goal < 3 s);
- the median of the next 50 attention() calls on a 16-token input (goal < 200 ms);
- the server's resident memory (VmRSS of the java process) before and after 100 more calls (goal flat).

Prints one line per figure; --json FILE also writes them as a JSON object.
"""

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import headscope  # noqa: E402

SENTENCE = "The quick brown fox jumps over the lazy dog near the river bank."  # 16 wordpieces with [CLS], [SEP]


def children(pid):
    found = []
    for task in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/children" % (pid, task)) as f:
                found += [int(c) for c in f.read().split()]
        except OSError:
            pass
    return found


def comm(pid):
    with open("/proc/%d/comm" % pid) as f:
        return f.read().strip()


def java_pid(root):
    """The java process among the launcher and its descendants (the launcher execs java, so usually
    the launcher itself)."""
    todo = [root]
    while todo:
        pid = todo.pop(0)
        try:
            if comm(pid) == "java":
                return pid
            todo += children(pid)
        except OSError:
            continue
    raise RuntimeError("no java process under the launcher %d" % root)


def rss_mb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    raise RuntimeError("no VmRSS for %d" % pid)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="bert-base-uncased")
    parser.add_argument("--calls", type=int, default=50, help="calls timed for the median (50)")
    parser.add_argument("--soak", type=int, default=100, help="calls between the memory readings (100)")
    parser.add_argument("--json", help="also write the figures to this file")
    options = parser.parse_args()

    started = time.perf_counter()
    hs = headscope.open(options.model)
    open_s = time.perf_counter() - started
    try:
        launcher = hs.pid
        java = java_pid(launcher)
        t = time.perf_counter()
        first = hs.attention(SENTENCE)
        first_s = time.perf_counter() - t
        tokens = len(first.tokens)
        times = []
        for _ in range(options.calls):
            t = time.perf_counter()
            hs.attention(SENTENCE)
            times.append(time.perf_counter() - t)
        median_ms = statistics.median(times) * 1000
        predict_times = []
        for _ in range(10):
            t = time.perf_counter()
            hs.predict(SENTENCE.replace("fox", "[MASK]"), disable=["8-10", "L11"])
            predict_times.append(time.perf_counter() - t)
        rss_before = rss_mb(java)
        for i in range(options.soak):
            hs.attention(SENTENCE if i % 2 else SENTENCE.upper())
        rss_after = rss_mb(java)
    finally:
        hs.close()

    figures = {
        "model": options.model,
        "open_to_ready_s": round(open_s, 3),
        "first_attention_s": round(first_s, 3),
        "tokens": tokens,
        "median_attention_ms": round(median_ms, 1),
        "min_attention_ms": round(min(times) * 1000, 1),
        "max_attention_ms": round(max(times) * 1000, 1),
        "median_predict_disable_ms": round(statistics.median(predict_times) * 1000, 1),
        "rss_before_mb": round(rss_before, 1),
        "rss_after_mb": round(rss_after, 1),
        "rss_growth_mb": round(rss_after - rss_before, 1),
        "soak_calls": options.soak,
    }
    print("open to ready:            %.2f s" % open_s)
    print("first attention:          %.3f s   (goal < 3 s)%s" % (first_s, "" if first_s < 3 else "  MISSED"))
    print("median attention (%d tok): %.1f ms  over %d calls (min %.1f, max %.1f; goal < 200 ms)%s" % (
        tokens, median_ms, options.calls, min(times) * 1000, max(times) * 1000,
        "" if median_ms < 200 else "  MISSED"))
    print("median predict, 13 heads off: %.1f ms" % figures["median_predict_disable_ms"])
    print("server RSS (java pid %d, launcher pid %d): %.1f MB before, %.1f MB after %d calls (%+.1f MB)" % (
        java, launcher, rss_before, rss_after, options.soak, rss_after - rss_before))
    if options.json:
        with open(options.json, "w") as f:
            json.dump(figures, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
