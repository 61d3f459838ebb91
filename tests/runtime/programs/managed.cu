// One pointer for host and device: managed memory (cudaMallocManaged, __managed__ variables),
// mapped pinned memory (cudaHostAlloc, cudaMallocHost, cudaHostGetDevicePointer) and registered
// host memory (cudaHostRegister), each touched by the host and by kernels.
//
// clang-format off
// RUN: %ptxvm exec -- %bin/managed | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: managed: ok
// clang-format on
#include "Inputs/check.h"

#include <cstdlib>
#include <vector>

__managed__ int managedCounter = 40;
__managed__ float managedArray[8];

__global__ void addOne(int *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
}

__global__ void touchManagedVariables() {
  atomicAdd(&managedCounter, 1);
  managedArray[threadIdx.x] = managedArray[threadIdx.x] * 2.0f + 1.0f;
}

int main() {
  // cudaMallocManaged: written by the host, updated by a kernel, read by the host.
  const int n = 300;
  int *m = nullptr;
  EXPECT_OK(cudaMallocManaged(&m, n * sizeof(int)));
  for (int i = 0; i < n; ++i) m[i] = i * 10;
  addOne<<<(n + 127) / 128, 128>>>(m, n);
  EXPECT_OK(cudaDeviceSynchronize());
  EXPECT(m[0] == 1 && m[299] == 2991);
  EXPECT_OK(cudaMemPrefetchAsync(m, n * sizeof(int), cudaMemLocation{cudaMemLocationTypeDevice, 0}, 0, 0));
  EXPECT_OK(cudaMemAdvise(m, n * sizeof(int), cudaMemAdviseSetReadMostly,
                          cudaMemLocation{cudaMemLocationTypeDevice, 0}));
  cudaPointerAttributes attr;
  EXPECT_OK(cudaPointerGetAttributes(&attr, m + 7));
  EXPECT(attr.type == cudaMemoryTypeManaged && attr.devicePointer == m + 7 && attr.hostPointer == m + 7);
  // Copies to and from managed memory work in every direction.
  int *d = nullptr;
  EXPECT_OK(cudaMalloc(&d, n * sizeof(int)));
  EXPECT_OK(cudaMemcpy(d, m, n * sizeof(int), cudaMemcpyDefault));
  addOne<<<(n + 127) / 128, 128>>>(d, n);
  EXPECT_OK(cudaMemcpy(m, d, n * sizeof(int), cudaMemcpyDeviceToDevice));
  EXPECT(m[5] == 52);
  EXPECT_ERR(cudaMallocManaged(&m, 0), cudaErrorInvalidValue);

  // __managed__ variables: the host sees the module's initial value and the kernel's updates.
  EXPECT(managedCounter == 40);
  for (int i = 0; i < 8; ++i) managedArray[i] = float(i);
  touchManagedVariables<<<1, 8>>>();
  EXPECT_OK(cudaDeviceSynchronize());
  EXPECT(managedCounter == 48);
  EXPECT(managedArray[3] == 7.0f);
  EXPECT_OK(cudaPointerGetAttributes(&attr, &managedCounter));
  EXPECT(attr.type == cudaMemoryTypeManaged);
  int counterOnDevice = 0;
  EXPECT_OK(cudaMemcpyFromSymbol(&counterOnDevice, managedCounter, sizeof(int)));
  EXPECT(counterOnDevice == 48);
  EXPECT_ERR(cudaFree(&managedCounter), cudaErrorInvalidValue);

  // Mapped pinned memory: the device pointer is the host pointer.
  int *pinned = nullptr, *pinnedDevice = nullptr;
  EXPECT_OK(cudaHostAlloc(&pinned, n * sizeof(int), cudaHostAllocMapped));
  EXPECT_OK(cudaHostGetDevicePointer(reinterpret_cast<void **>(&pinnedDevice), pinned, 0));
  EXPECT(pinnedDevice == pinned);
  for (int i = 0; i < n; ++i) pinned[i] = -i;
  addOne<<<(n + 127) / 128, 128>>>(pinnedDevice, n);
  EXPECT_OK(cudaDeviceSynchronize());
  EXPECT(pinned[0] == 1 && pinned[100] == -99);
  unsigned flags = 0;
  EXPECT_OK(cudaHostGetFlags(&flags, pinned));
  EXPECT(flags == cudaHostAllocMapped);
  EXPECT_OK(cudaPointerGetAttributes(&attr, pinned));
  EXPECT(attr.type == cudaMemoryTypeHost && attr.hostPointer == pinned && attr.devicePointer == pinned);
  EXPECT_ERR(cudaFree(pinned), cudaErrorInvalidValue); // pinned memory is freed with cudaFreeHost
  EXPECT_OK(cudaFreeHost(pinned));
  float *hostBuffer = nullptr;
  EXPECT_OK(cudaMallocHost(&hostBuffer, 64 * sizeof(float)));
  EXPECT_OK(cudaMemset(hostBuffer, 0, 64 * sizeof(float)));
  EXPECT_OK(cudaFreeHost(hostBuffer));

  // Registered host memory: a plain allocation the device may then use.
  std::vector<int> plain(n, 5);
  EXPECT_OK(cudaHostRegister(plain.data(), n * sizeof(int), cudaHostRegisterMapped));
  EXPECT_ERR(cudaHostRegister(plain.data() + 4, 16, cudaHostRegisterMapped),
             cudaErrorHostMemoryAlreadyRegistered);
  int *plainDevice = nullptr;
  EXPECT_OK(cudaHostGetDevicePointer(reinterpret_cast<void **>(&plainDevice), plain.data(), 0));
  addOne<<<(n + 127) / 128, 128>>>(plainDevice, n);
  EXPECT_OK(cudaDeviceSynchronize());
  EXPECT(plain[0] == 6 && plain[299] == 6);
  EXPECT_OK(cudaHostUnregister(plain.data()));
  EXPECT_ERR(cudaHostUnregister(plain.data()), cudaErrorHostMemoryNotRegistered);
  EXPECT_ERR(cudaHostGetDevicePointer(reinterpret_cast<void **>(&plainDevice), plain.data(), 0),
             cudaErrorInvalidValue);

  EXPECT_OK(cudaFree(m));
  EXPECT_OK(cudaFree(d));
  return finish("managed");
}
