// Host functions called from device code, and the other ways the host
// reaches into a device between launches (its constant banks).
#include "emulator/HostFunctions.h"

#include "emulator/Device.h"
#include "emulator/Semantics.h"
#include "ptx/Layout.h"

#include <algorithm>
#include <cstring>

namespace emu {

namespace {

uint64_t alignUp(uint64_t v, uint64_t a) { return a ? (v + a - 1) / a * a : v; }

} // namespace

std::optional<CodeRegion> hostFrameLayout(const ptx::Function &declaration) {
  // Host services take a few scalars and pointers; a declaration whose frame
  // would pass this is not one of them (and its sizes could wrap).
  constexpr uint64_t kMaxFrame = 1 << 20;
  CodeRegion layout;
  layout.function = &declaration;
  uint64_t cursor = 0;
  auto place = [&](const ptx::Variable &v, std::vector<uint32_t> &offsets, std::vector<uint32_t> &sizes) {
    const std::optional<uint64_t> bytes = ptx::variableBytes(v);
    cursor = alignUp(cursor, ptx::naturalAlignment(v));
    if (!bytes || *bytes > kMaxFrame || cursor + *bytes > kMaxFrame) return false;
    offsets.push_back(static_cast<uint32_t>(cursor));
    sizes.push_back(static_cast<uint32_t>(*bytes));
    cursor += *bytes;
    return true;
  };
  for (const ptx::Variable &p : declaration.params)
    if (!place(p, layout.paramOffsets, layout.paramSizes)) return std::nullopt;
  for (const ptx::Variable &r : declaration.returns)
    if (!place(r, layout.returnOffsets, layout.returnSizes)) return std::nullopt;
  layout.frameBytes = static_cast<uint32_t>(alignUp(cursor, 8));
  return layout;
}

uint64_t HostCall::argument(unsigned i) const {
  if (i >= layout_.paramOffsets.size()) return 0;
  uint64_t v = 0;
  std::memcpy(&v, frame_ + layout_.paramOffsets[i], std::min<uint32_t>(layout_.paramSizes[i], 8));
  return v;
}

bool HostCall::argumentBytes(unsigned i, void *out, unsigned size) const {
  std::memset(out, 0, size);
  if (i >= layout_.paramOffsets.size()) return false;
  std::memcpy(out, frame_ + layout_.paramOffsets[i], std::min<uint32_t>(layout_.paramSizes[i], size));
  return true;
}

void HostCall::setResult(uint64_t bits, unsigned i) {
  if (i >= layout_.returnOffsets.size()) return;
  std::memcpy(frame_ + layout_.returnOffsets[i], &bits, std::min<uint32_t>(layout_.returnSizes[i], 8));
}

bool HostCall::read(uint64_t address, void *out, unsigned size) {
  // Byte by byte: a service reads what device code laid out, which need not
  // be aligned for the size the service asks for (a format string that
  // disagrees with its arguments must not fault where the GPU would not).
  auto *bytes = static_cast<uint8_t *>(out);
  for (unsigned i = 0; i < size; ++i)
    if (!loadBytes(x_, Space::Generic, address + i, 1, lane_, bytes + i)) return false;
  return true;
}

bool HostCall::write(uint64_t address, const void *in, unsigned size) {
  auto *bytes = static_cast<const uint8_t *>(in);
  for (unsigned i = 0; i < size; ++i)
    if (!storeBytes(x_, Space::Generic, address + i, 1, lane_, bytes + i)) return false;
  return true;
}

bool HostCall::readString(uint64_t address, std::string &out, size_t limit) {
  out.clear();
  for (size_t i = 0; i < limit; ++i) {
    char c;
    if (!loadBytes(x_, Space::Generic, address + i, 1, lane_, &c)) return false;
    if (c == '\0') return true;
    out.push_back(c);
  }
  return true;
}

void HostCall::fail(ptx::DiagKind kind, std::string message,
                    std::vector<std::pair<std::string, std::string>> fields) {
  report(kind, ptx::Severity::Error, std::move(message), std::move(fields));
}

void HostCall::report(ptx::DiagKind kind, ptx::Severity severity, std::string message,
                      std::vector<std::pair<std::string, std::string>> fields) {
  fields.emplace_back("thread", std::to_string(x_.warp.index * 32 + lane_));
  x_.cta.report(kind, severity, x_.pc, x_.warp, 1u << lane_, std::move(message), std::move(fields));
}

void HostCall::forgetCachedRange(uint64_t address) {
  for (GlobalMemory::Range &r : x_.cta.recentGlobals)
    if (address >= r.base && address < r.end) r = {};
  x_.cta.engineCacheValid = false;
}

Dim3 HostCall::threadIndex() const {
  const Dim3 &n = x_.cta.ntid;
  uint32_t t = x_.warp.index * 32 + lane_;
  return {t % n.x, (t / n.x) % n.y, t / (n.x * n.y)};
}

bool callHostFunction(Exec &x, const DInstr &in, const HostCallee &callee) {
  const Kernel &k = x.kernel();
  const CodeRegion &layout = callee.layout;
  const CodeRegion &caller = k.regions[x.warp.region];
  size_t frameBytes = layout.frameBytes;
  std::vector<uint8_t> frames(frameBytes * 32, 0);
  // Arguments: call-site .param variables (bytes of the caller's frame) or
  // values (registers, immediates), as Cta::call copies them.
  if (in.callArgs >= 0) {
    const DOp &list = k.op(in, static_cast<unsigned>(in.callArgs));
    for (unsigned i = 0; i < list.count && i < layout.paramOffsets.size(); ++i) {
      const DOp &arg = k.ops[list.reg + i];
      uint32_t size = layout.paramSizes[i];
      forLanes(x.mask, [&](unsigned l) {
        uint8_t *dst = frames.data() + l * frameBytes + layout.paramOffsets[i];
        if (arg.kind == DOp::Imm && arg.space == Space::Frame) {
          std::memcpy(dst, x.warp.frame.data() + size_t{l} * caller.frameBytes + arg.imm,
                      bytesInside(arg.imm, size, caller.frameBytes));
        } else {
          uint64_t v = readOperand(x, arg, l);
          std::memcpy(dst, &v, std::min<uint32_t>(size, 8));
        }
      });
    }
  }
  // Every calling lane runs the service, in lane order, even after one of
  // them failed the launch (all threads that reach an assert report it).
  forLanes(x.mask, [&](unsigned l) {
    HostCall call(x, layout, l, frames.data() + l * frameBytes);
    if (callee.function && *callee.function) (*callee.function)(call);
  });
  if (x.cta.failed) return false;
  if (in.callResults >= 0) {
    const DOp &list = k.op(in, static_cast<unsigned>(in.callResults));
    for (unsigned i = 0; i < list.count && i < layout.returnOffsets.size(); ++i) {
      const DOp &dst = k.ops[list.reg + i];
      uint32_t size = layout.returnSizes[i];
      forLanes(x.mask, [&](unsigned l) {
        const uint8_t *src = frames.data() + l * frameBytes + layout.returnOffsets[i];
        if (dst.kind == DOp::Reg) {
          uint64_t v = 0;
          std::memcpy(&v, src, std::min<uint32_t>(size, 8));
          x.warp.regs[dst.reg * 32 + l] = v;
        } else if (dst.kind == DOp::Imm && dst.space == Space::Frame) {
          std::memcpy(x.warp.frame.data() + size_t{l} * caller.frameBytes + dst.imm, src,
                      bytesInside(dst.imm, size, caller.frameBytes));
        }
      });
    }
  }
  return true;
}

// ---- Device: host functions and constant banks ----------------------------------------------

void Device::setHostFunction(std::string name, HostFunction function) {
  std::lock_guard lock(hostMutex_);
  hostFunctions_[std::move(name)] = std::move(function);
}

uint64_t Device::hostFunctionAddress(const ptx::Module &m, ptx::Name name) {
  std::lock_guard lock(hostMutex_);
  if (auto it = hostAddresses_.find({&m, name}); it != hostAddresses_.end()) return it->second;
  auto fn = hostFunctions_.find(m.str(name));
  if (fn == hostFunctions_.end()) return 0;
  const ptx::Function *declaration = nullptr;
  for (const ptx::Function &f : m.functions)
    if (f.name == name && !f.isKernel && !f.hasBody) {
      declaration = &f;
      break;
    }
  if (!declaration) return 0;
  std::optional<CodeRegion> layout = hostFrameLayout(*declaration);
  if (!layout) return 0; // not a service's signature: calls to it are reported as unsupported
  HostCallee callee;
  callee.name = fn->first;
  callee.function = &fn->second;
  callee.layout = std::move(*layout);
  uint64_t address = kHostFunctionTag | hostCallees_.size();
  hostCallees_.push_back(std::move(callee));
  hostAddresses_.emplace(std::pair{&m, name}, address);
  return address;
}

const HostCallee *Device::hostCallee(uint64_t address) {
  std::lock_guard lock(hostMutex_);
  uint64_t index = address & 0x0000'FFFF'FFFF'FFFFull;
  bool tagged = (address >> 48) == (kHostFunctionTag >> 48);
  return tagged && index < hostCallees_.size() ? &hostCallees_[index] : nullptr;
}

bool Device::writeConstBank(const ptx::Module &m, uint64_t offset, const void *data, uint64_t size) {
  LoadedModule &lm = load(m);
  std::lock_guard lock(mutex_);
  if (offset > lm.constSize || size > lm.constSize - offset) return false;
  std::memcpy(lm.constBytes + offset, data, size);
  return true;
}

} // namespace emu
