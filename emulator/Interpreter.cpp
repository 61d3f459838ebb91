// The interpreter's warp loop: straight-line runs of handler calls, and the
// control instructions (branches, exit, barriers, calls) handed to the
// CTA's SIMT stack, barrier units and the call machinery.
#include "emulator/Interpreter.h"

#include "emulator/Cta.h"
#include "emulator/Semantics.h"
#include "ptx/Writer.h"

#include <algorithm>
#include <bit>

namespace emu {

Interpreter &Interpreter::instance() {
  // Never destroyed: a program may exit while a launch still runs on another
  // host thread (issue 10, class 6), which must not find the engine gone.
  static Interpreter *interpreter = new Interpreter;
  return *interpreter;
}

WarpStop Interpreter::run(Cta &cta, Warp &w, uint64_t budget) {
  if (cta.observeInstructions)
    step<true, false>(cta, w, budget, nullptr);
  else
    step<false, false>(cta, w, budget, nullptr);
  return stopOf(cta, w);
}

WarpStop Interpreter::run(Cta &cta, Warp &w, uint64_t budget, Accelerator &accelerator) {
  if (cta.observeInstructions)
    step<true, false>(cta, w, budget, nullptr);
  else
    step<false, true>(cta, w, budget, &accelerator);
  return stopOf(cta, w);
}

WarpStop Interpreter::stopOf(const Cta &cta, const Warp &w) {
  if (cta.failed) return WarpStop::Failed;
  if (w.state == Warp::State::Done) return WarpStop::Exited;
  if (w.state == Warp::State::AtBarrier) return WarpStop::Blocked;
  return WarpStop::Budget;
}

template <bool Observed, bool Accelerated>
void Interpreter::step(Cta &cta, Warp &w, uint64_t budget, [[maybe_unused]] Accelerator *accelerator) {
  const Kernel &kernel = cta.kernel;
  const std::vector<DInstr> &code = kernel.code;
  while (budget-- > 0 && w.state == Warp::State::Ready && !cta.failed) {
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
      if (!w.calls.empty() && w.stack.size() == w.calls.back().stackDepth) finishCall(cta, w);
      if (w.stack.empty()) w.state = Warp::State::Done;
      continue;
    }
    uint32_t pc = top.pc;
    const DInstr &in = code[pc];
    if constexpr (Accelerated) {
      // The budget unit this iteration took counts for the accelerator too:
      // it spends one per instruction, as the loop below does.
      if (in.control == Control::Next || in.control == Control::Branch) {
        const uint64_t available = budget + 1;
        if (uint64_t used = accelerator->run(cta, w, top, active, available)) {
          budget = available - used;
          continue;
        }
      }
    }
    uint32_t mask = active;
    if (in.guard >= 0) {
      uint32_t g = predicateMask(&w.regs[static_cast<uint32_t>(in.guard) * 32]);
      mask &= in.guardNegated ? ~g : g;
    }
    ++cta.executed;
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
          Exec x{cta, w, mask, pc};
          next->run(x, *next);
        }
        if constexpr (Observed) cta.events->instructionExecuted(w, pc, active, mask);
        ++pc;
        if (pc == stop || pc >= size || budget == 0 || cta.failed) break;
        next = &code[pc];
        if (next->control != Control::Next) break;
        --budget;
        mask = active;
        if (next->guard >= 0) {
          uint32_t g = predicateMask(&w.regs[static_cast<uint32_t>(next->guard) * 32]);
          mask &= next->guardNegated ? ~g : g;
        }
        ++cta.executed;
        ++w.warpInstructions;
        w.threadInstructions += static_cast<uint64_t>(std::popcount(mask));
      }
      w.stack.back().pc = pc;
      break;
    }
    case Control::Branch: {
      if constexpr (Observed) cta.events->instructionExecuted(w, pc, active, mask);
      uint32_t taken = mask, notTaken = active & ~mask;
      if (taken == 0)
        top.pc = pc + 1;
      else if (notTaken == 0)
        top.pc = in.target;
      else
        cta.diverge(w, pc, in.target, taken, notTaken, in.reconverge);
      break;
    }
    case Control::BranchIndexed:
      if (!mask) {
        top.pc = pc + 1;
        break;
      }
      branchIndexed(cta, w, in, active, mask, pc);
      break;
    case Control::Exit: cta.exitLanes(w, mask, pc); break;
    case Control::Barrier:
      w.stack.back().pc = pc + 1;
      if (mask) barrier(cta, w, in, mask, pc);
      break;
    case Control::Call:
      top.pc = pc + 1; // where the caller goes on once the callee returns
      if (mask && !call(cta, w, in, mask, pc)) return;
      break;
    case Control::Return:
      w.calls.back().returned |= mask;
      w.stack.back().pc = pc + 1;
      break;
    case Control::Unsupported:
      cta.report(ptx::DiagKind::Unsupported, ptx::Severity::Error, pc, w, mask,
                 "the emulator cannot execute '" + ptx::instructionName(*kernel.module, kernel.instr(in)) +
                     "' yet");
      return;
    }
  }
}

/// brx.idx: lanes go to the target their index selects; each distinct
/// target runs to the reconvergence point like a side of a branch.
void Interpreter::branchIndexed(Cta &cta, Warp &w, const DInstr &in, uint32_t active, uint32_t mask,
                                uint32_t pc) {
  const Kernel &kernel = cta.kernel;
  Exec x{cta, w, mask, pc};
  std::vector<std::pair<uint32_t, uint32_t>> groups; // (target pc, lanes)
  bool bad = false;
  forLanes(mask, [&](unsigned lane) {
    uint64_t index = readOperand(x, kernel.op(in, 0), lane) & 0xFFFFFFFFu;
    if (index >= in.numTargets) {
      if (!bad)
        cta.report(ptx::DiagKind::Trap, ptx::Severity::Error, pc, w, 1u << lane,
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
    w.stack.back().pc = groups[0].first;
    return;
  }
  cta.divergeIndexed(w, pc, groups, active & ~mask, in.reconverge);
}

/// The barrier instructions as values for the CTA's barrier units; the
/// kind, alignment and operand positions come from the instruction table.
void Interpreter::barrier(Cta &cta, Warp &w, const DInstr &in, uint32_t mask, uint32_t pc) {
  if (in.barrier == ptx::BarrierKind::ClusterArrive) return cta.clusterArrive(w, mask, pc);
  if (in.barrier == ptx::BarrierKind::ClusterWait) return cta.clusterWait(w, mask, pc);
  const Kernel &kernel = cta.kernel;
  bool isArrive = in.barrier == ptx::BarrierKind::Arrive, isRed = in.barrier == ptx::BarrierKind::Reduce;
  Exec x{cta, w, mask, pc};
  unsigned first = static_cast<unsigned>(std::countr_zero(mask));
  unsigned idIndex = in.barrierIdOperand;
  BarrierOp op;
  op.kind = isRed ? NamedBarrier::Op::Red : isArrive ? NamedBarrier::Op::Arrive : NamedBarrier::Op::Sync;
  op.aligned = in.aligned;
  op.warp = w.index;
  op.id = readOperand(x, kernel.op(in, idIndex), first);
  op.hasCount = in.numOps >= idIndex + 2u + (isRed ? 1u : 0u); // id, count[, predicate]
  op.count = op.hasCount ? readOperand(x, kernel.op(in, idIndex + 1), first) & 0xFFFFFFFFu : 0;
  op.lanes = mask;
  op.pc = pc;
  if (isRed) {
    const DOp &pred = kernel.op(in, in.numOps - 1);
    forLanes(mask, [&](unsigned lane) {
      bool v = (readOperand(x, pred, lane) & 1) != pred.negated;
      op.redTrue |= uint32_t{v} << lane;
    });
    op.redOp = in.op;
    op.redDest = kernel.op(in, 0).reg;
  }
  cta.barriers.execute(op);
}

} // namespace emu
