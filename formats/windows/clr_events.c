/* SPDX-License-Identifier: MIT */
/* The payloads of the .NET runtime's events (the Microsoft-Windows-DotNETRuntime and
 * ...Rundown providers), which neither an ETL nor a .nettrace describes: the runtime's
 * manifest does, and TraceEvent compiles it in. The fields of the events a .NET
 * investigation reads first (GC, JIT and method, loader, exceptions, contention, thread
 * pool, tiered compilation, rundown), in payload order, with the value names TraceEvent
 * shows for its enumerations. A template is an event's latest version: an older event is a
 * prefix of it, so fields are read while the payload lasts. */
#include "clr_events.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl_int.h" /* rd16/32/64, UTF-16 strings */

enum { U8 = 1, U16, U32, U64, I32, I64, X32, X64, PTR, USTR, GUID, F64, BOOL32 };
enum { M_NONE, M_GC_REASON, M_GC_TYPE, M_SUSPEND, M_ALLOC_KIND, M_SEGMENT, M_SKU, M_STARTUP_MODE, M_PAUSE_MODE,
       M_GC_MECHANISMS, M_METHOD_FLAGS, M_MODULE_FLAGS, M_ASSEMBLY_FLAGS, M_STARTUP_FLAGS, M_CONTENTION, M_EXCEPTION_FLAGS,
       M_APPDOMAIN_FLAGS, M_IRP_FLAGS, M_IO_PRIORITY, M_COMPACT, M_EXPAND, M_BUCKET_KIND,
       M_NGEN_BIND };

typedef struct clr_field {
	const char *name;
	uint8_t type, map;
} clr_field;

#define MAXF 16
typedef struct clr_template {
	const char *event; /* the name after the provider, as the kinds are named */
	clr_field f[MAXF];
} clr_template;

#define CLR_ID { "ClrInstanceID", U16, 0 }
#define METHOD_VERBOSE                                                                                              \
	{ { "MethodID", X64, 0 }, { "ModuleID", X64, 0 }, { "MethodStartAddress", X64, 0 }, { "MethodSize", U32, 0 }, \
	  { "MethodToken", X32, 0 }, { "MethodFlags", U32, M_METHOD_FLAGS }, { "MethodNamespace", USTR, 0 },                      \
	  { "MethodName", USTR, 0 }, { "MethodSignature", USTR, 0 }, CLR_ID, { "ReJITID", U64, 0 } }
#define MODULE_LOAD                                                                                                   \
	{ { "ModuleID", X64, 0 }, { "AssemblyID", X64, 0 }, { "ModuleFlags", U32, M_MODULE_FLAGS }, { "Reserved1", U32, 0 },       \
	  { "ModuleILPath", USTR, 0 }, { "ModuleNativePath", USTR, 0 }, CLR_ID, { "ManagedPdbSignature", GUID, 0 },   \
	  { "ManagedPdbAge", U32, 0 }, { "ManagedPdbBuildPath", USTR, 0 }, { "NativePdbSignature", GUID, 0 },        \
	  { "NativePdbAge", U32, 0 }, { "NativePdbBuildPath", USTR, 0 } }
#define DOMAIN_MODULE_LOAD                                                                                            \
	{ { "ModuleID", X64, 0 }, { "AssemblyID", X64, 0 }, { "AppDomainID", X64, 0 }, { "ModuleFlags", U32, M_MODULE_FLAGS },     \
	  { "Reserved1", U32, 0 }, { "ModuleILPath", USTR, 0 }, { "ModuleNativePath", USTR, 0 }, CLR_ID }
#define ASSEMBLY_LOAD                                                                                                 \
	{ { "AssemblyID", X64, 0 }, { "AppDomainID", X64, 0 }, { "BindingID", X64, 0 }, { "AssemblyFlags", U32, M_ASSEMBLY_FLAGS },  \
	  { "FullyQualifiedAssemblyName", USTR, 0 }, CLR_ID }
#define RUNTIME_INFO                                                                                                  \
	{ CLR_ID, { "Sku", U16, M_SKU }, { "BclMajorVersion", U16, 0 }, { "BclMinorVersion", U16, 0 },                 \
	  { "BclBuildNumber", U16, 0 }, { "BclQfeNumber", U16, 0 }, { "VMMajorVersion", U16, 0 },                     \
	  { "VMMinorVersion", U16, 0 }, { "VMBuildNumber", U16, 0 }, { "VMQfeNumber", U16, 0 },                       \
	  { "StartupFlags", U32, M_STARTUP_FLAGS }, { "StartupMode", U8, M_STARTUP_MODE }, { "CommandLine", USTR, 0 },              \
	  { "ComObjectGuid", GUID, 0 }, { "RuntimeDllPath", USTR, 0 } }
#define WORKER_THREAD { { "ActiveWorkerThreadCount", U32, 0 }, { "RetiredWorkerThreadCount", U32, 0 }, CLR_ID }
#define APPDOMAIN                                                                                                     \
	{ { "AppDomainID", U64, 0 }, { "AppDomainFlags", U32, M_APPDOMAIN_FLAGS }, { "AppDomainName", USTR, 0 },      \
	  { "AppDomainIndex", U32, 0 }, CLR_ID }
#define HEAP_NUM { { "HeapNum", U32, 0 }, CLR_ID }

static const clr_template runtime[] = {
	{ "GC/Start", { { "Count", U32, 0 }, { "Depth", U32, 0 }, { "Reason", U32, M_GC_REASON }, { "Type", U32, M_GC_TYPE },
			CLR_ID, { "ClientSequenceNumber", U64, 0 } } },
	{ "GC/Stop", { { "Count", U32, 0 }, { "Depth", U32, 0 }, CLR_ID } },
	{ "GC/HeapStats",
	  { { "GenerationSize0", U64, 0 }, { "TotalPromotedSize0", U64, 0 }, { "GenerationSize1", U64, 0 },
	    { "TotalPromotedSize1", U64, 0 }, { "GenerationSize2", U64, 0 }, { "TotalPromotedSize2", U64, 0 },
	    { "GenerationSize3", U64, 0 }, { "TotalPromotedSize3", U64, 0 }, { "FinalizationPromotedSize", U64, 0 },
	    { "FinalizationPromotedCount", U64, 0 }, { "PinnedObjectCount", U32, 0 }, { "SinkBlockCount", U32, 0 },
	    { "GCHandleCount", U32, 0 }, CLR_ID, { "GenerationSize4", U64, 0 }, { "TotalPromotedSize4", U64, 0 } } },
	{ "GC/CreateSegment", { { "Address", X64, 0 }, { "Size", X64, 0 }, { "Type", U32, M_SEGMENT }, CLR_ID } },
	{ "GC/FreeSegment", { { "Address", X64, 0 }, CLR_ID } },
	{ "GC/RestartEEStart", { CLR_ID } },
	{ "GC/RestartEEStop", { CLR_ID } },
	{ "GC/SuspendEEStart", { { "Reason", U32, M_SUSPEND }, { "Count", U32, 0 }, CLR_ID } },
	{ "GC/SuspendEEStop", { CLR_ID } },
	{ "GC/AllocationTick",
	  { { "AllocationAmount", U32, 0 }, { "AllocationKind", U32, M_ALLOC_KIND }, CLR_ID, { "AllocationAmount64", U64, 0 },
	    { "TypeID", PTR, 0 }, { "TypeName", USTR, 0 }, { "HeapIndex", U32, 0 }, { "Address", PTR, 0 },
	    { "ObjectSize", U64, 0 } } },
	{ "GC/CreateConcurrentThread", { CLR_ID } },
	{ "GC/TerminateConcurrentThread", { CLR_ID } },
	{ "GC/FinalizersStop", { { "Count", U32, 0 }, CLR_ID } },
	{ "GC/FinalizersStart", { CLR_ID } },
	{ "GC/Triggered", { { "Reason", U32, M_GC_REASON }, CLR_ID } },
	{ "GC/FinalizeObject", { { "TypeID", PTR, 0 }, { "ObjectID", PTR, 0 }, CLR_ID, { "TypeName", USTR, 0 } } },
	{ "GC/PinObjectAtGCTime",
	  { { "HandleID", PTR, 0 }, { "ObjectID", PTR, 0 }, { "ObjectSize", U64, 0 }, { "TypeName", USTR, 0 }, CLR_ID } },
	{ "GC/MarkWithType", { { "HeapNum", U32, 0 }, CLR_ID, { "Type", U32, 0 }, { "Promoted", U64, 0 } } },
	{ "GC/GenerationRange",
	  { { "Generation", U8, 0 }, { "RangeStart", PTR, 0 }, { "RangeUsedLength", U64, 0 },
	    { "RangeReservedLength", U64, 0 }, CLR_ID } },
	/* (its per-generation records follow Count: not shown, as TraceEvent does not) */
	{ "GC/PerHeapHistory",
	  { CLR_ID, { "FreeListAllocated", PTR, 0 }, { "FreeListRejected", PTR, 0 }, { "EndOfSegAllocated", PTR, 0 },
	    { "CondemnedAllocated", PTR, 0 }, { "PinnedAllocated", PTR, 0 }, { "PinnedAllocatedAdvance", PTR, 0 },
	    { "RunningFreeListEfficiency", U32, 0 }, { "CondemnReasons0", U32, 0 }, { "CondemnReasons1", U32, 0 },
	    { "CompactMechanisms", U32, M_COMPACT }, { "ExpandMechanisms", U32, M_EXPAND }, { "HeapIndex", U32, 0 },
	    { "ExtraGen0Commit", PTR, 0 }, { "Count", U32, 0 } } },
	{ "GC/FitBucketInfo", { CLR_ID, { "BucketKind", U16, M_BUCKET_KIND }, { "TotalSize", U64, 0 }, { "Count", U16, 0 } } },
	{ "GC/LOHCompact", { CLR_ID, { "Count", U16, 0 } } },
	{ "GC/GlobalHeapHistory",
	  { { "FinalYoungestDesired", U64, 0 }, { "NumHeaps", I32, 0 }, { "CondemnedGeneration", U32, 0 },
	    { "Gen0ReductionCount", U32, 0 }, { "Reason", U32, M_GC_REASON }, { "GlobalMechanisms", U32, M_GC_MECHANISMS },
	    CLR_ID, { "PauseMode", U32, M_PAUSE_MODE }, { "MemoryPressure", U32, 0 }, { "CondemnReasons0", U32, 0 },
	    { "CondemnReasons1", U32, 0 }, { "Count", U32, 0 } } },
	{ "Runtime/Start", RUNTIME_INFO },
	{ "Method/LoadVerbose", METHOD_VERBOSE },
	{ "Method/UnloadVerbose", METHOD_VERBOSE },
	{ "Method/JittingStarted",
	  { { "MethodID", X64, 0 }, { "ModuleID", X64, 0 }, { "MethodToken", X32, 0 }, { "MethodILSize", U32, 0 },
	    { "MethodNamespace", USTR, 0 }, { "MethodName", USTR, 0 }, { "MethodSignature", USTR, 0 }, CLR_ID } },
	{ "Loader/ModuleLoad", MODULE_LOAD },
	{ "Loader/ModuleUnload", MODULE_LOAD },
	{ "Loader/DomainModuleLoad", DOMAIN_MODULE_LOAD },
	{ "Loader/AssemblyLoad", ASSEMBLY_LOAD },
	{ "Loader/AssemblyUnload", ASSEMBLY_LOAD },
	{ "Exception/Start",
	  { { "ExceptionType", USTR, 0 }, { "ExceptionMessage", USTR, 0 }, { "ExceptionEIP", PTR, 0 },
	    { "ExceptionHRESULT", X32, 0 }, { "ExceptionFlags", U16, M_EXCEPTION_FLAGS }, CLR_ID } },
	{ "Contention/Start",
	  { { "ContentionFlags", U8, M_CONTENTION }, CLR_ID, { "LockID", PTR, 0 }, { "AssociatedObjectID", PTR, 0 },
	    { "LockOwnerThreadID", U64, 0 } } },
	{ "Contention/Stop", { { "ContentionFlags", U8, M_CONTENTION }, CLR_ID, { "DurationNs", F64, 0 } } },
	{ "ThreadPoolWorkerThread/Start", WORKER_THREAD },
	{ "ThreadPoolWorkerThread/Stop", WORKER_THREAD },
	{ "ThreadPoolWorkerThread/Wait", WORKER_THREAD },
	{ "AppDomainResourceManagement/ThreadCreated",
	  { { "ManagedThreadID", X64, 0 }, { "AppDomainID", X64, 0 }, { "Flags", U32, 0 }, { "ManagedThreadIndex", U32, 0 },
	    { "OSThreadID", U32, 0 }, CLR_ID } },
	{ "GC/MarkStackRoots", HEAP_NUM },
	{ "GC/MarkFinalizeQueueRoots", HEAP_NUM },
	{ "GC/MarkHandles", HEAP_NUM },
	{ "GC/MarkCards", HEAP_NUM },
	{ "GC/BulkSurvivingObjectRanges", { { "Index", U32, 0 }, { "Count", U32, 0 }, CLR_ID } },
	{ "GC/BulkMovedObjectRanges", { { "Index", U32, 0 }, { "Count", U32, 0 }, CLR_ID } },
	{ "GarbageCollection/IncreaseMemoryPressure", { { "BytesAllocated", U64, 0 }, CLR_ID } },
	{ "GarbageCollection/DecreaseMemoryPressure", { { "BytesFreed", U64, 0 }, CLR_ID } },
	{ "Type/BulkType", { { "Count", U32, 0 }, CLR_ID } },
	{ "Loader/AppDomainLoad", APPDOMAIN },
	{ "Loader/AppDomainUnload", APPDOMAIN },
	{ "Method/ILToNativeMap",
	  { { "MethodID", X64, 0 }, { "ReJITID", U64, 0 }, { "MethodExtent", U8, 0 }, { "CountOfMapEntries", U16, 0 } } },
	{ "TieredCompilation/Settings", { CLR_ID, { "Flags", U32, 0 } } },
	{ "TieredCompilation/Pause", { CLR_ID } },
	{ "TieredCompilation/Resume", { CLR_ID, { "NewMethodCount", U32, 0 } } },
	{ "TieredCompilation/BackgroundJitStart", { CLR_ID, { "PendingMethodCount", U32, 0 } } },
	{ "TieredCompilation/BackgroundJitStop",
	  { CLR_ID, { "PendingMethodCount", U32, 0 }, { "JittedMethodCount", U32, 0 } } },
};

#define BINDING                                                                                                       \
	{ { "AppDomainID", U32, 0 }, { "LoadContextID", U32, 0 }, { "FromLoaderCache", U32, 0 }, { "DynamicLoad", U32, 0 }, \
	  { "AssemblyCodebase", USTR, 0 }, { "AssemblyName", USTR, 0 }, CLR_ID }

/* The runtime's private provider (Microsoft-Windows-DotNETRuntimePrivate): the GC's and the
 * binder's. */
static const clr_template private_events[] = {
	{ "GC/GlobalHeapHistory",
	  { { "FinalYoungestDesired", U64, 0 }, { "NumHeaps", I32, 0 }, { "CondemnedGeneration", U32, 0 },
	    { "Gen0ReductionCount", U32, 0 }, { "Reason", U32, M_GC_REASON }, { "GlobalMechanisms", U32, M_GC_MECHANISMS },
	    CLR_ID } },
	{ "Binding/LoaderPhaseStart", BINDING },
	{ "Binding/LoaderPhaseStop", BINDING },
	{ "Binding/LoaderMappingPhaseStart", BINDING },
	{ "Binding/LoaderMappingPhaseStop", BINDING },
	{ "Binding/LoaderDeliverEventPhaseStart", BINDING },
	{ "Binding/LoaderDeliverEventsPhaseStop", BINDING },
	{ "Binding/LoaderAssemblyInitPhaseStart", BINDING },
	{ "Binding/LoaderAssemblyInitPhaseStop", BINDING },
	{ "Binding/NgenPhaseStart", BINDING },
	{ "Binding/NgenPhaseStop", BINDING },
	{ "NgenBinder/NgenBind",
	  { CLR_ID, { "BindingID", U64, 0 }, { "ReasonCode", U32, M_NGEN_BIND }, { "AssemblyName", USTR, 0 } } },
	{ "Binding/FusionMessage", { CLR_ID, { "Prepend", BOOL32, 0 }, { "Message", USTR, 0 } } },
	{ "GC/MarkStackRoots", HEAP_NUM },
	{ "GC/MarkFinalizeQueueRoots", HEAP_NUM },
	{ "GC/MarkHandles", HEAP_NUM },
	{ "GC/MarkCards", HEAP_NUM },
	{ "GC/Settings",
	  { { "SegmentSize", U64, 0 }, { "LargeObjectSegmentSize", U64, 0 }, { "ServerGC", BOOL32, 0 }, CLR_ID } },
};

static const clr_template rundown[] = {
	{ "Method/DCStartVerbose", METHOD_VERBOSE },
	{ "Method/DCStopVerbose", METHOD_VERBOSE },
	{ "Method/DCStartComplete", { CLR_ID } },
	{ "Method/DCStopComplete", { CLR_ID } },
	{ "Method/DCStartInit", { CLR_ID } },
	{ "Method/DCStopInit", { CLR_ID } },
	{ "Loader/ModuleDCStart", MODULE_LOAD },
	{ "Loader/ModuleDCStop", MODULE_LOAD },
	{ "Loader/DomainModuleDCStart", DOMAIN_MODULE_LOAD },
	{ "Loader/DomainModuleDCStop", DOMAIN_MODULE_LOAD },
	{ "Loader/AssemblyDCStart", ASSEMBLY_LOAD },
	{ "Loader/AssemblyDCStop", ASSEMBLY_LOAD },
	{ "Runtime/Start", RUNTIME_INFO },
	{ "Loader/AppDomainDCStart", APPDOMAIN },
	{ "Loader/AppDomainDCStop", APPDOMAIN },
	{ "ExecutionCheckpointRundown/ExecutionCheckpointDCEnd",
	  { CLR_ID, { "Name", USTR, 0 }, { "Timestamp", I64, 0 } } },
};

static const char *const gc_reason[] = { "AllocSmall",         "Induced",        "LowMemory",        "Empty",
					 "AllocLarge",         "OutOfSpaceSOH",  "OutOfSpaceLOH",    "InducedNotForced",
					 "Internal",           "InducedLowMemory", "InducedCompacting", "LowMemoryHost",
					 "PMFullGC",           "LowMemoryHostBlocking" };
static const char *const gc_type[] = { "NonConcurrentGC", "BackgroundGC", "ForegroundGC" };
static const char *const suspend[] = { "SuspendOther",         "SuspendForGC",       "SuspendForAppDomainShutdown",
				       "SuspendForCodePitching", "SuspendForShutdown", "SuspendForDebugger",
				       "SuspendForGCPrep",     "SuspendForDebuggerSweep" };
static const char *const alloc_kind[] = { "Small", "Large", "Pinned" };
static const char *const segment[] = { "SmallObjectHeap", "LargeObjectHeap", "ReadOnlyHeap", "PinnedObjectHeap" };
static const char *const pause_mode[] = { "Batch", "Interactive", "LowLatency", "SustainedLowLatency", "NoGC" };
static const char *const contention[] = { "Managed", "Native" };
/* A GC heap's compaction and expansion reasons (the runtime's gc_heap_compact_reason and
 * gc_heap_expand_mechanism): the event carries 1 << reason with the top bit set, shown as
 * TraceEvent shows it (the lowest reason's name; not_specified without the top bit). */
static const char *const compact_reason[] = { "compact_low_ephemeral",  "compact_high_frag",	  "compact_no_gaps",
					      "compact_loh_forced",	"compact_last_gc",	  "compact_induced_compacting",
					      "compact_fragmented_gen0", "compact_high_mem_load", "compact_high_mem_frag",
					      "compact_vhigh_mem_frag", "compact_no_gc_mode",	  "compact_aggressive_compacting" };
static const char *const expand_reason[] = { "expand_reuse_normal", "expand_reuse_bestfit", "expand_new_seg_ep",
					     "expand_new_seg",	    "expand_no_memory",	    "expand_next_full_gc" };
/* Why an NGen image was or was not bound (the runtime's NGENBINDREJECT_REASON, named as
 * TraceEvent names them: without their NGEN_BIND_ prefix). */
static const char *const ngen_bind[] = { "START_BIND",
					 "NO_INDEX",
					 "SYSTEM_ASSEMBLY_NOT_AVAILABLE",
					 "NO_NATIVE_IMAGE",
					 "REJECT_CONFIG_MASK",
					 "FAIL",
					 "INDEX_CORRUPTION",
					 "REJECT_TIMESTAMP",
					 "REJECT_NATIVEIMAGE_NOT_FOUND",
					 "REJECT_IL_SIG",
					 "REJECT_LOADER_EVAL_FAIL",
					 "MISSING_FOUND",
					 "REJECT_HOSTASM",
					 "REJECT_IL_NOT_FOUND",
					 "REJECT_APPBASE_NOT_FILE",
					 "BIND_DEPEND_REJECT_REF_DEF_MISMATCH",
					 "BIND_DEPEND_REJECT_NGEN_SIG",
					 "APPLY_EXTERNAL_RELOCS_FAILED",
					 "SYSTEM_ASSEMBLY_NATIVEIMAGE_NOT_AVAILABLE",
					 "ASSEMBLY_HAS_DIFFERENT_GRANT",
					 "ASSEMBLY_NOT_DOMAIN_NEUTRAL",
					 "NATIVEIMAGE_VERSION_MISMATCH",
					 "LOADFROM_NOT_ALLOWED",
					 "DEPENDENCY_HAS_DIFFERENT_IDENTITY" };
/* FitBucketInfo's kind: TraceEvent's name where a trace showed it, else the number. */
static const char *const bucket_kind[] = { NULL, "PlugsInCondemned" };

/* Flag sets: bit and name, shown as C# shows a [Flags] enum (TraceEvent's display): the
 * names joined with ", ", "None" for 0, the number itself when a bit has no name. */
typedef struct flag {
	uint32_t bit;
	const char *name;
} flag;
static const flag sku_flags[] = { { 1, "DesktopClr" }, { 2, "CoreClr" } };
static const flag startup_mode[] = { { 1, "ManagedExe" }, { 2, "HostedClr" }, { 4, "IjwDll" }, { 8, "ComActivated" },
				     { 16, "Other" } };
static const flag mechanism_flags[] = { { 1, "Concurrent" }, { 2, "Compaction" }, { 4, "Promotion" }, { 8, "Demotion" },
					{ 16, "CardBundles" } };
static const flag method_flags[] = { { 1, "Dynamic" }, { 2, "Generic" }, { 4, "HasSharedGenericCode" }, { 8, "Jitted" },
				     { 16, "JitHelper" }, { 32, "ProfilerRejectedPrecompiledCode" },
				     { 64, "ReadyToRunRejectedPrecompiledCode" } };
static const flag module_flags[] = { { 1, "DomainNeutral" }, { 2, "NativeImage" }, { 4, "Dynamic" }, { 8, "Manifest" },
				     { 16, "IbcOptimized" }, { 32, "ReadyToRunModule" }, { 64, "PartialReadyToRunModule" } };
static const flag exception_flags[] = { { 1, "HasInnerException" }, { 2, "Nested" }, { 4, "ReThrown" },
					{ 8, "CorruptedState" }, { 16, "CLSCompliant" } };
static const flag appdomain_flags[] = { { 1, "Default" }, { 2, "Executable" }, { 4, "Shared" } };
static const flag assembly_flags[] = { { 1, "DomainNeutral" }, { 2, "Dynamic" }, { 4, "NativeImage" }, { 8, "Collectible" },
				       { 16, "ReadyToRun" } };
/* The kernel's disk I/O IRP flags and priority (TraceEvent's IrpFlags and IOPriority; of two
 * names for a bit, the one TraceEvent shows). */
static const flag irp_flags[] = { { 0x1, "Nocache" },	      { 0x2, "MountCompletion" },   { 0x4, "SynchronousApi" },
				  { 0x8, "AssociatedIrp" },   { 0x10, "BufferedIO" },	    { 0x20, "DeallocateBuffer" },
				  { 0x40, "SynchronousPagingIO" }, { 0x80, "Create" },	    { 0x100, "Read" },
				  { 0x200, "Write" },	      { 0x400, "Close" },	    { 0x800, "DeferIOCompletion" },
				  { 0x1000, "ObQueryName" },  { 0x2000, "HoldDeviceQueue" } };
static const char *const io_priority[] = { "Notset", "Verylow", "Low", "Normal", "High", "Critical", "Reserved0", "Reserved1" };
static const flag startup_flags[] = {
	{ 0x1, "CONCURRENT_GC" }, { 0x2, "LOADER_OPTIMIZATION_SINGLE_DOMAIN" }, { 0x4, "LOADER_OPTIMIZATION_MULTI_DOMAIN" },
	{ 0x10, "LOADER_SAFEMODE" }, { 0x100, "LOADER_SETPREFERENCE" }, { 0x1000, "SERVER_GC" }, { 0x2000, "HOARD_GC_VM" },
	{ 0x4000, "SINGLE_VERSION_HOSTING_INTERFACE" }, { 0x10000, "LEGACY_IMPERSONATION" },
	{ 0x20000, "DISABLE_COMMITTHREADSTACK" }, { 0x40000, "ALWAYSFLOW_IMPERSONATION" }, { 0x80000, "TRIM_GC_COMMIT" },
	{ 0x100000, "ETW" }, { 0x200000, "SERVER_BUILD" }, { 0x400000, "ARM" } };

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void named(char *buf, size_t cap, uint64_t v, uint8_t map)
{
	const char *const *names = NULL;
	const flag *flags = NULL;
	size_t n = 0;
	switch (map) {
	case M_GC_REASON: names = gc_reason, n = N(gc_reason); break;
	case M_GC_TYPE: names = gc_type, n = N(gc_type); break;
	case M_SUSPEND: names = suspend, n = N(suspend); break;
	case M_ALLOC_KIND: names = alloc_kind, n = N(alloc_kind); break;
	case M_SEGMENT: names = segment, n = N(segment); break;
	case M_PAUSE_MODE: names = pause_mode, n = N(pause_mode); break;
	case M_CONTENTION: names = contention, n = N(contention); break;
	case M_SKU: flags = sku_flags, n = N(sku_flags); break;
	case M_STARTUP_MODE: flags = startup_mode, n = N(startup_mode); break;
	case M_GC_MECHANISMS: flags = mechanism_flags, n = N(mechanism_flags); break;
	case M_METHOD_FLAGS: flags = method_flags, n = N(method_flags); break;
	case M_MODULE_FLAGS: flags = module_flags, n = N(module_flags); break;
	case M_ASSEMBLY_FLAGS: flags = assembly_flags, n = N(assembly_flags); break;
	case M_STARTUP_FLAGS: flags = startup_flags, n = N(startup_flags); break;
	case M_EXCEPTION_FLAGS: flags = exception_flags, n = N(exception_flags); break;
	case M_APPDOMAIN_FLAGS: flags = appdomain_flags, n = N(appdomain_flags); break;
	case M_IRP_FLAGS: flags = irp_flags, n = N(irp_flags); break;
	case M_IO_PRIORITY: names = io_priority, n = N(io_priority); break;
	case M_BUCKET_KIND: names = bucket_kind, n = N(bucket_kind); break;
	case M_NGEN_BIND: names = ngen_bind, n = N(ngen_bind); break;
	case M_COMPACT: case M_EXPAND: {
		const char *const *r = map == M_COMPACT ? compact_reason : expand_reason;
		size_t rn = map == M_COMPACT ? N(compact_reason) : N(expand_reason);
		uint64_t bits = v & 0x7fffffff;
		unsigned i = bits ? (unsigned)__builtin_ctzll(bits) : 0;
		if (!(v & 0x80000000) || !bits)
			snprintf(buf, cap, "not_specified");
		else if (i < rn)
			snprintf(buf, cap, "%s", r[i]);
		else
			sv_etl_int_text(buf, cap, v, false, false);
		return;
	}
	default: break;
	}
	if (names && v < n && names[v]) {
		snprintf(buf, cap, "%s", names[v]);
	} else if (flags) {
		uint64_t known = 0;
		for (size_t i = 0; i < n; i++)
			known |= flags[i].bit;
		if (!v) {
			snprintf(buf, cap, "None");
		} else if (v & ~known) {
			sv_etl_int_text(buf, cap, v, false, false);
		} else {
			size_t o = 0;
			for (size_t i = 0; i < n && o < cap; i++)
				if (v & flags[i].bit)
					o += (size_t)snprintf(buf + o, cap - o, "%s%s", o ? ", " : "", flags[i].name);
		}
	} else {
		sv_etl_int_text(buf, cap, v, false, false);
	}
}

void sv_clr_irp_text(uint32_t raw, char *flags, size_t fcap, char *prio, size_t pcap)
{
	named(flags, fcap, raw & ~(uint32_t)0xe0000, M_IRP_FLAGS);
	named(prio, pcap, (raw >> 17) & 7, M_IO_PRIORITY);
}

static const clr_template *find(const clr_template *t, size_t n, const char *event)
{
	for (size_t i = 0; i < n; i++) /* (the first letter tells most apart without a call) */
		if (t[i].event[0] == event[0] && strcmp(t[i].event, event) == 0)
			return &t[i];
	return NULL;
}

/* The template of a kind, by its provider's name and the event's. */
static const clr_template *template_of(const char *kind)
{
	static const struct {
		const char *prefix;
		const clr_template *t;
		size_t n;
	} providers[] = { { "Microsoft-Windows-DotNETRuntimeRundown/", rundown, N(rundown) },
			  { "Microsoft-Windows-DotNETRuntimePrivate/", private_events, N(private_events) },
			  { "Microsoft-Windows-DotNETRuntime/", runtime, N(runtime) } };
	for (size_t i = 0; i < N(providers); i++) {
		size_t l = strlen(providers[i].prefix);
		if (strncmp(kind, providers[i].prefix, l) == 0)
			return find(providers[i].t, providers[i].n, kind + l);
	}
	return NULL;
}

bool sv_clr_has_template(const char *kind)
{
	return template_of(kind) != NULL;
}

/* The fields TraceEvent shows past a template's: BulkType's first type (TypeID_0,
 * TypeName_0) from its array (u64 TypeID, u64 ModuleID, u32 TypeNameID, u32 Flags, u8
 * CorElementType, UTF-16 TypeName, ...) after Count and ClrInstanceID (at = 6). */
static size_t derived(const char *kind, const unsigned char *p, size_t n, size_t at, sv_clr_field_fn fn, void *payload)
{
	if (strcmp(kind, "Microsoft-Windows-DotNETRuntime/Type/BulkType") != 0 || at != 6 || n < 6 || !rd32(p) || n - at < 25)
		return 0;
	char buf[64];
	sv_etl_val_text(buf, sizeof(buf), EV_HEX64, p + at);
	fn(payload, "TypeID_0", buf);
	const unsigned char *q = p + at + 25;
	size_t left = n - at - 25, j;
	if (!sv_etl_utf16_ends(q, left, &j))
		return 1;
	char *s = sv_etl_dup_utf16(q, left, NULL);
	if (!s)
		return 1;
	fn(payload, "TypeName_0", s);
	free(s);
	return 2;
}

size_t sv_clr_decode(const char *kind, const unsigned char *p, size_t n, unsigned ptr, sv_clr_field_fn fn, void *payload)
{
	const clr_template *t = template_of(kind);
	if (!t)
		return 0;
	size_t at = 0, k = 0;
	char buf[1024], il_name[512] = "";
	for (int i = 0; i < MAXF && t->f[i].name; i++) {
		const clr_field *f = &t->f[i];
		const unsigned char *q = p + at;
		size_t left = n - at, w = 0;
		uint64_t v = 0;
		switch (f->type) {
		case U8: w = 1; break;
		case U16: w = 2; break;
		case U32: case I32: case X32: case BOOL32: w = 4; break;
		case U64: case I64: case X64: case F64: w = 8; break;
		case PTR: w = ptr; break;
		case GUID: w = 16; break;
		default: break;
		}
		if (f->type == USTR) {
			size_t j;
			if (!sv_etl_utf16_ends(q, left, &j))
				break;
			size_t used = 0;
			char local[2048]; /* most strings: no allocation (the listing decodes millions) */
			char *s = j / 2 * 3 + 1 <= sizeof(local) ? local : sv_etl_dup_utf16(q, left, &used);
			if (s == local)
				sv_etl_utf16_into(q, left, local, sizeof(local), &used);
			if (!s)
				break;
			fn(payload, f->name, s);
			if (!strcmp(f->name, "ModuleILPath")) { /* TraceEvent's ModuleILFileName: its file name */
				const char *b = s;
				for (const char *c = s; *c; c++)
					if (*c == '\\' || *c == '/')
						b = c + 1;
				size_t bl = strlen(b) < sizeof(il_name) - 1 ? strlen(b) : sizeof(il_name) - 1;
				memcpy(il_name, b, bl);
				il_name[bl] = '\0';
			}
			if (s != local)
				free(s);
			at += used, k++;
			continue;
		}
		if (!w || left < w)
			break;
		v = w == 1 ? q[0] : w == 2 ? rd16(q) : w == 4 ? rd32(q) : w == 8 ? rd64(q) : 0;
		switch (f->type) {
		case I32: sv_etl_val_text(buf, sizeof(buf), EV_I32, q); break;
		case I64: sv_etl_val_text(buf, sizeof(buf), EV_I64, q); break;
		case X32: sv_etl_val_text(buf, sizeof(buf), EV_HEX32, q); break;
		case X64: sv_etl_val_text(buf, sizeof(buf), EV_HEX64, q); break;
		case PTR: sv_etl_val_text(buf, sizeof(buf), w == 8 ? EV_HEX64 : EV_HEX32, q); break;
		case BOOL32: sv_etl_val_text(buf, sizeof(buf), EV_BOOL32, q); break;
		case F64: sv_etl_val_text(buf, sizeof(buf), EV_F64, q); break;
		case GUID: sv_etl_val_text(buf, sizeof(buf), EV_GUID, q); break;
		default: named(buf, sizeof(buf), v, f->map); break;
		}
		fn(payload, f->name, buf);
		at += w, k++;
	}
	if (il_name[0]) {
		fn(payload, "ModuleILFileName", il_name);
		k++;
	}
	return k + derived(kind, p, n, at, fn, payload);
}
