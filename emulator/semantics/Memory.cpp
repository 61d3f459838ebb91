// Loads, stores and address conversion: ld, st, cvta, isspacep (atomics:
// Atomic.cpp).
#include "emulator/Semantics.h"

#include <bit>
#include <cstring>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

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

/// A vector access (.v2, .v4, .v8) of 2, 4, 8 or 16 bytes in all is one
/// access per thread, as on the GPU, where CUB's decoupled look-back writes a
/// tile's status and value with one st.relaxed.gpu.v2.u64 and other CTAs read
/// both with one ld: on another host thread here, element by element copies
/// would let a reader see the new status with the old value. Aligned 16-byte
/// SSE moves are single-copy atomic on x86-64 processors with AVX (Intel's
/// and AMD's manuals), aligned smaller ones on every x86-64.
bool wholeVector(const DInstr &in, unsigned access) {
  return in.vec > 1 && access >= 2 && access <= 16 && std::has_single_bit(access);
}
/// One access of `bytes` at `memory` (the emulated memory; `buffer` is the
/// thread's own copy): a store when `Store`, else a load.
template <bool Store> using MemoryAt = std::conditional_t<Store, uint8_t *, const uint8_t *>;
template <class Word, bool Store> void moveWord(MemoryAt<Store> memory, uint8_t *buffer) {
  Word w;
  if constexpr (Store) {
    std::memcpy(&w, buffer, sizeof w);
    __atomic_store_n(reinterpret_cast<Word *>(memory), w, __ATOMIC_RELAXED);
  } else {
    w = __atomic_load_n(reinterpret_cast<const Word *>(memory), __ATOMIC_RELAXED);
    std::memcpy(buffer, &w, sizeof w);
  }
}
template <bool Store, unsigned Bytes> void moveWhole(MemoryAt<Store> memory, uint8_t *buffer) {
  if ((reinterpret_cast<uintptr_t>(memory) & (Bytes - 1)) != 0) {
    if constexpr (Store)
      std::memcpy(memory, buffer, Bytes);
    else
      std::memcpy(buffer, memory, Bytes);
  } else if constexpr (Bytes == 2) {
    moveWord<uint16_t, Store>(memory, buffer);
  } else if constexpr (Bytes == 4) {
    moveWord<uint32_t, Store>(memory, buffer);
  } else if constexpr (Bytes == 8) {
    moveWord<uint64_t, Store>(memory, buffer);
  } else {
    static_assert(Bytes == 16);
#if defined(__SSE2__)
    if constexpr (Store)
      _mm_store_si128(reinterpret_cast<__m128i *>(memory),
                      _mm_loadu_si128(reinterpret_cast<const __m128i *>(buffer)));
    else
      _mm_storeu_si128(reinterpret_cast<__m128i *>(buffer),
                       _mm_load_si128(reinterpret_cast<const __m128i *>(memory)));
#else
    moveWord<uint64_t, Store>(memory, buffer); // two halves: no 16-byte move here
    moveWord<uint64_t, Store>(memory + 8, buffer + 8);
#endif
  }
}
/// Calls f.template operator()<Size, Access>() for a whole vector's element
/// size and total size (at most 8 elements, as PTX vectors have), so that
/// the lane loops copy fixed sizes.
template <class F> void withWholeShape(unsigned size, unsigned access, F f) {
  switch (access * 16 + size) {
  case 2 * 16 + 1: return f.template operator()<1, 2>();
  case 4 * 16 + 1: return f.template operator()<1, 4>();
  case 4 * 16 + 2: return f.template operator()<2, 4>();
  case 8 * 16 + 1: return f.template operator()<1, 8>();
  case 8 * 16 + 2: return f.template operator()<2, 8>();
  case 8 * 16 + 4: return f.template operator()<4, 8>();
  case 16 * 16 + 2: return f.template operator()<2, 16>();
  case 16 * 16 + 4: return f.template operator()<4, 16>();
  case 16 * 16 + 8: return f.template operator()<8, 16>();
  default: return;
  }
}
/// Each executing lane's whole vector at base + a[l] - bias, into the
/// element registers (null: a sink).
template <unsigned Size, unsigned Access>
void loadWholeLanes(Exec &x, uint64_t *const *element, const uint8_t *base, const uint64_t (&a)[32],
                    uint64_t bias, Type t) {
  forLanes(x.mask, [&](unsigned l) {
    uint8_t bytes[Access];
    moveWhole<false, Access>(base + (a[l] - bias), bytes);
    for (unsigned e = 0; e < Access / Size; ++e)
      if (element[e]) {
        uint64_t raw = 0;
        std::memcpy(&raw, bytes + e * Size, Size);
        element[e][l] = extend(raw, t);
      }
  });
}
template <unsigned Size, unsigned Access>
void storeWholeLanes(Exec &x, const uint64_t (*elements)[32], uint8_t *base, const uint64_t (&a)[32],
                     uint64_t bias) {
  forLanes(x.mask, [&](unsigned l) {
    uint8_t bytes[Access];
    for (unsigned e = 0; e < Access / Size; ++e) std::memcpy(bytes + e * Size, &elements[e][l], Size);
    moveWhole<true, Access>(base + (a[l] - bias), bytes);
  });
}

inline AddressSpan spanOf(const uint64_t (&a)[32], uint32_t mask) {
  AddressSpan s;
  if (mask == 0xFFFFFFFFu) {
    uint64_t lo = ~0ull, hi = 0, bits = 0;
    for (unsigned l = 0; l < 32; ++l) {
      lo = a[l] < lo ? a[l] : lo;
      hi = a[l] > hi ? a[l] : hi;
      bits |= a[l];
    }
    return {lo, hi, bits};
  }
  forLanes(mask, [&](unsigned l) {
    s.lo = std::min(s.lo, a[l]);
    s.hi = std::max(s.hi, a[l]);
    s.bits |= a[l];
  });
  return s;
}

/// How a whole warp's addresses lie, for the block copies of loadLanes and
/// storeLanes: lane l at a[0] + l * Size (a coalesced access); each half
/// of the warp consecutive from its first lane (rows of a 16-wide block,
/// the same row twice included); each half at one address (a 16-wide
/// block's column); or none of these. Integer OR reductions the compiler
/// vectorizes.
enum class Rows { Other, Whole, Halves, HalfPoints };
template <unsigned Size> Rows rowsOf(const uint64_t (&a)[32]) {
  uint64_t whole = 0, halves = 0, points = 0;
  for (unsigned l = 0; l < 16; ++l) {
    whole |= (a[l] ^ (a[0] + uint64_t{l} * Size)) | (a[16 + l] ^ (a[0] + uint64_t{16 + l} * Size));
    halves |= (a[l] ^ (a[0] + uint64_t{l} * Size)) | (a[16 + l] ^ (a[16] + uint64_t{l} * Size));
    points |= (a[l] ^ a[0]) | (a[16 + l] ^ a[16]);
  }
  return whole == 0 ? Rows::Whole : halves == 0 ? Rows::Halves : points == 0 ? Rows::HalfPoints : Rows::Other;
}

/// Loads `Size` bytes for every executing lane from host memory at
/// base + a[l] - bias, sign-extended when `Signed`: the type is decided
/// once per instruction, the lane loop is fixed-size copies.
template <unsigned Size, bool Signed>
void loadLanes(Exec &x, uint64_t *d, const uint8_t *base, const uint64_t (&a)[32], uint64_t bias) {
  using Raw = std::conditional_t<
      Size == 1, uint8_t,
      std::conditional_t<Size == 2, uint16_t, std::conditional_t<Size == 4, uint32_t, uint64_t>>>;
  using SRaw = std::make_signed_t<Raw>;
  auto widen = [](Raw raw) {
    return Signed ? static_cast<uint64_t>(static_cast<int64_t>(static_cast<SRaw>(raw))) : uint64_t{raw};
  };
  const Rows rows = x.mask == 0xFFFFFFFFu ? rowsOf<Size>(a) : Rows::Other;
  if (rows != Rows::Other) {
    // Rows and points: block copies, then a widening loop the compiler
    // vectorizes.
    Raw raw[32];
    if (rows == Rows::Whole) {
      std::memcpy(raw, base + (a[0] - bias), sizeof raw);
    } else if (rows == Rows::Halves) {
      std::memcpy(raw, base + (a[0] - bias), 16 * Size);
      std::memcpy(raw + 16, base + (a[16] - bias), 16 * Size);
    } else {
      Raw first, second;
      std::memcpy(&first, base + (a[0] - bias), Size);
      std::memcpy(&second, base + (a[16] - bias), Size);
      for (unsigned l = 0; l < 16; ++l) raw[l] = first, raw[16 + l] = second;
    }
    for (unsigned l = 0; l < 32; ++l) d[l] = widen(raw[l]);
    return;
  }
  forLanes(x.mask, [&](unsigned l) {
    Raw raw;
    std::memcpy(&raw, base + (a[l] - bias), Size);
    d[l] = widen(raw);
  });
}
void loadLanes(Exec &x, uint64_t *d, const uint8_t *base, const uint64_t (&a)[32], uint64_t bias, ptx::Type t,
               unsigned size) {
  bool sign = t == Type::S8 || t == Type::S16 || t == Type::S32;
  switch (size) {
  case 1: return sign ? loadLanes<1, true>(x, d, base, a, bias) : loadLanes<1, false>(x, d, base, a, bias);
  case 2: return sign ? loadLanes<2, true>(x, d, base, a, bias) : loadLanes<2, false>(x, d, base, a, bias);
  case 4: return sign ? loadLanes<4, true>(x, d, base, a, bias) : loadLanes<4, false>(x, d, base, a, bias);
  default: return loadLanes<8, false>(x, d, base, a, bias);
  }
}
template <unsigned Size>
void storeLanes(Exec &x, const uint64_t (&v)[32], uint8_t *base, const uint64_t (&a)[32], uint64_t bias) {
  using Raw = std::conditional_t<
      Size == 1, uint8_t,
      std::conditional_t<Size == 2, uint16_t, std::conditional_t<Size == 4, uint32_t, uint64_t>>>;
  if (x.mask == 0xFFFFFFFFu) {
    // Block copies in lane order: where lanes share bytes (the halves of a
    // warp writing one row, or one point), the higher lane's value stays,
    // as when the lanes store one after another.
    Raw raw[32];
    for (unsigned l = 0; l < 32; ++l) raw[l] = static_cast<Raw>(v[l]);
    switch (rowsOf<Size>(a)) {
    case Rows::Whole: std::memcpy(base + (a[0] - bias), raw, sizeof raw); return;
    case Rows::Halves:
      std::memcpy(base + (a[0] - bias), raw, 16 * Size);
      std::memcpy(base + (a[16] - bias), raw + 16, 16 * Size);
      return;
    case Rows::HalfPoints:
      std::memcpy(base + (a[0] - bias), &raw[15], Size);
      std::memcpy(base + (a[16] - bias), &raw[31], Size);
      return;
    case Rows::Other: break;
    }
  }
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
  Space space = accessSpace(in, addr);
  if (dst.kind == DOp::Reg || dst.kind == DOp::Vec) {
    uint64_t a[32];
    addresses(x, addr, a);
    // A uniform parameter or constant: one checked read for the warp.
    if (in.vec == 1 && dst.kind == DOp::Reg && !addr.hasBase &&
        (space == Space::Param || space == Space::Const)) {
      uint64_t *d = &x.warp.regs[dst.reg * 32];
      uint64_t raw = 0;
      unsigned first = static_cast<unsigned>(std::countr_zero(x.mask));
      if (!loadBytes(x, space, a[first], size, first, &raw)) return;
      uint64_t v = extend(raw, in.type);
      forLanes(x.mask, [&](unsigned l) { d[l] = v; });
      return;
    }
    // Scalars and vectors (.v2/.v4/.v8: one access of vec * size bytes,
    // aligned to that) in one checked range: no per-lane checks.
    AddressSpan span = spanOf(a, x.mask);
    unsigned access = size * in.vec;
    // Memory every lane sees the same (not local memory or a call frame, which are per thread).
    const bool sharedByLanes =
        space == Space::Global || space == Space::Shared ||
        (space == Space::Generic && !(span.lo >= kLocalWindow && span.lo - kLocalWindow < kWindowSize));
    if (span.lo == span.hi && in.vec == 1 && dst.kind == DOp::Reg && sharedByLanes && !x.cta.observeMemory) {
      // One address for the whole warp: one read, broadcast, as the hardware's single
      // transaction gives every lane the same value even while another CTA's atomics change
      // the word (tests/analysis/SoundnessTest: lanes of a warp differed on such a load).
      uint64_t raw = 0;
      const unsigned first = static_cast<unsigned>(std::countr_zero(x.mask));
      if (!loadBytes(x, space, a[first], size, first, &raw)) return;
      const uint64_t v = extend(raw, in.type);
      uint64_t *d = &x.warp.regs[dst.reg * 32];
      forLanes(x.mask, [&](unsigned l) { d[l] = v; });
      return;
    }
    uint64_t bias = 0;
    if (const uint8_t *base = directAccess(x.cta, space, span, access, bias)) {
      if (dst.kind == DOp::Reg) return loadLanes(x, &x.warp.regs[dst.reg * 32], base, a, bias, in.type, size);
      if (wholeVector(in, access)) {
        uint64_t *element[8] = {};
        for (unsigned e = 0; e < in.vec && e < 8; ++e)
          if (const DOp &d = k.ops[dst.reg + e]; d.kind == DOp::Reg) element[e] = &x.warp.regs[d.reg * 32];
        withWholeShape(size, access, [&]<unsigned Size, unsigned Access>() {
          loadWholeLanes<Size, Access>(x, element, base, a, bias, in.type);
        });
        return;
      }
      for (unsigned e = 0; e < in.vec; ++e) {
        const DOp &d = k.ops[dst.reg + e];
        if (d.kind != DOp::Reg) continue; // a sink
        loadLanes(x, &x.warp.regs[d.reg * 32], base, a, bias - e * size, in.type, size);
      }
      return;
    }
  }
  // A vector access is one access of its whole size: element 0 carries the
  // alignment check of all of it (a float4 at a 4-byte offset is misaligned).
  const unsigned vectorAlignment = size * in.vec;
  forLanes(x.mask, [&](unsigned l) {
    uint64_t base = effectiveAddress(x, addr, l);
    for (unsigned e = 0; e < in.vec; ++e) {
      uint64_t raw = 0;
      if (!loadBytes(x, space, base + e * size, size, l, &raw, e == 0 ? vectorAlignment : 0)) return;
      const DOp &d = dst.kind == DOp::Vec ? k.ops[dst.reg + e] : dst;
      writeOperand(x, d, l, extend(raw, in.type));
    }
  });
}

void store(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  const DOp &addr = k.op(in, 0), &src = k.op(in, 1);
  unsigned size = byteSize(in.type);
  Space space = accessSpace(in, addr);
  {
    uint64_t a[32];
    addresses(x, addr, a);
    AddressSpan span = spanOf(a, x.mask);
    unsigned access = size * in.vec;
    uint64_t bias = 0;
    if (uint8_t *base = directAccess(x.cta, space, span, access, bias)) {
      uint64_t v[32];
      if (src.kind != DOp::Vec) {
        gather(x, src, v);
        return storeLanes(x, v, base, a, bias, size);
      }
      // `_` elements are not written: those vectors store element by element.
      auto noSink = [&] {
        for (unsigned e = 0; e < in.vec; ++e)
          if (k.ops[src.reg + e].kind == DOp::Sink) return false;
        return true;
      };
      if (wholeVector(in, access) && noSink()) {
        uint64_t elements[8][32];
        for (unsigned e = 0; e < in.vec && e < 8; ++e) gather(x, k.ops[src.reg + e], elements[e]);
        withWholeShape(size, access, [&]<unsigned Size, unsigned Access>() {
          storeWholeLanes<Size, Access>(x, elements, base, a, bias);
        });
        return;
      }
      for (unsigned e = 0; e < in.vec; ++e) {
        const DOp &element = k.ops[src.reg + e];
        if (element.kind == DOp::Sink) continue; // `_`: this element is not written
        gather(x, element, v);
        storeLanes(x, v, base, a, bias - e * size, size);
      }
      return;
    }
  }
  const unsigned vectorAlignment = size * in.vec;
  forLanes(x.mask, [&](unsigned l) {
    uint64_t base = effectiveAddress(x, addr, l);
    if (in.vec > 1 && (base & (vectorAlignment - 1))) {
      // Reported before any element is written (a sink element 0 would
      // skip the check below).
      storeBytes(x, space, base, size, l, nullptr, vectorAlignment);
      return;
    }
    for (unsigned e = 0; e < in.vec; ++e) {
      const DOp &s = src.kind == DOp::Vec ? k.ops[src.reg + e] : src;
      if (s.kind == DOp::Sink) continue;
      uint64_t v = readOperand(x, s, l);
      if (!storeBytes(x, space, base + e * size, size, l, &v)) return;
    }
  });
}

/// cvta.to.space converts a generic address to the space's own; cvta.space
/// the other way.
void cvta(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  const uint64_t window = in.space == Space::Shared  ? kSharedWindow
                          : in.space == Space::Local ? kLocalWindow
                          : in.space == Space::Const ? k.constAddress
                                                     : 0;
  const uint64_t delta = in.mods & dmod::To ? 0 - window : window;
  const uint64_t keep = in.type == Type::U32 || in.type == Type::B32 ? 0xFFFFFFFFu : ~uint64_t{0};
  // All 32 lanes at once: nvcc emits a cvta.to.global for every pointer
  // parameter, so it is among the most executed instructions.
  uint64_t a[32], r[32];
  gather(x, k.op(in, 1), a);
  for (unsigned l = 0; l < 32; ++l) r[l] = (a[l] + delta) & keep;
  scatter(x, k.op(in, 0), r);
}

/// isspacep.space p, a: whether generic address a lies in the space's window
/// (global is everything outside the shared and local windows and the
/// constant bank: on H100 a generic pointer to a __constant__ variable is
/// const and not global, tests/gpu/cases/mem_generic).
void isspacep(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  Space space = in.space;
  forLanes(x.mask, [&](unsigned l) {
    uint64_t a = readOperand(x, k.op(in, 1), l);
    bool shared = a >= kSharedWindow && a < kSharedWindow + kWindowSize;
    bool local = a >= kLocalWindow && a < kLocalWindow + kWindowSize;
    bool constant = a >= k.constAddress && a - k.constAddress < k.constSize;
    bool inside = space == Space::Shared   ? shared
                  : space == Space::Local  ? local
                  : space == Space::Global ? !shared && !local && !constant
                  : space == Space::Const  ? constant
                                           : false;
    writeOperand(x, k.op(in, 0), l, inside ? 1 : 0);
  });
}

/// mapa{.shared::cluster} d, a, rank: the address of a's counterpart in the
/// shared memory of the cluster's CTA `rank`, as a .shared::cluster address
/// or, without the space, a generic one.
void mapa(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  const bool generic = in.space == Space::Generic;
  forLanes(x.mask, [&](unsigned l) {
    uint64_t a = readOperand(x, k.op(in, 1), l);
    uint64_t rank = readOperand(x, k.op(in, 2), l) & 0xFFFFFFFFu;
    uint64_t offset = (generic ? a - kSharedWindow : a) & ((uint64_t{1} << kClusterRankShift) - 1);
    uint64_t r = (rank + 1) << kClusterRankShift | offset;
    if (generic) r += kSharedWindow;
    if (in.type == Type::U32) r &= 0xFFFFFFFFu;
    writeOperand(x, k.op(in, 0), l, r);
  });
}

/// getctarank{.shared::cluster} d, a: the cluster rank of the CTA whose
/// shared memory address a (.shared::cluster, or generic) names.
void getctarank(Exec &x, const DInstr &in) {
  const Kernel &k = x.kernel();
  const bool generic = in.space == Space::Generic;
  forLanes(x.mask, [&](unsigned l) {
    uint64_t a = readOperand(x, k.op(in, 1), l);
    uint64_t offset = generic ? a - kSharedWindow : a & 0xFFFFFFFFu;
    uint64_t tag = offset >> kClusterRankShift;
    writeOperand(x, k.op(in, 0), l, tag ? tag - 1 : x.cta.clusterRank);
  });
}

Handler pickLoad(const DInstr &in) { return ptx::bitWidth(in.type) <= 64 ? load : nullptr; }
Handler pickStore(const DInstr &in) { return ptx::bitWidth(in.type) <= 64 ? store : nullptr; }

// .b128 loads and stores: Wide.cpp.
constexpr uint16_t kNotWide = tclass::All & ~tclass::Wide;
constexpr HandlerRow kRows[] = {
    row(Opcode::Ld, kNotWide, pickLoad),
    row(Opcode::Ldu, kNotWide, pickLoad),
    row(Opcode::St, kNotWide, pickStore),
    row(Opcode::Cvta, tclass::All, cvta),
    row(Opcode::Isspacep, tclass::All, isspacep),
    row(Opcode::Mapa, tclass::All, mapa),
    row(Opcode::Getctarank, tclass::All, getctarank),
};

} // namespace

std::span<const HandlerRow> memoryHandlers() { return kRows; }

uint8_t *directAccess(Cta &cta, Space space, const AddressSpan &s, unsigned size, uint64_t &bias) {
  if (cta.observeMemory || (s.bits & (size - 1))) return nullptr;
  if (space == Space::Global || space == Space::Generic) {
    const GlobalMemory::Range &r = cta.globalRange(s.lo);
    if (r.bytes && s.hi < r.end && size <= r.end - s.hi) {
      bias = r.base;
      return r.bytes;
    }
  }
  // The shared window's base is aligned far beyond any access size, so
  // alignment was checked on the generic addresses.
  if (space == Space::Shared)
    bias = 0;
  else if (space == Space::Generic)
    bias = kSharedWindow;
  else
    return nullptr;
  if (s.lo < bias || !fitsIn(s.hi - bias, size, cta.shared.size())) return nullptr;
  return cta.shared.data();
}

} // namespace emu
