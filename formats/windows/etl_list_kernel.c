/* SPDX-License-Identifier: MIT */
/* ETL importer: the Events view's fields of the kernel's own events. Their MOF classes are
 * not described in the trace, so each is read here as TraceEvent's class for it reads it
 * (the trace header, processes, threads, images, samples, hard faults, disk and network I/O,
 * the configuration rundown, KernelTraceControl's ImageID), with whose process and thread
 * the event is. etl_list.c drives the listing. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "clr_events.h"
#include "etl_list_int.h"

/* A kernel path as TraceEvent shows it: NT device paths become drive paths (the trace's
 * volume mapping), \SystemRoot is C:\Windows, \??\ goes, a path from the root of no device
 * is on the system drive (C:); UNC paths (\\server) stay. */
static void put_path(lbuf *o, const etl_ctx *c, const char *name, const char *s)
{
	const char *dos = "", *rest = s;
	bool mapped = false;
	for (size_t v = 0; v < c->nvols; v++) {
		size_t l = strlen(c->vols[v].nt);
		if (strncasecmp(s, c->vols[v].nt, l) == 0) {
			dos = c->vols[v].dos, rest = s + l, mapped = true;
			break;
		}
	}
	if (!mapped) {
		if (strncasecmp(s, "\\SystemRoot\\", 12) == 0)
			dos = "C:\\Windows", rest = s + 11;
		else if (strncmp(s, "\\??\\", 4) == 0)
			rest = s + 4;
		else if (s[0] == '\\' && s[1] != '\\' && strncasecmp(s, "\\Device\\", 8) != 0)
			dos = "C:";
	}
	kv(o, name, "%s%s", dos, rest);
}

/* A file object's name from the trace's FileIO name events (TraceEvent's FileName of a disk
 * I/O or a hard fault), when it has one. */
static void file_name(lbuf *o, const etl_ctx *c, uint64_t key)
{
	uint32_t i = sv_idmap_get(&c->fname_index, key);
	if (i != SV_IDMAP_NONE)
		put_path(o, c, "FileName", c->fnames[i - 1]);
}

/* A UTF-16 string field at p[*at..n) (NUL-terminated), as TraceEvent shows it; false when
 * it does not fit. NT device paths become drive paths (the trace's volume mapping). */
static bool ustr(lbuf *o, const etl_ctx *c, const char *name, const unsigned char *p, size_t n, size_t *at, bool path)
{
	size_t i;
	if (!sv_etl_utf16_ends(p + *at, n - *at, &i))
		return false;
	size_t used = 0;
	char *s = sv_etl_dup_utf16(p + *at, n - *at, &used);
	if (!s)
		return false;
	*at += used;
	if (path)
		put_path(o, c, name, s);
	else
		kv(o, name, "%s", s);
	free(s);
	return true;
}

/* A FILETIME field at q. */
static void put_ft(lbuf *o, const char *name, const unsigned char *q)
{
	char b[64];
	sv_etl_val_text(b, sizeof(b), EV_FILETIME, q);
	kv(o, name, "%s", b);
}

/* The trace header (EventTrace, opcode 0): TRACE_LOGFILE_HEADER. */
static void k_header(lbuf *o, const etl_rec *r, unsigned P)
{
	const unsigned char *p = r->payload;
	size_t n = r->plen, tz = 56 + 2 * (size_t)P, after = tz + 176;
	if (n < after + 32)
		return;
	static const char *const u32s[] = { "BufferSize", "Version", "ProviderVersion", "NumberOfProcessors" };
	for (int i = 0; i < 4; i++)
		kv(o, u32s[i], "%u", rd32(p + 4 * i));
	put_ft(o, "EndTime", p + 16);
	static const char *const u32b[] = { "TimerResolution", "MaxFileSize", "LogFileMode", "BuffersWritten",
					    "StartBuffers",    "PointerSize", "EventsLost",  "CPUSpeed" };
	for (int i = 0; i < 8; i++)
		kv(o, u32b[i], "%u", rd32(p + 24 + 4 * i));
	kv(o, "UtcOffsetMinutes", "%d", (int32_t)rd32(p + tz)); /* the time zone's Bias */
	put_ft(o, "BootTime", p + after);
	kv(o, "PerfFreq", "%" PRIu64, rd64(p + after + 8));
	put_ft(o, "StartTime", p + after + 16);
	kv(o, "ReservedFlags", "%u", rd32(p + after + 24));
	kv(o, "BuffersLost", "%u", rd32(p + after + 28));
	size_t at = after + 32;
	if (ustr(o, NULL, "SessionName", p, n, &at, false))
		ustr(o, NULL, "LogFileName", p, n, &at, false);
}

/* Process Start/Stop/DCStart/DCStop/Defunct (version 3 and 4): the event's process is the
 * one it describes, with no thread (TraceEvent's PID and TID). */
static void k_process(lbuf *o, const etl_ctx *c, const etl_rec *r, unsigned P, uint32_t *pid, uint32_t *tid)
{
	const unsigned char *p = r->payload;
	size_t n = r->plen;
	if (r->version < 3 || n < 2 * (size_t)P + 20)
		return;
	*pid = rd32(p + P), *tid = UINT32_MAX;
	kv(o, "ProcessID", "%u", rd32(p + P));
	kv(o, "ParentID", "%u", rd32(p + P + 4));
	kv(o, "SessionID", "%d", (int32_t)rd32(p + P + 8));
	kv(o, "ExitStatus", "%d", (int32_t)rd32(p + P + 12));
	kv(o, "UniqueProcessKey", "0x%" PRIx64, rdptr(p, P));
	kv(o, "PageDirectoryBase", "0x%" PRIx64, rdptr(p + P + 16, P));
	size_t sid = 2 * (size_t)P + 16;
	if (r->version >= 4) {
		uint32_t fl = rd32(p + sid);
		static const char *const names[] = { "PackageFullName", "Wow64", "Protected" };
		char b[80] = "";
		size_t bl = 0;
		for (int i = 0; i < 3; i++)
			if (fl & (1u << i))
				bl += (size_t)snprintf(b + bl, sizeof(b) - bl, "%s%s", bl ? ", " : "", names[i]);
		if (fl >> 3)
			snprintf(b, sizeof(b), "%u", fl);
		kv(o, "Flags", "%s", fl ? b : "None");
		sid += 4;
	}
	if (sid + 4 > n)
		return;
	size_t name = sid + 4;
	if (rd32(p + sid) != 0) {
		if (sid + 2 * (size_t)P + 2 > n)
			return;
		name = sid + 2 * (size_t)P + 8 + 4 * (size_t)p[sid + 2 * P + 1];
	}
	if (name >= n)
		return;
	size_t nl = strnlen((const char *)p + name, n - name);
	if (name + nl >= n)
		return;
	kv(o, "ImageFileName", "%.*s", (int)nl, (const char *)p + name);
	size_t at = name + nl + 1;
	if (ustr(o, c, "CommandLine", p, n, &at, false) && ustr(o, c, "PackageFullName", p, n, &at, false))
		ustr(o, c, "ApplicationID", p, n, &at, false);
}

/* Process PerfCtr/PerfCtrRundown: a process's memory counters (names as TraceEvent's). */
static void k_perfctr(lbuf *o, const etl_rec *r, unsigned P, uint32_t *pid, uint32_t *tid)
{
	const unsigned char *p = r->payload;
	if (r->plen < 16 + 11 * (size_t)P)
		return;
	*pid = rd32(p), *tid = UINT32_MAX;
	kv(o, "ProcessID", "%u", rd32(p));
	kv(o, "MemoryCount", "%u", rd32(p + 4));
	kv(o, "HandleCount", "%u", rd32(p + 8));
	static const char *const sizes[] = { "PeakVirtualSize", "PeakWorkingSetSize", "PeakPagefileUsage",
					     "QuotaPeakPagedPoolUsage", "QuotaPeakNonPagedPoolUsage", "VirtualSize",
					     "WorkingSetSize", "PagefileUsage", "QuotaPagedPoolUsage", "QuotaNonPagedPoolUsage",
					     "PrivatePageCount" };
	for (int i = 0; i < 11; i++)
		kv(o, sizes[i], "%" PRIu64, rdptr(p + 16 + (size_t)i * P, P));
}

/* Thread Start/Stop/DCStart/DCStop (version 2 on): its process and thread are the event's. */
static void k_thread(lbuf *o, const etl_rec *r, unsigned P, uint32_t *pid, uint32_t *tid)
{
	const unsigned char *p = r->payload;
	size_t n = r->plen, at = 8 + 7 * (size_t)P;
	if (r->version < 2 || n < 8)
		return;
	*pid = rd32(p), *tid = rd32(p + 4);
	if (n < at + 8)
		return;
	static const char *const ptrs[] = { "StackBase", "StackLimit", "UserStackBase", "UserStackLimit", "StartAddr",
					    "Win32StartAddr", "TebBase" };
	for (int i = 0; i < 7; i++)
		kv(o, ptrs[i], "0x%" PRIx64, rdptr(p + 8 + (size_t)i * P, P));
	kv(o, "SubProcessTag", "%u", rd32(p + at));
	kv(o, "BasePriority", "%u", p[at + 4]);
	kv(o, "PagePriority", "%u", p[at + 5]);
	kv(o, "IoPriority", "%u", p[at + 6]);
	kv(o, "ThreadFlags", "%u", p[at + 7]);
}

/* Image Load/Unload/DCStart/DCStop (version 2 on): its process is the one it names; only a
 * load has a thread (TraceEvent's PID and TID). */
static void k_image(lbuf *o, const etl_ctx *c, const etl_rec *r, unsigned P, uint32_t *pid, uint32_t *tid)
{
	const unsigned char *p = r->payload;
	size_t n = r->plen, fname = 3 * (size_t)P + 32;
	if (r->version < 2 || n < fname)
		return;
	*pid = rd32(p + 2 * P);
	if (!(r->group == 0x03 && r->type == 10)) /* only a load is its thread's */
		*tid = UINT32_MAX;
	kv(o, "ImageBase", "0x%" PRIx64, rdptr(p, P));
	kv(o, "ImageSize", "%" PRIu64, rdptr(p + P, P));
	kv(o, "ImageChecksum", "%u", rd32(p + 2 * P + 4));
	kv(o, "TimeDateStamp", "%d", (int32_t)rd32(p + 2 * P + 8));
	kv(o, "DefaultBase", "0x%" PRIx64, rdptr(p + 2 * P + 16, P));
	size_t at = fname;
	ustr(o, c, "FileName", p, n, &at, true);
}

/* PerfInfo/Sample: the sampled thread is the payload's; the flags byte holds the DPC and ISR
 * bits (0, 1) and the thread's priority (bits 3-7), the next byte the rank. */
static void k_sample(lbuf *o, const etl_rec *r, unsigned P)
{
	const unsigned char *p = r->payload;
	if (r->plen < (size_t)P + 8)
		return;
	kv(o, "InstructionPointer", "0x%" PRIx64, rdptr(p, P));
	kv(o, "ProcessorNumber", "%u", r->cpu);
	kv(o, "Priority", "%u", p[P + 6] >> 3);
	kv(o, "ExecutingDPC", "%s", p[P + 6] & 1 ? "True" : "False");
	kv(o, "ExecutingISR", "%s", p[P + 6] & 2 ? "True" : "False");
	kv(o, "Rank", "%u", p[P + 7]);
	kv(o, "Count", "%u", rd16(p + P + 4));
}

/* A UTF-16 string in a fixed field of n bytes (NUL-padded). */
static void fixed_ustr(lbuf *o, const char *name, const unsigned char *p, size_t n)
{
	size_t l;
	(void)sv_etl_utf16_ends(p, n, &l); /* up to the padding, or all of it */
	char *s = sv_etl_dup_utf16(p, l, NULL);
	if (s) {
		kv(o, name, "%s", s);
		free(s);
	}
}

/* SystemConfig/CPU (version 2 on): MHz, NumberOfProcessors, MemSize (MB), PageSize,
 * AllocationGranularity, ComputerName (256 UTF-16 units), DomainName (134), then a pointer
 * of hyper-threading flags. */
static void k_cpu(lbuf *o, const etl_rec *r, unsigned P)
{
	const unsigned char *p = r->payload;
	if (r->plen < 820 + (size_t)P)
		return;
	static const char *const u32s[] = { "MHz", "NumberOfProcessors", "MemSize", "PageSize", "AllocationGranularity" };
	for (int i = 0; i < 5; i++)
		kv(o, u32s[i], "%u", rd32(p + 4 * i));
	fixed_ustr(o, "ComputerName", p + 20, 512);
	fixed_ustr(o, "DomainName", p + 532, 268);
	kv(o, "HyperThreadingFlag", "0x%" PRIx64, rdptr(p + 800, P));
}

/* QPC ticks as ms. */
static double ticks_ms(const etl_ctx *c, uint64_t t)
{
	return (double)t * 1000.0 / c->freq;
}

/* Memory/HardFault (version 2): InitialTime (QPC), ReadOffset, VirtualAddress, FileObject,
 * TThreadId, ByteCount; the faulting thread is the event's. */
static void k_hardfault(lbuf *o, const etl_ctx *c, const etl_rec *r, unsigned P, uint32_t *tid)
{
	const unsigned char *p = r->payload;
	if (r->plen < 24 + 2 * (size_t)P)
		return;
	uint64_t t0 = rd64(p);
	*tid = rd32(p + 16 + 2 * P);
	kv(o, "ElapsedTimeMSec", "%.6f", r->ts >= t0 ? ticks_ms(c, r->ts - t0) : 0.0);
	kv(o, "ReadOffset", "%" PRIu64, rd64(p + 8));
	kv(o, "VirtualAddress", "0x%" PRIx64, rdptr(p + 16, P));
	kv(o, "FileKey", "0x%" PRIx64, rdptr(p + 16 + P, P));
	kv(o, "ByteCount", "%u", rd32(p + 20 + 2 * P));
	file_name(o, c, rdptr(p + 16 + P, P));
}

/* DiskIO Read/Write (version 3): DiskNumber, IrpFlags, TransferSize, Reserved, ByteOffset,
 * FileObject, Irp, HighResResponseTime (QPC ticks from issue to completion),
 * IssuingThreadId: the issuing thread is the event's. */
static void k_disk(lbuf *o, const etl_ctx *c, const etl_rec *r, unsigned P, uint32_t *tid)
{
	const unsigned char *p = r->payload;
	size_t it = 32 + 2 * (size_t)P;
	if (r->plen < it)
		return;
	if (r->plen >= it + 4)
		*tid = rd32(p + it);
	kv(o, "DiskNumber", "%u", rd32(p));
	char fl[400], pr[32];
	sv_clr_irp_text(rd32(p + 4), fl, sizeof(fl), pr, sizeof(pr));
	kv(o, "IrpFlags", "%s", fl);
	kv(o, "Priority", "%s", pr);
	kv(o, "TransferSize", "%u", rd32(p + 8));
	kv(o, "ByteOffset", "%" PRId64, (int64_t)rd64(p + 16));
	kv(o, "FileKey", "0x%" PRIx64, rdptr(p + 24, P));
	kv(o, "Irp", "0x%" PRIx64, rdptr(p + 24 + P, P));
	kv(o, "ElapsedTimeMSec", "%.6f", ticks_ms(c, rd64(p + 24 + 2 * P)));
	file_name(o, c, rdptr(p + 24, P));
}

/* DiskIO FlushBuffers: DiskNumber, IrpFlags, HighResResponseTime, Irp, IssuingThreadId. */
static void k_flush(lbuf *o, const etl_ctx *c, const etl_rec *r, unsigned P, uint32_t *pid, uint32_t *tid)
{
	const unsigned char *p = r->payload;
	if (r->plen < 20 + (size_t)P)
		return;
	*pid = UINT32_MAX, *tid = rd32(p + 16 + P);
	kv(o, "DiskNumber", "%u", rd32(p));
	char fl[400], pr[32];
	sv_clr_irp_text(rd32(p + 4), fl, sizeof(fl), pr, sizeof(pr));
	kv(o, "IrpFlags", "%s", fl);
	kv(o, "Irp", "0x%" PRIx64, rdptr(p + 16, P));
	kv(o, "ElapsedTimeMSec", "%.6f", ticks_ms(c, rd64(p + 8)));
}

static uint16_t net_port(const unsigned char *p)
{
	return (uint16_t)(p[0] << 8 | p[1]); /* network order */
}

static void ip4(lbuf *o, const char *name, const unsigned char *p)
{
	kv(o, name, "%u.%u.%u.%u", p[0], p[1], p[2], p[3]);
}

static void ip6(lbuf *o, const char *name, const unsigned char *p)
{
	char t[INET6_ADDRSTRLEN];
	if (inet_ntop(AF_INET6, p, t, sizeof(t)))
		kv(o, name, "%s", t);
}

/* TcpIp and UdpIp (version 1 on: PID, size, addresses, ports in network order, then sequence
 * number and connection), the fields TraceEvent shows in its order: IPv4 UDP events through
 * its UdpIpTraceData (the first pointer-sized word as "context", dsize where a version-0
 * event had it), UDP over IPv6 without the addresses it leaves out. */
static void k_net(lbuf *o, const etl_rec *r, const char *k, unsigned P)
{
	const unsigned char *p = r->payload;
	size_t n = r->plen;
	bool v6 = strstr(k, "IPV6") != NULL, udp = !strncmp(k, "Windows Kernel/UdpIp/", 21),
	     timed = !udp && strstr(k, "/Send") != NULL; /* a TCP send has its start and end times */
	if (r->version < 1)
		return;
	if (v6) {
		size_t at = timed ? 52 : 44;
		if (n < at + 4 + P)
			return;
		kv(o, "size", "%u", rd32(p + 4));
		if (!udp) {
			ip6(o, "daddr", p + 8);
			ip6(o, "saddr", p + 24);
		}
		kv(o, "dport", "%u", net_port(p + 40));
		kv(o, "sport", "%u", net_port(p + 42));
		if (timed) {
			kv(o, "startime", "%u", rd32(p + 44));
			kv(o, "endtime", "%u", rd32(p + 48));
		}
		if (udp || timed) {
			kv(o, "seqnum", "%u", rd32(p + at));
			kv(o, "connid", "0x%" PRIx64, rdptr(p + at + 4, P));
		} else { /* TraceEvent's TcpIpV6TraceData: the connection before the number */
			kv(o, "connid", "0x%" PRIx64, rdptr(p + at + 4, P));
			kv(o, "seqnum", "%u", rd32(p + at));
		}
	} else if (udp) {
		if (n < 20 + P)
			return;
		kv(o, "context", "0x%" PRIx64, rdptr(p, P));
		ip4(o, "saddr", p + 12);
		kv(o, "sport", "%u", net_port(p + 18));
		kv(o, "size", "%d", (int32_t)rd32(p + 4));
		ip4(o, "daddr", p + 8);
		kv(o, "dport", "%u", net_port(p + 16));
		kv(o, "dsize", "%d", (int16_t)rd16(p + 18 + P - 4));
	} else {
		/* a connect or accept has the connection's options before its number */
		bool opts = strstr(k, "/Connect") != NULL || strstr(k, "/Accept") != NULL;
		size_t at = timed ? 28 : opts ? 36 : 20;
		if (n < at + 4 + P)
			return;
		kv(o, "size", "%u", rd32(p + 4));
		ip4(o, "daddr", p + 8);
		ip4(o, "saddr", p + 12);
		kv(o, "dport", "%u", net_port(p + 16));
		kv(o, "sport", "%u", net_port(p + 18));
		if (opts) {
			static const char *const h[] = { "mss", "sackopt", "tsopt", "wsopt" };
			for (int i = 0; i < 4; i++)
				kv(o, h[i], "%d", (int16_t)rd16(p + 20 + 2 * i));
			kv(o, "rcvwin", "%d", (int32_t)rd32(p + 28));
			kv(o, "rcvwinscale", "%d", (int16_t)rd16(p + 32));
			kv(o, "sndwinscale", "%d", (int16_t)rd16(p + 34));
		}
		if (timed) {
			kv(o, "startime", "%u", rd32(p + 20));
			kv(o, "endtime", "%u", rd32(p + 24));
		}
		kv(o, "seqnum", "%u", rd32(p + at));
		kv(o, "connid", "0x%" PRIx64, rdptr(p + at + 4, P));
	}
}

/* A PE TimeDateStamp (seconds since 1970, UTC) as the other times are shown. */
static void stamp_time(lbuf *o, const char *name, uint32_t stamp)
{
	time_t t = (time_t)stamp;
	struct tm tm;
	if (gmtime_r(&t, &tm))
		kv(o, name, "%04d-%02d-%02dT%02d:%02d:%02d.0000000Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		   tm.tm_min, tm.tm_sec);
}

/* KernelTraceControl's image identities (what the merge logs for symbol look-up), the fields
 * TraceEvent's SymbolTraceEventParser shows: the image (base, size, TimeDateStamp and its
 * time, file name), its PDB (GUID, age, PDB path) and its version resource's strings. */
static void k_imageid(lbuf *o, const etl_ctx *c, const etl_rec *r, const char *k, unsigned P)
{
	const unsigned char *p = r->payload;
	size_t n = r->plen, at;
	if (!strcmp(k, "KernelTraceControl/ImageID")) {
		if (n < 2 * (size_t)P + 8)
			return;
		kv(o, "ImageBase", "0x%" PRIx64, rdptr(p, P));
		kv(o, "ImageSize", "%" PRIu64, rdptr(p + P, P));
		kv(o, "ProcessID", "0"); /* TraceEvent's: the field is not read */
		kv(o, "TimeDateStamp", "%u", rd32(p + 2 * P + 4));
		stamp_time(o, "BuildTime", rd32(p + 2 * P + 4));
		at = 2 * (size_t)P + 8;
		(void)ustr(o, c, "OriginalFileName", p, n, &at, false);
	} else if (!strcmp(k, "KernelTraceControl/ImageID/DbgID_RSDS") || !strcmp(k, "KernelTraceControl/ImageID/DbgID_ILRSDS")) {
		if (n < (size_t)P + 25)
			return;
		kv(o, "ImageBase", "0x%" PRIx64, rdptr(p, P));
		char g[64];
		sv_etl_val_text(g, sizeof(g), EV_GUID, p + P + 4);
		kv(o, "GuidSig", "%s", g);
		kv(o, "Age", "%u", rd32(p + P + 20));
		const char *nm = (const char *)p + P + 24;
		kv(o, "PDBFileName", "%.*s", (int)strnlen(nm, n - P - 24), nm);
	} else if (!strcmp(k, "KernelTraceControl/ImageID/FileVersion")) {
		if (n < 8)
			return;
		kv(o, "ImageSize", "%u", rd32(p));
		kv(o, "TimeDateStamp", "%u", rd32(p + 4));
		stamp_time(o, "BuildTime", rd32(p + 4));
		static const char *const names[] = { "OrigFileName", "FileDescription", "FileVersion", "BinFileVersion",
						      "VerLanguage",  "ProductName",	 "CompanyName", "ProductVersion",
						      "FileId",	      "ProgramId" };
		at = 8;
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && ustr(o, c, names[i], p, n, &at, false); i++)
			;
	}
}


/* A fixed-size UTF-16 string of `chars` characters at p + off (NUL-padded). */
static void fixed_wstr(lbuf *o, const char *name, const unsigned char *p, size_t n, size_t off, size_t chars)
{
	if (off + 2 * chars <= n)
		fixed_ustr(o, name, p + off, 2 * chars);
}

/* UTF-16 strings one after another from *at, each named; stops at one that does not fit. */
static void wstrs(lbuf *o, const etl_ctx *c, const unsigned char *p, size_t n, size_t at, const char *const *names, size_t k)
{
	for (size_t i = 0; i < k && ustr(o, c, names[i], p, n, &at, false); i++)
		;
}

/* The kernel's configuration rundown (SystemConfig, version 2 on, and SysConfig): the fields
 * TraceEvent's classes show, in their order. */
static void k_config(lbuf *o, const etl_ctx *c, const etl_rec *r, const char *k)
{
	const unsigned char *p = r->payload;
	size_t n = r->plen;
	const char *e = strrchr(k, '/') + 1;
	if (!strcmp(e, "PhyDisk") && n >= 568) {
		static const char *const a[] = { "DiskNumber", "BytesPerSector", "SectorsPerTrack", "TracksPerCylinder" };
		for (int i = 0; i < 4; i++)
			kv(o, a[i], "%d", (int32_t)rd32(p + 4 * i));
		kv(o, "Cylinders", "%" PRId64, (int64_t)rd64(p + 16));
		static const char *const b[] = { "SCSIPort", "SCSIPath", "SCSITarget", "SCSILun" };
		for (int i = 0; i < 4; i++)
			kv(o, b[i], "%d", (int32_t)rd32(p + 24 + 4 * i));
		fixed_wstr(o, "Manufacturer", p, n, 40, 256);
		kv(o, "PartitionCount", "%d", (int32_t)rd32(p + 552));
		kv(o, "WriteCacheEnabled", "%u", p[556]);
		fixed_wstr(o, "BootDriveLetter", p, n, 558, 3);
		fixed_wstr(o, "Spare", p, n, 564, 2);
	} else if (!strcmp(e, "LogDisk") && n >= 108) {
		kv(o, "StartOffset", "%" PRId64, (int64_t)rd64(p));
		kv(o, "PartitionSize", "%" PRId64, (int64_t)rd64(p + 8));
		kv(o, "DiskNumber", "%d", (int32_t)rd32(p + 16));
		kv(o, "Size", "%d", (int32_t)rd32(p + 20));
		kv(o, "DriveType", "%d", (int32_t)rd32(p + 24));
		fixed_wstr(o, "DriveLetterString", p, n, 28, 4);
		kv(o, "PartitionNumber", "%d", (int32_t)rd32(p + 40));
		kv(o, "SectorsPerCluster", "%d", (int32_t)rd32(p + 44));
		kv(o, "BytesPerSector", "%d", (int32_t)rd32(p + 48));
		kv(o, "NumberOfFreeClusters", "%" PRId64, (int64_t)rd64(p + 56));
		kv(o, "TotalNumberOfClusters", "%" PRId64, (int64_t)rd64(p + 64));
		fixed_wstr(o, "FileSystem", p, n, 72, 16);
		kv(o, "VolumeExt", "%d", (int32_t)rd32(p + 104));
	} else if (!strcmp(e, "NIC") && r->version >= 2 && n >= 20) {
		kv(o, "PhysicalAddrLen", "%d", (int32_t)rd32(p + 8));
		kv(o, "PhysicalAddr", "%" PRId64, (int64_t)rd64(p));
		kv(o, "Ipv4Index", "%d", (int32_t)rd32(p + 12));
		kv(o, "Ipv6Index", "%d", (int32_t)rd32(p + 16));
		static const char *const s3[] = { "NICDescription", "IpAddresses", "DnsServerAddresses" };
		wstrs(o, c, p, n, 20, s3, 3);
	} else if (!strcmp(e, "Network") && n >= 16) {
		kv(o, "TcbTablePartitions", "%d", (int32_t)rd32(p));
		kv(o, "MaxHashTableSize", "%d", (int32_t)rd32(p + 4));
		kv(o, "MaxUserPort", "%d", (int32_t)rd32(p + 8));
		kv(o, "TcpTimedWaitDelay", "%d", (int32_t)rd32(p + 12));
	} else if (!strcmp(e, "IDEChannel") && n >= 16) {
		static const char *const a[] = { "TargetID", "DeviceType", "DeviceTimingMode", "LocationInformationLen" };
		for (int i = 0; i < 4; i++)
			kv(o, a[i], "%d", (int32_t)rd32(p + 4 * i));
		static const char *const s1[] = { "LocationInformation" };
		wstrs(o, c, p, n, 16, s1, 1);
	} else if (!strcmp(e, "PnP")) {
		/* three lengths (version 3), then a class GUID and filter counts (4), and the
		 * device's status and problem (5 on) before the strings */
		size_t at = r->version <= 3 ? 12 : r->version == 4 ? 24 : 32;
		static const char *const s5[] = { "DeviceID", "DeviceDescription", "FriendlyName", "PdoName", "ServiceName" };
		if (n >= at)
			wstrs(o, c, p, n, at, s5, r->version < 4 ? 3 : 5);
	} else if (!strcmp(e, "Power") && n >= 5) {
		for (int i = 0; i < 5; i++) {
			char nm[4] = { 'S', (char)('1' + i), 0, 0 };
			kv(o, nm, "%u", p[i]);
		}
	} else if (!strcmp(e, "Services") && r->version >= 2 && n >= 12) {
		static const char *const s2[] = { "ServiceName", "DisplayName" };
		wstrs(o, c, p, n, 12, s2, 2);
		char pn[300]; /* the service's process as the trace names it (TraceEvent's) */
		sv_etl_proc_label(c, rd32(p), r->ts, pn, sizeof(pn));
		kv(o, "ProcessName", "%s", pn);
		kv(o, "ProcessID", "%u", rd32(p));
		kv(o, "ServiceState", "%d", (int32_t)rd32(p + 4));
		kv(o, "SubProcessTag", "%d", (int32_t)rd32(p + 8));
	} else if (!strcmp(e, "VolumeMapping")) {
		static const char *const s2[] = { "NtPath", "DosPath" };
		wstrs(o, c, p, n, 0, s2, 2);
	} else if (!strcmp(e, "UnknownVolume")) {
		static const char *const s1[] = { "Value" };
		wstrs(o, c, p, n, 0, s1, 1);
	} else if (!strcmp(e, "SystemPaths")) {
		static const char *const s2[] = { "SystemDirectory", "SystemWindowsDirectory" };
		wstrs(o, c, p, n, 0, s2, 2);
	} else if (!strcmp(e, "Platform")) {
		static const char *const s4[] = { "SystemManufacturer", "SystemProductName", "BiosDate", "BiosVersion" };
		wstrs(o, c, p, n, 0, s4, 4);
	} else if (!strcmp(e, "BuildInfo") && n >= 8) {
		char t[64];
		sv_etl_val_text(t, sizeof(t), EV_FILETIME, p);
		kv(o, "InstallDate", "%s", t);
		static const char *const s2[] = { "BuildLab", "ProductName" };
		wstrs(o, c, p, n, 8, s2, 2);
	}
}

bool sv_etl_list_kernel(lbuf *o, const etl_ctx *c, const etl_rec *r, const char *kind, uint32_t *pid, uint32_t *tid,
			bool *no_pid)
{
	unsigned P = c->ptr;
	if (r->kind == REC_CLASSIC && !strncmp(kind, "Windows Kernel/SysConfig/", 25)) {
		k_config(o, c, r, kind);
		return true;
	}
	if ((r->kind == REC_EVENT || r->kind == REC_CLASSIC) && !strncmp(kind, "KernelTraceControl/ImageID", 26)) {
		k_imageid(o, c, r, kind, P);
		return true;
	}
	if (r->kind != REC_HOOK)
		return false;
	if (r->group == 0x00 && r->type == 0)
		k_header(o, r, r->ptr);
	else if (r->group == 0x03 && (r->type <= 4 || r->type == 39) && r->type >= 1)
		k_process(o, c, r, P, pid, tid);
	else if (r->group == 0x03 && (r->type == 32 || r->type == 33))
		k_perfctr(o, r, P, pid, tid);
	else if (r->group == 0x05 && r->type >= 1 && r->type <= 4)
		k_thread(o, r, P, pid, tid);
	else if ((r->group == 0x03 && r->type == 10) || (r->group == 0x14 && r->type >= 2 && r->type <= 4))
		k_image(o, c, r, P, pid, tid);
	else if (r->group == 0x0F && r->type == 46)
		k_sample(o, r, P);
	else if (r->group == 0x00 && r->plen >= 36 &&
		 (!strcmp(kind, "Windows Kernel/EventTrace/Extension") || !strcmp(kind, "Windows Kernel/EventTrace/EndExtension"))) {
		/* the session's kernel group masks; the logger's own events have no process */
		if (*pid == 0 && *tid == 0)
			*pid = *tid = UINT32_MAX;
		for (int i = 0; i < 8; i++) {
			char nm[32];
			snprintf(nm, sizeof(nm), "GroupMask%d", i + 1);
			kv(o, nm, "%u", rd32(r->payload + 4 * i));
		}
		kv(o, "KernelEventVersion", "%u", rd32(r->payload + 32));
	}
	/* the kernel's other kinds by name: whose process or thread the event is */
	else if (!strcmp(kind, "Windows Kernel/SystemConfig/CPU"))
		k_cpu(o, r, P);
	else if (!strncmp(kind, "Windows Kernel/SystemConfig/", 28) || !strcmp(kind, "MSNT_SystemTrace/SystemConfig/Platform")) {
		k_config(o, c, r, kind);
		if (!strcmp(kind, "Windows Kernel/SystemConfig/Services") && r->plen >= 4)
			*pid = rd32(r->payload);
		else if (r->no_ids) /* a compact header names no thread or process */
			*pid = *tid = UINT32_MAX;
	}
	else if (!strcmp(kind, "Windows Kernel/Memory/HardFault"))
		k_hardfault(o, c, r, P, tid), *pid = UINT32_MAX;
	else if (!strcmp(kind, "Windows Kernel/DiskIO/Read") || !strcmp(kind, "Windows Kernel/DiskIO/Write"))
		k_disk(o, c, r, P, tid), *pid = UINT32_MAX;
	else if (!strcmp(kind, "Windows Kernel/DiskIO/FlushBuffers"))
		k_flush(o, c, r, P, pid, tid), *no_pid = true; /* TraceEvent: no process */
	else if ((!strncmp(kind, "Windows Kernel/TcpIp/", 21) || !strncmp(kind, "Windows Kernel/UdpIp/", 21)) && r->plen >= 4) {
		*pid = rd32(r->payload), *tid = UINT32_MAX;
		k_net(o, r, kind, P);
	} else if ((!strcmp(kind, "Windows Kernel/DiskIO/ReadInit") || !strcmp(kind, "Windows Kernel/DiskIO/WriteInit") ||
		    !strcmp(kind, "Windows Kernel/DiskIO/FlushInit")) && r->plen >= P)
		kv(o, "Irp", "0x%" PRIx64, rdptr(r->payload, P));
	else if (!strcmp(kind, "MSNT_SystemTrace/Image/KernelBase") && r->plen >= P) {
		kv(o, "ImageBase", "0x%" PRIx64, rdptr(r->payload, P));
		if (r->no_ids)
			*pid = *tid = UINT32_MAX;
	}
	else if ((!strcmp(kind, "Windows Kernel/PerfInfo/CollectionStart") || !strcmp(kind, "Windows Kernel/PerfInfo/CollectionEnd")) &&
		 r->plen >= 12) {
		kv(o, "SampleSource", "%u", rd32(r->payload));
		kv(o, "NewInterval", "%u", rd32(r->payload + 4));
		kv(o, "OldInterval", "%u", rd32(r->payload + 8));
	}
	else if (r->no_ids) /* a compact header names no thread or process */
		*pid = *tid = UINT32_MAX;
	return true;
}
