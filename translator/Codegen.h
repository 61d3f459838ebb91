// PTX kernel code (the emulator's decoded form) to LLVM IR: one function per
// PTX function that runs a warp's groups through straight-line blocks and
// branches as whole-warp vector code (lanes as <32 x T> under the group's
// mask), divergence and reconvergence through the SIMT services, calling the
// interpreter's handler for any instruction it does not compile itself, and
// returning to the interpreter's loop for calls, exits and barriers. The
// contract of the functions is JitFrame (Frame.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace emu {
struct Kernel;
} // namespace emu

namespace translator {

/// What code generation made of a kernel's instructions.
struct CodegenStats {
  uint32_t instructions = 0; // in the kernel's code, device functions included
  uint32_t native = 0;       // compiled to vector code
  uint32_t handlerCalls = 0; // compiled as a call of the interpreter's handler
  uint32_t branches = 0;     // branches compiled (divergent ones through the SIMT services)
  uint32_t interpreted = 0;  // left to the interpreter's loop: calls, exits, barriers, brx.idx, unsupported
  uint32_t blocks = 0;       // straight-line blocks
  uint32_t uniformAddresses = 0;     // accesses whose span the analyses settle: one address
  uint32_t consecutiveAddresses = 0; // ... consecutive lanes in 1-D blocks
  uint32_t registers = 0;            // register slots held in SSA form (all functions)
  uint32_t scalarRegisters = 0;      // ... of them kept as one scalar (warp-uniform)
  uint64_t irInstructions = 0;       // LLVM IR instructions generated (before code generation)
  /// Handler calls by instruction name (with its modifiers), for reports.
  std::map<std::string, uint32_t> handlerOpcodes;
};

/// Where compiled code starts: per pc, the name of the CompiledFunction
/// that runs from there (empty: none; the interpreter runs that pc).
using EntryMap = std::vector<std::string>;

/// How code is generated.
struct GenerateOptions {
  /// The analyses' facts (Facts.h; null: none): memory accesses skip the
  /// run-time span checks they settle.
  const struct AddressFacts *facts = nullptr;
  /// Fill stats.handlerOpcodes, which reads the kernel's ptx::Module (off
  /// where another thread may be adding function bodies to it); the rest
  /// reads only the decoded kernel.
  bool names = true;
  /// --unchecked: a warp's scattered accesses are checked at the first
  /// executing lane only (bounds, alignment, liveness: a fault there is
  /// reported as always), and every other lane is clamped into the
  /// allocation (or shared memory) that lane's address lies in. A kernel
  /// whose accesses are all inside their allocations runs the same; one
  /// that strays reads and writes wrong bytes of its own memory without a
  /// report, and never host memory. One-address and consecutive accesses
  /// are checked whole as before (their checks cost two compares).
  bool unchecked = false;
};

/// Builds the module of kernel `k`'s compiled functions, named after `name`:
/// one per PTX function, entered at any pc `entries` names.
std::unique_ptr<llvm::Module> generateKernel(llvm::LLVMContext &ctx, const emu::Kernel &k,
                                             const std::string &name, EntryMap &entries, CodegenStats &stats,
                                             const GenerateOptions &options = {});

} // namespace translator
