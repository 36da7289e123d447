#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes an ETL file of a known schedule, for the thread-time tests (no public trace has
# context switches): the Windows kernel's own record layouts (spec/etl.md §3-§5, §11) — a
# logfile header, one buffer per CPU, Process/Thread/Image rundown, PerfInfo samples, CSwitch
# and ReadyThread with PERFINFO headers, and StackWalk events whose EventTimeStamp and
# StackThread tie each stack to its event (a CSwitch's stack is the new thread's: where it
# had been waiting). cases.sh states what every thread did and checks stackview says so.
#
# The schedule (ms; process 100 app.exe, threads 101..104; 0 is the idle thread):
#   CPU 0: 101 in at 1; samples at 2, 3 (work); 102 readied by 101 at 3.5; 101 out at 4
#          waiting (WrUserRequest) -> 102 in (had waited in wait.dll); 101 readied by 102 at 6
#          (from unlock.dll); 102 preempted (Ready, WrPreempted) at 7 -> 101 in (had waited in
#          lock.dll); sample of 101 at 8; 101 terminates at 9 -> 102 in; 102 waits
#          (DelayExecution) at 12 -> idle; 102 in at 15 (no ReadyThread); 102 waits
#          (Executive) at 16 -> idle, to the end.
#   CPU 1: 103 in at 1.5; sample at 2.5; out waiting (WrQueue) at 5 -> idle; readied at 5.5
#          by a DPC (no thread); in at 6.5 (queue.dll); 104 readied by 103 at 9; 103
#          preempted (Standby) at 10 -> 104 in; 104 waits (UserRequest) at 11 -> 103 in;
#          103 terminates at 13 -> idle.
#   The trace ends at 20 ms; the header says 3 events were lost when LOST=1 is set.
# With "symbols": also process 200 crash.exe (thread 201) with KernelTraceControl's
# DbgID_RSDS identities: crash.exe at 0x400000 built with crash.pdb (tests/data/pdb's GUID
# and age), other.exe at 0x500000 claiming a crash.pdb of another GUID; CPU samples of 201 at
# 14, 15 and 16 ms at crash.exe RVAs 0x1005 < 0x1c50 < ntdll, 0x3727 (a public), and in
# other.exe at 0x1005; lib.dll at 0x600000 has no PDB identity but an ImageID event
# (TimeDateStamp 0x5AB38077, SizeOfImage 0x3000, pid 0 as real traces log it: the DLL
# tests/pdb/gen_pe.py writes), sampled at 17 ms at RVA 0x1105.
# With "names": events of providers our tables do not know, named by what the trace carries
# (cases in tests/readers): Contoso-Disk's event 7 (2 of them) by a KernelTraceControl
# MetaData/EventInfo TRACE_EVENT_INFO (Flush, win:Start), Contoso.Work's event 3 (3) by the
# EventSource manifest it logged as event 65534 (task Work, win:Stop), Contoso.Big's event 1
# (1) by a manifest in two chunks, TraceLogging events Hello (1) and World (2) of provider
# tl_provider by their extended data items, and Contoso.Bad's event 5 (1) whose manifest is
# not XML (left unnamed, a warning); Fabrikam.Fields' event 2 (2), whose fields its manifest's
# template describes (a value map, a bit map, a hex out-type, a binary sized by another field,
# an array counted by one).
# With "io": thread 101's file and memory events (cases in tests/readers): FileIO Name of file
# key 0xF00D (\\Device\\HarddiskVolume9\\data\\log.txt), FileIO Write of 4096 and 100 bytes and
# a Read of 512 bytes to it (FileObject 0x1111, FileKey 0xF00D), VirtualAlloc commits of 65536
# bytes in process 100 and a reserve of 1 MiB (not counted), and a VirtualFree decommitting
# 16384 bytes; a DiskIO ReadInit of Irp 0xBEEF on thread 101 with a stack in queue.dll, and its
# Read of 8192 bytes (version 3, IssuingThreadId 101) completed on thread 0 without a stack.
# usage: gen_etl.py OUT.etl [lost | cpu-only | symbols | symbols-dotdot | names | io]
import struct
import sys

FREQ = 10_000_000          # QPC ticks per second: 1 tick = 100 ns
T0 = 1_000_000_000         # the header's timestamp
BUF = 16 * 1024


def ts(ms):
    return T0 + round(ms * FREQ / 1000)


def pad8(b):
    return b + b"\0" * (-len(b) % 8)


def system64(group, op, tid, pid, t, payload, version=2):
    """SYSTEM_HEADER (64-bit): version, type 0x02, flags 0xC0, size, opcode, group, tid, pid, ts, times."""
    size = 32 + len(payload)
    return pad8(struct.pack("<HBBHBBIIQII", version, 0x02, 0xC0, size, op, group, tid, pid, t, 0, 0) + payload)


def perfinfo64(group, op, t, payload, version=2):
    """PERFINFO_TRACE_HEADER (64-bit): version, type 0x11, flags 0xC0, size, opcode, group, ts."""
    size = 16 + len(payload)
    return pad8(struct.pack("<HBBHBBQ", version, 0x11, 0xC0, size, op, group, t) + payload)


def utf16z(s):
    return s.encode("utf-16-le") + b"\0\0"


IMAGES = {"ntdll.dll": 0x7FF800000000, "app.exe": 0x140000000, "work.dll": 0x180000000, "wait.dll": 0x181000000,
          "lock.dll": 0x182000000, "unlock.dll": 0x183000000, "queue.dll": 0x184000000, "sleep.dll": 0x185000000}


def frames(*mods):
    """A user stack leaf first: one address in each module, then app.exe and ntdll.dll."""
    return [IMAGES[m + ".dll"] + 0x100 for m in mods] + [IMAGES["app.exe"] + 0x200, IMAGES["ntdll.dll"] + 0x300]


def stackwalk(t, tid, addrs):
    payload = struct.pack("<QII", t, 100, tid) + b"".join(struct.pack("<Q", a) for a in addrs)
    return system64(0x18, 32, tid, 100, t, payload)


def sample(t, tid, addrs):
    payload = struct.pack("<QIHH", addrs[0], tid, 1, 0)
    return [perfinfo64(0x0F, 46, t, payload), stackwalk(t, tid, addrs)]


# KTHREAD_STATE and KWAIT_REASON values
READY, STANDBY, TERMINATED, WAITING = 1, 3, 4, 5
EXECUTIVE, DELAY, USERREQ, WRUSERREQ, WRQUEUE, WRPREEMPTED = 0, 4, 6, 13, 15, 32


def cswitch(t, new, old, state=WAITING, reason=EXECUTIVE, addrs=None):
    payload = struct.pack("<IIbbBbBbBBII", new, old, 8, 8, 0, 0, reason, 1, state, 0, 0, 0)
    recs = [perfinfo64(0x05, 36, t, payload, version=4)]
    if addrs and new:
        recs.append(stackwalk(t, new, addrs))
    return recs


def ready(t, awakened, readier=None, addrs=None):
    recs = [perfinfo64(0x05, 50, t, struct.pack("<IBbBB", awakened, 0, 0, 0, 0))]
    if addrs:
        recs.append(stackwalk(t, readier, addrs))
    return recs


def header(ncpus, lost):
    p = bytearray(0x118)
    struct.pack_into("<I", p, 0, BUF)
    p[4], p[5] = 10, 0                    # Windows 10.0
    struct.pack_into("<I", p, 8, 19041)   # build
    struct.pack_into("<I", p, 0x0C, ncpus)
    struct.pack_into("<Q", p, 0x10, ts(20))
    struct.pack_into("<I", p, 0x2C, 8)    # pointer size
    struct.pack_into("<I", p, 0x30, lost) # EventsLost
    struct.pack_into("<I", p, 0x34, 3000) # MHz
    struct.pack_into("<Q", p, 0x100, FREQ)
    struct.pack_into("<I", p, 0x110, 1)   # clock: QPC
    return system64(0x00, 0x00, 0, 0, T0, bytes(p))


IMAGEID = bytes([0xd7, 0x75, 0xe6, 0xb3, 0x54, 0x25, 0x18, 0x4f, 0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde])
CRASH_GUID = struct.pack("<IHH", 0x3249D99D, 0x0C40, 0x4931) + bytes([0x86, 0x10, 0xF4, 0xE4, 0xFB, 0x0B, 0x69, 0x36])


def classic64(guid, op, tid, pid, t, payload, version=2):
    """A classic (MOF) event with a full 64-bit header: size, type 0x14, flags, opcode, level,
    version, tid, pid, ts, provider GUID, times."""
    size = 48 + len(payload)
    return pad8(struct.pack("<HBBBBHIIQ", size, 0x14, 0xC0, op, 0, version, tid, pid, t) + guid + b"\0" * 8 + payload)


METADATA = struct.pack("<IHH", 0xbbccf6c1, 0x6cd1, 0x48c4) + bytes([0x80, 0xff, 0x83, 0x94, 0x82, 0xe3, 0x76, 0x71])


def guid(n):
    return struct.pack("<IHH", 0xC0C0C000 + n, 0x1234, 0x5678) + bytes([0x9a, 0xbc, 0xde, 0xf0, 0, 0, 0, n])


def event64(prov, eid, t, payload, ext=b"", tid=101, pid=100):
    """EVENT_HEADER (64-bit, type 0x13) of provider prov, descriptor id eid; ext: extended
    data items (the EXTENDED_INFO flag set when given)."""
    size = 80 + len(ext) + len(payload)
    return pad8(struct.pack("<HBBHHIIQ", size, 0x13, 0xC0, 1 if ext else 0, 0, tid, pid, t) + prov +
                struct.pack("<HBBBBHQQ", eid, 0, 0, 4, 0, 0, 0, 0) + bytes(16) + ext + payload)


def ext_item(kind, data, more):
    item = struct.pack("<HHHH", 8 + len(pad8(data)), kind, 1 if more else 0, len(data)) + data
    return pad8(item)


def event_info(prov, eid, provider, task, opcode):
    """A TRACE_EVENT_INFO: provider GUID, event GUID, descriptor, DecodingSource, then offsets
    of the provider (52), task (68) and opcode (72) names; the strings after the 112-byte head."""
    strings, offs = b"", []
    for text in (provider, task, opcode):
        offs.append(112 + len(strings))
        strings += utf16z(text)
    head = prov + bytes(16) + struct.pack("<HBBBBHQ", eid, 0, 0, 4, 1, 1, 0) + struct.pack("<I", 0)
    names = [offs[0], 0, 0, 0, offs[1], offs[2], 0, 0, 0, 0, 0, 0]
    head += struct.pack("<12I", *names) + struct.pack("<3I", 0, 0, 0)
    assert len(head) == 112
    return classic64(METADATA, 32, 0, 100, ts(0.2), head + strings)


def event_info_fields(prov, eid, provider, task, props):
    """A TRACE_EVENT_INFO with properties: (name, InType, OutType, map name or None, flags,
    length) each; the strings after the head and the 24-byte EVENT_PROPERTY_INFOs."""
    base = 112 + 24 * len(props)
    strings, offs = b"", {}
    for text in [provider, task] + [p[0] for p in props] + [p[3] for p in props if p[3]]:
        if text not in offs:
            offs[text] = base + len(strings)
            strings += utf16z(text)
    head = prov + bytes(16) + struct.pack("<HBBBBHQ", eid, 0, 0, 4, 0, 1, 0) + struct.pack("<I", 0)
    names = [offs[provider], 0, 0, 0, offs[task], 0, 0, 0, 0, 0, 0, 0]
    head += struct.pack("<12I", *names) + struct.pack("<3I", len(props), len(props), 0)
    assert len(head) == 112
    arr = b"".join(struct.pack("<IIHHIHHI", fl, offs[nm], it, ot, offs[mp] if mp else 0, 2 if fl & 0x20 else 1, ln, 0)
                   for nm, it, ot, mp, fl, ln in props)
    return classic64(METADATA, 32, 0, 100, ts(0.2), head + arr + strings)


def event_map_info(prov, name, bits, entries):
    """KernelTraceControl's EventMapInfo: the provider, then an EVENT_MAP_INFO (offsets from
    its start) with (value, text) entries."""
    base = 16 + 8 * len(entries)
    strings, offs = b"", []
    for text in [name] + [t for _, t in entries]:
        offs.append(base + len(strings))
        strings += utf16z(text)
    info = struct.pack("<IIII", offs[0], 2 if bits else 1, len(entries), 0)
    info += b"".join(struct.pack("<II", offs[i + 1], v) for i, (v, _) in enumerate(entries))
    return classic64(METADATA, 33, 0, 100, ts(0.2), prov + info + strings)


def manifest(prov, name, events, chunks=1):
    xml = ('<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"><instrumentation>'
           '<events><provider name="%s" guid="{x}"><tasks/><events>%s</events></provider></events>'
           '</instrumentation></instrumentationManifest>' % (name, "".join(
               '<event value="%d" version="0" level="win:Informational" task="%s"%s/>' %
               (v, task, ' opcode="%s"' % op if op else "") for v, task, op in events))).encode()
    step = -(-len(xml) // chunks)
    return [event64(prov, 65534, ts(0.3), struct.pack("<BBBBHH", 1, 1, 0, 0x5B, chunks, i) + xml[i * step:(i + 1) * step])
            for i in range(chunks)]


FIELDS_XML = (
    '<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"><instrumentation>'
    '<events><provider name="Fabrikam.Fields" guid="{x}"><tasks><task name="Report" value="1"/></tasks>'
    '<maps><valueMap name="LevelMap"><map value="4" message="$(string.level_info)"/>'
    '<map value="5" message="$(string.level_verbose)"/></valueMap>'
    '<bitMap name="FlagMap"><map value="0x6" message="$(string.flag_both)"/><map value="0x4" message="$(string.flag_b)"/>'
    '<map value="0x2" message="$(string.flag_a)"/><map value="0x10" message="$(string.flag_c)"/></bitMap></maps>'
    '<events><event value="2" version="0" level="win:Informational" task="Report" template="ReportArgs"/></events>'
    '<templates><template tid="ReportArgs"><data name="who" inType="win:UnicodeString"/>'
    '<data name="count" inType="win:Int32"/><data name="level" inType="win:UInt32" map="LevelMap"/>'
    '<data name="flags" inType="win:UInt64" map="FlagMap"/><data name="mask" inType="win:UInt64" outType="win:HexInt64"/>'
    '<data name="id" inType="win:GUID"/><data name="ok" inType="win:Boolean"/>'
    '<data name="blob_Length" inType="win:UInt32"/><data name="blob" inType="win:Binary" length="blob_Length"/>'
    '<data name="after" inType="win:Int32"/><data name="items" inType="win:Int32" count="count"/>'
    '<data name="tail" inType="win:Int32"/></template></templates>'
    '</provider></events></instrumentation><localization><resources culture="en-US"><stringTable>'
    '<string id="level_info" value="Informational"/><string id="level_verbose" value="Verbose"/>'
    '<string id="flag_a" value="A"/><string id="flag_b" value="B"/><string id="flag_both" value="AB"/>'
    '<string id="flag_c" value="C"/></stringTable></resources></localization></instrumentationManifest>').encode()


def tdh_events():
    """Contoso-Net: a manifest provider that logs no manifest; the merge's EventInfo (its
    properties: a pointer in hex, a mapped status, a path, an address sized by the field before
    it shown as a socket address, an array where decoding stops) and EventMapInfo (the status
    map, its names ending in a space as TDH's do) describe its event 9."""
    props = [("Irp", 16, 19, None, 0, 8), ("Status", 8, 8, "StatusMap", 0, 4), ("Path", 1, 1, None, 0, 0),
             ("AddressLength", 8, 8, None, 0, 4), ("Address", 14, 25, None, 0x2, 3), ("Ports", 6, 6, None, 0x20, 2)]
    r = [event_info_fields(guid(7), 9, "Contoso-Net", "Connect", props),
         event_map_info(guid(7), "StatusMap", False, [(0, "Ok "), (5, "Denied ")])]
    addr = struct.pack("<H", 2) + struct.pack(">H", 8080) + bytes([10, 1, 2, 3]) + bytes(8)  # AF_INET, 10.1.2.3:8080
    payload = struct.pack("<QI", 0xFFFF800012345678, 5) + utf16z("\\Device\\Net\\x") + struct.pack("<I", len(addr)) + addr
    r += [event64(guid(7), 9, ts(7), payload + struct.pack("<HH", 80, 443))]
    return r


def fields_events():
    """Fabrikam.Fields: an EventSource whose manifest describes its event 2's fields (maps, a
    hex out-type, a binary sized by a field before it, an array counted by one, where decoding
    stops)."""
    r = [event64(guid(6), 65534, ts(6), struct.pack("<BBBBHH", 1, 1, 0, 0x5B, 1, 0) + FIELDS_XML)]
    g = bytes(range(16))
    full = (utf16z("alice") + struct.pack("<iIQQ", -7, 5, 0x16, 0xBEEF) + g + struct.pack("<I", 1) +
            struct.pack("<I", 2) + b"\xAA\xBB" + struct.pack("<iiii", 9, 1, 2, 3))
    r += [event64(guid(6), 2, ts(6.5), full), event64(guid(6), 2, ts(6.6), utf16z("bob") + struct.pack("<i", 3))]
    return r


def names():
    r = [event_info(guid(1), 7, "Contoso-Disk", "Flush", "win:Start")]
    r += [event64(guid(1), 7, ts(1 + i), b"\0" * 4) for i in range(2)]
    r += manifest(guid(2), "Contoso.Work", [(3, "Work", "win:Stop"), (4, "Idle", None)])
    r += [event64(guid(2), 3, ts(2 + i), b"") for i in range(3)]
    r += manifest(guid(3), "Contoso.Big", [(1, "Big%d" % i, "win:Info") for i in range(1, 12)][::-1], chunks=2)
    r += [event64(guid(3), 1, ts(3), b"")]
    tl = ext_item(12, struct.pack("<H", 15) + b"tl_provider\0", True)
    for ev, n in ((b"Hello", 1), (b"World", 2)):
        schema = struct.pack("<HB", 3 + len(ev) + 1, 0) + ev + b"\0"
        r += [event64(guid(4), 0, ts(4 + i), b"\1", tl + ext_item(11, schema, False)) for i in range(n)]
    r += [event64(guid(5), 65534, ts(5), struct.pack("<BBBBHH", 1, 1, 0, 0x5B, 1, 0) + b"<not xml"),
          event64(guid(5), 5, ts(5.5), b"")]
    return r + fields_events() + tdh_events()


def io():
    key, obj = 0xF00D, 0x1111
    r = [system64(0x04, 0, 101, 100, ts(0.2), struct.pack("<Q", key) + utf16z("\\Device\\HarddiskVolume9\\data\\log.txt"))]
    for i, (op, size) in enumerate(((68, 4096), (68, 100), (67, 512))):
        r.append(system64(0x04, op, 101, 100, ts(1.1 + i), struct.pack("<QQQQIII", 0, 0xAB00 + i, obj, key, 101, size, 0)))
    r.append(system64(0x02, 98, 101, 100, ts(4.1), struct.pack("<QQII", 0x70000000, 65536, 100, 0x1000)))
    r.append(system64(0x02, 98, 101, 100, ts(4.6), struct.pack("<QQII", 0x71000000, 1 << 20, 100, 0x2000)))
    r.append(system64(0x02, 99, 101, 100, ts(5.1), struct.pack("<QQII", 0x70000000, 16384, 100, 0x4000)))
    r.append(system64(0x01, 12, 101, 100, ts(6.1), struct.pack("<QI", 0xBEEF, 101), version=3))
    r.append(stackwalk(ts(6.1), 101, frames("queue")))
    r.append(system64(0x01, 10, 0, 0, ts(7.1), struct.pack("<IIIIQQQQI", 0, 0, 8192, 0, 4096, key, 0xBEEF, 20000, 101),
                      version=3))
    return r


def heap():
    """OS heap events (group 0x10, user mode: the record's pointer size): two allocations on thread
    101 (stacks work, lock), a realloc of the first on 102, frees from 103 of the second and of
    a block allocated before the trace."""
    h = 0x5000
    r = [system64(0x10, 33, 101, 100, ts(2.1), struct.pack("<QQQI", h, 1000, 0xA000, 0)),
         stackwalk(ts(2.1), 101, frames("work")),
         system64(0x10, 33, 101, 100, ts(2.2), struct.pack("<QQQI", h, 300, 0xB000, 0)),
         stackwalk(ts(2.2), 101, frames("lock")),
         system64(0x10, 34, 102, 100, ts(3.1), struct.pack("<QQQQQI", h, 0xC000, 0xA000, 4000, 1000, 0)),
         stackwalk(ts(3.1), 102, frames("queue")),
         system64(0x10, 36, 103, 100, ts(3.5), struct.pack("<QQI", h, 0xB000, 0)),
         stackwalk(ts(3.5), 103, frames("unlock")),
         system64(0x10, 36, 103, 100, ts(3.6), struct.pack("<QQI", h, 0x9000, 0))]
    return r


def rsds(pid, base, guid, age, name):
    return classic64(IMAGEID, 36, 0, pid, ts(0.1), struct.pack("<QI", base, pid) + guid + struct.pack("<I", age) +
                     name + b"\0")


# "symbols-dotdot": the identities name their PDB C:\\build\\.. (a hostile trace: the name after
# the last separator must never become part of a path)
PDB_PATH = b"C:\\build\\.." if len(sys.argv) > 2 and sys.argv[2] == "symbols-dotdot" else b"C:\\build\\crash.pdb"


def symbols_rundown():
    recs = []
    proc = struct.pack("<QIIIiQI", 0xFFFF800000002000, 200, 4, 1, 0, 0, 0) + b"crash.exe\0" + utf16z("crash.exe")
    recs.append(system64(0x03, 3, 0, 200, ts(0.1), proc, version=3))
    recs.append(system64(0x05, 3, 201, 200, ts(0.1), struct.pack("<II", 200, 201) + b"\0" * 40, version=3))
    for name, base, guid in ((b"crash.exe", 0x400000, CRASH_GUID), (b"other.exe", 0x500000, bytes(16))):
        recs.append(rsds(200, base, guid, 1, PDB_PATH))
        img = struct.pack("<QQIIIIQIIII", base, 0x10000, 200, 0, 0, 0, base, 0, 0, 0, 0) + utf16z(name.decode())
        recs.append(system64(0x14, 3, 0, 200, ts(0.1), img, version=2))
    # crash.exe's own identity (its TimeDateStamp and SizeOfImage): where a store keeps the image
    recs.append(classic64(IMAGEID, 0, 0, 200, ts(0.1), struct.pack("<QQII", 0x400000, 0x9000, 200, 0x5AB38077) +
                          utf16z("crash.exe")))
    img = struct.pack("<QQIIIIQIIII", IMAGES["ntdll.dll"], 0x100000, 200, 0, 0, 0, 0, 0, 0, 0, 0) + utf16z("ntdll.dll")
    recs.append(system64(0x14, 3, 0, 200, ts(0.1), img, version=2))
    recs.append(classic64(IMAGEID, 0, 0, 4, ts(0.1), struct.pack("<QQII", 0x600000, 0x3000, 0, 0x5AB38077) +
                          utf16z("lib.dll")))
    img = struct.pack("<QQIIIIQIIII", 0x600000, 0x3000, 200, 0, 0, 0, 0x600000, 0, 0, 0, 0) + utf16z("lib.dll")
    recs.append(system64(0x14, 3, 0, 200, ts(0.1), img, version=2))
    return recs


def symbols_samples():
    nt = IMAGES["ntdll.dll"] + 0x300
    r = []
    r += sample(ts(14), 201, [0x401005, 0x401c50, nt])
    r += sample(ts(15), 201, [0x403727, 0x401c50, nt])
    r += sample(ts(16), 201, [0x501005, nt])
    r += sample(ts(17), 201, [0x601105, nt])
    return [x.replace(struct.pack("<QII", ts(t), 100, 201), struct.pack("<QII", ts(t), 200, 201)) for x, t in
            zip(r, (14, 14, 15, 15, 16, 16, 17, 17))]


def rundown():
    recs = []
    # Process DCStart v3: key, pid, ppid, session, exit status, directory table, no SID, name, cmdline
    proc = struct.pack("<QIIIiQI", 0xFFFF800000001000, 100, 4, 1, 0, 0, 0) + b"app.exe\0" + utf16z("app.exe --run")
    recs.append(system64(0x03, 3, 0, 100, ts(0.1), proc, version=3))
    for tid in (101, 102, 103, 104):
        recs.append(system64(0x05, 3, tid, 100, ts(0.1), struct.pack("<II", 100, tid) + b"\0" * 40, version=3))
    for name, base in IMAGES.items():
        img = struct.pack("<QQIIIIQIIII", base, 0x100000, 100, 0, 0, 0, base, 0, 0, 0, 0) + utf16z(name)
        recs.append(system64(0x14, 3, 0, 100, ts(0.1), img, version=2))
    # PerfInfo CollectionStart: source 0 (the timer), interval 10000 x 100 ns = 1 ms
    recs.append(perfinfo64(0x0F, 72, ts(0.2), struct.pack("<IIII", 0, 10000, 0, 0)))
    return recs


def cpu0():
    r = []
    r += cswitch(ts(1), 101, 0, addrs=frames("work"))
    r += sample(ts(2), 101, frames("work"))
    r += sample(ts(3), 101, frames("work"))
    r += ready(ts(3.5), 102, 101, frames("unlock"))
    r += cswitch(ts(4), 102, 101, WAITING, WRUSERREQ, frames("wait"))
    r += ready(ts(6), 101, 102, frames("unlock"))
    r += cswitch(ts(7), 101, 102, READY, WRPREEMPTED, frames("lock"))
    r += sample(ts(8), 101, frames("work"))
    r += cswitch(ts(9), 102, 101, TERMINATED, EXECUTIVE, frames("wait"))
    r += cswitch(ts(12), 0, 102, WAITING, DELAY)
    r += cswitch(ts(15), 102, 0, addrs=frames("sleep"))
    r += cswitch(ts(16), 0, 102, WAITING, EXECUTIVE)
    return r


def cpu1():
    r = []
    r += cswitch(ts(1.5), 103, 0, addrs=frames("work"))
    r += sample(ts(2.5), 103, frames("work"))
    r += cswitch(ts(5), 0, 103, WAITING, WRQUEUE)
    r += ready(ts(5.5), 103)
    r += cswitch(ts(6.5), 103, 0, addrs=frames("queue"))
    r += ready(ts(9), 104, 103, frames("unlock"))
    r += cswitch(ts(10), 104, 103, STANDBY, WRPREEMPTED, frames("wait"))
    r += cswitch(ts(11), 103, 104, WAITING, USERREQ, frames("queue"))
    r += cswitch(ts(13), 0, 103, TERMINATED, EXECUTIVE)
    return r


def buffer(cpu, seq, records):
    body = b"".join(records)
    assert 0x48 + len(body) <= BUF
    h = bytearray(0x48)
    struct.pack_into("<I", h, 0, BUF)
    struct.pack_into("<Q", h, 0x18, seq)
    h[0x28] = cpu
    struct.pack_into("<I", h, 0x30, 0x48 + len(body))
    return bytes(h) + body + b"\xff" * (BUF - 0x48 - len(body))


def main():
    mode = sys.argv[2] if len(sys.argv) > 2 else ""
    lost = 3 if mode == "lost" else 0
    # cpu-only: no CSwitch or ReadyThread (PERFINFO headers of group 0x05)
    keep = (lambda r: r[2] != 0x11 or r[7] != 0x05) if mode == "cpu-only" else (lambda r: True)
    syms = mode.startswith("symbols")
    out = buffer(0, 1, [header(2, lost)] + rundown() + (symbols_rundown() if syms else []) +
                 (names() if mode == "names" else []) + (io() if mode == "io" else []) + (heap() if mode == "heap" else []) + [r for r in cpu0() if keep(r)]) + \
        buffer(1, 1, [r for r in cpu1() if keep(r)] + (symbols_samples() if syms else []))
    with open(sys.argv[1], "wb") as f:
        f.write(out)


main()
