// The texture and surface object types of CUDA 13.0's runtime API
// (cudaResourceDesc, cudaResourceViewDesc, cudaTextureDesc and their enums),
// with CUDA's layouts and values; included by CudaTypes.h inside namespace
// cudart, and checked against CUDA's headers with the rest
// (tests/runtime/CudartAbiTest.cpp).
#pragma once

enum cudaResourceType : int {
  cudaResourceTypeArray = 0x00,
  cudaResourceTypeMipmappedArray = 0x01,
  cudaResourceTypeLinear = 0x02,
  cudaResourceTypePitch2D = 0x03
};

/// A view's texel format: 1, 2 or 4 channels of 8, 16 or 32 bits (0x01-0x18, unsigned, signed
/// by width, then half and float), then block-compressed formats (0x19-0x22).
enum cudaResourceViewFormat : int {
  cudaResViewFormatNone = 0x00,
  cudaResViewFormatUnsignedChar1 = 0x01,
  cudaResViewFormatUnsignedChar2 = 0x02,
  cudaResViewFormatUnsignedChar4 = 0x03,
  cudaResViewFormatSignedChar1 = 0x04,
  cudaResViewFormatSignedChar2 = 0x05,
  cudaResViewFormatSignedChar4 = 0x06,
  cudaResViewFormatUnsignedShort1 = 0x07,
  cudaResViewFormatUnsignedShort2 = 0x08,
  cudaResViewFormatUnsignedShort4 = 0x09,
  cudaResViewFormatSignedShort1 = 0x0a,
  cudaResViewFormatSignedShort2 = 0x0b,
  cudaResViewFormatSignedShort4 = 0x0c,
  cudaResViewFormatUnsignedInt1 = 0x0d,
  cudaResViewFormatUnsignedInt2 = 0x0e,
  cudaResViewFormatUnsignedInt4 = 0x0f,
  cudaResViewFormatSignedInt1 = 0x10,
  cudaResViewFormatSignedInt2 = 0x11,
  cudaResViewFormatSignedInt4 = 0x12,
  cudaResViewFormatHalf1 = 0x13,
  cudaResViewFormatHalf2 = 0x14,
  cudaResViewFormatHalf4 = 0x15,
  cudaResViewFormatFloat1 = 0x16,
  cudaResViewFormatFloat2 = 0x17,
  cudaResViewFormatFloat4 = 0x18,
  cudaResViewFormatUnsignedBlockCompressed1 = 0x19,
  cudaResViewFormatUnsignedBlockCompressed7 = 0x22
};

struct cudaResourceDesc {
  cudaResourceType resType;
  union {
    struct {
      cudaArray_t array;
    } array;
    struct {
      cudaMipmappedArray_t mipmap;
    } mipmap;
    struct {
      void *devPtr;
      cudaChannelFormatDesc desc;
      size_t sizeInBytes;
    } linear;
    struct {
      void *devPtr;
      cudaChannelFormatDesc desc;
      size_t width;
      size_t height;
      size_t pitchInBytes;
    } pitch2D;
    struct {
      int reserved[32];
    } reserved;
  } res;
  unsigned int flags;
};

struct cudaResourceViewDesc {
  cudaResourceViewFormat format;
  size_t width;
  size_t height;
  size_t depth;
  unsigned int firstMipmapLevel;
  unsigned int lastMipmapLevel;
  unsigned int firstLayer;
  unsigned int lastLayer;
  unsigned int reserved[16];
};

enum cudaTextureAddressMode : int {
  cudaAddressModeWrap = 0,
  cudaAddressModeClamp = 1,
  cudaAddressModeMirror = 2,
  cudaAddressModeBorder = 3
};
enum cudaTextureFilterMode : int { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
enum cudaTextureReadMode : int { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };

struct cudaTextureDesc {
  cudaTextureAddressMode addressMode[3];
  cudaTextureFilterMode filterMode;
  cudaTextureReadMode readMode;
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned int maxAnisotropy;
  cudaTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
  int disableTrilinearOptimization;
  int seamlessCubemap;
};

using cudaTextureObject_t = unsigned long long;
using cudaSurfaceObject_t = unsigned long long;
