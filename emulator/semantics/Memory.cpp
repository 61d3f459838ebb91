// Loads, stores, address conversion and atomics: ld, st, cvta, atom, red.
#include "emulator/Semantics.h"

#include <mutex>

namespace emu {
namespace {

using ptx::Opcode;
using ptx::Type;

/// Registers receive loaded values zero- or sign-extended to 64 bits.
uint64_t extend(uint64_t raw, Type t) {
  switch (t) {
  case Type::S8: return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int8_t>(raw)));
  case Type::S16: return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int16_t>(raw)));
  case Type::S32: return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(raw)));
  default: return raw;
  }
}

/// The fast path of scalar loads and stores: every executing lane's address
/// lies in the global allocation the CTA used last, naturally aligned. Then
/// no lane needs the allocation table. Returns that allocation's range, or
/// nullptr when some lane needs the checked path.
const GlobalMemory::Range *fastGlobal(Exec &x, Space space, const uint64_t (&address)[32], unsigned size) {
  if (space != Space::Global && space != Space::Generic) return nullptr;
  const GlobalMemory::Range &r = x.cta.globalRange(address[std::countr_zero(x.mask)]);
  if (!r.bytes) return nullptr;
  bool ok = true;
  forLanes(x.mask, [&](unsigned l) {
    ok &= address[l] >= r.base && address[l] + size <= r.end && !(address[l] & (size - 1));
  });
  return ok ? &r : nullptr;
}

/// The fast path for shared memory: every executing lane's access lies in
/// the CTA's shared memory, naturally aligned, and --racecheck is off (it
/// must see each access). Returns the bytes of shared memory, or nullptr.
uint8_t *fastShared(Exec &x, Space space, const uint64_t (&address)[32], unsigned size, uint64_t &bias) {
  if (x.cta.racecheck) return nullptr;
  if (space == Space::Shared)
    bias = 0;
  else if (space == Space::Generic)
    bias = kSharedWindow;
  else
    return nullptr;
  uint64_t limit = x.cta.shared.size();
  bool ok = true;
  forLanes(x.mask, [&](unsigned l) {
    uint64_t a = address[l] - bias;
    ok &= address[l] >= bias && a + size <= limit && !(a & (size - 1));
  });
  return ok ? x.cta.shared.data() : nullptr;
}

/// Loads `size` bytes for every executing lane from host memory at
/// base + address[l] - bias, extended per `t`: one switch per instruction,
/// fixed-size copies in the lane loop.
template <unsigned Size>
void loadLanes(Exec &x, uint64_t *d, const uint8_t *base, const uint64_t (&a)[32], uint64_t bias,
               ptx::Type t) {
  forLanes(x.mask, [&](unsigned l) {
    uint64_t raw = 0;
    std::memcpy(&raw, base + (a[l] - bias), Size);
    d[l] = extend(raw, t);
  });
}
void loadLanes(Exec &x, uint64_t *d, const uint8_t *base, const uint64_t (&a)[32], uint64_t bias, ptx::Type t,
               unsigned size) {
  switch (size) {
  case 1: return loadLanes<1>(x, d, base, a, bias, t);
  case 2: return loadLanes<2>(x, d, base, a, bias, t);
  case 4: return loadLanes<4>(x, d, base, a, bias, t);
  default: return loadLanes<8>(x, d, base, a, bias, t);
  }
}
template <unsigned Size>
void storeLanes(Exec &x, const uint64_t (&v)[32], uint8_t *base, const uint64_t (&a)[32], uint64_t bias) {
  forLanes(x.mask, [&](unsigned l) { std::memcpy(base + (a[l] - bias), &v[l], Size); });
}
void storeLanes(Exec &x, const uint64_t (&v)[32], uint8_t *base, const uint64_t (&a)[32], uint64_t bias,
                unsigned size) {
  switch (size) {
  case 1: return storeLanes<1>(x, v, base, a, bias);
  case 2: return storeLanes<2>(x, v, base, a, bias);
  case 4: return storeLanes<4>(x, v, base, a, bias);
  default: return storeLanes<8>(x, v, base, a, bias);
  }
}

void addresses(Exec &x, const DOp &addr, uint64_t (&out)[32]) {
  if (addr.hasBase) {
    const uint64_t *b = &x.warp.regs[addr.reg * 32];
    for (unsigned l = 0; l < 32; ++l) out[l] = b[l] + addr.imm;
  } else {
    for (unsigned l = 0; l < 32; ++l) out[l] = addr.imm;
  }
}

void load(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  const DOp &dst = k.op(in, 0), &addr = k.op(in, 1);
  unsigned size = byteSize(in.type);
  Space space =
      in.space == Space::Generic && addr.space != Space::Generic && !addr.hasBase ? addr.space : in.space;
  x.cta.stats.memoryOps[static_cast<size_t>(space)] += static_cast<uint64_t>(std::popcount(x.mask));
  if (in.vec == 1 && dst.kind == DOp::Reg) {
    uint64_t a[32];
    addresses(x, addr, a);
    uint64_t *d = &x.warp.regs[dst.reg * 32];
    // A uniform parameter or constant: one checked read for the warp.
    if (!addr.hasBase && (space == Space::Param || space == Space::Const)) {
      uint64_t raw = 0;
      unsigned first = static_cast<unsigned>(std::countr_zero(x.mask));
      if (!loadBytes(x, space, a[first], size, first, &raw)) return;
      uint64_t v = extend(raw, in.type);
      forLanes(x.mask, [&](unsigned l) { d[l] = v; });
      return;
    }
    if (const GlobalMemory::Range *r = fastGlobal(x, space, a, size))
      return loadLanes(x, d, r->bytes, a, r->base, in.type, size);
    uint64_t bias;
    if (uint8_t *shared = fastShared(x, space, a, size, bias))
      return loadLanes(x, d, shared, a, bias, in.type, size);
  }
  forLanes(x.mask, [&](unsigned l) {
    uint64_t base = effectiveAddress(x, addr, l);
    for (unsigned e = 0; e < in.vec; ++e) {
      uint64_t raw = 0;
      if (!loadBytes(x, space, base + e * size, size, l, &raw)) return;
      const DOp &d = dst.kind == DOp::Vec ? k.ops[dst.reg + e] : dst;
      writeOperand(x, d, l, extend(raw, in.type));
    }
  });
}

void store(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  const DOp &addr = k.op(in, 0), &src = k.op(in, 1);
  unsigned size = byteSize(in.type);
  Space space =
      in.space == Space::Generic && addr.space != Space::Generic && !addr.hasBase ? addr.space : in.space;
  x.cta.stats.memoryOps[static_cast<size_t>(space)] += static_cast<uint64_t>(std::popcount(x.mask));
  if (in.vec == 1 && src.kind != DOp::Vec) {
    uint64_t a[32];
    addresses(x, addr, a);
    uint64_t v[32];
    if (const GlobalMemory::Range *r = fastGlobal(x, space, a, size)) {
      gather(x, src, v);
      return storeLanes(x, v, r->bytes, a, r->base, size);
    }
    uint64_t bias;
    if (uint8_t *shared = fastShared(x, space, a, size, bias)) {
      gather(x, src, v);
      return storeLanes(x, v, shared, a, bias, size);
    }
  }
  forLanes(x.mask, [&](unsigned l) {
    uint64_t base = effectiveAddress(x, addr, l);
    for (unsigned e = 0; e < in.vec; ++e) {
      const DOp &s = src.kind == DOp::Vec ? k.ops[src.reg + e] : src;
      uint64_t v = readOperand(x, s, l);
      if (!storeBytes(x, space, base + e * size, size, l, &v)) return;
    }
  });
}

/// cvta.to.space converts a generic address to the space's own; cvta.space
/// the other way.
void cvta(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  const ptx::InstrDesc &desc = k.desc(in);
  bool toSpace = desc.has(ptx::Mod::MemTo);
  forLanes(x.mask, [&](unsigned l) {
    uint64_t a = readOperand(x, k.op(in, 1), l);
    uint64_t window = in.space == Space::Shared ? kSharedWindow : in.space == Space::Local ? kLocalWindow : 0;
    uint64_t r = toSpace ? a - window : a + window;
    if (in.type == Type::U32 || in.type == Type::B32) r &= 0xFFFFFFFFu;
    writeOperand(x, k.op(in, 0), l, r);
  });
}

/// isspacep.space p, a: whether generic address a lies in the space's window
/// (global is everything outside the shared and local windows).
void isspacep(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  Space space = in.space;
  forLanes(x.mask, [&](unsigned l) {
    uint64_t a = readOperand(x, k.op(in, 1), l);
    bool shared = a >= kSharedWindow && a < kSharedWindow + kWindowSize;
    bool local = a >= kLocalWindow && a < kLocalWindow + kWindowSize;
    bool inside = space == Space::Shared   ? shared
                  : space == Space::Local  ? local
                  : space == Space::Global ? !shared && !local
                                           : false;
    writeOperand(x, k.op(in, 0), l, inside ? 1 : 0);
  });
}

// Atomics run under one lock per launch-wide memory: correct whatever the
// host thread count; contention is not the emulator's bottleneck.
std::mutex atomicMutex;

template <typename T> T atomicApply(ptx::Mod op, T old, T a, T b) {
  using ptx::Mod;
  using U = std::make_unsigned_t<std::conditional_t<std::is_floating_point_v<T>, int64_t, T>>;
  switch (op) {
  case Mod::Add: return old + a;
  case Mod::Min: return a < old ? a : old;
  case Mod::Max: return a > old ? a : old;
  case Mod::Exch: return a;
  case Mod::Cas: return old == a ? b : old;
  case Mod::Inc:
    if constexpr (std::is_integral_v<T>) return (U(old) >= U(a)) ? T(0) : T(old + 1);
    return old;
  case Mod::Dec:
    if constexpr (std::is_integral_v<T>) return (old == 0 || U(old) > U(a)) ? a : T(old - 1);
    return old;
  case Mod::And:
    if constexpr (std::is_integral_v<T>) return old & a;
    return old;
  case Mod::Or:
    if constexpr (std::is_integral_v<T>) return old | a;
    return old;
  case Mod::Xor:
    if constexpr (std::is_integral_v<T>) return old ^ a;
    return old;
  default: return old;
  }
}

/// atom{.space}.op.T d, [a], b{, c} and red{.space}.op.T [a], b.
template <typename T, bool Returns> void atomic(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  unsigned first = Returns ? 1 : 0;
  const DOp &addr = k.op(in, first);
  Space space =
      in.space == Space::Generic && addr.space != Space::Generic && !addr.hasBase ? addr.space : in.space;
  std::lock_guard lock(atomicMutex);
  forLanes(x.mask, [&](unsigned l) {
    uint8_t *p = accessBytes(x, space, effectiveAddress(x, addr, l), sizeof(T), l, true);
    if (!p) return;
    T old;
    std::memcpy(&old, p, sizeof(T));
    T a = as<T>(readOperand(x, k.op(in, first + 1), l));
    T b = in.numOps > first + 2 ? as<T>(readOperand(x, k.op(in, first + 2), l)) : T{};
    T r = atomicApply<T>(in.op, old, a, b);
    std::memcpy(p, &r, sizeof(T));
    if constexpr (Returns) writeOperand(x, k.op(in, 0), l, bitsOf<T>(old));
  });
}

template <bool Returns> Handler atomicFor(Type t) {
  switch (t) {
  case Type::S32: return atomic<int32_t, Returns>;
  case Type::U32:
  case Type::B32: return atomic<uint32_t, Returns>;
  case Type::S64: return atomic<int64_t, Returns>;
  case Type::U64:
  case Type::B64: return atomic<uint64_t, Returns>;
  case Type::F32: return atomic<float, Returns>;
  case Type::F64: return atomic<double, Returns>;
  default: return nullptr;
  }
}

} // namespace

Handler selectMemory(const DInstr &in) {
  switch (in.opcode) {
  case Opcode::Ld:
  case Opcode::Ldu: return ptx::bitWidth(in.type) <= 64 ? load : nullptr;
  case Opcode::St: return ptx::bitWidth(in.type) <= 64 ? store : nullptr;
  case Opcode::Cvta: return cvta;
  case Opcode::Isspacep: return isspacep;
  case Opcode::Atom: return in.vec == 1 ? atomicFor<true>(in.type) : nullptr;
  case Opcode::Red: return in.vec == 1 ? atomicFor<false>(in.type) : nullptr;
  default: return nullptr;
  }
}

} // namespace emu
