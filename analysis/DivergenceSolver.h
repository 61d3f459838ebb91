// The divergence analysis of one function for given parameter and callee
// summaries: one worklist over SSA values, gates and branches, to the least
// fixpoint of (uniformity, affine form) per value. Used by the module-level
// driver in Divergence.cpp.
#pragma once

#include "analysis/BarrierPhases.h"
#include "analysis/Divergence.h"
#include "analysis/ThreadValues.h"

#include <array>
#include <bitset>
#include <deque>
#include <optional>
#include <vector>

namespace analysis {

/// What the callers and callees of a function contribute.
struct FunctionContext {
  /// Per variable: uniformity of its value on entry (parameters).
  std::vector<Uniformity> entry;
  /// Per write (flat DefUse def index): uniformity of a call's results.
  std::vector<Uniformity> callResults;
  /// Per block: every lane of every warp runs it together (all warps of the
  /// CTA are full, and no divergent branch or early exit splits them), as an
  /// earlier solve found; empty when nothing is known. Butterfly reductions
  /// over shfl.sync.bfly are warp-uniform there.
  std::vector<char> wholeWarps;
  /// The launch's grid (0 where unknown), and for a kernel analysed for one
  /// launch its arguments (DivergenceOptions).
  std::array<uint32_t, 3> grid{};
  const std::vector<std::vector<uint8_t>> *arguments = nullptr;
};

/// The constant an affine form stands for, when it is one.
std::optional<int64_t> constantOf(const Affine &a);
/// An integer type of 1 to 64 bits (signed, unsigned or untyped bits).
bool isIntegerType(ptx::Type t);

class DivergenceSolver {
public:
  DivergenceSolver(const ptx::Module &m, const GatedSSA &gated, const LaunchShape &shape,
                   const FunctionContext &ctx, FunctionDivergence &out);
  void run();

private:
  struct Operand {
    Uniformity level = Uniformity::CtaUniform;
    Affine form = Affine::top();
  };
  enum Item : uint32_t { kInstr = 0, kPhi = 1u << 30, kBranch = 2u << 30, kMask = 3u << 30 };

  void buildUsers();
  void push(uint32_t item);
  void pushValueUsers(ValueId v);
  void pushBlock(uint32_t b);
  void processInstr(uint32_t i);
  void processPhi(uint32_t p);
  void processBranch(uint32_t br);
  void raiseFloor(uint32_t block, Uniformity level);
  /// A branch that is not CTA-uniform around a barrier: threads may meet
  /// barriers at different instructions, phases say nothing any more.
  void checkBarrierAlignment(uint32_t br);
  void raiseLoopFloor(uint32_t loop, Uniformity level);
  /// Raises v to (level, form), refined by what the form says over the threads
  /// in `among` (those that can compute it; all when null); true when v changed.
  bool update(ValueId v, Uniformity level, Affine form, const ThreadSpace::Mask *among = nullptr);

  /// (uniformity, form) of one write of instruction i, before guards and floors.
  std::pair<Uniformity, Affine> transfer(uint32_t i, uint32_t slot);
  std::pair<Uniformity, Affine> loadRule(uint32_t i);
  /// The launch's argument bytes that `ld.param` instruction i of a kernel
  /// reads, as its destination holds them; nothing when unknown.
  std::optional<uint64_t> argumentLoaded(uint32_t i);
  /// The space a generic address points into when it is made from a shared,
  /// global or constant one (cvta, add/sub of an offset, a kernel's pointer
  /// parameter); Mod::None when it may be anything, local memory included.
  ptx::Mod spaceOf(ValueId v);
  Operand operand(uint32_t i, uint32_t position, unsigned width);
  Affine formOf(ValueId v, unsigned width) const;
  /// How uniform operand `position` of instruction i is under `mask` (its
  /// value & mask), looking through up to `depth` and/or/xor definitions in
  /// i's block.
  Uniformity maskedLevel(uint32_t i, uint32_t position, uint64_t mask, unsigned width,
                         unsigned depth = kBitwiseDepth);
  /// The and/or/xor instruction that defines v alone (not guarded, one
  /// integer result); kNone otherwise.
  uint32_t bitwiseDefinition(ValueId v) const;
  /// f(w) for the operands w of v's and/or/xor definitions, `depth` deep:
  /// the values maskedLevel reads besides the instruction's own.
  template <class F> void forEachBitwiseSource(ValueId v, unsigned depth, F f) const;
  static constexpr unsigned kBitwiseDepth = 2;
  /// The form of `or` (instruction i) when it is an addition in disguise.
  Affine orForm(uint32_t i, unsigned width);
  /// The largest value operand `position` of instruction i (of `form`)
  /// takes in any thread: a constant, or the numbers of a thread-id value.
  std::optional<uint64_t> largestInThreads(uint32_t i, uint32_t position, const Affine &form);
  Uniformity useLevel(uint32_t i, UseRole role) const;
  const InstrFacts &facts(uint32_t i);
  /// Butterfly reductions (wholeWarps blocks only): the lane-xor distances
  /// (bits 1..16) under which every lane of a warp computes the same value
  /// as its partner: x op shfl.bfly(x, k) is symmetric under k, and a value
  /// symmetric under all five bits is warp-uniform.
  static constexpr uint8_t kAllLaneBits = 31;
  uint8_t laneSymmetry(ValueId v) const;
  uint8_t laneSymmetryOfDef(uint32_t i, uint32_t slot);
  /// When instruction i is shfl.sync.bfly over the whole warp (full member
  /// mask, c = 0x1f) by a constant distance: the distance; else 0.
  uint32_t butterflyDistance(uint32_t i);
  /// The lane-xor distance k (one bit) when y holds x from lane ^ k: a
  /// whole-warp bfly shuffle of x (through copies), or of x's 32-bit parts
  /// put back together; else 0.
  uint32_t butterflyPartner(ValueId y, ValueId x);
  /// v, or the value it is a bit-for-bit copy of (mov between registers of
  /// one width).
  ValueId copiedFrom(ValueId v) const;
  /// Applies `bits` to v's lane symmetry; true when it changed.
  bool lowerLaneSymmetry(ValueId v, uint8_t bits);
  /// The per-thread numbers of the register instruction i writes, when the
  /// block shape is known and it computes from the thread id alone.
  void evaluateForThreads(uint32_t i);
  /// evaluateForThreads for loads and stores of whole local places; false
  /// when `i` is neither.
  bool evaluateThroughLocalMemory(uint32_t i);
  /// How uniform anything computed in block b is because few threads can
  /// run it: WarpUniform when branches on thread-id numbers let at most one
  /// lane of each warp in, CtaUniform when at most one thread; else
  /// Divergent.
  Uniformity fewThreads(uint32_t b);
  using ThreadSet = ThreadSpace::Mask;
  static_assert(ThreadValues::kMaxThreads <= ThreadSet().size());
  const ThreadSet &threadsReaching(uint32_t b);

  const ptx::Module &m_;
  const GatedSSA &g_;
  const Cfg &cfg_;
  const SSA &ssa_;
  const DefUse &du_;
  const LoopForest &loops_;
  const ptx::Function &fn_;
  ThreadSpace space_;
  const FunctionContext &ctx_;
  FunctionDivergence &out_;

  std::vector<uint32_t> userBegin_, users_;
  std::vector<char> queued_; // per item
  std::deque<uint32_t> work_;
  std::vector<Uniformity> floor_;     // per block
  std::vector<Uniformity> loopFloor_; // per loop: every block's floor is at least this
  std::vector<char> misaligning_;     // per branch: its blocks got their floor
  /// Kernels only: which shared loads no write runs beside, and whether
  /// every thread still meets the barriers at the same instructions.
  std::optional<BarrierPhases> phases_;
  bool barriersAligned_ = true;
  std::vector<char> synchronizes_;   // per block: holds a barrier or a call
  std::vector<uint32_t> quietLoads_; // loads made CTA-uniform by phases_
  static constexpr uint16_t kSpaceUnknown = 0xffff, kSpaceComputing = 0xfffe;
  std::vector<uint16_t> space_of_; // per value: spaceOf's memo
  ThreadValues threads_;
  std::vector<char> evaluated_; // per instruction: evaluateForThreads ran
  std::optional<DominatorTree> dominators_;
  std::vector<uint8_t> fewThreads_; // per block: 0 unknown, else 1 + Uniformity
  std::vector<ThreadSet> reaching_; // per block, where reachingKnown_
  std::vector<char> reachingKnown_;
  std::vector<uint8_t> laneSymmetry_; // per value, when ctx_.wholeWarps is known
  std::vector<InstrFacts> descFacts_;
  std::vector<char> descKnown_;
};

} // namespace analysis
