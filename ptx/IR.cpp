#include "ptx/IR.h"

#include <algorithm>

namespace ptx {

Name NameTable::intern(std::string_view s) {
  auto it = index_.find(s);
  if (it != index_.end()) return it->second;
  Name id = static_cast<Name>(strings_.size());
  strings_.emplace_back(s);
  index_.emplace(strings_.back(), id);
  return id;
}

Name NameTable::find(std::string_view s) const {
  auto it = index_.find(s);
  return it == index_.end() ? kNoName : it->second;
}

std::string_view spelling(Selector s) {
  switch (s) {
  case Selector::None: return "";
  case Selector::X: return "x";
  case Selector::Y: return "y";
  case Selector::Z: return "z";
  case Selector::W: return "w";
  case Selector::B0: return "b0";
  case Selector::B1: return "b1";
  case Selector::B2: return "b2";
  case Selector::B3: return "b3";
  case Selector::H0: return "h0";
  case Selector::H1: return "h1";
  case Selector::ByteMask: return "b";
  case Selector::HalfMask: return "h";
  }
  return "";
}

std::string_view spelling(DirectiveKind k) {
  switch (k) {
  case DirectiveKind::MaxNTid: return "maxntid";
  case DirectiveKind::ReqNTid: return "reqntid";
  case DirectiveKind::MinNCtaPerSm: return "minnctapersm";
  case DirectiveKind::MaxNCtaPerSm: return "maxnctapersm";
  case DirectiveKind::MaxNReg: return "maxnreg";
  case DirectiveKind::ReqNCtaPerCluster: return "reqnctapercluster";
  case DirectiveKind::ExplicitCluster: return "explicitcluster";
  case DirectiveKind::MaxClusterRank: return "maxclusterrank";
  case DirectiveKind::BlocksAreClusters: return "blocksareclusters";
  case DirectiveKind::Pragma: return "pragma";
  case DirectiveKind::Abi: return "abi_preserve";
  }
  return "";
}

bool InstrDesc::has(Mod m) const {
  for (unsigned i = 0; i < numMods; ++i)
    if (mods[i] == m) return true;
  return false;
}

Type InstrDesc::type(unsigned n) const {
  for (unsigned i = 0; i < numMods; ++i)
    if (isTypeMod(mods[i]) && n-- == 0) return typeOfMod(mods[i]);
  return Type::None;
}

Type InstrDesc::lastType() const {
  for (unsigned i = numMods; i-- > 0;)
    if (isTypeMod(mods[i])) return typeOfMod(mods[i]);
  return Type::None;
}

Mod InstrDesc::firstOfKind(ModKind k) const {
  for (unsigned i = 0; i < numMods; ++i)
    if (modKind(mods[i]) == k) return mods[i];
  return Mod::None;
}

size_t Module::DescHash::operator()(const InstrDesc &d) const {
  size_t h = static_cast<size_t>(d.opcode) * 1000003u ^ d.form;
  for (unsigned i = 0; i < d.numMods; ++i) h = h * 31 + static_cast<size_t>(d.mods[i]);
  return h;
}

uint32_t Module::internDesc(const InstrDesc &d) {
  auto it = descIndex_.find(d);
  if (it != descIndex_.end()) return it->second;
  uint32_t id = static_cast<uint32_t>(descs.size());
  descs.push_back(d);
  descIndex_.emplace(d, id);
  return id;
}

uint32_t Module::findDescBySpelling(std::string_view s) const {
  auto it = descBySpelling_.find(s);
  return it == descBySpelling_.end() ? UINT32_MAX : it->second;
}

void Module::rememberDescSpelling(std::string_view s, uint32_t desc) {
  descBySpelling_.emplace(std::string(s), desc);
}

unsigned Module::smVersion() const {
  for (const std::string &t : targets) {
    if (t.size() > 3 && t.compare(0, 3, "sm_") == 0) {
      unsigned v = 0;
      for (size_t i = 3; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) v = v * 10 + (t[i] - '0');
      return v;
    }
  }
  return 0;
}

Function *Module::findFunction(std::string_view name) {
  // nvcc declares a device function before the kernels that call it and
  // defines it later: callers want the body.
  Function *declaration = nullptr;
  for (Function &f : functions)
    if (str(f.name) == name) {
      if (f.hasBody) return &f;
      if (!declaration) declaration = &f;
    }
  return declaration;
}

const Function *Module::findFunction(std::string_view name) const {
  return const_cast<Module *>(this)->findFunction(name);
}

const RegisterDecl &Function::declOf(uint32_t reg) const {
  auto it = std::upper_bound(regDecls.begin(), regDecls.end(), reg,
                             [](uint32_t r, const RegisterDecl &d) { return r < d.firstRegister; });
  return *(it - 1);
}

std::string registerName(const Module &m, const Function &f, uint32_t reg) {
  const RegisterDecl &d = f.declOf(reg);
  std::string name(m.str(d.name));
  if (d.count) name += std::to_string(reg - d.firstRegister);
  return name;
}

} // namespace ptx
