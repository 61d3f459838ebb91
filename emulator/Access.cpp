// Operand reads (special registers included) and checked memory access for
// instruction handlers. Every access that passes the checks here is a
// memoryAccess event for the CTA's observers, when some observer wants them.
#include "emulator/Device.h"
#include "emulator/Semantics.h"

#include <chrono>
#include <cinttypes>
#include <cstdio>

namespace emu {
namespace {

uint32_t component(Dim3 d, ptx::Selector s) {
  switch (s) {
  case ptx::Selector::X: return d.x;
  case ptx::Selector::Y: return d.y;
  case ptx::Selector::Z: return d.z;
  default: return 0;
  }
}

uint64_t specialRegister(Exec &x, const DOp &op, unsigned lane) {
  Cta &c = x.cta;
  uint32_t t = x.warp.index * 32 + lane;
  Dim3 tid{t % c.ntid.x, (t / c.ntid.x) % c.ntid.y, t / (c.ntid.x * c.ntid.y)};
  using ptx::SpecialReg;
  switch (static_cast<SpecialReg>(op.reg)) {
  case SpecialReg::Tid: return component(tid, op.selector);
  case SpecialReg::Ntid: return component(c.ntid, op.selector);
  case SpecialReg::CtaId: return component(c.ctaid, op.selector);
  case SpecialReg::NCtaId: return component(c.nctaid, op.selector);
  case SpecialReg::LaneId: return lane;
  case SpecialReg::WarpId: return x.warp.index;
  case SpecialReg::NWarpId: return static_cast<uint32_t>(c.warps.size());
  case SpecialReg::SmId: return 0;
  case SpecialReg::NSmId: return 1;
  case SpecialReg::GridId: return 1;
  case SpecialReg::LanemaskEq: return 1u << lane;
  case SpecialReg::LanemaskLe: return lane == 31 ? 0xFFFFFFFFu : (2u << lane) - 1;
  case SpecialReg::LanemaskLt: return (1u << lane) - 1;
  case SpecialReg::LanemaskGe: return ~((1u << lane) - 1);
  case SpecialReg::LanemaskGt: return lane == 31 ? 0 : ~((2u << lane) - 1);
  // Clocks: monotonic counters of this warp's progress (deterministic).
  case SpecialReg::Clock:
  case SpecialReg::ClockHi:
  case SpecialReg::Clock64: return x.warp.warpInstructions * 4;
  case SpecialReg::GlobalTimer:
  case SpecialReg::GlobalTimerLo:
  case SpecialReg::GlobalTimerHi: return x.warp.warpInstructions * 4;
  case SpecialReg::EnvReg: return c.envregs ? c.envregs[op.imm & 31] : 0;
  // Thread-block clusters (a CTA launched without one is a cluster of one).
  case SpecialReg::ClusterCtaId:
  case SpecialReg::ClusterNCtaId:
  case SpecialReg::ClusterId:
  case SpecialReg::NClusterId:
  case SpecialReg::ClusterCtaRank:
  case SpecialReg::ClusterNCtaRank:
  case SpecialReg::IsExplicitCluster: {
    const Dim3 shape = c.cluster ? c.cluster->shape : Dim3{};
    switch (static_cast<SpecialReg>(op.reg)) {
    case SpecialReg::ClusterCtaId:
      return component({c.ctaid.x % shape.x, c.ctaid.y % shape.y, c.ctaid.z % shape.z}, op.selector);
    case SpecialReg::ClusterNCtaId: return component(shape, op.selector);
    case SpecialReg::ClusterId:
      return component({c.ctaid.x / shape.x, c.ctaid.y / shape.y, c.ctaid.z / shape.z}, op.selector);
    case SpecialReg::NClusterId:
      return component({c.nctaid.x / shape.x, c.nctaid.y / shape.y, c.nctaid.z / shape.z}, op.selector);
    case SpecialReg::ClusterCtaRank: return c.clusterRank;
    case SpecialReg::ClusterNCtaRank: return shape.count();
    default: return c.cluster && c.cluster->explicitShape ? 1 : 0;
    }
  }
  case SpecialReg::DynamicSmemSize: return c.shared.size() - c.kernel.staticShared;
  case SpecialReg::TotalSmemSize:
  case SpecialReg::AggrSmemSize: return c.shared.size();
  default: return 0;
  }
}

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

void reportFault(Exec &x, const MemoryFault &f, unsigned lane, bool write) {
  ptx::DiagKind kind =
      f.kind == MemoryFault::Misaligned ? ptx::DiagKind::MisalignedAccess : ptx::DiagKind::OutOfBounds;
  std::string what = f.kind == MemoryFault::Misaligned     ? "misaligned"
                     : f.kind == MemoryFault::UseAfterFree ? "use-after-free"
                                                           : "out-of-bounds";
  std::string msg = std::string(what) + " " + (write ? "write" : "read") + " of " + std::to_string(f.size) +
                    " bytes at " + spaceName(f.space) + " address " + hex(f.address) + " by thread " +
                    std::to_string(x.warp.index * 32 + lane);
  std::vector<std::pair<std::string, std::string>> fields = {
      {"address", hex(f.address)},
      {"space", spaceName(f.space)},
      {"size", std::to_string(f.size)},
      {"thread", std::to_string(x.warp.index * 32 + lane)}};
  if (!f.nearest.empty()) fields.emplace_back("nearest", f.nearest);
  x.cta.report(kind, ptx::Severity::Error, x.pc, x.warp, 1u << lane, msg, fields);
}

/// The bytes at [offset, offset + size) of a window of `limit` bytes at
/// `bytes`, or nullptr with `fault.nearest` saying where the access lies.
uint8_t *window(uint8_t *bytes, uint64_t offset, unsigned size, uint64_t limit, const std::string &what,
                MemoryFault &fault) {
  if (fitsIn(offset, size, limit)) return bytes + offset;
  fault.nearest =
      what + " is " + std::to_string(limit) + " bytes; the access " + describeOutside(offset, size, limit);
  return nullptr;
}

} // namespace

uint64_t readOperand(Exec &x, const DOp &op, unsigned lane) {
  switch (op.kind) {
  case DOp::Reg: return x.reg(op.reg, lane);
  case DOp::Imm: return op.imm;
  case DOp::SReg: return specialRegister(x, op, lane);
  case DOp::Addr: return effectiveAddress(x, op, lane);
  default: return 0;
  }
}

void readOperandLanes(Exec &x, const DOp &op, uint64_t (&out)[32]) {
  if (op.kind == DOp::SReg) {
    using ptx::SpecialReg;
    const Cta &c = x.cta;
    switch (static_cast<SpecialReg>(op.reg)) {
    case SpecialReg::Tid: {
      // One division per lane of the linear thread index would dominate a
      // `mov %r, %tid.x`: the warp's components step like an odometer.
      uint32_t t = x.warp.index * 32;
      uint32_t tx = t % c.ntid.x, ty = (t / c.ntid.x) % c.ntid.y, tz = t / (c.ntid.x * c.ntid.y);
      for (unsigned l = 0; l < 32; ++l) {
        out[l] = op.selector == ptx::Selector::X ? tx : op.selector == ptx::Selector::Y ? ty : tz;
        if (++tx == c.ntid.x) {
          tx = 0;
          if (++ty == c.ntid.y) ty = 0, ++tz;
        }
      }
      return;
    }
    case SpecialReg::LaneId:
      for (unsigned l = 0; l < 32; ++l) out[l] = l;
      return;
    case SpecialReg::LanemaskEq:
    case SpecialReg::LanemaskLe:
    case SpecialReg::LanemaskLt:
    case SpecialReg::LanemaskGe:
    case SpecialReg::LanemaskGt:
      for (unsigned l = 0; l < 32; ++l) out[l] = specialRegister(x, op, l);
      return;
    default: {
      // The rest are the same in every lane of a warp.
      uint64_t v = specialRegister(x, op, 0);
      for (unsigned l = 0; l < 32; ++l) out[l] = v;
      return;
    }
    }
  }
  for (unsigned l = 0; l < 32; ++l) out[l] = readOperand(x, op, l);
}

uint8_t *accessBytes(Exec &x, Space space, uint64_t address, unsigned size, unsigned lane, bool write,
                     bool atomic, unsigned alignment) {
  Cta &c = x.cta;
  MemoryFault fault{MemoryFault::OutOfBounds, space, address, size, ""};
  // Generic addresses: find the window.
  if (space == Space::Generic) {
    if (address >= kSharedWindow && address < kSharedWindow + kWindowSize) {
      space = Space::Shared;
      address -= kSharedWindow;
    } else if (address >= kLocalWindow && address < kLocalWindow + kWindowSize) {
      space = Space::Local;
      address -= kLocalWindow;
    } else {
      space = Space::Global;
    }
    fault.space = space;
  }
  // Natural alignment: the largest power of two dividing the size (a
  // vector's whole size; the pieces of a bulk copy need only their own).
  if (alignment == 0) alignment = size & (0u - size);
  if (alignment > 1 && (address & (alignment - 1))) {
    fault.kind = MemoryFault::Misaligned;
    reportFault(x, fault, lane, write);
    return nullptr;
  }
  uint8_t *p = nullptr;
  bool distributed = false; // another CTA's shared memory
  uint32_t rank = c.clusterRank;
  switch (space) {
  case Space::Global: {
    const GlobalMemory::Range &r = c.globalRange(address);
    if (r.bytes && fitsIn(address - r.base, size, r.end - r.base)) {
      p = r.bytes + (address - r.base);
      break;
    }
    p = c.device.global.translate(address, size, fault); // reports what is wrong
    break;
  }
  case Space::Shared:
    if (const uint64_t tag = address >> kClusterRankShift; tag && tag <= kMaxClusterCtas) {
      // Distributed shared memory: another CTA of the cluster (mapa).
      const uint32_t target = static_cast<uint32_t>(tag - 1);
      const uint64_t offset = address & ((uint64_t{1} << kClusterRankShift) - 1);
      std::vector<uint8_t> *other = c.clusterShared(target);
      if (other)
        p = window(other->data(), offset, size, other->size(),
                   "shared memory of cluster CTA " + std::to_string(target), fault);
      else
        fault.nearest = "the cluster has no CTA of rank " + std::to_string(target);
      distributed = true;
      rank = target;
      address = offset;
      break;
    }
    p = window(c.shared.data(), address, size, c.shared.size(), "shared memory of the CTA", fault);
    break;
  case Space::Local: {
    const uint64_t frame = uint64_t{x.warp.index * 32 + lane} * c.kernel.localBytes;
    p = window(c.local.data() + frame, address, size, c.kernel.localBytes, "local memory of a thread", fault);
    break;
  }
  case Space::Param:
    if (write)
      fault.nearest = "kernel parameters are read-only";
    else
      p = window(const_cast<uint8_t *>(c.params.data()), address, size, c.params.size(),
                 "the parameter buffer", fault);
    break;
  case Space::Const:
    if (write)
      fault.nearest = "the constant bank is read-only";
    else
      p = window(c.kernel.constBytes, address, size, c.kernel.constSize, "the constant bank", fault);
    break;
  case Space::Frame: {
    const uint32_t bytes = c.kernel.regions[x.warp.region].frameBytes;
    p = window(x.warp.frame.data() + size_t{lane} * bytes, address, size, bytes, "the call frame", fault);
    break;
  }
  case Space::Generic: break;
  }
  if (!p)
    reportFault(x, fault, lane, write);
  else if (c.observeMemory)
    c.events->memoryAccess({x.warp.index, lane, x.pc, x.warp.warpInstructions, space, address, size, write,
                            atomic, distributed, rank});
  return p;
}

bool loadBytes(Exec &x, Space space, uint64_t address, unsigned size, unsigned lane, void *out,
               unsigned alignment) {
  uint8_t *p = accessBytes(x, space, address, size, lane, false, false, alignment);
  if (!p) return false;
  std::memcpy(out, p, size);
  return true;
}

bool storeBytes(Exec &x, Space space, uint64_t address, unsigned size, unsigned lane, const void *in,
                unsigned alignment) {
  uint8_t *p = accessBytes(x, space, address, size, lane, true, false, alignment);
  if (!p) return false;
  std::memcpy(p, in, size);
  return true;
}

} // namespace emu
