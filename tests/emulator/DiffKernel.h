// One executable form of the instruction table turned into a differential
// test case: the kernel that loads every register of the sample line from an
// input buffer, points its address operands at a per-thread memory slot,
// runs the line, and stores every register before and after it; the inputs
// for a launch; and the check of a run's outputs against the references.
#pragma once

#include "tests/emulator/DiffInputs.h"
#include "tests/emulator/TableSamples.h"
#include "tests/emulator/reference/Reference.h"

#include <string>
#include <vector>

namespace ptxvm::test {

/// A register of the sample line and what the generated kernel does with it.
struct CaseRegister {
  std::string name;
  ptx::Type declared{}; // its .reg type
  ptx::Type domain{};   // the type its input values are drawn from
  enum Role : uint8_t {
    Data,
    GlobalAddress,
    SharedAddress,
    MemberMask,  // set to all ones
    CachePolicy, // set by createpolicy (hardware faults on other values)
    BulkSize,
    CarryIn,
    CarryOut
  } role = Data;
};

struct FormCase {
  TableSample sample;
  ref::Instr instr;
  std::vector<CaseRegister> regs;
  std::vector<int> slotRegister; // per reference slot: index into regs, or -1
  unsigned sm = 0;               // the form's smallest sm_XX
  bool shared = false;           // the address operand is in shared memory
  bool warpSync = false;         // a .sync warp primitive: inactive threads exit first
  bool carryIn = false, carryOut = false;
  std::string kernel; // PTX for the emulator (.target sm_100a)
};

/// Builds the case of an executable sample; false (with `why`) when the line
/// cannot be turned into one.
bool buildCase(const TableSample &s, const DecodedSample &d, FormCase &out, std::string &why);

/// The kernel text for a target (`sm_100a` for the emulator, `sm_90a` for an
/// H100).
std::string caseKernel(const FormCase &c, const std::string &target);

constexpr unsigned kSlotBytes = 256;       // global memory per thread
constexpr unsigned kSharedSlotBytes = 128; // shared memory per thread

/// One launch: its shape and inputs.
struct Launch {
  unsigned grid = 1, block = 32, n = 32; // n: threads that pass the guard
  std::vector<uint64_t> in;              // thread-major, 8 bytes per register
  std::vector<uint8_t> memory;           // kSlotBytes per thread
};
/// The outputs of a launch: registers before and after the instruction,
/// memory after.
struct Outputs {
  std::vector<uint64_t> pre, post;
  std::vector<uint8_t> memory;
};

/// The launches of a form: edge-value pairs first, then random values; with
/// and without a guard, with full and partial warps.
std::vector<Launch> caseLaunches(const FormCase &c, uint64_t seed);

/// Runs a launch on the emulator; false with the diagnostics in `why`.
bool runOnEmulator(const FormCase &c, const Launch &l, Outputs &out, std::string &why);

/// Compares outputs with the references; returns the mismatches (at most
/// `limit` described), and counts the checked values in `checked`. Sets
/// `noReference` when no reference covers the form.
std::vector<std::string> checkOutputs(const FormCase &c, const Launch &l, const Outputs &o, size_t limit,
                                      size_t &checked, bool &noReference);

} // namespace ptxvm::test
