#include "tests/emulator/TableSamples.h"

#include "emulator/Device.h"
#include "emulator/Semantics.h"
#include "ptx/Parser.h"
#include "ptx/Verifier.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

namespace ptxvm::test {

namespace fs = std::filesystem;
using ptx::Opcode;

namespace {
void readSamples(const fs::path &p, std::vector<TableSample> &out) {
  std::ifstream in(p);
  std::string line, arch;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.rfind("# arch:", 0) == 0) {
      arch = line.substr(7);
      arch.erase(0, arch.find_first_not_of(' '));
      arch = arch.substr(0, arch.find(' '));
    }
    if (line.empty() || line[0] == '#') continue;
    out.push_back({p.filename().string(), n, arch, line});
  }
}
} // namespace

std::vector<TableSample> loadProbeSamples() {
  std::vector<TableSample> out;
  readSamples(fs::path(PTXVM_SOURCE_DIR) / "tests" / "emulator" / "probe_forms.txt", out);
  return out;
}

std::vector<TableSample> loadTableSamples() {
  std::vector<TableSample> out;
  std::vector<fs::path> paths;
  for (const auto &e : fs::directory_iterator(fs::path(PTXVM_SOURCE_DIR) / "tests" / "table"))
    if (e.path().extension() == ".txt") paths.push_back(e.path());
  std::sort(paths.begin(), paths.end());
  for (const fs::path &p : paths) {
    std::ifstream in(p);
    std::string line, arch;
    int n = 0;
    while (std::getline(in, line)) {
      ++n;
      if (line.rfind("# arch:", 0) == 0) {
        arch = line.substr(7);
        arch.erase(0, arch.find_first_not_of(' '));
        arch = arch.substr(0, arch.find(' '));
      }
      if (line.empty() || line[0] == '#') continue;
      out.push_back({p.filename().string(), n, arch, line});
    }
  }
  return out;
}

ptx::Type sampleRegisterType(const std::string &prefix) {
  if (prefix == "rd") return ptx::Type::B64;
  if (prefix == "f") return ptx::Type::F32;
  if (prefix == "fd") return ptx::Type::F64;
  if (prefix == "h" || prefix == "rs") return ptx::Type::B16;
  if (prefix == "p") return ptx::Type::Pred;
  if (prefix == "rq") return ptx::Type::B128;
  return ptx::Type::B32;
}

std::string wrapSample(const std::string &text) {
  static const std::regex reg(R"(%([a-z]+)([0-9]+))");
  std::set<std::string> declared;
  std::string decls;
  for (std::sregex_iterator it(text.begin(), text.end(), reg), end; it != end; ++it) {
    std::string prefix = (*it)[1], name = (*it)[0];
    if (prefix == "envreg" || !declared.insert(name).second) continue;
    decls += "  .reg ." + std::string(ptx::spelling(sampleRegisterType(prefix))) + " " + name + ";\n";
  }
  return ".version 9.0\n.target sm_100a\n.address_size 64\n.entry k()\n{\n" + decls + "  " + text + ";\n}\n";
}

const char *sampleKindName(SampleKind k) {
  switch (k) {
  case SampleKind::Executable: return "executable";
  case SampleKind::ControlFlow: return "control flow (EmulatorTest)";
  case SampleKind::Barrier:
    return "barrier or warp/mbarrier synchronisation (BarrierTest, WarpTest, EmulatorTest)";
  case SampleKind::AsyncCopy:
    return "asynchronous copy (EmulatorTest Async.*, EmulatorAtomic.BulkReduce*, corpus kernels)";
  case SampleKind::NoDataEffect: return "ordering, hint or scheduling only: no data effect";
  case SampleKind::TensorCore: return "tensor core (out of scope)";
  case SampleKind::Tcgen05: return "tcgen05 (out of scope)";
  case SampleKind::Texture: return "texture/surface (out of scope)";
  case SampleKind::Cluster: return "needs several GPUs (multimem) or cluster launch control (sm_100)";
  case SampleKind::AddressLayout:
    return "addresses of the emulator's own layout: generic windows, cluster ranks, the alloca stack "
           "(EmulatorTest.IsspacepClassifiesGenericAddresses, ClusterTest, MiscTest Stack.*, corpus kernels)";
  case SampleKind::Unsupported: return "UNSUPPORTED (no handler)";
  case SampleKind::Unparsed: return "not parsed";
  }
  return "?";
}

namespace {

/// The kind of an instruction that is not executable data work, or
/// Executable when it is (or should be).
SampleKind classify(const ptx::InstrDesc &d) {
  const ptx::InstrTable &table = ptx::InstrTable::get();
  const std::string_view name = table.info(d.opcode).name;
  if (name.rfind("tcgen05", 0) == 0) return SampleKind::Tcgen05;
  if (table.has(d.opcode, ptx::iflag::Tensor) || d.opcode == Opcode::Ldmatrix ||
      d.opcode == Opcode::Stmatrix || d.opcode == Opcode::Movmatrix ||
      d.opcode == Opcode::CpAsyncBulkTensor || d.opcode == Opcode::CpReduceAsyncBulkTensor ||
      d.opcode == Opcode::CpAsyncBulkPrefetchTensor || d.opcode == Opcode::TensormapReplace ||
      d.opcode == Opcode::TensormapCpFenceproxy)
    return SampleKind::TensorCore;
  if (table.has(d.opcode, ptx::iflag::Texture) || d.opcode == Opcode::Istypep) return SampleKind::Texture;
  switch (d.opcode) {
  case Opcode::Bra:
  case Opcode::BrxIdx:
  case Opcode::Call:
  case Opcode::Ret:
  case Opcode::Exit:
  case Opcode::Trap:
  case Opcode::Brkpt: return SampleKind::ControlFlow;
  case Opcode::BarWarpSync:
  case Opcode::MbarrierInit:
  case Opcode::MbarrierInval:
  case Opcode::MbarrierExpectTx:
  case Opcode::MbarrierCompleteTx:
  case Opcode::MbarrierArrive:
  case Opcode::MbarrierArriveDrop:
  case Opcode::MbarrierTestWait:
  case Opcode::MbarrierTryWait:
  case Opcode::MbarrierPendingCount: return SampleKind::Barrier;
  case Opcode::Cvta:
  case Opcode::Isspacep:
  case Opcode::Mapa:
  case Opcode::Getctarank:
  case Opcode::Alloca:
  case Opcode::Stacksave:
  case Opcode::Stackrestore: return SampleKind::AddressLayout;
  case Opcode::StAsync:
  case Opcode::RedAsync:
    // With an mbarrier operand they complete transactions on it.
    return d.has(ptx::Mod::MemCompleteTxBytes) ? SampleKind::AsyncCopy : SampleKind::Executable;
  case Opcode::CpAsync:
  case Opcode::CpAsyncMbarrierArrive:
  case Opcode::CpAsyncBulk:
  case Opcode::CpReduceAsyncBulk: return SampleKind::AsyncCopy;
  case Opcode::Membar:
  case Opcode::Fence:
  case Opcode::Nanosleep:
  case Opcode::Pmevent:
  case Opcode::Prefetch:
  case Opcode::Prefetchu:
  case Opcode::Applypriority:
  case Opcode::Discard:
  case Opcode::Createpolicy:
  case Opcode::Setmaxnreg:
  case Opcode::Griddepcontrol:
  case Opcode::CpAsyncCommitGroup:
  case Opcode::CpAsyncWaitGroup:
  case Opcode::CpAsyncWaitAll:
  case Opcode::CpAsyncBulkCommitGroup:
  case Opcode::CpAsyncBulkWaitGroup:
  case Opcode::CpAsyncBulkPrefetch: return SampleKind::NoDataEffect;
  case Opcode::BarrierClusterArrive:
  case Opcode::BarrierClusterWait: return SampleKind::Barrier;
  case Opcode::MultimemLdReduce:
  case Opcode::MultimemSt:
  case Opcode::MultimemRed:
  case Opcode::ClusterlaunchcontrolTryCancel:
  case Opcode::ClusterlaunchcontrolQueryCancel: return SampleKind::Cluster;
  default: break;
  }
  if (table.has(d.opcode, ptx::iflag::Barrier)) return SampleKind::Barrier;
  return SampleKind::Executable;
}

} // namespace

std::string handlerGroup(const std::string &line) {
  ptx::DiagnosticList diags;
  auto module = ptx::parseModule(wrapSample(line), "line.ptx", diags);
  if (diags.hasErrors()) return {};
  emu::Device device;
  auto kernel = device.decode(*module, "k", diags);
  if (!kernel || kernel->code.empty()) return {};
  const emu::HandlerRegistry &registry = emu::HandlerRegistry::get();
  return std::string(registry.groupOf(registry.find(kernel->code[0])));
}

DecodedSample decodeSample(const TableSample &s) {
  DecodedSample out;
  ptx::DiagnosticList diags;
  out.module = ptx::parseModule(wrapSample(s.text), s.file, diags);
  out.function = out.module->findFunction("k");
  if (diags.hasErrors() || !out.function || out.function->instrs.empty()) {
    out.why = diags.hasErrors() ? diags.renderText() : "no instruction";
    return out;
  }
  out.instr = &out.function->instrs[0];
  const ptx::InstrDesc &desc = out.module->desc(*out.instr);
  // Lines that name labels, functions or .b128 registers do not verify in
  // this bare kernel; they are not executable data work either.
  out.kind = classify(desc);
  const bool outOfScope = out.kind == SampleKind::TensorCore || out.kind == SampleKind::Tcgen05 ||
                          out.kind == SampleKind::Texture || out.kind == SampleKind::Cluster;
  if (outOfScope) return out;
  ptx::verifyModule(*out.module, diags);
  if (diags.hasErrors()) {
    // Control flow lines name labels and functions this bare kernel lacks.
    if (out.kind != SampleKind::ControlFlow) out.kind = SampleKind::Unparsed;
    out.why = diags.renderText();
    return out;
  }
  emu::Device device;
  auto kernel = device.decode(*out.module, "k", diags);
  if (!kernel || kernel->code.empty()) {
    out.kind = SampleKind::Unparsed;
    out.why = diags.renderText();
    return out;
  }
  // Whatever its kind, an instruction the emulator should run needs a
  // handler (or a control-flow action).
  const emu::DInstr &d = kernel->code[0];
  if (d.control != emu::Control::Next && d.control != emu::Control::Unsupported) {
    if (out.kind == SampleKind::Executable) out.kind = SampleKind::ControlFlow;
  } else if (!emu::selectHandler(d)) {
    out.kind = SampleKind::Unsupported;
  }
  return out;
}

} // namespace ptxvm::test
