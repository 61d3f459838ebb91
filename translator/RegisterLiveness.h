// Which register slots compiled code must hold exactly, and which it must
// write back: liveness over the decoded code of one PTX function
// (emu::CodeRegion). Compiled code keeps registers in SSA form (Gen), reads
// from the warp's register file only what is live where it starts running a
// group, and writes back only what some lane may still read once it leaves.
// Computed from the decoded code alone: the background compiler must not
// read the ptx::Module.
#pragma once

#include <cstdint>
#include <vector>

namespace emu {
struct Kernel;
struct CodeRegion;
} // namespace emu

namespace translator {

/// Per pc of `k`'s code (and one past it): whether a straight-line block
/// starts there - function entries, branch targets and reconvergence points,
/// brx.idx targets, and the instruction after any control instruction (calls
/// return there, barriers and exits resume there).
std::vector<uint8_t> blockLeaders(const emu::Kernel &k);

class RegisterLiveness {
public:
  RegisterLiveness(const emu::Kernel &k, const emu::CodeRegion &region);

  /// The slots live on entry to instruction `pc` of the region: read on some
  /// path from there before a write that replaces them in every lane that
  /// executes it (an unguarded destination). Sorted.
  std::vector<uint32_t> liveIn(uint32_t pc) const;

  /// The slots some lane may read after compiled code leaves the function:
  /// live where a group can stand when it does not run (block starts,
  /// control instructions and the instructions after them), and every
  /// register read across lanes. Sorted.
  const std::vector<uint32_t> &resumable() const { return resumable_; }

  /// Registers read in lanes that do not execute the instruction (the
  /// sources of shuffles): held exactly in every lane, not only the running
  /// group's. Sorted.
  const std::vector<uint32_t> &crossLane() const { return crossLane_; }

  /// Every slot an instruction of the region names. Sorted.
  const std::vector<uint32_t> &mentioned() const { return mentioned_; }

  /// The slots instruction `pc` reads or writes (operands, address bases,
  /// vector elements, .b128 high halves, its guard), in operand order.
  std::vector<uint32_t> slotsOf(uint32_t pc) const;

private:
  using Bits = std::vector<uint64_t>;
  /// Applies instruction `pc` backwards: live-out to live-in.
  void transfer(uint32_t pc, Bits &live) const;
  static std::vector<uint32_t> members(const Bits &bits);

  const emu::Kernel &k_;
  uint32_t first_ = 0, end_ = 0, words_ = 0;
  std::vector<uint32_t> blockOf_;    // per pc - first_: its block
  std::vector<uint32_t> blockStart_; // per block: first pc; one more entry: end_
  std::vector<Bits> liveOut_;        // per block
  std::vector<uint32_t> resumable_, crossLane_, mentioned_;
};

} // namespace translator
