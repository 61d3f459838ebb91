// The CUDA runtime API's types, as libcudart.so.13 exchanges them with programs: enums, structs
// and handles declared here (in namespace cudart) with the layouts and values of CUDA 13.0's
// headers. tests/runtime/CudartAbiTest.cpp checks them against the real headers when those exist.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cudart {

enum cudaError : int {
#define CUDART_ERROR(name, value, message) name = value,
#include "runtime/cudart/Errors.def"
#undef CUDART_ERROR
};
using cudaError_t = cudaError;

struct dim3 {
  unsigned int x = 1, y = 1, z = 1;
};
struct uint3 {
  unsigned int x, y, z;
};

// Opaque handles: the runtime hands out pointers to its own objects.
struct CUstream_st;
struct CUevent_st;
struct CUkern_st;
struct CUfunc_st;
struct CUmemPoolHandle_st;
struct cudaArray;
struct cudaMipmappedArray;
struct CUgraph_st;
struct CUgraphNode_st;
struct CUgraphExec_st;
using cudaStream_t = CUstream_st *;
using cudaEvent_t = CUevent_st *;
using cudaKernel_t = CUkern_st *;
using cudaFunction_t = CUfunc_st *;
using cudaMemPool_t = CUmemPoolHandle_st *;
using cudaArray_t = cudaArray *;
using cudaArray_const_t = const cudaArray *;
using cudaMipmappedArray_t = cudaMipmappedArray *;
using cudaMipmappedArray_const_t = const cudaMipmappedArray *;
using cudaGraph_t = CUgraph_st *;
using cudaGraphNode_t = CUgraphNode_st *;
using cudaGraphExec_t = CUgraphExec_st *;

using cudaHostFn_t = void (*)(void *userData);
using cudaStreamCallback_t = void (*)(cudaStream_t stream, cudaError_t status, void *userData);

// Special stream handles.
inline cudaStream_t const cudaStreamLegacy = reinterpret_cast<cudaStream_t>(0x1);
inline cudaStream_t const cudaStreamPerThread = reinterpret_cast<cudaStream_t>(0x2);

// Flags.
constexpr unsigned cudaHostAllocDefault = 0x00, cudaHostAllocPortable = 0x01, cudaHostAllocMapped = 0x02,
                   cudaHostAllocWriteCombined = 0x04;
constexpr unsigned cudaHostRegisterDefault = 0x00, cudaHostRegisterPortable = 0x01,
                   cudaHostRegisterMapped = 0x02, cudaHostRegisterIoMemory = 0x04,
                   cudaHostRegisterReadOnly = 0x08;
constexpr unsigned cudaStreamDefault = 0x00, cudaStreamNonBlocking = 0x01;
constexpr unsigned cudaEventDefault = 0x00, cudaEventBlockingSync = 0x01, cudaEventDisableTiming = 0x02,
                   cudaEventInterprocess = 0x04;
constexpr unsigned cudaDeviceScheduleAuto = 0x00, cudaDeviceScheduleSpin = 0x01,
                   cudaDeviceScheduleYield = 0x02, cudaDeviceScheduleBlockingSync = 0x04,
                   cudaDeviceScheduleMask = 0x07, cudaDeviceMapHost = 0x08, cudaDeviceLmemResizeToMax = 0x10,
                   cudaDeviceMask = 0xff;
constexpr unsigned cudaMemAttachGlobal = 0x01, cudaMemAttachHost = 0x02, cudaMemAttachSingle = 0x04;
constexpr unsigned cudaOccupancyDefault = 0x00, cudaOccupancyDisableCachingOverride = 0x01;

enum cudaMemcpyKind : int {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};

enum cudaMemoryType : int {
  cudaMemoryTypeUnregistered = 0,
  cudaMemoryTypeHost = 1,
  cudaMemoryTypeDevice = 2,
  cudaMemoryTypeManaged = 3
};

struct cudaPointerAttributes {
  cudaMemoryType type;
  int device;
  void *devicePointer;
  void *hostPointer;
  long reserved[8];
};

enum cudaLimit : int {
  cudaLimitStackSize = 0x00,
  cudaLimitPrintfFifoSize = 0x01,
  cudaLimitMallocHeapSize = 0x02,
  cudaLimitDevRuntimeSyncDepth = 0x03,
  cudaLimitDevRuntimePendingLaunchCount = 0x04,
  cudaLimitMaxL2FetchGranularity = 0x05,
  cudaLimitPersistingL2CacheSize = 0x06
};

enum cudaFuncCache : int {
  cudaFuncCachePreferNone = 0,
  cudaFuncCachePreferShared = 1,
  cudaFuncCachePreferL1 = 2,
  cudaFuncCachePreferEqual = 3
};

enum cudaSharedMemConfig : int {
  cudaSharedMemBankSizeDefault = 0,
  cudaSharedMemBankSizeFourByte = 1,
  cudaSharedMemBankSizeEightByte = 2
};

enum cudaFuncAttribute : int {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
  cudaFuncAttributeClusterDimMustBeSet = 10,
  cudaFuncAttributeRequiredClusterWidth = 11,
  cudaFuncAttributeRequiredClusterHeight = 12,
  cudaFuncAttributeRequiredClusterDepth = 13,
  cudaFuncAttributeNonPortableClusterSizeAllowed = 14,
  cudaFuncAttributeClusterSchedulingPolicyPreference = 15
};

struct cudaFuncAttributes {
  size_t sharedSizeBytes;
  size_t constSizeBytes;
  size_t localSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int ptxVersion;
  int binaryVersion;
  int cacheModeCA;
  int maxDynamicSharedSizeBytes;
  int preferredShmemCarveout;
  int clusterDimMustBeSet;
  int requiredClusterWidth;
  int requiredClusterHeight;
  int requiredClusterDepth;
  int clusterSchedulingPolicyPreference;
  int nonPortableClusterSizeAllowed;
  int reserved[16];
};

struct cudaUUID_t {
  char bytes[16];
};

struct cudaDeviceProp {
  char name[256];
  cudaUUID_t uuid;
  char luid[8];
  unsigned int luidDeviceNodeMask;
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  size_t totalConstMem;
  int major;
  int minor;
  size_t textureAlignment;
  size_t texturePitchAlignment;
  int multiProcessorCount;
  int integrated;
  int canMapHostMemory;
  int maxTexture1D;
  int maxTexture1DMipmap;
  int maxTexture2D[2];
  int maxTexture2DMipmap[2];
  int maxTexture2DLinear[3];
  int maxTexture2DGather[2];
  int maxTexture3D[3];
  int maxTexture3DAlt[3];
  int maxTextureCubemap;
  int maxTexture1DLayered[2];
  int maxTexture2DLayered[3];
  int maxTextureCubemapLayered[2];
  int maxSurface1D;
  int maxSurface2D[2];
  int maxSurface3D[3];
  int maxSurface1DLayered[2];
  int maxSurface2DLayered[3];
  int maxSurfaceCubemap;
  int maxSurfaceCubemapLayered[2];
  size_t surfaceAlignment;
  int concurrentKernels;
  int ECCEnabled;
  int pciBusID;
  int pciDeviceID;
  int pciDomainID;
  int tccDriver;
  int asyncEngineCount;
  int unifiedAddressing;
  int memoryBusWidth;
  int l2CacheSize;
  int persistingL2CacheMaxSize;
  int maxThreadsPerMultiProcessor;
  int streamPrioritiesSupported;
  int globalL1CacheSupported;
  int localL1CacheSupported;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor;
  int managedMemory;
  int isMultiGpuBoard;
  int multiGpuBoardGroupID;
  int hostNativeAtomicSupported;
  int pageableMemoryAccess;
  int concurrentManagedAccess;
  int computePreemptionSupported;
  int canUseHostPointerForRegisteredMem;
  int cooperativeLaunch;
  size_t sharedMemPerBlockOptin;
  int pageableMemoryAccessUsesHostPageTables;
  int directManagedMemAccessFromHost;
  int maxBlocksPerMultiProcessor;
  int accessPolicyMaxWindowSize;
  size_t reservedSharedMemPerBlock;
  int hostRegisterSupported;
  int sparseCudaArraySupported;
  int hostRegisterReadOnlySupported;
  int timelineSemaphoreInteropSupported;
  int memoryPoolsSupported;
  int gpuDirectRDMASupported;
  unsigned int gpuDirectRDMAFlushWritesOptions;
  int gpuDirectRDMAWritesOrdering;
  unsigned int memoryPoolSupportedHandleTypes;
  int deferredMappingCudaArraySupported;
  int ipcEventSupported;
  int clusterLaunch;
  int unifiedFunctionPointers;
  int deviceNumaConfig;
  int deviceNumaId;
  int mpsEnabled;
  int hostNumaId;
  unsigned int gpuPciDeviceID;
  unsigned int gpuPciSubsystemID;
  int hostNumaMultinodeIpcSupported;
  int reserved[56];
};

enum cudaDeviceAttr : int {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMaxBlockDimX = 2,
  cudaDevAttrMaxBlockDimY = 3,
  cudaDevAttrMaxBlockDimZ = 4,
  cudaDevAttrMaxGridDimX = 5,
  cudaDevAttrMaxGridDimY = 6,
  cudaDevAttrMaxGridDimZ = 7,
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrTotalConstantMemory = 9,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrMaxPitch = 11,
  cudaDevAttrMaxRegistersPerBlock = 12,
  cudaDevAttrClockRate = 13,
  cudaDevAttrTextureAlignment = 14,
  cudaDevAttrGpuOverlap = 15,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrKernelExecTimeout = 17,
  cudaDevAttrIntegrated = 18,
  cudaDevAttrCanMapHostMemory = 19,
  cudaDevAttrComputeMode = 20,
  cudaDevAttrMaxTexture1DWidth = 21,
  cudaDevAttrMaxTexture2DWidth = 22,
  cudaDevAttrMaxTexture2DHeight = 23,
  cudaDevAttrMaxTexture3DWidth = 24,
  cudaDevAttrMaxTexture3DHeight = 25,
  cudaDevAttrMaxTexture3DDepth = 26,
  cudaDevAttrMaxTexture2DLayeredWidth = 27,
  cudaDevAttrMaxTexture2DLayeredHeight = 28,
  cudaDevAttrMaxTexture2DLayeredLayers = 29,
  cudaDevAttrSurfaceAlignment = 30,
  cudaDevAttrConcurrentKernels = 31,
  cudaDevAttrEccEnabled = 32,
  cudaDevAttrPciBusId = 33,
  cudaDevAttrPciDeviceId = 34,
  cudaDevAttrTccDriver = 35,
  cudaDevAttrMemoryClockRate = 36,
  cudaDevAttrGlobalMemoryBusWidth = 37,
  cudaDevAttrL2CacheSize = 38,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39,
  cudaDevAttrAsyncEngineCount = 40,
  cudaDevAttrUnifiedAddressing = 41,
  cudaDevAttrMaxTexture1DLayeredWidth = 42,
  cudaDevAttrMaxTexture1DLayeredLayers = 43,
  cudaDevAttrMaxTexture2DGatherWidth = 45,
  cudaDevAttrMaxTexture2DGatherHeight = 46,
  cudaDevAttrMaxTexture3DWidthAlt = 47,
  cudaDevAttrMaxTexture3DHeightAlt = 48,
  cudaDevAttrMaxTexture3DDepthAlt = 49,
  cudaDevAttrPciDomainId = 50,
  cudaDevAttrTexturePitchAlignment = 51,
  cudaDevAttrMaxTextureCubemapWidth = 52,
  cudaDevAttrMaxTextureCubemapLayeredWidth = 53,
  cudaDevAttrMaxTextureCubemapLayeredLayers = 54,
  cudaDevAttrMaxSurface1DWidth = 55,
  cudaDevAttrMaxSurface2DWidth = 56,
  cudaDevAttrMaxSurface2DHeight = 57,
  cudaDevAttrMaxSurface3DWidth = 58,
  cudaDevAttrMaxSurface3DHeight = 59,
  cudaDevAttrMaxSurface3DDepth = 60,
  cudaDevAttrMaxSurface1DLayeredWidth = 61,
  cudaDevAttrMaxSurface1DLayeredLayers = 62,
  cudaDevAttrMaxSurface2DLayeredWidth = 63,
  cudaDevAttrMaxSurface2DLayeredHeight = 64,
  cudaDevAttrMaxSurface2DLayeredLayers = 65,
  cudaDevAttrMaxSurfaceCubemapWidth = 66,
  cudaDevAttrMaxSurfaceCubemapLayeredWidth = 67,
  cudaDevAttrMaxSurfaceCubemapLayeredLayers = 68,
  cudaDevAttrMaxTexture1DLinearWidth = 69,
  cudaDevAttrMaxTexture2DLinearWidth = 70,
  cudaDevAttrMaxTexture2DLinearHeight = 71,
  cudaDevAttrMaxTexture2DLinearPitch = 72,
  cudaDevAttrMaxTexture2DMipmappedWidth = 73,
  cudaDevAttrMaxTexture2DMipmappedHeight = 74,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrMaxTexture1DMipmappedWidth = 77,
  cudaDevAttrStreamPrioritiesSupported = 78,
  cudaDevAttrGlobalL1CacheSupported = 79,
  cudaDevAttrLocalL1CacheSupported = 80,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
  cudaDevAttrMaxRegistersPerMultiprocessor = 82,
  cudaDevAttrManagedMemory = 83,
  cudaDevAttrIsMultiGpuBoard = 84,
  cudaDevAttrMultiGpuBoardGroupID = 85,
  cudaDevAttrHostNativeAtomicSupported = 86,
  cudaDevAttrSingleToDoublePrecisionPerfRatio = 87,
  cudaDevAttrPageableMemoryAccess = 88,
  cudaDevAttrConcurrentManagedAccess = 89,
  cudaDevAttrComputePreemptionSupported = 90,
  cudaDevAttrCanUseHostPointerForRegisteredMem = 91,
  cudaDevAttrReserved92 = 92,
  cudaDevAttrReserved93 = 93,
  cudaDevAttrReserved94 = 94,
  cudaDevAttrCooperativeLaunch = 95,
  cudaDevAttrReserved96 = 96,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
  cudaDevAttrCanFlushRemoteWrites = 98,
  cudaDevAttrHostRegisterSupported = 99,
  cudaDevAttrPageableMemoryAccessUsesHostPageTables = 100,
  cudaDevAttrDirectManagedMemAccessFromHost = 101,
  cudaDevAttrMaxBlocksPerMultiprocessor = 106,
  cudaDevAttrMaxPersistingL2CacheSize = 108,
  cudaDevAttrMaxAccessPolicyWindowSize = 109,
  cudaDevAttrReservedSharedMemoryPerBlock = 111,
  cudaDevAttrSparseCudaArraySupported = 112,
  cudaDevAttrHostRegisterReadOnlySupported = 113,
  cudaDevAttrTimelineSemaphoreInteropSupported = 114,
  cudaDevAttrMemoryPoolsSupported = 115,
  cudaDevAttrGPUDirectRDMASupported = 116,
  cudaDevAttrGPUDirectRDMAFlushWritesOptions = 117,
  cudaDevAttrGPUDirectRDMAWritesOrdering = 118,
  cudaDevAttrMemoryPoolSupportedHandleTypes = 119,
  cudaDevAttrClusterLaunch = 120,
  cudaDevAttrDeferredMappingCudaArraySupported = 121,
  cudaDevAttrReserved122 = 122,
  cudaDevAttrReserved123 = 123,
  cudaDevAttrReserved124 = 124,
  cudaDevAttrIpcEventSupport = 125,
  cudaDevAttrMemSyncDomainCount = 126,
  cudaDevAttrReserved127 = 127,
  cudaDevAttrReserved128 = 128,
  cudaDevAttrReserved129 = 129,
  cudaDevAttrNumaConfig = 130,
  cudaDevAttrNumaId = 131,
  cudaDevAttrReserved132 = 132,
  cudaDevAttrMpsEnabled = 133,
  cudaDevAttrHostNumaId = 134,
  cudaDevAttrD3D12CigSupported = 135,
  cudaDevAttrVulkanCigSupported = 138,
  cudaDevAttrGpuPciDeviceId = 139,
  cudaDevAttrGpuPciSubsystemId = 140,
  cudaDevAttrReserved141 = 141,
  cudaDevAttrHostNumaMemoryPoolsSupported = 142,
  cudaDevAttrHostNumaMultinodeIpcSupported = 143,
  cudaDevAttrHostMemoryPoolsSupported = 144,
  cudaDevAttrReserved145 = 145,
  cudaDevAttrOnlyPartialHostNativeAtomicSupported = 147,
};

enum cudaLaunchAttributeID : int {
  cudaLaunchAttributeIgnore = 0,
  cudaLaunchAttributeAccessPolicyWindow = 1,
  cudaLaunchAttributeCooperative = 2,
  cudaLaunchAttributeSynchronizationPolicy = 3,
  cudaLaunchAttributeClusterDimension = 4,
  cudaLaunchAttributeClusterSchedulingPolicyPreference = 5,
  cudaLaunchAttributeProgrammaticStreamSerialization = 6,
  cudaLaunchAttributeProgrammaticEvent = 7,
  cudaLaunchAttributePriority = 8,
  cudaLaunchAttributeMemSyncDomainMap = 9,
  cudaLaunchAttributeMemSyncDomain = 10,
  cudaLaunchAttributePreferredClusterDimension = 11,
  cudaLaunchAttributeLaunchCompletionEvent = 12,
  cudaLaunchAttributeDeviceUpdatableKernelNode = 13,
  cudaLaunchAttributePreferredSharedMemoryCarveout = 14,
  cudaLaunchAttributeNvlinkUtilCentricScheduling = 16
};

/// The value of a launch attribute: a 64-byte union; the runtime reads the
/// members it serves.
union cudaLaunchAttributeValue {
  char pad[64];
  int cooperative;
  int priority;
  struct {
    unsigned int x, y, z;
  } clusterDim;
  struct {
    int deviceUpdatable;
    unsigned long long devNode; // the handle device code updates the node by (a cudaGraphDeviceNode_t)
  } deviceUpdatableKernelNode;
  unsigned int sharedMemCarveout;
};

struct cudaLaunchAttribute {
  cudaLaunchAttributeID id;
  char pad[8 - sizeof(cudaLaunchAttributeID)];
  cudaLaunchAttributeValue val;
};

struct cudaLaunchConfig_t {
  dim3 gridDim;
  dim3 blockDim;
  size_t dynamicSmemBytes;
  cudaStream_t stream;
  cudaLaunchAttribute *attrs;
  unsigned int numAttrs;
};

enum cudaChannelFormatKind : int {
  cudaChannelFormatKindSigned = 0,
  cudaChannelFormatKindUnsigned = 1,
  cudaChannelFormatKindFloat = 2,
  cudaChannelFormatKindNone = 3
};

struct cudaChannelFormatDesc {
  int x, y, z, w;
  cudaChannelFormatKind f;
};

struct cudaPitchedPtr {
  void *ptr;
  size_t pitch;
  size_t xsize;
  size_t ysize;
};

struct cudaExtent {
  size_t width, height, depth;
};

struct cudaPos {
  size_t x, y, z;
};

struct cudaMemcpy3DParms {
  cudaArray_t srcArray;
  cudaPos srcPos;
  cudaPitchedPtr srcPtr;
  cudaArray_t dstArray;
  cudaPos dstPos;
  cudaPitchedPtr dstPtr;
  cudaExtent extent;
  cudaMemcpyKind kind;
};

// CUDA arrays, texture and surface objects.
constexpr unsigned cudaArrayDefault = 0x00, cudaArrayLayered = 0x01, cudaArraySurfaceLoadStore = 0x02,
                   cudaArrayCubemap = 0x04, cudaArrayTextureGather = 0x08, cudaArrayColorAttachment = 0x20,
                   cudaArraySparse = 0x40, cudaArrayDeferredMapping = 0x80;

#include "runtime/cudart/CudaTextureTypes.h"

enum cudaMemLocationType : int {
  cudaMemLocationTypeInvalid = 0,
  cudaMemLocationTypeDevice = 1,
  cudaMemLocationTypeHost = 2,
  cudaMemLocationTypeHostNuma = 3,
  cudaMemLocationTypeHostNumaCurrent = 4
};

struct cudaMemLocation {
  cudaMemLocationType type;
  int id;
};

enum cudaMemAllocationType : int {
  cudaMemAllocationTypeInvalid = 0x0,
  cudaMemAllocationTypePinned = 0x1,
  cudaMemAllocationTypeManaged = 0x2,
  cudaMemAllocationTypeMax = 0x7FFFFFFF
};

enum cudaMemAllocationHandleType : int {
  cudaMemHandleTypeNone = 0x0,
  cudaMemHandleTypePosixFileDescriptor = 0x1,
  cudaMemHandleTypeWin32 = 0x2,
  cudaMemHandleTypeWin32Kmt = 0x4,
  cudaMemHandleTypeFabric = 0x8
};

struct cudaMemPoolProps {
  cudaMemAllocationType allocType;
  cudaMemAllocationHandleType handleTypes;
  cudaMemLocation location;
  void *win32SecurityAttributes;
  size_t maxSize;
  unsigned short usage;
  unsigned char reserved[54];
};

enum cudaMemAccessFlags : int {
  cudaMemAccessFlagsProtNone = 0,
  cudaMemAccessFlagsProtRead = 1,
  cudaMemAccessFlagsProtReadWrite = 3
};

struct cudaMemAccessDesc {
  cudaMemLocation location;
  cudaMemAccessFlags flags;
};

struct cudaMemAllocNodeParams {
  cudaMemPoolProps poolProps;
  const cudaMemAccessDesc *accessDescs;
  size_t accessDescCount;
  size_t bytesize;
  void *dptr;
};

enum cudaMemoryAdvise : int {
  cudaMemAdviseSetReadMostly = 1,
  cudaMemAdviseUnsetReadMostly = 2,
  cudaMemAdviseSetPreferredLocation = 3,
  cudaMemAdviseUnsetPreferredLocation = 4,
  cudaMemAdviseSetAccessedBy = 5,
  cudaMemAdviseUnsetAccessedBy = 6
};

enum cudaMemPoolAttr : int {
  cudaMemPoolReuseFollowEventDependencies = 0x1,
  cudaMemPoolReuseAllowOpportunistic = 0x2,
  cudaMemPoolReuseAllowInternalDependencies = 0x3,
  cudaMemPoolAttrReleaseThreshold = 0x4,
  cudaMemPoolAttrReservedMemCurrent = 0x5,
  cudaMemPoolAttrReservedMemHigh = 0x6,
  cudaMemPoolAttrUsedMemCurrent = 0x7,
  cudaMemPoolAttrUsedMemHigh = 0x8
};

enum cudaStreamCaptureStatus : int {
  cudaStreamCaptureStatusNone = 0,
  cudaStreamCaptureStatusActive = 1,
  cudaStreamCaptureStatusInvalidated = 2
};

enum cudaStreamCaptureMode : int {
  cudaStreamCaptureModeGlobal = 0,
  cudaStreamCaptureModeThreadLocal = 1,
  cudaStreamCaptureModeRelaxed = 2
};

enum cudaGraphNodeType : int {
  cudaGraphNodeTypeKernel = 0x00,
  cudaGraphNodeTypeMemcpy = 0x01,
  cudaGraphNodeTypeMemset = 0x02,
  cudaGraphNodeTypeHost = 0x03,
  cudaGraphNodeTypeGraph = 0x04,
  cudaGraphNodeTypeEmpty = 0x05,
  cudaGraphNodeTypeWaitEvent = 0x06,
  cudaGraphNodeTypeEventRecord = 0x07,
  cudaGraphNodeTypeExtSemaphoreSignal = 0x08,
  cudaGraphNodeTypeExtSemaphoreWait = 0x09,
  cudaGraphNodeTypeMemAlloc = 0x0a,
  cudaGraphNodeTypeMemFree = 0x0b,
  cudaGraphNodeTypeConditional = 0x0d
};

struct cudaKernelNodeParams {
  void *func;
  dim3 gridDim;
  dim3 blockDim;
  unsigned int sharedMemBytes;
  void **kernelParams;
  void **extra;
};

struct cudaMemsetParams {
  void *dst;
  size_t pitch;
  unsigned int value;
  unsigned int elementSize;
  size_t width;
  size_t height;
};

struct cudaHostNodeParams {
  cudaHostFn_t fn;
  void *userData;
};

// ---- cudaGraphAddNode's parameters (one struct for every kind of node) ----

using cudaGraphConditionalHandle = unsigned long long;
enum cudaGraphConditionalHandleFlags : int { cudaGraphCondAssignDefault = 1 };
enum cudaGraphConditionalNodeType : int {
  cudaGraphCondTypeIf = 0,
  cudaGraphCondTypeWhile = 1,
  cudaGraphCondTypeSwitch = 2
};
struct cudaConditionalNodeParams {
  cudaGraphConditionalHandle handle;
  cudaGraphConditionalNodeType type;
  unsigned int size;
  CUgraph_st **phGraph_out; // the runtime's array of body graphs, set when the node is made
};
// The V2 forms of the kernel, memset and host parameters have the V1 layouts.
using cudaKernelNodeParamsV2 = cudaKernelNodeParams;
using cudaMemsetParamsV2 = cudaMemsetParams;
using cudaHostNodeParamsV2 = cudaHostNodeParams;
struct cudaMemcpyNodeParams {
  int flags;
  int reserved[3];
  cudaMemcpy3DParms copyParams;
};
enum cudaGraphChildGraphNodeOwnership : int {
  cudaGraphChildGraphOwnershipClone = 0,
  cudaGraphChildGraphOwnershipMove = 1
};
struct cudaChildGraphNodeParams {
  CUgraph_st *graph;
  cudaGraphChildGraphNodeOwnership ownership;
};
struct cudaEventRecordNodeParams {
  cudaEvent_t event;
};
struct cudaEventWaitNodeParams {
  cudaEvent_t event;
};
struct cudaMemFreeNodeParams {
  void *dptr;
};
struct cudaGraphNodeParams {
  cudaGraphNodeType type;
  int reserved0[3];
  union {
    long long reserved1[29];
    cudaKernelNodeParamsV2 kernel;
    cudaMemcpyNodeParams memcpy;
    cudaMemsetParamsV2 memset;
    cudaHostNodeParamsV2 host;
    cudaChildGraphNodeParams graph;
    cudaEventWaitNodeParams eventWait;
    cudaEventRecordNodeParams eventRecord;
    cudaMemAllocNodeParams alloc; // the V2 struct has the same layout
    cudaMemFreeNodeParams free;
    cudaConditionalNodeParams conditional;
  };
  long long reserved2;
};

/// A graph edge's kind (programmatic edges of sm_90 have non-zero ports or type; ptxvm serves
/// only the default, all zero).
struct cudaGraphEdgeData {
  unsigned char from_port;
  unsigned char to_port;
  unsigned char type;
  unsigned char reserved[5];
};

enum cudaGraphExecUpdateResult : int {
  cudaGraphExecUpdateSuccess = 0x0,
  cudaGraphExecUpdateError = 0x1,
  cudaGraphExecUpdateErrorTopologyChanged = 0x2,
  cudaGraphExecUpdateErrorNodeTypeChanged = 0x3,
  cudaGraphExecUpdateErrorFunctionChanged = 0x4,
  cudaGraphExecUpdateErrorParametersChanged = 0x5,
  cudaGraphExecUpdateErrorNotSupported = 0x6,
  cudaGraphExecUpdateErrorUnsupportedFunctionChange = 0x7,
  cudaGraphExecUpdateErrorAttributesChanged = 0x8
};

struct cudaGraphExecUpdateResultInfo {
  cudaGraphExecUpdateResult result;
  cudaGraphNode_t errorNode;
  cudaGraphNode_t errorFromNode;
};

enum cudaGraphMemAttributeType : int {
  cudaGraphMemAttrUsedMemCurrent = 0x0,
  cudaGraphMemAttrUsedMemHigh = 0x1,
  cudaGraphMemAttrReservedMemCurrent = 0x2,
  cudaGraphMemAttrReservedMemHigh = 0x3
};

enum cudaGraphInstantiateResult : int {
  cudaGraphInstantiateSuccess = 0,
  cudaGraphInstantiateError = 1,
  cudaGraphInstantiateInvalidStructure = 2,
  cudaGraphInstantiateNodeOperationNotSupported = 3,
  cudaGraphInstantiateMultipleDevicesNotSupported = 4,
  cudaGraphInstantiateConditionalHandleUnused = 5
};

struct cudaGraphInstantiateParams {
  unsigned long long flags;
  cudaStream_t uploadStream;
  cudaGraphNode_t errNode_out;
  cudaGraphInstantiateResult result_out;
};

constexpr unsigned long long cudaGraphInstantiateFlagUpload = 2;
constexpr unsigned cudaStreamAddCaptureDependencies = 0x0;
constexpr unsigned cudaStreamSetCaptureDependencies = 0x1;

constexpr unsigned cudaEventRecordExternal = 0x01;
constexpr unsigned cudaEventWaitExternal = 0x01;

} // namespace cudart
