// The instruction table's sample lines (tests/table/*_forms.txt: one line
// that ptxas accepted per instruction form) as the emulator sees them: each
// wrapped in a kernel, decoded, and classified as executable or not (and
// why not). The differential test and its summary read them from here.
#pragma once

#include "emulator/Kernel.h"
#include "ptx/IR.h"

#include <memory>
#include <string>
#include <vector>

namespace ptxvm::test {

struct TableSample {
  std::string file; // e.g. arith_forms.txt
  int line = 0;
  std::string arch; // the "# arch:" in force
  std::string text; // the instruction, without ';'
};

/// Every sample line of tests/table/*.txt, in file order.
std::vector<TableSample> loadTableSamples();
/// The extra lines of tests/emulator/probe_forms.txt (modifier combinations
/// whose hardware behaviour needed pinning down).
std::vector<TableSample> loadProbeSamples();

/// The PTX type of a sample-line register, from its name's prefix (%rd b64,
/// %f f32, %fd f64, %h/%rs b16, %p pred, %rq b128, everything else b32), as
/// TableFormsTest declares them.
ptx::Type sampleRegisterType(const std::string &prefix);

/// Why a sample line does or does not take part in the differential test.
enum class SampleKind {
  Executable,   // decoded with a handler: must have a reference
  ControlFlow,  // bra, brx.idx, call, ret, exit, trap, brkpt: EmulatorTest
  Barrier,      // bar/barrier, bar.warp.sync, mbarrier: BarrierTest, WarpTest, EmulatorTest (Async)
  AsyncCopy,    // cp.async*: EmulatorTest (Async) and the corpus kernels
  NoDataEffect, // fences, membar, hints, sleeps, commit/wait groups: nothing observable to compare
  TensorCore,   // mma, wmma, wgmma, ldmatrix, stmatrix, movmatrix: out of scope (issue 3)
  Tcgen05,      // tcgen05.*: out of scope
  Texture,      // tex, tld4, txq, suld, sust, sured, suq, istypep: out of scope
  Cluster, // needs a cluster of CTAs or several GPUs: mapa, getctarank, barrier.cluster, multimem, multicast
  AddressLayout, // cvta, isspacep: values depend on the emulator's generic-address windows (EmulatorTest)
  Unsupported,   // decodes without a handler: a gap
  Unparsed,      // the emulator's front end rejects it (should not happen)
};
const char *sampleKindName(SampleKind k);

/// A sample line parsed and decoded.
struct DecodedSample {
  std::unique_ptr<ptx::Module> module;
  const ptx::Function *function = nullptr;
  const ptx::Instruction *instr = nullptr; // the sample instruction
  SampleKind kind = SampleKind::Unparsed;
  std::string why; // for Unparsed: the diagnostics
};

/// The kernel TableFormsTest builds around a line: `.target sm_100a`, every
/// register it names declared.
std::string wrapSample(const std::string &text);

/// The semantics group whose handler row runs `line` (an instruction
/// written as in the sample files, e.g. "and.pred %p1, %p2, %p3"): "Misc",
/// "Integer", ...; empty when no row matches or the line does not decode.
std::string handlerGroup(const std::string &line);

/// Parses and classifies one sample (an instruction is executable when the
/// emulator's handler registry finds a handler for it).
DecodedSample decodeSample(const TableSample &s);

} // namespace ptxvm::test
