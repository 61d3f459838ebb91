// What nvcc's host code calls before main: one __cudaRegisterFatBinary per translation unit (or
// one for the device-linked program with -rdc=true), then __cudaRegisterFunction and
// __cudaRegisterVar for its kernels and variables. Nothing is parsed here: a fatbin's PTX is
// extracted and indexed when one of its kernels or variables is first used, and a kernel's body
// (with the device functions it reaches) when it is first launched.
#include "analysis/Passes.h"
#include "ptx/Parser.h"
#include "regalloc/RegAlloc.h"
#include "runtime/Fatbin.h"
#include "runtime/cudart/PtxLink.h"
#include "runtime/cudart/Runtime.h"

#include <cstring>
#include <fstream>
#include <unordered_set>

namespace cudart {

namespace {

/// The fatbin wrapper nvcc emits (fatbinary_section.h): magic, version,
/// the container, and for version 2 the prelinked containers.
struct FatbinWrapper {
  int magic;
  int version;
  const unsigned long long *data;
  void *filenameOrFatbins;
};

/// Parses the bodies of `root` and of every function it can reach: callees
/// named in its code (direct calls, addresses taken, .calltargets) and
/// functions whose addresses initialise module variables (virtual tables).
bool materializeReachable(ptx::Module &m, ptx::Function &root, ptx::DiagnosticList &diags) {
  std::unordered_map<ptx::Name, std::vector<ptx::Function *>> byName;
  for (ptx::Function &f : m.functions) byName[f.name].push_back(&f);
  std::vector<ptx::Function *> work{&root};
  auto reach = [&](ptx::Name n) {
    if (auto it = byName.find(n); it != byName.end())
      for (ptx::Function *f : it->second) work.push_back(f);
  };
  for (const ptx::Variable &g : m.globals)
    for (const ptx::InitItem &item : g.init)
      if (item.kind == ptx::InitItem::Address) reach(item.symbol);
  std::unordered_set<ptx::Function *> seen;
  bool ok = true;
  while (!work.empty()) {
    ptx::Function *f = work.back();
    work.pop_back();
    if (!seen.insert(f).second || !f->hasBody) continue;
    if (!ptx::materializeBody(m, *f, diags)) ok = false;
    for (const ptx::Operand &o : f->operands)
      if (o.kind == ptx::OperandKind::Symbol ||
          (o.kind == ptx::OperandKind::Address && o.base == ptx::AddressBase::Symbol))
        reach(o.id);
    for (const ptx::TargetList &t : f->targetLists)
      if (t.calls)
        for (ptx::Name n : t.targets) reach(n);
  }
  return ok;
}

/// A file name for a module's PTX, from the entry's identifier (the CUDA
/// source nvcc compiled) when it has one.
std::string moduleName(const runtime::FatbinEntry &entry, size_t index) {
  std::string id = entry.identifier;
  if (size_t slash = id.find_last_of('/'); slash != std::string::npos) id = id.substr(slash + 1);
  if (id.empty()) id = "module" + std::to_string(index);
  for (char &c : id)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
  return id + ".sm_" + std::to_string(entry.arch) + ".ptx";
}

} // namespace

FatbinImage *Runtime::image(void **handle) {
  for (auto &img : images)
    if (reinterpret_cast<void **>(img.get()) == handle) return img.get();
  return nullptr;
}

bool Runtime::ptxOf(const runtime::Fatbin &fatbin, bool linked, size_t index, std::string &text,
                    std::string &name) {
  std::vector<const runtime::FatbinEntry *> ptx;
  if (linked) {
    // -rdc=true: the linked container holds SASS; the PTX is in the
    // prelinked containers of the translation units.
    for (const runtime::FatbinEntry *e : runtime::choosePtxPerContainer(fatbin))
      if (e->container != 0) ptx.push_back(e);
    if (ptx.empty())
      if (const runtime::FatbinEntry *e = runtime::choosePtx(fatbin)) ptx.push_back(e);
  } else if (const runtime::FatbinEntry *e = runtime::choosePtx(fatbin)) {
    ptx.push_back(e);
  }
  if (ptx.empty()) {
    ptx::Diagnostic d;
    d.kind = ptx::DiagKind::Unsupported;
    d.message = "the program's device code has no PTX (built with code=sm_XX only?); ptxvm runs PTX: "
                "build with -gencode arch=compute_XX,code=compute_XX or the default -arch=sm_XX";
    note(std::move(d));
    return false;
  }
  name = moduleName(*ptx[0], index);
  if (ptx.size() == 1) {
    text = std::string(ptx[0]->text());
    return true;
  }
  std::vector<std::string_view> units;
  for (const runtime::FatbinEntry *e : ptx) units.push_back(e->text());
  ptx::DiagnosticList linkDiags;
  text = linkPtx(units, linkDiags);
  name = "linked" + std::to_string(index) + ".sm_" + std::to_string(ptx[0]->arch) + ".ptx";
  for (const ptx::Diagnostic &d : linkDiags.all()) note(d);
  return true;
}

bool Runtime::load(FatbinImage &img) {
  if (img.loaded) return !img.failed;
  img.loaded = true;
  img.failed = true;
  size_t index = images.size();
  for (size_t i = 0; i < images.size(); ++i)
    if (images[i].get() == &img) index = i;
  std::string text, name;
  if (img.wrapper) {
    ptx::DiagnosticList diags;
    runtime::Fatbin fatbin;
    bool parsed = runtime::parseFatbinWrapper(img.wrapper, fatbin, diags);
    for (const ptx::Diagnostic &d : diags.all()) note(d);
    auto wrapper = static_cast<const FatbinWrapper *>(img.wrapper);
    bool linked = parsed && wrapper->version == static_cast<int>(runtime::kFatbinWrapperLinkVersion);
    if (!ptxOf(fatbin, linked, index, text, name)) return false;
  } else {
    text = std::move(img.ptxText);
    name = img.ptxName;
  }
  if (!config.ptxDirectory.empty()) {
    // Diagnostics name PTX lines: keep the PTX they refer to (under a name
    // of its own when two translation units share a file name).
    for (const auto &other : images)
      if (other.get() != &img && other->module && other->module->fileName == config.ptxDirectory + "/" + name)
        name = std::to_string(index) + "." + name;
    std::string path = config.ptxDirectory + "/" + name;
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (out) name = path;
  }
  ptx::ParseOptions options;
  options.lazyBodies = true;
  ptx::DiagnosticList parseDiags;
  img.module = ptx::parseModule(std::move(text), name, parseDiags, options);
  for (const ptx::Diagnostic &d : parseDiags.all()) {
    note(d);
    img.diagnostics.add(d);
  }
  if (parseDiags.hasErrors()) return false;
  if (!config.passes.empty() && !runPasses(*img.module)) return false;
  imageOf[img.module.get()] = &img;
  img.failed = false;
  // __managed__ variables: the host reaches them through these pointers.
  for (VariableInfo *v : img.variables)
    if (v->managedPointer)
      if (std::optional<runtime::Symbol> at = device->symbol(*img.module, img.module->names.find(v->name)))
        *v->managedPointer = reinterpret_cast<void *>(at->address);
  return true;
}

bool Runtime::runPasses(ptx::Module &m) {
  ptx::DiagnosticList diags;
  std::string error;
  regalloc::registerPasses();
  analysis::PassOptions options;
  std::optional<analysis::PassManager> pipeline;
  if (analysis::parsePassOptions(config.passOptions, options, error))
    pipeline = analysis::makePipeline(config.passes, diags, error, options);
  bool ok = pipeline && ptx::materializeAll(m, diags);
  if (ok) {
    analysis::AnalysisManager am(m);
    ok = pipeline->run(m, am);
  }
  if (!pipeline) {
    ptx::Diagnostic d;
    d.kind = ptx::DiagKind::Unsupported;
    d.message = "PTXVM_PASSES: " + error;
    d.loc.file = m.fileName;
    diags.add(std::move(d));
  }
  for (const ptx::Diagnostic &d : diags.all()) note(d);
  return ok;
}

KernelInfo *Runtime::kernel(const void *function) {
  if (!function) return nullptr;
  if (auto it = kernels.find(function); it != kernels.end()) return it->second.get();
  // A cudaKernel_t or cudaFunction_t handle is the KernelInfo itself.
  if (kernelHandles.count(function)) return static_cast<KernelInfo *>(const_cast<void *>(function));
  return nullptr;
}

cudaError_t Runtime::decode(KernelInfo &k) {
  if (k.decoded) return cudaSuccess;
  if (!load(*k.image)) return k.image->module ? cudaErrorInvalidPtx : cudaErrorNoKernelImageForDevice;
  ptx::Module &m = *k.image->module;
  ptx::Function *root = nullptr;
  for (ptx::Function &f : m.functions)
    if (f.isKernel && f.hasBody && m.str(f.name) == k.name) root = &f;
  ptx::DiagnosticList diags;
  if (!root) {
    ptx::Diagnostic d;
    d.kind = ptx::DiagKind::VerifyError;
    d.message = "kernel '" + k.name + "' is registered but not in the PTX of " + m.fileName;
    d.loc.file = m.fileName;
    note(std::move(d));
    return cudaErrorInvalidDeviceFunction;
  }
  bool ok = materializeReachable(m, *root, diags);
  if (ok) k.decoded = device->loadKernel(m, k.name, diags);
  for (const ptx::Diagnostic &d : diags.all()) note(d);
  if (ok && k.decoded) {
    prepareDeviceLaunches(k);
    return cudaSuccess;
  }
  // A kernel refused for its resources says which error a driver gives
  // (cudaErrorMemoryAllocation for a module's .global data, ...).
  for (const ptx::Diagnostic &d : diags.all())
    for (const auto &[key, value] : d.fields)
      if (key == "cuda_error")
        if (cudaError_t e = errorNamed(value); e != cudaSuccess) return e;
  return cudaErrorInvalidPtx;
}

cudaError_t Runtime::symbol(const void *hostVariable, VariableInfo *&info, runtime::Symbol &where) {
  auto it = variables.find(hostVariable);
  if (it == variables.end()) {
    // A __managed__ variable may be named by the address it lives at.
    for (auto &[shadow, v] : variables)
      if (v->managedPointer && *v->managedPointer == hostVariable) it = variables.find(shadow);
  }
  if (it == variables.end()) return cudaErrorInvalidSymbol;
  info = it->second.get();
  if (!load(*info->image)) return cudaErrorInvalidSymbol;
  ptx::Module &m = *info->image->module;
  ptx::Name name = m.names.find(info->name);
  std::optional<runtime::Symbol> at;
  if (name != ptx::kNoName) at = device->symbol(m, name);
  if (!at) return cudaErrorInvalidSymbol;
  where = *at;
  return cudaSuccess;
}

} // namespace cudart

using namespace cudart;

CUDART_EXPORT void **__cudaRegisterFatBinary(void *fatCubin) {
  Api api("__cudaRegisterFatBinary", Api::Ignores);
  auto img = std::make_unique<FatbinImage>();
  img->wrapper = fatCubin;
  void **handle = reinterpret_cast<void **>(img.get());
  api.rt.images.push_back(std::move(img));
  return handle;
}

CUDART_EXPORT void __cudaRegisterFatBinaryEnd(void **) {}

CUDART_EXPORT void __cudaUnregisterFatBinary(void **) {
  // At exit (atexit): keep everything, since the program's later exit
  // handlers may still call the runtime; flush what kernels printed. Never
  // wait for the runtime: another host thread may be inside a launch that
  // will not end (a kernel waiting for the host that is exiting), and work
  // still pending at exit is abandoned, as on a GPU.
  Runtime::flushIfIdle();
}

CUDART_EXPORT void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                                          const char *deviceName, int, uint3 *, uint3 *, dim3 *, dim3 *,
                                          int *) {
  Api api("__cudaRegisterFunction", Api::Ignores);
  FatbinImage *img = api.rt.image(fatCubinHandle);
  if (!img || !hostFun) return;
  auto k = std::make_unique<KernelInfo>();
  k->image = img;
  k->name = deviceName ? deviceName : deviceFun ? deviceFun : "";
  k->hostFunction = hostFun;
  api.rt.kernelHandles.insert(k.get());
  std::unique_ptr<KernelInfo> &slot = api.rt.kernels[hostFun];
  if (slot) api.rt.kernelHandles.erase(slot.get()); // registered again: the new one wins
  slot = std::move(k);
}

namespace {
void registerVariable(Api &api, void **handle, const void *shadow, const char *deviceName, size_t size,
                      bool constant, void **managedPointer) {
  FatbinImage *img = api.rt.image(handle);
  if (!img || !shadow || !deviceName) return;
  auto v = std::make_unique<VariableInfo>();
  v->image = img;
  v->name = deviceName;
  v->size = size;
  v->constant = constant;
  v->managedPointer = managedPointer;
  img->variables.push_back(v.get());
  api.rt.variables[shadow] = std::move(v);
}
} // namespace

CUDART_EXPORT void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *, const char *deviceName,
                                     int, size_t size, int constant, int) {
  Api api("__cudaRegisterVar", Api::Ignores);
  registerVariable(api, fatCubinHandle, hostVar, deviceName, size, constant != 0, nullptr);
}

CUDART_EXPORT void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress, char *,
                                            const char *deviceName, int, size_t size, int constant, int) {
  Api api("__cudaRegisterManagedVar", Api::Ignores);
  registerVariable(api, fatCubinHandle, hostVarPtrAddress, deviceName, size, constant != 0,
                   hostVarPtrAddress);
}

/// Called before the host first touches a __managed__ variable: the module
/// is loaded so the variable has its (host-shared) address.
CUDART_EXPORT char __cudaInitModule(void **fatCubinHandle) {
  Api api("__cudaInitModule", Api::Ignores);
  FatbinImage *img = api.rt.image(fatCubinHandle);
  return img && api.rt.load(*img) ? 1 : 0;
}
