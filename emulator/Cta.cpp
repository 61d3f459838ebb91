// The CTA scheduler: runs warps round-robin on the CTA's engine (each until
// it blocks, exits or uses its quantum), in a fixed or seeded random order,
// and stops the CTA at a fault, a deadlock or the instruction limit.
#include "emulator/Cta.h"

#include "emulator/Device.h"
#include "emulator/Interpreter.h"
#include "ptx/SourceLocation.h"
#include "ptx/Writer.h"

#include <algorithm>
#include <bit>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>

namespace emu {
namespace {
constexpr uint64_t kQuantum = 4096; // warp instructions before the next warp runs

/// The buffers of the last CTA this host thread finished, for the next one:
/// a launch of many small CTAs then allocates nothing per CTA (what is left
/// is zeroing the registers and shared memory, which the model needs).
struct CtaStorage {
  std::vector<Warp> warps;
  std::vector<uint8_t> shared, local;
};
thread_local CtaStorage recycled;

/// A warp as new, keeping the capacity of its buffers (its registers and
/// frame are sized and cleared by the caller). Copied from a static: a
/// temporary WarpScalars{} is built on the stack and copied, and those wide
/// stores and loads stall on each other (4% of a small launch's time).
void renew(Warp &w) {
  static const WarpScalars kFresh{};
  static_cast<WarpScalars &>(w) = kFresh;
  w.stack.clear();
  w.calls.clear();
}
} // namespace

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

Cta::Cta(Device &device, const Kernel &kernel, Dim3 ctaid, Dim3 nctaid, Dim3 ntid, uint32_t dynamicShared,
         const std::vector<uint8_t> &params, ptx::DiagnosticList &diags, LaunchBudget &budget)
    : kernel(kernel), device(device), ctaid(ctaid), nctaid(nctaid), ntid(ntid), params(params), diags_(diags),
      budget_(budget), engine_(&Interpreter::instance()) {
  shared = std::move(recycled.shared);
  local = std::move(recycled.local);
  warps = std::move(recycled.warps);
  shared.assign(kernel.staticShared + dynamicShared, 0);
  uint64_t threads = ntid.count();
  local.assign(threads * kernel.localBytes, 0);
  uint32_t numWarps = static_cast<uint32_t>((threads + 31) / 32);
  warps.resize(numWarps);
  for (uint32_t w = 0; w < numWarps; ++w) {
    Warp &warp = warps[w];
    renew(warp);
    warp.index = w;
    uint64_t first = uint64_t{w} * 32;
    uint64_t n = std::min<uint64_t>(32, threads - first);
    warp.valid = n == 32 ? 0xFFFFFFFFu : ((1u << n) - 1);
    // Only registers a lane can read before writing them start at 0 (a
    // fresh buffer is zero anyway): a recycled one keeps the rest.
    const bool fresh = warp.regs.empty();
    warp.regs.resize(uint64_t{kernel.numRegisters} * 32);
    if (!fresh)
      for (uint32_t slot : kernel.entrySlots) std::fill_n(warp.regs.data() + uint64_t{slot} * 32, 32, 0);
    warp.frame.assign(uint64_t{kernel.regions[0].frameBytes} * 32, 0);
    warp.stack.push_back({0, warp.valid, kernel.exitPc});
    warp.stackPointer.fill(kernel.localBytes);
  }
}

Cta::~Cta() {
  // Big buffers go back to the allocator (a launch of huge CTAs should not
  // pin its memory for the thread's lifetime).
  constexpr size_t kKeep = size_t{4} << 20;
  size_t bytes = shared.capacity() + local.capacity();
  for (const Warp &w : warps) bytes += w.regs.capacity() * 8 + w.frame.capacity();
  if (bytes > kKeep) return;
  recycled.shared = std::move(shared);
  recycled.local = std::move(local);
  recycled.warps = std::move(warps);
}

void Cta::addObserver(std::unique_ptr<CtaObserver> observer) {
  if (!observer) return;
  observers_.add(std::move(observer));
  events = observers_.size() == 1 ? &observers_[0] : &observers_;
  observeInstructions = observers_.interests() & CtaObserver::kInstructions;
  observeMemory = observers_.interests() & CtaObserver::kMemory;
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
    d.sourceLine = ptx::writeInstruction(*kernel.module, fn, in);
  }
  d.fields.emplace_back("cta", std::to_string(ctaid.x) + "," + std::to_string(ctaid.y) + "," +
                                   std::to_string(ctaid.z));
  d.fields.emplace_back("warp", std::to_string(w.index));
  d.fields.emplace_back("lanes", laneList(mask));
  for (auto &f : fields) d.fields.push_back(std::move(f));
  if (pc < kernel.code.size())
    ptx::setCudaLocation(d, *kernel.module, kernel.functionOf(kernel.code[pc]),
                         kernel.instr(kernel.code[pc]));
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

Cta::SliceResult Cta::runSlice() {
  if (order_.size() != warps.size()) {
    order_.resize(warps.size());
    for (uint32_t i = 0; i < order_.size(); ++i) order_[i] = i;
  }
  bool progressed = false, anyBlocked = false, clusterWait = false;
  Warp *lastRun = nullptr; // where a stopped launch is reported
  if (random_)
    for (size_t i = order_.size(); i > 1; --i) std::swap(order_[i - 1], order_[nextRandom() % i]);
  for (uint32_t wi : order_) {
    Warp &w = warps[wi];
    if (failed) return SliceResult::Failed;
    if (w.state == Warp::State::Ready) {
      if (events) events->warpSliceStarted(w);
      const WarpStop stop = engine_->run(*this, w, kQuantum);
      if (events) events->warpSliceEnded(w);
      if (stop == WarpStop::Failed) return SliceResult::Failed;
      progressed = true;
      lastRun = &w;
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
  // The launch's budget, once per slice (a slice is up to kQuantum warp
  // instructions per warp, so the clock is read rarely).
  const uint64_t spent = budget_.spent.fetch_add(executed - charged_) + (executed - charged_);
  charged_ = executed;
  const bool overInstructions = spent > budget_.maxInstructions;
  if (overInstructions ||
      (budget_.timeoutSeconds > 0 && std::chrono::steady_clock::now() > budget_.deadline)) {
    if (!budget_.exhausted.exchange(true)) {
      const Warp &w = lastRun ? *lastRun : warps[0];
      const uint32_t pc = w.stack.empty() ? 0 : w.stack.back().pc,
                     lanes = w.stack.empty() ? 0 : w.stack.back().mask;
      if (overInstructions)
        report(ptx::DiagKind::InstructionLimit, ptx::Severity::Error, pc, w, lanes,
               "stopped after " + std::to_string(spent) +
                   " warp instructions over all CTAs of the launch (--max-instructions)");
      else {
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, "%g", budget_.timeoutSeconds);
        report(ptx::DiagKind::Timeout, ptx::Severity::Error, pc, w, lanes,
               std::string("the launch ran past its time limit of ") + seconds + " s (--timeout)",
               {{"cuda_error", "cudaErrorLaunchTimeout"}});
      }
    }
    failed = true;
    return SliceResult::Failed;
  }
  return SliceResult::Running;
}

} // namespace emu
