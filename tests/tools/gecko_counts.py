#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The oracle of the raw Gecko reader: from a raw Gecko profile (or the DevTools export that
holds one under "profile"), each frame name's exclusive and inclusive weight as the Firefox
Profiler's call tree counts them: every sample weighs the profile's interval (ms), a name
counts once per sample however often it recurs. Prints [[name, exc, inc], ...] sorted, as JSON.
Walks the tables directly (schema lookups), sharing no code with stackview."""
import gzip
import json
import sys


def rows(table):
    schema = table["schema"]
    return schema, table["data"]


def col(row, schema, name):
    k = schema[name]
    return row[k] if k < len(row) else None


def main(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    prof = doc["profile"] if "threads" not in doc and isinstance(doc.get("profile"), dict) else doc
    interval = prof["meta"]["interval"]
    exc, inc = {}, {}
    for th in prof["threads"]:
        strings = th["stringTable"]
        ss, sdata = rows(th["stackTable"])
        fs, fdata = rows(th["frameTable"])
        ms, mdata = rows(th["samples"])
        for sample in mdata:
            stack = col(sample, ms, "stack")
            names = []
            while stack is not None:
                srow = sdata[stack]
                names.append(strings[col(fdata[col(srow, ss, "frame")], fs, "location")])
                stack = col(srow, ss, "prefix")
            if not names:
                continue
            exc[names[0]] = exc.get(names[0], 0) + interval
            for n in set(names):
                inc[n] = inc.get(n, 0) + interval
    out = sorted([n, exc.get(n, 0), inc[n]] for n in inc)
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
