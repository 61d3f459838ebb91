#include "ptx/IRDump.h"

#include "ptx/Writer.h"

#include <sstream>

namespace ptx {
namespace {

class Dumper {
public:
  Dumper(const Module &m, bool withLocations) : m_(m), withLocations_(withLocations) {}

  std::string run() {
    out_ << "module version=" << m_.versionMajor << "." << m_.versionMinor
         << " address_size=" << m_.addressSize << " version_loc=" << loc(m_.versionLoc) << "\n";
    for (const std::string &t : m_.targets) out_ << "target " << t << "\n";
    for (const TopLevel &t : m_.order) {
      switch (t.kind) {
      case TopLevelKind::Function: function(m_.functions[t.index]); break;
      case TopLevelKind::Variable: out_ << "global " << variable(m_.globals[t.index]) << "\n"; break;
      case TopLevelKind::File: {
        const FileEntry &f = m_.files[t.index];
        out_ << "file " << f.index << " \"" << f.path << "\" " << f.hasTimestamp << " " << f.timestamp << " "
             << f.size << "\n";
        break;
      }
      case TopLevelKind::Section: {
        const Section &s = m_.sections[t.index];
        out_ << "section " << s.name << " " << loc(s.loc) << " bytes=" << s.text.size() << "\n"
             << s.text << "\n";
        break;
      }
      case TopLevelKind::Pragma: out_ << "pragma " << strings(m_.pragmas[t.index]) << "\n"; break;
      case TopLevelKind::Alias:
        out_ << "alias " << m_.str(m_.aliases[t.index].first) << " " << m_.str(m_.aliases[t.index].second)
             << "\n";
        break;
      }
    }
    return out_.str();
  }

private:
  std::string loc(SourceLoc l) const {
    return withLocations_ ? std::to_string(l.line) + ":" + std::to_string(l.column) : "-";
  }
  static std::string strings(const std::vector<std::string> &v) {
    std::string s;
    for (const std::string &x : v) s += "\"" + x + "\" ";
    return s;
  }

  std::string variable(const Variable &v) {
    std::ostringstream o;
    o << "name=" << m_.str(v.name) << " space=" << spelling(v.space) << " linkage=" << int(v.linkage)
      << " type=" << spelling(v.type) << " vec=" << int(v.vectorWidth) << " attrs=" << int(v.attrs)
      << " ptr_space=" << spelling(v.ptrSpace) << " align=" << v.alignment << " ptr_align=" << v.ptrAlignment
      << " loc=" << loc(v.loc) << " dims=";
    for (uint64_t d : v.dims) o << d << ",";
    o << " init=";
    for (const InitItem &i : v.init)
      o << "(" << int(i.kind) << " " << int(i.flags) << " " << int(i.format) << " " << m_.str(i.symbol) << " "
        << i.count << " " << i.value << ")";
    o << " fields=";
    for (auto &[k, val] : v.fieldInit) o << m_.str(k) << "=" << m_.str(val) << ",";
    return o.str();
  }

  void operand(const Function &f, const Operand &op, unsigned depth) {
    out_ << std::string(depth * 2, ' ') << "operand kind=" << int(op.kind) << " flags=" << int(op.flags)
         << " format=" << int(op.format()) << " selector=" << int(op.selector) << " base=" << int(op.base);
    switch (op.kind) {
    case OperandKind::Register: out_ << " reg=" << registerName(m_, f, op.id) << "#" << op.id; break;
    case OperandKind::Symbol: out_ << " name=" << m_.str(op.id); break;
    case OperandKind::Address:
      if (op.base == AddressBase::Register)
        out_ << " reg=" << registerName(m_, f, op.id) << "#" << op.id;
      else if (op.base == AddressBase::Symbol)
        out_ << " name=" << m_.str(op.id);
      break;
    case OperandKind::SpecialReg: out_ << " sreg=" << spelling(static_cast<SpecialReg>(op.id)); break;
    case OperandKind::AddressList:
    case OperandKind::Vector:
    case OperandKind::Pair:
    case OperandKind::List: out_ << " first=" << op.id; break;
    default: break;
    }
    out_ << " count=" << op.count() << " value=" << op.value << "\n";
    if (op.kind == OperandKind::AddressList || op.kind == OperandKind::Vector ||
        op.kind == OperandKind::Pair || op.kind == OperandKind::List)
      for (const Operand &c : f.children(op)) operand(f, c, depth + 1);
  }

  void function(const Function &f) {
    out_ << (f.isKernel ? "entry " : "func ") << m_.str(f.name) << " linkage=" << int(f.linkage)
         << " noreturn=" << f.noReturn << " body=" << f.hasBody << " loc=" << loc(f.loc)
         << " body_loc=" << loc(f.bodyLoc) << "\n";
    for (const Variable &v : f.returns) out_ << "  return " << variable(v) << "\n";
    for (const Variable &v : f.params) out_ << "  param " << variable(v) << "\n";
    for (const FunctionDirective &d : f.directives) {
      out_ << "  directive " << spelling(d.kind);
      for (uint32_t v : d.values) out_ << " " << v;
      out_ << " " << strings(d.strings) << "\n";
    }
    if (!f.bodyParsed) {
      out_ << "  (body not parsed)\n";
      return;
    }
    out_ << "  registers=" << f.numRegisters << " operands=" << f.operands.size() << "\n";
    for (const Stmt &s : f.statements()) {
      switch (s.kind) {
      case StmtKind::Instruction: {
        const Instruction &in = f.instrs[s.index];
        out_ << "  instr " << instructionName(m_, in) << " op=" << int(in.opcode) << " form=" << in.form
             << " loc=" << loc(in.loc) << " dbg=" << in.debugLoc;
        if (in.hasGuard) out_ << " guard=" << (in.guardNegated ? "!" : "") << registerName(m_, f, in.guard);
        out_ << " first=" << in.firstOperand << "\n";
        for (const Operand &op : f.operandsOf(in)) operand(f, op, 2);
        break;
      }
      case StmtKind::Label:
        out_ << "  label " << m_.str(f.labels[s.index].name) << " " << loc(f.labels[s.index].loc) << "\n";
        break;
      case StmtKind::RegDecl: {
        const RegisterDecl &d = f.regDecls[s.index];
        out_ << "  reg " << m_.str(d.name) << " type=" << spelling(d.type) << " vec=" << int(d.vectorWidth)
             << " align=" << d.alignment << " count=" << d.count << " first=" << d.firstRegister
             << " loc=" << loc(d.loc) << "\n";
        break;
      }
      case StmtKind::Variable: out_ << "  var " << variable(f.locals[s.index]) << "\n"; break;
      case StmtKind::DebugLoc: out_ << "  loc " << s.index << "\n"; break;
      case StmtKind::ScopeBegin: out_ << "  {\n"; break;
      case StmtKind::ScopeEnd: out_ << "  }\n"; break;
      case StmtKind::Pragma: out_ << "  pragma " << strings(f.pragmas[s.index]) << "\n"; break;
      case StmtKind::Prototype: {
        const Prototype &p = f.prototypes[s.index];
        out_ << "  prototype " << m_.str(p.name) << " noreturn=" << p.noReturn << " loc=" << loc(p.loc)
             << "\n";
        for (const Variable &v : p.returns) out_ << "    return " << variable(v) << "\n";
        for (const Variable &v : p.params) out_ << "    param " << variable(v) << "\n";
        break;
      }
      case StmtKind::TargetList: {
        const TargetList &t = f.targetLists[s.index];
        out_ << "  targets " << m_.str(t.name) << " calls=" << t.calls << " loc=" << loc(t.loc) << ":";
        for (Name n : t.targets) out_ << " " << m_.str(n);
        out_ << "\n";
        break;
      }
      }
    }
    for (size_t i = 1; i < f.debugLocs.size(); ++i) {
      const DebugLoc &d = f.debugLocs[i];
      out_ << "  dbg " << i << " " << d.file << ":" << d.line << ":" << d.column
           << " fn=" << m_.str(d.functionName) << " inlined=" << d.inlinedFile << ":" << d.inlinedLine << ":"
           << d.inlinedColumn << "\n";
    }
    for (size_t b = 0; b < f.blocks.size(); ++b) {
      const BasicBlock &bb = f.blocks[b];
      out_ << "  block " << b << " label="
           << (bb.label == UINT32_MAX ? std::string("-") : std::string(m_.str(f.labels[bb.label].name)))
           << " instrs=" << bb.firstInstr << "+" << bb.numInstrs << " succs=";
      for (uint32_t s : f.succs(bb)) out_ << s << ",";
      out_ << " preds=";
      for (uint32_t p : f.preds(bb)) out_ << p << ",";
      out_ << "\n";
    }
  }

  const Module &m_;
  bool withLocations_;
  std::ostringstream out_;
};

} // namespace

std::string dumpModule(const Module &m, bool withLocations) { return Dumper(m, withLocations).run(); }

} // namespace ptx
