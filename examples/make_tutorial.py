#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Regenerates tutorial.perfView.xml (deterministic). Not needed to build or test: the XML
# is committed. Models PerfView's tutorial: Main calls RecSpin(n), which calls
# RecSpinHelper(n), which spins for about n ms reading the clock (DateTime.get_Now) and then
# calls RecSpin(n-1); one 1 ms CPU sample per millisecond on one thread.
import random

rng = random.Random(1234)
P = r"C:\Users\demo\Tutorial\bin\Release"
frames = ["ROOT", "BROKEN", "?!?", "OVERHEAD",
          "Process64 Tutorial (4812) Args:  spin 10",
          "Thread (5620) CPU=9871ms",
          r"C:\Windows\System32\ntdll!RtlUserThreadStart",
          r"C:\Windows\System32\kernel32!BaseThreadInitThunk",
          r"C:\Windows\Microsoft.NET\Framework64\v4.0.30319\clr!CorExeMain",
          P + r"\Tutorial!Tutorial.Program.Main(class System.String[])",
          P + r"\Tutorial!Tutorial.Program.RecSpin(int32)",
          P + r"\Tutorial!Tutorial.Program.RecSpinHelper(int32)",
          r"C:\Windows\Microsoft.NET\Framework64\v4.0.30319\mscorlib!System.DateTime.get_Now()",
          r"C:\Windows\Microsoft.NET\Framework64\v4.0.30319\mscorlib!System.TimeZoneInfo.GetDateTimeNowUtcOffsetFromUtc(System.DateTime,bool&)",
          r"C:\Windows\System32\kernelbase!GetSystemTimeAsFileTime",
          r"C:\Windows\System32\ntdll!RtlGetSystemTimePrecise",
          r"C:\Windows\System32\ntoskrnl!KiInterruptDispatchNoLockNoEtw",
          r"C:\Windows\Microsoft.NET\Framework64\v4.0.30319\clr!JIT_Stelem_Ref",
          r"C:\Windows\Microsoft.NET\Framework64\v4.0.30319\clr!WKS::gc_heap::allocate_more_space",
          P + r"\Tutorial!Tutorial.Program.Spin(int32)"]
F = {n.split("!")[-1] if "!" in n else n: i for i, n in enumerate(frames)}
def fid(short):
    for i, n in enumerate(frames):
        if n.endswith(short):
            return i
    raise KeyError(short)

stacks = {}
order = []
def stack(path):
    caller = -1
    for f in path:
        key = (caller, f)
        if key not in stacks:
            stacks[key] = len(order)
            order.append(key)
        caller = stacks[key]
    return caller

base = [fid("Args:  spin 10"), fid("CPU=9871ms"), fid("RtlUserThreadStart"), fid("BaseThreadInitThunk"),
        fid("clr!CorExeMain"), fid("Program.Main(class System.String[])")]
samples = []
t = 0.0
for rep in range(6):
    path = list(base)
    for n in range(10, 0, -1):
        path = path + [fid("Program.RecSpin(int32)"), fid("Program.RecSpinHelper(int32)")]
        for ms in range(int(n * 16 + rng.randint(0, 8))):
            r = rng.random()
            if r < 0.45:
                leaf = path + [fid("Program.Spin(int32)")]
            elif r < 0.80:
                leaf = path + [fid("DateTime.get_Now()"), fid("GetDateTimeNowUtcOffsetFromUtc(System.DateTime,bool&)")]
            elif r < 0.93:
                leaf = path + [fid("DateTime.get_Now()"), fid("GetSystemTimeAsFileTime"), fid("RtlGetSystemTimePrecise")]
            elif r < 0.97:
                leaf = path + [fid("DateTime.get_Now()"), fid("GetSystemTimeAsFileTime"), fid("RtlGetSystemTimePrecise"),
                               fid("KiInterruptDispatchNoLockNoEtw")]
            elif r < 0.99:
                leaf = path + [fid("JIT_Stelem_Ref")]
            else:
                leaf = path + [fid("JIT_Stelem_Ref"), fid("allocate_more_space")]
            samples.append((t, stack(leaf)))
            t += 1.0
    t += 250.0  # the program sleeps between rounds

def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

with open("tutorial.perfView.xml", "w", newline="\n") as f:
    f.write('<?xml version="1.0" encoding="utf-8"?>\n<StackWindow>\n <StackSource>\n')
    f.write('  <Frames Count="%d">\n' % len(frames))
    for i, n in enumerate(frames):
        f.write('   <Frame ID="%d">%s</Frame>\n' % (i, esc(n)))
    f.write('  </Frames>\n  <Stacks Count="%d">\n' % len(order))
    for i, (c, fr) in enumerate(order):
        f.write('   <Stack ID="%d" CallerID="%d" FrameID="%d" />\n' % (i, c, fr))
    f.write('  </Stacks>\n  <Samples Count="%d">\n' % len(samples))
    for i, (tt, s) in enumerate(samples):
        f.write('   <Sample ID="%d" Time="%.3f" StackID="%d" />\n' % (i, tt, s))
    f.write('  </Samples>\n </StackSource>\n <StackWindowGuiState>\n')
    f.write('  <Notes>The stackview tutorial profile, modelled on PerfView\'s tutorial: Main calls '
            'RecSpin(n) -&gt; RecSpinHelper(n), which spins about n ms, mostly reading the clock '
            '(DateTime.get_Now), then recurses with n-1. Try: group module entries, fold '
            'DateTime, Callers of RecSpinHelper, Caller-Callee of RecSpin.</Notes>\n')
    f.write('  <ScalingPolicy>TimeMetric</ScalingPolicy>\n </StackWindowGuiState>\n</StackWindow>\n')
print(len(samples), "samples,", len(order), "stacks")
