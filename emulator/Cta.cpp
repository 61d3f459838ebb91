// The CTA scheduler: runs warps round-robin (each until it blocks, exits or
// uses its quantum), moves them through the SIMT reconvergence stack, and
// models the 16 named barriers with the rules of DESIGN.md §4.
#include "emulator/Cta.h"

#include "emulator/Device.h"
#include "emulator/Semantics.h"
#include "ptx/Writer.h"

#include <algorithm>
#include <bit>
#include <cinttypes>
#include <cstring>

namespace emu {
namespace {
constexpr uint64_t kQuantum = 4096; // warp instructions before the next warp runs

std::string laneList(uint32_t mask) {
  if (mask == 0xFFFFFFFFu) return "0-31";
  std::string out;
  for (unsigned l = 0; l < 32;) {
    if (!(mask >> l & 1)) {
      ++l;
      continue;
    }
    unsigned e = l;
    while (e + 1 < 32 && (mask >> (e + 1) & 1)) ++e;
    out += (out.empty() ? "" : ",") + std::to_string(l) + (e > l ? "-" + std::to_string(e) : "");
    l = e + 1;
  }
  return out;
}
} // namespace

Cta::Cta(Device &device, const Kernel &kernel, Dim3 ctaid, Dim3 nctaid, Dim3 ntid, uint32_t dynamicShared,
         const std::vector<uint8_t> &params, ptx::DiagnosticList &diags, uint64_t maxInstructions)
    : kernel(kernel), device(device), ctaid(ctaid), nctaid(nctaid), ntid(ntid), params(params), diags_(diags),
      maxInstructions_(maxInstructions) {
  shared.assign(kernel.staticShared + dynamicShared, 0);
  uint64_t threads = ntid.count();
  local.assign(threads * kernel.localBytes, 0);
  uint32_t numWarps = static_cast<uint32_t>((threads + 31) / 32);
  warps.resize(numWarps);
  for (uint32_t w = 0; w < numWarps; ++w) {
    Warp &warp = warps[w];
    warp.index = w;
    uint64_t first = uint64_t{w} * 32;
    uint64_t n = std::min<uint64_t>(32, threads - first);
    warp.valid = n == 32 ? 0xFFFFFFFFu : ((1u << n) - 1);
    warp.regs.assign(uint64_t{kernel.numRegisters} * 32, 0);
    warp.frame.assign(uint64_t{kernel.regions[0].frameBytes} * 32, 0);
    warp.stack.push_back({0, warp.valid, kernel.exitPc});
    warp.stackPointer.fill(kernel.localBytes);
  }
}

const GlobalMemory::Range &Cta::globalRange(uint64_t address) {
  for (const GlobalMemory::Range &r : recentGlobals)
    if (address >= r.base && address < r.end) return r;
  static const GlobalMemory::Range kNone{};
  GlobalMemory::Range r = device.global.rangeOf(address);
  if (!r.bytes) return kNone;
  GlobalMemory::Range &slot = recentGlobals[nextRecent];
  nextRecent = (nextRecent + 1) % recentGlobals.size();
  slot = r;
  return slot;
}

uint64_t Cta::warpInstructions() const {
  uint64_t n = 0;
  for (const Warp &w : warps) n += w.warpInstructions;
  return n;
}

uint64_t Cta::threadInstructions() const {
  uint64_t n = 0;
  for (const Warp &w : warps) n += w.threadInstructions;
  return n;
}

void Cta::report(ptx::DiagKind kind, ptx::Severity severity, uint32_t pc, const Warp &w, uint32_t mask,
                 std::string message, std::vector<std::pair<std::string, std::string>> fields) {
  ptx::Diagnostic d;
  d.kind = kind;
  d.severity = severity;
  d.message = std::move(message);
  d.loc.file = kernel.module->fileName;
  d.loc.line = kernel.line(pc);
  d.loc.function = kernel.name;
  if (pc < kernel.code.size()) {
    const ptx::Instruction &in = kernel.instr(kernel.code[pc]);
    const ptx::Function &fn = kernel.functionOf(kernel.code[pc]);
    d.loc.function = std::string(kernel.module->str(fn.name));
    if (in.debugLoc) {
      const ptx::DebugLoc &dl = fn.debugLocs[in.debugLoc];
      for (const ptx::FileEntry &f : kernel.module->files)
        if (f.index == dl.file) d.loc.cudaFile = f.path;
      d.loc.cudaLine = dl.line;
    }
    d.sourceLine = ptx::writeInstruction(*kernel.module, fn, in);
  }
  d.fields.emplace_back("cta", std::to_string(ctaid.x) + "," + std::to_string(ctaid.y) + "," +
                                   std::to_string(ctaid.z));
  d.fields.emplace_back("warp", std::to_string(w.index));
  d.fields.emplace_back("lanes", laneList(mask));
  for (auto &f : fields) d.fields.push_back(std::move(f));
  diags_.add(std::move(d));
  // Races are errors in the program but do not stop it, as on a GPU.
  bool fatal = kind != ptx::DiagKind::SharedRace && kind != ptx::DiagKind::GlobalRace;
  if (severity == ptx::Severity::Error && fatal) failed = true;
}

uint64_t Cta::nextRandom() {
  uint64_t z = (rng_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

bool Cta::run() {
  for (;;) {
    SliceResult r = runSlice();
    if (r == SliceResult::Waiting) { // nothing else runs: no other CTA can release it
      reportDeadlock();
      return false;
    }
    if (r != SliceResult::Running) return r == SliceResult::Done;
  }
}

uint64_t Cta::liveThreads() const {
  uint64_t n = 0;
  for (const Warp &w : warps)
    if (w.state != Warp::State::Done) n += static_cast<uint64_t>(std::popcount(w.valid & ~w.exited));
  return n;
}

// ---- barrier.cluster ----------------------------------------------------------------------

void Cta::unpark(Warp &w, int32_t id, uint32_t generation, const std::vector<uint32_t> &clock) {
  uint32_t waited = 0; // lanes
  for (SimtEntry &e : w.stack)
    if (e.waitBarrier == id && e.waitGeneration == generation) {
      e.waitBarrier = -1;
      waited |= e.mask;
    }
  if (waited && racecheck) racecheck->acquire(w.index, waited, clock);
  if (w.state == Warp::State::AtBarrier && (w.stack.empty() || w.stack.back().waitBarrier < 0))
    w.state = Warp::State::Ready;
}

void Cluster::tryComplete() {
  uint64_t live = 0;
  for (const Cta *c : ctas) live += c->liveThreads();
  if (arrived == 0 || arrived < live) return;
  for (Cta *c : ctas) {
    c->clusterPublished_ = std::move(c->clusterClock_);
    c->clusterClock_.clear();
    for (Warp &w : c->warps) c->unpark(w, kClusterBarrier, phase, c->clusterPublished_);
  }
  ++phase;
  arrived = 0;
}

/// barrier.cluster.arrive counts the executing threads in the current phase;
/// barrier.cluster.wait parks them until the phase they arrived in completes
/// (every non-exited thread of every CTA of the cluster arrived). A CTA
/// launched without a cluster is a cluster of one.
void Cta::executeClusterBarrier(Warp &w, const DInstr &in, uint32_t mask, uint32_t pc) {
  if (!cluster) {
    soloCluster_ = std::make_unique<Cluster>();
    soloCluster_->ctas.push_back(this);
    cluster = soloCluster_.get();
  }
  if (in.opcode == ptx::Opcode::BarrierClusterArrive) {
    // For --racecheck the cluster barrier orders this CTA's warps as a
    // named barrier does (other CTAs' shared memory is not checked).
    if (racecheck) racecheck->arrive(w.index, clusterClock_);
    w.clusterPhase = cluster->phase;
    cluster->arrived += static_cast<uint64_t>(std::popcount(mask));
    cluster->tryComplete();
    return;
  }
  if (cluster->phase > w.clusterPhase) { // the phase it arrived in is complete
    if (racecheck) racecheck->acquire(w.index, mask, clusterPublished_);
    return;
  }
  park(w, static_cast<uint32_t>(kClusterBarrier), w.clusterPhase, pc);
}

Cta::SliceResult Cta::runSlice() {
  if (order_.size() != warps.size()) {
    order_.resize(warps.size());
    for (uint32_t i = 0; i < order_.size(); ++i) order_[i] = i;
  }
  bool progressed = false, anyBlocked = false, clusterWait = false;
  if (random_)
    for (size_t i = order_.size(); i > 1; --i) std::swap(order_[i - 1], order_[nextRandom() % i]);
  for (uint32_t wi : order_) {
    Warp &w = warps[wi];
    if (failed) return SliceResult::Failed;
    if (w.state == Warp::State::Ready) {
      step(w, kQuantum);
      progressed = true;
    } else if (w.state == Warp::State::AtBarrier) {
      anyBlocked = true;
      clusterWait |= w.barrier == static_cast<uint32_t>(kClusterBarrier);
    }
  }
  if (failed) return SliceResult::Failed;
  if (!progressed) {
    // The other CTAs of the cluster may still arrive at the cluster barrier.
    if (clusterWait && cluster && cluster->ctas.size() > 1) return SliceResult::Waiting;
    if (anyBlocked) {
      reportDeadlock();
      return SliceResult::Failed;
    }
    return SliceResult::Done;
  }
  if (executed_ > maxInstructions_) {
    report(ptx::DiagKind::InstructionLimit, ptx::Severity::Error, 0, warps[0], 0,
           "stopped after " + std::to_string(executed_) + " warp instructions (--max-instructions)");
    return SliceResult::Failed;
  }
  return SliceResult::Running;
}

void Cta::step(Warp &w, uint64_t budget) {
  if (observer) return stepImpl<true>(w, budget);
  stepImpl<false>(w, budget);
}

template <bool Observed> void Cta::stepImpl(Warp &w, uint64_t budget) {
  const std::vector<DInstr> &code = kernel.code;
  while (budget-- > 0 && w.state == Warp::State::Ready && !failed) {
    if (w.stack.empty()) {
      w.state = Warp::State::Done;
      break;
    }
    SimtEntry &top = w.stack.back();
    if (top.waitBarrier >= 0) {
      // This group waits at a barrier and no other group can run.
      w.state = Warp::State::AtBarrier;
      break;
    }
    uint32_t active = top.mask & ~w.exited & ~(w.calls.empty() ? 0u : w.calls.back().returned);
    if (active == 0 || top.pc == top.reconverge || top.pc >= code.size()) {
      if (top.pc >= code.size() && top.reconverge != top.pc) w.exited |= active; // fell off the end
      w.stack.pop_back();
      if (!w.calls.empty() && w.stack.size() == w.calls.back().stackDepth) finishCall(w);
      if (w.stack.empty()) w.state = Warp::State::Done;
      continue;
    }
    uint32_t pc = top.pc;
    const DInstr &in = code[pc];
    uint32_t mask = active;
    if (in.guard >= 0) {
      uint32_t g = predicateMask(&w.regs[static_cast<uint32_t>(in.guard) * 32]);
      mask &= in.guardNegated ? ~g : g;
    }
    ++executed_;
    ++w.warpInstructions;
    w.threadInstructions += static_cast<uint64_t>(std::popcount(mask));
    switch (in.control) {
    case Control::Next: {
      // A straight-line run: the active lanes, the stack and the warp's
      // state stay as they are until the next control instruction, the
      // reconvergence point or a fault, so the checks above need not be
      // repeated for each instruction.
      const uint32_t stop = top.reconverge, size = static_cast<uint32_t>(code.size());
      const DInstr *next = &in;
      for (;;) {
        if (mask) {
          Exec x{*this, w, mask, pc};
          next->run(x, *next);
        }
        if constexpr (Observed) observer->instructionExecuted(w, pc, active, mask);
        ++pc;
        if (pc == stop || pc >= size || budget == 0 || failed) break;
        next = &code[pc];
        if (next->control != Control::Next) break;
        --budget;
        mask = active;
        if (next->guard >= 0) {
          uint32_t g = predicateMask(&w.regs[static_cast<uint32_t>(next->guard) * 32]);
          mask &= next->guardNegated ? ~g : g;
        }
        ++executed_;
        ++w.warpInstructions;
        w.threadInstructions += static_cast<uint64_t>(std::popcount(mask));
      }
      w.stack.back().pc = pc;
      break;
    }
    case Control::Branch: {
      if constexpr (Observed) observer->instructionExecuted(w, pc, active, mask);
      uint32_t taken = mask, notTaken = active & ~mask;
      if (taken == 0) {
        top.pc = pc + 1;
      } else if (notTaken == 0) {
        top.pc = in.target;
      } else {
        // Divergence: both sides run to the immediate post-dominator, then
        // the warp continues there with every lane.
        uint32_t rpc = in.reconverge;
        top.pc = rpc;
        ++stats.divergentBranches;
        if (random_ && (nextRandom() & 1)) {
          w.stack.push_back({in.target, taken, rpc});
          w.stack.push_back({pc + 1, notTaken, rpc});
        } else {
          w.stack.push_back({pc + 1, notTaken, rpc});
          w.stack.push_back({in.target, taken, rpc});
        }
      }
      break;
    }
    case Control::BranchIndexed: {
      // Lanes go to the target their index selects; each distinct target
      // runs to the reconvergence point like a side of a branch.
      if (!mask) {
        top.pc = pc + 1;
        break;
      }
      Exec x{*this, w, mask, pc};
      std::vector<std::pair<uint32_t, uint32_t>> groups; // (target pc, lanes)
      bool bad = false;
      forLanes(mask, [&](unsigned lane) {
        uint64_t index = readOperand(x, kernel.op(in, 0), lane) & 0xFFFFFFFFu;
        if (index >= in.numTargets) {
          if (!bad)
            report(ptx::DiagKind::Trap, ptx::Severity::Error, pc, w, 1u << lane,
                   "brx.idx index " + std::to_string(index) + " is outside its " +
                       std::to_string(in.numTargets) + " targets");
          bad = true;
          return;
        }
        uint32_t target = kernel.targetTables[in.target + index];
        auto it = std::find_if(groups.begin(), groups.end(), [&](auto &g) { return g.first == target; });
        if (it == groups.end())
          groups.emplace_back(target, 1u << lane);
        else
          it->second |= 1u << lane;
      });
      if (bad) return;
      if (groups.size() == 1 && groups[0].second == active) {
        top.pc = groups[0].first;
        break;
      }
      uint32_t rpc = in.reconverge;
      top.pc = rpc;
      ++stats.divergentBranches;
      // Inactive lanes (guard false) continue after the brx.idx.
      if (active & ~mask) w.stack.push_back({pc + 1, active & ~mask, rpc});
      for (auto it = groups.rbegin(); it != groups.rend(); ++it)
        w.stack.push_back({it->first, it->second, rpc});
      break;
    }
    case Control::Exit: {
      w.exited |= mask;
      w.stack.back().pc = pc + 1;
      if ((w.valid & ~w.exited) == 0) {
        w.state = Warp::State::Done;
        w.stack.clear();
      }
      recountAfterExit(w);
      break;
    }
    case Control::Barrier:
      w.stack.back().pc = pc + 1;
      if (mask) executeBarrier(w, in, mask, pc);
      break;
    case Control::Call:
      top.pc = pc + 1; // where the caller goes on once the callee returns
      if (mask && !call(w, in, mask, pc)) return;
      break;
    case Control::Return:
      w.calls.back().returned |= mask;
      w.stack.back().pc = pc + 1;
      break;
    case Control::Unsupported:
      report(ptx::DiagKind::Unsupported, ptx::Severity::Error, pc, w, mask,
             "the emulator cannot execute '" + ptx::instructionName(*kernel.module, kernel.instr(in)) +
                 "' yet");
      return;
    }
  }
}

bool Cta::call(Warp &w, const DInstr &in, uint32_t mask, uint32_t pc) {
  const DOp &target = kernel.op(in, static_cast<unsigned>(in.callTarget));
  Exec x{*this, w, mask, pc};
  auto unsupported = [&](const std::string &why) {
    report(ptx::DiagKind::Unsupported, ptx::Severity::Error, pc, w, mask, why);
    return false;
  };
  // The callee: a function symbol, or a register holding one.
  uint64_t value = readOperand(x, target, static_cast<unsigned>(std::countr_zero(mask)));
  uint32_t same = 0;
  forLanes(mask, [&](unsigned l) { same |= (readOperand(x, target, l) == value ? 1u : 0u) << l; });
  if (same != mask) {
    // Lanes calling different functions (virtual calls, function pointer
    // tables): the lanes of one callee call now; the others make the call
    // again from a stack entry of their own once these return, and all go on
    // after the call together.
    w.stack.push_back({pc, mask & ~same, pc + 1});
    mask = same;
    x.mask = same;
  }
  if ((value >> 48) == (kHostFunctionTag >> 48))
    if (const HostCallee *host = device.hostCallee(value)) return callHostFunction(x, in, *host);
  const ptx::Instruction &ir = kernel.instr(in);
  const ptx::Function &caller = kernel.functionOf(in);
  const uint64_t index = value & 0xFFFF'FFFFull;
  const uint32_t r = (value & ~0xFFFF'FFFFull) == kFunctionTag && index < kernel.regionOfFunction.size()
                         ? kernel.regionOfFunction[index]
                         : UINT32_MAX;
  if (r == UINT32_MAX) {
    std::string name = "the callee";
    auto ops = caller.operandsOf(ir);
    if (ops[static_cast<size_t>(in.callTarget)].kind == ptx::OperandKind::Symbol)
      name = "'" + std::string(kernel.module->str(ops[static_cast<size_t>(in.callTarget)].id)) + "'";
    return unsupported("call to " + name +
                       ", which has no body in this module (device-side services such as "
                       "vprintf and malloc come with the runtime)");
  }
  const CodeRegion &callee = kernel.regions[r];
  if (callee.recursiveWithLocals)
    return unsupported("recursive call to '" + std::string(kernel.module->str(callee.function->name)) +
                       "', which has .local variables: per-call local frames are not modelled yet");
  if (w.calls.size() >= 1024) {
    report(ptx::DiagKind::Trap, ptx::Severity::Error, pc, w, mask, "call depth exceeds 1024: stack overflow");
    return false;
  }
  const CodeRegion &here = kernel.regions[w.region];
  std::vector<uint8_t> frame(size_t{callee.frameBytes} * 32, 0);
  std::vector<uint64_t> regs(size_t{callee.numRegisters} * 32, 0);
  // Arguments: call-site .param variables (bytes of the caller's frame) or,
  // in the old non-ABI convention, registers into .reg parameters.
  if (in.callArgs >= 0) {
    const DOp &list = kernel.op(in, static_cast<unsigned>(in.callArgs));
    for (unsigned i = 0; i < list.count && i < callee.function->params.size(); ++i) {
      const DOp &arg = kernel.ops[list.reg + i];
      const ptx::Variable &formal = callee.function->params[i];
      forLanes(mask, [&](unsigned l) {
        if (formal.space == ptx::Mod::Reg) {
          uint32_t reg = static_cast<uint32_t>(callee.function->returns.size() + i);
          regs[reg * 32 + l] = readOperand(x, arg, l);
        } else if (arg.kind == DOp::Imm && arg.space == Space::Frame) {
          std::memcpy(frame.data() + size_t{l} * callee.frameBytes + callee.paramOffsets[i],
                      w.frame.data() + size_t{l} * here.frameBytes + arg.imm, callee.paramSizes[i]);
        } else {
          uint64_t v = readOperand(x, arg, l);
          std::memcpy(frame.data() + size_t{l} * callee.frameBytes + callee.paramOffsets[i], &v,
                      std::min<uint32_t>(callee.paramSizes[i], 8));
        }
      });
    }
  }
  CallFrame cf;
  cf.callerRegs = std::move(w.regs);
  cf.callerFrame = std::move(w.frame);
  cf.region = r;
  cf.callerRegion = w.region;
  cf.stackDepth = w.stack.size();
  cf.lanes = mask;
  cf.resultsOp = in.callResults;
  cf.callPc = pc;
  cf.stackPointer = w.stackPointer;
  w.regs = std::move(regs);
  w.frame = std::move(frame);
  w.region = r;
  w.calls.push_back(std::move(cf));
  w.stack.push_back({callee.entry, mask, callee.end});
  return true;
}

void Cta::finishCall(Warp &w) {
  CallFrame cf = std::move(w.calls.back());
  w.calls.pop_back();
  const DInstr &in = kernel.code[cf.callPc];
  const CodeRegion &callee = kernel.regions[cf.region];
  const CodeRegion &caller = kernel.regions[cf.callerRegion];
  uint32_t lanes = cf.lanes & ~w.exited;
  if (cf.resultsOp >= 0) {
    const DOp &list = kernel.op(in, static_cast<unsigned>(cf.resultsOp));
    for (unsigned i = 0; i < list.count && i < callee.function->returns.size(); ++i) {
      const DOp &dst = kernel.ops[list.reg + i];
      bool inRegister = callee.function->returns[i].space == ptx::Mod::Reg;
      forLanes(lanes, [&](unsigned l) {
        uint64_t v = 0;
        if (inRegister)
          v = w.regs[i * 32 + l];
        else
          std::memcpy(&v, w.frame.data() + size_t{l} * callee.frameBytes + callee.returnOffsets[i],
                      std::min<uint32_t>(callee.returnSizes[i], 8));
        if (dst.kind == DOp::Reg) {
          cf.callerRegs[dst.reg * 32 + l] = v;
        } else if (dst.kind == DOp::Imm && dst.space == Space::Frame && !inRegister) {
          std::memcpy(cf.callerFrame.data() + size_t{l} * caller.frameBytes + dst.imm,
                      w.frame.data() + size_t{l} * callee.frameBytes + callee.returnOffsets[i],
                      callee.returnSizes[i]);
        }
      });
    }
  }
  forLanes(cf.lanes, [&](unsigned l) { w.stackPointer[l] = cf.stackPointer[l]; });
  w.regs = std::move(cf.callerRegs);
  w.frame = std::move(cf.callerFrame);
  w.region = cf.callerRegion;
}

uint32_t Cta::expectedAll() const {
  uint32_t live = 0;
  for (const Warp &w : warps)
    if (w.state != Warp::State::Done) ++live;
  return live * 32;
}

void Cta::executeBarrier(Warp &w, const DInstr &in, uint32_t mask, uint32_t pc) {
  if (in.opcode == ptx::Opcode::BarrierClusterArrive || in.opcode == ptx::Opcode::BarrierClusterWait)
    return executeClusterBarrier(w, in, mask, pc);
  std::string_view name = ptx::InstrTable::get().info(in.opcode).name;
  bool isArrive = name.ends_with(".arrive"), isRed = name.ends_with(".red");
  // bar.* is barrier.*.aligned; barrier.* without .aligned may diverge.
  bool aligned = name.starts_with("bar.") || kernel.desc(in).has(ptx::Mod::Aligned);
  Exec x{*this, w, mask, pc};
  unsigned first = static_cast<unsigned>(std::countr_zero(mask));
  unsigned idIndex = isRed ? 1 : 0;
  uint64_t id = readOperand(x, kernel.op(in, idIndex), first);
  bool hasCount = isRed ? in.numOps == 4 : in.numOps >= 2;
  uint64_t count = hasCount ? readOperand(x, kernel.op(in, idIndex + 1), first) & 0xFFFFFFFFu : 0;
  if (id >= 16) {
    report(ptx::DiagKind::BarrierInvalidOperand, ptx::Severity::Error, pc, w, mask,
           "barrier id " + std::to_string(id) + " is out of range 0..15", {{"barrier", std::to_string(id)}});
    return;
  }
  if (hasCount && (count == 0 || count % 32 != 0)) {
    report(ptx::DiagKind::BarrierInvalidOperand, ptx::Severity::Error, pc, w, mask,
           "barrier thread count " + std::to_string(count) + " is not a positive multiple of 32",
           {{"barrier", std::to_string(id)}, {"count", std::to_string(count)}});
    return;
  }
  uint32_t live = w.valid & ~w.exited;
  if (aligned && mask != live)
    report(ptx::DiagKind::DivergentBarrier, ptx::Severity::Warning, pc, w, mask,
           "'" + std::string(name) + "' is .aligned but only lanes " + laneList(mask) +
               " of the warp reached it",
           {{"barrier", std::to_string(id)}});
  NamedBarrier &b = barriers[id];
  NamedBarrier::Op op = isRed      ? NamedBarrier::Op::Red
                        : isArrive ? NamedBarrier::Op::Arrive
                                   : NamedBarrier::Op::Sync;
  uint64_t bit = uint64_t{1} << (w.index % 64);
  unsigned slot = w.index % 64;
  // Two bar.arrive on one barrier with no barrier operation of the warp in
  // between: whether both count in one generation depends on timing (on
  // hardware it hangs when the waiting warp is late). Reported whatever
  // this run's timing was (DESIGN.md §4).
  bool twice =
      op == NamedBarrier::Op::Arrive && w.lastBarrierWasArrive && w.lastBarrier == static_cast<int32_t>(id);
  w.lastBarrier = static_cast<int32_t>(id);
  w.lastBarrierWasArrive = op == NamedBarrier::Op::Arrive;
  if (twice) {
    report(ptx::DiagKind::BarrierDoubleArrive, ptx::Severity::Error, pc, w, mask,
           "warp " + std::to_string(w.index) + " arrives twice at barrier " + std::to_string(id) +
               " with no barrier operation in between: both arrivals may count in one generation",
           {{"barrier", std::to_string(id)}, {"generation", std::to_string(b.generation)}});
    return;
  }
  bool newWarp = b.expected == 0 || !(b.arrivedWarps & bit);
  if (b.expected != 0 && newWarp) {
    uint32_t want = hasCount ? static_cast<uint32_t>(count) : expectedAll();
    if (hasCount != b.countGiven || (hasCount && want != b.expected)) {
      report(ptx::DiagKind::BarrierCountMismatch, ptx::Severity::Error, pc, w, mask,
             "barrier " + std::to_string(id) + ": this warp expects " +
                 (hasCount ? std::to_string(want) : std::string("all")) + " threads, others of generation " +
                 std::to_string(b.generation) + " expect " + std::to_string(b.expected),
             {{"barrier", std::to_string(id)}});
      return;
    }
    if ((b.op == NamedBarrier::Op::Red) != (op == NamedBarrier::Op::Red)) {
      report(ptx::DiagKind::BarrierMixedOps, ptx::Severity::Error, pc, w, mask,
             "barrier " + std::to_string(id) + " mixes bar.red with bar.sync/bar.arrive in one generation",
             {{"barrier", std::to_string(id)}});
      return;
    }
  } else if (b.expected == 0) {
    b.expected = hasCount ? static_cast<uint32_t>(count) : expectedAll();
    b.countGiven = hasCount;
    b.op = op;
  }
  if (op == NamedBarrier::Op::Red) accumulateRed(b, in, x, mask);
  if (racecheck) racecheck->arrive(w.index, b.clock);
  // Counting, as the hardware does: a warp's arrival counts 32 threads
  // whatever its size. An .aligned barrier counts the warp when its first
  // group arrives (later groups of that warp join it); a non-aligned one
  // once all its non-exited lanes have arrived. The same lanes arriving
  // again in one generation count again.
  b.arrivedWarps |= bit;
  if (b.arrivedLanes[slot] & mask) {
    b.arrivedLanes[slot] = mask;
    b.arrived += 32;
  } else {
    b.arrivedLanes[slot] |= mask;
    bool complete = aligned || (b.arrivedLanes[slot] & live) == live;
    if (complete && !(b.countedWarps & bit)) {
      b.countedWarps |= bit;
      b.arrived += 32;
    }
  }
  if (op != NamedBarrier::Op::Arrive) {
    ++stats.barrierWaits[id];
    park(w, static_cast<uint32_t>(id), b.generation, pc);
  }
  tryComplete(static_cast<uint32_t>(id));
}

void Cta::recountAfterExit(Warp &w) {
  if (cluster) cluster->tryComplete(); // exited threads no longer count
  uint64_t bit = uint64_t{1} << (w.index % 64);
  uint32_t live = w.valid & ~w.exited;
  for (uint32_t id = 0; id < 16; ++id) {
    NamedBarrier &b = barriers[id];
    if (!b.expected) continue;
    // Waiting on every thread: this warp's exited lanes no longer count.
    if (!b.countGiven) b.expected = expectedAll();
    // A non-aligned arrival waiting for lanes that have now exited.
    if ((b.arrivedWarps & bit) && !(b.countedWarps & bit) && (b.arrivedLanes[w.index % 64] & live) == live) {
      b.countedWarps |= bit;
      b.arrived += 32;
    }
    tryComplete(id);
  }
}

void Cta::accumulateRed(NamedBarrier &b, const DInstr &in, Exec &x, uint32_t mask) {
  const DOp &pred = kernel.op(in, in.numOps - 1);
  forLanes(mask, [&](unsigned lane) {
    bool v = (readOperand(x, pred, lane) & 1) != pred.negated;
    b.popc += v;
    b.andAll &= v;
    b.orAny |= v;
  });
  b.redOp = in.op;
  b.redDests.emplace_back(x.warp.index, kernel.op(in, 0).reg);
}

void Cta::park(Warp &w, uint32_t id, uint32_t generation, uint32_t pc) {
  SimtEntry &top = w.stack.back();
  top.waitBarrier = static_cast<int32_t>(id);
  top.waitGeneration = generation;
  w.barrier = id;
  w.generation = generation;
  w.waitPc = pc;
  // Let the other side of a divergent branch run meanwhile (independent
  // thread scheduling): move the waiting group under its sibling.
  if (w.stack.size() >= 2) {
    SimtEntry &below = w.stack[w.stack.size() - 2];
    if (below.reconverge == top.reconverge && below.waitBarrier < 0 && (below.mask & ~w.exited))
      std::swap(top, below);
  }
  if (w.stack.back().waitBarrier >= 0) w.state = Warp::State::AtBarrier;
}

void Cta::tryComplete(uint32_t id) {
  NamedBarrier &b = barriers[id];
  if (b.expected == 0 || b.arrived < b.expected) return;
  release(id);
}

void Cta::release(uint32_t id) {
  NamedBarrier &b = barriers[id];
  uint64_t result = b.redOp == ptx::Mod::Popc ? b.popc : b.redOp == ptx::Mod::And ? b.andAll : b.orAny;
  for (const auto &dest : b.redDests) {
    const uint32_t warp = dest.first, reg = dest.second; // named: lambdas capture them (clang 14)
    Warp &w = warps[warp];
    forLanes(b.arrivedLanes[warp % 64], [&](unsigned l) { w.regs[reg * 32 + l] = result; });
  }
  for (Warp &w : warps) unpark(w, static_cast<int32_t>(id), b.generation, b.clock);
  uint32_t generation = b.generation + 1;
  b = NamedBarrier{};
  b.generation = generation;
}

void Cta::reportDeadlock() {
  // The wait-for table: every blocked warp, and why the others are missing.
  std::vector<std::pair<std::string, std::string>> fields;
  std::string table;
  for (const Warp &w : warps) {
    std::string row = "warp " + std::to_string(w.index) + " lanes " +
                      laneList(w.state == Warp::State::Done ? w.valid : w.valid & ~w.exited) + ": ";
    if (w.state == Warp::State::AtBarrier && w.barrier == static_cast<uint32_t>(kClusterBarrier)) {
      row += "waits at barrier.cluster (phase " + std::to_string(w.generation) + ") at line " +
             std::to_string(kernel.line(w.waitPc));
    } else if (w.state == Warp::State::AtBarrier) {
      const NamedBarrier &b = barriers[w.barrier];
      row += "waits at barrier " + std::to_string(w.barrier) + " (generation " +
             std::to_string(b.generation) + ", " + std::to_string(b.arrived) + " of " +
             std::to_string(b.expected) + " arrived) at line " + std::to_string(kernel.line(w.waitPc));
    } else if (w.state == Warp::State::Done) {
      row += "exited";
    } else {
      row += "running";
    }
    table += "\n    " + row;
    fields.emplace_back("warp" + std::to_string(w.index), row);
  }
  const Warp *first = nullptr;
  for (const Warp &w : warps)
    if (w.state == Warp::State::AtBarrier) {
      first = &w;
      break;
    }
  if (first->barrier == static_cast<uint32_t>(kClusterBarrier)) {
    uint64_t live = 0;
    for (const Cta *c : cluster->ctas) live += c->liveThreads();
    fields.insert(fields.begin(), {{"barrier", "cluster"},
                                   {"arrived", std::to_string(cluster->arrived)},
                                   {"expected", std::to_string(live)}});
    report(ptx::DiagKind::BarrierDeadlock, ptx::Severity::Error, first->waitPc, *first,
           first->valid & ~first->exited,
           "deadlock: no warp of the cluster can run; barrier.cluster has " +
               std::to_string(cluster->arrived) + " of " + std::to_string(live) + " threads (CTA rank " +
               std::to_string(clusterRank) + ")" + table,
           fields);
    return;
  }
  const NamedBarrier &b = barriers[first->barrier];
  fields.insert(fields.begin(), {{"barrier", std::to_string(first->barrier)},
                                 {"generation", std::to_string(b.generation)},
                                 {"arrived", std::to_string(b.arrived)},
                                 {"expected", std::to_string(b.expected)}});
  report(ptx::DiagKind::BarrierDeadlock, ptx::Severity::Error, first->waitPc, *first,
         first->valid & ~first->exited,
         "deadlock: no warp of the CTA can run; barrier " + std::to_string(first->barrier) + " has " +
             std::to_string(b.arrived) + " of " + std::to_string(b.expected) + " threads" + table,
         fields);
}

} // namespace emu
