#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Rewrite a legacy V8 .cpuprofile ("head" node tree, "timestamps" in us, "startTime" and
"endTime" in s) in the current format ("nodes" with "callFrame" and child ids, "timeDeltas"),
as DevTools reads the legacy one: LINE and COLUMN 1-based become 0-based, time counts from the
first sample, and the last sample lasts the mean interval (the legacy end is whole seconds).
The oracle of the legacy reader: stackview must read both files alike. Usage: IN OUT."""
import gzip
import json
import sys


def main(src, dst):
    opener = gzip.open if src.endswith(".gz") else open
    with opener(src, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    nodes, todo = [], [doc["head"]]
    while todo:
        n = todo.pop()
        frame = {"functionName": n.get("functionName", ""), "scriptId": str(n.get("scriptId", 0)),
                 "url": n.get("url", "")}
        for k in ("lineNumber", "columnNumber"):
            v = n.get(k, 0)
            frame[k] = v - 1 if v > 0 else -1
        kids = n.get("children", [])
        nodes.append({"id": n["id"], "callFrame": frame, "children": [k["id"] for k in kids]})
        todo.extend(reversed(kids))
    ts = doc["timestamps"]
    lo, hi = min(ts), max(ts)
    deltas = [ts[0] - lo] + [b - a for a, b in zip(ts, ts[1:])]
    out = {"nodes": nodes, "startTime": lo, "endTime": hi + (hi - lo) / (len(ts) - 1),
           "samples": doc["samples"], "timeDeltas": deltas}
    with open(dst, "w", encoding="utf-8") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
