// Loading a module onto a device: its globals allocated and initialized
// (function pointers and addresses of other globals resolved), its constant
// bank laid out, its symbols indexed. Runs once per module and device.
#include "emulator/Device.h"
#include "emulator/Limits.h"
#include "emulator/Semantics.h"

#include <cstring>

namespace emu {

using namespace limits;

/// The index of each function of a module by name: a device function
/// "address" (in a register, or written by a .global initializer such as a
/// vtable) is kFunctionTag | this index.
std::unordered_map<ptx::Name, uint32_t> functionIndices(const ptx::Module &m) {
  std::unordered_map<ptx::Name, uint32_t> index;
  for (uint32_t i = 0; i < m.functions.size(); ++i) index.emplace(m.functions[i].name, i);
  return index;
}

Device::LoadedModule &Device::load(const ptx::Module &m) {
  std::lock_guard lock(mutex_);
  auto [it, fresh] = modules_.try_emplace(&m);
  LoadedModule &lm = it->second;
  if (!fresh) return lm;
  // Lay out every module-level variable, then write initializers (which may
  // name any variable's address). A layout that cannot be made leaves the
  // module unloadable: every kernel of it reports lm.error.
  auto refuse = [&](const ptx::Variable &v, std::string why, const char *cudaError) {
    lm.error = "'" + std::string(m.str(v.name)) + "': " + std::move(why);
    lm.errorLine = v.loc.line;
    lm.errorCuda = cudaError;
  };
  uint64_t constCursor = 0, sharedCursor = 0;
  for (const ptx::Variable &v : m.globals) {
    const std::optional<uint64_t> bytes = bytesOf(v);
    if (!bytes) {
      refuse(v, "its size does not fit in 64 bits", "cudaErrorInvalidPtx");
      break;
    }
    const uint64_t size = *bytes;
    SymbolLocation loc;
    loc.size = size;
    // A bank of the module (its constants, its .shared variables): the next
    // aligned offset, or nullopt past the bank's limit.
    auto inBank = [&](uint64_t &cursor, uint64_t limit) -> std::optional<uint64_t> {
      const uint64_t off = alignUp(cursor, ptx::naturalAlignment(v));
      if (size > limit || off + size > limit) return std::nullopt;
      cursor = off + size;
      return off;
    };
    if (v.space == ptx::Mod::Const || v.space == ptx::Mod::Shared) {
      const bool constant = v.space == ptx::Mod::Const;
      const std::optional<uint64_t> off =
          constant ? inBank(constCursor, kMaxConstBank) : inBank(sharedCursor, kMaxStaticShared);
      if (!off) {
        refuse(v,
               constant
                   ? "the module's constant data passes " + std::to_string(kMaxConstBank) + " bytes"
                   : "the module's .shared variables pass " + std::to_string(kMaxStaticShared) + " bytes",
               "cudaErrorInvalidPtx");
        break;
      }
      loc = {constant ? Space::Const : Space::Shared, *off, size};
    } else {
      uint64_t placed = placeGlobal ? placeGlobal(m, v, size) : 0;
      if (!placed)
        placed =
            global.allocate(std::max<uint64_t>(size, 1), std::max<uint32_t>(ptx::naturalAlignment(v), 8));
      if (!placed) {
        refuse(v,
               "needs " + std::to_string(size) + " bytes of device memory; the device holds " +
                   std::to_string(global.capacity()) + " bytes and " + std::to_string(global.liveBytes()) +
                   " are in use",
               "cudaErrorMemoryAllocation");
        break;
      }
      loc = {Space::Global, placed, size};
    }
    lm.symbols.emplace(v.name, loc);
  }
  lm.constSize = static_cast<uint32_t>(constCursor);
  lm.sharedBytes = static_cast<uint32_t>(sharedCursor);
  if (!lm.error.empty()) return lm;
  // The constant bank is a global allocation (the kernel reads it through
  // ld.const at offsets, generic pointers reach it at constAddress + offset).
  if (lm.constSize) {
    lm.constAddress = global.allocate(lm.constSize, 256);
    if (!lm.constAddress) {
      lm.error = "the module's constant bank of " + std::to_string(lm.constSize) +
                 " bytes does not fit in device memory";
      lm.errorCuda = "cudaErrorMemoryAllocation";
      return lm;
    }
    lm.constBytes = global.rangeOf(lm.constAddress).bytes;
  }
  const auto functions = functionIndices(m);
  for (const ptx::Variable &v : m.globals) {
    if (v.init.empty()) continue;
    const SymbolLocation &loc = lm.symbols[v.name];
    unsigned elem = byteSize(v.type);
    // The initializer's own extent: a huge array with a short initializer
    // is mostly zeros the allocation already holds.
    std::vector<uint8_t> bytes(std::min<uint64_t>(loc.size, uint64_t{v.init.size()} * elem));
    uint64_t at = 0;
    for (const ptx::InitItem &item : v.init) {
      if (item.kind == ptx::InitItem::List) continue;
      if (at + elem > bytes.size()) break;
      uint64_t value = static_cast<uint64_t>(item.value);
      if (item.kind == ptx::InitItem::Address) {
        auto target = lm.symbols.find(item.symbol);
        if (target != lm.symbols.end())
          value = target->second.address + value;
        else if (auto fn = functions.find(item.symbol); fn != functions.end())
          value = kFunctionTag | fn->second; // a function pointer table, a vtable
        else
          value = 0;
        if (target != lm.symbols.end() && (item.flags & 1)) { // generic(symbol)
          if (target->second.space == Space::Shared) value += kSharedWindow;
          if (target->second.space == Space::Const) value += lm.constAddress;
        }
      } else if (item.kind == ptx::InitItem::F64 && v.type == ptx::Type::F32) {
        double d;
        std::memcpy(&d, &value, 8);
        float f = static_cast<float>(d);
        uint32_t b;
        std::memcpy(&b, &f, 4);
        value = b;
      }
      std::memcpy(bytes.data() + at, &value, elem);
      at += elem;
    }
    if (loc.space == Space::Const)
      std::memcpy(lm.constBytes + loc.address, bytes.data(), bytes.size());
    else if (loc.space == Space::Global)
      global.write(loc.address, bytes.data(), bytes.size());
  }
  return lm;
}

const SymbolLocation *Device::symbol(const ptx::Module &m, ptx::Name name) {
  LoadedModule &lm = load(m);
  auto it = lm.symbols.find(name);
  return it == lm.symbols.end() ? nullptr : &it->second;
}

std::span<const uint8_t> Device::constBank(const ptx::Module &m) {
  LoadedModule &lm = load(m);
  return {lm.constBytes, lm.constSize};
}

uint64_t Device::constBankAddress(const ptx::Module &m) { return load(m).constAddress; }

} // namespace emu
