// The handler registry: every semantics group's rows, looked up by key once
// per decoded instruction.
#include "emulator/Semantics.h"

#include "ptx/InstrTable.h"

namespace emu {

uint16_t typeClassOf(ptx::Type t) {
  using ptx::Type;
  switch (t) {
  case Type::None: return tclass::Untyped;
  case Type::Pred: return tclass::Pred;
  case Type::B128: return tclass::Wide;
  case Type::U16x2:
  case Type::S16x2:
  case Type::U8x4:
  case Type::S8x4: return tclass::PackedInt;
  case Type::F32:
  case Type::F64: return tclass::Float;
  case Type::F32x2: return tclass::FloatPair;
  case Type::F16:
  case Type::BF16:
  case Type::F16x2:
  case Type::BF16x2: return tclass::Half;
  default: break;
  }
  ptx::TypeClass c = ptx::typeClass(t);
  bool integer = c == ptx::TypeClass::Bits || c == ptx::TypeClass::Signed || c == ptx::TypeClass::Unsigned;
  return integer && ptx::bitWidth(t) <= 64 ? tclass::Int : tclass::Other;
}

uint32_t keyModsOf(const DInstr &in) {
  uint32_t key = 0;
  if (in.cc) key |= kmod::Cc;
  if (in.ftz) key |= kmod::Ftz;
  if (in.mods & dmod::Relu) key |= kmod::Relu;
  return key;
}

void HandlerRegistry::add(std::string_view group, std::span<const HandlerRow> rows) {
  for (const HandlerRow &r : rows) {
    std::vector<Entry> &entries = byOpcode_[static_cast<size_t>(r.opcode)];
    const Entry *clash = nullptr;
    for (const Entry &e : entries)
      if ((e.row.types & r.types) && e.row.mods == r.mods) clash = &e;
    if (clash) {
      conflicts_.push_back(std::string(group) + " registers '" +
                           std::string(ptx::InstrTable::get().info(r.opcode).name) + "' (type classes " +
                           std::to_string(r.types) + ", modifiers " + std::to_string(r.mods) + "), which " +
                           std::string(clash->group) + " registered already");
      continue;
    }
    if (!r.handler == !r.pick) {
      conflicts_.push_back(std::string(group) + " registers '" +
                           std::string(ptx::InstrTable::get().info(r.opcode).name) + "' with " +
                           (r.handler ? "both a handler and a picker" : "neither handler nor picker"));
      continue;
    }
    entries.push_back({r, group});
    ++count_;
  }
}

const HandlerRow *HandlerRegistry::find(const DInstr &in) const {
  const std::vector<Entry> &entries = byOpcode_[static_cast<size_t>(in.opcode)];
  const uint16_t cls = typeClassOf(in.type);
  // The modifiers that matter are those some row of this opcode and type
  // class names; the instruction's others are the picker's business.
  uint32_t named = 0;
  for (const Entry &e : entries)
    if (e.row.types & cls) named |= e.row.mods;
  const uint32_t key = keyModsOf(in) & named;
  for (const Entry &e : entries)
    if ((e.row.types & cls) && e.row.mods == key) return &e.row;
  return nullptr;
}

std::string_view HandlerRegistry::groupOf(const HandlerRow *r) const {
  if (!r) return {};
  for (const Entry &e : byOpcode_[static_cast<size_t>(r->opcode)])
    if (&e.row == r) return e.group;
  return {};
}

Handler HandlerRegistry::select(const DInstr &in) const {
  const HandlerRow *r = find(in);
  if (!r) return nullptr;
  return r->handler ? r->handler : r->pick(in);
}

const HandlerRegistry &HandlerRegistry::get() {
  static const HandlerRegistry registry = [] {
    HandlerRegistry r;
    r.add("Integer", integerHandlers());
    r.add("Extended", extendedHandlers());
    r.add("Float", floatHandlers());
    r.add("Compare", compareHandlers());
    r.add("Convert", convertHandlers());
    r.add("Video", videoHandlers());
    r.add("Memory", memoryHandlers());
    r.add("Atomic", atomicHandlers());
    r.add("Warp", warpHandlers());
    r.add("Misc", miscHandlers());
    r.add("Async", asyncHandlers());
    r.add("Wide", wideHandlers());
    r.add("Tensor", tensorHandlers());
    r.add("Wgmma", wgmmaHandlers());
    r.add("Texture", textureHandlers());
    r.add("Surface", surfaceHandlers());
    return r;
  }();
  return registry;
}

Handler selectHandler(const DInstr &in) { return HandlerRegistry::get().select(in); }

} // namespace emu
