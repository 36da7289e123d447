#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Makes the malformed perf.data inputs of tests/badinput/ (spec/perf.md §5): a small valid
# file-mode recording built here (one cpu-clock event, a COMM, user-mode samples with
# callchains) and variants of it. The zstd bomb is made with the zstd command. Run once in
# tests/badinput/; the outputs are committed.
import struct
import subprocess

IP, TID, TIME, CALLCHAIN, PERIOD = 1, 2, 4, 32, 256
ST = IP | TID | TIME | CALLCHAIN | PERIOD
CTX_USER = (1 << 64) - 512


def rec(rtype, payload, misc=0):
    return struct.pack("<IHH", rtype, misc, 8 + len(payload)) + payload


def trailer(pid, t):
    return struct.pack("<IIQ", pid, pid, t)


def comm(pid, name, t):
    s = name.encode() + b"\0"
    s += b"\0" * (-len(s) % 8)
    return rec(3, struct.pack("<II", pid, pid) + s + trailer(pid, t))


def sample(pid, t, chain, period=1000000):
    p = struct.pack("<QIIQQ", chain[-1] if chain else 0x401000, pid, pid, t, period)
    p += struct.pack("<Q", len(chain)) + b"".join(struct.pack("<Q", c) for c in chain)
    return rec(9, p, misc=2)


def perf_file(records, attr_overrides=None, nattrs=1):
    attr = bytearray(128)
    struct.pack_into("<IIQQQQQ", attr, 0, 1, 128, 0, 1000000, ST, 0, (1 << 18) | (1 << 8) | (1 << 9))
    for off, fmt, val in attr_overrides or []:
        struct.pack_into(fmt, attr, off, val)
    ids_off, attrs_off = 104, 112
    data_off = attrs_off + 144 * nattrs
    data = b"".join(records)
    hdr = struct.pack("<8sQQQQQQQQ", b"PERFILE2", 104, 144, attrs_off, 144 * nattrs, data_off, len(data), 0, 0)
    hdr += b"\0" * 32
    entry = bytes(attr) + struct.pack("<QQ", ids_off, 8)
    return hdr + struct.pack("<Q", 7) + entry * nattrs + data


def good_records():
    r = [comm(10, "app", 1000)]
    for i in range(4):
        r.append(sample(10, 2000 + i, [CTX_USER, 0x401000 + i, 0x402000]))
    return r


def write(name, data):
    open(name, "wb").write(data)


good = perf_file(good_records())
write("perf-truncated-header.data", good[:60])
write("perf-wrong-magic.data", b"PERFILE3" + good[8:])
write("perf-big-endian.data", b"2ELIFREP" + good[8:])
write("perf-attrs-overrun.data", good[:24] + struct.pack("<Q", 1 << 40) + good[32:])
write("perf-no-attrs.data", good[:32] + struct.pack("<Q", 0) + good[40:])
# a record whose size is smaller than its own header
write("perf-record-size.data", good[:256 + 6] + struct.pack("<H", 4) + good[256 + 8:])
# the last record runs past the data section: earlier samples are kept
write("perf-record-overrun.data", good[:-8])
# a callchain that claims more entries than its record holds
bad = good_records()
bad[2] = bad[2][:8 + 32] + struct.pack("<Q", 1 << 40) + bad[2][8 + 40:]
write("perf-callchain-overrun.data", perf_file(bad))
# records of a type perf does not know are skipped by their size
write("perf-unknown-record.data", perf_file(good_records()[:2] + [rec(50, b"\0" * 24), rec(200, b"\1" * 8)] + good_records()[2:]))
# a compressed record holding garbage, and one inflating past 1000 times the file
write("perf-zstd-corrupt.data", perf_file(good_records() + [rec(81, b"\x28\xb5\x2f\xfd" + b"\xff" * 60)]))
zeros = subprocess.run(["zstd", "-19", "-c"], input=b"\0" * (64 << 20), capture_output=True, check=True).stdout
chunks = [zeros[i:i + 60000] for i in range(0, len(zeros), 60000)]
write("perf-zstd-bomb.data", perf_file(good_records() + [rec(81, c) for c in chunks]))
# pipe mode cut inside its first attribute record
write("perf-pipe-truncated.data", b"PERFILE2" + struct.pack("<Q", 16) + struct.pack("<IHH", 64, 0, 152) + b"\0" * 40)
