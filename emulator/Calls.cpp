// Device-function calls in the interpreter: a call saves the caller's
// registers and .param frame, lays out the callee's from the call's
// arguments and pushes the callee's body on the SIMT stack; the return
// copies results back once every calling lane returned. Lanes calling
// different functions call one after the other. Calls to host functions
// are served here, synchronously (HostFunctions.h).
#include "emulator/Device.h"
#include "emulator/HostFunctions.h"
#include "emulator/Interpreter.h"
#include "emulator/Semantics.h"

#include <bit>
#include <cstdio>
#include <cstring>

namespace emu {

bool Interpreter::call(Cta &cta, Warp &w, const DInstr &in, uint32_t mask, uint32_t pc) {
  const Kernel &kernel = cta.kernel;
  const DOp &target = kernel.op(in, static_cast<unsigned>(in.callTarget));
  Exec x{cta, w, mask, pc};
  auto unsupported = [&](const std::string &why) {
    cta.report(ptx::DiagKind::Unsupported, ptx::Severity::Error, pc, w, mask, why);
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
    if (const HostCallee *host = cta.device.hostCallee(value)) return callHostFunction(x, in, *host);
  const ptx::Instruction &ir = kernel.instr(in);
  const ptx::Function &caller = kernel.functionOf(in);
  const uint64_t index = value & 0xFFFF'FFFFull;
  const uint32_t r = (value & ~0xFFFF'FFFFull) == kFunctionTag && index < kernel.regionOfFunction.size()
                         ? kernel.regionOfFunction[index]
                         : UINT32_MAX;
  const bool indirect =
      caller.operandsOf(ir)[static_cast<size_t>(in.callTarget)].kind == ptx::OperandKind::Register;
  if (indirect && ((value & ~0xFFFF'FFFFull) != kFunctionTag || index >= kernel.regionOfFunction.size())) {
    // Not a function's address at all. Measured on the H100
    // (tests/gpu/cases/fault_call_*): a garbage pointer faults with
    // cudaErrorIllegalAddress, a null one hangs the kernel; both are
    // reported here, the null one as the illegal instruction it is.
    char text[32];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
    cta.report(ptx::DiagKind::IllegalInstruction, ptx::Severity::Error, pc, w, mask,
               value == 0 ? std::string("call through a null function pointer")
                          : "call through " + std::string(text) + ", which is not the address of a function",
               {{"target", text},
                {"cuda_error", value == 0 ? "cudaErrorIllegalInstruction" : "cudaErrorIllegalAddress"}});
    return false;
  }
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
    cta.report(ptx::DiagKind::Trap, ptx::Severity::Error, pc, w, mask,
               "call depth exceeds 1024: stack overflow");
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
          // The verifier rejects an argument smaller than its formal; the
          // copy stays inside the caller's frame regardless.
          std::memcpy(frame.data() + size_t{l} * callee.frameBytes + callee.paramOffsets[i],
                      w.frame.data() + size_t{l} * here.frameBytes + arg.imm,
                      bytesInside(arg.imm, callee.paramSizes[i], here.frameBytes));
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

void Interpreter::finishCall(Cta &cta, Warp &w) {
  const Kernel &kernel = cta.kernel;
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
                      bytesInside(dst.imm, callee.returnSizes[i], caller.frameBytes));
        }
      });
    }
  }
  forLanes(cf.lanes, [&](unsigned l) { w.stackPointer[l] = cf.stackPointer[l]; });
  w.regs = std::move(cf.callerRegs);
  w.frame = std::move(cf.callerFrame);
  w.region = cf.callerRegion;
}

} // namespace emu
