/* SPDX-License-Identifier: MIT */
/* ETL importer: helpers shared by its layers (UTF-16 strings, provider identities,
 * warnings and located errors). See etl_int.h for the layout. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl_int.h"

/* Append UTF-8 for the UTF-16LE string at p (at most n bytes, up to a NUL) to out[*len],
 * which has room for `cap` bytes in all; returns the bytes of input consumed incl. the NUL. */
static size_t utf16_to_utf8(const unsigned char *p, size_t n, char *out, size_t cap, size_t *len)
{
	size_t i = 0, o = *len;
	while (i + 2 <= n) {
		uint32_t c = rd16(p + i);
		i += 2;
		if (c - 1 < 0x7f) { /* ASCII, most of what traces hold: no detour */
			if (o + 1 < cap)
				out[o++] = (char)c;
			continue;
		}
		if (c == 0)
			break;
		if (c >= 0xD800 && c < 0xDC00 && i + 2 <= n && rd16(p + i) >= 0xDC00 && rd16(p + i) < 0xE000) {
			c = 0x10000 + ((c - 0xD800) << 10) + (rd16(p + i) - 0xDC00u);
			i += 2;
		} else if (c >= 0xD800 && c < 0xE000) {
			c = 0xFFFD;
		}
		char b[4];
		size_t k;
		if (c < 0x80) {
			b[0] = (char)c;
			k = 1;
		} else if (c < 0x800) {
			b[0] = (char)(0xC0 | c >> 6);
			b[1] = (char)(0x80 | (c & 0x3F));
			k = 2;
		} else if (c < 0x10000) {
			b[0] = (char)(0xE0 | c >> 12);
			b[1] = (char)(0x80 | (c >> 6 & 0x3F));
			b[2] = (char)(0x80 | (c & 0x3F));
			k = 3;
		} else {
			b[0] = (char)(0xF0 | c >> 18);
			b[1] = (char)(0x80 | (c >> 12 & 0x3F));
			b[2] = (char)(0x80 | (c >> 6 & 0x3F));
			b[3] = (char)(0x80 | (c & 0x3F));
			k = 4;
		}
		if (o + k < cap) {
			memcpy(out + o, b, k);
			o += k;
		}
	}
	*len = o;
	out[o] = '\0';
	return i;
}

size_t sv_etl_utf16_into(const unsigned char *p, size_t n, char *out, size_t cap, size_t *used)
{
	size_t len = 0;
	size_t u = utf16_to_utf8(p, n, out, cap, &len);
	if (used)
		*used = u;
	return len;
}

/* A malloc'ed UTF-8 copy of a UTF-16 string field; *used = input bytes consumed. */
char *sv_etl_dup_utf16(const unsigned char *p, size_t n, size_t *used)
{
	size_t cap = n / 2 * 3 + 1, len = 0;
	char *s = malloc(cap);
	if (!s)
		return NULL;
	size_t u = utf16_to_utf8(p, n, s, cap, &len);
	if (used)
		*used = u;
	return s;
}

bool sv_etl_utf16_ends(const unsigned char *p, size_t n, size_t *len)
{
	size_t i = 0;
	while (i + 2 <= n && (p[i] || p[i + 1]))
		i += 2;
	*len = i;
	return i + 2 <= n;
}

/* A .NET method's frame name: "Namespace.Name(args)", the arguments what the signature has
 * in parentheses (as PerfView names JIT-compiled methods); malloc'ed, NULL for no memory. */
size_t sv_etl_val_size(etl_val v)
{
	static const unsigned char sz[] = { [EV_I8] = 1,  [EV_U8] = 1,	 [EV_I16] = 2,	  [EV_U16] = 2,	  [EV_I32] = 4,
					    [EV_U32] = 4, [EV_I64] = 8,	 [EV_U64] = 8,	  [EV_F32] = 4,	  [EV_F64] = 8,
					    [EV_BOOL32] = 4, [EV_HEX32] = 4, [EV_HEX64] = 8, [EV_GUID] = 16,
					    [EV_FILETIME] = 8, [EV_DATETIME] = 8 };
	return sz[v];
}

/* 100 ns ticks `t` after the day `epoch` days before 1970-01-01, as ISO 8601 (proleptic
 * Gregorian, civil from days). */
static void iso_ticks(char *buf, size_t cap, uint64_t t, int64_t epoch)
{
	uint64_t secs = t / 10000000ULL;
	int64_t days = (int64_t)(secs / 86400) - epoch;
	unsigned sod = (unsigned)(secs % 86400);
	int64_t z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097), yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t y = (int64_t)yoe + era * 400;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153, d = doy - (153 * mp + 2) / 5 + 1;
	unsigned m = mp < 10 ? mp + 3 : mp - 9;
	snprintf(buf, cap, "%04" PRId64 "-%02u-%02uT%02u:%02u:%02u.%07uZ", y + (m <= 2), m, d, sod / 3600, sod / 60 % 60,
		 sod % 60, (unsigned)(t % 10000000ULL));
}

void sv_etl_int_text(char *buf, size_t cap, uint64_t u, bool neg, bool hex)
{
	char t[24], *e = t + sizeof(t), *p = e;
	do {
		*--p = "0123456789abcdef"[hex ? u & 15 : u % 10];
		u = hex ? u >> 4 : u / 10;
	} while (u);
	if (hex)
		*--p = 'x', *--p = '0';
	else if (neg)
		*--p = '-';
	size_t n = (size_t)(e - p) < cap ? (size_t)(e - p) : cap - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
}

static void signed_text(char *buf, size_t cap, int64_t v)
{
	sv_etl_int_text(buf, cap, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0, false);
}

void sv_etl_val_text(char *buf, size_t cap, etl_val v, const unsigned char *q)
{
	switch (v) {
	case EV_I8: signed_text(buf, cap, (int8_t)q[0]); break;
	case EV_U8: sv_etl_int_text(buf, cap, q[0], false, false); break;
	case EV_I16: signed_text(buf, cap, (int16_t)rd16(q)); break;
	case EV_U16: sv_etl_int_text(buf, cap, rd16(q), false, false); break;
	case EV_I32: signed_text(buf, cap, (int32_t)rd32(q)); break;
	case EV_U32: sv_etl_int_text(buf, cap, rd32(q), false, false); break;
	case EV_I64: signed_text(buf, cap, (int64_t)rd64(q)); break;
	case EV_U64: sv_etl_int_text(buf, cap, rd64(q), false, false); break;
	case EV_F32: {
		float f;
		memcpy(&f, q, 4);
		snprintf(buf, cap, "%.9g", (double)f);
		break;
	}
	case EV_F64: {
		double f;
		memcpy(&f, q, 8);
		snprintf(buf, cap, "%.17g", f);
		break;
	}
	case EV_BOOL32: snprintf(buf, cap, "%s", rd32(q) ? "True" : "False"); break;
	case EV_HEX32: sv_etl_int_text(buf, cap, rd32(q), false, true); break;
	case EV_HEX64: sv_etl_int_text(buf, cap, rd64(q), false, true); break;
	case EV_GUID:
		snprintf(buf, cap, "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x", rd32(q), rd16(q + 4), rd16(q + 6), q[8], q[9],
			 q[10], q[11], q[12], q[13], q[14], q[15]);
		break;
	case EV_FILETIME: iso_ticks(buf, cap, rd64(q), 134774); break; /* 1601-01-01 */
	case EV_DATETIME: iso_ticks(buf, cap, rd64(q) & 0x3FFFFFFFFFFFFFFFULL, 719162); break; /* 0001-01-01 */
	}
}

char *sv_etl_method_name(const char *ns, const char *name, const char *sig)
{
	const char *open = strchr(sig, '('), *close = strrchr(sig, ')');
	size_t al = open && close && close > open ? (size_t)(close - open - 1) : 0;
	size_t len = strlen(ns) + strlen(name) + al + 4;
	char *full = malloc(len);
	if (full)
		snprintf(full, len, "%s%s%s(%.*s)", ns, ns[0] ? "." : "", name, (int)al, open ? open + 1 : "");
	return full;
}

/* ---- provider identities ---- */


const guid_name sv_etl_guids[] = {
	{ { 0x00, 0xd9, 0xfd, 0x68, 0x3e, 0x4a, 0xd1, 0x11, 0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3 }, 0x00, "EventTrace" },
	{ { 0xd4, 0xa8, 0x6f, 0x3d, 0x05, 0xfe, 0xd0, 0x11, 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c }, 0x01, "DiskIO" },
	{ { 0xd3, 0xa8, 0x6f, 0x3d, 0x05, 0xfe, 0xd0, 0x11, 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c }, 0x02, "Memory" },
	{ { 0xd0, 0xa8, 0x6f, 0x3d, 0x05, 0xfe, 0xd0, 0x11, 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c }, 0x03, "Process" },
	{ { 0x39, 0xdc, 0xcb, 0x90, 0x3e, 0x4a, 0xd1, 0x11, 0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3 }, 0x04, "FileIO" },
	{ { 0xd1, 0xa8, 0x6f, 0x3d, 0x05, 0xfe, 0xd0, 0x11, 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c }, 0x05, "Thread" },
	{ { 0xc0, 0x0a, 0x28, 0x9a, 0xe0, 0xc8, 0xd1, 0x11, 0x84, 0xe2, 0x00, 0xc0, 0x4f, 0xb9, 0x98, 0xa2 }, 0x06, "TcpIp" },
	{ { 0x76, 0xfc, 0x82, 0x32, 0xed, 0xfe, 0x8e, 0x49, 0x8a, 0xa7, 0xe7, 0x0f, 0x45, 0x9d, 0x43, 0x0e }, 0x07, "Job" },
	{ { 0xc5, 0x50, 0x3a, 0xbf, 0xe0, 0xa9, 0x88, 0x49, 0xa0, 0x05, 0x2d, 0xf0, 0xb7, 0xc8, 0x0f, 0x80 }, 0x08, "UdpIp" },
	{ { 0x2e, 0x72, 0x53, 0xae, 0x63, 0xc8, 0xd2, 0x11, 0x86, 0x59, 0x00, 0xc0, 0x4f, 0xa3, 0x21, 0xa1 }, 0x09, "Registry" },
	{ { 0x65, 0x3a, 0x85, 0x01, 0x8f, 0x41, 0x36, 0x4f, 0xae, 0xfc, 0xdc, 0x0f, 0x1d, 0x2f, 0xd2, 0x35 }, 0x0B, "SystemConfig" },
	{ { 0xb4, 0xbf, 0x1d, 0xce, 0x7e, 0x13, 0xa6, 0x4d, 0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc }, 0x0F, "PerfInfo" },
	{ { 0x1d, 0x5d, 0xb1, 0x2c, 0x9f, 0x5f, 0xd2, 0x11, 0xab, 0xe1, 0x00, 0xa0, 0xc9, 0x11, 0xf5, 0x18 }, 0x14, "Image" },
	{ { 0x46, 0xfe, 0xf2, 0xde, 0xd6, 0x7b, 0x80, 0x4b, 0xbd, 0x94, 0xf5, 0x7f, 0xe2, 0x0d, 0x0c, 0xe3 }, 0x18, "StackWalk" },
	{ { 0xcd, 0xcc, 0x9d, 0x45, 0x9f, 0x53, 0x72, 0x4b, 0xa8, 0xd9, 0xf5, 0x68, 0x31, 0x42, 0x60, 0x9a }, 0x1A, "ALPC" },
	{ { 0x91, 0xee, 0x79, 0x9b, 0xfd, 0xb5, 0xc0, 0x41, 0xa2, 0x43, 0x42, 0x48, 0xe2, 0x66, 0xe9, 0xd0 }, -1, "Windows Kernel/SysConfig" },
	{ { 0xd7, 0x75, 0xe6, 0xb3, 0x54, 0x25, 0x18, 0x4f, 0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde }, -1, "KernelTraceControl/ImageID" },
	{ { 0xc1, 0xf6, 0xcc, 0xbb, 0xd1, 0x6c, 0xc4, 0x48, 0x80, 0xff, 0x83, 0x94, 0x82, 0xe3, 0x76, 0x71 }, -1, "KernelTraceControl/MetaData" },
	{ { 0x23, 0x0d, 0x3c, 0xe1, 0xbc, 0xcc, 0x12, 0x4e, 0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4 }, -1, "Microsoft-Windows-DotNETRuntime" },
	{ { 0x1c, 0x02, 0x69, 0xa6, 0x50, 0xc4, 0x09, 0x46, 0xa0, 0x35, 0x5a, 0xf5, 0x9a, 0xf4, 0xdf, 0x18 }, -1, "Microsoft-Windows-DotNETRuntimeRundown" },
	{ { 0x54, 0xd7, 0x3f, 0x76, 0x86, 0x70, 0xfe, 0x4d, 0x95, 0xeb, 0xc0, 0x1a, 0x46, 0xfa, 0xf4, 0xca }, -1, "Microsoft-Windows-DotNETRuntimePrivate" },
	{ { 0xab, 0x62, 0x29, 0x22, 0x80, 0x61, 0x88, 0x4b, 0xa8, 0x25, 0x34, 0x6b, 0x75, 0xf2, 0xa2, 0x4a }, 0x10, "Heap" },
};
const size_t sv_etl_nguids = sizeof(sv_etl_guids) / sizeof(sv_etl_guids[0]);

const etl_view sv_etl_views[V_COUNT] = {
	/* PerfView's Net VirtualAlloc: commits and decommits in one source */
	[V_NET_VALLOC] = { "net-virtualalloc", 0x02, { 98, 99, -1 },
			   "VirtualAlloc or VirtualFree events (xperf -on ...+VIRT_ALLOC, or PerfView /KernelEvents=...+VirtualAlloc)" },
	/* PerfView's Disk I/O as time: reads and writes weighing issue-to-completion in ms */
	[V_DISK_TIME] = { "disk-io-time", 0x01, { 10, 11, -1 },
			  "DiskIO Read or Write events (xperf -on ...+DISK_IO+DISK_IO_INIT, or PerfView's default kernel events)" },
	/* PerfView's Net OS Heap Alloc: allocations up, frees down under the allocation's stack */
	[V_NET_HEAP] = { "net-os-heap", 0x10, { 33, 34, 36 },
			 "Heap Alloc, ReAlloc or Free events (xperf -start heap -heap -pids PID -stackwalk HeapAlloc+HeapRealloc, "
			 "or PerfView /OSHeapProcess:PID)" },
};

bool sv_etl_view_has(const etl_view *v, int group, int op)
{
	return v->group == group && (v->ops[0] == op || v->ops[1] == op || v->ops[2] == op);
}

const char *sv_etl_group_name(int group)
{
	for (size_t i = 0; i < sv_etl_nguids; i++)
		if (sv_etl_guids[i].group == group)
			return sv_etl_guids[i].name;
	return NULL;
}

int sv_etl_guid_index(const unsigned char *g)
{
	for (size_t i = 0; i < sv_etl_nguids; i++)
		if (memcmp(sv_etl_guids[i].g, g, 16) == 0)
			return (int)i;
	return -1;
}

/* Names of the kernel events this importer reads (group << 8 | opcode). */
const char *sv_etl_hook_event_name(int group, int op)
{
	static const struct {
		int g, op;
		const char *name;
	} names[] = {
		{ 0x00, 0, "Header" }, { 0x00, 5, "Extension" }, { 0x00, 8, "RundownComplete" }, { 0x00, 32, "EndExtension" },
		{ 0x03, 1, "Start" }, { 0x03, 2, "Stop" }, { 0x03, 3, "DCStart" }, { 0x03, 4, "DCStop" },
		{ 0x03, 39, "Defunct" }, { 0x05, 1, "Start" }, { 0x05, 2, "Stop" },
		{ 0x05, 3, "DCStart" }, { 0x05, 4, "DCStop" }, { 0x05, 36, "CSwitch" }, { 0x05, 50, "ReadyThread" },
		{ 0x0F, 46, "Sample" }, { 0x0F, 72, "SetInterval" }, { 0x0F, 73, "CollectionStart" },
		{ 0x0F, 74, "CollectionEnd" }, { 0x14, 2, "Unload" }, { 0x14, 3, "DCStart" }, { 0x14, 4, "DCStop" },
		{ 0x10, 32, "Create" }, { 0x10, 33, "Alloc" }, { 0x10, 34, "ReAlloc" }, { 0x10, 35, "Destroy" },
		{ 0x10, 36, "Free" }, { 0x10, 37, "Expand" }, { 0x10, 38, "Snapshot" }, { 0x10, 42, "Contract" },
		{ 0x18, 32, "Stack" }, { 0x18, 35, "KeyDelete" }, { 0x18, 36, "KeyRundown" }, { 0x18, 37, "KeyKernel" },
		{ 0x18, 38, "KeyUser" },
		/* the kernel's other classes, as TraceEvent's KernelTraceEventParser names them */
		{ 0x01, 10, "Read" }, { 0x01, 11, "Write" }, { 0x01, 12, "ReadInit" }, { 0x01, 13, "WriteInit" },
		{ 0x01, 14, "FlushBuffers" }, { 0x01, 15, "FlushInit" },
		{ 0x02, 10, "TransitionFault" }, { 0x02, 11, "DemandZeroFault" }, { 0x02, 12, "CopyOnWrite" },
		{ 0x02, 13, "GuardPageFault" }, { 0x02, 14, "HardPageFault" }, { 0x02, 15, "AccessViolation" },
		{ 0x02, 32, "HardFault" }, { 0x02, 98, "VirtualAlloc" }, { 0x02, 99, "VirtualFree" },
		{ 0x03, 32, "PerfCtr" }, { 0x03, 33, "PerfCtrRundown" },
		{ 0x04, 0, "Name" }, { 0x04, 32, "FileCreate" }, { 0x04, 35, "FileDelete" }, { 0x04, 36, "FileRundown" },
		{ 0x04, 64, "Create" }, { 0x04, 65, "Cleanup" }, { 0x04, 66, "Close" }, { 0x04, 67, "Read" },
		{ 0x04, 68, "Write" }, { 0x04, 69, "SetInfo" }, { 0x04, 70, "Delete" }, { 0x04, 71, "Rename" },
		{ 0x04, 72, "DirEnum" }, { 0x04, 73, "Flush" }, { 0x04, 74, "QueryInfo" }, { 0x04, 75, "FSControl" },
		{ 0x04, 76, "OperationEnd" }, { 0x04, 77, "DirNotify" },
		{ 0x06, 10, "Send" }, { 0x06, 11, "Recv" }, { 0x06, 12, "Connect" }, { 0x06, 13, "Disconnect" },
		{ 0x06, 14, "Retransmit" }, { 0x06, 15, "Accept" }, { 0x06, 16, "Reconnect" }, { 0x06, 17, "Fail" },
		{ 0x06, 18, "TCPCopy" }, { 0x06, 26, "SendIPV6" }, { 0x06, 27, "RecvIPV6" }, { 0x06, 28, "ConnectIPV6" },
		{ 0x06, 29, "DisconnectIPV6" }, { 0x06, 30, "RetransmitIPV6" }, { 0x06, 31, "AcceptIPV6" },
		{ 0x06, 32, "ReconnectIPV6" }, { 0x06, 34, "TCPCopyIPV6" },
		{ 0x08, 10, "Send" }, { 0x08, 11, "Recv" }, { 0x08, 17, "Fail" }, { 0x08, 26, "SendIPV6" },
		{ 0x08, 27, "RecvIPV6" },
		{ 0x0B, 10, "CPU" }, { 0x0B, 11, "PhyDisk" }, { 0x0B, 12, "LogDisk" }, { 0x0B, 13, "NIC" },
		{ 0x0B, 14, "Video" }, { 0x0B, 15, "Services" }, { 0x0B, 16, "Power" }, { 0x0B, 17, "Network" },
		{ 0x0B, 21, "IRQ" }, { 0x0B, 22, "PnP" }, { 0x0B, 23, "IDEChannel" },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].g == group && names[i].op == op)
			return names[i].name;
	return NULL;
}

/* Events of providers found by GUID (not kernel hooks) that TraceEvent names: provider name,
 * opcode -> event name. An opcode-0 event of these is named by its provider alone. */
const char *sv_etl_trace_event_name(const char *provider, int op)
{
	static const struct {
		const char *provider;
		int op;
		const char *name;
	} names[] = {
		{ "Windows Kernel/SysConfig", 32, "BuildInfo" }, { "Windows Kernel/SysConfig", 33, "SystemPaths" },
		{ "Windows Kernel/SysConfig", 34, "UnknownVolume" }, { "Windows Kernel/SysConfig", 35, "VolumeMapping" },
		{ "KernelTraceControl/ImageID", 32, "None" }, { "KernelTraceControl/ImageID", 36, "DbgID_RSDS" },
		{ "KernelTraceControl/ImageID", 37, "DbgID_ILRSDS" }, { "KernelTraceControl/ImageID", 64, "FileVersion" },
		{ "KernelTraceControl/MetaData", 32, "EventInfo" }, { "KernelTraceControl/MetaData", 33, "EventMapInfo" },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].op == op && strcmp(names[i].provider, provider) == 0)
			return names[i].name;
	return NULL;
}

/* Manifest events of the CLR's providers by event id, named Task/Opcode as TraceEvent's
 * ClrTraceEventParser (and ClrPrivateTraceEventParser) names them (its templates' task and
 * opcode names), checked against the COUNT lines of the baselines; the private provider's ids are those of the CLR's manifest
 * (ClrEtwAll.man), its "…End" opcodes named "…Stop" as TraceEvent names them. */
const char *sv_etl_manifest_event_name(const char *provider, int id)
{
	static const struct {
		int rundown; /* 0 Microsoft-Windows-DotNETRuntime, 1 …Rundown, 2 …Private */
		int id;
		const char *name;
	} names[] = {
		{ 0, 1, "GC/Start" }, { 0, 2, "GC/Stop" }, { 0, 3, "GC/RestartEEStop" }, { 0, 4, "GC/HeapStats" },
		{ 0, 5, "GC/CreateSegment" }, { 0, 6, "GC/FreeSegment" }, { 0, 7, "GC/RestartEEStart" },
		{ 0, 8, "GC/SuspendEEStop" }, { 0, 9, "GC/SuspendEEStart" }, { 0, 10, "GC/AllocationTick" },
		{ 0, 11, "GC/CreateConcurrentThread" }, { 0, 12, "GC/TerminateConcurrentThread" },
		{ 0, 13, "GC/FinalizersStop" }, { 0, 14, "GC/FinalizersStart" }, { 0, 15, "Type/BulkType" },
		{ 0, 21, "GC/BulkSurvivingObjectRanges" }, { 0, 22, "GC/BulkMovedObjectRanges" },
		{ 0, 23, "GC/GenerationRange" }, { 0, 25, "GC/MarkStackRoots" }, { 0, 26, "GC/MarkFinalizeQueueRoots" },
		{ 0, 27, "GC/MarkHandles" }, { 0, 28, "GC/MarkCards" }, { 0, 29, "GC/FinalizeObject" },
		{ 0, 33, "GC/PinObjectAtGCTime" }, { 0, 34, "GC/PinPlugAtGCTime" }, { 0, 35, "GC/Triggered" },
		{ 0, 50, "ThreadPoolWorkerThread/Start" }, { 0, 51, "ThreadPoolWorkerThread/Stop" },
		{ 0, 52, "ThreadPoolWorkerThreadRetirement/Start" }, { 0, 53, "ThreadPoolWorkerThreadRetirement/Stop" },
		{ 0, 54, "ThreadPoolWorkerThreadAdjustment/Sample" }, { 0, 55, "ThreadPoolWorkerThreadAdjustment/Adjustment" },
		{ 0, 56, "ThreadPoolWorkerThreadAdjustment/Stats" }, { 0, 57, "ThreadPoolWorkerThread/Wait" },
		{ 0, 60, "ThreadPoolWorkingThreadCount/Start" }, { 0, 61, "ThreadPool/Enqueue" }, { 0, 62, "ThreadPool/Dequeue" },
		{ 0, 63, "ThreadPool/IOEnqueue" }, { 0, 64, "ThreadPool/IODequeue" }, { 0, 65, "ThreadPool/IOPack" },
		{ 0, 70, "Thread/Creating" }, { 0, 71, "Thread/Running" }, { 0, 80, "Exception/Start" },
		{ 0, 81, "Contention/Start" }, { 0, 82, "ClrStack/Walk" }, { 0, 83, "AppDomainResourceManagement/MemAllocated" },
		{ 0, 84, "AppDomainResourceManagement/MemSurvived" }, { 0, 86, "AppDomainResourceManagement/ThreadTerminated" },
		{ 0, 87, "AppDomainResourceManagement/DomainEnter" }, { 0, 88, "ILStub/StubGenerated" },
		{ 0, 89, "ILStub/StubCacheHit" }, { 0, 91, "Contention/Stop" },
		{ 0, 85, "AppDomainResourceManagement/ThreadCreated" }, { 0, 135, "Method/DCStartCompleteV2" },
		{ 0, 136, "Method/DCStopCompleteV2" }, { 0, 137, "Method/DCStartV2" }, { 0, 138, "Method/DCStopV2" },
		{ 0, 139, "Method/DCStartVerboseV2" }, { 0, 140, "Method/DCStopVerboseV2" }, { 0, 141, "Method/Load" },
		{ 0, 142, "Method/Unload" }, { 0, 143, "Method/LoadVerbose" }, { 0, 149, "Loader/ModuleDCStartV2" },
		{ 0, 150, "Loader/ModuleDCStopV2" }, { 0, 159, "Method/R2RGetEntryPoint" },
		{ 0, 188, "Method/TailCallSucceeded" }, { 0, 189, "Method/TailCallFailedAnsi" },
		{ 0, 191, "Method/TailCallFailed" }, { 0, 250, "ExceptionCatch/Start" }, { 0, 251, "ExceptionCatch/Stop" },
		{ 0, 252, "ExceptionFinally/Start" }, { 0, 253, "ExceptionFinally/Stop" }, { 0, 254, "ExceptionFilter/Start" },
		{ 0, 255, "ExceptionFilter/Stop" }, { 0, 256, "Exception/Stop" }, { 0, 260, "CodeSymbols/Start" },
		{ 0, 270, "EventSourceEvent" }, { 0, 280, "TieredCompilation/Settings" }, { 0, 281, "TieredCompilation/Pause" },
		{ 0, 282, "TieredCompilation/Resume" }, { 0, 283, "TieredCompilation/BackgroundJitStart" },
		{ 0, 284, "TieredCompilation/BackgroundJitStop" }, { 0, 290, "AssemblyLoader/Start" },
		{ 0, 291, "AssemblyLoader/Stop" }, { 0, 292, "AssemblyLoader/ResolutionAttempted" },
		{ 0, 293, "AssemblyLoader/AssemblyLoadContextResolvingHandlerInvoked" },
		{ 0, 294, "AssemblyLoader/AppDomainAssemblyResolveHandlerInvoked" },
		{ 0, 295, "AssemblyLoader/AssemblyLoadFromResolveHandlerInvoked" }, { 0, 296, "AssemblyLoader/KnownPathProbed" },
		{ 0, 144, "Method/UnloadVerbose" }, { 0, 145, "Method/JittingStarted" }, { 0, 151, "Loader/DomainModuleLoad" },
		{ 0, 152, "Loader/ModuleLoad" }, { 0, 153, "Loader/ModuleUnload" }, { 0, 154, "Loader/AssemblyLoad" },
		{ 0, 155, "Loader/AssemblyUnload" }, { 0, 156, "Loader/AppDomainLoad" }, { 0, 157, "Loader/AppDomainUnload" },
		{ 0, 187, "Runtime/Start" }, { 0, 190, "Method/ILToNativeMap" },
		{ 0, 200, "GarbageCollection/IncreaseMemoryPressure" }, { 0, 202, "GC/MarkWithType" },
		{ 0, 204, "GC/PerHeapHistory" }, { 0, 205, "GC/GlobalHeapHistory" }, { 0, 208, "GC/LOHCompact" },
		{ 0, 209, "GC/FitBucketInfo" },
		{ 1, 10, "GC/SettingsRundown" }, { 1, 144, "Method/DCStopVerbose" }, { 1, 146, "Method/DCStopComplete" },
		{ 1, 148, "Method/DCStopInit" }, { 1, 150, "Method/ILToNativeMapDCStop" },
		{ 1, 152, "Loader/DomainModuleDCStop" }, { 1, 154, "Loader/ModuleDCStop" },
		{ 1, 156, "Loader/AssemblyDCStop" }, { 1, 158, "Loader/AppDomainDCStop" }, { 1, 187, "Runtime/Start" },
		{ 1, 280, "TieredCompilationRundown/SettingsDCStart" },
		{ 1, 300, "ExecutionCheckpointRundown/ExecutionCheckpointDCEnd" },
		{ 2, 2, "GC/Settings" }, { 2, 4, "GC/PerHeapHistory" }, { 2, 5, "GC/GlobalHeapHistory" },
		{ 2, 7, "GC/MarkStackRoots" }, { 2, 8, "GC/MarkFinalizeQueueRoots" }, { 2, 9, "GC/MarkHandles" },
		{ 2, 10, "GC/MarkCards" }, { 2, 161, "Binding/NgenPhaseStart" }, { 2, 162, "Binding/NgenPhaseStop" },
		{ 2, 165, "Binding/LoaderPhaseStart" }, { 2, 166, "Binding/LoaderPhaseStop" },
		{ 2, 171, "Binding/LoaderAssemblyInitPhaseStart" }, { 2, 172, "Binding/LoaderAssemblyInitPhaseStop" },
		{ 2, 173, "Binding/LoaderMappingPhaseStart" }, { 2, 174, "Binding/LoaderMappingPhaseStop" },
		{ 2, 175, "Binding/LoaderDeliverEventPhaseStart" }, { 2, 176, "Binding/LoaderDeliverEventsPhaseStop" },
		{ 2, 188, "NgenBinder/NgenBind" }, { 2, 196, "Binding/FusionMessage" }, { 2, 199, "GC/PinPlugAtGCTime" },
	};
	int rundown = strcmp(provider, "Microsoft-Windows-DotNETRuntimeRundown") == 0   ? 1
		      : strcmp(provider, "Microsoft-Windows-DotNETRuntime") == 0	      ? 0
		      : strcmp(provider, "Microsoft-Windows-DotNETRuntimePrivate") == 0 ? 2
											      : -1;
	for (size_t i = 0; rundown >= 0 && i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].rundown == rundown && names[i].id == id)
			return names[i].name;
	return NULL;
}

void sv_etl_warn(etl_ctx *c, int w, const char *fmt, ...)
{
	if (c->warns[w].count++ == 0) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(c->warns[w].first, sizeof(c->warns[w].first), fmt, ap);
		va_end(ap);
	}
}

int sv_etl_fail(etl_ctx *c, int code, size_t off, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* Offsets are in the .etl itself: name the zip entry when it came out of one. */
	int rc = c->in->inner ? sv_error_set(c->err, code, "in %s: %s", c->in->inner, msg) : sv_error_set(c->err, code, "%s", msg);
	sv_error_locate(c->err, c->in->name, -1, (long long)off);
	return rc;
}

const char *sv_etl_base_name(const char *path)
{
	const char *b = path;
	for (const char *q = path; *q; q++)
		if (*q == '\\' || *q == '/')
			b = q + 1;
	return b;
}
