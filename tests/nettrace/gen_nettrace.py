#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes .nettrace files (EventPipe, format version 4/5: 'Nettrace' + FastSerialization
objects) of a known schedule, from the format's published description, for the reader's
tests: no .NET runtime records here.

  gen_nettrace.py OUT [MODE]

MODE: (none) the reference trace; 'uncompressed' the same events with uncompressed event
headers; 'nosamples' no sample profiler events; 'v6' a version 6 header; 'netperf' an old
NetPerf header; 'truncated' the reference cut inside an event block; 'badstack' an event naming a stack
no block defined; 'norundown' no rundown events (a collection killed before the runtime's rundown).

The reference trace: process 4242 ('dotnet /app/bin/app.dll --serve'), 10 MHz ticks, sync
time at tick 1,000,000. Thread 101 is sampled every ms from 10 ms: managed Work, Work,
external Sleep, Sleep, managed Work, Main; thread 102 external Wait at 10.5, 11.5, 12.5 ms.
Methods come from MethodLoadVerbose (app) and rundown MethodDCEndVerbose (CoreLib); one
event source event with a stack; sequence numbers of capture thread 7 skip two events."""
import struct
import sys

FREQ = 10_000_000
SYNC = 1_000_000
PID = 4242


def ms(t):
    return SYNC + int(round(t * FREQ / 1000))


def utf16z(s):
    return s.encode("utf-16-le") + b"\0\0"


def varuint(v):
    assert v >= 0
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


class Out:
    def __init__(self):
        self.b = bytearray()

    def obj_type(self, name, version):
        self.b += bytes([5, 1]) + struct.pack("<ii", version, version) + struct.pack("<i", len(name)) + name.encode() + bytes([6])

    def block(self, name, payload, version=2):
        """payload: bytes, or a function of the file offset where the payload starts."""
        self.b += bytes([5])
        self.obj_type(name, version)
        pos = len(self.b) + 4
        pos += -pos % 4
        if callable(payload):
            payload = payload(pos)
        self.b += struct.pack("<i", len(payload))
        while len(self.b) % 4:
            self.b += b"\0"
        self.b += payload
        self.b += bytes([6])


def blob_compressed(state, meta, seq_delta, capture, proc, tid, stack, ts, payload, sorted_=False):
    flags = 0
    h = bytearray()
    if meta != state["meta"]:
        flags |= 1
        h += varuint(meta)
    if seq_delta is not None:
        flags |= 2
        h += varuint(seq_delta & 0xFFFFFFFF) + varuint(capture) + varuint(proc)
        state["seq"] += seq_delta
        state["capture"] = capture
    if meta != 0:
        state["seq"] += 1
    if tid != state["tid"]:
        flags |= 4
        h += varuint(tid)
    if stack != state["stack"]:
        flags |= 8
        h += varuint(stack)
    h += varuint((ts - state["ts"]) & 0xFFFFFFFFFFFFFFFF)  # unsigned: wraps when time goes back
    if sorted_:
        flags |= 64
    if len(payload) != state["size"]:
        flags |= 128
        h += varuint(len(payload))
    state.update(meta=meta, tid=tid, stack=stack, ts=ts, size=len(payload))
    return bytes([flags]) + bytes(h) + payload


def event_block(events, compressed=True, file_pos=0):
    """events: (meta, seq, capture, proc, tid, stack, ts, payload). file_pos: where the block's
    payload starts in the file (uncompressed events align to 4 bytes of the file)."""
    ts_all = [e[6] for e in events] or [0]
    header = struct.pack("<hhqq", 20, 1 if compressed else 0, min(ts_all), max(ts_all))
    body = bytearray(header)
    state = dict(meta=0, seq=0, capture=0, tid=0, stack=0, ts=0, size=0)
    for meta, seq, capture, proc, tid, stack, ts, payload in events:
        if compressed:
            delta = None
            if capture != state["capture"] or seq != state["seq"] + (1 if meta else 0):
                delta = seq - state["seq"] - (1 if meta else 0)
            body += blob_compressed(state, meta, delta, capture, proc, tid, stack, ts, payload)
        else:
            rest = struct.pack("<iiqqiiq", meta, seq, tid, capture, proc, stack, ts) + b"\0" * 32 + \
                struct.pack("<i", len(payload)) + payload
            body += struct.pack("<i", len(rest)) + rest
            while (file_pos + len(body)) % 4:
                body += b"\0"
    return bytes(body)


def metadata(meta_id, provider, event_id, name, version=0, fields=(), opcode=None, nested=None):
    def field_list(fields):
        p = struct.pack("<i", len(fields))
        for code, fname in fields:
            p += struct.pack("<i", code)
            if code == 1:  # an object: its own field list before the name
                p += field_list(nested[fname])
            p += utf16z(fname)
        return p
    p = struct.pack("<i", meta_id) + utf16z(provider) + struct.pack("<i", event_id) + utf16z(name) + \
        struct.pack("<qii", 0, version, 4) + field_list(fields)
    if opcode is not None:
        p += struct.pack("<ib", 1, 1) + bytes([opcode])
    return p


def v2_fields(fields):
    """Format 5's V2Params description: per field i32 Size (with itself), UTF-16 name, i32
    TypeCode, an array's i32 element TypeCode, an object's (or array of objects') own list."""
    p = struct.pack("<i", len(fields))
    for f in fields:
        name, code = f[0], f[1]
        body = utf16z(name) + struct.pack("<i", code)
        if code == 19:
            body += struct.pack("<i", f[2])
        if code == 1 or (code == 19 and f[2] == 1):
            body += v2_fields(f[3])
        p += struct.pack("<i", 4 + len(body)) + body
    return p


def metadata_v2(meta_id, provider, event_id, name, fields):
    """A metadata record whose V1 list is empty and whose fields are in a V2Params tag (2)."""
    tag = v2_fields(fields)
    return struct.pack("<i", meta_id) + utf16z(provider) + struct.pack("<i", event_id) + utf16z(name) + \
        struct.pack("<qii", 0, 0, 4) + struct.pack("<i", 0) + struct.pack("<ib", len(tag), 2) + tag


def method(mid, module, start, size, ns, name, sig):
    return struct.pack("<QQQIII", mid, module, start, size, 0x06000001, 8) + utf16z(ns) + utf16z(name) + \
        utf16z(sig) + struct.pack("<HQ", 0, 0)


def module(mid, path):
    return struct.pack("<QQII", mid, 0x9000, 0, 0) + utf16z(path) + utf16z("") + struct.pack("<H", 0)


def stacks(first, lists):
    p = struct.pack("<ii", first, len(lists))
    for ips in lists:
        p += struct.pack("<i", 8 * len(ips)) + b"".join(struct.pack("<Q", ip) for ip in ips)
    return p


# addresses: app's Main, Work, Handle; CoreLib's Sleep, Wait
MAIN, WORK, HANDLE = 0x7F0000001010, 0x7F0000002020, 0x7F0000003000
SLEEP, WAIT = 0x7F0000100010, 0x7F0000100110
UNKNOWN = 0x7F00DEAD0000


def build(mode):
    o = Out()
    if mode == "netperf":
        o.b += struct.pack("<i", 20) + b"!FastSerialization.1"
        return bytes(o.b)
    o.b += b"Nettrace"
    if mode == "v6":
        o.b += struct.pack("<III", 0, 6, 0)
        return bytes(o.b)
    o.b += struct.pack("<i", 20) + b"!FastSerialization.1"
    o.b += bytes([5])
    o.obj_type("Trace", 4)
    o.b += struct.pack("<8h", 2026, 11, 4, 26, 10, 0, 0, 0) + struct.pack("<qqiiii", SYNC, FREQ, 8, PID, 2, 1000000)  # the sample interval in ns, as the runtime writes it
    o.b += bytes([6])

    metas = [metadata(1, "Microsoft-DotNETCore-SampleProfiler", 0, "", fields=((9, "Type"),)),
             metadata(2, "Microsoft-DotNETCore-EventPipe", 1, "ProcessInfo", fields=((18, "CommandLine"),)),
             metadata(3, "Microsoft-Windows-DotNETRuntime", 143, "", version=2),
             metadata(4, "Microsoft-Windows-DotNETRuntime", 152, "", version=2),
             metadata(5, "Microsoft-Windows-DotNETRuntimeRundown", 144, "", version=2),
             metadata(6, "Microsoft-Windows-DotNETRuntimeRundown", 154, "", version=2),
             metadata(7, "Contoso-App", 1, "RequestStart", opcode=1),
             # an EventSource event with its own opcode (TraceEvent: TestEvent3/24) and fields,
             # one of them an object; one named ...Stop with no opcode (TraceEvent: Flush/Stop)
             metadata(8, "Contoso-App", 2, "TestEvent3", fields=((9, "Id"), (1, "Where"), (18, "Text")), opcode=24,
                      nested={"Where": ((9, "X"), (9, "Y"))}),
             metadata(9, "Contoso-App", 3, "FlushStop")]
    if mode == "alloc":  # the runtime's AllocationTick (version 4, no field descriptions)
        metas.append(metadata(11, "Microsoft-Windows-DotNETRuntime", 10, "", version=4))
    if mode == "v2params":  # arrays (of numbers, strings, objects) and the other scalar types
        metas.append(metadata_v2(10, "Contoso-App", 4, "Batch", (
            ("Items", 19, 9), ("Names", 19, 18), ("Points", 19, 1, (("X", 9), ("Y", 9))), ("Flag", 3), ("Key", 17),
            ("Ratio", 14), ("When", 16), ("Small", 5), ("Big", 12))))
    o.block("MetadataBlock", event_block([(0, 0, 0, 0, 0, 0, ms(0), m) for m in metas]))
    # stacks 1..6, leaf first
    o.block("StackBlock", stacks(1, [[WORK, MAIN], [SLEEP, WORK, MAIN], [MAIN], [WAIT, HANDLE], [HANDLE, UNKNOWN],
                                     [WORK + 8, MAIN]]))
    compressed = mode != "uncompressed"
    ev = []
    seq = {7: 0, 8: 0}

    def add(meta, capture, tid, stack, t, payload, skip=0):
        ev.append([meta, skip, capture, 0, tid, stack, ms(t), payload])

    add(2, 8, 101, 0, 0.5, utf16z("dotnet /app/bin/app.dll --serve") + utf16z("Linux") + utf16z("X64"))
    add(4, 8, 101, 0, 1.0, module(0x1000, "/app/bin/app.dll"))
    add(3, 8, 101, 0, 2.0, method(1, 0x1000, 0x7F0000001000, 0x100, "Contoso.Program", "Main", "void  (class System.String[])"))
    add(3, 8, 101, 0, 2.1, method(2, 0x1000, 0x7F0000002000, 0x100, "Contoso.Program", "Work", "int32  (int32,float64)"))
    add(3, 8, 102, 0, 2.2, method(3, 0x1000, 0x7F0000003000, 0x100, "Contoso.Server", "Handle", "void  ()"))
    if mode != "nosamples":
        kinds = ((10, 2, 1), (11, 2, 1), (12, 1, 2), (13, 1, 2), (14, 2, 6), (15, 2, 3))
        for i, (t, typ, stack) in enumerate(kinds):
            add(1, 7, 101, stack, t, struct.pack("<I", typ), skip=2 if i == 3 else 0)  # 2 dropped before 13 ms
        for t in (10.5, 11.5, 12.5):
            add(1, 7, 102, 4, t, struct.pack("<I", 1))
    add(7, 8, 102, 99 if mode == "badstack" else 5, 11.7, b"")
    add(7, 8, 102, 5, 11.9, b"")
    add(8, 8, 102, 0, 11.95, struct.pack("<iii", 1, 2, 3) + utf16z("x"))
    add(9, 8, 102, 0, 11.96, b"")
    if mode == "alloc":
        def tick(amount, kind, typename):
            return struct.pack("<IIHQQ", amount & 0xFFFFFFFF, kind, 0, amount, 0x7FFB0000 + len(typename)) + \
                utf16z(typename) + struct.pack("<IQQ", 0, 0x1B0F0000, 32)
        add(11, 8, 101, 1, 12.0, tick(102400, 0, "System.String"))
        add(11, 8, 101, 2, 12.5, tick(110000, 0, "System.Byte[]"))
        add(11, 8, 102, 5, 13.0, tick(5000000000, 1, "System.Byte[]"))  # past 32 bits: AllocationAmount64
        add(11, 8, 101, 1, 13.5, tick(99000, 0, "System.String"))
    if mode == "v2params":
        seq[8] = seq.get(8, 0)
        add(10, 8, 102, 0, 11.97, struct.pack("<Hiii", 3, 7, -8, 9) + struct.pack("<H", 2) + utf16z("a") + utf16z("b") +
            struct.pack("<Hiiii", 2, 1, 2, 3, 4) + struct.pack("<I", 1) + bytes(range(16)) + struct.pack("<d", 0.25) +
            struct.pack("<Q", 638679456000000000) + struct.pack("<b", -5) + struct.pack("<Q", 2**64 - 1))
    # a capture thread writes its events in time order, numbered 1, 2, ... (skip: events the
    # runtime dropped before this one); the capture threads' runs are not merged by time
    ev.sort(key=lambda e: (e[2], e[6]))
    for e in ev:
        seq[e[2]] += 1 + e[1]
        e[1] = seq[e[2]]
    ev = [tuple(e) for e in ev]
    o.block("EventBlock", lambda pos: event_block(ev, compressed, pos))
    o.block("SPBlock", struct.pack("<qi", ms(20), 2) + struct.pack("<qi", 7, seq[7]) + struct.pack("<qi", 8, seq[8]))
    # rundown at the end: CoreLib and its methods
    rd = [(6, seq[8] + 1, 8, 0, 101, 0, ms(30), module(0x2000, "/usr/share/dotnet/shared/Microsoft.NETCore.App/8.0.0/"
                                                          "System.Private.CoreLib.dll")),
          (5, seq[8] + 2, 8, 0, 101, 0, ms(30.1), method(9, 0x2000, 0x7F0000100000, 0x100, "System.Threading.Thread",
                                                          "Sleep", "void  (int32)")),
          (5, seq[8] + 3, 8, 0, 101, 0, ms(30.2), method(10, 0x2000, 0x7F0000100100, 0x100,
                                                          "System.Threading.WaitHandle", "WaitOne", "bool  ()"))]
    if mode != "norundown":
        o.block("EventBlock", lambda pos: event_block(rd, compressed, pos))
    o.b += bytes([1])
    out = bytes(o.b)
    if mode == "truncated":
        out = out[:len(out) * 3 // 4]
    return out


def main():
    mode = sys.argv[2] if len(sys.argv) > 2 else ""
    with open(sys.argv[1], "wb") as f:
        f.write(build(mode))


main()
