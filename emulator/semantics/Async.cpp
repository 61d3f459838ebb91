// Asynchronous copies and mbarriers: cp.async (+ commit/wait groups and
// cp.async.mbarrier.arrive), cp.async.bulk to shared memory with
// mbarrier::complete_tx, st.async, st.bulk, and the mbarrier operations. A
// CTA runs on one host thread, so an asynchronous copy is done when it is
// issued (a program that waits correctly cannot tell), and commit/wait
// groups have nothing left to wait for. A cluster is one CTA here, so
// shared::cluster addresses are the CTA's own shared memory.
#include "emulator/Semantics.h"
#include "emulator/semantics/Mbarrier.h"

namespace emu {
namespace {

using ptx::Mod;
using ptx::Opcode;

/// The mbarrier object, 8 bytes in shared memory: pending arrivals of the
/// current phase, expected arrivals per phase, the transaction count and
/// the phase parity. Programs only see it through the mbarrier operations.
struct MbarrierState {
  uint32_t pending = 0, expected = 0; // 20 bits each
  int32_t tx = 0;                     // 23 bits, signed
  uint32_t phase = 0;                 // 1 bit

  static MbarrierState decode(uint64_t w) {
    MbarrierState s;
    s.pending = static_cast<uint32_t>(w & 0xFFFFF);
    s.expected = static_cast<uint32_t>((w >> 20) & 0xFFFFF);
    int32_t tx = static_cast<int32_t>((w >> 40) & 0x7FFFFF);
    s.tx = tx & 0x400000 ? tx - 0x800000 : tx;
    s.phase = static_cast<uint32_t>(w >> 63);
    return s;
  }
  uint64_t encode() const {
    return (uint64_t{pending} & 0xFFFFF) | (uint64_t{expected} & 0xFFFFF) << 20 |
           (static_cast<uint64_t>(static_cast<uint32_t>(tx)) & 0x7FFFFF) << 40 | uint64_t{phase & 1} << 63;
  }
  /// Ends the phase once every arrival and every transaction is in.
  void tryComplete() {
    if (pending == 0 && tx == 0) {
      phase ^= 1;
      pending = expected;
    }
  }
};

/// How an mbarrier operation orders memory (for observers such as
/// racecheck): an arrival (or completed transaction bytes) releases what the
/// lane did before it; a wait that sees the phase complete acquires what was
/// released.
enum class Order : uint8_t { None, Release, Acquire };

void orderAtMbarrier(Exec &x, unsigned lane, const uint8_t *mbarrier, Order order) {
  if (!x.cta.events || order == Order::None) return;
  const auto key = reinterpret_cast<uintptr_t>(mbarrier);
  if (order == Order::Release)
    x.cta.events->mbarrierReleased(x.warp.index, lane, key, x.pc);
  else
    x.cta.events->mbarrierAcquired(x.warp.index, lane, key, x.pc);
}

/// Applies `f` to the mbarrier of each executing lane, in lane order; `f`
/// returns whether the operation orders memory as `order` says (a wait
/// acquires only when it sees the phase complete).
/// `last`, when given, is set to the mbarrier of the last lane (its observer key).
template <typename F>
void onMbarrier(Exec &x, const DInstr &in, unsigned addrIndex, Order order, F f, uint64_t *last = nullptr) {
  const DOp &addr = x.kernel().op(in, addrIndex);
  Space space = accessSpace(in, addr);
  forLanes(x.mask, [&](unsigned l) {
    uint8_t *p = accessBytes(x, space, effectiveAddress(x, addr, l), 8, l, true, true);
    if (!p) return;
    if (last) *last = reinterpret_cast<uintptr_t>(p);
    uint64_t w;
    std::memcpy(&w, p, 8);
    MbarrierState s = MbarrierState::decode(w);
    bool orders = f(l, w, s);
    w = s.encode();
    std::memcpy(p, &w, 8);
    if (orders) orderAtMbarrier(x, l, p, order);
  });
}

uint32_t u32(Exec &x, const DInstr &in, unsigned i, unsigned lane) {
  return static_cast<uint32_t>(readOperand(x, x.kernel().op(in, i), lane));
}

void init(Exec &x, const DInstr &in) {
  onMbarrier(x, in, 0, Order::None, [&](unsigned l, uint64_t, MbarrierState &s) {
    uint32_t count = u32(x, in, 1, l);
    s = MbarrierState{count, count, 0, 0};
    return false;
  });
}

void inval(Exec &x, const DInstr &in) {
  onMbarrier(x, in, 0, Order::None, [&](unsigned, uint64_t, MbarrierState &s) {
    s = MbarrierState{};
    return false;
  });
}

/// mbarrier.arrive{.noComplete}{.expect_tx} state, [a]{, count | txCount}
/// and mbarrier.arrive_drop (which also lowers the expected count).
template <bool Drop, bool ExpectTx, bool NoComplete> void arrive(Exec &x, const DInstr &in) {
  const DOp &dst = x.kernel().op(in, 0);
  onMbarrier(x, in, 1, Order::Release, [&](unsigned l, uint64_t before, MbarrierState &s) {
    uint32_t count = 1;
    if (in.numOps > 2) {
      uint32_t v = u32(x, in, 2, l);
      if (ExpectTx)
        s.tx += static_cast<int32_t>(v);
      else
        count = v;
    }
    s.pending -= std::min(count, s.pending);
    if (Drop) s.expected -= std::min(count, s.expected);
    if (!NoComplete) s.tryComplete();
    writeOperand(x, dst, l, before); // the state token: the phase it arrived in
    return true;
  });
}

void expectTx(Exec &x, const DInstr &in) {
  onMbarrier(x, in, 0, Order::None, [&](unsigned l, uint64_t, MbarrierState &s) {
    s.tx += static_cast<int32_t>(u32(x, in, 1, l));
    return false;
  });
}

void completeTx(Exec &x, const DInstr &in) {
  onMbarrier(x, in, 0, Order::Release, [&](unsigned l, uint64_t, MbarrierState &s) {
    s.tx -= static_cast<int32_t>(u32(x, in, 1, l));
    s.tryComplete();
    return true;
  });
}

/// test_wait/try_wait p, [a], state: the phase the token was taken in has
/// completed. With .parity the operand names the phase by its parity.
template <bool Parity> void testWait(Exec &x, const DInstr &in) {
  const DOp &dst = x.kernel().op(in, 0);
  bool complete = true;
  uint64_t key = 0;
  onMbarrier(
      x, in, 1, Order::Acquire,
      [&](unsigned l, uint64_t, MbarrierState &s) {
        uint64_t operand = readOperand(x, x.kernel().op(in, 2), l);
        uint32_t waited = Parity ? static_cast<uint32_t>(operand & 1) : static_cast<uint32_t>(operand >> 63);
        writeOperand(x, dst, l, s.phase != waited ? 1 : 0);
        complete &= s.phase != waited;
        return s.phase != waited;
      },
      &key);
  if (x.cta.events && key) x.cta.events->mbarrierTested(x.warp.index, key, x.pc, complete);
}

void pendingCount(Exec &x, const DInstr &in) {
  forLanes(x.mask, [&](unsigned l) {
    writeOperand(x, x.kernel().op(in, 0), l,
                 MbarrierState::decode(readOperand(x, x.kernel().op(in, 1), l)).pending);
  });
}

/// cp.async.(ca|cg).shared.global [dst], [src], cp-size{, src-size | ignore-src}.
void cpAsync(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  const DOp &dst = k.op(in, 0), &src = k.op(in, 1);
  bool ignoreIsPredicate = false;
  if (in.numOps > 3 && k.op(in, 3).kind == DOp::Reg)
    ignoreIsPredicate = k.functionOf(in).registerType(k.op(in, 3).reg) == ptx::Type::Pred;
  forLanes(x.mask, [&](unsigned l) {
    uint32_t size = u32(x, in, 2, l);
    uint32_t srcSize = size;
    if (in.numOps > 3) {
      uint64_t v = readOperand(x, k.op(in, 3), l);
      srcSize = ignoreIsPredicate ? ((v & 1) ? 0 : size) : std::min<uint32_t>(static_cast<uint32_t>(v), size);
    }
    uint8_t bytes[16] = {};
    if (size > 16) return;
    if (srcSize && !loadBytes(x, Space::Global, effectiveAddress(x, src, l), srcSize, l, bytes)) return;
    storeBytes(x, Space::Shared, effectiveAddress(x, dst, l), size, l, bytes);
  });
}

/// cp.async.mbarrier.arrive{.noinc} [a]: all of the thread's cp.async are
/// complete already. Without .noinc the pending count is raised by one and
/// the completion arrives, so nothing changes; with .noinc it is an arrival.
void cpAsyncArriveNoinc(Exec &x, const DInstr &in) {
  onMbarrier(x, in, 0, Order::Release, [&](unsigned, uint64_t, MbarrierState &s) {
    s.pending -= std::min(1u, s.pending);
    s.tryComplete();
    return true;
  });
}

/// cp.async.bulk.shared::{cta,cluster}.{global,shared::cta}.mbarrier::
/// complete_tx::bytes [dst], [src], size, [mbar]: copy, then complete `size`
/// transaction bytes on the mbarrier; and shared -> global with .bulk_group
/// (ToShared false).
template <bool ToShared, Space Source> void cpAsyncBulk(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  constexpr Space target = ToShared ? Space::Shared : Space::Global;
  const DOp &dst = k.op(in, 0), &src = k.op(in, 1);
  std::vector<uint8_t> buffer;
  forLanes(x.mask, [&](unsigned l) {
    uint32_t size = u32(x, in, 2, l);
    buffer.resize(size);
    uint64_t from = effectiveAddress(x, src, l), to = effectiveAddress(x, dst, l);
    for (uint32_t off = 0; off < size; off += 4) {
      unsigned n = std::min<uint32_t>(4, size - off);
      if (!loadBytes(x, Source, from + off, n, l, buffer.data() + off)) return;
    }
    for (uint32_t off = 0; off < size; off += 4) {
      unsigned n = std::min<uint32_t>(4, size - off);
      if (!storeBytes(x, target, to + off, n, l, buffer.data() + off)) return;
    }
    if constexpr (ToShared)
      completeTransaction(x, Space::Shared, effectiveAddress(x, k.op(in, 3), l), size, l);
  });
}

/// st.async{.shared::cluster}.mbarrier::complete_tx::bytes{.vec}.T [a], b,
/// [mbar]: a store that completes its bytes on the mbarrier; and the
/// st.async.release.global form of sm_100, a plain store.
template <bool WithMbarrier> void stAsync(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  const DOp &addr = k.op(in, 0), &src = k.op(in, 1);
  const unsigned size = byteSize(in.type), n = in.vec;
  const Space space = WithMbarrier ? Space::Shared : accessSpace(in, addr);
  forLanes(x.mask, [&](unsigned l) {
    uint64_t base = effectiveAddress(x, addr, l);
    for (unsigned e = 0; e < n; ++e) {
      uint64_t v = readOperand(x, src.kind == DOp::Vec ? k.ops[src.reg + e] : src, l);
      if (!storeBytes(x, space, base + e * size, size, l, &v)) return;
    }
    if constexpr (WithMbarrier)
      completeTransaction(x, Space::Shared, effectiveAddress(x, k.op(in, 2), l), size * n, l);
  });
}

/// st.bulk{.weak}{.shared::cta} [a], size, 0: zeroes `size` bytes (the only
/// initial value the ISA allows is 0).
void stBulk(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  const DOp &addr = k.op(in, 0);
  const Space space = accessSpace(in, addr);
  static const uint8_t zeros[64] = {};
  forLanes(x.mask, [&](unsigned l) {
    uint64_t base = effectiveAddress(x, addr, l), size = readOperand(x, k.op(in, 1), l);
    for (uint64_t off = 0; off < size; off += 8) {
      unsigned n = static_cast<unsigned>(std::min<uint64_t>(8, size - off));
      if (!storeBytes(x, space, base + off, n, l, zeros)) return;
    }
  });
}

void nothing(Exec &, const DInstr &) {}

template <bool Drop> Handler pickArrive(const DInstr &in) {
  if (in.mods & dmod::ExpectTx) return arrive<Drop, true, false>;
  if (in.mods & dmod::NoComplete) return arrive<Drop, false, true>;
  return arrive<Drop, false, false>;
}
Handler pickTestWait(const DInstr &in) { return (in.mods & dmod::Parity) ? testWait<true> : testWait<false>; }
// Without .noinc the pending count is raised by one and the (already
// complete) copies arrive: nothing changes.
Handler pickCpAsyncArrive(const DInstr &in) { return (in.mods & dmod::Noinc) ? cpAsyncArriveNoinc : nothing; }
Handler pickCpAsyncBulk(const DInstr &in) {
  if (in.mods & dmod::CpMask) return nullptr; // sm_100 byte masks
  if (in.mods & dmod::BulkGroup) return cpAsyncBulk<false, Space::Shared>;
  return (in.mods & dmod::Global) ? cpAsyncBulk<true, Space::Global> : cpAsyncBulk<true, Space::Shared>;
}
Handler pickStAsync(const DInstr &in) { return in.numOps == 3 ? stAsync<true> : stAsync<false>; }

constexpr uint16_t kAll = tclass::All;
constexpr HandlerRow kRows[] = {
    row(Opcode::MbarrierInit, kAll, init),
    row(Opcode::MbarrierInval, kAll, inval),
    row(Opcode::MbarrierArrive, kAll, pickArrive<false>),
    row(Opcode::MbarrierArriveDrop, kAll, pickArrive<true>),
    row(Opcode::MbarrierExpectTx, kAll, expectTx),
    row(Opcode::MbarrierCompleteTx, kAll, completeTx),
    row(Opcode::MbarrierTestWait, kAll, pickTestWait),
    row(Opcode::MbarrierTryWait, kAll, pickTestWait),
    row(Opcode::MbarrierPendingCount, kAll, pendingCount),
    row(Opcode::CpAsync, kAll, cpAsync),
    row(Opcode::CpAsyncMbarrierArrive, kAll, pickCpAsyncArrive),
    row(Opcode::CpAsyncBulk, kAll, pickCpAsyncBulk),
    row(Opcode::StAsync, kAll, pickStAsync),
    row(Opcode::StBulk, kAll, stBulk),
    row(Opcode::CpAsyncCommitGroup, kAll, nothing),
    row(Opcode::CpAsyncWaitGroup, kAll, nothing),
    row(Opcode::CpAsyncWaitAll, kAll, nothing),
    row(Opcode::CpAsyncBulkCommitGroup, kAll, nothing),
    row(Opcode::CpAsyncBulkWaitGroup, kAll, nothing),
    row(Opcode::CpAsyncBulkPrefetch, kAll, nothing),
};

} // namespace

std::span<const HandlerRow> asyncHandlers() { return kRows; }

bool completeTransaction(Exec &x, Space space, uint64_t address, uint32_t bytes, unsigned lane) {
  uint8_t *p = accessBytes(x, space, address, 8, lane, true, true);
  if (!p) return false;
  uint64_t w;
  std::memcpy(&w, p, 8);
  MbarrierState s = MbarrierState::decode(w);
  s.tx -= static_cast<int32_t>(bytes);
  s.tryComplete();
  w = s.encode();
  std::memcpy(p, &w, 8);
  orderAtMbarrier(x, lane, p, Order::Release);
  return true;
}

} // namespace emu
