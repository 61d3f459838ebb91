// Diagnostics rendered as compute-sanitizer prints them (runtime/cudart/Sanitizer).
#include "runtime/cudart/Sanitizer.h"

#include <gtest/gtest.h>

namespace {

ptx::Diagnostic outOfBounds() {
  ptx::Diagnostic d;
  d.kind = ptx::DiagKind::OutOfBounds;
  d.message = "out-of-bounds write of 4 bytes at global address 0x700000001000 by thread 288";
  d.loc.file = "vector_add.sm_80.ptx";
  d.loc.line = 40;
  d.loc.function = "_Z6vecAddPKfS0_Pfi";
  d.loc.cudaFile = "vector_add.cu";
  d.loc.cudaLine = 12;
  d.sourceLine = "\tst.global.f32 \t[%rd10], %f3;";
  d.fields = {
      {"cta", "3,0,0"},    {"warp", "1"},
      {"lanes", "0"},      {"address", "0x700000001000"},
      {"space", "global"}, {"size", "4"},
      {"thread", "288"},   {"nearest", "allocation 0x700000000000 of 4096 bytes, 0 bytes past its end"}};
  return d;
}

TEST(CudartSanitizer, InvalidGlobalWrite) {
  std::string text = cudart::renderSanitizer(outOfBounds(), {{256, 2, 1}});
  EXPECT_EQ(
      text,
      "========= Invalid __global__ write of size 4 bytes\n"
      "=========     at vecAdd(float const*, float const*, float*, int) in vector_add.cu:12 (PTX line 40 of "
      "vector_add.sm_80.ptx)\n"
      "=========     by thread (32,1,0) in block (3,0,0)\n"
      "=========     Address 0x700000001000 is 0 bytes after the nearest allocation at 0x700000000000 of "
      "size 4096 bytes\n"
      "=========     PTX: st.global.f32 \t[%rd10], %f3;\n"
      "=========\n");
}

TEST(CudartSanitizer, ThreadCoordinatesFollowTheBlockShape) {
  // Thread 288 of a (16,4,8) block: x = 288 % 16, y = 288 / 16 % 4, z = 288 / 64.
  std::string text = cudart::renderSanitizer(outOfBounds(), {{16, 4, 8}});
  EXPECT_NE(text.find("by thread (0,2,4) in block (3,0,0)"), std::string::npos) << text;
}

TEST(CudartSanitizer, AddressBeforeAnAllocationAndSharedMemory) {
  ptx::Diagnostic d = outOfBounds();
  d.fields.back().second = "allocation 0x700000002000 of 64 bytes, 16 bytes before it";
  std::string text = cudart::renderSanitizer(d, {{256, 1, 1}});
  EXPECT_NE(text.find("is 16 bytes before the nearest allocation at 0x700000002000 of size 64 bytes"),
            std::string::npos)
      << text;
  ptx::Diagnostic s = outOfBounds();
  s.message = "out-of-bounds read of 8 bytes at shared address 0x4000 by thread 3";
  s.fields = {{"cta", "0,0,0"}, {"address", "0x4000"}, {"space", "shared"},
              {"size", "8"},    {"thread", "3"},       {"nearest", "shared memory of the CTA is 1024 bytes"}};
  text = cudart::renderSanitizer(s, {{32, 1, 1}});
  EXPECT_NE(text.find("========= Invalid __shared__ read of size 8 bytes\n"), std::string::npos) << text;
  EXPECT_NE(text.find("Address 0x4000 is out of bounds: shared memory of the CTA is 1024 bytes"),
            std::string::npos);
}

TEST(CudartSanitizer, BarrierErrorsNameTheWarpAndKeepTheTable) {
  ptx::Diagnostic d;
  d.kind = ptx::DiagKind::BarrierDeadlock;
  d.message =
      "deadlock: no warp of the CTA can run; barrier 1 has 32 of 64 threads\n    warp 0 lanes 0-31: waits"
      "\n    warp 1 lanes 0-31: exited";
  d.loc.function = "k";
  d.loc.line = 7;
  d.fields = {{"cta", "0,0,0"}, {"warp", "0"}, {"lanes", "0-31"}};
  std::string text = cudart::renderSanitizer(d, {{64, 1, 1}});
  EXPECT_EQ(text,
            "========= Barrier error detected: deadlock: no warp of the CTA can run; barrier 1 has 32 of 64 "
            "threads\n"
            "=========     at k (PTX line 7)\n"
            "=========     by warp 0 (lanes 0-31) in block (0,0,0)\n"
            "=========     warp 0 lanes 0-31: waits\n"
            "=========     warp 1 lanes 0-31: exited\n"
            "=========\n");
}

TEST(CudartSanitizer, ApiErrorLine) {
  EXPECT_EQ(cudart::renderApiError("cudaDeviceSynchronize", 700, "cudaErrorIllegalAddress",
                                   "an illegal memory access was encountered"),
            "========= Program hit cudaErrorIllegalAddress (error 700) due to \"an illegal memory access was "
            "encountered\" on CUDA API call to cudaDeviceSynchronize.\n");
}

TEST(CudartSanitizer, Demangle) {
  EXPECT_EQ(cudart::demangle("_Z6vecAddPfS_i"), "vecAdd(float*, float*, int)");
  EXPECT_EQ(cudart::demangle("plain_c_kernel"), "plain_c_kernel");
}

} // namespace
