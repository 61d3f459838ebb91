// kernels/apps: warp vote, match and reduce intrinsics. CTAs of 80 threads (the third warp has
// 16 lanes, so every intrinsic gets the mask of the lanes that exist), 5 CTAs:
// __all_sync/__any_sync/__uni_sync/__ballot_sync, __match_any_sync/__match_all_sync,
// __reduce_{add,min,max,and,or,xor}_sync (redux.sync), and votes inside a divergent branch
// with the branch's mask and __activemask. Exact comparison with a per-warp host reference.
#include "app_check.h"

#include <algorithm>
#include <vector>

enum Field {
  kAll,
  kAny,
  kUni,
  kBallot,
  kMatchAny,
  kMatchAll,
  kMatchAllPred,
  kAdd,
  kMin,
  kMax,
  kAnd,
  kOr,
  kXor,
  kBranchBallot,
  kActiveMaskOk,
  kFields
};

constexpr int kBlock = 80, kGrid = 5;

// The lanes of this thread's warp that exist (the last warp of the CTA may be partial).
__device__ unsigned existingLanes() {
  const unsigned warpBase = threadIdx.x / 32 * 32;
  const unsigned lanes = min(32u, blockDim.x - warpBase);
  return lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
}

__global__ void warpVotes(const int *in, int *out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned lane = threadIdx.x % 32, mask = existingLanes();
  const int v = in[i];
  int *o = out + i * kFields;
  o[kAll] = __all_sync(mask, v > -90) != 0;
  o[kAny] = __any_sync(mask, v > 95) != 0;
  o[kUni] = __uni_sync(mask, blockIdx.x + 1) != 0;
  o[kBallot] = static_cast<int>(__ballot_sync(mask, v & 1));
  o[kMatchAny] = static_cast<int>(__match_any_sync(mask, v & 3));
  // Even warps offer one value per warp, odd warps their own values.
  const int offered = (threadIdx.x / 32) % 2 == 0 ? static_cast<int>(blockIdx.x) : v;
  int pred = -1;
  o[kMatchAll] = static_cast<int>(__match_all_sync(mask, offered, &pred));
  o[kMatchAllPred] = pred != 0;
  o[kAdd] = __reduce_add_sync(mask, v);
  o[kMin] = __reduce_min_sync(mask, v);
  o[kMax] = __reduce_max_sync(mask, v);
  o[kAnd] = static_cast<int>(__reduce_and_sync(mask, static_cast<unsigned>(v)));
  o[kOr] = static_cast<int>(__reduce_or_sync(mask, static_cast<unsigned>(v)));
  o[kXor] = static_cast<int>(__reduce_xor_sync(mask, static_cast<unsigned>(v)));
  const bool inBranch = v % 3 != 0;
  const unsigned branch = __ballot_sync(mask, inBranch);
  o[kBranchBallot] = 0;
  o[kActiveMaskOk] = 1;
  if (inBranch) {
    o[kBranchBallot] = static_cast<int>(__ballot_sync(branch, v > 0));
    // Only lanes of this branch can be active here, and the caller is one of them.
    const unsigned active = __activemask();
    o[kActiveMaskOk] = ((active >> lane) & 1) && (active & ~branch) == 0;
  }
}

int main() {
  const int n = kBlock * kGrid;
  Random random(9);
  std::vector<int> in(n), out(n * kFields);
  for (int &x : in) x = static_cast<int>(random.range(-100, 100));
  int *dIn, *dOut;
  CHECK(cudaMalloc(&dIn, n * sizeof(int)));
  CHECK(cudaMalloc(&dOut, out.size() * sizeof(int)));
  CHECK(cudaMemcpy(dIn, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  warpVotes<<<kGrid, kBlock>>>(dIn, dOut);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), dOut, out.size() * sizeof(int), cudaMemcpyDeviceToHost));

  static const char *const names[kFields] = {
      "all", "any", "uni", "ballot", "match_any", "match_all",     "match_all_pred", "add",
      "min", "max", "and", "or",     "xor",       "branch_ballot", "activemask_ok"};
  Verdict verdict;
  for (int cta = 0; cta < kGrid; ++cta)
    for (int warpBase = 0; warpBase < kBlock; warpBase += 32) {
      const int lanes = std::min(32, kBlock - warpBase), first = cta * kBlock + warpBase;
      const bool evenWarp = (warpBase / 32) % 2 == 0;
      int all = 1, any = 0, sum = 0, lo = in[first], hi = in[first];
      unsigned ballot = 0, bitAnd = ~0u, bitOr = 0, bitXor = 0, branch = 0, branchBallot = 0;
      bool same = true;
      for (int l = 0; l < lanes; ++l) {
        const int v = in[first + l];
        all &= v > -90;
        any |= v > 95;
        ballot |= unsigned(v & 1) << l;
        sum += v;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        bitAnd &= unsigned(v);
        bitOr |= unsigned(v);
        bitXor ^= unsigned(v);
        same &= evenWarp || v == in[first];
        if (v % 3 != 0) {
          branch |= 1u << l;
          branchBallot |= unsigned(v > 0) << l;
        }
      }
      for (int l = 0; l < lanes; ++l) {
        const int v = in[first + l];
        unsigned matchAny = 0;
        for (int m = 0; m < lanes; ++m) matchAny |= unsigned((in[first + m] & 3) == (v & 3)) << m;
        const int want[kFields] = {all,
                                   any,
                                   1,
                                   static_cast<int>(ballot),
                                   static_cast<int>(matchAny),
                                   same ? static_cast<int>(lanes == 32 ? ~0u : (1u << lanes) - 1) : 0,
                                   same,
                                   sum,
                                   lo,
                                   hi,
                                   static_cast<int>(bitAnd),
                                   static_cast<int>(bitOr),
                                   static_cast<int>(bitXor),
                                   (branch >> l) & 1 ? static_cast<int>(branchBallot) : 0,
                                   1};
        for (int f = 0; f < kFields; ++f)
          verdict.expectEq(out[(first + l) * kFields + f], want[f], names[f], first + l);
      }
    }
  CHECK(cudaFree(dIn));
  CHECK(cudaFree(dOut));
  return verdict.finish();
}
